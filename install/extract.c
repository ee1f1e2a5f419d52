/*
 * ps_extract_archive(): an archive's entries become files below a
 * directory descriptor.  The archive reader checks every entry before it
 * is handed over (type, name rules, sizes) and holds the limits while
 * bytes stream; this side checks again what it relies on (the names) and
 * creates every directory and file relative to descriptors with O_NOFOLLOW
 * (files also O_EXCL), so a hostile archive cannot write outside
 * `dest_fd` or fill the disk.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pack/archive.h"
#include "util/error.h"
#include "util/fdio.h"
#include "util/pathname.h"
#include "util/worker.h"
#include "install/extract.h"

struct extract {
	int root;
	uint64_t max_created;   /* directories it may create (--max-entries) */
	uint64_t created;
	int fd;                 /* the file being written, or -1 */
	char *path;             /* its canonical path */
	uint64_t written;       /* bytes written to it */
	uint64_t kicked;        /* of which handed to writeback */
	int writeback;          /* install_extractor_writeback() asked */
	char *dir_path;         /* the directory `dir_fd` opens ("" = root) */
	int dir_fd;
	int (*cancelled)(void *ctx);
	void *cancelled_ctx;
};

/* An interrupted install stops between two writes. */
static int
stopped(const struct extract *x, const char *path, ps_error *err)
{
	if (x->cancelled == NULL || x->cancelled(x->cancelled_ctx) == 0)
		return 0;
	return util_fail(err, "install_cancelled", path, "interrupted while "
	    "extracting: nothing was installed, and what this run wrote is "
	    "removed");
}

/*
 * The install's syncfs (its commit point) waits for every byte extracted.
 * Handing a large file's bytes to writeback as they are written, without
 * waiting for them, lets the disk work while the archive is still being
 * authenticated and parsed, so little is left for the syncfs.  Small files
 * are left to it: the disk takes them better in one batch.  Advisory: an
 * error here is the syncfs's to report.  Only for a tree that is kept (not
 * a dry run, not ps_extract_archive's, which syncs nothing).
 */
#define EXTRACT_WRITEBACK_EVERY (8u << 20)

static void
start_writeback(struct extract *x, uint64_t at_least)
{
	if (!x->writeback || x->written - x->kicked < at_least ||
	    x->written == x->kicked)
		return;
	(void)sync_file_range(x->fd, (off_t)x->kicked,
	    (off_t)(x->written - x->kicked), SYNC_FILE_RANGE_WRITE);
	x->kicked = x->written;
}

/* A file being closed: the rest of it, when part was handed over already
 * (a small file stays the syncfs's). */
static void
writeback_rest(struct extract *x)
{
	if (x->kicked > 0)
		start_writeback(x, 0);
}

static void
close_file(struct extract *x)
{
	if (x->fd >= 0) {
		writeback_rest(x);
		close(x->fd);
	}
	x->fd = -1;
	x->written = x->kicked = 0;
	free(x->path);
	x->path = NULL;
}

static void
close_dir(struct extract *x)
{
	if (x->dir_fd >= 0 && x->dir_fd != x->root)
		close(x->dir_fd);
	x->dir_fd = -1;
	free(x->dir_path);
	x->dir_path = NULL;
}

static int
refuse_conflict(const char *path, ps_error *err)
{
	util_refuse(err, "extract_conflict", path, "creating this directory "
	    "found something else in the way");
	return util_error_expect(err, "a directory created by this extraction",
	    "a file or a link");
}

/* Opens the directory `dir` below the root, creating what is missing. */
static int
open_dir(struct extract *x, const char *dir, ps_error *err)
{
	uint64_t before = x->created;
	int fd = util_mkdir_beneath(x->root, dir, 0755, &x->created);

	if (fd < 0 && (errno == ENOTDIR || errno == ELOOP))
		return refuse_conflict(dir, err);
	if (fd < 0)
		return util_fail_errno(err, errno == ENOSPC ? "disk_full" :
		    "io_error", dir, "mkdir", errno);
	if (x->created != before && x->max_created != 0 &&
	    x->created > x->max_created) {
		close(fd);
		util_refuse(err, "extract_too_many_entries", dir, "counted the "
		    "directories extraction creates (raise with --max-entries)");
		return -1;
	}
	return fd;
}

/* The parent directory of `path`, reusing the last one opened: entries
 * arrive grouped by directory in canonical order. */
