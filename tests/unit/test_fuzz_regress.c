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
#include "pack/tarscan.h"
#include "install/receipt.h"
#include "install/pins.h"

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

/* The trailer after scanning `stream` cut into feeds of `cut` bytes; the
 * scan must refuse it as archive_trailing_data. */
static uint64_t
trailer_when_cut(const unsigned char *stream, size_t len, size_t cut)
{
	pack_tarscan *s = NULL;
	ps_error err;
	size_t at, k;
	int rc = 0;
	uint64_t trailer;

	ps_error_clear(&err);
	assert_int_equal(pack_tarscan_new("t.tar", &s, &err), 0);
	for (at = 0; rc == 0 && at < len; at += k) {
		k = len - at < cut ? len - at : cut;
		rc = pack_tarscan_feed(s, stream + at, k, &err);
	}
	assert_int_equal(rc, -1);
	assert_string_equal(err.code, "archive_trailing_data");
	trailer = pack_tarscan_trailer(s);
	pack_tarscan_free(s);
	return trailer;
}

/*
 * fuzz_tarscan: after the end-of-archive block, a feed holding a non-NUL
 * byte was refused but counted whole in the trailer, so the trailer of a
 * refused stream depended on where the stream was cut (a zero block, then
 * "ill": 3 in one feed, 1 byte by byte; tests/fuzz/corpus/tarscan/
 * regress-trailer-after-refusal).  Only the NUL bytes before the refused
 * one count (past the end's two zero blocks): here two zero blocks, then
 * NUL "ill" gives 1 however it is cut.
 */
static void
tar_trailer_does_not_depend_on_cuts(void **state)
{
	unsigned char stream[1024 + 4];

	(void)state;
	memset(stream, 0, sizeof(stream));
	memcpy(stream + 1025, "ill", 3);
	assert_int_equal(trailer_when_cut(stream, sizeof(stream),
	    sizeof(stream)), 1);
	assert_int_equal(trailer_when_cut(stream, sizeof(stream), 1), 1);
	assert_int_equal(trailer_when_cut(stream, sizeof(stream), 7), 1);
}

/* fuzz_records: a receipt whose "archive" was not an object failed
 * without an error (no code, no status): the caller could not say why. */
static void
receipt_without_archive_is_refused(void **state)
{
	static const char text[] = "{\"format\": \"holon\", \"id\": \"a/b\", "
	    "\"version\": \"1.0.0\", \"installedAt\": \"2026-01-01T00:00:00Z\", "
	    "\"name\": null, \"domain\": null, \"permissions\": \"\", "
	    "\"path\": \"holons/a/b/1.0.0\", \"packsignReceipt\": 1, "
	    "\"signer\": {\"identity\": \"x\", \"fingerprint\": \"SHA256:x\"}, "
	    "\"source\": null, \"archive\": [], \"prompts\": [], \"files\": []}";
	ps_installed *r = NULL;
	ps_error err;

	(void)state;
	ps_error_clear(&err);
	assert_int_equal(install_receipt_parse(text, sizeof(text) - 1, "t", &r,
	    &err), -1);
	assert_null(r);
	assert_string_equal(err.code, "receipt_invalid");
	assert_int_equal(err.status, PS_STATUS_REFUSED);
}

/* A pins file must name 1 to 64 signers. */
static void
pins_without_signers_are_refused(void **state)
{
	static const char text[] = "{\"packsignPins\": 1, \"format\": \"holon\", "
	    "\"id\": \"a/b\", \"version\": \"1.0.0\", \"signers\": [], "
	    "\"source\": null}";
	ps_pins *p = NULL;
	ps_error err;

	(void)state;
	ps_error_clear(&err);
	assert_int_equal(install_pins_parse(text, sizeof(text) - 1, "t", &p,
	    &err), -1);
	assert_null(p);
	assert_string_equal(err.code, "pins_invalid");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(empty_zip_is_refused_cleanly),
		cmocka_unit_test(tar_trailer_does_not_depend_on_cuts),
		cmocka_unit_test(receipt_without_archive_is_refused),
		cmocka_unit_test(pins_without_signers_are_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
