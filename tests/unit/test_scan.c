/*
 * The archive structure scans (pack/tarscan.c, pack/zipscan.c) on shapes
 * written byte by byte: numbers at the edge of their fields, which the
 * scans once let wrap around (found reading the code while writing
 * tests/fuzz/fuzz_tarscan.c and fuzz_zipscan.c; the fuzzers' invariants
 * do not see them, these tests do).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>
#include <zlib.h>

#include "packsign.h"
#include "pack/tarscan.h"
#include "pack/zipscan.h"

#define BLOCK 512

/* A ustar header of a regular file with its checksum; `size` is the
 * 12-byte size field as written. */
static void
tar_header(unsigned char *b, const char *name, const unsigned char *size)
{
	unsigned sum = 0;
	size_t i;

	memset(b, 0, BLOCK);
	memcpy(b, name, strlen(name));
	memcpy(b + 100, "0000644", 8);
	memcpy(b + 108, "0000000", 8);
	memcpy(b + 116, "0000000", 8);
	memcpy(b + 124, size, 12);
	memcpy(b + 136, "00000000000", 12);
	b[156] = '0';
	memcpy(b + 257, "ustar\0" "00", 8);
	memset(b + 148, ' ', 8);
	for (i = 0; i < BLOCK; i++)
		sum += b[i];
	snprintf((char *)b + 148, 8, "%06o", sum);
}

/* Scans `len` bytes in one feed; the code of the refusal, "" when the
 * stream was read whole.  The names the scan queued go to `names`. */
static const char *
tar_scan(const unsigned char *stream, size_t len, char *names, size_t cap)
{
	static ps_error err;
	pack_tarscan *s = NULL;
	const char *name;
	int rc;

	ps_error_clear(&err);
	assert_int_equal(pack_tarscan_new("t.tar", &s, &err), 0);
	rc = pack_tarscan_feed(s, stream, len, &err);
	if (rc == 0)
		rc = pack_tarscan_finish(s, &err);
	names[0] = '\0';
	while ((name = pack_tarscan_next_name(s)) != NULL) {
		strncat(names, name, cap - strlen(names) - 2);
		strcat(names, " ");
	}
	pack_tarscan_free(s);
	return rc == 0 ? "" : err.code;
}

/*
 * A GNU base-256 size of 2^64 - 1 was read as that number, and its data
 * and padding (size + 1) wrapped to 0 bytes: the next block, the entry's
 * data, was read as a header ("hidden"), where GNU tar, bsdtar and
 * tarfile all refuse the size.  A size of 2^63 or more is refused.
 */
