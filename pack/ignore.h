/* Internal header of pack/: .packsignignore.
 *
 * .packsignignore at the pack root: one glob pattern a line
 * (docs/formats/canonical-tar.md, "Ignored paths").
 */
#ifndef PACK_IGNORE_H
#define PACK_IGNORE_H

#include <stddef.h>

#include "packsign.h"

#define PACK_IGNORE_FILE ".packsignignore"
#define PACK_IGNORE_MAX_BYTES (64 * 1024)
#define PACK_IGNORE_MAX_RULES 1024

typedef struct pack_ignore pack_ignore;

/* Parses the file's text; syntax errors are refused as FILE:LINE. */
int pack_ignore_parse(const char *text, size_t len, pack_ignore **out,
    ps_error *err);
/* Reads PACK_IGNORE_FILE below `rootfd`, if any (no file: no rules). */
int pack_ignore_load(int rootfd, pack_ignore **out, ps_error *err);
/* 1 when `path` (canonical, relative) is ignored; no rules (NULL) ignore
 * nothing. */
int pack_ignore_match(const pack_ignore *rules, const char *path, int is_dir);
void pack_ignore_free(pack_ignore *rules);

#endif
