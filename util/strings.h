/* Lists of owned strings (ps_strings of packsign.h). */
#ifndef PS_UTIL_STRINGS_H
#define PS_UTIL_STRINGS_H

#include "packsign.h"

/* Appends a copy of `s`; 0, or -1 when memory runs out (list unchanged). */
int ps_strings_add(ps_strings *list, const char *s);

/* Frees every item and the array; the list is left empty. */
void ps_strings_clear(ps_strings *list);

#endif
