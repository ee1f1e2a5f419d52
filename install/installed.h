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


/* Frees the items of a list held by value. */
void install_list_free_items(ps_installed_list *list);

#endif