static void
tar_base256_size_past_int64_is_refused(void **state)
{
	static const unsigned char huge[12] = { 0x80, 0, 0, 0, 0xff, 0xff,
	    0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const unsigned char two[12] = { 0x80, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 0, 2 };
	unsigned char stream[4 * BLOCK];
	char names[256];

	(void)state;
	memset(stream, 0, sizeof(stream));
	tar_header(stream, "big", huge);
	tar_header(stream + BLOCK, "hidden", (const unsigned char *)
	    "00000000000");
	assert_string_equal(tar_scan(stream, sizeof(stream), names,
	    sizeof(names)), "archive_corrupt");
	assert_string_equal(names, "");
	/* A base-256 size in range is read: 2 bytes of data, then the end. */
	memset(stream, 0, sizeof(stream));
	tar_header(stream, "b", two);
	memcpy(stream + BLOCK, "b\n", 2);
	assert_string_equal(tar_scan(stream, sizeof(stream), names,
	    sizeof(names)), "");
	assert_string_equal(names, "b ");
}

/* Sets the header's checksum again after an edit. */
static void
tar_resum(unsigned char *b)
{
	unsigned sum = 0;
	size_t i;

	memset(b + 148, ' ', 8);
	for (i = 0; i < BLOCK; i++)
		sum += b[i];
	snprintf((char *)b + 148, 8, "%06o", sum);
}

/* The header checksum is the sum of its bytes with the checksum field as
 * eight spaces, unsigned (POSIX) or signed (old Sun tar, which GNU tar and
 * libarchive also accept); any other number is refused. */
static void
tar_checksum_unsigned_or_signed(void **state)
{
	unsigned char stream[3 * BLOCK];
	char names[256];
	long ssum = 0;
	size_t i;

	(void)state;
	memset(stream, 0, sizeof(stream));
	tar_header(stream, "caf\xc3\xa9\xff", (const unsigned char *)
	    "00000000000");
	assert_string_equal(tar_scan(stream, sizeof(stream), names,
	    sizeof(names)), "");
	memset(stream + 148, ' ', 8);
	for (i = 0; i < BLOCK; i++)
		ssum += (signed char)stream[i];
	snprintf((char *)stream + 148, 8, "%06lo", ssum);
	assert_string_equal(tar_scan(stream, sizeof(stream), names,
	    sizeof(names)), "");
	snprintf((char *)stream + 148, 8, "%06lo", ssum + 1);
	assert_string_equal(tar_scan(stream, sizeof(stream), names,
	    sizeof(names)), "archive_corrupt");
	/* The field itself counts as spaces, whatever digits it holds. */
	tar_resum(stream);
	stream[148] = '1';
	assert_string_equal(tar_scan(stream, sizeof(stream), names,
	    sizeof(names)), "archive_corrupt");
}

/*
 * Issue 26: Go's archive/tar reads a ustar header whose bytes 508-511 are
 * "tar\0" as the star format, whose prefix field is bytes 345-475 (476-499
 * its atime and ctime): a 155-byte prefix of which bytes 476-499 are octal
 * digits named "knowledge/ddd.../f" to Go and "knowledge/ddd...000.../f"
 * to GNU tar, bsdtar, libarchive and tarfile.  Any byte of 500-511 that is
 * not NUL is refused, in an extension header too; all NUL is read.
 */
static void
header_padding_is_nul(void **state)
{
	static const size_t at[] = { 500, 507, 508, 511 };
	unsigned char stream[4 * BLOCK];
	char names[512], want[200];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		memset(stream, 0, sizeof(stream));
		tar_header(stream, "f", (const unsigned char *)"00000000000");
		stream[at[i]] = at[i] == 508 ? 't' : 1;
		tar_resum(stream);
		assert_string_equal(tar_scan(stream, sizeof(stream), names,
		    sizeof(names)), "tar_header_padding");
		assert_string_equal(names, "");
	}
	/* The star shape itself, and the same header with its pad NUL. */
	memset(stream, 0, sizeof(stream));
	tar_header(stream, "f", (const unsigned char *)"00000000000");
	memcpy(stream + 345, "knowledge/", 10);
	memset(stream + 355, 'd', 121);
	memset(stream + 476, '0', 24);
	tar_resum(stream);
	snprintf(want, sizeof(want), "%.155s/f ", (const char *)stream + 345);
	assert_string_equal(tar_scan(stream, sizeof(stream), names,
	    sizeof(names)), "");
	assert_string_equal(names, want);
	memcpy(stream + 508, "tar", 4);
	tar_resum(stream);
	assert_string_equal(tar_scan(stream, sizeof(stream), names,
	    sizeof(names)), "tar_header_padding");
	/* A pax header's padding is a header's padding. */
	memset(stream, 0, sizeof(stream));
	tar_header(stream, "PaxHeader/f", (const unsigned char *)"00000000000");
	stream[156] = 'x';
	stream[511] = 1;
	tar_resum(stream);
	tar_header(stream + BLOCK, "f", (const unsigned char *)"00000000000");
	assert_string_equal(tar_scan(stream, sizeof(stream), names,
	    sizeof(names)), "tar_header_padding");
}

/* A pax header holding the one record "KEY=VALUE", a regular file "f"
 * after it, then the end; the bytes written. */
