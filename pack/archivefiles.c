/*
 * ps_pack_files over an archive: the archive is read once (every entry
 * checked and hashed as for its digests) and the small files the
 * validators read are kept in memory; nothing is extracted to disk.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pack/archive.h"
#include "pack/items.h"
#include "util/error.h"

/*
 * What stays in memory for the validators, which read the manifest and the
 * YAML files it names, and the first bytes of any file.  Files named like
 * YAML or JSON are kept first; other small files fill a smaller budget, so
 * 100,000 small files cost tens of MiB, not their size (issue 8).
 */
#define KEEP_FILE_MAX (4 * 1024 * 1024)   /* larger files keep their head */
#define KEEP_STRUCTURED_MAX (24 * 1024 * 1024)
#define KEEP_OTHER_MAX (8 * 1024 * 1024)
#define HEAD_MAX 16

struct kept {
	const char *path;         /* the reader's while it streams, then the
	                           * view's `names` */
	uint64_t size;
	unsigned char *data;      /* whole content, or NULL */
	size_t len;
	unsigned char head[HEAD_MAX];
	size_t head_len;
};

/*
 * A name the pack holds: an entry, or a directory its paths imply.  An
 * implied directory is a prefix of an entry's path in `names`, so a pack
 * of deep, disjoint paths costs a node per directory and no copy of its
 * path: 24 bytes, however long the path (a .tar.gz of 12,000 files 64
 * levels deep implies 756,000 directories).
 */
struct node {
	const char *path;          /* not NUL-terminated at `len` */
	uint32_t len;
	ps_entry_type type;
	uint64_t size;
};

struct view {
	struct kept *files;       /* depth first once the archive is read */
	size_t count, capacity;
	size_t kept_structured, kept_other;
	struct kept *current;     /* the file being streamed */
	struct node *nodes;       /* depth-first order */
	size_t node_count;
	char *names;              /* every entry's path, NUL after each */
	char *name_buffer;        /* room for the longest path, NUL included */
	/* While view_list runs: the node it just handed over and, for a file,
	 * its kept file (files and file nodes share one order), so that the
	 * validators reading what they are listed find it without a search. */
	const struct node *listed;
	const struct kept *listed_kept;
	int (*want_hash)(void *ctx, const char *path);
	void *want_ctx;
	const pack_archive_visitor *also;  /* sees the stream first (extraction) */
	ps_pack_files fallback;          /* reads what was not kept, or zeroed */
};

static int
view_want_hash(void *ctx, const char *path)
{
	const struct view *v = ctx;

	return v->want_hash(v->want_ctx, path);
}

static void
view_free(void *ctx)
{
	struct view *v = ctx;
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < v->count; i++)
		free(v->files[i].data);
	free(v->files);
	free(v->nodes);
	free(v->names);
	free(v->name_buffer);
	ps_pack_files_close(&v->fallback);
	free(v);
}

static int
is_structured(const char *path)
{
	static const char *const suffixes[] = { ".yaml", ".yml", ".json" };
	size_t n = strlen(path), m, i;

	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		m = strlen(suffixes[i]);
		if (n >= m && strcmp(path + n - m, suffixes[i]) == 0)
			return 1;
	}
	return 0;
}

/* The budget a file of `size` bytes would be kept in, or NULL. */
static size_t *
keep_budget(struct view *v, const char *path, uint64_t size)
{
	size_t *used = is_structured(path) ? &v->kept_structured :
	    &v->kept_other;
	size_t max = used == &v->kept_structured ? KEEP_STRUCTURED_MAX :
	    KEEP_OTHER_MAX;

	/* With a tree to read back from, only the heads stay in memory. */
	if (v->fallback.read != NULL || size > KEEP_FILE_MAX ||
	    *used + size > max)
		return NULL;
	return used;
}

static int
also_file(void *ctx, const ps_entry *entry, ps_error *err)
{
	const struct view *v = ctx;

	return v->also == NULL ? 0 : v->also->file(v->also->ctx, entry, err);
}

static int
also_data(void *ctx, const void *buf, size_t len, ps_error *err)
{
	const struct view *v = ctx;

	return v->also == NULL ? 0 : v->also->data(v->also->ctx, buf, len, err);
}

static int
also_dir(void *ctx, const char *path, ps_error *err)
{
	const struct view *v = ctx;

	if (v->also == NULL || v->also->dir == NULL)
		return 0;
	return v->also->dir(v->also->ctx, path, err);
}

