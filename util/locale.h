/* Internal header of util/: the thread locale.
 *
 * libarchive converts names through the thread's character locale; under
 * "C" it fails on non-ASCII names.  The library switches the calling
 * thread (never the process) to C.UTF-8 for the duration of a call.
 */
#ifndef UTIL_LOCALE_H
#define UTIL_LOCALE_H

#include <locale.h>

#include "packsign.h"

typedef struct util_locale_scope {
	locale_t utf8;
	locale_t previous;
} util_locale_scope;

int util_locale_enter(util_locale_scope *scope, ps_error *err);
void util_locale_leave(util_locale_scope *scope);

#endif
