#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "util/error.h"
#include "util/fdio.h"

int
util_write_all(int fd, const void *buf, size_t len, const char *label,
    ps_error *err)
{
	const char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return util_fail_errno(err, errno == ENOSPC ? "disk_full" :
			    "io_error", label, "write", errno);
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

ssize_t
util_read_full(int fd, void *buf, size_t len)
{
	char *p = buf;
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = read(fd, p + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

/*
 * A regular file's read returns short only at its end, so asking one byte
 * more than is left both reads the tail and proves there is no more: one
 * system call per small file instead of two (issue 8).
 */
int
util_open_file(const char *path, ps_error *err)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return util_fail_errno(err, errno == ENOENT ? "not_found" :
		    "io_error", path, "open", errno);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return util_fail(err, "not_a_file", path, "is not a regular file");
	}
	return fd;
}

ssize_t
util_read_last(int fd, void *buf, size_t len)
{
	ssize_t n, more;

	do {
		n = read(fd, buf, len + 1);
	} while (n < 0 && errno == EINTR);
	if (n < 0 || (size_t)n >= len)
		return n;
	more = util_read_full(fd, (char *)buf + n, len + 1 - (size_t)n);
	return more < 0 ? -1 : n + more;
}

static int
has_dotdot(const char *relpath)
{
	const char *p = relpath;

	for (;;) {
		if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || p[2] == '\0'))
			return 1;
		p = strchr(p, '/');
		if (p == NULL)
			return 0;
		p++;
	}
}

static int
open_by_components(int rootfd, const char *relpath, int flags)
{
	char *copy = strdup(relpath), *comp, *slash;
	int dirfd = rootfd, fd = -1, saved;

	if (copy == NULL)
		return -1;
	for (comp = copy; (slash = strchr(comp, '/')) != NULL; comp = slash + 1) {
		*slash = '\0';
		fd = openat(dirfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (dirfd != rootfd)
			close(dirfd);
		dirfd = fd < 0 ? rootfd : fd;
		if (fd < 0)
			goto out;
	}
	fd = openat(dirfd, comp, flags | O_NOFOLLOW | O_CLOEXEC);
out:
	saved = errno;
	if (dirfd != rootfd && dirfd != fd)
		close(dirfd);
	free(copy);
	errno = saved;
	return fd;
}

int
util_open_beneath(int rootfd, const char *relpath, int flags)
{
	struct open_how how;
	long fd;

	memset(&how, 0, sizeof(how));
	how.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC);
	how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH;
	fd = syscall(SYS_openat2, rootfd, relpath, &how, sizeof(how));
	if (fd >= 0)
		return (int)fd;
	/* Without openat2, or past PATH_MAX (a deep installed tree): one
	 * component at a time, which cannot leave rootfd without "..". */
	if (errno == ENOSYS || errno == EPERM ||
	    (errno == ENAMETOOLONG && !has_dotdot(relpath)))
		return open_by_components(rootfd, relpath, flags);
	return -1;
}

