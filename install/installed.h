/* Internal header of install/: installed packs.
 *
 * What install, list, uninstall and re-checking share: scanning the data
 * directory and loading the receipts of what it holds.
 */
#ifndef INSTALL_INSTALLED_H
#define INSTALL_INSTALLED_H

#include "packsign.h"
#include "install/datadir.h"

/*
 * Adds to `list` every pack of `dd` whose receipt and tree both exist:
 * all of them, or those of `format` (PS_FORMAT_UNKNOWN: any) and `id`
 * (NULL: any).  Marks the newest of each id and sorts by format, id and
 * SemVer precedence.
 */
int install_scan(const install_datadir *dd, ps_format format, const char *id,
    ps_installed_list *list, ps_error *err);

/* Appends a copy-free entry: takes `item`'s fields (item is zeroed). */
int install_list_take(ps_installed_list *list, ps_installed *item,
    ps_error *err);

/* Loads the receipt of the layout path `rel` when its tree exists (*r
 * NULL when it does not), with its absolute locations set. */
int install_load(const install_datadir *dd, const char *rel,
    ps_installed **r, ps_error *err);

/* The receipt of the installed tree at `path` (any spelling of it: it is
 * resolved), with the data directory opened in `dd` and the layout path
 * in *rel (caller frees); not_installed for another directory. */
int install_load_path(const char *path, install_datadir *dd,
    ps_installed **r, char **rel, ps_error *err);

/* Adds to `found` the installed `version` (NULL: every version) of `id`;
 * install_ambiguous when the id is installed as two formats,
 * not_installed when nothing matches. */
int install_find(const install_datadir *dd, ps_format format, const char *id,
    const char *version, ps_installed_list *found, ps_error *err);

/* The diff side of the installed `version` (NULL: the newest) of `id`
 * (install/diffside.c). */
int install_diff_side(const install_datadir *dd, ps_format format,
    const char *id, const char *version, const ps_trust *policy,
    ps_diff_side **out, ps_error *err);

/* The diff side of an install's extraction at `tree_path`: `manifest`
 * and `digest` borrowed (they must outlive the side), the prompt files
 * read from the tree, each checked against `digest`. */
int install_diff_side_new(const char *tree_path, ps_manifest *manifest,
    ps_digest *digest, const ps_verify_result *v, const ps_trust *policy,
    ps_diff_side **out, ps_error *err);

/* Frees the items of a list held by value. */
void install_list_free_items(ps_installed_list *list);

#endif
