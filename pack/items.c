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
 * Every name a pack implies: its entries and all their ancestors, which
 * extraction creates as directories whether or not they are entries.
 */
struct name {
	const char *path;
	const char *origin;  /* the entry this name comes from */
	char *owned;         /* ancestors: the prefix, allocated here */
	char *key;           /* case-folded path */
	ps_entry_type type;
	int implied;         /* an ancestor that is not an entry */
};

struct names {
	struct name *items;
	size_t count;
	size_t capacity;
};

static void
names_free(struct names *n)
{
	size_t i;

	for (i = 0; i < n->count; i++) {
		free(n->items[i].owned);
		free(n->items[i].key);
	}
	free(n->items);
}

static int
names_add(struct names *n, const char *path, const char *origin, char *owned,
    ps_entry_type type, ps_error *err)
{
	struct name *items;
	size_t capacity;

	if (n->count == n->capacity) {
		capacity = n->capacity == 0 ? 256 : n->capacity * 2;
		items = realloc(n->items, capacity * sizeof(*items));
		if (items == NULL) {
			free(owned);
			return util_fail_oom(err, NULL);
		}
		n->items = items;
		n->capacity = capacity;
	}
	n->items[n->count++] = (struct name){ path, origin, owned, NULL, type,
	    owned != NULL };
	return 0;
}

/* The entry itself, then each ancestor not already added just before. */
static int
add_entry_names(struct names *n, const ps_entry *e, const char *previous,
    ps_error *err)
{
	const char *slash;
	char *prefix;
	size_t len;

	if (names_add(n, e->path, e->path, NULL, e->type, err) != 0)
		return -1;
	for (slash = strchr(e->path, '/'); slash != NULL;
	    slash = strchr(slash + 1, '/')) {
		len = (size_t)(slash - e->path);
		/* Sorted entries share ancestors with their predecessor. */
		if (previous != NULL && strncmp(previous, e->path, len + 1) == 0)
			continue;
		prefix = strndup(e->path, len);
		if (prefix == NULL)
			return util_fail_oom(err, NULL);
		if (names_add(n, prefix, e->path, prefix, PS_ENTRY_DIR, err) != 0)
			return -1;
	}
	return 0;
}

static int
by_path(const void *a, const void *b)
{
	const struct name *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c != 0 ? c : x->implied - y->implied;
}

static int
refuse_pair(ps_error *err, const char *code, const char *label,
    const char *what, const char *a, const char *b)
{
	util_refuse(err, code, label, "%s: '%s' and '%s'", what, a, b);
	return -1;
}

/* Same path twice: a duplicate, or a file that is also a directory. */
static int
check_same_path(const struct name *a, const struct name *b,
    const char *label, ps_error *err)
{
	if (!a->implied && !b->implied)
		return refuse_pair(err, "duplicate_entry", label,
		    "the same path appears twice", a->path, b->path);
	if (a->type == PS_ENTRY_FILE || b->type == PS_ENTRY_FILE)
		return refuse_pair(err, "path_conflict", label,
		    "a path is both a file and a directory", a->origin,
		    b->origin);
	return 0;
}

/* Items from `from` on move down to `to`: slots in between are stale copies
 * or freed repeats, and must not be released a second time. */
static void
close_gap(struct names *n, size_t to, size_t from)
{
	memmove(&n->items[to], &n->items[from],
	    (n->count - from) * sizeof(*n->items));
	n->count -= from - to;
}

