#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sign/tarwrite.h"
#include "sign/walk.h"
#include "util/error.h"
#include "util/pathname.h"
#include "util/strings.h"

struct walk {
	const char *label;
	const ps_ignore *ignore;
	const struct stat *exclude;
	ps_items *items;
	ps_strings *odd;    /* survey: what a pack cannot hold, by disk path */
};

static int
is_excluded(const struct walk *w, const struct stat *st)
{
	return w->exclude != NULL && st->st_dev == w->exclude->st_dev &&
	    st->st_ino == w->exclude->st_ino;
}

int
ps_is_vcs_name(const char *name)
{
	return strcmp(name, ".git") == 0 || strcmp(name, ".hg") == 0 ||
	    strcmp(name, ".svn") == 0 || strcmp(name, ".bzr") == 0;
}

static const char *
kind_of(mode_t mode)
{
	if (S_ISLNK(mode))
		return "a symbolic link";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	return "of an unknown file type";
}

static int
refuse_kind(const struct walk *w, const char *path, mode_t mode,
    ps_error *err)
{
	char where[PS_ERROR_TEXT_MAX];

	snprintf(where, sizeof(where), "%s/%s", w->label, path);
	ps_refuse(err, S_ISLNK(mode) ? "symlink_refused" : "special_file_refused",
	    where, "is %s; packs hold only regular files and directories",
	    kind_of(mode));
	return ps_error_expect(err, "a regular file or a directory",
	    kind_of(mode));
}

/* Errors name the entry as the user sees it: LABEL/DISK-PATH.  Built
 * only on failure: a printf per entry showed in packing 100,000 files. */
static int
name_subject(const struct walk *w, const char *disk, ps_error *err)
{
	snprintf(err->subject, sizeof(err->subject), "%s/%s", w->label, disk);
	return -1;
}

/* Names as on disk become canonical (NFC) paths. */
static int
canonical_path(const struct walk *w, const char *cprefix, const char *disk,
    const char *name, char **out, ps_error *err)
{
	char *nfc;

	nfc = ps_path_nfc(name, strlen(name));
	if (nfc == NULL && errno == EILSEQ) {
		ps_refuse(err, "name_not_utf8", NULL,
		    "file name is not valid UTF-8");
		return name_subject(w, disk, err);
	}
	*out = nfc != NULL ? ps_path_join(cprefix, nfc) : NULL;
	free(nfc);
	if (*out == NULL) {
		ps_fail_oom(err, NULL);
		return name_subject(w, disk, err);
	}
	if (ps_path_check(*out, *out, err) != 0) {
		free(*out);
		return name_subject(w, disk, err);
	}
	return 0;
}

/* Limits of the canonical tar's headers, beyond the name rules. */
static int
check_storable(const char *where, const char *canon, const struct stat *st,
    ps_error *err)
{
	if (!ps_tar_path_fits(canon, S_ISDIR(st->st_mode)))
		return ps_refuse(err, "name_too_long", where,
		    "path does not fit a tar header without truncation "
		    "(see canonical-tar.md, \"Names in headers\")");
	if (S_ISREG(st->st_mode) && (uint64_t)st->st_size >= PS_TAR_SIZE_LIMIT)
		return ps_refuse(err, "file_too_large", where,
		    "file is %lld bytes; the limit is 8 GiB",
		    (long long)st->st_size);
	return 0;
}

static int walk_dir(const struct walk *w, int dirfd, const char *dprefix,
    const char *cprefix, ps_error *err);

static int
add_entry(const struct walk *w, int dirfd, const char *name,
    const struct stat *st, const char *disk, char *canon, ps_error *err)
{
	struct stat opened;
	ps_item *item;
	int fd, rc;

	item = ps_items_add(w->items, canon, S_ISDIR(st->st_mode) ?
	    PS_ENTRY_DIR : PS_ENTRY_FILE, err);
	if (item == NULL)
		return -1;
	item->dev = st->st_dev;
	item->ino = st->st_ino;
	if (S_ISREG(st->st_mode)) {
		item->entry.size = (uint64_t)st->st_size;
		item->entry.executable = (st->st_mode & S_IXUSR) != 0;
	}
	if (strcmp(disk, canon) != 0 && (item->source = strdup(disk)) == NULL)
		return ps_fail_oom(err, NULL);
	if (!S_ISDIR(st->st_mode))
		return 0;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return ps_fail_errno(err, "io_error", disk, "open directory", errno);
	if (fstat(fd, &opened) != 0 || opened.st_dev != st->st_dev ||
	    opened.st_ino != st->st_ino) {
		close(fd);
		return ps_fail(err, "file_changed", disk, "the directory was "
		    "replaced while it was being packed; pack again");
	}
	/* `canon` now belongs to the item list; it stays valid. */
	rc = walk_dir(w, fd, disk, canon, err);
	return rc;
}

