/* Unit tests: libraries opened on demand (dynlib/). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "dynlib/curl.h"
#include "dynlib/git.h"
#include "dynlib/load.h"

static void
a_missing_library_names_itself_and_what_needs_it(void **state)
{
	ps_error err;

	(void)state;
	memset(&err, 0, sizeof(err));
	assert_null(dynlib_open("libpacksign-no-such-library.so.0",
	    "this test", &err));
	assert_string_equal(err.code, "library_missing");
	assert_int_equal(err.status, PS_STATUS_FAILED);
	assert_string_equal(err.subject, "libpacksign-no-such-library.so.0");
	assert_non_null(strstr(err.message, "which this test needs"));
	assert_string_equal(err.expected, "libpacksign-no-such-library.so.0");
	assert_string_equal(err.found, "not loadable");
}

static void
a_missing_function_is_an_incompatible_library(void **state)
{
	ps_error err;
	void *handle, *slot = NULL;

	(void)state;
	memset(&err, 0, sizeof(err));
	handle = dynlib_open("libc.so.6", "this test", &err);
	assert_non_null(handle);
	assert_int_equal(dynlib_resolve(handle, "libc.so.6", "strlen", &slot,
	    sizeof(slot), &err), 0);
	assert_non_null(slot);
	assert_int_equal(dynlib_resolve(handle, "libc.so.6",
	    "packsign_no_such_function", &slot, sizeof(slot), &err), -1);
	assert_string_equal(err.code, "library_incompatible");
	assert_string_equal(err.expected, "packsign_no_such_function");
	dynlib_close(handle);
}

static void
libgit2_and_libcurl_open_by_the_built_soname(void **state)
{
	dynlib_git git;
	dynlib_curl curl;
	ps_error err;

	(void)state;
	memset(&err, 0, sizeof(err));
	assert_int_equal(dynlib_git_open(&git, "this test", &err), 0);
	assert_non_null(git.repository_open);
	assert_non_null(git.diff_buffers);
	/* Reference-counted: a second open while the first is held. */
	{
		dynlib_git again;

		assert_int_equal(dynlib_git_open(&again, "this test", &err), 0);
		dynlib_git_close(&again);
		assert_null(again.handle);
	}
	dynlib_git_close(&git);
	assert_null(git.handle);
	dynlib_git_close(&git);         /* closing twice is harmless */
	assert_int_equal(dynlib_curl_open(&curl, "this test", &err), 0);
	assert_non_null(curl.easy_perform);
	dynlib_curl_close(&curl);
	assert_null(curl.handle);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_missing_library_names_itself_and_what_needs_it),
		cmocka_unit_test(a_missing_function_is_an_incompatible_library),
		cmocka_unit_test(libgit2_and_libcurl_open_by_the_built_soname),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