static size_t
pax_stream(unsigned char *b, const char *key, const char *value)
{
	char record[256], size[13];
	int n = (int)(strlen(key) + strlen(value) + 3), len;

	len = n + (n + 1 >= 10 ? (n + 2 >= 100 ? 3 : 2) : 1);
	snprintf(record, sizeof(record), "%d %s=%s\n", len, key, value);
	assert_int_equal(strlen(record), (size_t)len);
	memset(b, 0, 5 * BLOCK);
	snprintf(size, sizeof(size), "%011o", (unsigned)len);
	tar_header(b, "PaxHeader/f", (const unsigned char *)size);
	b[156] = 'x';
	memset(b + 148, ' ', 8);
	{
		unsigned sum = 0;
		size_t i;

		for (i = 0; i < BLOCK; i++)
			sum += b[i];
		snprintf((char *)b + 148, 8, "%06o", sum);
	}
	memcpy(b + BLOCK, record, (size_t)len);
	tar_header(b + 2 * BLOCK, "f", (const unsigned char *)"00000000000");
	return 5 * BLOCK;
}

/*
 * Issue 26: a pax mtime of "1748089464.951928467a" was accepted (libarchive
 * reads the digits before the 'a'), where Go's archive/tar refuses the
 * header and tarfile reads 0.  Every numeric record must match its grammar
 * exactly: the edges of each, accepted and refused.
 */
static void
pax_numbers_match_their_grammar(void **state)
{
	static const struct { const char *key, *value, *code; } cases[] = {
		{ "mtime", "1748089464.951928467", "" },
		{ "mtime", "1748089464", "" },
		{ "mtime", "-1.5", "" },
		{ "atime", "9223372036854775807.000000000001", "" },
		{ "mtime", "1748089464.951928467a", "tar_pax_invalid" },
		{ "mtime", "1.", "tar_pax_invalid" },
		{ "mtime", ".5", "tar_pax_invalid" },
		{ "mtime", "-", "tar_pax_invalid" },
		{ "mtime", "+1", "tar_pax_invalid" },
		{ "ctime", "1e9", "tar_pax_invalid" },
		{ "mtime", "9223372036854775808", "tar_pax_invalid" },
		{ "mtime", "", "tar_pax_invalid" },
		{ "LIBARCHIVE.creationtime", "1 ", "tar_pax_invalid" },
		{ "uid", "0", "" },
		{ "gid", "9223372036854775807", "" },
		{ "uid", "9223372036854775808", "tar_pax_invalid" },
		{ "uid", "-1", "tar_pax_invalid" },
		{ "gid", " 0", "tar_pax_invalid" },
		{ "gid", "1_000", "tar_pax_invalid" },
		{ "SCHILY.realsize", "0x1", "tar_pax_invalid" },
		{ "SCHILY.devmajor", "", "tar_pax_invalid" },
		{ "size", "0", "" },
		{ "size", "9223372036854775808", "tar_pax_invalid" },
		{ "comment", "not a number", "" },
		{ "uname", "1e9", "" },
	};
	unsigned char stream[5 * BLOCK];
	char names[256];
	size_t i, len;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		len = pax_stream(stream, cases[i].key, cases[i].value);
		print_message("%s=%s\n", cases[i].key, cases[i].value);
		assert_string_equal(tar_scan(stream, len, names, sizeof(names)),
		    cases[i].code);
	}
}

/* Issue 26: the header's other numbers too; libarchive read a uid of
 * "000000x" as 0 where tarfile stopped at that header without a word. */
static void
header_numbers_are_numbers(void **state)
{
	/* The field's bytes (8, or 12 for the mtime), NUL-padded. */
	static const struct { size_t at; const char field[12]; const char *code; }
	    cases[] = {
		{ 108, "000000x", "archive_corrupt" },
		{ 100, "0644 x", "archive_corrupt" },
		{ 116, { '\0', '0', '0', '6', '4', '4' }, "archive_corrupt" },
		{ 136, "0000000000-", "archive_corrupt" },
		{ 329, "12a", "archive_corrupt" },
		{ 337, "7", "" },
		{ 100, "  644  ", "" },
		{ 329, "", "" },
	};
	unsigned char stream[4 * BLOCK];
	char names[256];
	unsigned sum;
	size_t i, k;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(stream, 0, sizeof(stream));
		tar_header(stream, "f", (const unsigned char *)"00000000000");
		memcpy(stream + cases[i].at, cases[i].field,
		    cases[i].at == 136 ? 12 : 8);
		memset(stream + 148, ' ', 8);
		for (sum = 0, k = 0; k < BLOCK; k++)
			sum += stream[k];
		snprintf((char *)stream + 148, 8, "%06o", sum);
		print_message("field at %zu\n", cases[i].at);
		assert_string_equal(tar_scan(stream, sizeof(stream), names,
		    sizeof(names)), cases[i].code);
	}
}

