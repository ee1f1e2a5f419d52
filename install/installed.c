/*
 * Installed packs: finding them through their receipts (list), removing
 * them (uninstall), and the default data directory.  Readers take no lock:
 * a tree appears by one rename after its receipt, and disappears by one
 * rename before it, so a pack with both is whole.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/semver.h"
#include "formats/format.h"
#include "sign/dsse.h"
#include "util/error.h"
#include "util/fdio.h"
#include "util/pathname.h"
#include "install/installed.h"
#include "install/receipt.h"

int
ps_data_dir_default(char **out, ps_error *err)
{
	const char *env = getenv("PACKSIGN_DATA_DIR");
	int n;

	*out = NULL;
	if (env != NULL && env[0] != '\0')
		n = asprintf(out, "%s", env);
	else if ((env = getenv("XDG_DATA_HOME")) != NULL && env[0] == '/')
		n = asprintf(out, "%s/packsign", env);
	else if ((env = getenv("HOME")) != NULL && env[0] == '/')
		n = asprintf(out, "%s/.local/share/packsign", env);
	else
		return util_fail(err, "data_dir_invalid", "PACKSIGN_DATA_DIR",
		    "no data directory: set PACKSIGN_DATA_DIR or HOME, or pass "
		    "--data-dir");
	if (n < 0) {
		*out = NULL;
		return util_fail_oom(err, NULL);
	}
	return 0;
}

/* ------------------------------------------------------------------ list */

void
install_list_free_items(ps_installed_list *list)
{
	size_t i;

	for (i = 0; i < list->count; i++)
		install_receipt_clear(&list->items[i]);
	free(list->items);
	list->items = NULL;
	list->count = 0;
}

void
ps_installed_list_free(ps_installed_list *list)
{
	if (list == NULL)
		return;
	install_list_free_items(list);
	free(list);
}

int
install_list_take(ps_installed_list *list, ps_installed *item,
    ps_error *err)
{
	ps_installed *grown;

	grown = realloc(list->items, (list->count + 1) * sizeof(*grown));
	if (grown == NULL)
		return util_fail_oom(err, item->id);
	list->items = grown;
	list->items[list->count++] = *item;
	memset(item, 0, sizeof(*item));
	return 0;
}

static int
version_order(const char *a, const char *b)
{
	formats_semver va, vb;
	int c;

	if (formats_semver_parse(a, &va) == 0 && formats_semver_parse(b, &vb) == 0 &&
	    (c = formats_semver_compare(&va, &vb)) != 0)
		return c;
	return strcmp(a, b);
}

static int
by_pack(const void *pa, const void *pb)
{
	const ps_installed *a = pa, *b = pb;
	int c = strcmp(ps_format_name(a->format), ps_format_name(b->format));

	if (c == 0)
		c = strcmp(a->id, b->id);
	return c != 0 ? c : version_order(a->version, b->version);
}

/* After sorting, the last of each run of one id is its newest. */
static void
mark_newest(ps_installed_list *list)
{
	size_t i;
	const ps_installed *next;

	if (list->count > 1)
		qsort(list->items, list->count, sizeof(ps_installed), by_pack);
	for (i = 0; i < list->count; i++) {
		next = i + 1 < list->count ? &list->items[i + 1] : NULL;
		list->items[i].newest = next == NULL ||
		    next->format != list->items[i].format ||
		    strcmp(next->id, list->items[i].id) != 0;
	}
}

static int
set_locations(const install_datadir *dd, const char *rel, ps_installed *r,
    ps_error *err)
{
	free(r->path);
	r->path = r->receipt_path = r->sig_path = NULL;
	if (asprintf(&r->path, "%s/%s", dd->path, rel) < 0 ||
	    asprintf(&r->receipt_path, "%s/%s/%s.json", dd->path,
	    INSTALL_DATADIR_RECEIPTS, rel) < 0 ||
	    asprintf(&r->sig_path, "%s/%s/%s.sig", dd->path,
	    INSTALL_DATADIR_RECEIPTS, rel) < 0)
		return util_fail_oom(err, rel);
	return 0;
}

