/*
 * Inputs the fuzz targets (tests/fuzz) found to break the library, each
 * reduced to a small case.  The unit tests also run under ASan + UBSan
 * (make unit-asan), which is what caught most of them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "packsign.h"

static char tmpdir[] = "/tmp/ps-fuzz-regress.XXXXXX";

static int
setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *
write_input(const char *name, const void *data, size_t len)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return path;
}

/*
 * fuzz_archive: a .zip that libarchive reads as holding no entry (a stray
 * byte, then an end-of-central-directory record pointing nowhere) reached
 * qsort(NULL, 0, ...) in the archive name checks (pack/items.c), undefined
 * behaviour.  It must be refused, nothing else: since issue 17 by the zip
 * directory's own check (its end record's comment runs past the file).
 */
static void
empty_zip_is_refused_cleanly(void **state)
{
	static const unsigned char eocd[] = { 'm', 'P', 'K', 5, 6, 0, 0, 0, 0,
	    4, 0, 4, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 };
	ps_pack_options po;
	ps_pack_files files;
	ps_digest *d = NULL;
	ps_error err;
	const char *path = write_input("empty.zip", eocd, sizeof(eocd));

	(void)state;
	ps_pack_options_init(&po);
	ps_error_clear(&err);
	assert_int_equal(ps_digest_path(path, &po, &d, &err), -1);
	assert_null(d);
	assert_string_equal(err.code, "archive_corrupt");
	ps_error_clear(&err);
	assert_int_equal(ps_pack_files_archive_open(path, &files, &d, &err), -1);
	assert_string_equal(err.code, "archive_corrupt");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(empty_zip_is_refused_cleanly),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
