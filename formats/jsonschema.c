/*
 * A JSON Schema subset over YAML trees.  formats_jsonschema_check reports a
 * malformed schema (schema_invalid) and every keyword outside the subset
 * (schema_keyword_unsupported, a warning: never silently ignored);
 * formats_jsonschema_validate reports each mismatch (schema_mismatch).
 * docs/formats/manifests.md, "JSON Schema subset", is the specification.
 */
#include <locale.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <unistr.h>

#include "formats/jsonschema.h"

#define JS_MAX_DEPTH 64
#define JS_MAX_REPEAT 256
#define JS_MAX_PATTERN 512
#define JS_MAX_REPORTS 100
#define JS_POINTER_MAX 256
#define JS_QUOTE_MAX 48

typedef struct js_check {
	const char *file;
	ps_diags *diags;
	size_t errors;
} js_check;

typedef struct js_validate {
	const char *file;
	const char *label;
	ps_severity severity;
	ps_diags *diags;
	size_t mismatches;
	char pointer[JS_POINTER_MAX];
	size_t pointer_len;
} js_validate;

static const char *const annotations[] = {
	"title", "description", "default", "examples", "$schema", "$id",
	"$comment", "deprecated", "readOnly", "writeOnly",
};

static const char *const type_names[] = {
	"null", "boolean", "integer", "number", "string", "array", "object",
};

/* ------------------------------------------------------------- helpers */

static int
is_one_of(const char *s, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(s, list[i]) == 0)
			return 1;
	}
	return 0;
}

#define IS_ONE_OF(s, list) is_one_of((s), (list), sizeof(list) / sizeof((list)[0]))

static int
is_kind(const util_yaml_node *n, util_yaml_kind kind)
{
	return n != NULL && n->kind == kind;
}

static int
is_string(const util_yaml_node *n)
{
	return util_yaml_string(n) != NULL;
}

static int
is_numeric(const util_yaml_node *n)
{
	return is_kind(n, UTIL_YAML_SCALAR) && (n->type == UTIL_YAML_INT ||
	    n->type == UTIL_YAML_FLOAT);
}

static int
is_bool(const util_yaml_node *n)
{
	return is_kind(n, UTIL_YAML_SCALAR) && n->type == UTIL_YAML_BOOL;
}

static int
is_false(const util_yaml_node *n)
{
	int b;

	return util_yaml_bool(n, &b) == 0 && b == 0;
}