/* The tree at `rel`, reached without following any link. */
static int
tree_exists(const install_datadir *dd, const char *rel)
{
	int fd = util_open_beneath(dd->fd, rel, O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

int
install_load(const install_datadir *dd, const char *rel, ps_installed **r,
    ps_error *err)
{
	char label[UTIL_PATH_MAX + 64], want[UTIL_PATH_MAX];

	*r = NULL;
	if (!tree_exists(dd, rel))
		return 0;
	snprintf(label, sizeof(label), "%s/%s/%s.json", dd->path,
	    INSTALL_DATADIR_RECEIPTS, rel);
	if (install_receipt_load(dd->fd, rel, label, r, err) != 0) {
		if (!ps_error_is(err, PS_CODE_NOT_INSTALLED))
			return -1;
		ps_error_clear(err);      /* uninstalled meanwhile */
		return 0;
	}
	snprintf(want, sizeof(want), "%s/%s/%s", install_layout_dir((*r)->format),
	    (*r)->id, (*r)->version);
	if (strcmp(want, rel) != 0) {
		install_receipt_free(*r);
		*r = NULL;
		util_refuse(err, "receipt_invalid", label, "the receipt's format, id "
		    "and version do not name its location");
		return util_error_expect(err, rel, want);
	}
	return set_locations(dd, rel, *r, err);
}

struct scan {
	const install_datadir *dd;
	ps_installed_list *list;
	ps_error *err;
};

static int scan_dir(struct scan *s, const char *rel, int depth);

static int
scan_entry(struct scan *s, const char *rel, int depth, const char *name)
{
	char sub[UTIL_PATH_MAX];
	size_t len = strlen(name);
	ps_installed *r;
	int rc;

	if (name[0] == '.')
		return 0;
	if (depth > 0) {
		snprintf(sub, sizeof(sub), "%s/%s", rel, name);
		return scan_dir(s, sub, depth - 1);
	}
	if (len <= 5 || strcmp(name + len - 5, ".json") != 0)
		return 0;
	snprintf(sub, sizeof(sub), "%s/%.*s", rel, (int)(len - 5), name);
	if (install_load(s->dd, sub, &r, s->err) != 0)
		return -1;
	if (r == NULL)
		return 0;
	rc = install_list_take(s->list, r, s->err);
	install_receipt_free(r);
	return rc;
}

/* receipts/<rel>: `depth` more directory levels above the .json files. */
static int
scan_dir(struct scan *s, const char *rel, int depth)
{
	char path[UTIL_PATH_MAX];
	struct dirent *de;
	DIR *dir;
	int fd, rc = 0;

	snprintf(path, sizeof(path), "%s/%s", INSTALL_DATADIR_RECEIPTS, rel);
	fd = util_open_beneath(s->dd->fd, path, O_RDONLY | O_DIRECTORY);
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
		return 0;
	if (fd < 0 || (dir = fdopendir(fd)) == NULL) {
		rc = util_fail_errno(s->err, "io_error", path, "open", errno);
		if (fd >= 0)
			close(fd);
		return rc;
	}
	while (rc == 0 && (de = readdir(dir)) != NULL)
		rc = scan_entry(s, rel, depth, de->d_name);
	closedir(dir);
	return rc;
}

int
install_scan(const install_datadir *dd, ps_format format, const char *id,
    ps_installed_list *list, ps_error *err)
{
	struct scan s = { dd, list, err };
	const formats_descriptor *d;
	char rel[UTIL_PATH_MAX];
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && (d = formats_at(i)) != NULL; i++) {
		if (format != PS_FORMAT_UNKNOWN && format != d->format)
			continue;
		if (id == NULL) {
			rc = scan_dir(&s, d->install_dir, d->id_depth);
			continue;
		}
		/* An id that is no path of this format has nothing installed
		 * under it; only that refusal is dropped, never the scan's. */
		snprintf(rel, sizeof(rel), "%s/%s", d->install_dir, id);
		if (util_path_check(rel, NULL, err) == 0)
			rc = scan_dir(&s, rel, 0);
		else
			ps_error_clear(err);
	}
	if (rc == 0)
		mark_newest(list);
	return rc;
}

int
ps_installed_list_load(const char *data_dir, ps_installed_list **out,
    ps_error *err)
{
	install_datadir dd;
	int rc;

	*out = calloc(1, sizeof(ps_installed_list));
	if (*out == NULL)
		return util_fail_oom(err, data_dir);
	rc = install_datadir_open(data_dir, 0, &dd, err);
	if (rc != 0 && ps_error_is(err, PS_CODE_NOT_FOUND)) {
		ps_error_clear(err);
		install_datadir_close(&dd);
		return 0;
	}
	if (rc == 0)
		rc = install_scan(&dd, PS_FORMAT_UNKNOWN, NULL, *out, err);
	install_datadir_close(&dd);
	return rc;
}

/* ------------------------------------------------------------- uninstall */

int
install_find(const install_datadir *dd, ps_format format, const char *id,
    const char *version, ps_installed_list *found, ps_error *err)
{
	ps_installed_list all = { NULL, 0 };
	ps_format first;
	size_t i;
	int rc;

	rc = install_scan(dd, format, id, &all, err);
	first = all.count > 0 ? all.items[0].format : PS_FORMAT_UNKNOWN;
	for (i = 0; rc == 0 && i < all.count; i++) {
		if (all.items[i].format != first) {
			util_refuse(err, "install_ambiguous", id, "is installed as "
			    "more than one format; name one with --format");
			rc = util_error_expect(err, "one format", "several");
		} else if (version == NULL ||
		    strcmp(all.items[i].version, version) == 0) {
			rc = install_list_take(found, &all.items[i], err);
		}
	}
	install_list_free_items(&all);
	if (rc == 0 && found->count == 0) {
		util_refuse(err, "not_installed", id, "looked for %s%s%s in %s",
		    id, version != NULL ? "@" : "", version != NULL ? version : "",
		    dd->path);
		return util_error_expect(err, "an installed pack", "none");
	}
	return rc;
}

static int
remove_receipt(const install_datadir *dd, const char *rel, ps_error *err)
{
	static const char *const suffixes[] = { ".json", ".sig" };
	char path[UTIL_PATH_MAX + 32];
	size_t i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s%s", INSTALL_DATADIR_RECEIPTS, rel,
		    suffixes[i]);
		if (util_unlink_beneath(dd->fd, path, 0) != 0 && errno != ENOENT)
			return util_fail_errno(err, "io_error", path, "remove", errno);
	}
	/* Receipt 3's bundles, N from 1 until one is absent. */
	for (i = 1; i <= SIGN_DSSE_MAX_SIGNATURES; i++) {
		snprintf(path, sizeof(path), "%s/%s.%zu.sigstore.json",
		    INSTALL_DATADIR_RECEIPTS, rel, i);
		if (util_unlink_beneath(dd->fd, path, 0) == 0)
			continue;
		if (errno == ENOENT)
			break;
		return util_fail_errno(err, "io_error", path, "remove", errno);
	}
	return 0;
}

