#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/atomic.h"
#include "util/error.h"

struct ps_atomic_file {
	char *path;
	char *temp;
	int fd;
	int flags;
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
			snprintf(temp, len, "%s/.%s.XXXXXX", dirname(copy_dir),
			    basename(copy_base));
	}
	free(copy_dir);
	free(copy_base);
	return temp;
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

int
ps_atomic_open(const char *path, unsigned mode, int flags,
    ps_atomic_file **out, ps_error *err)
{
	ps_atomic_file *file;
	struct stat st;

	*out = NULL;
	if ((flags & PS_ATOMIC_NO_REPLACE) != 0 && lstat(path, &st) == 0)
		return ps_fail(err, "output_exists", path,
		    "refusing to overwrite an existing file (use --force)");
	file = calloc(1, sizeof(*file));
	if (file == NULL)
		return ps_fail_oom(err, path);
	file->fd = -1;
	file->flags = flags;
	file->path = strdup(path);
	file->temp = temp_name_for(path);
	if (file->path == NULL || file->temp == NULL) {
		atomic_free(file);
		return ps_fail_oom(err, path);
	}
	file->fd = mkostemp(file->temp, O_CLOEXEC);
	if (file->fd < 0) {
		int saved = errno;
		atomic_free(file);
		return ps_fail_errno(err, "io_error", path,
		    "create temporary output", saved);
	}
	if (fchmod(file->fd, (mode_t)mode) != 0) {
		int saved = errno;
		ps_atomic_abort(file);
		return ps_fail_errno(err, "io_error", path, "set mode", saved);
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

static int
sync_parent(const char *path)
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

int
ps_atomic_commit(ps_atomic_file *file, ps_error *err)
{
	int saved = 0;

	if (fsync(file->fd) != 0)
		saved = errno;
	if (close(file->fd) != 0 && saved == 0)
		saved = errno;
	file->fd = -1;
	if (saved != 0) {
		ps_fail_errno(err, saved == ENOSPC ? "disk_full" : "io_error",
		    file->path, "flush output", saved);
		ps_atomic_abort(file);
		return -1;
	}
	if (rename_into_place(file) != 0) {
		saved = errno;
		ps_fail_errno(err, saved == EEXIST ? "output_exists" : "io_error",
		    file->path, "move output into place", saved);
		ps_atomic_abort(file);
		return -1;
	}
	sync_parent(file->path);
	atomic_free(file);
	return 0;
}

void
ps_atomic_abort(ps_atomic_file *file)
{
	if (file == NULL)
		return;
	unlink(file->temp);
	atomic_free(file);
}
