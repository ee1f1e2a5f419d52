/* Internal header of pack/: undoing an archive's compression.
 *
 * The tar stream of a .tar.gz or .tar.zst, decompressed with zlib and
 * libzstd directly rather than through libarchive's filters, because the
 * checks need what libarchive hides: a gzip file is exactly one member
 * whose CRC-32 and length are checked (libarchive 3.6 reads further
 * members and does not check the CRC), a zstd file exactly one frame (no
 * skippable frame, no second frame as pzstd writes), and nothing follows
 * (docs/formats/digests.md, "Reading archives safely").  The input comes
 * from the caller's function, which also hashes the archive's bytes.
 */
#ifndef PACK_DECOMPRESS_H
#define PACK_DECOMPRESS_H

#include <stddef.h>

#include "packsign.h"

/* The largest zstd window accepted: 2^23 bytes (8 MiB).  packsign writes
 * level 3 (a 2 MiB window at most); a larger window is refused
 * (archive_corrupt) so that memory stays bounded. */
#define PACK_ZSTD_WINDOW_LOG_MAX 23

typedef struct pack_decoder pack_decoder;

/* Supplies the next bytes of the compressed file: *len 0 at its end;
 * 0 / -1 (err set). */
typedef int (*pack_decoder_input)(void *ctx, const void **buf, size_t *len,
    ps_error *err);

int pack_decoder_new(ps_compression compression, const char *label,
    pack_decoder_input input, void *ctx, pack_decoder **out, ps_error *err);

/*
 * The next bytes of the decompressed stream, valid until the next call;
 * *len 0 once the one member or frame ended and the file ended right
 * after it.  Refusals: archive_corrupt (not gzip or zstd, a CRC-32, size
 * or checksum mismatch, truncated, a skippable or oversized zstd frame),
 * archive_trailing_data (bytes after the member or frame).
 */
int pack_decoder_read(pack_decoder *d, const void **out, size_t *len,
    ps_error *err);

void pack_decoder_free(pack_decoder *d);

#endif
