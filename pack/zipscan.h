/* Internal header of pack/: a zip's own directory.
 *
 * libarchive reads a zip entry's name and data from its local header; it
 * does not report bytes before the first local header (a tar/zip
 * polyglot), a central directory that disagrees with the local headers
 * (`unzip` extracts by the central name), entries that share bytes (one
 * deflate stream under many names: a 265 KB file inflating to 4 GiB), a
 * Unicode Path extra field that differs from the name, or bytes after the
 * end-of-central-directory record (`unzip` and `zipfile` then see another
 * archive).  So packsign reads the end record and the central directory
 * itself, and every local header and data descriptor against them, before
 * libarchive reads a byte of data (docs/formats/digests.md, "Reading
 * archives safely").  Bounded (one entry per central directory record, at
 * most the entry limit) and fuzzed (tests/fuzz/fuzz_zipscan.c).
 */
#ifndef PACK_ZIPSCAN_H
#define PACK_ZIPSCAN_H

#include <stddef.h>
#include <stdint.h>

#include "packsign.h"

/* The most bytes of a central directory read into memory. */
#define PACK_ZIP_DIRECTORY_MAX (256ULL * 1024 * 1024)

typedef struct pack_zipscan pack_zipscan;

/*
 * Reads and checks the structure of the zip open on `fd` (`size` bytes,
 * read with pread: the offset is not moved), holding at most
 * `max_entries` entries (0: PACK_ITEMS_MAX).  Refusals: zip_layout,
 * zip_header_mismatch, zip_unicode_name, zip_name_encoding,
 * zip_entry_type, archive_trailing_data, archive_corrupt,
 * unsupported_entry, extract_too_many_entries; failures: io_error,
 * out_of_memory.
 */
int pack_zipscan_read(int fd, uint64_t size, const char *label,
    uint64_t max_entries, pack_zipscan **out, ps_error *err);

/* How many entries the central directory lists. */
size_t pack_zipscan_count(const pack_zipscan *z);

/* 1 when `name` (as libarchive reports it, before any normalisation) is
 * the name of an entry not yet seen, which it then marks seen, with what
 * every other reader makes of that entry: a directory (its name ends in
 * '/') or a file of *size bytes; else 0. */
int pack_zipscan_take(pack_zipscan *z, const char *name, int *is_dir,
    uint64_t *size);

/*
 * The whole-pack name rules (pack_items_check) over both readings of the
 * names: every entry's path (UTF-8, as packsign, unzip, bsdtar and 7-Zip
 * read it) and, for each non-ASCII name without the UTF-8 flag, its CP437
 * reading, as Python's zipfile reads it.  Two entries may not collide in
 * any of them: duplicate_entry, path_conflict, case_collision, naming the
 * reading; failures: out_of_memory, locale_unavailable (no CP437
 * converter).
 */
int pack_zipscan_check_readings(const pack_zipscan *z, ps_error *err);

void pack_zipscan_free(pack_zipscan *z);

#endif
