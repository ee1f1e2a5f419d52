/* Internal header of pack/: the entry list of a pack.
 *
 * The entries of a pack while it is being read: from a directory walk or
 * from an archive.  Sorted bytewise by canonical path, checked for
 * duplicates, case-fold collisions and file/directory conflicts, and
 * reduced to the tree digest (docs/formats/digests.md).
 */
#ifndef PACK_ITEMS_H
#define PACK_ITEMS_H

#include <sys/types.h>

#include "packsign.h"

/* How many first bytes of each file the packing pass keeps: what
 * ps_pack_files.head answers afterwards without reading the file again
 * (manifest validation asks for 2). */
#define PACK_HEAD_MAX 8

typedef struct pack_item {
	ps_entry entry;
	char *source;    /* directory walk: the path as on disk, if different */
	dev_t dev;       /* directory walk: identity checked again at read */
	ino_t ino;
	mode_t special;  /* pack_walk_reading: the type (S_IFLNK, ...) of a
	                  * link, device, FIFO or socket; 0 for the others */
	unsigned char head[PACK_HEAD_MAX]; /* packing: the first bytes read */
	unsigned char head_len;  /* of `head` (fewer for a shorter file) */
	unsigned char head_known; /* 1 once packing read the file */
} pack_item;

typedef struct pack_items {
	pack_item *items;
	size_t count;
	size_t capacity;
	size_t name_bytes;      /* of every path, NULs included */
} pack_items;

#define PACK_ITEMS_MAX 1000000
/* The most bytes of paths a pack holds (every entry's, NUL included):
 * what bounds the memory of reading and checking a pack's names with the
 * entry limit (docs/security.md, "Bounds"). */
#define PACK_NAME_BYTES_MAX (64ULL * 1024 * 1024)

void pack_items_free(pack_items *list);
/* Appends an entry taking ownership of `path`; returns it, or NULL. */
pack_item *pack_items_add(pack_items *list, char *path, ps_entry_type type,
    ps_error *err);
/* Merges the sorted `more` into the sorted `list` (`more` is left
 * empty); -1 when the two would exceed PACK_ITEMS_MAX or memory is short. */
int pack_items_merge(pack_items *list, pack_items *more, ps_error *err);
void pack_items_sort(pack_items *list);
/* Duplicates, case-fold collisions and file-versus-directory conflicts. */
int pack_items_check(const pack_items *list, const char *label, ps_error *err);
/* The same; on a refusal pair[0] and pair[1] are the two entries' paths
 * (the pointers of `list`, to tell which entries they are). */
int pack_items_check_pair(const pack_items *list, const char *label,
    const char **pair, ps_error *err);
/* Orders paths depth first, bytewise within a directory (the listing
 * order of ps_pack_files): strcmp with '/' below every other byte. */
int pack_depth_first_compare(const char *a, const char *b);
/* Sorts `base` as qsort() would, unless it is in `cmp`'s order already:
 * then one comparison per element (a listing already depth first). */
void pack_sort_unless_ordered(void *base, size_t count, size_t size,
    int (*cmp)(const void *, const void *));
/* Index of `path` in the sorted list, or -1. */
long pack_items_find(const pack_items *list, const char *path);
/* How many directories the sorted entries' paths imply without an entry
 * of their own (what extracting or listing the pack creates besides). */
size_t pack_items_implied_dirs(const pack_items *list);
/* 1 when sorted entry `i` is a directory with nothing below it. */
int pack_items_is_empty_dir(const pack_items *list, size_t i);
/* The tree digest of the sorted list. */
int pack_items_tree_digest(const pack_items *list,
    unsigned char out[PS_SHA256_LEN], ps_error *err);
/* Moves the entries into a new ps_digest (the list is left empty). */
ps_digest *pack_items_to_digest(pack_items *list, ps_error *err);
/* The same, copying them (the list is unchanged). */
ps_digest *pack_items_copy_to_digest(const pack_items *list, ps_error *err);
/* 1 when entry `i` of the sorted `d` has some entry below it: a directory
 * entry an archive carries that the tree digest leaves out (it lists
 * files and empty directories only). */
int pack_digest_has_children(const ps_digest *d, size_t i);
/* Records entry `manifest` of `d` as its manifest; frees `d` on failure. */
ps_digest *pack_digest_set_manifest(ps_digest *d, size_t manifest,
    ps_error *err);


/*
 * Finds the one manifest at the pack root.  Refuses when there is none,
 * when there are two, or when it is not a regular file.
 */
int pack_items_find_manifest(const pack_items *list, const char *label,
    size_t *index, ps_format *format, ps_error *err);
#endif