/* A value for a message: strings quoted and cut, collections by kind. */
static void
quote_value(const util_yaml_node *n, char *out, size_t size)
{
	size_t i, len, o = 0;
	int quote;

	if (n == NULL || n->kind != UTIL_YAML_SCALAR) {
		snprintf(out, size, "%s", n == NULL ? "nothing" :
		    n->kind == UTIL_YAML_MAPPING ? "an object" : "an array");
		return;
	}
	quote = n->type == UTIL_YAML_STRING;
	len = n->length < JS_QUOTE_MAX ? n->length : JS_QUOTE_MAX;
	while (len < n->length && len > 0 &&
	    ((unsigned char)n->value[len] & 0xC0) == 0x80)
		len--;
	if (quote && o + 1 < size)
		out[o++] = '\'';
	for (i = 0; i < len && o + 1 < size; i++) {
		unsigned char c = (unsigned char)n->value[i];
		out[o++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	if (len < n->length && o + 4 < size) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	if (quote && o + 1 < size)
		out[o++] = '\'';
	out[o] = '\0';
}

/* The JSON Schema type name of an instance node. */
static const char *
instance_type(const util_yaml_node *n)
{
	if (n->kind == UTIL_YAML_MAPPING)
		return "object";
	if (n->kind == UTIL_YAML_SEQUENCE)
		return "array";
	switch (n->type) {
	case UTIL_YAML_NULL:
		return "null";
	case UTIL_YAML_BOOL:
		return "boolean";
	case UTIL_YAML_INT:
		return "integer";
	case UTIL_YAML_FLOAT:
		return "number";
	default:
		return "string";
	}
}

static int
is_integral_float(const util_yaml_node *n)
{
	double d;

	return is_kind(n, UTIL_YAML_SCALAR) && n->type == UTIL_YAML_FLOAT &&
	    util_yaml_number(n, &d) == 0 && isfinite(d) && floor(d) == d;
}

static int
type_matches(const char *type, const util_yaml_node *n)
{
	if (strcmp(type, "integer") == 0)
		return (is_kind(n, UTIL_YAML_SCALAR) && n->type == UTIL_YAML_INT) ||
		    is_integral_float(n);
	if (strcmp(type, "number") == 0)
		return is_numeric(n);
	return strcmp(type, instance_type(n)) == 0;
}

/* <0, 0, >0; exact for two 64-bit integers.  NaN compares as unordered. */
static int
compare_numbers(const util_yaml_node *a, const util_yaml_node *b, int *unordered)
{
	long long x, y;
	double dx, dy;

	*unordered = 0;
	if (util_yaml_int(a, &x) == 0 && util_yaml_int(b, &y) == 0)
		return x < y ? -1 : (x > y);
	if (util_yaml_number(a, &dx) != 0 || util_yaml_number(b, &dy) != 0 ||
	    isnan(dx) || isnan(dy)) {
		*unordered = 1;
		return 0;
	}
	return dx < dy ? -1 : (dx > dy);
}

/* JSON equality: numbers by value (1 == 1.0), objects ignore key order. */
static int
json_equal(const util_yaml_node *a, const util_yaml_node *b, unsigned depth)
{
	size_t i;
	int unordered, bx, by;

	if (depth > JS_MAX_DEPTH || a->kind != b->kind)
		return 0;
	if (a->kind == UTIL_YAML_SEQUENCE) {
		for (i = 0; i < a->count && a->count == b->count; i++) {
			if (!json_equal(a->items[i], b->items[i], depth + 1))
				return 0;
		}
		return a->count == b->count;
	}
	if (a->kind == UTIL_YAML_MAPPING) {
		for (i = 0; i < a->count && a->count == b->count; i++) {
			const util_yaml_node *v = util_yaml_get(b, a->keys[i]->value);
			if (v == NULL || !json_equal(a->items[i], v, depth + 1))
				return 0;
		}
		return a->count == b->count;
	}
	if (is_numeric(a) && is_numeric(b))
		return compare_numbers(a, b, &unordered) == 0 && !unordered;
	if (a->type != b->type)
		return 0;
	if (a->type == UTIL_YAML_BOOL)
		return util_yaml_bool(a, &bx) == 0 && util_yaml_bool(b, &by) == 0 &&
		    bx == by;
	return a->length == b->length &&
	    memcmp(a->value, b->value, a->length) == 0;
}

/* -------------------------------------------------------------- regexes */

/*
 * Patterns are compiled and run with LC_CTYPE scoped to C.UTF-8 on this
 * thread only, so '.' and bracket expressions see characters, not bytes,
 * whatever the host program's locale.
 */
static locale_t
regex_locale_enter(locale_t *saved)
{
	locale_t loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);

	if (loc == (locale_t)0)
		loc = newlocale(LC_CTYPE_MASK, "C", (locale_t)0);
	*saved = loc != (locale_t)0 ? uselocale(loc) : (locale_t)0;
	return loc;
}

static void
regex_locale_leave(locale_t loc, locale_t saved)
{
	if (loc == (locale_t)0)
		return;
	uselocale(saved);
	freelocale(loc);
}

/* glibc's ERE supports back-references (exponential); refuse them. */
static int
has_backreference(const char *p)
{
	for (; *p != '\0'; p++) {
		if (*p == '\\' && p[1] >= '1' && p[1] <= '9')
			return 1;
		if (*p == '\\' && p[1] != '\0')
			p++;
	}
	return 0;
}

/* The ']' closing a bracket expression at `p` ("[a-z]", "[]x]", "[[:alpha:]]"). */
static const char *
skip_bracket(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	for (; *p != '\0' && *p != ']'; p++) {
		if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			const char *close = strstr(p + 2, (char[]){ p[1], ']', 0 });

			if (close != NULL)
				p = close + 1;
		}
	}
	return *p == '\0' ? p - 1 : p;
}

/* The upper bound of the repeat "{m}", "{m,}" or "{m,n}" at `p`. */
static long
repeat_bound(const char *p)
{
	const char *close = strchr(p, '}'), *comma = strchr(p, ',');
	long m = strtol(p + 1, NULL, 10);

	if (close == NULL || comma == NULL || comma > close)
		return m;
	if (comma + 1 == close)
		return m;                     /* "{m,}": m copies and a star */
	return strtol(comma + 1, NULL, 10);
}

