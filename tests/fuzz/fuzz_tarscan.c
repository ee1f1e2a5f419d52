/*
 * The tar header scan (pack/tarscan.c) that the archive reader runs over
 * the uncompressed tar stream before libarchive parses a byte of it.
 * Byte 0 picks how the rest is cut into feeds: 1 byte, 7 bytes, 512
 * bytes, or random cuts (zero-length feeds among them) from a generator
 * seeded by byte 0 and the length.  The stream is scanned in a single
 * feed with the names taken at the end, and again cut so with the names
 * taken after every feed (the reader takes them as libarchive reports
 * entries); the two scans must agree: the same outcome, the same error
 * code, the same names in the same order, the same trailer.  A third
 * scan, in one feed, takes no name (the scan is freed with its names
 * queued) and must end as the first.  Every name is a string shorter
 * than the stream and than PACK_TAR_PAX_MAX, and one longer than a ustar
 * header can hold is found in the stream as a pax path or a GNU long name
 * within its limit.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "pack/tarscan.h"

/* The longest name a ustar header holds: prefix, '/', name. */
#define USTAR_NAME_MAX (155 + 1 + 100)

enum cut { CUT_WHOLE, CUT_ONE, CUT_SEVEN, CUT_BLOCK, CUT_RANDOM };

struct scan {
	int rc;                       /* 0, or -1: a feed or finish refused */
	char code[PS_ERROR_CODE_MAX];
	char *names;                  /* each name followed by its NUL */
	size_t len, cap, count;
	uint64_t trailer;
};

struct feeder {
	enum cut cut;
	uint64_t state;               /* CUT_RANDOM's xorshift64 state */
};

static size_t
next_cut(struct feeder *f, size_t left)
{
	size_t n;

	switch (f->cut) {
	case CUT_ONE:
		n = 1;
		break;
	case CUT_SEVEN:
		n = 7;
		break;
	case CUT_BLOCK:
		n = 512;
		break;
	case CUT_RANDOM:
		f->state ^= f->state << 13;
		f->state ^= f->state >> 7;
		f->state ^= f->state << 17;
		/* Mostly short, sometimes empty, sometimes past a block. */
		n = (size_t)(f->state % 8 == 0 ? 0 : f->state % 1100);
		break;
	default:
		n = left;
	}
	return n < left ? n : left;
}

/* `name` (len bytes) occurs in the stream between `before` and `after`. */
static int
occurs(const uint8_t *s, size_t n, const char *name, size_t len,
    const char *before, char after)
{
	size_t blen = strlen(before), at = 0;
	const uint8_t *hit;

	while (at < n && (hit = memmem(s + at, n - at, name, len)) != NULL) {
		size_t off = (size_t)(hit - s);

		if (off >= blen && memcmp(hit - blen, before, blen) == 0 &&
		    off + len < n && hit[len] == (uint8_t)after)
			return 1;
		at = off + 1;
	}
	return 0;
}

/* A name handed out: a string within its bounds, from the stream. */
static void
check_name(const char *name, const uint8_t *s, size_t n)
{
	size_t len = strnlen(name, PACK_TAR_PAX_MAX);

	if (len >= PACK_TAR_PAX_MAX || len >= n)
		fuzz_fail("pack_tarscan_next_name", "a name longer than its "
		    "bound or than the stream");
	if (len <= USTAR_NAME_MAX)
		return;
	if (occurs(s, n, name, len, " path=", '\n'))
		return;
	if (len >= PACK_TAR_LONG_NAME_MAX || !occurs(s, n, name, len, "", '\0'))
		fuzz_fail("pack_tarscan_next_name", "a long name that is neither "
		    "a pax path nor a GNU long name of the stream");
}

static void
drain(pack_tarscan *t, struct scan *r, const uint8_t *s, size_t n)
{
	const char *name;
	size_t len;

	while ((name = pack_tarscan_next_name(t)) != NULL) {
		check_name(name, s, n);
		len = strlen(name) + 1;
		if (r->cap - r->len < len) {
			r->cap = (r->cap + len) * 2;
			if ((r->names = realloc(r->names, r->cap)) == NULL)
				fuzz_fail("realloc", "names");
		}
		memcpy(r->names + r->len, name, len);
		r->len += len;
		r->count++;
	}
	if (pack_tarscan_next_name(t) != NULL)
		fuzz_fail("pack_tarscan_next_name", "a name after NULL");
}

/* Feeds the stream cut as `f` says, then finishes it, as the reader does:
 * the first refusal ends the scan.  Names are taken after every feed
 * when cut, at the end when whole, never when `take` is 0 (the scan is
 * freed with its names queued, as when the reader stops). */
static void
scan(const uint8_t *s, size_t n, struct feeder *f, int take, struct scan *r)
{
	pack_tarscan *t = NULL;
	ps_error err;
	size_t at = 0, k;

	memset(r, 0, sizeof(*r));
	ps_error_clear(&err);
	if (pack_tarscan_new("fuzz.tar", &t, &err) != 0)
		fuzz_fail("pack_tarscan_new", err.code);
	while (r->rc == 0 && at < n) {
		k = next_cut(f, n - at);
		r->rc = pack_tarscan_feed(t, s + at, k, &err);
		at += k;
		if (take && f->cut != CUT_WHOLE)
			drain(t, r, s, n);
	}
	if (r->rc == 0)
		r->rc = pack_tarscan_finish(t, &err);
	if (r->rc != 0) {
		fuzz_check_error(&err, "pack_tarscan_feed/finish");
		snprintf(r->code, sizeof(r->code), "%s", err.code);
	}
	if (take)
		drain(t, r, s, n);
	r->trailer = pack_tarscan_trailer(t);
	pack_tarscan_free(t);
}

static void
check_same(const struct scan *a, const struct scan *b)
{
	if (a->rc != b->rc || strcmp(a->code, b->code) != 0)
		fuzz_fail("chunking", "the outcome depends on how the stream is "
		    "cut");
	if (a->count != b->count || a->len != b->len ||
	    (a->len > 0 && memcmp(a->names, b->names, a->len) != 0))
		fuzz_fail("chunking", "the names depend on how the stream is cut");
	if (a->trailer != b->trailer)
		fuzz_fail("chunking", "the trailer depends on how the stream is "
		    "cut");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct feeder whole = { CUT_WHOLE, 0 }, cut;
	struct scan a, b;

	if (size < 1)
		return 0;
	cut.cut = (enum cut)(CUT_ONE + data[0] % 4);
	cut.state = ((uint64_t)data[0] << 32 | (uint64_t)size) ^
	    0x9e3779b97f4a7c15ULL;
	scan(data + 1, size - 1, &whole, 1, &a);
	scan(data + 1, size - 1, &cut, 1, &b);
	fuzz_note("pack_tarscan", a.rc == 0 ? "ok" : a.code);
	check_same(&a, &b);
	free(b.names);
	/* Taking names or not does not change the outcome. */
	scan(data + 1, size - 1, &whole, 0, &b);
	if (a.rc != b.rc || strcmp(a.code, b.code) != 0 ||
	    a.trailer != b.trailer)
		fuzz_fail("pack_tarscan_next_name", "taking names changed the "
		    "outcome");
	/* A whole scan ends at an end-of-archive block (512 bytes) or a
	 * link; what follows the block is the trailer. */
	if (a.rc == 0 && a.trailer + 1024 > size - 1 && a.trailer > 0)
		fuzz_fail("pack_tarscan_trailer", "more trailer than stream");
	free(a.names);
	free(b.names);
	return 0;
}
