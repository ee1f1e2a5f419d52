/* libcurl by the soname the build linked against (Makefile). */
#include <stddef.h>
#include <string.h>

#include "dynlib/curl.h"
#include "dynlib/load.h"
#include "util/error.h"

#ifndef DYNLIB_LIBCURL_SONAME
#error "the Makefile passes DYNLIB_LIBCURL_SONAME (scripts/soname-of libcurl)"
#endif

#define DYNLIB_CURL_SYMBOL(name) { "curl_" #name, offsetof(dynlib_curl, name) },
static const dynlib_symbol curl_symbols[] = {
	DYNLIB_CURL_FUNCTIONS(DYNLIB_CURL_SYMBOL)
};
#undef DYNLIB_CURL_SYMBOL

int
dynlib_curl_open(dynlib_curl *curl, const char *purpose, ps_error *err)
{
	CURLcode rc;

	memset(curl, 0, sizeof(*curl));
	if (dynlib_load(DYNLIB_LIBCURL_SONAME, purpose, curl_symbols,
	    sizeof(curl_symbols) / sizeof(curl_symbols[0]), curl,
	    &curl->handle, err) != 0) {
		memset(curl, 0, sizeof(*curl));
		return -1;
	}
	rc = curl->global_init(CURL_GLOBAL_DEFAULT);
	if (rc != CURLE_OK) {
		util_fail(err, "fetch_failed", DYNLIB_LIBCURL_SONAME, "libcurl "
		    "could not be initialised: %s", curl->easy_strerror(rc));
		dynlib_close(curl->handle);
		memset(curl, 0, sizeof(*curl));
		return -1;
	}
	return 0;
}

void
dynlib_curl_close(dynlib_curl *curl)
{
	if (curl->handle == NULL)
		return;
	curl->global_cleanup();
	dynlib_close(curl->handle);
	memset(curl, 0, sizeof(*curl));
}