/*
 * glibc's regcomp copies a sub-expression once per count of a bounded
 * repeat {m,n}: nested bounded repeats ("((a{1,100}){1,100}){1,100}")
 * multiply and cost seconds and gigabytes.  The product of nested bounds
 * may not exceed JS_MAX_REPEAT ("([0-9]{1,3}\\.){3}" is 9: fine).
 */
static int
nested_quantifier(const char *p, char *why, size_t size)
{
	long inner[JS_MAX_PATTERN + 1];   /* per open group: largest product */
	long last = 1, product;           /* the atom just before `p` */
	int depth = 0;

	inner[0] = 1;
	for (; *p != '\0'; p++) {
		if (*p == '\\' && p[1] != '\0') {
			p++;
			last = 1;
		} else if (*p == '[') {
			p = skip_bracket(p);
			last = 1;
		} else if (*p == '(') {
			inner[++depth] = 1;
			last = 1;
		} else if (*p == ')' && depth > 0) {
			last = inner[depth--];
			if (last > inner[depth])
				inner[depth] = last;
		} else if (*p == '{') {
			product = last * repeat_bound(p);
			if (product > JS_MAX_REPEAT) {
				snprintf(why, size, "bounded repeats {m,n} allow up "
				    "to %ld copies, over %d (regcomp expands them)",
				    product, JS_MAX_REPEAT);
				return 1;
			}
			if (product > inner[depth])
				inner[depth] = product;
			last = 1;
		} else if (*p != '*' && *p != '+' && *p != '?') {
			last = 1;
		}
	}
	return 0;
}

/* 0 compiled, -1 refused; `why` says why. */
static int
pattern_compile(const char *pattern, regex_t *re, char *why, size_t size)
{
	locale_t loc, saved;
	int rc;

	if (strlen(pattern) > JS_MAX_PATTERN) {
		snprintf(why, size, "longer than %d bytes", JS_MAX_PATTERN);
		return -1;
	}
	if (has_backreference(pattern)) {
		snprintf(why, size, "back-references are not allowed");
		return -1;
	}
	if (nested_quantifier(pattern, why, size))
		return -1;
	loc = regex_locale_enter(&saved);
	rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
	regex_locale_leave(loc, saved);
	if (rc != 0) {
		regerror(rc, re, why, size);
		return -1;
	}
	return 0;
}

static int
pattern_matches(const regex_t *re, const char *text)
{
	locale_t loc, saved;
	int rc;

	loc = regex_locale_enter(&saved);
	rc = regexec(re, text, 0, NULL, 0);
	regex_locale_leave(loc, saved);
	return rc == 0;
}

/* -------------------------------------------------------------- formats */

static int
in_set(char c, const char *set)
{
	return c != '\0' && strchr(set, c) != NULL;
}

#define ALPHA "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
#define DIGIT "0123456789"
#define HEXDIG DIGIT "ABCDEFabcdef"
#define URI_UNRESERVED ALPHA DIGIT "-._~"
#define URI_SUBDELIMS "!$&'()*+,;="

/*
 * RFC 3986 absolute URI: scheme ":" then only URI characters (unreserved,
 * sub-delims, ":/?@[]", "%" HEXDIG HEXDIG) with at most one '#'.
 */
static int
format_uri(const char *s)
{
	size_t i = 0;
	int hashes = 0;

	if (!in_set(s[0], ALPHA))
		return 0;
	while (in_set(s[i], ALPHA DIGIT "+-."))
		i++;
	if (s[i++] != ':')
		return 0;
	for (; s[i] != '\0'; i++) {
		if (s[i] == '%') {
			if (!in_set(s[i + 1], HEXDIG) ||
			    !in_set(s[i + 2], HEXDIG))
				return 0;
			i += 2;
		} else if (s[i] == '#') {
			hashes++;
		} else if (!in_set(s[i], URI_UNRESERVED URI_SUBDELIMS
		    ":/?@[]")) {
			return 0;
		}
	}
	return hashes <= 1;
}

#define ATEXT ALPHA DIGIT "!#$%&'*+/=?^_`{|}~-"