static unsigned char *
le(unsigned char *p, uint64_t v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		*p++ = (unsigned char)(v >> (8 * i));
	return p;
}

/* The zip's bytes in a memfd. */
static int
zip_fd(const unsigned char *zip, size_t size)
{
	int fd = memfd_create("t.zip", MFD_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, zip, size), (ssize_t)size);
	return fd;
}

/* One stored entry "a.md" at 0, then its central record, whose 54-byte
 * comment holds 8 bytes, the zip64 locator, the end record and 4 bytes of
 * the end record's comment, which goes on with the zip64 end record:
 * after its locator, its length 2^64 - 58 so that offset + 12 + length
 * wraps to the locator's offset. */
static size_t
zip64_end_after_locator(unsigned char *z)
{
	unsigned char *p = z;

	p = le(p, 0x04034b50, 4);               /* local header */
	p = le(p, 20, 2), p = le(p, 0, 2), p = le(p, 0, 2);
	p = le(p, 0, 2), p = le(p, 0x21, 2);
	p = le(p, 0x46ea081fu, 4);              /* CRC-32 of "x\n" */
	p = le(p, 2, 4), p = le(p, 2, 4), p = le(p, 4, 2), p = le(p, 0, 2);
	memcpy(p, "a.mdx\n", 6), p += 6;
	p = le(p, 0x02014b50, 4);               /* central record, at 36 */
	p = le(p, 0x031e, 2), p = le(p, 20, 2), p = le(p, 0, 2);
	p = le(p, 0, 2), p = le(p, 0, 2), p = le(p, 0x21, 2);
	p = le(p, 0x46ea081fu, 4), p = le(p, 2, 4), p = le(p, 2, 4);
	p = le(p, 4, 2), p = le(p, 0, 2), p = le(p, 54, 2);
	p = le(p, 0, 2), p = le(p, 0, 2), p = le(p, 0100644u << 16, 4);
	p = le(p, 0, 4);
	memcpy(p, "a.mdcccccccc", 12), p += 12;
	p = le(p, 0x07064b50, 4);               /* locator, at 94 */
	p = le(p, 0, 4), p = le(p, 140, 8), p = le(p, 1, 4);
	p = le(p, 0x06054b50, 4);               /* end record, at 114 */
	p = le(p, 0, 2), p = le(p, 0, 2), p = le(p, 0xffff, 2);
	p = le(p, 0xffff, 2), p = le(p, 0xffffffffu, 4);
	p = le(p, 0xffffffffu, 4), p = le(p, 60, 2);
	memcpy(p, "eeee", 4), p += 4;
	p = le(p, 0x06064b50, 4);               /* zip64 end record, at 140 */
	p = le(p, UINT64_MAX - 57, 8), p = le(p, 45, 2), p = le(p, 45, 2);
	p = le(p, 0, 4), p = le(p, 0, 4), p = le(p, 1, 8), p = le(p, 1, 8);
	p = le(p, 104, 8), p = le(p, 36, 8);
	return (size_t)(p - z);
}

/*
 * The zip64 end record was checked to end at its locator with
 * offset + 12 + length, which wraps: one placed after its locator and the
 * end record was accepted, which zipfile ("Bad offset for central
 * directory") and unzip refuse.  It is a zip_layout refusal.
 */
static void
zip64_end_record_after_its_locator_is_refused(void **state)
{
	unsigned char zip[256];
	size_t size = zip64_end_after_locator(zip);
	pack_zipscan *z = NULL;
	ps_error err;
	int fd = zip_fd(zip, size);

	(void)state;
	assert_int_equal(size, 196);
	ps_error_clear(&err);
	assert_int_equal(pack_zipscan_read(fd, size, "t.zip", 0, &z, &err), -1);
	assert_null(z);
	assert_string_equal(err.code, "zip_layout");
	close(fd);
}