static int
on_file(void *ctx, const ps_entry *entry, ps_error *err)
{
	const char *path = entry->path;
	uint64_t size = entry->size;
	struct view *v = ctx;
	struct kept *files, *k;
	size_t capacity, *budget;

	if (also_file(ctx, entry, err) != 0)
		return -1;
	if (v->count == v->capacity) {
		capacity = v->capacity == 0 ? 64 : v->capacity * 2;
		files = realloc(v->files, capacity * sizeof(*files));
		if (files == NULL)
			return util_fail_oom(err, path);
		v->files = files;
		v->capacity = capacity;
	}
	k = &v->files[v->count];
	memset(k, 0, sizeof(*k));
	k->size = size;
	k->path = path;           /* lasts as long as the reader's digest */
	budget = keep_budget(v, path, size);
	if (budget != NULL && (k->data = malloc((size_t)size + 1)) == NULL)
		return util_fail_oom(err, path);
	if (budget != NULL)
		*budget += (size_t)size;
	v->current = k;
	v->count++;
	return 0;
}

static int
on_data(void *ctx, const void *buf, size_t len, ps_error *err)
{
	struct kept *k = ((struct view *)ctx)->current;
	size_t take;

	if (also_data(ctx, buf, len, err) != 0)
		return -1;
	/* libarchive hands an empty zip entry over as (NULL, 0), and memcpy
	 * from NULL is undefined even for 0 bytes. */
	if (len == 0)
		return 0;
	if (k->head_len < HEAD_MAX) {
		take = len < HEAD_MAX - k->head_len ? len : HEAD_MAX - k->head_len;
		memcpy(k->head + k->head_len, buf, take);
		k->head_len += take;
	}
	(void)err;
	if (k->data == NULL)
		return 0;
	if (k->len + len > k->size) {
		/* The reader refuses the size mismatch; stop keeping it. */
		free(k->data);
		k->data = NULL;
		return 0;
	}
	memcpy(k->data + k->len, buf, len);
	k->len += len;
	return 0;
}

/* Depth first, names in bytewise order within a directory: '/' sorts
 * before every byte a name may hold, and the end before '/'. */
static int
node_compare(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t i;
	int ca, cb;

	for (i = 0;; i++) {
		ca = i == alen ? 0 : a[i] == '/' ? 1 : (unsigned char)a[i];
		cb = i == blen ? 0 : b[i] == '/' ? 1 : (unsigned char)b[i];
		if (ca != cb || ca == 0)
			return ca - cb;
	}
}

static int
depth_first(const void *a, const void *b)
{
	const struct node *x = a, *y = b;

	return node_compare(x->path, x->len, y->path, y->len);
}

static int
by_path(const void *a, const void *b)
{
	return strcmp(((const struct kept *)a)->path,
	    ((const struct kept *)b)->path);
}

static int
kept_depth_first(const void *a, const void *b)
{
	const char *x = ((const struct kept *)a)->path;
	const char *y = ((const struct kept *)b)->path;

	return node_compare(x, strlen(x), y, strlen(y));
}

/* Every entry's path, once, in one allocation the nodes and the kept
 * files (sorted by path, as the digest's entries are) point into. */
static int
copy_names(struct view *v, const ps_digest *d, ps_error *err)
{
	size_t total = 0, longest = 0, len, i, k = 0;
	char *at;

	for (i = 0; i < d->entry_count; i++) {
		len = strlen(d->entries[i].path);
		if (len > UINT32_MAX)
			return util_fail(err, "internal_error", d->entries[i].path,
			    "a path longer than 4 GiB");
		longest = len > longest ? len : longest;
		total += len + 1;
	}
	v->names = malloc(total + 1);
	v->name_buffer = malloc(longest + 1);
	if (v->names == NULL || v->name_buffer == NULL)
		return util_fail_oom(err, NULL);
	for (i = 0, at = v->names; i < d->entry_count; i++) {
		len = strlen(d->entries[i].path);
		memcpy(at, d->entries[i].path, len + 1);
		if (k < v->count && v->files[k].path == d->entries[i].path)
			v->files[k++].path = at;
		at += len + 1;
	}
	if (k != v->count)
		return util_fail(err, "internal_error", NULL, "%zu files kept, "
		    "%zu found among the archive's entries", v->count, k);
	/* into the nodes' order: one comparison per file when the bytewise
	 * order already is depth first, as in most packs */
	pack_sort_unless_ordered(v->files, v->count, sizeof(struct kept),
	    kept_depth_first);
	return 0;
}

/* 1 when `previous` is the directory path[0..len) or lies below it. */
static int
shares_directory(const char *previous, const char *path, size_t len)
{
	return strncmp(previous, path, len) == 0 &&
	    (previous[len] == '\0' || previous[len] == '/');
}

