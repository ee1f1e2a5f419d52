/*
 * Atomic output.  Where the file system allows it (Linux O_TMPFILE), the
 * data goes to an unnamed file in the target's directory that gets a name
 * only at commit: a process killed before then (even by SIGKILL) leaves
 * nothing behind.  Replacing a target, the commit links it as
 * ".NAME.XXXXXX" and renames that over the target (linkat cannot
 * replace): a SIGKILL between the two leaves that name.  Elsewhere it goes
 * to ".NAME.XXXXXX" from the start, removed on abort.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/atomic.h"
#include "util/error.h"

#define TEMP_SUFFIX "XXXXXX"
#define NAME_TRIES 64

struct ps_atomic_file {
	char *path;
	char *temp;
	int fd;
	int flags;
	int unnamed;    /* O_TMPFILE: no name until commit */
	int named;      /* `temp` exists on disk */
};

static char *
temp_name_for(const char *path)
{
	char *copy_dir = strdup(path), *copy_base = strdup(path), *temp = NULL;
	size_t len;

	if (copy_dir != NULL && copy_base != NULL) {
		len = strlen(path) + 16;
		temp = malloc(len);
		if (temp != NULL)
			snprintf(temp, len, "%s/.%s." TEMP_SUFFIX, dirname(copy_dir),
			    basename(copy_base));
	}
	free(copy_dir);
	free(copy_base);
	return temp;
}

/* Replaces the last six characters of `temp` with random ones. */
static void
randomise_suffix(char *temp)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char r[6];
	char *p = temp + strlen(temp) - 6;
	size_t i;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		memset(r, (int)getpid(), sizeof(r));
	for (i = 0; i < sizeof(r); i++)
		p[i] = chars[r[i] % (sizeof(chars) - 1)];
}

static void
atomic_free(ps_atomic_file *file)
{
	if (file->fd >= 0)
		close(file->fd);
	free(file->path);
	free(file->temp);
	free(file);
}

/* An unnamed file in the target's directory; -1 when not supported. */
static int
open_unnamed(ps_atomic_file *file)
{
	char *copy;
	int fd;

	if (access("/proc/self/fd", X_OK) != 0)
		return -1;
	copy = strdup(file->path);
	if (copy == NULL)
		return -1;
	fd = open(dirname(copy), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	free(copy);
	if (fd < 0)
		return -1;
	file->fd = fd;
	file->unnamed = 1;
	randomise_suffix(file->temp);
	return 0;
}

static int
open_named(ps_atomic_file *file)
{
	file->fd = mkostemp(file->temp, O_CLOEXEC);
	if (file->fd < 0)
		return -1;
	file->named = 1;
	return 0;
}

int
ps_atomic_open(const char *path, unsigned mode, int flags,
    ps_atomic_file **out, ps_error *err)
{
	ps_atomic_file *file;
	struct stat st;

	*out = NULL;
	if ((flags & PS_ATOMIC_NO_REPLACE) != 0 && lstat(path, &st) == 0)
		return util_fail(err, "output_exists", path,
		    "refusing to overwrite an existing file (use --force)");
	file = calloc(1, sizeof(*file));
	if (file == NULL)
		return util_fail_oom(err, path);
	file->fd = -1;
	file->flags = flags;
	file->path = strdup(path);
	file->temp = temp_name_for(path);
	if (file->path == NULL || file->temp == NULL) {
		atomic_free(file);
		return util_fail_oom(err, path);
	}
	if (open_unnamed(file) != 0 && open_named(file) != 0) {
		int saved = errno;
		atomic_free(file);
		return util_fail_errno(err, "io_error", path,
		    "create temporary output", saved);
	}
	if (fchmod(file->fd, (mode_t)mode) != 0) {
		int saved = errno;
		ps_atomic_abort(file);
		return util_fail_errno(err, "io_error", path, "set mode", saved);
	}
	*out = file;
	return 0;
}

int
ps_atomic_fd(const ps_atomic_file *file)
{
	return file->fd;
}

const char *
ps_atomic_temp_path(const ps_atomic_file *file)
{
	return file->temp;
}

int
util_atomic_sync_parent(const char *path)
{
	char *copy = strdup(path);
	int fd, rc = -1;

	if (copy == NULL)
		return -1;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		rc = fsync(fd);
		close(fd);
	}
	free(copy);
	return rc;
}

/* Gives the unnamed file the name `name`; linkat refuses to replace. */
static int
link_unnamed(const ps_atomic_file *file, const char *name)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", file->fd);
	return linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW);
}

/* The unnamed file under a fresh temporary name beside the target. */
static int
name_unnamed(ps_atomic_file *file)
{
	int i;

	for (i = 0; i < NAME_TRIES; i++) {
		if (link_unnamed(file, file->temp) == 0) {
			file->named = 1;
			return 0;
		}
		if (errno != EEXIST)
			return -1;
		randomise_suffix(file->temp);
	}
	return -1;
}

static int
rename_into_place(ps_atomic_file *file)
{
	if ((file->flags & PS_ATOMIC_NO_REPLACE) == 0)
		return rename(file->temp, file->path);
	if (renameat2(AT_FDCWD, file->temp, AT_FDCWD, file->path,
	    RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	/* File systems without RENAME_NOREPLACE: link() refuses to replace. */
	if (link(file->temp, file->path) != 0)
		return -1;
	unlink(file->temp);
	return 0;
}

/* The flushed file takes its place: -1 with errno set on failure. */
static int
put_in_place(ps_atomic_file *file)
{
	if (file->unnamed && (file->flags & PS_ATOMIC_NO_REPLACE) != 0)
		return link_unnamed(file, file->path);
	if (file->unnamed && name_unnamed(file) != 0)
		return -1;
	if (rename_into_place(file) != 0)
		return -1;
	file->named = 0;
	return 0;
}

static int
commit(ps_atomic_file *file, int sync_dir, ps_error *err)
{
	const char *step = "flush output";
	int saved = 0;

	if (fsync(file->fd) != 0)
		saved = errno;
	if (saved == 0 && put_in_place(file) != 0) {
		saved = errno;
		step = "move output into place";
	}
	/* After a successful fsync, close(2) has nothing left to report. */
	(void)close(file->fd);
	file->fd = -1;
	if (saved != 0) {
		util_fail_errno(err, saved == ENOSPC || saved == EDQUOT ?
		    "disk_full" : saved == EEXIST ? "output_exists" : "io_error",
		    file->path, step, saved);
		ps_atomic_abort(file);
		return -1;
	}
	if (sync_dir)
		(void)util_atomic_sync_parent(file->path);
	atomic_free(file);
	return 0;
}

int
ps_atomic_commit(ps_atomic_file *file, ps_error *err)
{
	return commit(file, 1, err);
}

int
util_atomic_commit_unsynced(ps_atomic_file *file, ps_error *err)
{
	return commit(file, 0, err);
}

void
ps_atomic_abort(ps_atomic_file *file)
{
	if (file == NULL)
		return;
	if (file->named)
		unlink(file->temp);
	atomic_free(file);
}
