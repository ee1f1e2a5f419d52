#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/format.h"
#include "util/error.h"
#include "util/fdio.h"
#include "util/pathname.h"
#include "install/datadir.h"

const char *
install_layout_dir(ps_format format)
{
	const formats_descriptor *d = formats_of(format);

	return d != NULL ? d->install_dir : NULL;
}

ps_format
install_layout_format(const char *name)
{
	const formats_descriptor *d = formats_by_install_dir(name);

	return d != NULL ? d->format : PS_FORMAT_UNKNOWN;
}

int
install_layout_id_depth(ps_format format)
{
	const formats_descriptor *d = formats_of(format);

	return d != NULL ? d->id_depth : 1;
}

static int
components_of(const char *path)
{
	int n = 1;

	for (; *path != '\0'; path++)
		n += *path == '/';
	return n;
}

/* Each component obeys the name rules and none is hidden: ".tmp" and
 * ".lock" belong to packsign. */
static int
check_components(const char *path, ps_error *err)
{
	const char *p;

	if (util_path_check(path, NULL, err) != 0)
		return -1;
	for (p = path; p != NULL; p = strchr(p, '/')) {
		p += *p == '/';
		if (*p == '.')
			return util_refuse(err, "install_name_invalid", path,
			    "a component starts with '.'");
	}
	return 0;
}

static int
refuse_name(const char *what, const char *value, const char *want,
    const ps_error *why, ps_error *err)
{
	char where[PS_ERROR_TEXT_MAX], found[PS_ERROR_VALUE_MAX];

	snprintf(where, sizeof(where), "%s '%s'", what, value);
	snprintf(found, sizeof(found), "%.400s (%s)", why->code[0] != '\0' ?
	    why->message : "another number of components",
	    why->code[0] != '\0' ? why->code : "components");
	util_refuse(err, "install_name_invalid", where, "checked that the %s "
	    "can name a directory of the data directory", what);
	return util_error_expect(err, want, found);
}

int
install_layout_path(ps_format format, const char *id, const char *version,
    char **out, ps_error *err)
{
	const char *dir = install_layout_dir(format);
	int want = install_layout_id_depth(format);
	ps_error e;

	*out = NULL;
	if (dir == NULL)
		return util_refuse(err, "install_name_invalid", id, "unknown format");
	ps_error_clear(&e);
	if (components_of(id) != want || check_components(id, &e) != 0)
		return refuse_name("id", id, want == 1 ? "one path component" :
		    "two path components (owner/name)", &e, err);
	if (strchr(version, '/') != NULL || check_components(version, &e) != 0)
		return refuse_name("version", version, "one path component", &e,
		    err);
	if (asprintf(out, "%s/%s/%s", dir, id, version) < 0) {
		*out = NULL;
		return util_fail_oom(err, id);
	}
	return 0;
}

static int
make_parents(const char *path, ps_error *err)
{
	char *copy = strdup(path), *slash;
	int rc = 0;

	if (copy == NULL)
		return util_fail_oom(err, path);
	for (slash = strchr(copy + 1, '/'); slash != NULL;
	    slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(copy, 0755) != 0 && errno != EEXIST) {
			rc = util_fail_errno(err, "io_error", copy, "mkdir", errno);
			break;
		}
		*slash = '/';
	}
	free(copy);
	return rc;
}

int
install_datadir_open(const char *path, int create, install_datadir *dd, ps_error *err)
{
	memset(dd, 0, sizeof(*dd));
	dd->fd = dd->lock_fd = dd->tmp_fd = -1;
	if ((dd->path = strdup(path)) == NULL)
		return util_fail_oom(err, path);
	if (create && (make_parents(path, err) != 0 ||
	    (mkdir(path, 0755) != 0 && errno != EEXIST)))
		return err->code[0] != '\0' ? -1 :
		    util_fail_errno(err, "io_error", path, "mkdir", errno);
	dd->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dd->fd >= 0)
		return 0;
	if (errno == ENOENT)
		return util_fail(err, "not_found", path, "no such data directory");
	if (errno == ENOTDIR)
		return util_fail(err, "data_dir_invalid", path, "is not a directory");
	return util_fail_errno(err, "io_error", path, "open", errno);
}

void
install_datadir_close(install_datadir *dd)
{
	if (dd->tmp_fd >= 0)
		close(dd->tmp_fd);
	if (dd->lock_fd >= 0)
		close(dd->lock_fd);       /* releases the flock */
	if (dd->fd >= 0)
		close(dd->fd);
	free(dd->path);
	memset(dd, 0, sizeof(*dd));
	dd->fd = dd->lock_fd = dd->tmp_fd = -1;
}

