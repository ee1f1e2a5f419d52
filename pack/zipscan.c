#include <errno.h>
#include <iconv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "pack/archivename.h"
#include "pack/items.h"
#include "pack/zipscan.h"
#include "util/error.h"
#include "util/pathname.h"

#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_DESCRIPTOR 0x08074b50u
#define SIG_END 0x06054b50u
#define SIG_END64 0x06064b50u
#define SIG_LOCATOR 0x07064b50u
#define END_LEN 22
#define LOCATOR_LEN 20
#define CENTRAL_LEN 46
#define LOCAL_LEN 30
#define COMMENT_MAX 65535

/* Flags: encrypted, strong encryption, masked local headers. */
#define FLAG_ENCRYPTED 0x0001u
#define FLAG_DESCRIPTOR 0x0008u
#define FLAG_STRONG 0x0040u
#define FLAG_UTF8 0x0800u
#define FLAG_MASKED 0x2000u
#define HOST_UNIX 3u             /* "version made by", high byte */

struct zentry {
	char *name;              /* as stored (bytes of the central record) */
	char *nfc;               /* NFC of `name`, what libarchive reports */
	size_t name_len;
	unsigned flags, method;
	uint32_t crc;
	uint64_t csize, usize, offset;
	int zip64;               /* sizes or offset came from a zip64 field */
	int root;                /* "./": the pack root, not an entry */
	int unflagged;           /* non-ASCII without the UTF-8 flag */
	int seen;
};

struct pack_zipscan {
	const char *label;
	int fd;
	uint64_t size;
	struct zentry *entries;
	size_t count;
	struct zentry **by_name; /* sorted by nfc */
	uint64_t cd_offset, cd_size;
};

static uint16_t
le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t
le32(const unsigned char *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	    ((uint32_t)p[3] << 24);
}

static uint64_t
le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | ((uint64_t)le32(p + 4) << 32);
}

static int
layout(const pack_zipscan *z, const char *what, ps_error *err)
{
	return util_refuse(err, "zip_layout", z->label, "%s (readers that "
	    "start from the other end would see other entries)", what);
}

static int
corrupt(const pack_zipscan *z, const char *what, ps_error *err)
{
	return util_refuse(err, "archive_corrupt", z->label, "%s", what);
}

/* Exactly `n` bytes at `offset`, within the file. */
static int
read_at(const pack_zipscan *z, uint64_t offset, void *buf, size_t n,
    ps_error *err)
{
	ssize_t got;
	size_t done = 0;

	if (offset > z->size || n > z->size - offset)
		return corrupt(z, "a record reaches past the end of the file", err);
	while (done < n) {
		got = pread(z->fd, (char *)buf + done, n - done,
		    (off_t)(offset + done));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return util_fail_errno(err, "io_error", z->label, "read",
			    got < 0 ? errno : EIO);
		done += (size_t)got;
	}
	return 0;
}

/* ---------------------------------------------------------- the end */

struct end_record {
	uint64_t entries, cd_size, cd_offset;
	uint64_t end_offset;     /* where the zip64 record or the end starts */
};

/* The end record is the one whose comment ends exactly at the end of the
 * file; one that leaves bytes after it means something was appended. */
static int
locate_end(pack_zipscan *z, const unsigned char *tail, size_t n,
    uint64_t base, uint64_t *at, ps_error *err)
{
	size_t i, exact = 0, found = 0, short_of_end = 0;
	uint64_t end;

	for (i = n - END_LEN + 1; i-- > 0;) {
		if (le32(tail + i) != SIG_END)
			continue;
		end = base + i + END_LEN + le16(tail + i + 20);
		if (end == z->size) {
			exact++;
			found = i;
		} else if (end < z->size) {
			short_of_end++;
		}
	}
	if (exact > 1)
		return layout(z, "two end-of-central-directory records could "
		    "each be the last", err);
	if (exact == 0 && short_of_end > 0) {
		util_refuse(err, "archive_trailing_data", z->label, "bytes "
		    "follow the end-of-central-directory record and its comment");
		return util_error_expect(err, "the end of the file", "more bytes");
	}
	if (exact == 0)
		return corrupt(z, "no end-of-central-directory record", err);
	/* libarchive, zipfile, unzip and 7-Zip take the last signature, which
	 * a comment may hold with a directory of its own. */
	for (i = found + 4; i + 4 <= n; i++) {
		if (le32(tail + i) == SIG_END)
			return util_refuse(err, "zip_layout", z->label, "an "
			    "end-of-central-directory signature inside the zip's "
			    "comment (libarchive, zipfile, unzip and 7-Zip take the "
			    "last one, with the directory it names)");
	}
	*at = base + found;
	return 0;
}

