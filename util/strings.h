/* Internal header of util/: string lists.
 *
 * Lists of owned strings (ps_strings of packsign.h).
 */
#ifndef UTIL_STRINGS_H
#define UTIL_STRINGS_H

#include "packsign.h"

/* Appends a copy of `s`; 0, or -1 when memory runs out (list unchanged). */
int util_strings_add(ps_strings *list, const char *s);

/* Frees every item and the array; the list is left empty. */
void util_strings_clear(ps_strings *list);

#endif
