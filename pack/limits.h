/* Internal header of pack/: the limits of reading an archive.
 *
 * Every reader of an archive (digest, validate, sign, verify, install)
 * holds the same limits while it decompresses (docs/formats/install.md,
 * "Limits"): entries, bytes of file content (and of the NUL padding after
 * a tar's end), and content bytes per archive byte once past a floor, so
 * that a small file cannot make any of them spend hours or gigabytes.
 */
#ifndef PACK_LIMITS_H
#define PACK_LIMITS_H

#include <stdint.h>

#include "packsign.h"

typedef struct pack_budget {
	ps_extract_limits limits;
	uint64_t archive_size;      /* bytes of the archive file: the ratio */
	uint64_t entries;
	uint64_t total;             /* content bytes read so far */
} pack_budget;

/* A budget of `limits` (NULL: the defaults) for an archive of
 * `archive_size` bytes. */
void pack_budget_init(pack_budget *b, const ps_extract_limits *limits,
    uint64_t archive_size);

/* One more entry (extract_too_many_entries). */
int pack_budget_entry(pack_budget *b, const char *path, ps_error *err);

/* `n` directories the paths imply without entries of their own: they
 * count as entries, since extracting or listing the pack creates them
 * (extract_too_many_entries). */
int pack_budget_implied(pack_budget *b, const char *label, uint64_t n,
    ps_error *err);

/* An entry declaring `size` bytes, before they are read
 * (extract_too_large). */
int pack_budget_declared(pack_budget *b, const char *path, uint64_t size,
    ps_error *err);

/* `n` more bytes read (extract_too_large, extract_ratio_exceeded). */
int pack_budget_bytes(pack_budget *b, const char *path, uint64_t n,
    ps_error *err);

#endif
