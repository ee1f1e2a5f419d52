/*
 * The directory-backed ps_pack_files: a view over the entries one walk of
 * the directory found (pack/walk.c), so that validation sees exactly the
 * files packing sees: the ignore rules and the VCS exclusion apply, and no
 * second walk runs.  A path the walk did not list is absent.  Files are
 * opened again by name relative to their directory, never following a
 * link, and must be the file the walk saw (device and inode).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/paths.h"
#include "pack/ignore.h"
#include "pack/items.h"
#include "pack/packdir.h"
#include "pack/walk.h"
#include "util/error.h"
#include "util/fdio.h"

struct packdir {
	int rootfd;
	int own_root;             /* close rootfd and free items with the view */
	char *dir;                /* pack_files_tree_open: walked on first use */
	int read_unwalked;        /* pack_files_tree_open: reads need no walk */
	const pack_items *items;  /* sorted bytewise: lookups */
	pack_items owned;
	const pack_item **order;  /* the items, depth first: listing */
	const pack_item *listing; /* the one handed to the list callback */
	util_parent_cache parent; /* the directory of the last file opened */
};

#define FILE_FLAGS (O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)

static const char *
kind_of(mode_t type)
{
	switch (type) {
	case S_IFLNK: return "a symbolic link";
	case S_IFIFO: return "a FIFO";
	case S_IFSOCK: return "a socket";
	default: return "a device";
	}
}

/* `path` is the special entry itself, or lies below one (`below`). */
static int
refuse_special(const char *path, mode_t type, int below, ps_error *err)
{
	return util_refuse(err, PS_CODE_PACK_PATH_SPECIAL, path, "%s %s; links "
	    "are never followed and only regular files are read", below ?
	    "the path goes through" : "is", kind_of(type));
}

static int walk_for_reading(struct packdir *pd, const char *dir,
    const pack_ignore *ignore, ps_error *err);
static int order_items(struct packdir *pd, ps_error *err);

/* pack_files_tree_open: the first call walks. */
static int
walked(struct packdir *pd, ps_error *err)
{
	char *dir = pd->dir;

	if (dir == NULL)
		return 0;
	pd->dir = NULL;
	if (walk_for_reading(pd, dir, NULL, err) != 0 ||
	    order_items(pd, err) != 0) {
		/* A later call walks again from nothing (found in review: it
		 * added to the first walk's entries). */
		pack_items_free(&pd->owned);
		free(pd->order);
		pd->order = NULL;
		pd->dir = dir;
		return -1;
	}
	free(dir);
	return 0;
}

/* The item at `path`, or an absent or special path refused. */
static const pack_item *
find_item(struct packdir *pd, const char *path, ps_error *err)
{
	char prefix[UTIL_PATH_MAX];
	const char *slash;
	long at;

	if (walked(pd, err) != 0)
		return NULL;
	/* A reader of the listing asks for the entry it was just given: no
	 * search (100,000 of them are 20 ms). */
	if (pd->listing != NULL && strcmp(pd->listing->entry.path, path) == 0)
		return pd->listing;
	if (formats_path_is_canonical(path) != 0) {
		util_refuse(err, "pack_path_invalid", path,
		    "not a canonical relative path");
		return NULL;
	}
	at = pack_items_find(pd->items, path);
	if (at >= 0 && !pd->items->items[at].special)
		return &pd->items->items[at];
	if (at >= 0) {
		refuse_special(path, pd->items->items[at].special, 0, err);
		return NULL;
	}
	/* An ancestor that is a link: as if the walk had followed it. */
	for (slash = strchr(path, '/'); slash != NULL;
	    slash = strchr(slash + 1, '/')) {
		memcpy(prefix, path, (size_t)(slash - path));
		prefix[slash - path] = '\0';
		at = pack_items_find(pd->items, prefix);
		if (at >= 0 && pd->items->items[at].special) {
			refuse_special(path, pd->items->items[at].special, 1, err);
			return NULL;
		}
	}
	util_refuse(err, PS_CODE_PACK_PATH_MISSING, path,
	    "no such file or directory in the pack");
	return NULL;
}

static int
packdir_stat(void *ctx, const char *path, ps_entry_type *type,
    uint64_t *size, ps_error *err)
{
	const pack_item *item = find_item(ctx, path, err);

	if (item == NULL)
		return -1;
	*type = item->entry.type;
	*size = item->entry.type == PS_ENTRY_FILE ? item->entry.size : 0;
	return 0;
}

/* The file is no longer the one the walk saw. */
static int
refuse_changed(const char *path, int errnum, ps_error *err)
{
	if (errnum == ENOENT)
		return util_refuse(err, PS_CODE_PACK_PATH_MISSING, path,
		    "the file disappeared since the directory was read");
	if (errnum == ELOOP || errnum == EXDEV)
		return util_refuse(err, PS_CODE_PACK_PATH_SPECIAL, path,
		    "became a symbolic link since the directory was read");
	if (errnum == ENOTDIR)
		return util_refuse(err, PS_CODE_PACK_PATH_MISSING, path,
		    "a directory on its path was replaced by a file");
	return util_fail(err, "file_changed", path, "the file was replaced "
	    "since the directory was read; read it again");
}

