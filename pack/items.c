#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/format.h"
#include "pack/items.h"
#include "util/error.h"
#include "util/pathname.h"
#include "util/sha256.h"

void
pack_items_free(pack_items *list)
{
	size_t i;

	for (i = 0; i < list->count; i++) {
		free(list->items[i].entry.path);
		free(list->items[i].source);
	}
	free(list->items);
	memset(list, 0, sizeof(*list));
}

pack_item *
pack_items_add(pack_items *list, char *path, ps_entry_type type, ps_error *err)
{
	pack_item *items, *item;
	size_t capacity;

	if (list->count >= PACK_ITEMS_MAX) {
		free(path);
		util_refuse(err, "too_many_entries", NULL,
		    "a pack holds at most %d entries", PACK_ITEMS_MAX);
		return NULL;
	}
	if (list->name_bytes + strlen(path) + 1 > PACK_NAME_BYTES_MAX) {
		free(path);
		util_refuse(err, "names_too_large", NULL, "a pack's paths hold "
		    "at most %llu bytes in all", PACK_NAME_BYTES_MAX);
		return NULL;
	}
	if (list->count == list->capacity) {
		capacity = list->capacity == 0 ? 64 : list->capacity * 2;
		items = realloc(list->items, capacity * sizeof(*items));
		if (items == NULL) {
			free(path);
			util_fail_oom(err, NULL);
			return NULL;
		}
		list->items = items;
		list->capacity = capacity;
	}
	item = &list->items[list->count++];
	list->name_bytes += strlen(path) + 1;
	memset(item, 0, sizeof(*item));
	item->entry.path = path;
	item->entry.type = type;
	return item;
}

static int
compare_items(const void *a, const void *b)
{
	return strcmp(((const pack_item *)a)->entry.path,
	    ((const pack_item *)b)->entry.path);
}

int
pack_items_merge(pack_items *list, pack_items *more, ps_error *err)
{
	pack_item *all;
	size_t i = 0, j = 0, k = 0, count = list->count + more->count;

	if (count > PACK_ITEMS_MAX)
		return util_refuse(err, "too_many_entries", NULL,
		    "a pack holds at most %d entries", PACK_ITEMS_MAX);
	if (list->name_bytes + more->name_bytes > PACK_NAME_BYTES_MAX)
		return util_refuse(err, "names_too_large", NULL, "a pack's paths "
		    "hold at most %llu bytes in all", PACK_NAME_BYTES_MAX);
	if (more->count == 0)
		return 0;
	all = malloc(count * sizeof(*all));
	if (all == NULL)
		return util_fail_oom(err, NULL);
	while (i < list->count || j < more->count) {
		if (j == more->count || (i < list->count &&
		    compare_items(&list->items[i], &more->items[j]) <= 0))
			all[k++] = list->items[i++];
		else
			all[k++] = more->items[j++];
	}
	free(list->items);
	free(more->items);
	list->name_bytes += more->name_bytes;
	memset(more, 0, sizeof(*more));
	list->items = all;
	list->count = list->capacity = count;
	return 0;
}

void
pack_items_sort(pack_items *list)
{
	if (list->count > 1)
		qsort(list->items, list->count, sizeof(pack_item), compare_items);
}

