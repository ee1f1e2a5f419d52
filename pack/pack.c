/* ps_pack: a pack directory becomes its canonical archive and digests. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pack/items.h"
#include "pack/pack.h"
#include "pack/packdir.h"
#include "pack/tarwrite.h"
#include "pack/walk.h"
#include "util/error.h"
#include "util/fdio.h"
#include "util/locale.h"
#include "util/sha256.h"
#include "util/worker.h"

#define COPY_BUFFER (256 * 1024)
#define WORKER_SLOTS 8

/*
 * Packing runs on two threads: the caller's opens and reads every file
 * and queues its bytes; the worker hashes each file and writes the tar
 * (whose own worker hashes and writes the stream).  A record's tag is the
 * item's index shifted left by 2 and one of these kinds.
 */
enum { JOB_DIR, JOB_FILE, JOB_DATA, JOB_END };
#define JOB_TAG(kind, index) (((uint64_t)(index) << 2) | (kind))

struct pack_packer {
	const char *label;       /* the directory as the user named it */
	int rootfd;
	util_parent_cache parent;  /* the directory of the last file opened */
	util_close_batch done;     /* files read, closed a batch at a time */
	pack_items items;
	int items_lent;          /* pack_packer_files(): the digest copies */
	int reading;             /* pack_packer_open_reading(): specials kept */
	size_t manifest;         /* index of the manifest in `items` */
	ps_format format;
	ps_error no_manifest;    /* why there is none (status OK: found) */
	int written;
	pack_tar_writer *writer;
	util_sha256 *file_hash;
	pack_output_tap tap;
	util_worker *worker;
	util_locale_scope worker_locale;  /* the worker thread's */
	ps_progress_sink progress;
	ps_progress status;
};

void
ps_pack_options_init(ps_pack_options *options)
{
	memset(options, 0, sizeof(*options));
	options->compression = PS_COMPRESS_NONE;
	ps_extract_limits_init(&options->limits);
}

static int
refuse_changed(const pack_item *item, const char *what, ps_error *err)
{
	return util_fail(err, "file_changed", item->entry.path,
	    "%s while it was being packed; pack again", what);
}

static int
open_item(pack_packer *p, const pack_item *item, ps_error *err)
{
	const char *path = item->source != NULL ? item->source : item->entry.path;
	const char *leaf;
	struct stat st;
	int dirfd, fd = -1;

	dirfd = util_open_parent_cached(&p->parent, p->rootfd, path, &leaf);
	if (dirfd >= 0)
		fd = openat(dirfd, leaf, O_RDONLY | O_NONBLOCK | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return refuse_changed(item, "the file disappeared", err);
	if (fd < 0 && (errno == ELOOP || errno == EXDEV))
		return refuse_changed(item, "the file became a link", err);
	if (fd < 0 && errno == ENOTDIR)
		return refuse_changed(item, "a directory on its path was "
		    "replaced", err);
	if (fd < 0)
		return util_fail_errno(err, errno == EACCES ? "permission_denied" :
		    "io_error", path, "open", errno);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_dev != item->dev || st.st_ino != item->ino ||
	    (uint64_t)st.st_size != item->entry.size) {
		close(fd);
		return refuse_changed(item, "the file was replaced or resized",
		    err);
	}
	return fd;
}

/* On the worker: one record of the stream write_item() queues. */
static int
consume_job(void *ctx, uint64_t tag, const void *buf, size_t len,
    ps_error *err)
{
	pack_packer *p = ctx;
	pack_item *item = &p->items.items[tag >> 2];

	switch (tag & 3) {
	case JOB_DIR:
		return pack_tar_write_dir(p->writer, item->entry.path, err);
	case JOB_FILE:
		if (util_sha256_reset(p->file_hash) != 0)
			return util_fail(err, "crypto_error", NULL, "SHA-256 failed");
		return pack_tar_write_file(p->writer, item->entry.path,
		    item->entry.size, item->entry.executable, err);
	case JOB_DATA:
		if (util_sha256_update(p->file_hash, buf, len) != 0)
			return util_fail(err, "crypto_error", NULL, "SHA-256 failed");
		return pack_tar_write_data(p->writer, buf, len, err);
	default:
		if (util_sha256_final(p->file_hash, item->entry.sha256) != 0)
			return util_fail(err, "crypto_error", NULL, "SHA-256 failed");
		return 0;
	}
}

/* libarchive converts names through the thread's locale. */
static int
worker_begin(void *ctx, ps_error *err)
{
	return util_locale_enter(&((pack_packer *)ctx)->worker_locale, err);
}

static void
worker_end(void *ctx)
{
	util_locale_leave(&((pack_packer *)ctx)->worker_locale);
}

static const util_worker_ops job_ops = { consume_job, worker_begin,
    worker_end };

static void
report(pack_packer *p, int done)
{
	if (p->progress.fn == NULL)
		return;
	p->status.done = done;
	p->progress.fn(p->progress.ctx, &p->status);
}