static int
parent_fd(struct extract *x, const char *path, const char **name,
    ps_error *err)
{
	const char *slash = strrchr(path, '/');
	size_t len = slash != NULL ? (size_t)(slash - path) : 0;
	int fd;

	*name = slash != NULL ? slash + 1 : path;
	if (x->dir_path != NULL && strlen(x->dir_path) == len &&
	    strncmp(x->dir_path, path, len) == 0)
		return x->dir_fd;
	close_dir(x);
	if ((x->dir_path = strndup(path, len)) == NULL)
		return util_fail_oom(err, path);
	fd = len == 0 ? x->root : open_dir(x, x->dir_path, err);
	if (fd < 0) {
		close_dir(x);
		return -1;
	}
	x->dir_fd = fd;
	return fd;
}

static int
make_dir(struct extract *x, const char *path, ps_error *err)
{
	int fd;

	close_file(x);
	if (util_path_check(path, NULL, err) != 0 ||
	    (fd = open_dir(x, path, err)) < 0)
		return -1;
	close(fd);
	return 0;
}

static int
create_file(struct extract *x, const char *path, int executable,
    ps_error *err)
{
	const char *name;
	int at;

	close_file(x);
	if (util_path_check(path, NULL, err) != 0 ||
	    (at = parent_fd(x, path, &name, err)) < 0)
		return -1;
	if ((x->path = strdup(path)) == NULL)
		return util_fail_oom(err, path);
	x->fd = openat(at, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, executable ? 0755 : 0644);
	if (x->fd >= 0)
		return 0;
	if (errno == EEXIST) {
		util_refuse(err, "duplicate_entry", path, "the archive holds "
		    "this path twice (or a name that this file system folds to "
		    "the same)");
		return util_error_expect(err, "one entry per path", "another");
	}
	return util_fail_errno(err, errno == ENOSPC ? "disk_full" : "io_error",
	    path, "create", errno);
}

static int
write_data(struct extract *x, const void *buf, size_t len, ps_error *err)
{
	if (x->fd < 0)
		return util_fail(err, "internal_error", NULL, "data outside a file");
	if (util_write_all(x->fd, buf, len, x->path, err) != 0)
		return -1;
	x->written += len;
	start_writeback(x, EXTRACT_WRITEBACK_EVERY);
	return 0;
}

/*
 * Creating 100,000 files is mostly system time, and on the parsing thread
 * it would wait for the parse and the parse for it: past its first
 * entries an extraction hands its directories, files and data to a
 * writer thread of its own (util/worker.c, in order, batched), and the
 * parse goes on.  A small pack is extracted inline: starting a thread
 * would cost more than it saves.  The writer's first failure is the
 * caller's at its next entry or block, or at install_extractor_end().
 */
#define EXTRACT_INLINE_ENTRIES 64
#define EXTRACT_INLINE_BYTES (1u << 20)
#define EXTRACT_WRITER_SLOT (256u << 10)
#define EXTRACT_WRITER_SLOTS 8

enum { WRITE_DIR, WRITE_FILE, WRITE_EXECUTABLE, WRITE_DATA };

struct install_extractor {
	struct extract x;
	pack_archive_visitor visitor;
	util_worker *writer;        /* NULL while extracting inline */
	uint64_t entries, bytes;    /* seen while inline */
	char *current;              /* the file being queued, for messages */
};

/* The writer thread: a record as queued (paths with their NUL). */
static int
write_record(void *ctx, uint64_t tag, const void *buf, size_t len,
    ps_error *err)
{
	struct extract *x = ctx;

	switch (tag) {
	case WRITE_DIR:
		return make_dir(x, buf, err);
	case WRITE_FILE:
	case WRITE_EXECUTABLE:
		return create_file(x, buf, tag == WRITE_EXECUTABLE, err);
	default:
		return write_data(x, buf, len, err);
	}
}

static const util_worker_ops writer_ops = { write_record, NULL, NULL };

/* Whether the next entry goes to the writer thread, starting it once
 * the extraction has outgrown a small pack. */
static int
queued(install_extractor *e, uint64_t bytes, ps_error *err)
{
	if (e->writer != NULL)
		return 1;
	e->bytes += bytes;
	if (++e->entries <= EXTRACT_INLINE_ENTRIES &&
	    e->bytes <= EXTRACT_INLINE_BYTES)
		return 0;
	if (util_worker_new(&writer_ops, &e->x, EXTRACT_WRITER_SLOT,
	    EXTRACT_WRITER_SLOTS, &e->writer, err) != 0)
		return -1;
	return 1;
}

