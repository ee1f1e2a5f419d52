/*
 * The zip directory scan (pack/zipscan.c) that the archive reader runs
 * before libarchive reads a zip.  Byte 0 picks the entry limit (byte 0
 * modulo 64; 0 is the default, PACK_ITEMS_MAX); the rest is the zip,
 * written to a memfd and read with pack_zipscan_read(), which must not
 * move the descriptor's offset.  On success: the count is within the
 * limit and the limit is exact (the same file with the count as limit is
 * read again, with one less refused as extract_too_many_entries); names
 * that no entry can have (not UTF-8, not NFC, empty, absolute, too long)
 * are never taken; and the names of the central records, found in the
 * input by their signature and put in NFC as the reader's do, take every
 * entry exactly once: each name is taken once per entry of that name,
 * then no more.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "pack/archivename.h"
#include "pack/items.h"
#include "pack/zipscan.h"
#include "util/pathname.h"

#define CENTRAL_LEN 46

struct names {
	char **v;
	size_t count, cap;
};

static int
memfd_of(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz.zip", MFD_CLOEXEC);

	if (fd < 0)
		fuzz_fail("memfd_create", "");
	if (size > 0 && pwrite(fd, data, size, 0) != (ssize_t)size)
		fuzz_fail("pwrite", "");
	return fd;
}

/* Reads the zip; a failure sets a valid error and leaves no object. */
static pack_zipscan *
read_zip(int fd, uint64_t size, uint64_t max, ps_error *err)
{
	static char stale;      /* what the call must overwrite */
	pack_zipscan *z = (pack_zipscan *)(void *)&stale;
	off_t before = lseek(fd, 0, SEEK_CUR);

	ps_error_clear(err);
	if (pack_zipscan_read(fd, size, "fuzz.zip", max, &z, err) != 0) {
		fuzz_check_error(err, "pack_zipscan_read");
		if (z != NULL)
			fuzz_fail("pack_zipscan_read", "object set on failure");
	} else if (z == NULL) {
		fuzz_fail("pack_zipscan_read", "no object on success");
	}
	if (lseek(fd, 0, SEEK_CUR) != before)
		fuzz_fail("pack_zipscan_read", "the file offset moved");
	return z;
}

static uint16_t
le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static int
by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every "PK\1\2" in the input names a candidate: its name field as a
 * pack path (leading "./" and one trailing '/' removed; "" for the root),
 * in NFC.  The real central records are among them. */
static void
candidates(const uint8_t *d, size_t n, struct names *out)
{
	size_t i, len, skip;
	int root;
	char *nfc;

	memset(out, 0, sizeof(*out));
	for (i = 0; i + CENTRAL_LEN <= n; i++) {
		if (memcmp(d + i, "PK\1\2", 4) != 0)
			continue;
		len = le16(d + i + 28);
		if (len > n - i - CENTRAL_LEN ||
		    memchr(d + i + CENTRAL_LEN, '\0', len) != NULL)
			continue;
		len = pack_entry_name_strip((const char *)d + i + CENTRAL_LEN,
		    len, len > 0 && d[i + CENTRAL_LEN + len - 1] == '/', &skip,
		    &root);
		if ((nfc = util_path_nfc((const char *)d + i + CENTRAL_LEN +
		    skip, len)) == NULL)
			continue;
		if (out->count == out->cap) {
			out->cap = out->cap * 2 + 16;
			out->v = realloc(out->v, out->cap * sizeof(*out->v));
			if (out->v == NULL)
				fuzz_fail("realloc", "names");
		}
		out->v[out->count++] = nfc;
	}
	if (out->count > 1)
		qsort(out->v, out->count, sizeof(*out->v), by_string);
}

static void
names_free(struct names *n)
{
	size_t i;

	for (i = 0; i < n->count; i++)
		free(n->v[i]);
	free(n->v);
}

/* Names no entry can have: the scan refuses them in the directory ("" is
 * the root's, which a "./" entry has). */
