/* Walking a pack directory without following links (canonical-tar.md). */
#ifndef PS_SIGN_WALK_H
#define PS_SIGN_WALK_H

#include <sys/stat.h>

#include "sign/ignore.h"
#include "sign/items.h"

/*
 * Fills the empty `items` with every regular file and directory below
 * `rootfd`, sorted (ps_items_sort), except VCS metadata and ignored paths;
 * refuses links, devices, FIFOs and sockets, and names that break the name
 * rules.  `label` prefixes paths in errors.
 */
int ps_walk(int rootfd, const char *label, const ps_ignore *ignore,
    ps_items *items, ps_error *err);

/* As ps_walk, leaving out the file `exclude` (the output being written). */
int ps_walk_excluding(int rootfd, const char *label, const ps_ignore *ignore,
    const struct stat *exclude, ps_items *items, ps_error *err);

/*
 * Every entry below `rootfd`, sorted, as a check of an installed tree
 * sees it: no ignore rules, VCS names kept, and what a pack cannot hold
 * (links, devices, names that break the rules) added to `odd` as
 * "PATH (why)" instead of refused.
 */
int ps_walk_survey(int rootfd, const char *label, ps_items *items,
    ps_strings *odd, ps_error *err);

/* 1 for ".git", ".hg", ".svn", ".bzr". */
int ps_is_vcs_name(const char *name);

#endif