/* Another user's lock or work area could block or tamper with ours. */
static int
check_ours(int fd, const char *where, ps_error *err)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return util_fail_errno(err, "io_error", where, "stat", errno);
	if (st.st_uid == geteuid())
		return 0;
	util_fail(err, "data_dir_invalid", where, "belongs to another user");
	return util_error_expect(err, "owned by the user running packsign",
	    "another owner");
}

int
install_datadir_lock(install_datadir *dd, void (*waiting)(void *, const char *),
    void *ctx, ps_error *err)
{
	char where[PS_ERROR_TEXT_MAX];
	int rc;

	snprintf(where, sizeof(where), "%s/%s", dd->path, INSTALL_DATADIR_LOCK);
	dd->lock_fd = openat(dd->fd, INSTALL_DATADIR_LOCK, O_RDWR | O_CREAT |
	    O_NOFOLLOW | O_CLOEXEC, 0600);
	if (dd->lock_fd < 0)
		return util_fail_errno(err, "lock_failed", where, "open", errno);
	if (check_ours(dd->lock_fd, where, err) != 0)
		return -1;
	rc = flock(dd->lock_fd, LOCK_EX | LOCK_NB);
	if (rc != 0 && errno == EWOULDBLOCK) {
		if (waiting != NULL)
			waiting(ctx, where);
		while ((rc = flock(dd->lock_fd, LOCK_EX)) != 0 && errno == EINTR)
			;
	}
	if (rc != 0)
		return util_fail_errno(err, "lock_failed", where, "flock", errno);
	return 0;
}

static int
open_tmp(install_datadir *dd, ps_error *err)
{
	char where[PS_ERROR_TEXT_MAX];

	snprintf(where, sizeof(where), "%s/%s", dd->path, INSTALL_DATADIR_TMP);
	dd->tmp_fd = util_mkdir_beneath(dd->fd, INSTALL_DATADIR_TMP, 0700, NULL);
	if (dd->tmp_fd < 0 && (errno == ENOTDIR || errno == ELOOP))
		return util_fail(err, "data_dir_invalid", where,
		    "is not a directory");
	if (dd->tmp_fd < 0)
		return util_fail_errno(err, "io_error", where, "open", errno);
	if (check_ours(dd->tmp_fd, where, err) != 0)
		return -1;
	if (fchmod(dd->tmp_fd, 0700) != 0)
		return util_fail_errno(err, "io_error", where, "chmod", errno);
	return 0;
}