static int
queue_path(install_extractor *e, uint64_t tag, const char *path,
    ps_error *err)
{
	size_t len = strlen(path) + 1;          /* with its NUL */

	if (len > EXTRACT_WRITER_SLOT)
		return util_fail(err, "internal_error", NULL, "a path longer "
		    "than the writer's buffer");
	return util_worker_push(e->writer, tag, path, len, err);
}

static int
on_dir(void *ctx, const char *path, ps_error *err)
{
	install_extractor *e = ctx;
	int q;

	if (stopped(&e->x, path, err) != 0 || (q = queued(e, 0, err)) < 0)
		return -1;
	return q ? queue_path(e, WRITE_DIR, path, err) :
	    make_dir(&e->x, path, err);
}

static int
on_file(void *ctx, const ps_entry *entry, ps_error *err)
{
	install_extractor *e = ctx;
	int q;

	if (stopped(&e->x, entry->path, err) != 0 ||
	    (q = queued(e, entry->size, err)) < 0)
		return -1;
	if (!q)
		return create_file(&e->x, entry->path, entry->executable, err);
	free(e->current);
	if ((e->current = strdup(entry->path)) == NULL)
		return util_fail_oom(err, entry->path);
	return queue_path(e, entry->executable ? WRITE_EXECUTABLE : WRITE_FILE,
	    entry->path, err);
}

/* Data follows its file: to the writer exactly when the file went. */
static int
on_data(void *ctx, const void *buf, size_t len, ps_error *err)
{
	install_extractor *e = ctx;

	if (stopped(&e->x, e->writer != NULL ? e->current : e->x.path,
	    err) != 0)
		return -1;
	return e->writer != NULL ? util_worker_push(e->writer, WRITE_DATA, buf,
	    len, err) : write_data(&e->x, buf, len, err);
}

int
install_extractor_new(const char *path, int dest_fd,
    const ps_extract_limits *limits, install_extractor **out, ps_error *err)
{
	install_extractor *e = calloc(1, sizeof(*e));

	*out = NULL;
	if (e == NULL)
		return util_fail_oom(err, path);
	e->x.root = dest_fd;
	e->x.max_created = limits != NULL ? limits->max_entries :
	    PS_EXTRACT_DEFAULT_MAX_ENTRIES;
	e->x.fd = -1;
	e->x.dir_fd = -1;
	/* The reader holds the limits while it streams (pack/limits.c). */
	e->visitor = (pack_archive_visitor){ e, on_file, on_data, on_dir,
	    NULL, NULL };
	*out = e;
	return 0;
}

void
install_extractor_writeback(install_extractor *e)
{
	e->x.writeback = 1;
}

void
install_extractor_cancel(install_extractor *e, int (*cancelled)(void *),
    void *ctx)
{
	e->x.cancelled = cancelled;
	e->x.cancelled_ctx = ctx;
}

const pack_archive_visitor *
install_extractor_visitor(install_extractor *e)
{
	return &e->visitor;
}

int
install_extractor_end(install_extractor *e, int rc, ps_error *err)
{
	struct extract *x = &e->x;
	int fd;

	/* the writer's last records written (or dropped) before x is ours */
	if (rc == 0 && e->writer != NULL)
		rc = util_worker_finish(e->writer, err);
	util_worker_free(e->writer);
	e->writer = NULL;
	if (rc == 0 && x->fd >= 0) {
		/* Only a successful run reports close(2)'s error; a refused or
		 * failed one still closes the file it was writing. */
		writeback_rest(x);
		fd = x->fd;
		x->fd = -1;
		if (close(fd) != 0)
			rc = util_fail_errno(err, "io_error", x->path, "close",
			    errno);
	}
	close_file(x);
	close_dir(x);
	return rc;
}

void
install_extractor_free(install_extractor *e)
{
	if (e == NULL)
		return;
	(void)install_extractor_end(e, -1, NULL);
	free(e->current);
	free(e);
}

int
ps_extract_archive(const char *path, int dest_fd,
    const ps_extract_limits *limits, ps_digest **digest_out, ps_error *err)
{
	install_extractor *e;
	ps_digest *d = NULL;
	int rc;

	if (digest_out != NULL)
		*digest_out = NULL;
	if (install_extractor_new(path, dest_fd, limits, &e, err) != 0)
		return -1;
	rc = pack_archive_read(path, install_extractor_visitor(e), limits, &d,
	    err);
	rc = install_extractor_end(e, rc, err);
	install_extractor_free(e);
	if (rc == 0 && digest_out != NULL)
		*digest_out = d;
	else
		ps_digest_free(d);
	return rc;
}
