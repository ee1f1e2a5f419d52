/*
 * Shared helpers of the libFuzzer targets (tests/fuzz/README.md).  Every
 * helper aborts on a broken invariant so that libFuzzer records the input.
 */
#ifndef PS_FUZZ_H
#define PS_FUZZ_H

#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "packsign.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline void
fuzz_fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz invariant broken: %s: %s\n", what,
	    detail != NULL ? detail : "");
	abort();
}

/* An error code matches ^[a-z][a-z0-9_]*$. */
static inline int
fuzz_code_valid(const char *code)
{
	size_t i;

	if (code[0] < 'a' || code[0] > 'z')
		return 0;
	for (i = 1; code[i] != '\0'; i++)
		if (!((code[i] >= 'a' && code[i] <= 'z') ||
		    (code[i] >= '0' && code[i] <= '9') || code[i] == '_'))
			return 0;
	return 1;
}

/* FUZZ_VERBOSE=1 in the environment: say what each call did (for
 * checking that seeds reach the paths they are meant to). */
static inline void
fuzz_note(const char *call, const char *what)
{
	if (getenv("FUZZ_VERBOSE") != NULL)
		fprintf(stderr, "%s: %s\n", call, what);
}

/* After a failed call: a status that is not OK and a well-formed code. */
static inline void
fuzz_check_error(const ps_error *err, const char *call)
{
	char line[4096];

	fuzz_note(call, err->code);
	if (err->status == PS_STATUS_OK)
		fuzz_fail(call, "failed without a status");
	if (!fuzz_code_valid(err->code))
		fuzz_fail(call, err->code);
	ps_error_format(err, line, sizeof(line));
	if (strstr(line, err->code) == NULL)
		fuzz_fail(call, "formatted error lacks its code");
}

static inline void
fuzz_check_diags(const ps_diags *diags)
{
	char line[4096];
	size_t i;

	for (i = 0; i < diags->count; i++) {
		if (!fuzz_code_valid(diags->items[i].code))
			fuzz_fail("diagnostic code", diags->items[i].code);
		ps_diag_format(&diags->items[i], line, sizeof(line));
	}
}

/* One private directory per process, removed at exit. */
static char fuzz_tmp[64];

static inline int
fuzz_rm_entry(const char *path, const struct stat *st, int flag,
    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) == 0 ? 0 : -1;
}

static inline void
fuzz_rm_tree(const char *path)
{
	nftw(path, fuzz_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static inline void
fuzz_tmp_cleanup(void)
{
	if (fuzz_tmp[0] != '\0')
		fuzz_rm_tree(fuzz_tmp);
}

static inline const char *
fuzz_tmpdir(void)
{
	const char *base = getenv("TMPDIR");

	if (fuzz_tmp[0] != '\0')
		return fuzz_tmp;
	if (base == NULL || base[0] == '\0' ||
	    strlen(base) > sizeof(fuzz_tmp) - 20)
		base = "/tmp";
	snprintf(fuzz_tmp, sizeof(fuzz_tmp), "%s/psfuzz.XXXXXX", base);
	if (mkdtemp(fuzz_tmp) == NULL)
		fuzz_fail("mkdtemp", fuzz_tmp);
	atexit(fuzz_tmp_cleanup);
	return fuzz_tmp;
}

/* Writes `data` to `path` (created or truncated). */
static inline void
fuzz_write_file(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "wb");

	if (f == NULL || (size > 0 && fwrite(data, 1, size, f) != size) ||
	    fclose(f) != 0)
		fuzz_fail("write", path);
}

/* The archive suffix the first input byte picks. */
static inline const char *
fuzz_archive_suffix(uint8_t selector)
{
	static const char *const suffixes[] = {
		".tar", ".tar.gz", ".tar.zst", ".zip"
	};

	return suffixes[selector % 4];
}

#endif
