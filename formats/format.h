/* Internal header of formats/: the formats packsign reads.
 *
 * The table of format descriptors (formats/descriptor.h), in the order
 * detection and listings use: soyapack, holon, autograph, agentpack.
 */
#ifndef FORMATS_FORMAT_H
#define FORMATS_FORMAT_H

#include <stddef.h>

#include "packsign.h"
#include "formats/descriptor.h"

/* Room for every format in arrays indexed like formats_at(). */
#define FORMATS_MAX 8

/* How many formats there are; formats_at(0 .. count - 1) lists them. */
size_t formats_count(void);
const formats_descriptor *formats_at(size_t i);

/* `prefix` and every manifest file name, joined by ", " ("one of
 * soyapack.yaml, holon.yaml, ..."), into `out`; returns `out`. */
char *formats_manifest_names(char *out, size_t size, const char *prefix);

/* The descriptor of `format`; NULL for PS_FORMAT_UNKNOWN. */
const formats_descriptor *formats_of(ps_format format);
/* The descriptor whose install directory is `dir`; NULL when none. */
const formats_descriptor *formats_by_install_dir(const char *dir);

#endif