/* One stored entry "a.md" whose local header holds an Info-ZIP Unicode
 * Comment field (0x6375) for an empty comment: version 1, the CRC-32 of
 * no bytes (0), no text. */
static size_t
local_unicode_comment(unsigned char *z)
{
	unsigned char *p = z;

	p = le(p, 0x04034b50, 4);               /* local header */
	p = le(p, 20, 2), p = le(p, 0, 2), p = le(p, 0, 2);
	p = le(p, 0, 2), p = le(p, 0x21, 2);
	p = le(p, 0x46ea081fu, 4);              /* CRC-32 of "x\n" */
	p = le(p, 2, 4), p = le(p, 2, 4), p = le(p, 4, 2), p = le(p, 9, 2);
	memcpy(p, "a.md", 4), p += 4;
	p = le(p, 0x6375, 2), p = le(p, 5, 2), p = le(p, 1, 1), p = le(p, 0, 4);
	memcpy(p, "x\n", 2), p += 2;
	p = le(p, 0x02014b50, 4);               /* central record, at 45 */
	p = le(p, 0x031e, 2), p = le(p, 20, 2), p = le(p, 0, 2);
	p = le(p, 0, 2), p = le(p, 0, 2), p = le(p, 0x21, 2);
	p = le(p, 0x46ea081fu, 4), p = le(p, 2, 4), p = le(p, 2, 4);
	p = le(p, 4, 2), p = le(p, 0, 2), p = le(p, 0, 2);
	p = le(p, 0, 2), p = le(p, 0, 2), p = le(p, 0100644u << 16, 4);
	p = le(p, 0, 4);
	memcpy(p, "a.md", 4), p += 4;
	p = le(p, 0x06054b50, 4);               /* end record, at 95 */
	p = le(p, 0, 2), p = le(p, 0, 2), p = le(p, 1, 2), p = le(p, 1, 2);
	p = le(p, 50, 4), p = le(p, 45, 4), p = le(p, 0, 2);
	return (size_t)(p - z);
}

/*
 * A local header has no comment: its Unicode Comment field was compared
 * with memcmp(field, NULL, 0), undefined behaviour (UBSan: null pointer
 * passed as argument 2; found by clang-tidy's analyzer in make lint,
 * reproduced by fuzz_zipscan, tests/fuzz/corpus/zipscan/
 * regress-local-unicode-comment).  This test fails only under a
 * sanitizer (make unit-asan): the plain build accepts the zip either way.
 */
static void
zip_local_unicode_comment_is_read_without_ub(void **state)
{
	unsigned char zip[256];
	size_t size = local_unicode_comment(zip);
	pack_zipscan *z = NULL;
	ps_error err;
	int fd = zip_fd(zip, size), dir = -1;
	uint64_t entry_size = 0;

	(void)state;
	assert_int_equal(size, 117);
	ps_error_clear(&err);
	assert_int_equal(pack_zipscan_read(fd, size, "t.zip", 0, &z, &err), 0);
	assert_int_equal(pack_zipscan_count(z), 1);
	assert_int_equal(pack_zipscan_take(z, "a.md", &dir, &entry_size), 1);
	assert_int_equal(dir, 0);
	pack_zipscan_free(z);
	close(fd);
}

/* A stored entry "a.md" whose 36 bytes of data are the whole of a second
 * stored entry "b.md" (its local header and "x\n"); the central directory
 * lists both, "b.md" at offset 34, inside the first entry's data. */