/* The zip64 end record, right before its locator, right before the end. */
static int
read_zip64(pack_zipscan *z, uint64_t eocd, struct end_record *e,
    ps_error *err)
{
	unsigned char loc[LOCATOR_LEN], rec[56];
	uint64_t at, len;

	if (read_at(z, eocd - LOCATOR_LEN, loc, sizeof(loc), err) != 0)
		return -1;
	if (le32(loc + 4) != 0 || le32(loc + 16) != 1)
		return util_refuse(err, "unsupported_entry", z->label,
		    "a zip that spans several disks");
	at = le64(loc + 8);
	if (read_at(z, at, rec, sizeof(rec), err) != 0)
		return -1;
	len = le64(rec + 4);
	if (le32(rec) != SIG_END64 || len < 44)
		return corrupt(z, "a zip64 end record that is not one", err);
	/* Compared without a sum that could wrap: a huge length would let
	 * the record lie after its locator. */
	if (eocd - LOCATOR_LEN < at + sizeof(rec) ||
	    len != eocd - LOCATOR_LEN - at - 12)
		return layout(z, "bytes between the zip64 end record and its "
		    "locator", err);
	if (le32(rec + 16) != 0 || le32(rec + 20) != 0 ||
	    le64(rec + 24) != le64(rec + 32))
		return util_refuse(err, "unsupported_entry", z->label,
		    "a zip that spans several disks");
	e->entries = le64(rec + 32);
	e->cd_size = le64(rec + 40);
	e->cd_offset = le64(rec + 48);
	e->end_offset = at;
	return 0;
}

/* The 16- and 32-bit fields of the end record, or their zip64 values. */
static int
end_fields(pack_zipscan *z, const unsigned char *p, uint64_t eocd,
    struct end_record *e, ps_error *err)
{
	uint64_t entries = le16(p + 10), cd_size = le32(p + 12),
	    cd_offset = le32(p + 16);
	int maxed = entries == 0xffff || cd_size == 0xffffffffu ||
	    cd_offset == 0xffffffffu;
	unsigned char sig[4];

	if (le16(p + 4) != 0 || le16(p + 6) != 0 || le16(p + 8) != le16(p + 10))
		return util_refuse(err, "unsupported_entry", z->label,
		    "a zip that spans several disks");
	if (eocd >= LOCATOR_LEN && read_at(z, eocd - LOCATOR_LEN, sig, 4,
	    err) == 0 && le32(sig) == SIG_LOCATOR) {
		if (read_zip64(z, eocd, e, err) != 0)
			return -1;
		if ((entries != 0xffff && entries != e->entries) ||
		    (cd_size != 0xffffffffu && cd_size != e->cd_size) ||
		    (cd_offset != 0xffffffffu && cd_offset != e->cd_offset))
			return util_refuse(err, "zip_header_mismatch", z->label,
			    "the end record and the zip64 end record disagree");
		return 0;
	}
	if (maxed)
		return corrupt(z, "a zip64 size without its zip64 end record",
		    err);
	*e = (struct end_record){ entries, cd_size, cd_offset, eocd };
	return 0;
}

static int
read_end(pack_zipscan *z, struct end_record *e, ps_error *err)
{
	size_t n = z->size < END_LEN + COMMENT_MAX ? (size_t)z->size :
	    END_LEN + COMMENT_MAX;
	unsigned char *tail;
	uint64_t eocd = 0;
	int rc;

	if (n < END_LEN)
		return corrupt(z, "too short to be a zip", err);
	if ((tail = malloc(n)) == NULL)
		return util_fail_oom(err, z->label);
	rc = read_at(z, z->size - n, tail, n, err);
	if (rc == 0)
		rc = locate_end(z, tail, n, z->size - n, &eocd, err);
	if (rc == 0)
		rc = end_fields(z, tail + (eocd - (z->size - n)), eocd, e, err);
	free(tail);
	return rc;
}