/* A survey notes what a pack cannot hold instead of refusing it. */
static int
note_odd(const struct walk *w, const char *disk, const char *why,
    ps_error *err)
{
	char *line;
	int rc;

	if (asprintf(&line, "%s (%s)", disk, why) < 0)
		return ps_fail_oom(err, disk);
	rc = ps_strings_add(w->odd, line);
	free(line);
	return rc == 0 ? 0 : ps_fail_oom(err, disk);
}

static int
visit_entry(const struct walk *w, int dirfd, const char *cprefix,
    const char *disk, const char *name, const struct stat *st, ps_error *err)
{
	char *canon = NULL;
	ps_error why;

	ps_error_clear(&why);
	if (is_excluded(w, st))
		return 0;
	if (canonical_path(w, cprefix, disk, name, &canon,
	    w->odd != NULL ? &why : err) != 0)
		return w->odd != NULL && why.status == PS_STATUS_REFUSED ?
		    note_odd(w, disk, why.code, err) : -1;
	if (w->odd != NULL && strcmp(strrchr(canon, '/') != NULL ?
	    strrchr(canon, '/') + 1 : canon, name) != 0) {
		free(canon);            /* renamed to another normal form */
		return note_odd(w, disk, "name not in NFC", err);
	}
	if (w->odd == NULL && ps_ignore_match(w->ignore, canon,
	    S_ISDIR(st->st_mode)) && strcmp(canon, PS_IGNORE_FILE) != 0 &&
	    ps_format_by_manifest(canon) == PS_FORMAT_UNKNOWN) {
		free(canon);
		return 0;
	}
	if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode)) {
		free(canon);
		return w->odd != NULL ? note_odd(w, disk, kind_of(st->st_mode),
		    err) : refuse_kind(w, disk, st->st_mode, err);
	}
	if (w->odd == NULL && check_storable(disk, canon, st, err) != 0) {
		free(canon);
		return -1;
	}
	return add_entry(w, dirfd, name, st, disk, canon, err);
}

static int
visit(const struct walk *w, int dirfd, const char *dprefix,
    const char *cprefix, const char *name, ps_error *err)
{
	struct stat st;
	char *disk;
	int rc;

	if (w->odd == NULL && ps_is_vcs_name(name))
		return 0;
	disk = ps_path_join(dprefix, name);
	if (disk == NULL)
		return ps_fail_oom(err, NULL);
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		rc = ps_fail_errno(err, "io_error", disk, "stat", errno);
	else
		rc = visit_entry(w, dirfd, cprefix, disk, name, &st, err);
	free(disk);
	return rc;
}

static int
walk_dir(const struct walk *w, int dirfd, const char *dprefix,
    const char *cprefix, ps_error *err)
{
	DIR *dir = fdopendir(dirfd);
	struct dirent *de;
	int rc = 0;

	if (dir == NULL) {
		close(dirfd);
		return ps_fail_errno(err, "io_error", dprefix, "read directory",
		    errno);
	}
	for (;;) {
		errno = 0;
		de = readdir(dir);
		if (de == NULL)
			break;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		rc = visit(w, dirfd, dprefix, cprefix, de->d_name, err);
		if (rc != 0)
			break;
	}
	if (rc == 0 && errno != 0)
		rc = ps_fail_errno(err, "io_error", dprefix, "read directory", errno);
	closedir(dir);
	return rc;
}

int
ps_walk(int rootfd, const char *label, const ps_ignore *ignore,
    ps_items *items, ps_error *err)
{
	return ps_walk_excluding(rootfd, label, ignore, NULL, items, err);
}

int
ps_walk_excluding(int rootfd, const char *label, const ps_ignore *ignore,
    const struct stat *exclude, ps_items *items, ps_error *err)
{
	struct walk w = { label, ignore, exclude, items, NULL };
	/* A descriptor of its own: readdir moves the directory offset. */
	int fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return ps_fail_errno(err, "io_error", label, "open directory",
		    errno);
	return walk_dir(&w, fd, "", "", err);
}

int
ps_walk_survey(int rootfd, const char *label, ps_items *items,
    ps_strings *odd, ps_error *err)
{
	struct walk w = { label, NULL, NULL, items, odd };
	int fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return ps_fail_errno(err, "io_error", label, "open directory",
		    errno);
	return walk_dir(&w, fd, "", "", err);
}