/* First index whose path is >= key (bytewise). */
static size_t
lower_bound(const pack_items *list, const char *key)
{
	size_t lo = 0, hi = list->count, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(list->items[mid].entry.path, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

long
pack_items_find(const pack_items *list, const char *path)
{
	size_t i = lower_bound(list, path);

	if (i < list->count && strcmp(list->items[i].entry.path, path) == 0)
		return (long)i;
	return -1;
}

/* 1 when `path` starts with the directory prefix[0..len) and a '/'. */
static int
is_below(const char *path, const char *prefix, size_t len)
{
	return strncmp(path, prefix, len) == 0 && path[len] == '/';
}

size_t
pack_items_implied_dirs(const pack_items *list)
{
	const char *path, *slash, *previous = NULL;
	char buf[UTIL_PATH_MAX + 1];
	size_t i, n = 0, len;

	/* Sorted, the paths below a directory are contiguous: a prefix is
	 * new exactly when the path before is not below it. */
	for (i = 0; i < list->count; previous = path, i++) {
		path = list->items[i].entry.path;
		for (slash = strchr(path, '/'); slash != NULL;
		    slash = strchr(slash + 1, '/')) {
			len = (size_t)(slash - path);
			if ((previous != NULL && is_below(previous, path, len)) ||
			    len > UTIL_PATH_MAX)
				continue;
			memcpy(buf, path, len);
			buf[len] = '\0';
			if (pack_items_find(list, buf) < 0)
				n++;
		}
	}
	return n;
}

int
pack_items_is_empty_dir(const pack_items *list, size_t i)
{
	const char *path = list->items[i].entry.path;
	size_t len = strlen(path);

	if (list->items[i].entry.type != PS_ENTRY_DIR)
		return 0;
	/* Entries below `path` sort after it, before anything >= "path0". */
	for (i++; i < list->count; i++) {
		const char *next = list->items[i].entry.path;

		if (strncmp(next, path, len) != 0 || next[len] > '/')
			return 1;
		if (next[len] == '/')
			return 0;
	}
	return 1;
}

/*
 * The name check: duplicates, a file that is also a directory (through
 * implied ancestors too), and names that collide once case is folded
 * (they would overwrite each other on macOS and Windows), also through
 * ancestors ("Docs/x" against "docs/y").  Ancestors are never copied:
 * memory is the entries' fold strings and one pointer pair each, linear in
 * the entries and their path bytes (issue 17: copying every ancestor an
 * entry did not share with its neighbour took 1.6 GB for 12,000 paths 64
 * levels deep).
 */
static int
refuse_pair(ps_error *err, const char *code, const char *label,
    const char *what, const char *a, const char *b, const char **pair)
{
	if (pair != NULL) {
		pair[0] = a;
		pair[1] = b;
	}
	if (strcmp(a, b) > 0) {
		const char *t = a;

		a = b;
		b = t;
	}
	util_refuse(err, code, label, "%s: '%s' and '%s'", what, a, b);
	return -1;
}

/* The first entry at or after `key` starts with `key` + "/": the entry
 * `key` names is then also a directory.  NULL when none does. */
static const char *
first_below(const pack_items *list, const char *path)
{
	char key[UTIL_PATH_MAX + 2];
	size_t len = strlen(path), i;

	if (len + 1 >= sizeof(key))
		return NULL;
	memcpy(key, path, len);
	key[len] = '/';
	key[len + 1] = '\0';
	i = lower_bound(list, key);
	if (i < list->count &&
	    strncmp(list->items[i].entry.path, key, len + 1) == 0)
		return list->items[i].entry.path;
	return NULL;
}

/* Exact names: the list is sorted bytewise. */
static int
check_raw(const pack_items *list, const char *label, const char **pair,
    ps_error *err)
{
	const char *path, *below;
	size_t i;

	for (i = 0; i < list->count; i++) {
		path = list->items[i].entry.path;
		if (i > 0 && strcmp(list->items[i - 1].entry.path, path) == 0)
			return refuse_pair(err, "duplicate_entry", label,
			    "the same path appears twice", list->items[i - 1].entry.path,
			    path, pair);
		if (list->items[i].entry.type == PS_ENTRY_FILE &&
		    (below = first_below(list, path)) != NULL)
			return refuse_pair(err, "path_conflict", label,
			    "a path is both a file and a directory", path, below, pair);
	}
	return 0;
}

/* ASCII without capitals: its case fold is itself. */
static int
folds_to_itself(const char *path)
{
	const unsigned char *p;

	for (p = (const unsigned char *)path; *p != '\0'; p++) {
		if (*p >= 0x80 || (*p >= 'A' && *p <= 'Z'))
			return 0;
	}
	return 1;
}

struct folded {
	const char *path;
	const char *fold;       /* owned when it is not `path` */
};

struct candidates {
	struct folded *items;
	size_t count, capacity;
};

static int
add_candidate(struct candidates *c, const char *path, const char *fold)
{
	struct folded *grown;
	size_t capacity;

	if (c->count == c->capacity) {
		capacity = c->capacity == 0 ? 64 : c->capacity * 2;
		grown = realloc(c->items, capacity * sizeof(*grown));
		if (grown == NULL)
			return -1;
		c->items = grown;
		c->capacity = capacity;
	}
	c->items[c->count++] = (struct folded){ path, fold };
	return 0;
}

static void
candidates_free(struct candidates *c)
{
	size_t i;

	for (i = 0; i < c->count; i++) {
		if (c->items[i].fold != c->items[i].path)
			free((char *)c->items[i].fold);
	}
	free(c->items);
}

/* An entry whose raw path is `fold`'s first `len` bytes, or lies below
 * them: a name that folds to itself and may meet a folded one. */
static const char *
entry_at_prefix(const pack_items *list, const char *fold, size_t len)
{
	char key[UTIL_PATH_MAX + 1];
	const char *p;
	size_t i;

	if (len >= sizeof(key))
		return NULL;
	memcpy(key, fold, len);
	key[len] = '\0';
	i = lower_bound(list, key);
	if (i >= list->count)
		return NULL;
	p = list->items[i].entry.path;
	return strncmp(p, key, len) == 0 && (p[len] == '\0' || p[len] == '/') ?
	    p : NULL;
}

/* A folded name, and for each of its ancestors (and itself) one entry
 * whose raw prefix is that fold, if any: enough that every collision has
 * its two names next to each other once sorted by fold. */
static int
add_folded(struct candidates *c, const pack_items *list, const char *path)
{
	char *fold = util_path_fold(path);
	const char *other;
	size_t i, len;

	if (fold == NULL || add_candidate(c, path, fold) != 0) {
		free(fold);
		return -1;
	}
	len = strlen(fold);
	for (i = 1; i <= len; i++) {
		if (i < len && fold[i] != '/')
			continue;
		other = entry_at_prefix(list, fold, i);
		if (other != NULL && folds_to_itself(other) &&
		    add_candidate(c, other, other) != 0)
			return -1;
	}
	return 0;
}

/* Fold order, '/' first (a directory's names follow it), then raw. */
static int
by_fold(const void *a, const void *b)
{
	const struct folded *x = a, *y = b;
	int c = pack_depth_first_compare(x->fold, y->fold);

	return c != 0 ? c : strcmp(x->path, y->path);
}

/* Bytes of `path` holding its first `components` components. */
static size_t
components_len(const char *path, size_t components)
{
	const char *p = path;

	while (components-- > 0 && (p = strchr(p, '/')) != NULL)
		p++;
	return p == NULL ? strlen(path) : (size_t)(p - path - 1);
}

static int
is_boundary(char c)
{
	return c == '/' || c == '\0';
}

/* Two names next to each other in fold order collide when their folds
 * share a leading run of whole components whose raw spelling differs. */
static int
collide(const struct folded *a, const struct folded *b)
{
	size_t i, comps = 0, ra, rb;

	for (i = 0; a->fold[i] == b->fold[i]; i++) {
		if (is_boundary(a->fold[i]))
			comps++;
		if (a->fold[i] == '\0')
			break;
	}
	/* "docs" against "docs/x": a boundary of both where they part. */
	if (a->fold[i] != b->fold[i] && is_boundary(a->fold[i]) &&
	    is_boundary(b->fold[i]))
		comps++;
	if (comps == 0)
		return 0;
	ra = components_len(a->path, comps);
	rb = components_len(b->path, comps);
	return ra != rb || memcmp(a->path, b->path, ra) != 0;
}

static int
check_folds(const pack_items *list, const char *label, const char **pair,
    ps_error *err)
{
	struct candidates c = { NULL, 0, 0 };
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < list->count; i++) {
		if (!folds_to_itself(list->items[i].entry.path))
			rc = add_folded(&c, list, list->items[i].entry.path);
	}
	if (rc != 0) {
		candidates_free(&c);
		return util_fail_oom(err, NULL);
	}
	if (c.count > 1)
		qsort(c.items, c.count, sizeof(*c.items), by_fold);
	for (i = 1; rc == 0 && i < c.count; i++) {
		if (strcmp(c.items[i - 1].path, c.items[i].path) != 0 &&
		    collide(&c.items[i - 1], &c.items[i]))
			rc = refuse_pair(err, "case_collision", label,
			    "two paths collide when case is folded (they would "
			    "overwrite each other on macOS and Windows)",
			    c.items[i - 1].path, c.items[i].path, pair);
	}
	candidates_free(&c);
	return rc;
}

int
pack_items_check_pair(const pack_items *list, const char *label,
    const char **pair, ps_error *err)
{
	if (check_raw(list, label, pair, err) != 0)
		return -1;
	return check_folds(list, label, pair, err);
}

int
pack_items_check(const pack_items *list, const char *label, ps_error *err)
{
	return pack_items_check_pair(list, label, NULL, err);
}

static int
hash_item_line(util_sha256 *ctx, const ps_entry *e)
{
	char hex[PS_SHA256_HEX_LEN + 1], head[128];
	int n;

	if (e->type == PS_ENTRY_DIR)
		n = snprintf(head, sizeof(head), "d ");
	else {
		ps_hex_encode(e->sha256, PS_SHA256_LEN, hex);
		n = snprintf(head, sizeof(head), "f %c %" PRIu64 " %s ",
		    e->executable ? 'x' : '-', e->size, hex);
	}
	if (util_sha256_update(ctx, head, (size_t)n) != 0 ||
	    util_sha256_update(ctx, e->path, strlen(e->path)) != 0 ||
	    util_sha256_update(ctx, "\n", 1) != 0)
		return -1;
	return 0;
}

int
pack_items_tree_digest(const pack_items *list, unsigned char out[PS_SHA256_LEN],
    ps_error *err)
{
	static const char header[] = "packsign-tree-v1\n";
	util_sha256 *ctx = util_sha256_new();
	size_t i;
	int rc = 0;

	if (ctx == NULL)
		return util_fail(err, "crypto_error", NULL, "cannot start SHA-256");
	rc = util_sha256_update(ctx, header, sizeof(header) - 1);
	for (i = 0; rc == 0 && i < list->count; i++) {
		if (list->items[i].entry.type == PS_ENTRY_DIR &&
		    !pack_items_is_empty_dir(list, i))
			continue;
		rc = hash_item_line(ctx, &list->items[i].entry);
	}
	if (rc == 0)
		rc = util_sha256_final(ctx, out);
	util_sha256_free(ctx);
	if (rc != 0)
		return util_fail(err, "crypto_error", NULL, "SHA-256 failed");
	return 0;
}

/* The entries into a new digest: moved out of `list` (left empty), or
 * copied when `keep`. */
ps_digest *
pack_items_copy_to_digest(const pack_items *list, ps_error *err)
{
	ps_digest *d = calloc(1, sizeof(*d));
	size_t i;

	if (d == NULL || (list->count > 0 &&
	    (d->entries = calloc(list->count, sizeof(ps_entry))) == NULL)) {
		free(d);
		util_fail_oom(err, NULL);
		return NULL;
	}
	for (i = 0; i < list->count; i++) {
		d->entries[i] = list->items[i].entry;
		d->entry_count = i;
		if ((d->entries[i].path = strdup(d->entries[i].path)) == NULL) {
			ps_digest_free(d);
			util_fail_oom(err, NULL);
			return NULL;
		}
		if (d->entries[i].type == PS_ENTRY_FILE)
			d->total_size += d->entries[i].size;
	}
	d->entry_count = list->count;
	return d;
}

/*
 * The entries move down in the items' own array, which then shrinks: a
 * million entries need no second array beside the first.  Entry i lands
 * below item i + 1 (a ps_entry is smaller than a pack_item), so each item
 * is read before anything overwrites it.
 */
ps_digest *
pack_items_to_digest(pack_items *list, ps_error *err)
{
	ps_digest *d = calloc(1, sizeof(*d));
	ps_entry *entries = (ps_entry *)(void *)list->items, *shrunk;
	ps_entry entry;
	size_t i;

	if (d == NULL) {
		util_fail_oom(err, NULL);
		return NULL;
	}
	for (i = 0; i < list->count; i++) {
		entry = list->items[i].entry;
		free(list->items[i].source);
		entries[i] = entry;
		if (entry.type == PS_ENTRY_FILE)
			d->total_size += entry.size;
	}
	d->entry_count = list->count;
	shrunk = list->count > 0 ? realloc(entries, list->count *
	    sizeof(ps_entry)) : NULL;
	d->entries = shrunk != NULL ? shrunk : entries;
	if (list->count == 0) {
		free(entries);
		d->entries = NULL;
	}
	memset(list, 0, sizeof(*list));
	return d;
}

int
pack_items_find_manifest(const pack_items *list, const char *label,
    size_t *index, ps_format *format, ps_error *err)
{
	const formats_descriptor *d;
	char want[PS_ERROR_VALUE_MAX];
	const char *found = NULL, *name;
	long at;
	size_t i;

	for (i = 0; (d = formats_at(i)) != NULL; i++) {
		name = d->manifest;
		at = pack_items_find(list, name);
		if (at < 0)
			continue;
		if (found != NULL)
			return refuse_pair(err, "manifest_conflict", label,
			    "two manifests at the pack root", found, name, NULL);
		if (list->items[at].entry.type != PS_ENTRY_FILE)
			return util_refuse(err, "manifest_not_file", label,
			    "%s is a directory, not a manifest file", name);
		found = name;
		*index = (size_t)at;
		*format = d->format;
	}
	if (found == NULL) {
		util_refuse(err, "manifest_missing", label,
		    "no manifest at the pack root");
		return util_error_expect(err, formats_manifest_names(want,
		    sizeof(want), "one of "), "none");
	}
	return 0;
}

ps_digest *
pack_digest_set_manifest(ps_digest *d, size_t manifest, ps_error *err)
{
	d->manifest_path = strdup(d->entries[manifest].path);
	if (d->manifest_path == NULL) {
		ps_digest_free(d);
		util_fail_oom(err, NULL);
		return NULL;
	}
	memcpy(d->manifest_sha256, d->entries[manifest].sha256, PS_SHA256_LEN);
	return d;
}

/* 1 when some entry lies below directory `i`.  Entries are in bytewise
 * order, where "a-b" sorts between "a" and "a/c": search for "a/". */
int
pack_digest_has_children(const ps_digest *d, size_t i)
{
	const char *dir = d->entries[i].path;
	size_t len = strlen(dir), lo = i + 1, hi = d->entry_count, mid;
	const char *p;

	while (lo < hi) {           /* first entry not below "dir/" */
		mid = lo + (hi - lo) / 2;
		p = d->entries[mid].path;
		if (strncmp(p, dir, len) < 0 ||
		    (strncmp(p, dir, len) == 0 && (unsigned char)p[len] < '/'))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->entry_count &&
	    strncmp(d->entries[lo].path, dir, len) == 0 &&
	    d->entries[lo].path[len] == '/';
}

void
pack_sort_unless_ordered(void *base, size_t count, size_t size,
    int (*cmp)(const void *, const void *))
{
	const char *p = base;
	size_t i;

	for (i = 1; i < count; i++) {
		if (cmp(p + (i - 1) * size, p + i * size) > 0) {
			qsort(base, count, size, cmp);
			return;
		}
	}
}

int
pack_depth_first_compare(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a;
	const unsigned char *y = (const unsigned char *)b;
	int cx, cy;

	/* '/' sorts before every other byte: a directory's entries come
	 * right after it, before a sibling whose name extends its own. */
	for (;; x++, y++) {
		cx = *x == '/' ? 1 : *x;
		cy = *y == '/' ? 1 : *y;
		if (cx != cy || *x == '\0')
			return cx - cy;
	}
}