/* ------------------------------------------------ the central directory */

/* The zip64 extra field (0x0001) holds, in this order, each of the
 * 64-bit values whose 32-bit field is all ones. */
static int
apply_zip64(struct zentry *e, const unsigned char *d, size_t n,
    int central, int want_offset)
{
	int usize = !central || e->usize == 0xffffffffu;
	int csize = !central || e->csize == 0xffffffffu;
	size_t need = 8 * (size_t)(usize + csize + want_offset), at = 0;

	if (n < need)
		return -1;
	if (usize) {
		e->usize = le64(d + at);
		at += 8;
	}
	if (csize) {
		e->csize = le64(d + at);
		at += 8;
	}
	if (want_offset)
		e->offset = le64(d + at);
	e->zip64 = 1;
	return 0;
}

/* An Info-ZIP Unicode Path (0x7075) or Comment (0x6375) field: version
 * 1, the CRC-32 of the header's bytes, then UTF-8 that must be the same
 * bytes (libarchive uses the field, zipfile and zipinfo the header). */
static int
unicode_field_agrees(const unsigned char *d, size_t n, const char *text,
    size_t len)
{
	if (n < 5 || d[0] != 1 ||
	    le32(d + 1) != (uint32_t)crc32(0, (const Bytef *)text, (uInt)len))
		return 0;
	/* A local header has no comment: `text` is NULL, which memcmp must
	 * not see even for no bytes. */
	return n - 5 == len && (len == 0 || memcmp(d + 5, text, len) == 0);
}

struct extras {
	const char *label;
	const unsigned char *comment;
	size_t comment_len;
	int central, want_offset;
};

static int
walk_extras(const pack_zipscan *z, struct zentry *e, const unsigned char *x,
    size_t n, const struct extras *how, ps_error *err)
{
	size_t at = 0, len;
	unsigned id;

	while (at < n) {
		if (n - at < 4 || (len = le16(x + at + 2)) > n - at - 4)
			return corrupt(z, "an extra field runs past its record", err);
		id = le16(x + at);
		if (id == 0x0001 && apply_zip64(e, x + at + 4, len, how->central,
		    how->want_offset) != 0)
			return corrupt(z, "a zip64 extra field too short for its "
			    "sizes", err);
		if ((id == 0x7075 && !unicode_field_agrees(x + at + 4, len,
		    e->name, e->name_len)) || (id == 0x6375 &&
		    !unicode_field_agrees(x + at + 4, len,
		    (const char *)how->comment, how->comment_len)))
			return util_refuse(err, "zip_unicode_name", e->name,
			    "an Info-ZIP Unicode %s field says other than the "
			    "header (libarchive reads the field, zipfile and "
			    "zipinfo the header)", id == 0x7075 ? "Path" :
			    "Comment");
		at += 4 + len;
	}
	return 0;
}

/*
 * Names without the UTF-8 flag are CP437 by the zip specification.  Only
 * ASCII means the same to every reader, and a name from a Unix host
 * (made-by host 3, as macOS's ditto and Finder write every name, in UTF-8
 * and NFD): unzip, libarchive, 7-Zip and macOS read those bytes as UTF-8
 * (7-Zip for Windows does so for a Unix host when they are valid UTF-8,
 * which check_central_name requires); Python's zipfile reads CP437
 * (digests.md, "Zip structure", step 5), so such a name has two readings,
 * both checked (pack_zipscan_check_readings).
 */
static int
check_name(struct zentry *e, unsigned made_by, ps_error *err)
{
	size_t i;

	if (memchr(e->name, '\0', e->name_len) != NULL)
		return util_refuse(err, "name_forbidden_char", e->name,
		    "a zip name holds a NUL byte");
	if ((e->flags & FLAG_UTF8) != 0)
		return 0;
	for (i = 0; i < e->name_len && !e->unflagged; i++)
		e->unflagged = (unsigned char)e->name[i] >= 0x80;
	if (!e->unflagged || (made_by >> 8) == HOST_UNIX)
		return 0;
	util_refuse(err, "zip_name_encoding", e->name, "a non-ASCII name "
	    "without the UTF-8 flag from a host other than Unix: zipfile and "
	    "7-Zip read it as CP437, unzip and libarchive as UTF-8");
	return util_error_expect(err, "the UTF-8 flag (bit 11) on a non-ASCII "
	    "name, or a Unix host", "neither");
}

