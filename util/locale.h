/*
 * libarchive converts names through the thread's character locale; under
 * "C" it fails on non-ASCII names.  The library switches the calling
 * thread (never the process) to C.UTF-8 for the duration of a call.
 */
#ifndef PS_UTIL_LOCALE_H
#define PS_UTIL_LOCALE_H

#include <locale.h>

#include "packsign.h"

typedef struct ps_locale_scope {
	locale_t utf8;
	locale_t previous;
} ps_locale_scope;

int ps_locale_enter(ps_locale_scope *scope, ps_error *err);
void ps_locale_leave(ps_locale_scope *scope);

#endif