/* Removes the directories of `rel` that its removal left empty, below
 * `base` ("" or receipts), keeping the layout directory. */
static void
prune_parents(const install_datadir *dd, const char *base, const char *rel)
{
	char path[UTIL_PATH_MAX + 32], *slash;
	size_t keep = strlen(base) + (base[0] != '\0') +
	    strcspn(rel, "/");

	snprintf(path, sizeof(path), "%s%s%s", base, base[0] != '\0' ? "/" : "",
	    rel);
	while ((slash = strrchr(path, '/')) != NULL) {
		*slash = '\0';
		if (strlen(path) <= keep ||
		    util_unlink_beneath(dd->fd, path, AT_REMOVEDIR) != 0)
			break;
	}
}

/* Gone from view with one rename, then the receipt; the bytes last, and
 * any left behind are removed by the next run. */
static int
remove_one(install_datadir *dd, const ps_installed *pack, int trash_fd,
    size_t index, ps_error *err)
{
	char rel[UTIL_PATH_MAX], slot[32];
	const char *leaf;
	int fd, rc;

	snprintf(rel, sizeof(rel), "%s/%s/%s", install_layout_dir(pack->format),
	    pack->id, pack->version);
	snprintf(slot, sizeof(slot), "%zu", index);
	if ((fd = util_open_parent_beneath(dd->fd, rel, &leaf)) < 0)
		return util_fail_errno(err, "io_error", pack->path, "open", errno);
	rc = renameat(fd, leaf, trash_fd, slot);
	if (rc != 0)
		rc = util_fail_errno(err, "io_error", pack->path, "rename", errno);
	close(fd);
	if (rc != 0 || remove_receipt(dd, rel, err) != 0)
		return -1;
	(void)util_remove_tree_at(trash_fd, slot);
	prune_parents(dd, "", rel);
	prune_parents(dd, INSTALL_DATADIR_RECEIPTS, rel);
	return 0;
}

static int
remove_all(install_datadir *dd, const ps_installed_list *found, ps_error *err)
{
	char *trash = NULL;
	int trash_fd = -1, rc;
	size_t i;

	rc = install_datadir_workdir(dd, "uninstall", &trash, &trash_fd, err);
	for (i = 0; rc == 0 && i < found->count; i++)
		rc = remove_one(dd, &found->items[i], trash_fd, i, err);
	if (trash_fd >= 0)
		close(trash_fd);
	if (trash != NULL)
		(void)util_remove_tree_at(dd->tmp_fd, trash);
	free(trash);
	return rc;
}

int
ps_uninstall(const char *data_dir, ps_format format, const char *id,
    const char *version, ps_installed_list **removed, ps_error *err)
{
	ps_installed_list *found = calloc(1, sizeof(*found));
	install_datadir dd;
	int rc;

	ps_error_clear(err);
	if (removed != NULL)
		*removed = NULL;
	if (found == NULL)
		return util_fail_oom(err, id);
	rc = install_datadir_open(data_dir, 0, &dd, err);
	if (rc != 0 && ps_error_is(err, PS_CODE_NOT_FOUND)) {
		util_refuse(err, "not_installed", id, "the data directory %s does "
		    "not exist", data_dir);
		util_error_expect(err, "an installed pack", "none");
	}
	if (rc == 0)
		rc = install_datadir_lock(&dd, NULL, NULL, err) != 0 ||
		    install_datadir_clean(&dd, err) != 0 ||
		    install_find(&dd, format, id, version, found, err) != 0 ||
		    remove_all(&dd, found, err) != 0 ? -1 : 0;
	install_datadir_close(&dd);
	if (rc == 0 && removed != NULL)
		*removed = found;
	else
		ps_installed_list_free(found);
	return rc;
}