/*
 * A Unix mode in the attributes' high half, whatever host made the entry:
 * libarchive reads it only from Unix (3), unzip and others from more
 * hosts, so what one of them would restore is refused for all: a link or
 * special type, setuid, setgid or sticky bits, world-write.
 */
static int
check_mode(const struct zentry *e, unsigned mode, ps_error *err)
{
	unsigned type = mode & 0170000;

	if (type != 0 && type != 0100000 && type != 0040000) {
		util_refuse(err, type == 0120000 ? "symlink_refused" :
		    "special_file_refused", e->name, "a zip entry whose Unix "
		    "mode is %s; packs hold only regular files and directories",
		    type == 0120000 ? "a symbolic link" : "a special file");
		return util_error_expect(err, "a regular file or a directory",
		    type == 0120000 ? "a symbolic link" : "a special file");
	}
	if ((mode & 07000) != 0)
		return util_refuse(err, "unsafe_mode", e->name, "has the setuid, "
		    "setgid or sticky bit (mode %04o)", mode & 07777);
	if ((mode & 0002) != 0)
		return util_refuse(err, "unsafe_mode", e->name, "is "
		    "world-writable (mode %04o); readers that restore modes "
		    "would make it so", mode & 07777);
	return 0;
}

/* A directory is a name ending in '/' and nothing else is: its data,
 * its Unix mode and its DOS attribute must agree. */
static int
check_type(const struct zentry *e, unsigned made_by, uint32_t attrs,
    ps_error *err)
{
	int dir = e->name_len > 0 && e->name[e->name_len - 1] == '/';
	unsigned mode = (made_by >> 8) == HOST_UNIX || (attrs >> 16) != 0 ?
	    attrs >> 16 : 0;
	int mode_dir = (mode & 0170000) == 0040000;
	int dos_dir = (attrs & 0x10) != 0;

	if (check_mode(e, mode, err) != 0)
		return -1;

	if (dir && (e->usize != 0 || (mode != 0 && (mode & 0170000) != 0 &&
	    !mode_dir)))
		return util_refuse(err, "zip_entry_type", e->name, "a name "
		    "ending in '/' whose data or mode says it is no directory");
	if (!dir && (mode_dir || dos_dir)) {
		util_refuse(err, "zip_entry_type", e->name, "a directory mode or "
		    "attribute on a name without a trailing '/' (unzip writes a "
		    "file, libarchive a directory)");
		return util_error_expect(err, "a name ending in '/' for a "
		    "directory", "no trailing '/'");
	}
	return 0;
}

static int
check_flags(const struct zentry *e, ps_error *err)
{
	if ((e->flags & (FLAG_ENCRYPTED | FLAG_STRONG | FLAG_MASKED)) != 0)
		return util_refuse(err, "unsupported_entry", e->name,
		    "an encrypted zip entry");
	if (e->method != 0 && e->method != 8)
		return util_refuse(err, "unsupported_entry", e->name, "zip "
		    "compression method %u (packsign reads stored and deflate)",
		    e->method);
	/* A streaming reader finds where stored data ends only by looking for
	 * a descriptor's signature, which the data may hold. */
	if (e->method == 0 && (e->flags & FLAG_DESCRIPTOR) != 0)
		return util_refuse(err, "zip_layout", e->name, "a stored entry "
		    "with a data descriptor (a streaming reader such as bsdtar "
		    "reading a pipe cannot tell where its data ends)");
	return 0;
}

/* One central record at `p` (at most `n` bytes); its length in *used. */
static int
parse_central(pack_zipscan *z, const unsigned char *p, size_t n,
    struct zentry *e, size_t *used, ps_error *err)
{
	size_t nlen, xlen, clen;
	struct extras how;

