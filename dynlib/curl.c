/* libcurl by the soname the build linked against (Makefile). */
#include <string.h>

#include "dynlib/curl.h"
#include "dynlib/load.h"
#include "util/error.h"

#ifndef DYNLIB_LIBCURL_SONAME
#error "the Makefile passes DYNLIB_LIBCURL_SONAME (scripts/soname-of libcurl)"
#endif

static int
resolve_all(dynlib_curl *curl, ps_error *err)
{
	int rc = 0;

#define DYNLIB_CURL_RESOLVE(name) \
	if (rc == 0) \
		rc = dynlib_resolve(curl->handle, DYNLIB_LIBCURL_SONAME, \
		    "curl_" #name, &curl->name, sizeof(curl->name), err);
	DYNLIB_CURL_FUNCTIONS(DYNLIB_CURL_RESOLVE)
#undef DYNLIB_CURL_RESOLVE
	return rc;
}

int
dynlib_curl_open(dynlib_curl *curl, const char *purpose, ps_error *err)
{
	CURLcode rc;

	memset(curl, 0, sizeof(*curl));
	curl->handle = dynlib_open(DYNLIB_LIBCURL_SONAME, purpose, err);
	if (curl->handle == NULL)
		return -1;
	if (resolve_all(curl, err) != 0) {
		dynlib_close(curl->handle);
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