/*
 * The entries (sorted depth first) with each directory they imply before
 * its first entry, into `out` (NULL: only counted).  Depth first, the
 * names below a directory are contiguous, so an ancestor is new exactly
 * when the entry before does not share it, and the result is in order.
 */
static size_t
imply_directories(const struct node *entries, size_t count, struct node *out)
{
	const char *slash, *path, *previous = NULL;
	size_t n = 0, i, len;

	for (i = 0; i < count; i++) {
		path = entries[i].path;
		for (slash = strchr(path, '/'); slash != NULL;
		    slash = strchr(slash + 1, '/')) {
			len = (size_t)(slash - path);
			if (previous != NULL && shares_directory(previous, path, len))
				continue;
			if (out != NULL)
				out[n] = (struct node){ path, (uint32_t)len,
				    PS_ENTRY_DIR, 0 };
			n++;
		}
		if (out != NULL)
			out[n] = entries[i];
		n++;
		previous = path;
	}
	return n;
}

/* Entries and the directories they imply, once each, depth first; the
 * node array is counted first and allocated once, and only the entries
 * are sorted. */
static int
build_nodes(struct view *v, const ps_digest *d, ps_error *err)
{
	struct node *entries;
	const char *path;
	size_t i;

	if (copy_names(v, d, err) != 0)
		return -1;
	entries = calloc(d->entry_count + 1, sizeof(*entries));
	if (entries == NULL)
		return util_fail_oom(err, NULL);
	for (i = 0, path = v->names; i < d->entry_count;
	    i++, path += strlen(path) + 1)
		entries[i] = (struct node){ path, (uint32_t)strlen(path),
		    d->entries[i].type, d->entries[i].size };
	/* the bytewise order of the digest's entries is most often depth
	 * first already (no name has a byte below '/' where another has a
	 * '/'): one comparison per entry instead of a sort (issue 22) */
	pack_sort_unless_ordered(entries, d->entry_count, sizeof(*entries),
	    depth_first);
	v->node_count = imply_directories(entries, d->entry_count, NULL);
	v->nodes = calloc(v->node_count + 1, sizeof(*v->nodes));
	if (v->nodes == NULL) {
		free(entries);
		return util_fail_oom(err, NULL);
	}
	imply_directories(entries, d->entry_count, v->nodes);
	free(entries);
	return 0;
}

static const struct node *
find_node(const struct view *v, const char *path)
{
	size_t len = strlen(path);
	struct node key = { path, (uint32_t)len, PS_ENTRY_FILE, 0 };

	if (len > UINT32_MAX)
		return NULL;
	return bsearch(&key, v->nodes, v->node_count, sizeof(struct node),
	    depth_first);
}

static const struct kept *
find_kept(const struct view *v, const char *path)
{
	struct kept key;

	memset(&key, 0, sizeof(key));
	key.path = path;
	return bsearch(&key, v->files, v->count, sizeof(struct kept),
	    kept_depth_first);
}

static int
view_stat(void *ctx, const char *path, ps_entry_type *type, uint64_t *size,
    ps_error *err)
{
	const struct node *n = find_node(ctx, path);

	if (n == NULL)
		return util_refuse(err, "pack_path_missing", path,
		    "no such file or directory in the archive");
	*type = n->type;
	*size = n->size;
	return 0;
}

static int
is_listed(const struct view *v, const char *path)
{
	const struct node *n = v->listed;

	return n != NULL && strncmp(path, n->path, n->len) == 0 &&
	    path[n->len] == '\0';
}

static const struct kept *
file_for(const struct view *v, const char *path, ps_error *err)
{
	ps_entry_type type;
	uint64_t size;

	/* The kept file and its node point at the same name in `names`. */
	if (is_listed(v, path) && v->listed_kept != NULL &&
	    v->listed_kept->path == v->listed->path)
		return v->listed_kept;
	if (view_stat((void *)v, path, &type, &size, err) != 0)
		return NULL;
	if (type != PS_ENTRY_FILE) {
		util_refuse(err, "pack_not_file", path, "is a directory");
		return NULL;
	}
	return find_kept(v, path);
}