/* pack_zipscan_take(), the entry's type and size checked for sense. */
static int
take(pack_zipscan *z, const char *name)
{
	uint64_t size = UINT64_MAX;
	int dir = -1, rc = pack_zipscan_take(z, name, &dir, &size);

	if (rc == 1 && (dir < 0 || dir > 1 || (dir == 1 && size != 0)))
		fuzz_fail("pack_zipscan_take", "a taken entry's type or size "
		    "makes no sense");
	return rc;
}

static void
check_absent(pack_zipscan *z)
{
	static const char *const absent[] = {
		"\xff", "e\xcc\x81", "/", "/a", "a/../b", "..", "./a", ".",
	};
	static char long_name[UTIL_PATH_MAX + 2];
	size_t i;

	if (long_name[0] == '\0')
		memset(long_name, 'a', sizeof(long_name) - 1);
	for (i = 0; i < sizeof(absent) / sizeof(absent[0]); i++) {
		if (take(z, absent[i]) != 0)
			fuzz_fail("pack_zipscan_take", "took a name no entry has");
	}
	if (take(z, long_name) != 0)
		fuzz_fail("pack_zipscan_take", "took a name too long to be one");
}

/* Each distinct candidate is taken until it is refused: once per entry
 * of that name, so the takes add up to the count, and never again. */
static void
check_takes(pack_zipscan *z, const struct names *c)
{
	size_t i, taken = 0, count = pack_zipscan_count(z), k;

	for (i = 0; i < c->count; i++) {
		if (i > 0 && strcmp(c->v[i - 1], c->v[i]) == 0)
			continue;
		for (k = 0; take(z, c->v[i]) == 1; k++) {
			if (k >= count)
				fuzz_fail("pack_zipscan_take", "took more than the "
				    "count");
		}
		if (take(z, c->v[i]) != 0)
			fuzz_fail("pack_zipscan_take", "took a name again after "
			    "refusing it");
		taken += k;
	}
	if (taken != count)
		fuzz_fail("pack_zipscan_take", "the central names do not take "
		    "every entry once");
	for (i = 0; i < c->count; i++) {
		if (take(z, c->v[i]) != 0)
			fuzz_fail("pack_zipscan_take", "took a name twice");
	}
}

/* The limit is exact: the count is allowed, one less is not. */
static void
check_limit(int fd, uint64_t size, size_t count)
{
	pack_zipscan *z;
	ps_error err;

	if ((z = read_zip(fd, size, count, &err)) == NULL)
		fuzz_fail("pack_zipscan_read", "refused its own count as limit");
	if (pack_zipscan_count(z) != count)
		fuzz_fail("pack_zipscan_read", "a second read counts otherwise");
	pack_zipscan_free(z);
	if (count < 2)
		return;
	if ((z = read_zip(fd, size, count - 1, &err)) != NULL ||
	    strcmp(err.code, "extract_too_many_entries") != 0)
		fuzz_fail("pack_zipscan_read", "one entry over the limit is "
		    "not refused as too many");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t max;
	pack_zipscan *z;
	struct names c;
	ps_error err;
	int fd;

	if (size < 1)
		return 0;
	max = data[0] % 64;
	fd = memfd_of(data + 1, size - 1);
	z = read_zip(fd, size - 1, max, &err);
	fuzz_note("pack_zipscan_read", z != NULL ? "ok" : err.code);
	if (z != NULL) {
		if (pack_zipscan_count(z) > (max != 0 ? max : PACK_ITEMS_MAX))
			fuzz_fail("pack_zipscan_count", "more than the limit");
		check_limit(fd, size - 1, pack_zipscan_count(z));
		check_absent(z);
		candidates(data + 1, size - 1, &c);
		check_takes(z, &c);
		check_absent(z);
		ps_error_clear(&err);
		if (pack_zipscan_check_readings(z, &err) != 0)
			fuzz_check_error(&err, "pack_zipscan_check_readings");
		fuzz_note("pack_zipscan_check_readings", err.code[0] != '\0' ?
		    err.code : "ok");
		names_free(&c);
		pack_zipscan_free(z);
	}
	close(fd);
	return 0;
}
