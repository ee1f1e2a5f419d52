#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>

#include "pack/tarwrite.h"
#include "util/error.h"
#include "util/fdio.h"
#include "util/flusher.h"
#include "util/pathname.h"
#include "util/sha256.h"
#include "util/worker.h"

static int
is_ascii(const char *s)
{
	for (; *s != '\0'; s++) {
		if ((unsigned char)*s >= 0x80)
			return 0;
	}
	return 1;
}

/* ustar: up to 100 bytes, or a split at a '/' into <= 155 + <= 100. */
static int
fits_ustar(const char *s, size_t len)
{
	const char *slash;

	if (len <= 100)
		return 1;
	slash = strchr(s + len - 101, '/');
	if (slash == s)
		slash = strchr(slash + 1, '/');
	return slash != NULL && slash[1] != '\0' && slash - s <= 155;
}

int
pack_tar_path_fits(const char *path, int is_dir)
{
	size_t len = strlen(path), stored = len + (is_dir ? 1 : 0);
	char name[UTIL_PATH_MAX + 2];

	if (len > UTIL_PATH_MAX)
		return 0;
	if (is_ascii(path) && !is_dir)
		return fits_ustar(path, len);
	if (is_ascii(path)) {
		memcpy(name, path, len);
		memcpy(name + len, "/", 2);
		return fits_ustar(name, stored);
	}
	/* The header keeps the name itself and the extension is named
	 * DIR/PaxHeader/BASE: both must stay under 100 bytes. */
	return stored < 100 && len + strlen("PaxHeader/") < 100;
}

struct pack_tar_writer {
	struct archive *tar;        /* pax-restricted writer */
	struct archive *compressor; /* raw writer with a gzip/zstd filter */
	struct archive_entry *entry;
	util_sha256 *stream_hash;
	int out_fd;
	int64_t mtime;
	ps_error sink_error;        /* what failed inside a callback */
	int sink_failed;
	/* With an output, the tar stream is hashed, compressed and written
	 * on a second thread; out_error is that thread's (read after it
	 * stopped).  Without one (a hash-only writer, whose stream tap
	 * compares as it goes) everything stays on the caller's thread. */
	util_worker *worker;
	ps_error out_error;
	int out_failed;
	uint64_t written;           /* bytes sent to out_fd */
	util_flusher *flusher;        /* makes a regular file durable meanwhile */
	pack_output_tap tap;          /* sees the output bytes; bytes NULL: none */
	pack_output_tap stream_tap;   /* replaces the stream hash when set */
};

/* The ring between the tar writer and the worker: libarchive's blocks. */
#define WORKER_SLOT (64 * 1024)
#define WORKER_SLOTS 16

/* libarchive reports an error; its callback's own error wins: the tar
 * writer's callback runs on the caller's thread (sink_*), the
 * compressor's on the worker (out_*). */
static int
archive_failure(pack_tar_writer *w, struct archive *a, const char *what,
    ps_error *err)
{
	const char *msg = archive_error_string(a);
	int failed = a == w->compressor ? w->out_failed : w->sink_failed;

	if (failed) {
		*err = a == w->compressor ? w->out_error : w->sink_error;
		return -1;
	}
	return util_fail(err, "archive_error", NULL, "%s: %s", what,
	    msg != NULL ? msg : "libarchive failed");
}

/* The bytes that reach the output: tap, write, background flush. */
static int
write_output(pack_tar_writer *w, const void *buf, size_t len, ps_error *err)
{
	if (w->tap.bytes != NULL && w->tap.bytes(w->tap.ctx, buf, len, err) != 0)
		return -1;
	if (util_write_all(w->out_fd, buf, len, "output", err) != 0)
		return -1;
	w->written += len;
	if (w->flusher == NULL)
		return 0;
	return util_flusher_wrote(w->flusher, w->written, err);
}

/* libarchive's compressor hands its output here. */
static la_ssize_t
write_compressed(struct archive *a, void *ctx, const void *buf, size_t len)
{
	pack_tar_writer *w = ctx;

	(void)a;
	if (write_output(w, buf, len, &w->out_error) != 0) {
		w->out_failed = 1;
		return -1;
	}
	return (la_ssize_t)len;
}

static int
compress(pack_tar_writer *w, const void *buf, size_t len, ps_error *err)
{
	la_ssize_t n = archive_write_data(w->compressor, buf, len);

	if (n >= 0 && (size_t)n == len)
		return 0;
	return archive_failure(w, w->compressor, "compress", err);
}