static void
count_totals(pack_packer *p)
{
	size_t i;

	p->status.what = "packing";
	for (i = 0; i < p->items.count; i++) {
		if (p->items.items[i].entry.type == PS_ENTRY_FILE) {
			p->status.files_total++;
			p->status.bytes_total += p->items.items[i].entry.size;
		}
	}
}

/* The first bytes of the file, for ps_pack_files.head after packing. */
static void
keep_head(pack_item *item, const unsigned char *data, size_t n)
{
	item->head_len = (unsigned char)(n < PACK_HEAD_MAX ? n : PACK_HEAD_MAX);
	memcpy(item->head, data, item->head_len);
	item->head_known = 1;
}

/* Streams one file to the worker, read straight into its ring (one copy
 * of the bytes fewer), checking it does not change size. */
static int
copy_data(pack_packer *p, size_t index, int fd, ps_error *err)
{
	pack_item *item = &p->items.items[index];
	uint64_t left = item->entry.size;
	unsigned char *room;
	size_t want;
	ssize_t n;

	do {
		want = left < COPY_BUFFER ? (size_t)left : COPY_BUFFER;
		/* + 1: see util_read_last */
		room = util_worker_reserve(p->worker, want + 1, err);
		if (room == NULL)
			return -1;
		n = want == left ? util_read_last(fd, room, want) :
		    util_read_full(fd, room, want);
		if (n < 0)
			return util_fail_errno(err, "io_error", item->entry.path,
			    "read", errno);
		if ((size_t)n != want)
			return refuse_changed(item, (size_t)n < want ?
			    "the file shrank" : "the file grew", err);
		if (left == item->entry.size)
			keep_head(item, room, want);
		if (want > 0)
			util_worker_commit(p->worker, JOB_TAG(JOB_DATA, index),
			    want);
		left -= want;
		p->status.bytes += want;
		report(p, 0);
	} while (left > 0);
	return util_worker_push(p->worker, JOB_TAG(JOB_END, index), NULL, 0, err);
}

static int
write_item(pack_packer *p, size_t index, ps_error *err)
{
	pack_item *item = &p->items.items[index];
	int fd, rc;

	if (item->special != 0)
		return pack_walk_refuse_special(p->label, item->source != NULL ?
		    item->source : item->entry.path, item->special, err);
	if (item->entry.type == PS_ENTRY_DIR)
		return util_worker_push(p->worker, JOB_TAG(JOB_DIR, index), NULL,
		    0, err);
	fd = open_item(p, item, err);
	if (fd < 0)
		return -1;
	rc = util_worker_push(p->worker, JOB_TAG(JOB_FILE, index), NULL, 0,
	    err);
	if (rc == 0)
		rc = copy_data(p, index, fd, err);
	util_close_later(&p->done, fd);
	p->status.files++;
	report(p, 0);
	return rc;
}

/* The manifest first, then every other entry in bytewise path order. */
static int
write_all_items(pack_packer *p, ps_error *err)
{
	int rc = write_item(p, p->manifest, err);
	size_t i;

	for (i = 0; rc == 0 && i < p->items.count; i++) {
		if (i != p->manifest)
			rc = write_item(p, i, err);
	}
	util_close_batch_flush(&p->done);
	return rc;
}

static int
collect(pack_packer *p, int output_fd, ps_error *err)
{
	pack_ignore *ignore = NULL;
	struct stat out;
	int rc;

	if (pack_ignore_load(p->rootfd, &ignore, err) != 0)
		return -1;
	rc = p->reading ? pack_walk_reading(p->rootfd, p->label, ignore,
	    &p->items, err) : pack_walk_excluding(p->rootfd, p->label, ignore,
	    output_fd >= 0 && fstat(output_fd, &out) == 0 &&
	    S_ISREG(out.st_mode) ? &out : NULL, &p->items, err);
	pack_ignore_free(ignore);
	if (rc != 0)
		return -1;
	return pack_items_check(&p->items, p->label, err);
}

static ps_digest *
finish_digest(pack_packer *p, const unsigned char tar_digest[PS_SHA256_LEN],
    ps_error *err)
{
	unsigned char tree[PS_SHA256_LEN];
	ps_digest *d;

	if (pack_items_tree_digest(&p->items, tree, err) != 0)
		return NULL;
	d = p->items_lent ? pack_items_copy_to_digest(&p->items, err) :
	    pack_items_to_digest(&p->items, err);
	if (d == NULL)
		return NULL;
	d->source = PS_SOURCE_DIRECTORY;
	d->format = p->format;
	memcpy(d->tree_digest, tree, sizeof(tree));
	d->has_tar_digest = 1;
	memcpy(d->tar_digest, tar_digest, PS_SHA256_LEN);
	return pack_digest_set_manifest(d, p->manifest, err);
}

/* Pattern matching and names see one locale whatever the host's. */
static int
collect_in_locale(pack_packer *p, int output_fd, ps_error *err)
{
	util_locale_scope scope;
	int rc;

	if (util_locale_enter(&scope, err) != 0)
		return -1;
	rc = collect(p, output_fd, err);
	util_locale_leave(&scope);
	return rc;
}

