/* Internal header of pack/: the tar stream's own headers.
 *
 * libarchive's tar reader hides what decides whether other readers see the
 * same archive: it skips pax global headers (GNU tar and Python's tarfile
 * apply them), lets a GNU long name and a pax path disagree (bsdtar takes
 * the first, GNU tar the second), cuts a pax value at a NUL (tarfile reads
 * it whole) and stops at the end-of-archive blocks without saying what
 * follows (`tar -i` reads a second archive there).  So packsign reads the
 * 512-byte headers of the uncompressed stream itself, before libarchive
 * parses them, and refuses those shapes (docs/formats/digests.md, "Reading
 * archives safely").  It is small, bounded and fuzzed
 * (tests/fuzz/fuzz_tarscan.c); libarchive still parses every entry, and
 * the reader checks that each name libarchive reports is the one these
 * headers give.
 */
#ifndef PACK_TARSCAN_H
#define PACK_TARSCAN_H

#include <stddef.h>
#include <stdint.h>

#include "packsign.h"

/* The most bytes of one pax extended header, and of one GNU long name or
 * link name (its NUL included). */
#define PACK_TAR_PAX_MAX (1024 * 1024)
#define PACK_TAR_LONG_NAME_MAX 8192

typedef struct pack_tarscan pack_tarscan;

int pack_tarscan_new(const char *label, pack_tarscan **out, ps_error *err);

/*
 * The next bytes of the uncompressed tar stream, in order.  Refusals:
 * tar_global_header, tar_header_type, tar_header_padding (bytes 500-511
 * not NUL), tar_name_conflict, tar_pax_invalid, archive_trailing_data,
 * archive_corrupt (a header checksum or number), and
 * unsupported_entry (GNU sparse pax records).
 */
int pack_tarscan_feed(pack_tarscan *s, const void *buf, size_t len,
    ps_error *err);

/* The stream ended: refuses a truncated archive or one without its
 * end-of-archive block (archive_corrupt). */
int pack_tarscan_finish(pack_tarscan *s, ps_error *err);

/* The name of the next entry not yet taken, as the headers give it: the
 * pax path, else the GNU long name, else the ustar prefix and name.  NULL
 * when the headers hold no further entry (or the scan stopped at an entry
 * the reader refuses anyway: a link, device or sparse file).  Valid until
 * the next call. */
const char *pack_tarscan_next_name(pack_tarscan *s);

/* Bytes after the end-of-archive (its two zero blocks): NUL bytes only
 * (after an archive_trailing_data refusal, the NUL bytes before the
 * refused one); what the size limit counts of them. */
uint64_t pack_tarscan_trailer(const pack_tarscan *s);

/* What the size and ratio limits count besides file content: the data of
 * pax and GNU long-name headers (a stream of 1 MiB pax headers costs as
 * much to read as content) and the trailer. */
uint64_t pack_tarscan_counted(const pack_tarscan *s);

void pack_tarscan_free(pack_tarscan *s);

#endif