/* dot-atom: runs of `chars` separated by single dots. */
static int
dot_atom(const char *s, size_t len, const char *chars)
{
	size_t i;

	if (len == 0 || s[0] == '.' || s[len - 1] == '.')
		return 0;
	for (i = 0; i < len; i++) {
		if (s[i] == '.' ? s[i + 1] == '.' : !in_set(s[i], chars))
			return 0;
	}
	return 1;
}

/* Host name labels: 1-63 of [A-Za-z0-9-], no '-' at either end. */
static int
domain_ok(const char *d, size_t len)
{
	size_t start = 0, i, labels = 0;

	if (len > 253 || !dot_atom(d, len, ALPHA DIGIT "-"))
		return 0;
	for (i = 0; i <= len; i++) {
		if (i < len && d[i] != '.')
			continue;
		if (i - start > 63 || d[start] == '-' || d[i - 1] == '-')
			return 0;
		labels++;
		start = i + 1;
	}
	return labels >= 2;
}

/* A practical addr-spec: dot-atom local part @ a dotted host name. */
static int
format_email(const char *s)
{
	const char *at = strrchr(s, '@');
	size_t local;

	if (at == NULL || strlen(s) > 254)
		return 0;
	local = (size_t)(at - s);
	return local <= 64 && dot_atom(s, local, ATEXT) &&
	    domain_ok(at + 1, strlen(at + 1));
}

/* Reads exactly `n` digits as a number in [lo, hi]. */
static int
digits(const char **p, int n, int lo, int hi, int *out)
{
	int v = 0, i;

	for (i = 0; i < n; i++) {
		if (!in_set((*p)[i], DIGIT))
			return -1;
		v = v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	*out = v;
	return v < lo || v > hi ? -1 : 0;
}

static int
expect_char(const char **p, const char *set)
{
	if (!in_set(**p, set))
		return -1;
	(*p)++;
	return 0;
}

static int
days_in_month(int year, int month)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31,
	    30, 31 };
	int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;

	return month == 2 && leap ? 29 : days[month - 1];
}

/* time-offset ::= "Z" / ("+" / "-") HH ":" MM */
static int
time_offset(const char *p)
{
	int h, m;

	if (*p == 'Z' || *p == 'z')
		return p[1] == '\0';
	if (expect_char(&p, "+-") != 0 || digits(&p, 2, 0, 23, &h) != 0 ||
	    expect_char(&p, ":") != 0 || digits(&p, 2, 0, 59, &m) != 0)
		return 0;
	return *p == '\0';
}

/* RFC 3339 date-time: YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM). */
static int
format_date_time(const char *p)
{
	int y, mo, d, h, mi, s;

	if (digits(&p, 4, 0, 9999, &y) != 0 || expect_char(&p, "-") != 0 ||
	    digits(&p, 2, 1, 12, &mo) != 0 || expect_char(&p, "-") != 0 ||
	    digits(&p, 2, 1, 31, &d) != 0 || d > days_in_month(y, mo) ||
	    expect_char(&p, "Tt") != 0 || digits(&p, 2, 0, 23, &h) != 0 ||
	    expect_char(&p, ":") != 0 || digits(&p, 2, 0, 59, &mi) != 0 ||
	    expect_char(&p, ":") != 0 || digits(&p, 2, 0, 60, &s) != 0)
		return 0;
	if (*p == '.') {
		p++;
		if (!in_set(*p, DIGIT))
			return 0;
		while (in_set(*p, DIGIT))
			p++;
	}
	return time_offset(p);
}

static const char *const known_formats[] = { "uri", "email", "date-time" };

static int
format_ok(const char *format, const char *s)
{
	if (strcmp(format, "uri") == 0)
		return format_uri(s);
	if (strcmp(format, "email") == 0)
		return format_email(s);
	if (strcmp(format, "date-time") == 0)
		return format_date_time(s);
	return 1;
}

/* ------------------------------------------------------ schema checking */