	if (n < CENTRAL_LEN || le32(p) != SIG_CENTRAL)
		return corrupt(z, "a central directory record that is not one",
		    err);
	nlen = le16(p + 28);
	xlen = le16(p + 30);
	clen = le16(p + 32);
	if (CENTRAL_LEN + nlen + xlen + clen > n)
		return corrupt(z, "a central directory record runs past the "
		    "directory", err);
	e->flags = le16(p + 8);
	e->method = le16(p + 10);
	e->crc = le32(p + 16);
	e->csize = le32(p + 20);
	e->usize = le32(p + 24);
	e->offset = le32(p + 42);
	e->name_len = nlen;
	/* All nlen bytes, a NUL among them included (check_name refuses it
	 * before the extra fields compare names). */
	if ((e->name = malloc(nlen + 1)) == NULL)
		return util_fail_oom(err, z->label);
	memcpy(e->name, p + CENTRAL_LEN, nlen);
	e->name[nlen] = '\0';
	if (le16(p + 34) != 0 && le16(p + 34) != 0xffff)
		return util_refuse(err, "unsupported_entry", z->label,
		    "a zip that spans several disks");
	how = (struct extras){ z->label, p + CENTRAL_LEN + nlen + xlen, clen,
	    1, e->offset == 0xffffffffu };
	if (check_name(e, le16(p + 4), err) != 0 ||
	    walk_extras(z, e, p + CENTRAL_LEN + nlen, xlen, &how, err) != 0 ||
	    check_flags(e, err) != 0 ||
	    check_type(e, le16(p + 4), le32(p + 38), err) != 0)
		return -1;
	*used = CENTRAL_LEN + nlen + xlen + clen;
	return 0;
}

/* The name every other reader takes from the central directory obeys the
 * name rules, after NFC (a Mac-made name in NFD is accepted) and with its
 * leading "./" removed as a tar's (bsdtar -a writes them in zips too; every
 * reader extracts "./x" as "x"); a "./" entry is the root. */
static int
check_central_name(const pack_zipscan *z, struct zentry *e, ps_error *err)
{
	int dir = e->name_len > 0 && e->name[e->name_len - 1] == '/';
	size_t skip, len = pack_entry_name_strip(e->name, e->name_len, dir,
	    &skip, &e->root);
	char label[PS_ERROR_TEXT_MAX];

	e->nfc = util_path_nfc(e->name + skip, len);
	if (e->nfc == NULL && errno == EILSEQ)
		return util_refuse(err, "name_not_utf8", e->name,
		    "a zip name (flagged UTF-8 or from a Unix host) is not "
		    "valid UTF-8");
	if (e->nfc == NULL)
		return util_fail_oom(err, z->label);
	if (e->root)
		return 0;
	snprintf(label, sizeof(label), "%s: %s (central directory)", z->label,
	    e->nfc);
	return util_path_check(e->nfc, label, err);
}

static int
read_directory(pack_zipscan *z, const struct end_record *end,
    uint64_t max_entries, ps_error *err)
{
	unsigned char *cd;
	size_t at = 0, used = 0, i;
	int rc = 0;

	if (end->cd_offset + end->cd_size != end->end_offset ||
	    end->cd_offset > end->end_offset)
		return layout(z, "bytes between the central directory and the "
		    "end record", err);
	if (end->entries > max_entries)
		return util_refuse(err, "extract_too_many_entries", z->label,
		    "the central directory lists %llu entries, more than %llu",
		    (unsigned long long)end->entries,
		    (unsigned long long)max_entries);
	if (end->cd_size > PACK_ZIP_DIRECTORY_MAX ||
	    end->entries > end->cd_size / CENTRAL_LEN)
		return corrupt(z, "a central directory too large for its "
		    "entries", err);
	z->entries = calloc(end->entries > 0 ? (size_t)end->entries : 1,
	    sizeof(*z->entries));
	cd = malloc(end->cd_size > 0 ? (size_t)end->cd_size : 1);
	if (z->entries == NULL || cd == NULL) {
		free(cd);
		return util_fail_oom(err, z->label);
	}
	rc = read_at(z, end->cd_offset, cd, (size_t)end->cd_size, err);
	for (i = 0; rc == 0 && i < end->entries; i++, z->count++) {
		rc = parse_central(z, cd + at, (size_t)end->cd_size - at,
		    &z->entries[i], &used, err);
		if (rc == 0)
			rc = check_central_name(z, &z->entries[i], err);
		at += used;
	}
	free(cd);
	if (rc == 0 && at != end->cd_size)
		return layout(z, "bytes in the central directory after its last "
		    "record", err);
	z->cd_offset = end->cd_offset;
	z->cd_size = end->cd_size;
	return rc;
}

