/* Internal header of util/: string lists.
 *
 * Lists of owned strings (ps_strings of packsign.h).
 */
#ifndef UTIL_STRINGS_H
#define UTIL_STRINGS_H

#include <stddef.h>

#include "packsign.h"

/* Appends a copy of `s`; 0, or -1 when memory runs out (list unchanged). */
int util_strings_add(ps_strings *list, const char *s);
/* The items joined with `sep`, malloc'd; NULL when out of memory. */
char *util_strings_join(const ps_strings *list, const char *sep);
/* 1 when `s` is one of `list`'s items (bytewise). */
int util_strings_has(const ps_strings *list, const char *s);

/* Frees every item and the array; the list is left empty. */
void util_strings_clear(ps_strings *list);

/* *out = a copy of `s`, or NULL when `s` is NULL; 0, or -1 with
 * out_of_memory naming `subject` (may be NULL). */
int util_strdup(char **out, const char *s, const char *subject,
    ps_error *err);

/* 1 when `s` ends with `suffix`. */
int util_ends_with(const char *s, const char *suffix);

/* Writes the items joined by ", " into `out` (cut at `size`). */
void util_join(char *out, size_t size, const char *const *items,
    size_t count);

/* 1 for a full git commit id: 40 (SHA-1) or 64 (SHA-256) lowercase hex
 * digits, or with `any_case` capitals too (an operator's option). */
int util_commit_id_valid(const char *s, int any_case);

#endif