/* Removes every entry of the directory `fd` (kept open). */
static int
empty_dir(int fd, const char *label, ps_error *err)
{
	int copy = dup(fd);
	DIR *dir = copy >= 0 ? fdopendir(copy) : NULL;
	struct dirent *de;
	int rc = 0;

	if (dir == NULL) {
		if (copy >= 0)
			close(copy);
		return util_fail_errno(err, "io_error", label, "open", errno);
	}
	/* Best effort: what cannot be removed now must not block installs;
	 * the next run tries again. */
	while ((de = readdir(dir)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		(void)util_remove_tree_at(fd, de->d_name);
	}
	closedir(dir);
	return rc;
}

/*
 * A receipt names its tree: receipts/<rel>.json and .sig belong to
 * <rel>.  Walks receipts/ to the depth of the layouts and removes the
 * receipts whose tree is gone (an install killed before its rename, an
 * uninstall killed after it), then the directories left empty.
 */
static int clean_receipts_in(install_datadir *dd, const char *rel, int depth,
    ps_error *err);

/* ".json", or ".N.sigstore.json" (a receipt 3's bundle N): the length
 * of the suffix after the version. */
static int
bundle_suffix(const char *name, size_t len)
{
	static const char tail[] = ".sigstore.json";
	size_t t = sizeof(tail) - 1, d = 0;

	if (len <= t || strcmp(name + len - t, tail) != 0)
		return 5;
	while (d < len - t && name[len - t - 1 - d] >= '0' &&
	    name[len - t - 1 - d] <= '9')
		d++;
	if (d == 0 || d + t + 1 >= len || name[len - t - 1 - d] != '.')
		return 5;
	return (int)(t + d + 1);
}

/* The receipt file `name` in directory `fd` (receipts/<rel>) goes when
 * its tree is certainly not there: absent, or not a directory. */
static int
clean_receipt_file(install_datadir *dd, int fd, const char *rel,
    const char *name, ps_error *err)
{
	size_t len = strlen(name);
	char tree[UTIL_PATH_MAX];
	int ext = 0, tfd;

	if (len > 5 && strcmp(name + len - 5, ".json") == 0)
		ext = 5;
	else if (len > 4 && strcmp(name + len - 4, ".sig") == 0)
		ext = 4;
	if (ext == 5)
		ext = bundle_suffix(name, len);
	if (ext == 0)
		return 0;
	snprintf(tree, sizeof(tree), "%s/%.*s", rel, (int)(len - (size_t)ext),
	    name);
	tfd = util_open_beneath(dd->fd, tree, O_RDONLY | O_DIRECTORY);
	if (tfd >= 0)
		close(tfd);
	if (tfd >= 0 || (errno != ENOENT && errno != ENOTDIR && errno != ELOOP))
		return 0;
	if (unlinkat(fd, name, 0) != 0 && errno != ENOENT)
		return util_fail_errno(err, "io_error", name, "remove", errno);
	return 0;
}

static int
clean_receipt_entry(install_datadir *dd, int fd, const char *rel, int depth,
    const char *name, unsigned char type, ps_error *err)
{
	char sub[UTIL_PATH_MAX];
	int rc;

	if (name[0] == '.')
		return 0;
	if (type == DT_DIR && depth > 0) {
		snprintf(sub, sizeof(sub), "%s%s%s", rel, rel[0] != '\0' ? "/" :
		    "", name);
		rc = clean_receipts_in(dd, sub, depth - 1, err);
		if (rc == 0)
			(void)unlinkat(fd, name, AT_REMOVEDIR);   /* if empty */
		return rc;
	}
	if (type == DT_REG && rel[0] != '\0')
		return clean_receipt_file(dd, fd, rel, name, err);
	return 0;
}

/* d_type, asking the file system when readdir does not say. */
static unsigned char
entry_type(int dirfd, const struct dirent *de)
{
	struct stat st;

	if (de->d_type != DT_UNKNOWN)
		return de->d_type;
	if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return DT_UNKNOWN;
	return S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG :
	    DT_UNKNOWN;
}

static int
clean_receipts_in(install_datadir *dd, const char *rel, int depth, ps_error *err)
{
	char path[UTIL_PATH_MAX];
	DIR *dir;
	struct dirent *de;
	int fd, rc = 0;

	snprintf(path, sizeof(path), "%s%s%s", INSTALL_DATADIR_RECEIPTS,
	    rel[0] != '\0' ? "/" : "", rel);
	fd = util_open_beneath(dd->fd, path, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return errno == ENOENT ? 0 :
		    util_fail_errno(err, "io_error", path, "open", errno);
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return util_fail_errno(err, "io_error", path, "open", errno);
	}
	while (rc == 0 && (de = readdir(dir)) != NULL)
		rc = clean_receipt_entry(dd, dirfd(dir), rel, depth, de->d_name,
		    entry_type(dirfd(dir), de), err);
	closedir(dir);
	return rc;
}

int
install_datadir_clean(install_datadir *dd, ps_error *err)
{
	char where[PS_ERROR_TEXT_MAX];

	snprintf(where, sizeof(where), "%s/%s", dd->path, INSTALL_DATADIR_TMP);
	if ((dd->tmp_fd < 0 && open_tmp(dd, err) != 0) ||
	    empty_dir(dd->tmp_fd, where, err) != 0)
		return -1;
	/* layout dir / up to two id components / version */
	return clean_receipts_in(dd, "", 3, err);
}

int
install_datadir_workdir(install_datadir *dd, const char *prefix, char **name, int *fd,
    ps_error *err)
{
	unsigned char random[8];
	char hex[17];
	int tries;

	*name = NULL;
	*fd = -1;
	if (dd->tmp_fd < 0 && open_tmp(dd, err) != 0)
		return -1;
	for (tries = 0; tries < 16; tries++) {
		if (getrandom(random, sizeof(random), 0) != (ssize_t)sizeof(random))
			return util_fail_errno(err, "io_error", NULL, "getrandom", errno);
		ps_hex_encode(random, sizeof(random), hex);
		free(*name);
		if (asprintf(name, "%s.%s", prefix, hex) < 0) {
			*name = NULL;
			return util_fail_oom(err, NULL);
		}
		if (mkdirat(dd->tmp_fd, *name, 0700) == 0)
			break;
		if (errno != EEXIST)
			return util_fail_errno(err, "io_error", *name, "mkdir", errno);
	}
	*fd = openat(dd->tmp_fd, *name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (*fd < 0)
		return util_fail_errno(err, "io_error", *name, "open", errno);
	return 0;
}