static int
view_read(void *ctx, const char *path, size_t max, char **data, size_t *len,
    ps_error *err)
{
	const struct view *v = ctx;
	const struct kept *k = file_for(v, path, err);

	if (k == NULL)
		return -1;
	if (k->size > max)
		return util_refuse(err, "pack_file_too_large", path,
		    "file is %llu bytes, the limit is %zu",
		    (unsigned long long)k->size, max);
	if (k->data == NULL || k->len != k->size) {
		if (v->fallback.read != NULL)
			return v->fallback.read(v->fallback.ctx, path, max,
			    data, len, err);
		return util_fail(err, "archive_file_not_kept", path,
		    "the archive holds more small files than packsign keeps in "
		    "memory (%d MiB named .yaml, .yml or .json, %d MiB of "
		    "others, %d MiB each); verify the unpacked directory",
		    KEEP_STRUCTURED_MAX / (1024 * 1024),
		    KEEP_OTHER_MAX / (1024 * 1024), KEEP_FILE_MAX / (1024 * 1024));
	}
	*data = malloc(k->len + 1);
	if (*data == NULL)
		return util_fail_oom(err, path);
	memcpy(*data, k->data, k->len);
	(*data)[k->len] = '\0';
	*len = k->len;
	return 0;
}

static int
view_head(void *ctx, const char *path, unsigned char *buf, size_t n,
    size_t *got, ps_error *err)
{
	const struct view *v = ctx;
	const struct kept *k = file_for(v, path, err);

	if (k == NULL)
		return -1;
	if (n > HEAD_MAX && k->data == NULL && v->fallback.head != NULL)
		return v->fallback.head(v->fallback.ctx, path, buf, n, got, err);
	if (n > HEAD_MAX && k->data != NULL)
		*got = n < k->len ? n : k->len;
	else
		*got = n < k->head_len ? n : k->head_len;
	memcpy(buf, k->data != NULL ? k->data : k->head, *got);
	return 0;
}

static int
view_list(void *ctx, int (*fn)(void *arg, const char *path,
    ps_entry_type type, uint64_t size, ps_error *err), void *arg,
    ps_error *err)
{
	struct view *v = ctx;
	const struct node *n;
	size_t i, files = 0;
	int rc = 0;

	for (i = 0; rc == 0 && i < v->node_count; i++) {
		n = &v->nodes[i];
		memcpy(v->name_buffer, n->path, n->len);
		v->name_buffer[n->len] = '\0';
		v->listed = n;
		v->listed_kept = n->type == PS_ENTRY_FILE && files < v->count ?
		    &v->files[files++] : NULL;
		rc = fn(arg, v->name_buffer, n->type, n->size, err);
	}
	v->listed = NULL;
	v->listed_kept = NULL;
	return rc;
}

int
ps_pack_files_archive_open(const char *path, ps_pack_files *files,
    ps_digest **digest_out, ps_error *err)
{
	pack_archive_open_options o;

	memset(&o, 0, sizeof(o));
	return pack_files_archive_open_with(path, &o, files, digest_out, err);
}

int
ps_pack_files_archive_open_limited(const char *path,
    const ps_extract_limits *limits, ps_pack_files *files,
    ps_digest **digest_out, ps_error *err)
{
	pack_archive_open_options o;

	memset(&o, 0, sizeof(o));
	o.limits = limits;
	return pack_files_archive_open_with(path, &o, files, digest_out, err);
}

static int
read_source(const char *path, const pack_archive_open_options *o,
    const pack_archive_visitor *visitor, ps_digest **d, ps_error *err)
{
	if (o->has_fd)
		return pack_archive_read_fd_chunked(o->fd, o->fd_private,
		    o->fd_private ? o->known_digest : NULL, o->chunks, path, path,
		    visitor, o->limits, d, err);
	return pack_archive_read(path, visitor, o->limits, d, err);
}

int
pack_files_archive_open_with(const char *path,
    const pack_archive_open_options *o, ps_pack_files *files,
    ps_digest **digest_out, ps_error *err)
{
	struct view *v = calloc(1, sizeof(*v));
	pack_archive_visitor visitor = { v, on_file, on_data, also_dir, NULL,
	    o->progress };
	ps_digest *d = NULL;

	memset(files, 0, sizeof(*files));
	if (digest_out != NULL)
		*digest_out = NULL;
	if (v == NULL) {
		if (o->fallback.close != NULL)
			o->fallback.close(o->fallback.ctx);
		return util_fail_oom(err, path);
	}
	v->want_hash = o->want_hash;
	v->want_ctx = o->want_ctx;
	v->also = o->also;
	v->fallback = o->fallback;
	if (o->want_hash != NULL)
		visitor.want_hash = view_want_hash;
	if (read_source(path, o, &visitor, &d, err) != 0) {
		view_free(v);
		return -1;
	}
	if (v->count > 1)
		qsort(v->files, v->count, sizeof(struct kept), by_path);
	if (build_nodes(v, d, err) != 0) {
		ps_digest_free(d);
		view_free(v);
		return -1;
	}
	*files = (ps_pack_files){ v, view_stat, view_read, view_list, view_head,
	    view_free };
	if (digest_out != NULL)
		*digest_out = d;
	else
		ps_digest_free(d);
	return 0;
}
