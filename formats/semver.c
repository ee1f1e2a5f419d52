/*
 * SemVer 2.0.0 versions and npm node-semver ranges.  Ranges are desugared
 * into comparator sets exactly as node-semver 7 does (caret, tilde,
 * x-ranges, hyphen ranges); docs/formats/manifests.md, "Versions and
 * ranges", is the specification, including where packsign is stricter.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/semver.h"

#define RANGE_MAX_BYTES 1024
#define RANGE_MAX_COMPARATORS 128
#define RANGE_MAX_SETS 64
#define RANGE_MAX_WORDS 256

#define DIGITS "0123456789"
#define IDENT_CHARS \
	"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-"

typedef enum cmp_op { OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ } cmp_op;

typedef struct comparator {
	cmp_op op;
	formats_semver version;
} comparator;

typedef struct comparator_set {
	size_t first;
	size_t count;
} comparator_set;

struct formats_semver_range {
	comparator comps[RANGE_MAX_COMPARATORS];
	size_t ncomps;
	comparator_set sets[RANGE_MAX_SETS];
	size_t nsets;
};

/* A text slice: ranges are parsed in place. */
typedef struct span {
	const char *p;
	size_t len;
} span;

/* A partial version: missing parts and x, X or * parts are "wild". */
typedef struct partial {
	int wild_major, wild_minor, wild_patch;
	uint64_t major, minor, patch;
	char prerelease[sizeof(((formats_semver *)0)->prerelease)];
} partial;

typedef struct range_parser {
	formats_semver_range *range;
	char *why;
	size_t why_size;
} range_parser;

/* --------------------------------------------------------------- versions */

/* A numeric identifier: "0" or no leading zero; refuses uint64 overflow. */
static int
parse_number(span *s, uint64_t *out)
{
	size_t n = 0;
	uint64_t v = 0;
	unsigned d;

	while (n < s->len && s->p[n] >= '0' && s->p[n] <= '9') {
		d = (unsigned)(s->p[n] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
		n++;
	}
	if (n == 0 || (n > 1 && s->p[0] == '0'))
		return -1;
	s->p += n;
	s->len -= n;
	*out = v;
	return 0;
}

static int
is_numeric(const char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (p[i] < '0' || p[i] > '9')
			return 0;
	}
	return len > 0;
}

/* Empty, or (pre-release only) numeric with a leading zero. */
static int
bad_identifier(const char *p, size_t len, int prerelease)
{
	if (len == 0)
		return 1;
	return prerelease && len > 1 && p[0] == '0' && is_numeric(p, len);
}

/*
 * Dot-separated identifiers of [0-9A-Za-z-]+ up to `stop` (a character
 * ending the list, or NUL for the end of `s`); pre-release numeric
 * identifiers must not have leading zeros.  Copied to `out` when it fits.
 */
static int
parse_identifiers(span *s, char stop, int prerelease, char *out,
    size_t out_size)
{
	size_t n = 0, start = 0;
	char c;

	while (n < s->len && s->p[n] != stop) {
		c = s->p[n];
		if (c == '.') {
			if (bad_identifier(s->p + start, n - start, prerelease))
				return -1;
			start = n + 1;
		} else if (c == '\0' || strchr(IDENT_CHARS, c) == NULL) {
			return -1;
		}
		n++;
	}
	if (bad_identifier(s->p + start, n - start, prerelease) || n >= out_size)
		return -1;
	memcpy(out, s->p, n);
	out[n] = '\0';
	s->p += n;
	s->len -= n;
	return 0;
}

/* "-pre" and "+build" after the patch number, both optional. */
static int
parse_qualifier(span *s, char *pre, size_t pre_size, char *build,
    size_t build_size)
{
	pre[0] = '\0';
	build[0] = '\0';
	if (s->len > 0 && s->p[0] == '-') {
		s->p++;
		s->len--;
		if (parse_identifiers(s, '+', 1, pre, pre_size) != 0)
			return -1;
	}
	if (s->len > 0 && s->p[0] == '+') {
		s->p++;
		s->len--;
		if (parse_identifiers(s, '\0', 0, build, build_size) != 0)
			return -1;
	}
	return s->len == 0 ? 0 : -1;
}

