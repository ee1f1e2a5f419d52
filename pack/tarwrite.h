/* Internal header of pack/: the canonical tar writer.
 *
 * The canonical tar writer (docs/formats/canonical-tar.md).  It hashes the
 * uncompressed tar stream as it goes (the tar digest) and sends it to an
 * output fd, through gzip or zstd when asked, or nowhere (out_fd < 0).
 */
#ifndef PACK_TARWRITE_H
#define PACK_TARWRITE_H

#include <stddef.h>
#include <stdint.h>

#include "packsign.h"

typedef struct pack_tar_writer pack_tar_writer;

/* Files of this size or more would need a pax size record. */
#define PACK_TAR_SIZE_LIMIT (8ULL * 1024 * 1024 * 1024)

/*
 * 1 when `path` (a directory's without its '/') is stored without
 * truncation: ASCII names that fit ustar's name or prefix/name split,
 * other names short enough for a plain pax path record
 * (canonical-tar.md, "Names in headers").
 */
int pack_tar_path_fits(const char *path, int is_dir);

int pack_tar_writer_new(int out_fd, ps_compression compression, int64_t mtime,
    pack_tar_writer **out, ps_error *err);
int pack_tar_write_dir(pack_tar_writer *w, const char *path, ps_error *err);
/* Starts a file entry; exactly `size` bytes of data must follow. */
int pack_tar_write_file(pack_tar_writer *w, const char *path, uint64_t size,
    int executable, ps_error *err);
int pack_tar_write_data(pack_tar_writer *w, const void *buf, size_t len,
    ps_error *err);
/* Writes the end of the archive and yields the tar digest. */
int pack_tar_writer_finish(pack_tar_writer *w, unsigned char digest[PS_SHA256_LEN],
    ps_error *err);
void pack_tar_writer_free(pack_tar_writer *w);

/*
 * Sees every byte sent to out_fd, in order, as it is written: sign hashes
 * the archive file (SHA-256, BLAKE2b-512) without reading it back.
 */
typedef struct pack_output_tap {
	void *ctx;
	int (*bytes)(void *ctx, const void *buf, size_t len, ps_error *err);
} pack_output_tap;

/* Installs `tap` (copied; NULL removes it) before anything is written.
 * With an output descriptor the taps run on the writer's worker thread:
 * their context must not be touched until pack_tar_writer_finish(). */
void pack_tar_writer_set_tap(pack_tar_writer *w, const pack_output_tap *tap);

/*
 * Hands the uncompressed tar stream to `tap` instead of hashing it (the
 * digest from pack_tar_writer_finish() is then all zeros): the archive
 * reader compares a canonical re-encoding with its input byte for byte.
 */
void pack_tar_writer_set_stream_tap(pack_tar_writer *w, const pack_output_tap *tap);

#endif
