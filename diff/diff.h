/* Internal header of diff/: the groups of a comparison.
 *
 * ps_diff_compare() (diff/compare.c) checks that both sides are one pack,
 * then each group adds its changes with diff_add(): trust and files in
 * diff/compare.c, permissions in diff/perms.c.
 */
#ifndef DIFF_DIFF_H
#define DIFF_DIFF_H

#include <stddef.h>

#include "diff/changes.h"
#include "diff/side.h"

/* The permissions of the manifests' format, by the format's list. */
int diff_compare_permissions(ps_diff *d, const ps_manifest *old_manifest,
    const ps_manifest *new_manifest, ps_error *err);

/* autograph's compose services and Taskfile tasks (diff/services.c). */
int diff_compare_services(ps_diff *d, const ps_manifest *old_manifest,
    const ps_manifest *new_manifest, ps_error *err);
int diff_compare_tasks(ps_diff *d, const ps_manifest *old_manifest,
    const ps_manifest *new_manifest, ps_error *err);

/* The names of the PS_CONSENT_* bits of `classes` as a JSON array (a
 * json_t *, new reference), for the diff and the receipt. */
struct json_t *diff_consent_json(unsigned classes);


#endif