static int
expect_dot(span *s)
{
	if (s->len == 0 || s->p[0] != '.')
		return -1;
	s->p++;
	s->len--;
	return 0;
}

static int
parse_version_span(span s, formats_semver *out)
{
	formats_semver v;

	memset(&v, 0, sizeof(v));
	if (parse_number(&s, &v.major) != 0 || expect_dot(&s) != 0 ||
	    parse_number(&s, &v.minor) != 0 || expect_dot(&s) != 0 ||
	    parse_number(&s, &v.patch) != 0)
		return -1;
	if (parse_qualifier(&s, v.prerelease, sizeof(v.prerelease), v.build,
	    sizeof(v.build)) != 0)
		return -1;
	*out = v;
	return 0;
}

int
formats_semver_parse(const char *text, formats_semver *out)
{
	span s;

	if (text == NULL)
		return -1;
	s.p = text;
	s.len = strnlen(text, RANGE_MAX_BYTES + 1);
	if (s.len > RANGE_MAX_BYTES)
		return -1;
	return parse_version_span(s, out);
}

/* ------------------------------------------------------------- precedence */

static int
compare_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : (a > b);
}

/* Numeric identifiers have no leading zeros: longer is larger. */
static int
compare_identifier(const char *a, size_t alen, const char *b, size_t blen)
{
	int an = is_numeric(a, alen), bn = is_numeric(b, blen), c;

	if (an && bn) {
		if (alen != blen)
			return alen < blen ? -1 : 1;
		return memcmp(a, b, alen);
	}
	if (an != bn)
		return an ? -1 : 1;
	c = memcmp(a, b, alen < blen ? alen : blen);
	if (c != 0)
		return c;
	return alen < blen ? -1 : (alen > blen);
}

static int
compare_prerelease(const char *a, const char *b)
{
	size_t alen, blen;
	int c;

	if (a[0] == '\0' || b[0] == '\0')
		return (a[0] == '\0') - (b[0] == '\0');
	for (;;) {
		alen = strcspn(a, ".");
		blen = strcspn(b, ".");
		c = compare_identifier(a, alen, b, blen);
		if (c != 0)
			return c < 0 ? -1 : 1;
		a += alen;
		b += blen;
		if (*a == '\0' || *b == '\0')
			return (*a != '\0') - (*b != '\0');
		a++;
		b++;
	}
}

int
formats_semver_compare(const formats_semver *a, const formats_semver *b)
{
	int c;

	if ((c = compare_u64(a->major, b->major)) != 0 ||
	    (c = compare_u64(a->minor, b->minor)) != 0 ||
	    (c = compare_u64(a->patch, b->patch)) != 0)
		return c;
	return compare_prerelease(a->prerelease, b->prerelease);
}

/* ------------------------------------------------------- range building */