static int
same_file(const struct stat *st, const pack_item *item)
{
	return S_ISREG(st->st_mode) && st->st_dev == item->dev &&
	    st->st_ino == item->ino;
}

/* Opens the regular file the walk saw at `item`, looking before opening
 * (opening a device can have effects); the descriptor or -1. */
static int
open_file(struct packdir *pd, const pack_item *item, ps_error *err)
{
	const char *path = item->entry.path, *leaf;
	struct stat st;
	int dfd, fd;

	if (item->entry.type != PS_ENTRY_FILE)
		return util_refuse(err, PS_CODE_PACK_NOT_FILE, path,
		    "a directory where a file was expected");
	dfd = util_open_parent_cached(&pd->parent, pd->rootfd,
	    item->source != NULL ? item->source : path, &leaf);
	if (dfd < 0)
		return refuse_changed(path, errno, err);
	if (fstatat(dfd, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return refuse_changed(path, errno, err);
	if (!same_file(&st, item))
		return refuse_changed(path, S_ISLNK(st.st_mode) ? ELOOP : 0, err);
	if ((fd = openat(dfd, leaf, FILE_FLAGS)) < 0)
		return refuse_changed(path, errno, err);
	if (fstat(fd, &st) != 0 || !same_file(&st, item)) {
		close(fd);
		return refuse_changed(path, 0, err);
	}
	return fd;
}

/* A tree still being written (pack_files_tree_open) is not walked for a
 * read (issue 22: install's validators read a few files back, and the walk
 * stat'ed every file): the file is opened beneath the root without
 * following a link and must be a regular file. */
static int
open_beneath(struct packdir *pd, const char *path, ps_error *err)
{
	struct stat st;
	int fd;

	if (formats_path_is_canonical(path) != 0)
		return util_refuse(err, "pack_path_invalid", path,
		    "not a canonical relative path");
	if ((fd = util_open_beneath(pd->rootfd, path, FILE_FLAGS)) < 0)
		return refuse_changed(path, errno, err);
	if (fstat(fd, &st) != 0) {
		close(fd);
		return util_fail_errno(err, "io_error", path, "stat", errno);
	}
	if (S_ISREG(st.st_mode))
		return fd;
	close(fd);
	if (S_ISDIR(st.st_mode))
		return util_refuse(err, PS_CODE_PACK_NOT_FILE, path,
		    "a directory where a file was expected");
	return refuse_special(path, st.st_mode & S_IFMT, 0, err);
}

/* The file at `path` opened for a read: beneath the root, or as the walk
 * saw it. */
static int
open_path(struct packdir *pd, const char *path, ps_error *err)
{
	const pack_item *item;

	if (pd->read_unwalked)
		return open_beneath(pd, path, err);
	item = find_item(pd, path, err);
	return item != NULL ? open_file(pd, item, err) : -1;
}

/* Reads up to n bytes (fewer only at end of file) into *got. */
static int
read_upto(int fd, const char *path, unsigned char *buf, size_t n,
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
	unsigned char *buf = NULL;
	size_t got = 0;
	int fd, rc;

	if ((fd = open_path(ctx, path, err)) < 0)
		return -1;
	/* One byte more than allowed tells "too large" from "exactly max". */
	if ((buf = malloc(max + 2)) == NULL)
		rc = util_fail_oom(err, path);
	else
		rc = read_upto(fd, path, buf, max + 1, &got, err);
	close(fd);
	if (rc == 0 && got > max) {
		util_refuse(err, PS_CODE_PACK_FILE_TOO_LARGE, path,
		    "file is too large");
		rc = util_error_expect(err, "at most the size limit",
		    "a larger file");
	}
	if (rc != 0) {
		free(buf);
		return -1;
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
	struct packdir *pd = ctx;
	const pack_item *item;
	int fd, rc;

	item = pd->read_unwalked ? NULL : find_item(pd, path, err);
	if (item != NULL && item->entry.type == PS_ENTRY_FILE &&
	    item->head_known && n <= PACK_HEAD_MAX) {
		/* The packing pass read it: its first bytes, as packed. */
		*got = n < item->head_len ? n : item->head_len;
		memcpy(buf, item->head, *got);
		return 0;
	}
	if (pd->read_unwalked)
		fd = open_beneath(pd, path, err);
	else
		fd = item != NULL ? open_file(pd, item, err) : -1;
	if (fd < 0)
		return -1;
	rc = read_upto(fd, path, buf, n, got, err);
	close(fd);
	return rc;
}

static int
packdir_list(void *ctx, int (*fn)(void *arg, const char *path,
    ps_entry_type type, uint64_t size, ps_error *err), void *arg,
    ps_error *err)
{
	struct packdir *pd = ctx;
	const pack_item *item;
	size_t i;
	int rc = 0;

	if (walked(pd, err) != 0)
		return -1;
	for (i = 0; rc == 0 && i < pd->items->count; i++) {
		item = pd->order[i];
		if (item->special != 0) {
			pd->listing = NULL;
			return refuse_special(item->entry.path, item->special, 0,
			    err);
		}
		pd->listing = item;
		rc = fn(arg, item->entry.path, item->entry.type,
		    item->entry.type == PS_ENTRY_FILE ? item->entry.size : 0, err);
	}
	pd->listing = NULL;
	return rc != 0 ? -1 : 0;
}

static void
packdir_close(void *ctx)
{
	struct packdir *pd = ctx;

	if (pd == NULL)
		return;
	util_parent_cache_clear(&pd->parent);
	if (pd->own_root) {
		close(pd->rootfd);
		pack_items_free(&pd->owned);
	}
	free(pd->order);
	free(pd->dir);
	free(pd);
}

static int
depth_first_item(const void *a, const void *b)
{
	return pack_depth_first_compare((*(const pack_item *const *)a)->entry.path,
	    (*(const pack_item *const *)b)->entry.path);
}

/* The listing order, computed once: depth first, bytewise within a
 * directory, as the ps_pack_files contract says.  The walk's bytewise
 * order differs only where a name continues with a byte below '/'
 * ("a.txt" beside a directory "a"), which most trees never have: sorting
 * 100,000 names again cost 25 ms per view. */
static int
order_items(struct packdir *pd, ps_error *err)
{
	size_t i, n = pd->items->count;

	pd->order = malloc((n > 0 ? n : 1) * sizeof(*pd->order));
	if (pd->order == NULL)
		return util_fail_oom(err, NULL);
	for (i = 0; i < n; i++)
		pd->order[i] = &pd->items->items[i];
	pack_sort_unless_ordered(pd->order, n, sizeof(*pd->order),
	    depth_first_item);
	return 0;
}

static int
make_view(struct packdir *pd, ps_pack_files *files, ps_error *err)
{
	if (order_items(pd, err) != 0) {
		packdir_close(pd);
		return -1;
	}
	*files = (ps_pack_files){ pd, packdir_stat, packdir_read, packdir_list,
	    packdir_head, packdir_close };
	return 0;
}

int
pack_files_of_walk(int rootfd, const pack_items *items,
    ps_pack_files *files, ps_error *err)
{
	struct packdir *pd = calloc(1, sizeof(*pd));

	memset(files, 0, sizeof(*files));
	if (pd == NULL)
		return util_fail_oom(err, NULL);
	pd->rootfd = rootfd;
	pd->items = items;
	return make_view(pd, files, err);
}

/* One walk, checked as packing checks it. */
static int
walk_for_reading(struct packdir *pd, const char *dir,
    const pack_ignore *ignore, ps_error *err)
{
	if (pack_walk_reading(pd->rootfd, dir, ignore, &pd->owned, err) != 0)
		return -1;
	return pack_items_check(&pd->owned, dir, err);
}

static struct packdir *
open_owned(const char *dir, ps_error *err)
{
	struct packdir *pd = calloc(1, sizeof(*pd));

	if (pd == NULL) {
		util_fail_oom(err, dir);
		return NULL;
	}
	pd->own_root = 1;
	pd->items = &pd->owned;
	if ((pd->rootfd = pack_walk_open_root(dir, "pack_not_directory",
	    err)) < 0) {
		free(pd);
		return NULL;
	}
	return pd;
}

int
ps_pack_files_dir_open(const char *dir, ps_pack_files *files, ps_error *err)
{
	struct packdir *pd;
	pack_ignore *ignore = NULL;
	int rc;

	memset(files, 0, sizeof(*files));
	if ((pd = open_owned(dir, err)) == NULL)
		return -1;
	rc = pack_ignore_load(pd->rootfd, &ignore, err);
	if (rc == 0)
		rc = walk_for_reading(pd, dir, ignore, err);
	pack_ignore_free(ignore);
	if (rc != 0) {
		packdir_close(pd);
		return -1;
	}
	return make_view(pd, files, err);
}

int
pack_files_tree_open(const char *dir, ps_pack_files *files, ps_error *err)
{
	struct packdir *pd;

	memset(files, 0, sizeof(*files));
	if ((pd = open_owned(dir, err)) == NULL)
		return -1;
	if ((pd->dir = strdup(dir)) == NULL) {
		packdir_close(pd);
		return util_fail_oom(err, dir);
	}
	pd->read_unwalked = 1;
	*files = (ps_pack_files){ pd, packdir_stat, packdir_read, packdir_list,
	    packdir_head, packdir_close };
	return 0;
}

void
ps_pack_files_close(ps_pack_files *files)
{
	if (files == NULL)
		return;
	if (files->close != NULL)
		files->close(files->ctx);
	memset(files, 0, sizeof(*files));
}