static void schema_error(js_check *c, const util_yaml_node *at,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
schema_error(js_check *c, const util_yaml_node *at, const char *fmt, ...)
{
	char msg[PS_ERROR_TEXT_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->errors++;
	ps_diags_add(c->diags, PS_SEVERITY_ERROR, "schema_invalid", c->file,
	    at != NULL ? at->line : 0, at != NULL ? at->column : 0, "%s", msg);
}

static void check_schema(js_check *c, const util_yaml_node *s, unsigned depth);

static void
check_type(js_check *c, const util_yaml_node *v)
{
	size_t i;

	if (is_string(v)) {
		if (!IS_ONE_OF(v->value, type_names))
			schema_error(c, v, "schema: unknown type '%s' (expected "
			    "null, boolean, integer, number, string, array or "
			    "object)", v->value);
		return;
	}
	if (!is_kind(v, UTIL_YAML_SEQUENCE) || v->count == 0) {
		schema_error(c, v, "schema: 'type' must be a type name or a "
		    "non-empty list of them, found %s", util_yaml_describe(v));
		return;
	}
	for (i = 0; i < v->count; i++) {
		if (!is_string(v->items[i]) ||
		    !IS_ONE_OF(v->items[i]->value, type_names))
			schema_error(c, v->items[i], "schema: 'type' list entry "
			    "must be one of null, boolean, integer, number, "
			    "string, array, object");
	}
}

static void
check_properties(js_check *c, const util_yaml_node *v, unsigned depth)
{
	size_t i;

	if (!is_kind(v, UTIL_YAML_MAPPING)) {
		schema_error(c, v, "schema: 'properties' must be a mapping of "
		    "schemas, found %s", util_yaml_describe(v));
		return;
	}
	for (i = 0; i < v->count; i++)
		check_schema(c, v->items[i], depth + 1);
}

static void
check_required(js_check *c, const util_yaml_node *v)
{
	size_t i;

	if (!is_kind(v, UTIL_YAML_SEQUENCE)) {
		schema_error(c, v, "schema: 'required' must be a list of "
		    "property names, found %s", util_yaml_describe(v));
		return;
	}
	for (i = 0; i < v->count; i++) {
		if (!is_string(v->items[i]))
			schema_error(c, v->items[i], "schema: 'required' entry "
			    "must be a string, found %s",
			    util_yaml_describe(v->items[i]));
	}
}

static void
check_count(js_check *c, const char *keyword, const util_yaml_node *v)
{
	long long n;

	if (util_yaml_int(v, &n) != 0 || n < 0)
		schema_error(c, v, "schema: '%s' must be a non-negative "
		    "integer, found %s", keyword, util_yaml_describe(v));
}

static void
check_number(js_check *c, const char *keyword, const util_yaml_node *v)
{
	double d;

	if (is_bool(v) && strncmp(keyword, "exclusive", 9) == 0) {
		schema_error(c, v, "schema: '%s' must be a number (the draft-4 "
		    "boolean form is not supported: write '%s: N' instead of "
		    "'%s: true' with '%s: N')", keyword, keyword, keyword,
		    keyword[9] == 'M' && keyword[10] == 'i' ? "minimum" :
		    "maximum");
		return;
	}
	if (util_yaml_number(v, &d) != 0 || !isfinite(d))
		schema_error(c, v, "schema: '%s' must be a finite number, "
		    "found %s", keyword, util_yaml_describe(v));
}

static void
check_pattern(js_check *c, const util_yaml_node *v)
{
	regex_t re;
	char why[256];

	if (!is_string(v)) {
		schema_error(c, v, "schema: 'pattern' must be a string, found "
		    "%s", util_yaml_describe(v));
		return;
	}
	if (pattern_compile(v->value, &re, why, sizeof(why)) != 0) {
		schema_error(c, v, "schema: 'pattern' is not a valid POSIX "
		    "extended regular expression: %s", why);
		return;
	}
	regfree(&re);
}

static void
check_format(js_check *c, const util_yaml_node *v)
{
	if (!is_string(v)) {
		schema_error(c, v, "schema: 'format' must be a string, found "
		    "%s", util_yaml_describe(v));
		return;
	}
	if (!IS_ONE_OF(v->value, known_formats))
		ps_diags_add(c->diags, PS_SEVERITY_WARNING,
		    "schema_keyword_unsupported", c->file, v->line, v->column,
		    "schema: format '%s' is not checked (supported: uri, "
		    "email, date-time)", v->value);
}

/* One keyword; returns 0 when it belongs to the subset. */
static int
check_keyword(js_check *c, const char *k, const util_yaml_node *v,
    unsigned depth)
{
	if (strcmp(k, "type") == 0)
		check_type(c, v);
	else if (strcmp(k, "properties") == 0)
		check_properties(c, v, depth);
	else if (strcmp(k, "required") == 0)
		check_required(c, v);
	else if (strcmp(k, "additionalProperties") == 0 ||
	    strcmp(k, "items") == 0)
		check_schema(c, v, depth + 1);
	else if (strcmp(k, "enum") == 0) {
		if (!is_kind(v, UTIL_YAML_SEQUENCE) || v->count == 0)
			schema_error(c, v, "schema: 'enum' must be a non-empty "
			    "list, found %s", util_yaml_describe(v));
	} else if (strcmp(k, "minimum") == 0 || strcmp(k, "maximum") == 0 ||
	    strcmp(k, "exclusiveMinimum") == 0 ||
	    strcmp(k, "exclusiveMaximum") == 0)
		check_number(c, k, v);
	else if (strcmp(k, "minLength") == 0 || strcmp(k, "maxLength") == 0 ||
	    strcmp(k, "minItems") == 0 || strcmp(k, "maxItems") == 0)
		check_count(c, k, v);
	else if (strcmp(k, "pattern") == 0)
		check_pattern(c, v);
	else if (strcmp(k, "format") == 0)
		check_format(c, v);
	else if (strcmp(k, "const") != 0 && !IS_ONE_OF(k, annotations))
		return -1;
	return 0;
}

/* A schema is a mapping of keywords, or true / false. */
static void
check_schema(js_check *c, const util_yaml_node *s, unsigned depth)
{
	size_t i;
	const util_yaml_node *key;

	if (depth > JS_MAX_DEPTH) {
		schema_error(c, s, "schema: nested deeper than %d levels",
		    JS_MAX_DEPTH);
		return;
	}
	if (is_bool(s))
		return;
	if (!is_kind(s, UTIL_YAML_MAPPING)) {
		schema_error(c, s, "schema: expected a mapping of keywords (or "
		    "true/false), found %s", util_yaml_describe(s));
		return;
	}
	for (i = 0; i < s->count; i++) {
		key = s->keys[i];
		if (check_keyword(c, key->value, s->items[i], depth) != 0)
			ps_diags_add(c->diags, PS_SEVERITY_WARNING,
			    "schema_keyword_unsupported", c->file, key->line,
			    key->column, "schema: keyword '%s' is not supported "
			    "by packsign and is not checked", key->value);
	}
}

size_t
formats_jsonschema_check(const util_yaml_node *schema, const char *file,
    ps_diags *diags)
{
	js_check c;

	c.file = file;
	c.diags = diags;
	c.errors = 0;
	check_schema(&c, schema, 0);
	return c.errors;
}

/* ----------------------------------------------------------- validation */

static void mismatch(js_validate *v, const util_yaml_node *at,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* "LABEL /ptr: DETAIL"; after JS_MAX_REPORTS only counted. */
static void
mismatch(js_validate *v, const util_yaml_node *at, const char *fmt, ...)
{
	char detail[PS_ERROR_TEXT_MAX];
	va_list ap;

	v->mismatches++;
	if (v->mismatches > JS_MAX_REPORTS)
		return;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (v->mismatches == JS_MAX_REPORTS)
		snprintf(detail + strlen(detail), sizeof(detail) -
		    strlen(detail), " (further mismatches not shown)");
	ps_diags_add(v->diags, v->severity, "schema_mismatch", v->file,
	    at->line, at->column, "%s %s: %s", v->label,
	    v->pointer_len == 0 ? "/" : v->pointer, detail);
}

/* Appends "/token" (RFC 6901 escaped); returns the length to restore. */
static size_t
pointer_push(js_validate *v, const char *token)
{
	size_t saved = v->pointer_len, n = v->pointer_len;

	if (n + 1 < JS_POINTER_MAX)
		v->pointer[n++] = '/';
	for (; *token != '\0' && n + 2 < JS_POINTER_MAX; token++) {
		if (*token == '~' || *token == '/') {
			v->pointer[n++] = '~';
			v->pointer[n++] = *token == '~' ? '0' : '1';
		} else {
			v->pointer[n++] = *token;
		}
	}
	v->pointer[n] = '\0';
	v->pointer_len = n;
	return saved;
}

static void
pointer_pop(js_validate *v, size_t saved)
{
	v->pointer_len = saved;
	v->pointer[saved] = '\0';
}

static void validate_node(js_validate *v, const util_yaml_node *s,
    const util_yaml_node *n, unsigned depth);

static void
validate_type(js_validate *v, const util_yaml_node *t, const util_yaml_node *n)
{
	char want[256], found[JS_QUOTE_MAX + 8];
	size_t i;

	if (is_string(t)) {
		if (!type_matches(t->value, n)) {
			quote_value(n, found, sizeof(found));
			mismatch(v, n, "expected %s, found %s %s", t->value,
			    instance_type(n), found);
		}
		return;
	}
	if (!is_kind(t, UTIL_YAML_SEQUENCE))
		return;
	want[0] = '\0';
	for (i = 0; i < t->count; i++) {
		if (!is_string(t->items[i]))
			continue;
		if (type_matches(t->items[i]->value, n))
			return;
		snprintf(want + strlen(want), sizeof(want) - strlen(want),
		    "%s%s", i == 0 ? "" : " or ", t->items[i]->value);
	}
	quote_value(n, found, sizeof(found));
	mismatch(v, n, "expected %s, found %s %s", want, instance_type(n),
	    found);
}

static void
validate_object(js_validate *v, const util_yaml_node *s, const util_yaml_node *n,
    unsigned depth)
{
	const util_yaml_node *props = util_yaml_get(s, "properties");
	const util_yaml_node *req = util_yaml_get(s, "required");
	const util_yaml_node *extra = util_yaml_get(s, "additionalProperties");
	size_t i, saved;

	for (i = 0; is_kind(req, UTIL_YAML_SEQUENCE) && i < req->count; i++) {
		if (is_string(req->items[i]) &&
		    util_yaml_get_key(n, req->items[i]->value) == NULL)
			mismatch(v, n, "missing required property '%s'",
			    req->items[i]->value);
	}
	for (i = 0; i < n->count; i++) {
		const char *key = n->keys[i]->value;
		const util_yaml_node *sub = util_yaml_get(props, key);

		saved = pointer_push(v, key);
		if (sub != NULL)
			validate_node(v, sub, n->items[i], depth + 1);
		else if (is_false(extra))
			mismatch(v, n->keys[i], "property '%s' is not allowed "
			    "here", key);
		else if (extra != NULL && !is_bool(extra))
			validate_node(v, extra, n->items[i], depth + 1);
		pointer_pop(v, saved);
	}
}

static void
validate_array(js_validate *v, const util_yaml_node *s, const util_yaml_node *n,
    unsigned depth)
{
	const util_yaml_node *items = util_yaml_get(s, "items");
	char index[32];
	size_t i, saved;

	if (items == NULL)
		return;
	for (i = 0; i < n->count; i++) {
		snprintf(index, sizeof(index), "%zu", i);
		saved = pointer_push(v, index);
		validate_node(v, items, n->items[i], depth + 1);
		pointer_pop(v, saved);
	}
}

/* minItems, maxItems, minLength, maxLength. */
static void
validate_count(js_validate *v, const util_yaml_node *s, const util_yaml_node *n,
    size_t count, const char *unit)
{
	const char *kmin = unit[0] == 'c' ? "minLength" : "minItems";
	const char *kmax = unit[0] == 'c' ? "maxLength" : "maxItems";
	long long lo, hi;

	if (util_yaml_int(util_yaml_get(s, kmin), &lo) == 0 &&
	    (long long)count < lo)
		mismatch(v, n, "expected at least %lld %s, found %zu", lo, unit,
		    count);
	if (util_yaml_int(util_yaml_get(s, kmax), &hi) == 0 && hi >= 0 &&
	    count > (unsigned long long)hi)
		mismatch(v, n, "expected at most %lld %s, found %zu", hi, unit,
		    count);
}

static void
validate_bound(js_validate *v, const util_yaml_node *s, const util_yaml_node *n,
    const char *keyword)
{
	static const struct {
		const char *keyword, *words;
		int sign, strict;
	} bounds[] = {
		{ "minimum", "at least", -1, 0 },
		{ "maximum", "at most", 1, 0 },
		{ "exclusiveMinimum", "more than", -1, 1 },
		{ "exclusiveMaximum", "less than", 1, 1 },
	};
	const util_yaml_node *b = util_yaml_get(s, keyword);
	size_t i;
	int c, unordered;

	if (!is_numeric(b))
		return;
	for (i = 0; strcmp(bounds[i].keyword, keyword) != 0; i++)
		;
	c = compare_numbers(n, b, &unordered);
	if (unordered || c == bounds[i].sign || (bounds[i].strict && c == 0))
		mismatch(v, n, "expected %s %s, found %s", bounds[i].words,
		    b->value, n->value);
}

static void
validate_string(js_validate *v, const util_yaml_node *s, const util_yaml_node *n)
{
	const util_yaml_node *pat = util_yaml_get(s, "pattern");
	const util_yaml_node *fmt = util_yaml_get(s, "format");
	char found[JS_QUOTE_MAX + 8], why[256];
	regex_t re;

	validate_count(v, s, n, u8_mbsnlen((const uint8_t *)n->value,
	    n->length), "characters");
	if (is_string(pat) && pattern_compile(pat->value, &re, why,
	    sizeof(why)) == 0) {
		if (!pattern_matches(&re, n->value)) {
			quote_value(n, found, sizeof(found));
			mismatch(v, n, "expected text matching the pattern "
			    "'%s', found %s", pat->value, found);
		}
		regfree(&re);
	}
	if (is_string(fmt) && !format_ok(fmt->value, n->value)) {
		quote_value(n, found, sizeof(found));
		mismatch(v, n, "expected a valid %s, found %s", fmt->value,
		    found);
	}
}

static void
list_values(const util_yaml_node *list, char *out, size_t size)
{
	char one[JS_QUOTE_MAX + 8];
	size_t i;

	out[0] = '\0';
	for (i = 0; i < list->count; i++) {
		quote_value(list->items[i], one, sizeof(one));
		snprintf(out + strlen(out), size - strlen(out), "%s%s",
		    i == 0 ? "" : ", ", one);
	}
}

static void
validate_enum_const(js_validate *v, const util_yaml_node *s,
    const util_yaml_node *n, unsigned depth)
{
	const util_yaml_node *e = util_yaml_get(s, "enum");
	const util_yaml_node *k = util_yaml_get(s, "const");
	char want[512], found[JS_QUOTE_MAX + 8];
	size_t i;

	quote_value(n, found, sizeof(found));
	if (is_kind(e, UTIL_YAML_SEQUENCE) && e->count > 0) {
		for (i = 0; i < e->count; i++) {
			if (json_equal(e->items[i], n, depth))
				break;
		}
		if (i == e->count) {
			list_values(e, want, sizeof(want));
			mismatch(v, n, "expected one of %s, found %s", want,
			    found);
		}
	}
	if (k != NULL && !json_equal(k, n, depth)) {
		quote_value(k, want, sizeof(want));
		mismatch(v, n, "expected %s, found %s", want, found);
	}
}

static void
validate_node(js_validate *v, const util_yaml_node *s, const util_yaml_node *n,
    unsigned depth)
{
	char found[JS_QUOTE_MAX + 8];

	if (depth > JS_MAX_DEPTH)
		return;
	if (is_false(s)) {
		quote_value(n, found, sizeof(found));
		mismatch(v, n, "no value is allowed here, found %s", found);
		return;
	}
	if (!is_kind(s, UTIL_YAML_MAPPING))
		return;
	if (util_yaml_get(s, "type") != NULL)
		validate_type(v, util_yaml_get(s, "type"), n);
	validate_enum_const(v, s, n, 0);
	if (n->kind == UTIL_YAML_MAPPING)
		validate_object(v, s, n, depth);
	else if (n->kind == UTIL_YAML_SEQUENCE) {
		validate_count(v, s, n, n->count, "items");
		validate_array(v, s, n, depth);
	} else if (is_numeric(n)) {
		validate_bound(v, s, n, "minimum");
		validate_bound(v, s, n, "maximum");
		validate_bound(v, s, n, "exclusiveMinimum");
		validate_bound(v, s, n, "exclusiveMaximum");
	} else if (is_string(n))
		validate_string(v, s, n);
}

size_t
formats_jsonschema_validate(const util_yaml_node *schema,
    const util_yaml_node *instance, const char *file, const char *label,
    ps_severity severity, ps_diags *diags)
{
	static const util_yaml_node null_node = { .kind = UTIL_YAML_SCALAR,
	    .value = "", .type = UTIL_YAML_NULL };
	js_validate v;

	memset(&v, 0, sizeof(v));
	v.file = file;
	v.label = label != NULL ? label : "value";
	v.severity = severity;
	v.diags = diags;
	validate_node(&v, schema, instance != NULL ? instance : &null_node, 0);
	return v.mismatches;
}