/* On the worker: the tar stream's hash (or tap), then its output. */
static int
consume_tar_stream(void *ctx, uint64_t tag, const void *buf, size_t len,
    ps_error *err)
{
	pack_tar_writer *w = ctx;

	(void)tag;
	if (w->stream_tap.bytes != NULL) {
		if (w->stream_tap.bytes(w->stream_tap.ctx, buf, len, err) != 0)
			return -1;
	} else if (util_sha256_update(w->stream_hash, buf, len) != 0) {
		return util_fail(err, "crypto_error", NULL, "SHA-256 failed");
	}
	if (w->compressor != NULL)
		return compress(w, buf, len, err);
	if (w->out_fd >= 0)
		return write_output(w, buf, len, err);
	return 0;
}

static const util_worker_ops stream_ops = { consume_tar_stream, NULL, NULL };

/* libarchive's tar writer hands its blocks here, on the caller's thread:
 * queued for the worker, or consumed at once without one. */
static la_ssize_t
queue_tar_stream(struct archive *a, void *ctx, const void *buf, size_t len)
{
	pack_tar_writer *w = ctx;

	(void)a;
	if ((w->worker != NULL ? util_worker_push(w->worker, 0, buf, len,
	    &w->sink_error) : consume_tar_stream(w, 0, buf, len,
	    &w->sink_error)) != 0) {
		w->sink_failed = 1;
		return -1;
	}
	return (la_ssize_t)len;
}

static int
set_filter(struct archive *a, ps_compression compression)
{
	char level[8];

	if (compression == PS_COMPRESS_GZIP) {
		snprintf(level, sizeof(level), "%d", PS_GZIP_LEVEL);
		return archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
		    archive_write_set_filter_option(a, "gzip", "timestamp",
		    NULL) != ARCHIVE_OK ||
		    archive_write_set_filter_option(a, "gzip",
		    "compression-level", level) != ARCHIVE_OK ? -1 : 0;
	}
	snprintf(level, sizeof(level), "%d", PS_ZSTD_LEVEL);
	return archive_write_add_filter_zstd(a) != ARCHIVE_OK ||
	    archive_write_set_filter_option(a, "zstd", "compression-level",
	    level) != ARCHIVE_OK ? -1 : 0;
}

/* The compressor takes the tar stream as the one entry of a raw archive. */
static int
open_compressor(pack_tar_writer *w, ps_compression compression, ps_error *err)
{
	struct archive_entry *e;
	int rc;

	w->compressor = archive_write_new();
	if (w->compressor == NULL)
		return util_fail_oom(err, NULL);
	if (archive_write_set_format_raw(w->compressor) != ARCHIVE_OK ||
	    set_filter(w->compressor, compression) != 0 ||
	    archive_write_set_bytes_per_block(w->compressor, 65536) != ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(w->compressor, 1) != ARCHIVE_OK ||
	    archive_write_open(w->compressor, w, NULL, write_compressed,
	    NULL) != ARCHIVE_OK)
		return archive_failure(w, w->compressor, "set up compression", err);
	e = archive_entry_new();
	if (e == NULL)
		return util_fail_oom(err, NULL);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_pathname(e, "pack.tar");
	rc = archive_write_header(w->compressor, e);
	archive_entry_free(e);
	if (rc != ARCHIVE_OK)
		return archive_failure(w, w->compressor, "set up compression", err);
	return 0;
}

static int
open_tar(pack_tar_writer *w, ps_error *err)
{
	w->tar = archive_write_new();
	w->entry = archive_entry_new();
	if (w->tar == NULL || w->entry == NULL)
		return util_fail_oom(err, NULL);
	/* Padding only to 512-byte records, so every target gets the same
	 * bytes.  Every hash-only writer (the canonical re-encoding, the tar
	 * digest of a directory for verify and inspect) is unbuffered, block
	 * size 0, the same bytes: its tap sees the data at the very address
	 * it was handed, which the re-encoding's comparison uses
	 * (pack/rebuild.h).  libarchive then allocates 0 bytes for its block,
	 * which glibc and musl return as a pointer. */
	if (archive_write_set_format_pax_restricted(w->tar) != ARCHIVE_OK ||
	    archive_write_add_filter_none(w->tar) != ARCHIVE_OK ||
	    archive_write_set_bytes_per_block(w->tar,
	    w->out_fd >= 0 ? 65536 : 0) != ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(w->tar, 1) != ARCHIVE_OK ||
	    archive_write_open(w->tar, w, NULL, queue_tar_stream,
	    NULL) != ARCHIVE_OK)
		return archive_failure(w, w->tar, "set up the tar writer", err);
	return 0;
}

