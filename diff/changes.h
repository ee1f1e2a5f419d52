/* Internal header of diff/: the list of changes being built.
 *
 * Every change names a field of docs/formats/diff.md's table; the table
 * (diff/changes.c) gives its group, its order and its consent class, so
 * that the comparisons say only what changed and whether it widens.
 */
#ifndef DIFF_CHANGES_H
#define DIFF_CHANGES_H

#include "packsign.h"

/* Adds a change of `field` (a name of the table; anything else is an
 * internal_error).  Strings are copied; any may be NULL. */
int diff_add(ps_diff *d, const char *field, const char *subject,
    ps_diff_kind kind, const char *old_value, const char *new_value,
    int widening, ps_error *err);

/* The change just added (to attach its text diff). */
ps_diff_change *diff_last(ps_diff *d);

/* Orders the changes by group, the table's order and subject, and sums
 * what the caller reads (widening classes, counts of other files). */
void diff_finish(ps_diff *d);

#endif