/* ------------------------------------------------- the local headers */

static int
mismatch(const struct zentry *e, const char *what, ps_error *err)
{
	util_refuse(err, "zip_header_mismatch", e->nfc != NULL ? e->nfc :
	    e->name, "the local header and the central directory disagree on "
	    "the %s (unzip reads the central directory, libarchive the local "
	    "header)", what);
	return -1;
}

/* Where an entry's data descriptor ends: after the data, an optional
 * signature, the CRC-32 and the two sizes (64-bit ones for zip64). */
static int
check_descriptor(pack_zipscan *z, const struct zentry *e, int zip64,
    uint64_t at, uint64_t *end, ps_error *err)
{
	unsigned char d[24];
	size_t sizes = zip64 ? 16 : 8, skip = 0;
	uint64_t csize, usize;

	if (read_at(z, at, d, 4, err) != 0)
		return -1;
	if (le32(d) == SIG_DESCRIPTOR)
		skip = 4;
	if (read_at(z, at, d, skip + 4 + sizes, err) != 0)
		return -1;
	csize = zip64 ? le64(d + skip + 4) : le32(d + skip + 4);
	usize = zip64 ? le64(d + skip + 12) : le32(d + skip + 8);
	if (le32(d + skip) != e->crc || csize != e->csize ||
	    usize != e->usize)
		return mismatch(e, "data descriptor's CRC-32 or sizes", err);
	*end = at + skip + 4 + sizes;
	return 0;
}

/* The local header's fields that the central record also holds. */
static int
compare_local(const struct zentry *e, const struct zentry *local,
    const unsigned char *h, ps_error *err)
{
	if (local->name_len != e->name_len ||
	    memcmp(local->name, e->name, e->name_len) != 0)
		return mismatch(e, "name", err);
	if (le16(h + 6) != e->flags || le16(h + 8) != e->method)
		return mismatch(e, "flags or compression method", err);
	if ((e->flags & FLAG_DESCRIPTOR) != 0 &&
	    (local->crc == 0 || local->crc == e->crc) &&
	    (local->csize == 0 || local->csize == e->csize) &&
	    (local->usize == 0 || local->usize == e->usize))
		return 0;
	if (local->crc != e->crc || local->csize != e->csize ||
	    local->usize != e->usize)
		return mismatch(e, "CRC-32 or sizes", err);
	return 0;
}

/* One entry's local header at exactly `at` (no gap, no overlap); sets
 * *next to where the following entry must start. */
