/*
 * protobuf's JSON mapping, read strictly and within bounds: the depth is
 * counted before jansson parses, every field is type-checked where it is
 * read, and every bytes field is decoded with its own limit.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "sigstore/protojson.h"
#include "util/error.h"

int
sigstore_malformed(const sigstore_doc *d, ps_error *err, const char *where,
    const char *fmt, ...)
{
	char what[PS_ERROR_TEXT_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	util_error_record(err, d->status, d->code, d->label, "%s%s%s",
	    where != NULL ? where : "", where != NULL ? ": " : "", what);
	return -1;
}

void
sigstore_where(char *out, const char *parent, const char *key)
{
	if (parent == NULL || parent[0] == '\0')
		snprintf(out, SIGSTORE_WHERE_MAX, "%s", key);
	else
		snprintf(out, SIGSTORE_WHERE_MAX, "%s.%s", parent, key);
}

void
sigstore_where_index(char *out, const char *parent, size_t i)
{
	snprintf(out, SIGSTORE_WHERE_MAX, "%s[%zu]", parent, i);
}

/* The deepest nesting of arrays and objects, strings skipped; stops
 * counting once past `max`. */
static size_t
json_depth(const char *s, size_t len, size_t max)
{
	size_t i, depth = 0, deepest = 0;
	int in_string = 0;

	for (i = 0; i < len && deepest <= max; i++) {
		if (in_string) {
			if (s[i] == '\\')
				i++;
			else if (s[i] == '"')
				in_string = 0;
		} else if (s[i] == '"') {
			in_string = 1;
		} else if (s[i] == '{' || s[i] == '[') {
			if (++depth > deepest)
				deepest = depth;
		} else if ((s[i] == '}' || s[i] == ']') && depth > 0) {
			depth--;
		}
	}
	return deepest;
}

int
sigstore_json_load(const sigstore_doc *d, const char *bytes, size_t len,
    size_t *used, json_t **out, ps_error *err)
{
	size_t flags = JSON_REJECT_DUPLICATES;
	json_error_t jerr;

	*out = NULL;
	if (json_depth(bytes, len, SIGSTORE_JSON_MAX_DEPTH) >
	    SIGSTORE_JSON_MAX_DEPTH)
		return sigstore_malformed(d, err, NULL, "JSON nested deeper than "
		    "%d levels", SIGSTORE_JSON_MAX_DEPTH);
	if (used != NULL)
		flags |= JSON_DISABLE_EOF_CHECK;
	*out = json_loadb(bytes, len, flags, &jerr);
	if (*out == NULL)
		return sigstore_malformed(d, err, NULL, "not valid JSON: line %d "
		    "column %d: %s", jerr.line, jerr.column, jerr.text);
	if (used != NULL)
		*used = (size_t)jerr.position;
	return 0;
}

int
sigstore_json_known(const sigstore_doc *d, json_t *obj, const char *where,
    const char *const *keys, size_t count, ps_error *err)
{
	const char *key;
	json_t *value;
	size_t i;

	json_object_foreach(obj, key, value) {
		for (i = 0; i < count; i++) {
			if (strcmp(key, keys[i]) == 0)
				break;
		}
		if (i == count)
			return sigstore_malformed(d, err, where, "unknown field "
			    "\"%.64s\"", key);
	}
	(void)value;
	return 0;
}

/* The member, NULL when absent or null. */
static json_t *
member(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_null(v) ? NULL : v;
}

int
sigstore_json_object(const sigstore_doc *d, json_t *obj, const char *key,
    const char *where, int required, json_t **out, ps_error *err)
{
	char at[SIGSTORE_WHERE_MAX];

	*out = member(obj, key);
	sigstore_where(at, where, key);
	if (*out == NULL && required)
		return sigstore_malformed(d, err, at, "missing");
	if (*out != NULL && !json_is_object(*out)) {
		*out = NULL;
		return sigstore_malformed(d, err, at, "not an object");
	}
	return 0;
}

int
sigstore_json_array(const sigstore_doc *d, json_t *obj, const char *key,
    const char *where, size_t max, json_t **out, ps_error *err)
{
	char at[SIGSTORE_WHERE_MAX];

	*out = member(obj, key);
	sigstore_where(at, where, key);
	if (*out == NULL)
		return 0;
	if (!json_is_array(*out)) {
		*out = NULL;
		return sigstore_malformed(d, err, at, "not an array");
	}
	if (json_array_size(*out) > max) {
		*out = NULL;
		return sigstore_malformed(d, err, at, "more than %zu items", max);
	}
	return 0;
}

int
sigstore_json_string(const sigstore_doc *d, json_t *obj, const char *key,
    const char *where, int required, const char **out, ps_error *err)
{
	char at[SIGSTORE_WHERE_MAX];
	json_t *v = member(obj, key);

	*out = NULL;
	sigstore_where(at, where, key);
	if (v != NULL && !json_is_string(v))
		return sigstore_malformed(d, err, at, "not a string");
	if (v != NULL && json_string_length(v) != strlen(json_string_value(v)))
		return sigstore_malformed(d, err, at, "holds a NUL character");
	if (v != NULL)
		*out = json_string_value(v);
	if (required && (*out == NULL || (*out)[0] == '\0')) {
		*out = NULL;
		return sigstore_malformed(d, err, at, "missing or empty");
	}
	return 0;
}

/* The sodium variant for `text`: URL-safe when it uses - or _, padded
 * when it ends in '='. */
