/*
 * The directory-backed ps_pack_files: every path is opened one component at
 * a time relative to directory descriptors with O_NOFOLLOW, so a symbolic
 * link anywhere on the way is refused instead of followed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/paths.h"
#include "util/error.h"
#include "util/fdio.h"

/*
 * The directory of the last path looked up stays open: validators visit
 * files in listing order, and a walk from the root per path was most of
 * signing 100,000 files (issue 8).  Descriptors from open_parent() are
 * borrowed.
 */
struct packdir {
	int root_fd;
	util_parent_cache parent;
};

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define FILE_FLAGS (O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)

/* Maps an openat/fstatat errno to a refusal or a failure. */
static int
path_error(ps_error *err, const char *path, int errnum)
{
	if (errnum == ENOENT || errnum == ENOTDIR)
		return util_refuse(err, "pack_path_missing", path,
		    "no such file or directory in the pack");
	if (errnum == ELOOP)
		return util_refuse(err, "pack_path_special", path,
		    "a symbolic link is on the path; links are never followed");
	return util_fail_errno(err, "io_error", path, "open", errnum);
}

/*
 * An intermediate component could not be opened as a directory: with
 * O_NOFOLLOW a symbolic link fails with ELOOP or ENOTDIR, so look.
 */
static int
component_error(int dirfd, const char *comp, const char *path, int errnum,
    ps_error *err)
{
	struct stat st;

	if (fstatat(dirfd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return util_refuse(err, "pack_path_special", path,
		    "a symbolic link or special file is on the path; links are "
		    "never followed");
	return path_error(err, path, errnum);
}

/*
 * Why the directory PATH[0..len) could not be opened (`errnum`): walked
 * again one component at a time, so the error names a link or special
 * file on the way.
 */
static int
dir_error(const struct packdir *pd, const char *path, size_t len, int errnum,
    ps_error *err)
{
	char comp[256];
	const char *p = path, *slash, *end = path + len;
	int fd, next;
	size_t n;

	if ((fd = dup(pd->root_fd)) < 0)
		return util_fail_errno(err, "io_error", path, "dup", errno);
	for (; p < end; p += n + 1) {
		slash = memchr(p, '/', (size_t)(end - p));
		n = slash != NULL ? (size_t)(slash - p) : (size_t)(end - p);
		if (n >= sizeof(comp)) {
			close(fd);
			return util_refuse(err, "pack_path_invalid", path,
			    "a path component is longer than 255 bytes");
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		if ((next = openat(fd, comp, DIR_FLAGS)) < 0) {
			next = component_error(fd, comp, path, errno, err);
			close(fd);
			return next;
		}
		close(fd);
		fd = next;
	}
	close(fd);              /* it opens now: it changed meanwhile */
	return path_error(err, path, errnum);
}

/*
 * The directory holding PATH's last component, borrowed (never closed by
 * the caller); *last points into PATH at that component.  Returns the
 * descriptor or -1.
 */
static int
open_parent(struct packdir *pd, const char *path, const char **last,
    ps_error *err)
{
	int fd;

	if (formats_path_is_canonical(path) != 0)
		return util_refuse(err, "pack_path_invalid", path,
		    "not a canonical relative path");
	fd = util_open_parent_cached(&pd->parent, pd->root_fd, path, last);
	if (fd >= 0)
		return fd;
	return dir_error(pd, path, (size_t)(*last - 1 - path), errno, err);
}

static int
type_of(const struct stat *st, const char *path, ps_entry_type *type,
    ps_error *err)
{
	if (S_ISREG(st->st_mode))
		*type = PS_ENTRY_FILE;
	else if (S_ISDIR(st->st_mode))
		*type = PS_ENTRY_DIR;
	else
		return util_refuse(err, "pack_path_special", path,
		    "not a regular file or directory (symbolic link, device, "
		    "FIFO or socket)");
	return 0;
}

static int
packdir_stat(void *ctx, const char *path, ps_entry_type *type,
    uint64_t *size, ps_error *err)
{
	const char *last;
	struct stat st;
	int fd, rc;

	fd = open_parent(ctx, path, &last, err);
	if (fd < 0)
		return -1;
	rc = fstatat(fd, last, &st, AT_SYMLINK_NOFOLLOW);
	if (rc != 0)
		return path_error(err, path, errno);
	if (type_of(&st, path, type, err) != 0)
		return -1;
	*size = *type == PS_ENTRY_FILE ? (uint64_t)st.st_size : 0;
	return 0;
}

/* Opens PATH as a regular file; returns the descriptor or -1. */
static int
open_file(void *ctx, const char *path, ps_error *err)
{
	const char *last;
	struct stat st;
	ps_entry_type type = PS_ENTRY_FILE;
	int dfd, fd;

	dfd = open_parent(ctx, path, &last, err);
	if (dfd < 0)
		return -1;
	/* Opening a device can have effects: look before opening. */
	if (fstatat(dfd, last, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return path_error(err, path, errno);
	if (type_of(&st, path, &type, err) != 0)
		return -1;
	fd = openat(dfd, last, FILE_FLAGS);
	if (fd < 0)
		return path_error(err, path, errno);
	if (fstat(fd, &st) != 0) {
		close(fd);
		return util_fail_errno(err, "io_error", path, "fstat", errno);
	}
	if (type_of(&st, path, &type, err) != 0) {
		close(fd);
		return -1;
	}
	if (type != PS_ENTRY_FILE) {
		close(fd);
		return util_refuse(err, "pack_not_file", path,
		    "a directory where a file was expected");
	}
	return fd;
}

/* Reads up to n bytes (fewer only at end of file) into *got. */
static int
read_full(int fd, const char *path, unsigned char *buf, size_t n,
    size_t *got, ps_error *err)
{
	ssize_t r = util_read_full(fd, buf, n);

	*got = 0;
	if (r < 0)
		return util_fail_errno(err, "io_error", path, "read", errno);
	*got = (size_t)r;
	return 0;
}

static int
packdir_read(void *ctx, const char *path, size_t max, char **data,
    size_t *len, ps_error *err)
{
	unsigned char *buf;
	size_t got;
	int fd;

	fd = open_file(ctx, path, err);
	if (fd < 0)
		return -1;
	/* One byte more than allowed tells "too large" from "exactly max". */
	buf = malloc(max + 2);
	if (buf == NULL) {
		close(fd);
		return util_fail_oom(err, path);
	}
	if (read_full(fd, path, buf, max + 1, &got, err) != 0) {
		close(fd);
		free(buf);
		return -1;
	}
	close(fd);
	if (got > max) {
		free(buf);
		util_refuse(err, "pack_file_too_large", path, "file is too large");
		return util_error_expect(err, "at most the size limit",
		    "a larger file");
	}
	buf[got] = '\0';
	*data = (char *)buf;
	*len = got;
	return 0;
}

static int
packdir_head(void *ctx, const char *path, unsigned char *buf, size_t n,
    size_t *got, ps_error *err)
{
	int fd, rc;

	fd = open_file(ctx, path, err);
	if (fd < 0)
		return -1;
	rc = read_full(fd, path, buf, n, got, err);
	close(fd);
	return rc;
}

struct walk {
	int (*fn)(void *arg, const char *path, ps_entry_type type,
	    uint64_t size, ps_error *err);
	void *arg;
	ps_error *err;
	size_t entries;
};

static int
name_compare(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
free_names(char **names, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		free(names[i]);
	free(names);
}

/* Reads the names of the directory fd (consumed), sorted bytewise. */
static int
read_names(int fd, const char *path, char ***out, size_t *count,
    ps_error *err)
{
	DIR *dir = fdopendir(fd);
	struct dirent *de;
	char **names = NULL, **grown;
	size_t n = 0, cap = 0;

	if (dir == NULL) {
		close(fd);
		return util_fail_errno(err, "io_error", path, "fdopendir", errno);
	}
	/* dup'ed descriptors share one offset: start from the beginning. */
	rewinddir(dir);
	errno = 0;
	while ((de = readdir(dir)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (n == cap) {
			cap = cap == 0 ? 32 : cap * 2;
			grown = realloc(names, cap * sizeof(*names));
			if (grown == NULL)
				break;
			names = grown;
		}
		if ((names[n] = strdup(de->d_name)) == NULL)
			break;
		n++;
	}
	if (de != NULL || errno != 0) {
		closedir(dir);
		free_names(names, n);
		return util_fail(err, "io_error", path, "cannot list directory");
	}
	closedir(dir);
	if (n > 0)
		qsort(names, n, sizeof(*names), name_compare);
	*out = names;
	*count = n;
	return 0;
}

static int walk_dir(struct walk *w, int fd, const char *prefix, int depth);

/* Visits the entry NAME of directory fd; its pack path is FULL. */
static int
walk_entry(struct walk *w, int fd, const char *name, const char *full,
    int depth)
{
	struct stat st;
	ps_entry_type type = PS_ENTRY_FILE;
	int sub;

	if (++w->entries > PS_PACK_MAX_ENTRIES)
		return util_refuse(w->err, "pack_too_many_entries", full,
		    "more than %d files and directories in the pack",
		    PS_PACK_MAX_ENTRIES);
	if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return util_fail_errno(w->err, "io_error", full, "stat", errno);
	if (type_of(&st, full, &type, w->err) != 0)
		return -1;
	if (w->fn(w->arg, full, type, type == PS_ENTRY_FILE ?
	    (uint64_t)st.st_size : 0, w->err) != 0)
		return -1;
	if (type != PS_ENTRY_DIR)
		return 0;
	if (depth >= PS_PACK_MAX_DEPTH)
		return util_refuse(w->err, "pack_too_deep", full,
		    "directories nested more than %d deep", PS_PACK_MAX_DEPTH);
	sub = openat(fd, name, DIR_FLAGS);
	if (sub < 0)
		return path_error(w->err, full, errno);
	return walk_dir(w, sub, full, depth + 1);
}

/* Walks the directory fd (consumed) whose pack path is PREFIX. */
static int
walk_dir(struct walk *w, int fd, const char *prefix, int depth)
{
	char **names = NULL, *full;
	size_t count = 0, i;
	int rc = 0;

	if (read_names(dup(fd), prefix[0] != '\0' ? prefix : ".", &names,
	    &count, w->err) != 0) {
		close(fd);
		return -1;
	}
	for (i = 0; i < count && rc == 0; i++) {
		if (asprintf(&full, "%s%s%s", prefix, prefix[0] != '\0' ?
		    "/" : "", names[i]) < 0) {
			rc = util_fail_oom(w->err, prefix);
			break;
		}
		rc = walk_entry(w, fd, names[i], full, depth);
		free(full);
	}
	free_names(names, count);
	close(fd);
	return rc;
}

static int
packdir_list(void *ctx, int (*fn)(void *arg, const char *path,
    ps_entry_type type, uint64_t size, ps_error *err), void *arg,
    ps_error *err)
{
	struct packdir *pd = ctx;
	struct walk w = { fn, arg, err, 0 };
	int fd = dup(pd->root_fd);

	if (fd < 0)
		return util_fail_errno(err, "io_error", ".", "dup", errno);
	return walk_dir(&w, fd, "", 1);
}

static void
packdir_close(void *ctx)
{
	struct packdir *pd = ctx;

	if (pd == NULL)
		return;
	util_parent_cache_clear(&pd->parent);
	close(pd->root_fd);
	free(pd);
}

int
ps_pack_files_dir_open(const char *dir, ps_pack_files *files, ps_error *err)
{
	struct packdir *pd;
	struct stat st;
	int fd;

	memset(files, 0, sizeof(*files));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno == ENOTDIR)
		return util_fail(err, "pack_not_directory", dir,
		    "not a directory");
	if (fd < 0)
		return util_fail_errno(err, errno == ENOENT ? "not_found" :
		    "io_error", dir, "open", errno);
	if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
		close(fd);
		return util_fail(err, "pack_not_directory", dir,
		    "not a directory");
	}
	if ((pd = calloc(1, sizeof(*pd))) == NULL) {
		close(fd);
		return util_fail_oom(err, dir);
	}
	pd->root_fd = fd;
	pd->parent.fd = -1;
	files->ctx = pd;
	files->stat = packdir_stat;
	files->read = packdir_read;
	files->list = packdir_list;
	files->head = packdir_head;
	files->close = packdir_close;
	return 0;
}

void
ps_pack_files_close(ps_pack_files *files)
{
	if (files == NULL || files->close == NULL)
		return;
	files->close(files->ctx);
	memset(files, 0, sizeof(*files));
}