/* One component: created if missing, then opened without following. */
static int
mkdir_one(int at, const char *name, unsigned mode, uint64_t *created)
{
	if (mkdirat(at, name, (mode_t)mode) == 0) {
		if (created != NULL)
			(*created)++;
	} else if (errno != EEXIST) {
		return -1;
	}
	return openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

int
util_mkdir_beneath(int rootfd, const char *reldir, unsigned mode,
    uint64_t *created)
{
	char *copy = strdup(reldir), *comp, *slash;
	int fd, next, saved;

	if (copy == NULL)
		return -1;
	fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (comp = copy; fd >= 0 && *comp != '\0'; comp = slash + 1) {
		slash = strchr(comp, '/');
		if (slash != NULL)
			*slash = '\0';
		next = mkdir_one(fd, comp, mode, created);
		saved = errno;
		close(fd);
		errno = saved;
		fd = next;
		if (slash == NULL)
			break;
	}
	free(copy);
	return fd;
}

int
util_open_parent_beneath(int rootfd, const char *relpath, const char **leaf)
{
	const char *slash = strrchr(relpath, '/');
	char *dir;
	int fd, saved;

	*leaf = slash != NULL ? slash + 1 : relpath;
	if (slash == NULL)
		return openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if ((dir = strndup(relpath, (size_t)(slash - relpath))) == NULL)
		return -1;
	fd = util_open_beneath(rootfd, dir, O_RDONLY | O_DIRECTORY);
	saved = errno;
	free(dir);
	errno = saved;
	return fd;
}

int
util_open_parent_cached(util_parent_cache *cache, int rootfd, const char *relpath,
    const char **leaf)
{
	const char *slash = strrchr(relpath, '/');
	size_t len = slash != NULL ? (size_t)(slash - relpath) : 0;
	char *dir;
	int fd;

	*leaf = slash != NULL ? slash + 1 : relpath;
	if (slash == NULL)
		return rootfd;
	if (cache->dir != NULL && strncmp(cache->dir, relpath, len) == 0 &&
	    cache->dir[len] == '\0')
		return cache->fd;
	fd = util_open_parent_beneath(rootfd, relpath, leaf);
	if (fd < 0)
		return -1;
	if ((dir = strndup(relpath, len)) == NULL) {
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	util_parent_cache_clear(cache);
	cache->dir = dir;
	cache->fd = fd;
	return fd;
}

void
util_parent_cache_clear(util_parent_cache *cache)
{
	if (cache->dir != NULL)
		close(cache->fd);
	free(cache->dir);
	cache->dir = NULL;
	cache->fd = -1;
}

/* Closes fds[0..n), which are consecutive numbers, as one range. */
static void
close_run(const int *fds, size_t n)
{
	size_t i;

	if (n > 1 && close_range((unsigned)fds[0], (unsigned)fds[n - 1], 0) == 0)
		return;
	for (i = 0; i < n; i++)
		close(fds[i]);
}

static int
by_number(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

void
util_close_batch_flush(util_close_batch *batch)
{
	size_t i, run = 0;

	qsort(batch->fds, batch->count, sizeof(batch->fds[0]), by_number);
	for (i = 1; i <= batch->count; i++) {
		if (i == batch->count || batch->fds[i] != batch->fds[i - 1] + 1) {
			close_run(batch->fds + run, i - run);
			run = i;
		}
	}
	batch->count = 0;
}

void
util_close_later(util_close_batch *batch, int fd)
{
	batch->fds[batch->count++] = fd;
	if (batch->count == UTIL_CLOSE_BATCH)
		util_close_batch_flush(batch);
}

int
util_unlink_beneath(int rootfd, const char *relpath, int flags)
{
	const char *leaf;
	int fd = util_open_parent_beneath(rootfd, relpath, &leaf), rc, saved;

	if (fd < 0)
		return -1;
	rc = unlinkat(fd, leaf, flags);
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

static int remove_entries(int fd);

/* A directory of ours that its mode keeps us out of (e.g. 0555). */
static int
open_for_removal(int dirfd, const char *name)
{
	struct stat st;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 || errno != EACCES)
		return fd;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !S_ISDIR(st.st_mode) || fchmodat(dirfd, name, 0700, 0) != 0)
		return -1;
	return openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
}

int
util_remove_tree_at(int dirfd, const char *name)
{
	int fd, rc;

	if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -1;
	fd = open_for_removal(dirfd, name);
	if (fd < 0)
		return -1;
	(void)fchmod(fd, 0700);     /* entries must be removable */
	rc = remove_entries(fd);
	if (rc == 0 && unlinkat(dirfd, name, AT_REMOVEDIR) != 0 &&
	    errno != ENOENT)
		rc = -1;
	return rc;
}

/* Empties the directory `fd` (closed here). */
static int
remove_entries(int fd)
{
	DIR *dir = fdopendir(fd);
	struct dirent *de;
	int rc = 0, saved;

	if (dir == NULL) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	while (rc == 0 && (errno = 0, de = readdir(dir)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		rc = util_remove_tree_at(dirfd(dir), de->d_name);
	}
	if (rc == 0 && errno != 0)
		rc = -1;
	saved = errno;
	closedir(dir);
	errno = saved;
	return rc;
}