static int why_set(range_parser *rp, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
why_set(range_parser *rp, const char *fmt, ...)
{
	va_list ap;

	if (rp->why != NULL && rp->why_size > 0) {
		va_start(ap, fmt);
		vsnprintf(rp->why, rp->why_size, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int
add_comparator(range_parser *rp, cmp_op op, uint64_t major, uint64_t minor,
    uint64_t patch, const char *prerelease)
{
	comparator *c;

	if (rp->range->ncomps == RANGE_MAX_COMPARATORS)
		return why_set(rp, "more than %d comparators",
		    RANGE_MAX_COMPARATORS);
	c = &rp->range->comps[rp->range->ncomps++];
	memset(c, 0, sizeof(*c));
	c->op = op;
	c->version.major = major;
	c->version.minor = minor;
	c->version.patch = patch;
	snprintf(c->version.prerelease, sizeof(c->version.prerelease), "%s",
	    prerelease);
	rp->range->sets[rp->range->nsets - 1].count++;
	return 0;
}

/* n + 1 for an upper bound; refuses wrapping past UINT64_MAX. */
static int
next_number(range_parser *rp, uint64_t n, uint64_t *out)
{
	if (n == UINT64_MAX)
		return why_set(rp, "version number too large to take the next");
	*out = n + 1;
	return 0;
}

/* Parses an xr: x, X, * or a numeric identifier. */
static int
parse_xr(span *s, int *wild, uint64_t *n)
{
	if (s->len > 0 && strchr("xX*", s->p[0]) != NULL && s->p[0] != '\0') {
		*wild = 1;
		*n = 0;
		s->p++;
		s->len--;
		return 0;
	}
	*wild = 0;
	return parse_number(s, n);
}

/*
 * partial ::= xr ( '.' xr ( '.' xr qualifier? )? )?   A missing part is
 * wild; a part after a wild one must be wild too.  A qualifier is allowed
 * only after three numbers (node-semver would drop it silently).
 */
static int
parse_partial(span s, partial *out)
{
	char build[sizeof(((formats_semver *)0)->build)];

	memset(out, 0, sizeof(*out));
	out->wild_minor = out->wild_patch = 1;
	if (parse_xr(&s, &out->wild_major, &out->major) != 0)
		return -1;
	if (s.len > 0 && (expect_dot(&s) != 0 ||
	    parse_xr(&s, &out->wild_minor, &out->minor) != 0))
		return -1;
	if (s.len > 0 && s.p[0] == '.' && (expect_dot(&s) != 0 ||
	    parse_xr(&s, &out->wild_patch, &out->patch) != 0))
		return -1;
	/* As node-semver: no number after a wild part ("1.x.3"). */
	if ((out->wild_major && !out->wild_minor) ||
	    (out->wild_minor && !out->wild_patch))
		return -1;
	if (s.len > 0 && out->wild_patch)
		return -1;
	return parse_qualifier(&s, out->prerelease, sizeof(out->prerelease),
	    build, sizeof(build));
}

/* ^M.x and ~M.x: >=M.0.0 <(M+1).0.0-0 */
static int
desugar_major_only(range_parser *rp, uint64_t major)
{
	uint64_t up = 0;

	return next_number(rp, major, &up) != 0 ||
	    add_comparator(rp, OP_GE, major, 0, 0, "") != 0 ||
	    add_comparator(rp, OP_LT, up, 0, 0, "0") != 0 ? -1 : 0;
}

/* ^M.m.p: changes to the left-most non-zero part are not allowed. */
static int
desugar_caret(range_parser *rp, const partial *v)
{
	uint64_t up = 0;

	if (v->wild_major)
		return 0;
	if (v->wild_minor)
		return desugar_major_only(rp, v->major);
	if (v->major != 0)
		return next_number(rp, v->major, &up) != 0 ||
		    add_comparator(rp, OP_GE, v->major, v->minor, v->patch,
		    v->prerelease) != 0 ||
		    add_comparator(rp, OP_LT, up, 0, 0, "0") != 0 ? -1 : 0;
	if (v->minor != 0 || v->wild_patch)
		return next_number(rp, v->minor, &up) != 0 ||
		    add_comparator(rp, OP_GE, 0, v->minor, v->patch,
		    v->prerelease) != 0 ||
		    add_comparator(rp, OP_LT, 0, up, 0, "0") != 0 ? -1 : 0;
	return next_number(rp, v->patch, &up) != 0 ||
	    add_comparator(rp, OP_GE, 0, 0, v->patch, v->prerelease) != 0 ||
	    add_comparator(rp, OP_LT, 0, 0, up, "0") != 0 ? -1 : 0;
}

/* ~M.m.p: patch-level changes if a minor is given, else minor-level. */
static int
desugar_tilde(range_parser *rp, const partial *v)
{
	uint64_t up = 0;

	if (v->wild_major)
		return 0;
	if (v->wild_minor)
		return desugar_major_only(rp, v->major);
	return next_number(rp, v->minor, &up) != 0 ||
	    add_comparator(rp, OP_GE, v->major, v->minor, v->patch,
	    v->prerelease) != 0 ||
	    add_comparator(rp, OP_LT, v->major, up, 0, "0") != 0 ? -1 : 0;
}

/* A bare or '=' partial: exact when complete, else an x-range (which
 * for partials is the same as the tilde range). */
static int
desugar_equal(range_parser *rp, const partial *v)
{
	if (!v->wild_patch)
		return add_comparator(rp, OP_EQ, v->major, v->minor, v->patch,
		    v->prerelease);
	return desugar_tilde(rp, v);
}

/*
 * >, >=, <, <= with wild parts (node-semver's replaceXRange): ">1.2" is
 * ">=1.3.0", "<=1.2" is "<1.3.0-0", "<1.2" is "<1.2.0-0", ">=1" is
 * ">=1.0.0"; ">*" and "<*" match nothing, ">=*" and "<=*" anything.
 */
static int
desugar_wild_primitive(range_parser *rp, cmp_op op, const partial *v)
{
	uint64_t major = v->major, minor = v->minor;

	if (v->wild_major)
		return op == OP_GT || op == OP_LT ?
		    add_comparator(rp, OP_LT, 0, 0, 0, "0") : 0;
	if (op == OP_GT || op == OP_LE) {
		if (v->wild_minor ? next_number(rp, v->major, &major) :
		    next_number(rp, v->minor, &minor))
			return -1;
		op = op == OP_GT ? OP_GE : OP_LT;
	}
	return add_comparator(rp, op, major, minor, 0,
	    op == OP_LT ? "0" : "");
}

static int
desugar_primitive(range_parser *rp, cmp_op op, const partial *v)
{
	if (v->wild_patch)
		return desugar_wild_primitive(rp, op, v);
	return add_comparator(rp, op, v->major, v->minor, v->patch,
	    v->prerelease);
}

/* ------------------------------------------------------- range parsing */

static int
is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* The operator at the start of `s`, consumed; "" when there is none. */
static const char *
take_operator(span *s)
{
	static const char *const ops[] = { ">=", "<=", "~>", ">", "<", "=",
	    "~", "^" };
	size_t i, n;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		n = strlen(ops[i]);
		if (s->len >= n && memcmp(s->p, ops[i], n) == 0) {
			s->p += n;
			s->len -= n;
			return ops[i];
		}
	}
	return "";
}

/* node-semver accepts one 'v' before a version in ranges. */
static span
skip_v(span s)
{
	if (s.len > 1 && s.p[0] == 'v') {
		s.p++;
		s.len--;
	}
	return s;
}

static int
parse_comparator(range_parser *rp, span word)
{
	span s = word;
	const char *op = take_operator(&s);
	partial v;

	if (s.len == 0 || parse_partial(skip_v(s), &v) != 0)
		return why_set(rp, "invalid comparator '%.*s'", (int)word.len,
		    word.p);
	if (strcmp(op, "^") == 0)
		return desugar_caret(rp, &v);
	if (op[0] == '~')
		return desugar_tilde(rp, &v);
	if (op[0] == '\0' || strcmp(op, "=") == 0)
		return desugar_equal(rp, &v);
	if (strcmp(op, ">=") == 0)
		return desugar_primitive(rp, OP_GE, &v);
	if (strcmp(op, "<=") == 0)
		return desugar_primitive(rp, OP_LE, &v);
	return desugar_primitive(rp, op[0] == '>' ? OP_GT : OP_LT, &v);
}

/* node-semver's hyphenReplace: inclusive on both ends, partials widened. */
static int
parse_hyphen(range_parser *rp, span from_word, span to_word)
{
	partial from, to;
	uint64_t up = 0;

	if (parse_partial(skip_v(from_word), &from) != 0 ||
	    parse_partial(skip_v(to_word), &to) != 0)
		return why_set(rp, "invalid hyphen range '%.*s - %.*s'",
		    (int)from_word.len, from_word.p, (int)to_word.len,
		    to_word.p);
	if (!from.wild_major && add_comparator(rp, OP_GE, from.major,
	    from.minor, from.patch, from.prerelease) != 0)
		return -1;
	if (to.wild_major)
		return 0;
	if (to.wild_minor)
		return next_number(rp, to.major, &up) != 0 ||
		    add_comparator(rp, OP_LT, up, 0, 0, "0") != 0 ? -1 : 0;
	if (to.wild_patch)
		return next_number(rp, to.minor, &up) != 0 ||
		    add_comparator(rp, OP_LT, to.major, up, 0, "0") != 0 ?
		    -1 : 0;
	return add_comparator(rp, OP_LE, to.major, to.minor, to.patch,
	    to.prerelease);
}

/*
 * Copies `alt` to `buf` without the blanks that follow an operator, as
 * node-semver does: ">= 1.2.3" is ">=1.2.3", "^ 1.2" is "^1.2".
 */
static size_t
join_operators(span alt, char *buf)
{
	size_t i = 0, n = 0;

	while (i < alt.len) {
		buf[n++] = alt.p[i];
		if (strchr("<>=~^", alt.p[i]) != NULL && (i + 1 == alt.len ||
		    strchr("<>=~^", alt.p[i + 1]) == NULL)) {
			while (i + 1 < alt.len && is_space(alt.p[i + 1]))
				i++;
		}
		i++;
	}
	buf[n] = '\0';
	return n;
}

static int
split_words(range_parser *rp, const char *buf, size_t len, span *words,
    size_t *count)
{
	size_t i = 0, start, n = 0;

	while (i < len) {
		while (i < len && is_space(buf[i]))
			i++;
		if (i == len)
			break;
		if (n == RANGE_MAX_WORDS)
			return why_set(rp, "more than %d comparators",
			    RANGE_MAX_WORDS);
		start = i;
		while (i < len && !is_space(buf[i]))
			i++;
		words[n].p = buf + start;
		words[n++].len = i - start;
	}
	*count = n;
	return 0;
}

static int
parse_alternative(range_parser *rp, span alt)
{
	span words[RANGE_MAX_WORDS];
	char buf[RANGE_MAX_BYTES + 1];
	size_t n = 0, i;

	if (rp->range->nsets == RANGE_MAX_SETS)
		return why_set(rp, "more than %d alternatives", RANGE_MAX_SETS);
	rp->range->sets[rp->range->nsets].first = rp->range->ncomps;
	rp->range->sets[rp->range->nsets++].count = 0;
	if (split_words(rp, buf, join_operators(alt, buf), words, &n) != 0)
		return -1;
	if (n == 3 && words[1].len == 1 && words[1].p[0] == '-')
		return parse_hyphen(rp, words[0], words[2]);
	for (i = 0; i < n; i++) {
		if (parse_comparator(rp, words[i]) != 0)
			return -1;
	}
	return 0;
}

static int
is_blank(span s)
{
	size_t i;

	for (i = 0; i < s.len; i++) {
		if (!is_space(s.p[i]))
			return 0;
	}
	return 1;
}

/* Splits on "||"; an empty alternative among several is refused. */
static int
parse_alternatives(range_parser *rp, const char *text, size_t len)
{
	span alt;
	const char *bar;
	int several = memmem(text, len, "||", 2) != NULL;

	for (;;) {
		bar = memmem(text, len, "||", 2);
		alt.p = text;
		alt.len = bar != NULL ? (size_t)(bar - text) : len;
		if (memchr(alt.p, '|', alt.len) != NULL)
			return why_set(rp, "a single '|' (use '||' for OR)");
		if (several && is_blank(alt))
			return why_set(rp, "empty alternative around '||'");
		if (parse_alternative(rp, alt) != 0)
			return -1;
		if (bar == NULL)
			return 0;
		len -= (size_t)(bar - text) + 2;
		text = bar + 2;
	}
}

int
formats_semver_range_parse(const char *text, formats_semver_range **out, char *why,
    size_t why_size)
{
	range_parser rp;
	size_t len;

	*out = NULL;
	rp.why = why;
	rp.why_size = why_size;
	rp.range = NULL;
	if (text == NULL)
		return why_set(&rp, "no range");
	len = strnlen(text, RANGE_MAX_BYTES + 1);
	if (len > RANGE_MAX_BYTES)
		return why_set(&rp, "range longer than %d bytes",
		    RANGE_MAX_BYTES);
	if ((rp.range = calloc(1, sizeof(*rp.range))) == NULL)
		return why_set(&rp, "out of memory");
	if (parse_alternatives(&rp, text, len) != 0) {
		free(rp.range);
		return -1;
	}
	*out = rp.range;
	return 0;
}

void
formats_semver_range_free(formats_semver_range *range)
{
	free(range);
}

/* ---------------------------------------------------------- satisfaction */

static int
comparator_test(const comparator *c, const formats_semver *v)
{
	int cmp = formats_semver_compare(v, &c->version);

	switch (c->op) {
	case OP_LT:
		return cmp < 0;
	case OP_LE:
		return cmp <= 0;
	case OP_GT:
		return cmp > 0;
	case OP_GE:
		return cmp >= 0;
	default:
		return cmp == 0;
	}
}

static int
same_tuple(const formats_semver *a, const formats_semver *b)
{
	return a->major == b->major && a->minor == b->minor &&
	    a->patch == b->patch;
}

/*
 * Every comparator must hold; a pre-release version must also share its
 * [major, minor, patch] with a comparator that has a pre-release.
 */
static int
set_test(const comparator *comps, size_t count, const formats_semver *v)
{
	size_t i;

	for (i = 0; i < count; i++) {
		if (!comparator_test(&comps[i], v))
			return 0;
	}
	if (v->prerelease[0] == '\0')
		return 1;
	for (i = 0; i < count; i++) {
		if (comps[i].version.prerelease[0] != '\0' &&
		    same_tuple(&comps[i].version, v))
			return 1;
	}
	return 0;
}

int
formats_semver_range_satisfies(const formats_semver_range *range,
    const formats_semver *version)
{
	size_t i;

	for (i = 0; i < range->nsets; i++) {
		if (set_test(range->comps + range->sets[i].first,
		    range->sets[i].count, version))
			return 1;
	}
	return 0;
}

/* ------------------------------------------------------------ formatting */

static size_t
append(char *buf, size_t size, size_t used, const char *text)
{
	int n;

	if (used >= size)
		return used;
	n = snprintf(buf + used, size - used, "%s", text);
	return n < 0 ? used : used + (size_t)n;
}

static void
format_comparator(const comparator *c, char *out, size_t size)
{
	static const char *const ops[] = { "<", "<=", ">", ">=", "" };

	snprintf(out, size, "%s%llu.%llu.%llu%s%s", ops[c->op],
	    (unsigned long long)c->version.major,
	    (unsigned long long)c->version.minor,
	    (unsigned long long)c->version.patch,
	    c->version.prerelease[0] != '\0' ? "-" : "",
	    c->version.prerelease);
}

char *
formats_semver_range_format(const formats_semver_range *range, char *buf, size_t size)
{
	char one[sizeof(((formats_semver *)0)->prerelease) + 80];
	size_t used = 0, i, j;
	const comparator_set *set;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < range->nsets; i++) {
		set = &range->sets[i];
		if (i > 0)
			used = append(buf, size, used, " || ");
		if (set->count == 0)
			used = append(buf, size, used, "*");
		for (j = 0; j < set->count; j++) {
			format_comparator(&range->comps[set->first + j], one,
			    sizeof(one));
			if (j > 0)
				used = append(buf, size, used, " ");
			used = append(buf, size, used, one);
		}
	}
	return buf;
}
