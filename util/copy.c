/*
 * The private copies readers parse (docs/security.md, section 5): a memfd
 * while the shared budget allows, else an unlinked file in a directory
 * that is not on tmpfs or ramfs (a file there would be memory too), else
 * none.  A memfd's pages are no process's RSS; the budget is what bounds
 * them, across every thread sharing the ps_copies.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "util/copy.h"
#include "util/error.h"

struct ps_copies {
	pthread_mutex_t lock;
	uint64_t memory_max;
	uint64_t memory_used;        /* under lock */
	uint64_t memory_peak;        /* under lock */
	uint64_t file_count;         /* under lock */
	int dir_fd;                  /* -1: no file copies */
	char *dir;
};

/* tmpfs and ramfs keep a file's pages in memory: no place for a copy
 * that did not fit the memory budget. */
static int
in_memory_fs(int fd, int *yes)
{
	struct statfs fs;

	if (fstatfs(fd, &fs) != 0)
		return -1;
	*yes = fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC;
	return 0;
}

static int
open_dir(ps_copies *c, const char *dir, ps_error *err)
{
	int tmpfs = 0;

	c->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->dir_fd < 0)
		return util_fail_errno(err, errno == ENOENT ? "not_found" :
		    errno == ENOTDIR ? "not_a_directory" : "io_error", dir,
		    "open the directory for copies", errno);
	if (in_memory_fs(c->dir_fd, &tmpfs) != 0)
		return util_fail_errno(err, "io_error", dir, "fstatfs", errno);
	if (tmpfs) {
		util_fail(err, "copy_dir_tmpfs", dir, "a copy that does not fit "
		    "the memory budget goes to a file, which on tmpfs or ramfs "
		    "is memory too");
		return util_error_expect(err, "a directory on disk", "tmpfs");
	}
	if ((c->dir = strdup(dir)) == NULL)
		return util_fail_oom(err, dir);
	return 0;
}

int
ps_copies_new(uint64_t memory_max, const char *dir, ps_copies **out,
    ps_error *err)
{
	ps_copies *c = calloc(1, sizeof(*c));

	*out = NULL;
	if (c == NULL)
		return util_fail_oom(err, dir);
	c->memory_max = memory_max != 0 ? memory_max : PS_COPIES_DEFAULT_MEMORY;
	c->dir_fd = -1;
	if (pthread_mutex_init(&c->lock, NULL) != 0) {
		free(c);
		return util_fail(err, "out_of_memory", dir, "pthread_mutex_init");
	}
	if (dir != NULL && open_dir(c, dir, err) != 0) {
		ps_copies_free(c);
		return -1;
	}
	*out = c;
	return 0;
}

void
ps_copies_free(ps_copies *c)
{
	if (c == NULL)
		return;
	if (c->dir_fd >= 0)
		close(c->dir_fd);
	free(c->dir);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

uint64_t
ps_copies_memory_peak(const ps_copies *c)
{
	uint64_t peak;

	pthread_mutex_lock((pthread_mutex_t *)&c->lock);
	peak = c->memory_peak;
	pthread_mutex_unlock((pthread_mutex_t *)&c->lock);
	return peak;
}

uint64_t
ps_copies_file_count(const ps_copies *c)
{
	uint64_t n;

	pthread_mutex_lock((pthread_mutex_t *)&c->lock);
	n = c->file_count;
	pthread_mutex_unlock((pthread_mutex_t *)&c->lock);
	return n;
}

/* 1 when `size` bytes of memory are taken from the budget. */
static int
reserve(ps_copies *c, uint64_t size)
{
	int ok;

	if (c == NULL)
		return size <= PS_COPIES_DEFAULT_MEMORY;
	pthread_mutex_lock(&c->lock);
	ok = size <= c->memory_max - c->memory_used;
	if (ok) {
		c->memory_used += size;
		if (c->memory_used > c->memory_peak)
			c->memory_peak = c->memory_used;
	}
	pthread_mutex_unlock(&c->lock);
	return ok;
}

static void
release(ps_copies *c, uint64_t size)
{
	if (c == NULL || size == 0)
		return;
	pthread_mutex_lock(&c->lock);
	c->memory_used -= size;
	pthread_mutex_unlock(&c->lock);
}

/* An unlinked file in the directory: O_TMPFILE, else a name removed at
 * once (a file system without O_TMPFILE). */
static int
open_file(ps_copies *c, const char *label, ps_error *err)
{
	char *path = NULL;
	int fd = openat(c->dir_fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR ||
	    errno == EINVAL)) {
		if (asprintf(&path, "%s/.packsign-copy.XXXXXX", c->dir) < 0)
			return util_fail_oom(err, label);
		if ((fd = mkostemp(path, O_CLOEXEC)) >= 0)
			(void)unlink(path);
		free(path);
	}
	if (fd < 0)
		return util_fail_errno(err, errno == ENOSPC ? "disk_full" :
		    "io_error", c->dir, "create a file for the private copy of "
		    "an archive", errno);
	pthread_mutex_lock(&c->lock);
	c->file_count++;
	pthread_mutex_unlock(&c->lock);
	return fd;
}

int
util_copy_open(ps_copies *copies, uint64_t size, const char *label,
    util_copy *c, ps_error *err)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->copies = copies;
	c->capacity = size;
	if (reserve(copies, size)) {
		c->reserved = copies != NULL ? size : 0;
		c->fd = memfd_create("packsign-copy", MFD_CLOEXEC);
		if (c->fd < 0) {
			util_copy_close(c);
			return util_fail_errno(err, "io_error", label,
			    "memfd_create", errno);
		}
		c->kind = UTIL_COPY_MEMORY;
		return 0;
	}
	if (copies == NULL || copies->dir_fd < 0)
		return 0;
	if ((c->fd = open_file(copies, label, err)) < 0)
		return -1;
	c->kind = UTIL_COPY_FILE;
	return 0;
}

void
util_copy_close(util_copy *c)
{
	if (c->fd >= 0)
		close(c->fd);
	release(c->copies, c->reserved);
	c->fd = -1;
	c->kind = UTIL_COPY_NONE;
	c->reserved = 0;
}

int
util_copy_refuse(const ps_copies *copies, uint64_t size, const char *label,
    const char *why, ps_error *err)
{
	char expected[96], found[64];

	util_fail(err, "copy_unavailable", label, "%s: %llu bytes do not fit "
	    "the memory the copies may take, and no directory for a file copy "
	    "was given (the CLI takes the data directory, $TMPDIR, /var/tmp or "
	    "/tmp, the first not on tmpfs: set TMPDIR to a directory on disk)",
	    why, (unsigned long long)size);
	snprintf(expected, sizeof(expected), "at most %llu bytes in memory, "
	    "or a directory", (unsigned long long)(copies != NULL ?
	    copies->memory_max : PS_COPIES_DEFAULT_MEMORY));
	snprintf(found, sizeof(found), "%llu bytes, no directory",
	    (unsigned long long)size);
	return util_error_expect(err, expected, found);
}
