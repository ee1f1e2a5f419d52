/* Internal header of pack/: walking a pack directory.
 *
 * Walking a pack directory without following links (canonical-tar.md).
 */
#ifndef PACK_WALK_H
#define PACK_WALK_H

#include <sys/stat.h>

#include "pack/ignore.h"
#include "pack/items.h"

/* Opens the directory a walk starts from; a file there is refused with
 * `code` (exit 2), a missing one with not_found.  An fd, or -1. */
int pack_walk_open_root(const char *dir, const char *code, ps_error *err);

/*
 * Fills the empty `items` with every regular file and directory below
 * `rootfd`, sorted (pack_items_sort), except VCS metadata and ignored paths;
 * refuses links, devices, FIFOs and sockets, and names that break the name
 * rules.  `label` prefixes paths in errors.
 */
int pack_walk(int rootfd, const char *label, const pack_ignore *ignore,
    pack_items *items, ps_error *err);

/*
 * As pack_walk, for a reader of the pack rather than a packer (ps_pack_files
 * of a directory): a symbolic link, device, FIFO or socket becomes an item
 * marked `special` instead of a refusal, so that validation reports it
 * where the manifest names it, with every other problem.
 */
int pack_walk_reading(int rootfd, const char *label, const pack_ignore *ignore,
    pack_items *items, ps_error *err);

/* The walk's refusal of a link, device, FIFO or socket at `path`
 * (symlink_refused, special_file_refused); returns -1. */
int pack_walk_refuse_special(const char *label, const char *path,
    mode_t mode, ps_error *err);

/* As pack_walk, leaving out the file `exclude` (the output being written). */
int pack_walk_excluding(int rootfd, const char *label, const pack_ignore *ignore,
    const struct stat *exclude, pack_items *items, ps_error *err);

/*
 * Every entry below `rootfd`, sorted, as a check of an installed tree
 * sees it: no ignore rules, VCS names kept, and what a pack cannot hold
 * (links, devices, names that break the rules) added to `odd` as
 * "PATH (why)" instead of refused.
 */
int pack_walk_survey(int rootfd, const char *label, pack_items *items,
    ps_strings *odd, ps_error *err);

/* 1 for ".git", ".hg", ".svn", ".bzr". */
int pack_is_vcs_name(const char *name);

/* 1 when a component of the pack path `path` starts with "._" or its
 * first is "__MACOSX": a Mac's AppleDouble metadata. */
int pack_is_appledouble_path(const char *path);

/* Refuses `path` as appledouble_refused (`where` names it); `archive`: the
 * message says how to make the archive without it, else how to clean the
 * directory.  Returns -1. */
int pack_refuse_appledouble(const char *where, const char *path, int archive,
    ps_error *err);

#endif