static size_t
overlapping_entries(unsigned char *z)
{
	unsigned char *p = z, *b;
	uint32_t crc_b = 0x46ea081fu;           /* CRC-32 of "x\n" */
	uint32_t crc_a;

	p = le(p, 0x04034b50, 4);               /* local header of a.md */
	p = le(p, 20, 2), p = le(p, 0, 2), p = le(p, 0, 2);
	p = le(p, 0, 2), p = le(p, 0x21, 2);
	b = p;                                  /* CRC-32, filled below */
	p = le(p, 0, 4), p = le(p, 36, 4), p = le(p, 36, 4);
	p = le(p, 4, 2), p = le(p, 0, 2);
	memcpy(p, "a.md", 4), p += 4;
	p = le(p, 0x04034b50, 4);               /* local header of b.md, at 34 */
	p = le(p, 20, 2), p = le(p, 0, 2), p = le(p, 0, 2);
	p = le(p, 0, 2), p = le(p, 0x21, 2);
	p = le(p, crc_b, 4), p = le(p, 2, 4), p = le(p, 2, 4);
	p = le(p, 4, 2), p = le(p, 0, 2);
	memcpy(p, "b.mdx\n", 6), p += 6;
	crc_a = (uint32_t)crc32(0, z + 34, 36);
	le(b, crc_a, 4);
	p = le(p, 0x02014b50, 4);               /* central: a.md, at 70 */
	p = le(p, 0x031e, 2), p = le(p, 20, 2), p = le(p, 0, 2);
	p = le(p, 0, 2), p = le(p, 0, 2), p = le(p, 0x21, 2);
	p = le(p, crc_a, 4), p = le(p, 36, 4), p = le(p, 36, 4);
	p = le(p, 4, 2), p = le(p, 0, 2), p = le(p, 0, 2);
	p = le(p, 0, 2), p = le(p, 0, 2), p = le(p, 0100644u << 16, 4);
	p = le(p, 0, 4);
	memcpy(p, "a.md", 4), p += 4;
	p = le(p, 0x02014b50, 4);               /* central: b.md, at 120 */
	p = le(p, 0x031e, 2), p = le(p, 20, 2), p = le(p, 0, 2);
	p = le(p, 0, 2), p = le(p, 0, 2), p = le(p, 0x21, 2);
	p = le(p, crc_b, 4), p = le(p, 2, 4), p = le(p, 2, 4);
	p = le(p, 4, 2), p = le(p, 0, 2), p = le(p, 0, 2);
	p = le(p, 0, 2), p = le(p, 0, 2), p = le(p, 0100644u << 16, 4);
	p = le(p, 34, 4);
	memcpy(p, "b.md", 4), p += 4;
	p = le(p, 0x06054b50, 4);               /* end record, at 170 */
	p = le(p, 0, 2), p = le(p, 0, 2), p = le(p, 2, 2), p = le(p, 2, 2);
	p = le(p, 100, 4), p = le(p, 70, 4), p = le(p, 0, 2);
	return (size_t)(p - z);
}

/*
 * Issue 26: overlapping entries were caught only by a differential case
 * that is also a decompression bomb, so a broken overlap check showed as a
 * limit refusal.  Here two small stored entries share bytes (zipfile
 * refuses it: "Overlapped entries"); the scan must say so.
 */
static void
zip_overlapping_entries_are_refused(void **state)
{
	unsigned char zip[256];
	size_t size = overlapping_entries(zip);
	pack_zipscan *z = NULL;
	ps_error err;
	int fd = zip_fd(zip, size);

	(void)state;
	assert_int_equal(size, 192);
	ps_error_clear(&err);
	assert_int_equal(pack_zipscan_read(fd, size, "t.zip", 0, &z, &err), -1);
	assert_null(z);
	assert_string_equal(err.code, "zip_layout");
	assert_non_null(strstr(err.message, "two entries share bytes"));
	close(fd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tar_base256_size_past_int64_is_refused),
		cmocka_unit_test(tar_checksum_unsigned_or_signed),
		cmocka_unit_test(pax_numbers_match_their_grammar),
		cmocka_unit_test(header_numbers_are_numbers),
		cmocka_unit_test(header_padding_is_nul),
		cmocka_unit_test(zip64_end_record_after_its_locator_is_refused),
		cmocka_unit_test(zip_local_unicode_comment_is_read_without_ub),
		cmocka_unit_test(zip_overlapping_entries_are_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