static int
base64_variant(const char *text, size_t len)
{
	int url = memchr(text, '-', len) != NULL || memchr(text, '_', len) != NULL;
	int padded = len > 0 && text[len - 1] == '=';

	if (url)
		return padded ? sodium_base64_VARIANT_URLSAFE :
		    sodium_base64_VARIANT_URLSAFE_NO_PADDING;
	return padded ? sodium_base64_VARIANT_ORIGINAL :
	    sodium_base64_VARIANT_ORIGINAL_NO_PADDING;
}

/* `text` without CR and LF (base64 wrapped into lines, which Go's and
 * Python's decoders accept), into `buf`; its length. */
static size_t
unwrap(const char *text, size_t len, char *buf)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		if (text[i] != '\n' && text[i] != '\r')
			buf[n++] = text[i];
	}
	return n;
}

int
sigstore_base64_decode(const char *text, size_t len, size_t max,
    unsigned char **out, size_t *out_len)
{
	size_t cap = len / 4 * 3 + 3, got = 0, n;
	const char *end = NULL;
	unsigned char *buf;
	char *flat;

	*out = NULL;
	*out_len = 0;
	if (len / 4 > max / 3 + 2 + len / 256)
		return -2;                  /* longer than max, whatever it holds */
	buf = malloc(cap + 1);
	flat = malloc(len + 1);
	if (buf == NULL || flat == NULL) {
		free(buf);
		free(flat);
		return -3;
	}
	n = unwrap(text, len, flat);
	if (sodium_base642bin(buf, cap, flat, n, NULL, &got, &end,
	    base64_variant(flat, n)) != 0 || end != flat + n || got > max) {
		free(buf);
		free(flat);
		return got > max ? -2 : -1;
	}
	free(flat);
	*out = buf;
	*out_len = got;
	return 0;
}

char *
sigstore_base64_encode(const unsigned char *bytes, size_t len)
{
	size_t cap = sodium_base64_ENCODED_LEN(len,
	    sodium_base64_VARIANT_ORIGINAL);
	char *out = malloc(cap);

	if (out != NULL)
		sodium_bin2base64(out, cap, bytes, len,
		    sodium_base64_VARIANT_ORIGINAL);
	return out;
}

int
sigstore_json_bytes_value(const sigstore_doc *d, json_t *v, const char *where,
    size_t max, unsigned char **out, size_t *len, ps_error *err)
{
	int rc;

	*out = NULL;
	*len = 0;
	if (!json_is_string(v))
		return sigstore_malformed(d, err, where, "not a base64 string");
	rc = sigstore_base64_decode(json_string_value(v), json_string_length(v),
	    max, out, len);
	if (rc == -1)
		return sigstore_malformed(d, err, where, "not base64");
	if (rc == -2)
		return sigstore_malformed(d, err, where, "more than %zu bytes",
		    max);
	if (rc == -3)
		return util_fail_oom(err, d->label);
	return 0;
}

int
sigstore_json_bytes(const sigstore_doc *d, json_t *obj, const char *key,
    const char *where, int required, size_t max, unsigned char **out,
    size_t *len, ps_error *err)
{
	char at[SIGSTORE_WHERE_MAX];
	json_t *v = member(obj, key);

	*out = NULL;
	*len = 0;
	sigstore_where(at, where, key);
	if (v != NULL && sigstore_json_bytes_value(d, v, at, max, out, len,
	    err) != 0)
		return -1;
	if (required && *len == 0) {
		free(*out);
		*out = NULL;
		return sigstore_malformed(d, err, at, "missing or empty");
	}
	return 0;
}

/* A decimal int64 ("-"? digits, no leading zeros, no "+"); 0 / -1. */
static int
parse_int64(const char *s, int64_t *out)
{
	long long v;
	char *end;

	if (s[0] == '\0' || s[0] == '+' || (s[0] == '0' && s[1] != '\0') ||
	    (s[0] == '-' && (s[1] == '0' || s[1] == '\0')) ||
	    strspn(s + (s[0] == '-'), "0123456789") != strlen(s + (s[0] == '-')))
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return -1;
	*out = (int64_t)v;
	return 0;
}

int
sigstore_json_int64(const sigstore_doc *d, json_t *obj, const char *key,
    const char *where, int64_t min, int64_t *out, int *present,
    ps_error *err)
{
	char at[SIGSTORE_WHERE_MAX];
	json_t *v = member(obj, key);
	int64_t n = 0;

	*out = 0;
	*present = v != NULL;
	sigstore_where(at, where, key);
	if (v == NULL)
		return 0;
	if (json_is_integer(v))
		n = (int64_t)json_integer_value(v);
	else if (!json_is_string(v) || parse_int64(json_string_value(v), &n) != 0)
		return sigstore_malformed(d, err, at, "not a decimal 64-bit "
		    "integer");
	if (n < min)
		return sigstore_malformed(d, err, at, "%lld is below %lld",
		    (long long)n, (long long)min);
	*out = n;
	return 0;
}

int
sigstore_json_time(const sigstore_doc *d, json_t *obj, const char *key,
    const char *where, sigstore_time *out, int *present, ps_error *err)
{
	char at[SIGSTORE_WHERE_MAX];
	json_t *v = member(obj, key);

	memset(out, 0, sizeof(*out));
	*present = v != NULL;
	sigstore_where(at, where, key);
	if (v == NULL)
		return 0;
	if (!json_is_string(v) || sigstore_time_parse(json_string_value(v),
	    out) != 0)
		return sigstore_malformed(d, err, at, "not an RFC 3339 time");
	return 0;
}
