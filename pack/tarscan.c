#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pack/tarscan.h"
#include "util/error.h"

#define BLOCK 512

enum state {
	AT_HEADER,      /* collecting a 512-byte header */
	AT_EXTENSION,   /* collecting an x, L or K header's data */
	IN_DATA,        /* skipping an entry's data and padding */
	AT_END,         /* after the first zero block: NUL bytes only */
	PASSIVE         /* after an entry the reader refuses anyway */
};

struct queued {
	struct queued *next;
	char name[];
};

struct pack_tarscan {
	const char *label;
	enum state state;
	unsigned char block[BLOCK];
	size_t have;                /* bytes of `block` collected */
	uint64_t skip;              /* IN_DATA: bytes left to skip */
	char extension;             /* 'x', 'L' or 'K' being collected */
	unsigned char *ext;
	size_t ext_len, ext_want;
	uint64_t ext_pad;
	/* What the extension headers say of the next entry. */
	char *pax_path, *pax_linkpath, *long_name, *long_link;
	int have_pax, have_pax_size;
	uint64_t pax_size;
	struct queued *head, *tail; /* names of entries not yet taken */
	struct queued *taken;
	uint64_t offset;            /* of the current header in the stream */
	uint64_t trailer;
	uint64_t extension_bytes;   /* data of x, L and K headers */
};

int
pack_tarscan_new(const char *label, pack_tarscan **out, ps_error *err)
{
	*out = calloc(1, sizeof(**out));
	if (*out == NULL)
		return util_fail_oom(err, label);
	(*out)->label = label;
	return 0;
}

static void
clear_pending(pack_tarscan *s)
{
	free(s->pax_path);
	free(s->pax_linkpath);
	free(s->long_name);
	free(s->long_link);
	s->pax_path = s->pax_linkpath = s->long_name = s->long_link = NULL;
	s->have_pax = s->have_pax_size = 0;
	s->pax_size = 0;
}

void
pack_tarscan_free(pack_tarscan *s)
{
	struct queued *q, *next;

	if (s == NULL)
		return;
	for (q = s->head; q != NULL; q = next) {
		next = q->next;
		free(q);
	}
	free(s->taken);
	free(s->ext);
	clear_pending(s);
	free(s);
}