int
pack_tar_writer_new(int out_fd, ps_compression compression, int64_t mtime,
    pack_tar_writer **out, ps_error *err)
{
	pack_tar_writer *w = calloc(1, sizeof(*w));

	*out = NULL;
	if (w == NULL)
		return util_fail_oom(err, NULL);
	w->out_fd = out_fd;
	w->mtime = mtime;
	w->stream_hash = util_sha256_new();
	if (w->stream_hash == NULL ||
	    (out_fd >= 0 && compression != PS_COMPRESS_NONE &&
	    open_compressor(w, compression, err) != 0) ||
	    (out_fd >= 0 && util_flusher_new(out_fd, "output", &w->flusher,
	    err) != 0) ||
	    (out_fd >= 0 && util_worker_new(&stream_ops, w, WORKER_SLOT,
	    WORKER_SLOTS, &w->worker, err) != 0) ||
	    open_tar(w, err) != 0) {
		if (w->stream_hash == NULL)
			util_fail(err, "crypto_error", NULL, "cannot start SHA-256");
		pack_tar_writer_free(w);
		return -1;
	}
	*out = w;
	return 0;
}

static int
write_header(pack_tar_writer *w, const char *path, unsigned type, unsigned perm,
    uint64_t size, ps_error *err)
{
	struct archive_entry *e = w->entry;
	int rc;

	archive_entry_clear(e);
	archive_entry_set_pathname_utf8(e, path);
	archive_entry_set_filetype(e, type);
	archive_entry_set_perm(e, perm);
	archive_entry_set_size(e, (la_int64_t)size);
	archive_entry_set_mtime(e, (time_t)w->mtime, 0);
	archive_entry_set_uid(e, 0);
	archive_entry_set_gid(e, 0);
	rc = archive_write_header(w->tar, e);
	if (rc != ARCHIVE_OK) {
		/* A warning means libarchive changed something: not canonical. */
		archive_failure(w, w->tar, "write an entry header", err);
		snprintf(err->subject, sizeof(err->subject), "%s", path);
		return -1;
	}
	return 0;
}

int
pack_tar_write_dir(pack_tar_writer *w, const char *path, ps_error *err)
{
	return write_header(w, path, AE_IFDIR, 0755, 0, err);
}

int
pack_tar_write_file(pack_tar_writer *w, const char *path, uint64_t size,
    int executable, ps_error *err)
{
	return write_header(w, path, AE_IFREG, executable ? 0755 : 0644, size,
	    err);
}

int
pack_tar_write_data(pack_tar_writer *w, const void *buf, size_t len, ps_error *err)
{
	la_ssize_t n = archive_write_data(w->tar, buf, len);

	if (n < 0 || (size_t)n != len)
		return archive_failure(w, w->tar, "write file data", err);
	return 0;
}

int
pack_tar_writer_finish(pack_tar_writer *w, unsigned char digest[PS_SHA256_LEN],
    ps_error *err)
{
	if (archive_write_close(w->tar) != ARCHIVE_OK)
		return archive_failure(w, w->tar, "finish the tar stream", err);
	if (w->worker != NULL && util_worker_finish(w->worker, err) != 0)
		return -1;
	if (w->compressor != NULL &&
	    archive_write_close(w->compressor) != ARCHIVE_OK)
		return archive_failure(w, w->compressor, "finish compression", err);
	if (w->flusher != NULL && util_flusher_finish(w->flusher, err) != 0)
		return -1;
	if (w->stream_tap.bytes != NULL) {
		memset(digest, 0, PS_SHA256_LEN);
		return 0;
	}
	if (util_sha256_final(w->stream_hash, digest) != 0)
		return util_fail(err, "crypto_error", NULL, "SHA-256 failed");
	return 0;
}

void
pack_tar_writer_set_stream_tap(pack_tar_writer *w, const pack_output_tap *tap)
{
	w->stream_tap = *tap;
}

void
pack_tar_writer_set_tap(pack_tar_writer *w, const pack_output_tap *tap)
{
	if (tap == NULL)
		memset(&w->tap, 0, sizeof(w->tap));
	else
		w->tap = *tap;
}

void
pack_tar_writer_free(pack_tar_writer *w)
{
	if (w == NULL)
		return;
	/* The tar writer flushes into the worker: free it first. */
	if (w->tar != NULL)
		archive_write_free(w->tar);
	util_worker_free(w->worker);
	if (w->compressor != NULL)
		archive_write_free(w->compressor);
	util_flusher_free(w->flusher);
	archive_entry_free(w->entry);
	util_sha256_free(w->stream_hash);
	free(w);
}
