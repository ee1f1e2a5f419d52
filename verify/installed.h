/* verify/ internals shared by install, list, uninstall and re-checking. */
#ifndef PS_VERIFY_INSTALLED_H
#define PS_VERIFY_INSTALLED_H

#include "packsign.h"
#include "verify/datadir.h"

/*
 * Adds to `list` every pack of `dd` whose receipt and tree both exist:
 * all of them, or those of `format` (PS_FORMAT_UNKNOWN: any) and `id`
 * (NULL: any).  Marks the newest of each id and sorts by format, id and
 * SemVer precedence.
 */
int ps_installed_scan(const ps_datadir *dd, ps_format format, const char *id,
    ps_installed_list *list, ps_error *err);

/* Appends a copy-free entry: takes `item`'s fields (item is zeroed). */
int ps_installed_list_take(ps_installed_list *list, ps_installed *item,
    ps_error *err);

/* Loads the receipt of the layout path `rel` when its tree exists (*r
 * NULL when it does not), with its absolute locations set. */
int ps_installed_load(const ps_datadir *dd, const char *rel,
    ps_installed **r, ps_error *err);

/* Components of a format's ids: 2 for SoyaPack and holon, else 1. */
int ps_layout_id_depth(ps_format format);

/* Frees the items of a list held by value. */
void ps_installed_list_free_items(ps_installed_list *list);

#endif