static int refuse(const pack_tarscan *s, const char *code, ps_error *err,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int
refuse(const pack_tarscan *s, const char *code, ps_error *err,
    const char *fmt, ...)
{
	char what[PS_ERROR_TEXT_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return util_refuse(err, code, s->label, "the tar header at byte %llu: "
	    "%s", (unsigned long long)s->offset, what);
}

/* ------------------------------------------------------------ numbers */

/* `n` bytes quoted for a message: printable ASCII as it is, any other byte
 * as \xHH, cut with "..." to fit `cap`. */
static const char *
shown(const unsigned char *v, size_t n, char *buf, size_t cap)
{
	size_t i, at = 1;

	buf[0] = '\'';
	for (i = 0; i < n && at + 8 < cap; i++) {
		if (v[i] >= 0x20 && v[i] < 0x7f && v[i] != '\\')
			buf[at++] = (char)v[i];
		else
			at += (size_t)snprintf(buf + at, cap - at, "\\x%02x", v[i]);
	}
	snprintf(buf + at, cap - at, "%s'", i < n ? "..." : "");
	return buf;
}

/* An octal field (leading spaces, digits, then NUL or spaces) or GNU's
 * base-256; -1 when it is neither, or negative. */
static int
numeric_field(const unsigned char *f, size_t n, uint64_t *out)
{
	size_t i = 0;
	uint64_t v = 0;

	if ((f[0] & 0x80) != 0) {
		if (f[0] != 0x80)
			return -1;          /* negative or over 2^56 bytes */
		for (i = 1; i < n; i++) {
			if (v > (INT64_MAX >> 8))
				return -1;      /* 2^63 or more: no reader's size */
			v = (v << 8) | f[i];
		}
		*out = v;
		return 0;
	}
	while (i < n && f[i] == ' ')
		i++;
	for (; i < n && f[i] >= '0' && f[i] <= '7'; i++) {
		if (v > (UINT64_MAX >> 3))
			return -1;
		v = (v << 3) | (uint64_t)(f[i] - '0');
	}
	for (; i < n; i++) {
		if (f[i] != ' ' && f[i] != '\0')
			return -1;
	}
	*out = v;
	return 0;
}

/* The stored checksum is the unsigned (or, as some writers compute it,
 * signed) byte sum with the checksum field counted as spaces. */
static int
checksum_ok(const unsigned char *b)
{
	uint64_t stored;
	long sum = 0, ssum = 0;
	size_t i;

	if (numeric_field(b + 148, 8, &stored) != 0)
		return 0;
	/* The checksum field counts as eight spaces: summed over the block
	 * in one plain loop (vectorised), then the field's bytes swapped. */
	for (i = 0; i < BLOCK; i++) {
		sum += b[i];
		ssum += (signed char)b[i];
	}
	for (i = 148; i < 156; i++) {
		sum += ' ' - b[i];
		ssum += ' ' - (signed char)b[i];
	}
	return stored == (uint64_t)sum || (ssum >= 0 && stored == (uint64_t)ssum);
}

/* How many of the `n` bytes at `b` are NUL before the first that is not. */
static size_t
nul_prefix(const unsigned char *b, size_t n)
{
	size_t i = 0;

	while (i < n && b[i] == 0)
		i++;
	return i;
}

/* ------------------------------------------------------------- names */

static int
enqueue(pack_tarscan *s, const char *name, size_t len, ps_error *err)
{
	struct queued *q = malloc(sizeof(*q) + len + 1);

	if (q == NULL)
		return util_fail_oom(err, s->label);
	memcpy(q->name, name, len);
	q->name[len] = '\0';
	q->next = NULL;
	if (s->tail != NULL)
		s->tail->next = q;
	else
		s->head = q;
	s->tail = q;
	return 0;
}

static int
ends_in_slash(const struct queued *q)
{
	size_t n = strlen(q->name);

	return n > 0 && q->name[n - 1] == '/';
}

/* The ustar name: POSIX's prefix "/" name, GNU's and v7's name alone. */
static int
enqueue_ustar_name(pack_tarscan *s, const unsigned char *b, ps_error *err)
{
	char name[256 + 2];
	size_t nlen = strnlen((const char *)b, 100), plen = 0;

	if (memcmp(b + 257, "ustar\0" "00", 8) == 0)
		plen = strnlen((const char *)b + 345, 155);
	if (plen > 0) {
		memcpy(name, b + 345, plen);
		name[plen++] = '/';
	}
	memcpy(name + plen, b, nlen);
	return enqueue(s, name, plen + nlen, err);
}

const char *
pack_tarscan_next_name(pack_tarscan *s)
{
	free(s->taken);
	s->taken = s->head;
	if (s->head == NULL)
		return NULL;
	s->head = s->head->next;
	if (s->head == NULL)
		s->tail = NULL;
	return s->taken->name;
}

uint64_t
pack_tarscan_counted(const pack_tarscan *s)
{
	return s->extension_bytes + pack_tarscan_trailer(s);
}

uint64_t
pack_tarscan_trailer(const pack_tarscan *s)
{
	/* The end is two zero blocks; the first ended the scan. */
	return s->trailer > BLOCK ? s->trailer - BLOCK : 0;
}

/* ------------------------------------------------------------ pax */

static int
set_once(pack_tarscan *s, char **slot, const unsigned char *v, size_t n,
    const char *key, ps_error *err)
{
	if (*slot != NULL)
		return refuse(s, "tar_pax_invalid", err, "the pax record '%s' "
		    "appears twice", key);
	if (n == 0)
		return refuse(s, "tar_pax_invalid", err, "the pax record '%s' "
		    "is empty", key);
	if ((*slot = strndup((const char *)v, n)) == NULL)
		return util_fail_oom(err, s->label);
	return 0;
}

/* 1 to 19 decimal digits, at most 2^63 - 1 (Go's strconv.ParseInt; no
 * sign, space, prefix or '_', which Python's int() would take). */
static int
pax_decimal(const unsigned char *v, size_t n, uint64_t *out)
{
	uint64_t x = 0;
	size_t i;

	if (n == 0 || n > 19)
		return -1;
	for (i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -1;
		x = x * 10 + (uint64_t)(v[i] - '0');
	}
	if (x > (uint64_t)INT64_MAX)
		return -1;
	*out = x;
	return 0;
}

/* An optional '-', the seconds as pax_decimal, then optionally '.' and one
 * or more digits: what every reader parses alike (Go refuses trailing
 * bytes, tarfile's float() exponents and spaces, libarchive neither). */
static int
pax_time(const unsigned char *v, size_t n)
{
	size_t secs, i;
	uint64_t ignored;

	if (n > 0 && v[0] == '-') {
		v++;
		n--;
	}
	for (secs = 0; secs < n && v[secs] != '.'; secs++)
		;
	if (pax_decimal(v, secs, &ignored) != 0 || secs + 1 == n)
		return -1;
	for (i = secs + 1; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -1;
	}
	return 0;
}

/* The numeric records other readers parse, each to its grammar: a value
 * libarchive reads leniently (digits up to the first other byte) and Go
 * refuses with the whole header, or tarfile reads as 0, means two things. */
static int
pax_number(pack_tarscan *s, const unsigned char *k, size_t klen,
    const unsigned char *v, size_t n, ps_error *err)
{
	static const char *const integers[] = { "uid", "gid",
	    "SCHILY.realsize", "SCHILY.devmajor", "SCHILY.devminor",
	    "SCHILY.dev", "SCHILY.ino", "SCHILY.nlink" };
	static const char *const times[] = { "mtime", "atime", "ctime",
	    "LIBARCHIVE.creationtime" };
	char found[100];
	uint64_t ignored;
	size_t i;
	int time = 0, bad = 0;

	for (i = 0; i < sizeof(integers) / sizeof(integers[0]) && !bad; i++)
		bad = strlen(integers[i]) == klen && memcmp(k, integers[i],
		    klen) == 0 && pax_decimal(v, n, &ignored) != 0;
	for (i = 0; i < sizeof(times) / sizeof(times[0]) && !bad; i++)
		bad = time = strlen(times[i]) == klen && memcmp(k, times[i],
		    klen) == 0 && pax_time(v, n) != 0;
	if (!bad)
		return 0;
	refuse(s, "tar_pax_invalid", err, "the pax record '%.*s' is not a %s "
	    "(Go's archive/tar refuses the header, tarfile reads 0, libarchive "
	    "the digits before the first other byte)", (int)klen,
	    (const char *)k, time ? "time" : "decimal number");
	return util_error_expect(err, time ? "[-]SECONDS[.FRACTION], decimal "
	    "digits, the seconds at most 9223372036854775807" : "1 to 19 "
	    "decimal digits, at most 9223372036854775807",
	    shown(v, n, found, sizeof(found)));
}

static int
pax_size(pack_tarscan *s, const unsigned char *v, size_t n, ps_error *err)
{
	uint64_t size = 0;

	if (s->have_pax_size || pax_decimal(v, n, &size) != 0)
		return refuse(s, "tar_pax_invalid", err, "a pax 'size' record "
		    "that is repeated or not 1 to 19 decimal digits of at most "
		    "9223372036854775807");
	s->have_pax_size = 1;
	s->pax_size = size;
	return 0;
}

/* One "KEY=VALUE" of a record: no NUL anywhere in the value (readers cut
 * it there or not); the keys that decide names and sizes, once each. */
static int
pax_record(pack_tarscan *s, const unsigned char *kv, size_t n,
    ps_error *err)
{
	const unsigned char *eq = memchr(kv, '=', n);
	size_t klen, vlen;

	if (eq == NULL || eq == kv)
		return refuse(s, "tar_pax_invalid", err, "a pax record "
		    "without KEY=VALUE");
	klen = (size_t)(eq - kv);
	vlen = n - klen - 1;
	if (memchr(eq + 1, '\0', vlen) != NULL || memchr(kv, '\0', klen) != NULL)
		return refuse(s, "tar_pax_invalid", err, "a NUL inside the pax "
		    "record '%.*s' (readers would cut the value in different "
		    "places)", (int)(klen < 64 ? klen : 64), (const char *)kv);
	if (klen == 4 && memcmp(kv, "path", 4) == 0)
		return set_once(s, &s->pax_path, eq + 1, vlen, "path", err);
	if (klen == 8 && memcmp(kv, "linkpath", 8) == 0)
		return set_once(s, &s->pax_linkpath, eq + 1, vlen, "linkpath",
		    err);
	if (klen == 4 && memcmp(kv, "size", 4) == 0)
		return pax_size(s, eq + 1, vlen, err);
	if (klen > 11 && memcmp(kv, "GNU.sparse.", 11) == 0)
		return refuse(s, "unsupported_entry", err, "a GNU sparse file "
		    "(pax sparse records)");
	return pax_number(s, kv, klen, eq + 1, vlen, err);
}

/* Records "LEN KEY=VALUE\n" filling the header's data exactly. */
static int
parse_pax(pack_tarscan *s, const unsigned char *d, size_t n, ps_error *err)
{
	size_t at = 0, len, digits;

	while (at < n) {
		len = 0;
		for (digits = 0; at + digits < n && d[at + digits] >= '0' &&
		    d[at + digits] <= '9' && digits < 8; digits++)
			len = len * 10 + (size_t)(d[at + digits] - '0');
		if (digits == 0 || at + digits >= n || d[at + digits] != ' ' ||
		    len < digits + 3 || len > n - at || d[at + len - 1] != '\n')
			return refuse(s, "tar_pax_invalid", err, "a malformed "
			    "pax record");
		if (pax_record(s, d + at + digits + 1, len - digits - 2, err) != 0)
			return -1;
		at += len;
	}
	return 0;
}

/* A GNU long name or link name: the name, then one NUL ending the data. */
static int
long_name(pack_tarscan *s, char **slot, const unsigned char *d, size_t n,
    ps_error *err)
{
	if (*slot != NULL)
		return refuse(s, "tar_name_conflict", err, "two GNU long %s "
		    "headers for one entry", s->extension == 'L' ? "name" :
		    "link");
	if (n < 2 || d[n - 1] != '\0' || memchr(d, '\0', n - 1) != NULL)
		return refuse(s, "tar_pax_invalid", err, "a GNU long name that "
		    "is empty or holds a NUL before its end");
	if ((*slot = strndup((const char *)d, n - 1)) == NULL)
		return util_fail_oom(err, s->label);
	return 0;
}

static int
end_extension(pack_tarscan *s, ps_error *err)
{
	int rc;

	if (s->extension == 'x') {
		s->have_pax = 1;
		rc = parse_pax(s, s->ext, s->ext_len, err);
	} else {
		rc = long_name(s, s->extension == 'L' ? &s->long_name :
		    &s->long_link, s->ext, s->ext_len, err);
	}
	free(s->ext);
	s->ext = NULL;
	s->skip = s->ext_pad;
	s->state = s->skip > 0 ? IN_DATA : AT_HEADER;
	return rc;
}

/* ------------------------------------------------------------ headers */

static int
begin_extension(pack_tarscan *s, char type, uint64_t size, ps_error *err)
{
	uint64_t max = type == 'x' ? PACK_TAR_PAX_MAX : PACK_TAR_LONG_NAME_MAX;

	if (type == 'x' && s->have_pax)
		return refuse(s, "tar_name_conflict", err, "two pax headers for "
		    "one entry");
	if (size > max)
		return refuse(s, "tar_pax_invalid", err, "a%s header of %llu "
		    "bytes (at most %llu)", type == 'x' ? " pax" : " GNU long "
		    "name", (unsigned long long)size, (unsigned long long)max);
	s->extension = type;
	s->ext_want = (size_t)size;
	s->ext_len = 0;
	s->ext_pad = (BLOCK - size % BLOCK) % BLOCK;
	s->ext = malloc(s->ext_want > 0 ? s->ext_want : 1);
	if (s->ext == NULL)
		return util_fail_oom(err, s->label);
	s->state = AT_EXTENSION;
	return s->ext_want == 0 ? end_extension(s, err) : 0;
}

/* An ordinary entry: its name is queued as the headers give it, its
 * data skipped (the pax size, when there is one, is its length). */
static int
begin_entry(pack_tarscan *s, char type, uint64_t size, ps_error *err)
{
	const char *name = s->pax_path != NULL ? s->pax_path : s->long_name;
	int rc;

	if ((s->long_name != NULL && s->pax_path != NULL) ||
	    (s->long_link != NULL && s->pax_linkpath != NULL))
		return refuse(s, "tar_name_conflict", err, "a GNU long %s and a "
		    "pax %s for one entry (GNU tar and bsdtar would read "
		    "different names)", s->long_name != NULL && s->pax_path !=
		    NULL ? "name" : "link", s->pax_path != NULL ? "path" :
		    "linkpath");
	if (s->have_pax_size)
		size = s->pax_size;
	if (type == '5' && size != 0)
		return refuse(s, "tar_header_type", err, "a directory header "
		    "that carries %llu bytes of data", (unsigned long long)size);
	if (type == 'S')
		return refuse(s, "unsupported_entry", err, "a GNU sparse file "
		    "(type 'S'; libarchive reads an empty map as a regular file)");
	if (memcmp(s->block + 257, "ustar\0" "00", 8) != 0 &&
	    nul_prefix(s->block + 345, 155) != 155)
		return refuse(s, "tar_name_conflict", err, "bytes in the prefix "
		    "field of a header that is not POSIX ustar (Python's tarfile "
		    "and 7-Zip prepend them to the name, GNU tar and libarchive "
		    "do not)");
	rc = name != NULL ? enqueue(s, name, strlen(name), err) :
	    enqueue_ustar_name(s, s->block, err);
	clear_pending(s);
	if (rc != 0)
		return -1;
	if ((type == '0' || type == '7') && size != 0 && ends_in_slash(s->tail))
		return refuse(s, "tar_header_type", err, "a regular-file header "
		    "whose name ends in '/' carrying %llu bytes (libarchive "
		    "reads a directory and its data as headers, GNU tar and "
		    "tarfile a file)", (unsigned long long)size);
	/* Links and devices are refused by the reader when it reaches them:
	 * where their data lies is each reader's own guess. */
	if (strchr("12346", type) != NULL) {
		s->state = PASSIVE;
		return 0;
	}
	s->skip = size + (BLOCK - size % BLOCK) % BLOCK;
	s->state = s->skip > 0 ? IN_DATA : AT_HEADER;
	return 0;
}

/* The header's other numbers, which libarchive reads up to the first byte
 * that is no digit, GNU tar and Go refuse, and Python's tarfile takes for
 * the end of the archive (it lists no entry from there on). */
static int
check_numbers(const pack_tarscan *s, ps_error *err)
{
	static const struct { size_t at, len; const char *name; } fields[] = {
		{ 100, 8, "mode" }, { 108, 8, "uid" }, { 116, 8, "gid" },
		{ 136, 12, "mtime" }, { 329, 8, "device major" },
		{ 337, 8, "device minor" },
	};
	char found[100];
	uint64_t ignored;
	size_t i;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (numeric_field(s->block + fields[i].at, fields[i].len,
		    &ignored) == 0)
			continue;
		refuse(s, "archive_corrupt", err, "the %s field is not a number "
		    "(GNU tar and Go refuse it, Python's tarfile stops reading "
		    "there, libarchive reads the digits before the first other "
		    "byte)", fields[i].name);
		return util_error_expect(err, "octal digits after spaces, then "
		    "only NULs or spaces; or base-256", shown(s->block +
		    fields[i].at, fields[i].len, found, sizeof(found)));
	}
	return 0;
}

/* Bytes 500-511, the padding of every header format packsign reads, must
 * be NUL: Go's archive/tar takes "tar\0" at 508 (with the ustar magic) for
 * the star format, whose prefix field ends at byte 475 (476-499 its atime
 * and ctime), so that a prefix running past it names another path to Go
 * than to GNU tar, bsdtar, libarchive and Python's tarfile. */
static int
check_padding(const pack_tarscan *s, ps_error *err)
{
	char found[100];

	if (nul_prefix(s->block + 500, 12) == 12)
		return 0;
	refuse(s, "tar_header_padding", err, "bytes 500-511 of the header are "
	    "not all NUL (Go's archive/tar reads \"tar\\0\" at 508 as the "
	    "star format, whose prefix field ends at byte 475: another name "
	    "than GNU tar, bsdtar and libarchive read)");
	return util_error_expect(err, "12 NUL bytes", shown(s->block + 500, 12,
	    found, sizeof(found)));
}

static int
end_header(pack_tarscan *s, ps_error *err)
{
	char type = (char)s->block[156];
	uint64_t size;

	if (nul_prefix(s->block, BLOCK) == BLOCK) {
		if (s->have_pax || s->long_name != NULL || s->long_link != NULL)
			return refuse(s, "tar_pax_invalid", err, "an extended "
			    "header that no entry follows");
		s->state = AT_END;
		return 0;
	}
	if (!checksum_ok(s->block) || numeric_field(s->block + 124, 12,
	    &size) != 0)
		return refuse(s, "archive_corrupt", err, "a bad checksum or "
		    "size field");
	if (check_numbers(s, err) != 0)
		return -1;
	if (check_padding(s, err) != 0)
		return -1;
	if (type == 'g')
		return refuse(s, "tar_global_header", err, "a pax global header "
		    "(GNU tar and Python's tarfile apply it to every entry, "
		    "libarchive ignores it)");
	if (type == 'x' || type == 'L' || type == 'K')
		return begin_extension(s, type, size, err);
	if (type == '\0')
		type = '0';                 /* pre-POSIX regular file */
	if (strchr("01234567S", type) != NULL)
		return begin_entry(s, type, size, err);
	return refuse(s, "tar_header_type", err, "the header type '%c' "
	    "(0x%02x), which packsign does not read", type >= 0x20 &&
	    type < 0x7f ? type : '?', (unsigned)(unsigned char)type);
}

static size_t
take(pack_tarscan *s, const unsigned char *p, size_t n, ps_error *err,
    int *rc)
{
	size_t k;

	switch (s->state) {
	case AT_HEADER:
		k = BLOCK - s->have < n ? BLOCK - s->have : n;
		memcpy(s->block + s->have, p, k);
		if ((s->have += k) == BLOCK) {
			s->have = 0;
			*rc = end_header(s, err);
			s->offset += BLOCK;
		}
		return k;
	case AT_EXTENSION:
		k = s->ext_want - s->ext_len < n ? s->ext_want - s->ext_len : n;
		memcpy(s->ext + s->ext_len, p, k);
		s->extension_bytes += k;
		if ((s->ext_len += k) == s->ext_want)
			*rc = end_extension(s, err);
		s->offset += k;
		return k;
	case IN_DATA:
		k = s->skip < n ? (size_t)s->skip : n;
		if ((s->skip -= k) == 0)
			s->state = AT_HEADER;
		s->offset += k;
		return k;
	case AT_END:
		/* Only the NUL bytes count: the trailer must not depend on
		 * where the stream was cut around a refused byte. */
		k = nul_prefix(p, n);
		s->trailer += k;
		if (k < n)
			*rc = refuse(s, "archive_trailing_data", err, "data after "
			    "the end-of-archive block (only NUL bytes may follow; "
			    "tar -i and other readers would read it)");
		return n;
	default:
		return n;
	}
}

int
pack_tarscan_feed(pack_tarscan *s, const void *buf, size_t len,
    ps_error *err)
{
	const unsigned char *p = buf;
	size_t k;
	int rc = 0;

	while (len > 0 && rc == 0) {
		k = take(s, p, len, err, &rc);
		p += k;
		len -= k;
	}
	return rc;
}

int
pack_tarscan_finish(pack_tarscan *s, ps_error *err)
{
	if (s->state == AT_END || s->state == PASSIVE)
		return 0;
	return refuse(s, "archive_corrupt", err, "the tar stream ends %s",
	    s->state == AT_HEADER && s->have == 0 ? "without its "
	    "end-of-archive block" : "inside a header or an entry's data");
}
