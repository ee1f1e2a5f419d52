/* Internal header of dynlib/: libcurl, opened when a download needs it.
 *
 * The functions net/ calls, as pointers of their declared types
 * (curl/curl.h), without the "curl_" prefix: curl->easy_perform(...).
 * Called through a pointer, curl_easy_setopt loses the type checks
 * curl's headers add for GCC: net/fetch.c passes every option's value
 * with its exact type (long, a pointer, curl_off_t).
 */
#ifndef DYNLIB_CURL_H
#define DYNLIB_CURL_H

#include <curl/curl.h>

#include "packsign.h"

#define DYNLIB_CURL_FUNCTIONS(X) \
	X(easy_cleanup) X(easy_getinfo) X(easy_init) X(easy_perform) \
	X(easy_setopt) X(easy_strerror) X(global_init) X(global_cleanup) \
	X(slist_append) X(slist_free_all)

typedef struct dynlib_curl {
	void *handle;
#define DYNLIB_CURL_SLOT(name) __typeof__(curl_##name) *name;
	DYNLIB_CURL_FUNCTIONS(DYNLIB_CURL_SLOT)
#undef DYNLIB_CURL_SLOT
} dynlib_curl;

/* Opens libcurl and initialises it (curl_global_init, reference-counted
 * and thread-safe in the libcurl 7.84 and later packsign requires);
 * library_missing, library_incompatible or fetch_failed (exit 2).  On
 * failure `curl` holds nothing to close. */
int dynlib_curl_open(dynlib_curl *curl, const char *purpose, ps_error *err);

/* curl_global_cleanup and drops the handle. */
void dynlib_curl_close(dynlib_curl *curl);

#endif