static int
open_packer(const char *dir, int output_fd, int reading, pack_packer **out,
    ps_error *err)
{
	pack_packer *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (p == NULL)
		return util_fail_oom(err, dir);
	p->label = dir;
	p->reading = reading;
	p->parent.fd = -1;
	p->rootfd = pack_walk_open_root(dir, "not_a_directory", err);
	if (p->rootfd < 0 || collect_in_locale(p, output_fd, err) != 0) {
		pack_packer_free(p);
		return -1;
	}
	/* Packing refuses a pack without its one manifest; a reader of the
	 * walk (validation) reports it with every other problem first. */
	if (pack_items_find_manifest(&p->items, p->label, &p->manifest,
	    &p->format, &p->no_manifest) != 0)
		p->format = PS_FORMAT_UNKNOWN;
	*out = p;
	return 0;
}

static int
write_in_locale(pack_packer *p, int out_fd, const ps_pack_options *options,
    ps_digest **digest_out, ps_error *err)
{
	unsigned char tar_digest[PS_SHA256_LEN];
	ps_digest *d;

	if (pack_tar_writer_new(out_fd, options->compression, options->mtime,
	    &p->writer, err) != 0)
		return -1;
	pack_tar_writer_set_tap(p->writer, &p->tap);
	p->progress = options->progress;
	count_totals(p);
	if (util_worker_new(&job_ops, p, COPY_BUFFER + 1, WORKER_SLOTS,
	    &p->worker, err) != 0)
		return -1;
	/* The worker's error, if it stopped first, is the one to report. */
	if (write_all_items(p, err) != 0) {
		(void)util_worker_finish(p->worker, err);
		return -1;
	}
	if (util_worker_finish(p->worker, err) != 0 ||
	    pack_tar_writer_finish(p->writer, tar_digest, err) != 0)
		return -1;
	report(p, 1);
	if (digest_out == NULL)
		return 0;
	d = finish_digest(p, tar_digest, err);
	if (d == NULL)
		return -1;
	*digest_out = d;
	return 0;
}

int
pack_packer_write(pack_packer *p, int out_fd, const ps_pack_options *options,
    ps_digest **digest_out, ps_error *err)
{
	util_locale_scope scope;
	int rc;

	if (digest_out != NULL)
		*digest_out = NULL;
	if (options->mtime < 0 || options->mtime > PS_MTIME_MAX)
		return util_fail(err, "invalid_mtime", NULL,
		    "mtime must be between 0 and %lld", PS_MTIME_MAX);
	if (p->written)
		return util_fail(err, "internal_error", p->label,
		    "a packer writes once");
	if (p->no_manifest.status != PS_STATUS_OK) {
		*err = p->no_manifest;
		return -1;
	}
	p->written = 1;
	p->file_hash = util_sha256_new();
	if (p->file_hash == NULL)
		return util_fail(err, "crypto_error", NULL, "cannot start SHA-256");
	if (util_locale_enter(&scope, err) != 0)
		return -1;
	rc = write_in_locale(p, out_fd, options, digest_out, err);
	/* The writer and its taps end here, whatever happened: the caller's
	 * tap context need not outlive this call. */
	util_worker_free(p->worker);
	pack_tar_writer_free(p->writer);
	p->worker = NULL;
	p->writer = NULL;
	util_locale_leave(&scope);
	return rc;
}

int
pack_packer_open(const char *dir, int output_fd, pack_packer **out,
    ps_error *err)
{
	return open_packer(dir, output_fd, 0, out, err);
}

int
pack_packer_open_reading(const char *dir, pack_packer **out, ps_error *err)
{
	return open_packer(dir, -1, 1, out, err);
}

ps_format
pack_packer_format(const pack_packer *p)
{
	return p->format;
}

void
pack_packer_set_tap(pack_packer *p, const pack_output_tap *tap)
{
	if (tap == NULL)
		memset(&p->tap, 0, sizeof(p->tap));
	else
		p->tap = *tap;
}

int
pack_packer_files(pack_packer *p, ps_pack_files *files, ps_error *err)
{
	p->items_lent = 1;
	return pack_files_of_walk(p->rootfd, &p->items, files, err);
}

void
pack_packer_free(pack_packer *p)
{
	if (p == NULL)
		return;
	util_worker_free(p->worker);
	pack_tar_writer_free(p->writer);
	util_parent_cache_clear(&p->parent);
	util_close_batch_flush(&p->done);
	pack_items_free(&p->items);
	util_sha256_free(p->file_hash);
	if (p->rootfd >= 0)
		close(p->rootfd);
	free(p);
}

int
ps_pack(const char *dir, int out_fd, const ps_pack_options *options,
    ps_digest **digest_out, ps_error *err)
{
	pack_packer *p = NULL;
	int rc;

	if (digest_out != NULL)
		*digest_out = NULL;
	if (pack_packer_open(dir, out_fd, &p, err) != 0)
		return -1;
	rc = pack_packer_write(p, out_fd, options, digest_out, err);
	pack_packer_free(p);
	return rc;
}