static int
check_local(pack_zipscan *z, struct zentry *e, uint64_t at, uint64_t *next,
    ps_error *err)
{
	unsigned char h[LOCAL_LEN], *rest = NULL;
	struct zentry local = { NULL, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	struct extras how = { z->label, NULL, 0, 0, 0 };
	size_t nlen, xlen;
	uint64_t data;
	int rc;

	if (read_at(z, at, h, LOCAL_LEN, err) != 0)
		return -1;
	if (le32(h) != SIG_LOCAL)
		return layout(z, "the central directory points to no local "
		    "header", err);
	nlen = le16(h + 26);
	xlen = le16(h + 28);
	local.crc = le32(h + 14);
	local.csize = le32(h + 18);
	local.usize = le32(h + 22);
	local.name_len = nlen;
	/* The name NUL-terminated (errors print it), the extra fields after. */
	if ((rest = malloc(nlen + 1 + xlen)) == NULL)
		return util_fail_oom(err, z->label);
	rc = read_at(z, at + LOCAL_LEN, rest, nlen, err);
	rest[nlen] = '\0';
	if (rc == 0)
		rc = read_at(z, at + LOCAL_LEN + nlen, rest + nlen + 1, xlen, err);
	local.name = (char *)rest;
	if (rc == 0)
		rc = walk_extras(z, &local, rest + nlen + 1, xlen, &how, err);
	if (rc == 0)
		rc = compare_local(e, &local, h, err);
	free(rest);
	if (rc != 0)
		return -1;
	data = at + LOCAL_LEN + nlen + xlen;
	if (data > z->cd_offset || e->csize > z->cd_offset - data)
		return layout(z, "an entry's data reaches into the central "
		    "directory", err);
	*next = data + e->csize;
	return (e->flags & FLAG_DESCRIPTOR) != 0 ?
	    check_descriptor(z, e, local.zip64, *next, next, err) : 0;
}

static int
by_offset(const void *a, const void *b)
{
	const struct zentry *x = *(const struct zentry *const *)a;
	const struct zentry *y = *(const struct zentry *const *)b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The entries in file order tile the file from byte 0 to the central
 * directory exactly: nothing before the first, between two, or after the
 * last, and no two share a byte. */
static int
check_tiling(pack_zipscan *z, ps_error *err)
{
	uint64_t expect = 0;
	size_t i;
	int rc = 0;

	for (i = 0; i < z->count; i++)
		z->by_name[i] = &z->entries[i];
	if (z->count > 1)
		qsort(z->by_name, z->count, sizeof(*z->by_name), by_offset);
	for (i = 0; rc == 0 && i < z->count; i++) {
		if (z->by_name[i]->offset != expect)
			return layout(z, i == 0 ? "bytes before the first local "
			    "header" : z->by_name[i]->offset < expect ?
			    "two entries share bytes" : "bytes between two "
			    "entries", err);
		rc = check_local(z, z->by_name[i], expect, &expect, err);
	}
	if (rc == 0 && expect != z->cd_offset)
		return layout(z, "bytes between the last entry and the central "
		    "directory", err);
	return rc;
}

/* ----------------------------------------------------------- the scan */

static int
by_nfc(const void *a, const void *b)
{
	return strcmp((*(const struct zentry *const *)a)->nfc,
	    (*(const struct zentry *const *)b)->nfc);
}

int
pack_zipscan_read(int fd, uint64_t size, const char *label,
    uint64_t max_entries, pack_zipscan **out, ps_error *err)
{
	pack_zipscan *z = calloc(1, sizeof(*z));
	struct end_record end;
	int rc;

	*out = NULL;
	if (z == NULL)
		return util_fail_oom(err, label);
	z->label = label;
	z->fd = fd;
	z->size = size;
	if (max_entries == 0 || max_entries > PACK_ITEMS_MAX)
		max_entries = PACK_ITEMS_MAX;
	rc = read_end(z, &end, err);
	if (rc == 0)
		rc = read_directory(z, &end, max_entries, err);
	if (rc == 0 && (z->by_name = calloc(z->count > 0 ? z->count : 1,
	    sizeof(*z->by_name))) == NULL)
		rc = util_fail_oom(err, label);
	if (rc == 0)
		rc = check_tiling(z, err);
	if (rc != 0) {
		pack_zipscan_free(z);
		return -1;
	}
	if (z->count > 1)
		qsort(z->by_name, z->count, sizeof(*z->by_name), by_nfc);
	*out = z;
	return 0;
}

size_t
pack_zipscan_count(const pack_zipscan *z)
{
	return z->count;
}

int
pack_zipscan_take(pack_zipscan *z, const char *name, int *is_dir,
    uint64_t *size)
{
	const struct zentry *e;
	size_t lo = 0, hi = z->count, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = strcmp(z->by_name[mid]->nfc, name);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < z->count && strcmp(z->by_name[lo]->nfc, name) == 0; lo++) {
		e = z->by_name[lo];
		if (e->seen)
			continue;
		z->by_name[lo]->seen = 1;
		*is_dir = e->name_len > 0 && e->name[e->name_len - 1] == '/';
		*size = e->usize;
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------- two readings */

/* zipfile's reading of an entry's name without the UTF-8 flag: its bytes
 * as CP437 (glibc's IBM437, the table Python's cp437 codec has), stripped
 * as the UTF-8 reading is, in NFC.  NULL and errno on failure. */
static char *
cp437_reading(iconv_t cd, const struct zentry *e)
{
	size_t skip, len, in_left, out_left;
	int root;
	char *in, *out, *utf8, *nfc;

	len = pack_entry_name_strip(e->name, e->name_len,
	    e->name_len > 0 && e->name[e->name_len - 1] == '/', &skip, &root);
	/* Every CP437 byte is one character of at most 3 UTF-8 bytes. */
	if ((utf8 = malloc(3 * len + 1)) == NULL)
		return NULL;
	in = e->name + skip;
	in_left = len;
	out = utf8;
	out_left = 3 * len;
	iconv(cd, NULL, NULL, NULL, NULL);
	if (iconv(cd, &in, &in_left, &out, &out_left) == (size_t)-1) {
		free(utf8);
		return NULL;
	}
	nfc = util_path_nfc(utf8, (size_t)(out - utf8));
	free(utf8);
	return nfc;
}

/* Every entry's UTF-8 reading (its path), then the CP437 reading of each
 * unflagged one, marked by `source` (the stored name it reads). */
static int
add_readings(const pack_zipscan *z, iconv_t cd, pack_items *all)
{
	const struct zentry *e;
	pack_item *item;
	size_t i;

	for (i = 0; i < 2 * z->count; i++) {
		e = &z->entries[i % z->count];
		if (e->root || (i >= z->count && !e->unflagged))
			continue;
		item = &all->items[all->count];
		item->entry.type = e->name[e->name_len - 1] == '/' ?
		    PS_ENTRY_DIR : PS_ENTRY_FILE;
		item->entry.path = i < z->count ? e->nfc : cp437_reading(cd, e);
		if (item->entry.path == NULL)
			return -1;
		item->source = i < z->count ? NULL : e->name;
		all->count++;
	}
	return 0;
}

static const char *
reading_of(const pack_items *all, const char *path)
{
	size_t i;

	for (i = 0; i < all->count; i++) {
		if (all->items[i].entry.path == path)
			return all->items[i].source;
	}
	return NULL;
}

/* A refusal of the readings names the reading and the entry it reads. */
static int
refuse_reading(const pack_items *all, const char **pair, ps_error *err)
{
	const char *a = reading_of(all, pair[0]), *b = reading_of(all, pair[1]);
	size_t len = strlen(err->message);
	char found[PS_ERROR_VALUE_MAX];

	/* The rule's own refusal (its code and pair), said of this reading. */
	snprintf(err->message + len, sizeof(err->message) - len, ", with the "
	    "names that lack the UTF-8 flag read as CP437 too, as Python's "
	    "zipfile reads them (unzip, bsdtar and 7-Zip read UTF-8)");
	snprintf(found, sizeof(found), "'%s' is zipfile's reading of '%s'",
	    a != NULL ? pair[0] : pair[1], a != NULL ? a : b != NULL ? b : "");
	return util_error_expect(err, "distinct paths in every reading", found);
}

int
pack_zipscan_check_readings(const pack_zipscan *z, ps_error *err)
{
	pack_items all = { NULL, 0, 0, 0 };
	const char *pair[2] = { NULL, NULL };
	iconv_t cd;
	size_t i, extra = 0;
	int rc = -1;

	for (i = 0; i < z->count; i++)
		extra += z->entries[i].unflagged;
	if (extra == 0)
		return 0;
	/* iconv_open's failure is (iconv_t)-1, compared as an integer. */
	cd = iconv_open("UTF-8", "CP437");
	if ((intptr_t)cd == -1)
		return util_fail_errno(err, "locale_unavailable", z->label,
		    "iconv_open CP437 (glibc's gconv module IBM437)", errno);
	if ((all.items = calloc(z->count + extra, sizeof(*all.items))) == NULL ||
	    add_readings(z, cd, &all) != 0) {
		util_fail_oom(err, z->label);
	} else {
		pack_items_sort(&all);
		rc = pack_items_check_pair(&all, z->label, pair, err);
		if (rc != 0 && err->status == PS_STATUS_REFUSED)
			refuse_reading(&all, pair, err);
	}
	for (i = 0; all.items != NULL && i < all.count; i++) {
		if (all.items[i].source != NULL)
			free(all.items[i].entry.path);
	}
	free(all.items);
	iconv_close(cd);
	return rc;
}

void
pack_zipscan_free(pack_zipscan *z)
{
	size_t i;

	if (z == NULL)
		return;
	for (i = 0; i < z->count; i++) {
		free(z->entries[i].name);
		free(z->entries[i].nfc);
	}
	free(z->entries);
	free(z->by_name);
	free(z);
}