/* Sorted by path: drops repeated ancestors, refuses real clashes. */
static int
dedupe(struct names *n, const char *label, ps_error *err)
{
	size_t i, kept = 0;

	if (n->count < 2)       /* an empty archive: items is NULL */
		return 0;
	qsort(n->items, n->count, sizeof(struct name), by_path);
	for (i = 0; i < n->count; i++) {
		if (kept > 0 && strcmp(n->items[kept - 1].path,
		    n->items[i].path) == 0) {
			if (check_same_path(&n->items[kept - 1], &n->items[i],
			    label, err) != 0) {
				close_gap(n, kept, i);
				return -1;
			}
			free(n->items[i].owned);
			continue;
		}
		n->items[kept++] = n->items[i];
	}
	n->count = kept;
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

static const char *
fold_of(const struct name *x)
{
	return x->key != NULL ? x->key : x->path;
}

/* By fold, then by path: a collision's names in path order. */
static int
by_fold(const void *a, const void *b)
{
	const struct name *x = *(const struct name *const *)a;
	const struct name *y = *(const struct name *const *)b;
	int c = strcmp(fold_of(x), fold_of(y));

	return c != 0 ? c : strcmp(x->path, y->path);
}

static int
path_of_name(const void *path, const void *name)
{
	return strcmp(path, ((const struct name *)name)->path);
}

/*
 * The names that can collide: every name that may fold to something else
 * (capitals, non-ASCII), and each name its fold equals.  Two names whose
 * folds are themselves cannot collide (paths are unique by now), so the
 * common all-lowercase tree costs one scan instead of a fold and a sort
 * of every name (issue 8).
 */
static int
collect_candidates(struct names *n, struct name ***out, size_t *count,
    ps_error *err)
{
	struct name **c, *same;
	size_t i, k = 0, folding;

	*out = NULL;
	*count = 0;
	for (i = 0; i < n->count; i++) {
		if (folds_to_itself(n->items[i].path))
			continue;
		n->items[i].key = util_path_fold(n->items[i].path);
		if (n->items[i].key == NULL)
			return util_fail_oom(err, NULL);
		k++;
	}
	if (k == 0)
		return 0;
	c = calloc(2 * k, sizeof(*c));
	if (c == NULL)
		return util_fail_oom(err, NULL);
	for (i = 0, folding = 0; i < n->count; i++) {
		if (n->items[i].key != NULL)
			c[folding++] = &n->items[i];
	}
	for (i = 0, k = folding; i < folding; i++) {
		same = bsearch(c[i]->key, n->items, n->count, sizeof(*n->items),
		    path_of_name);
		if (same != NULL && same->key == NULL)
			c[k++] = same;
	}
	*out = c;
	*count = k;
	return 0;
}

static int
check_folded(struct names *n, const char *label, ps_error *err)
{
	struct name **c;
	size_t i, count;
	int rc = 0;

	if (collect_candidates(n, &c, &count, err) != 0)
		return -1;
	if (count > 1)
		qsort(c, count, sizeof(*c), by_fold);
	for (i = 1; rc == 0 && i < count; i++) {
		/* A name some folds equal is listed once per such fold. */
		if (c[i] != c[i - 1] && strcmp(fold_of(c[i - 1]),
		    fold_of(c[i])) == 0)
			rc = refuse_pair(err, "case_collision", label,
			    "two paths collide when case is folded (they would "
			    "overwrite each other on macOS and Windows)",
			    c[i - 1]->origin, c[i]->origin);
	}
	free(c);
	return rc;
}

int
pack_items_check(const pack_items *list, const char *label, ps_error *err)
{
	struct names n = { NULL, 0, 0 };
	const char *previous = NULL;
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < list->count; i++) {
		rc = add_entry_names(&n, &list->items[i].entry, previous, err);
		previous = list->items[i].entry.path;
	}
	if (rc == 0)
		rc = dedupe(&n, label, err);
	if (rc == 0)
		rc = check_folded(&n, label, err);
	names_free(&n);
	return rc;
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
static ps_digest *
to_digest(pack_items *list, int keep, ps_error *err)
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
		if (!keep)
			list->items[i].entry.path = NULL;
		else if ((d->entries[i].path = strdup(d->entries[i].path)) ==
		    NULL) {
			d->entry_count = i;
			ps_digest_free(d);
			util_fail_oom(err, NULL);
			return NULL;
		}
		if (d->entries[i].type == PS_ENTRY_FILE)
			d->total_size += d->entries[i].size;
	}
	d->entry_count = list->count;
	if (!keep)
		pack_items_free(list);
	return d;
}

ps_digest *
pack_items_to_digest(pack_items *list, ps_error *err)
{
	return to_digest(list, 0, err);
}

ps_digest *
pack_items_copy_to_digest(const pack_items *list, ps_error *err)
{
	return to_digest((pack_items *)list, 1, err);
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
			    "two manifests at the pack root", found, name);
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
