/* Typed manifest field access that reports every problem at once. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "formats/check.h"
#include "util/strings.h"
#include "formats/semver.h"
#include "util/error.h"

void
formats_check_oom(formats_check *ck)
{
	if (ck->failed == 0)
		util_fail_oom(ck->err, ck->file);
	ck->failed = 1;
}

static void
vreport(formats_check *ck, ps_severity severity, const char *file, unsigned line,
    unsigned column, const char *code, const char *fmt, va_list ap)
    __attribute__((format(printf, 7, 0)));

static void
vreport(formats_check *ck, ps_severity severity, const char *file, unsigned line,
    unsigned column, const char *code, const char *fmt, va_list ap)
{
	char *msg = NULL;

	if (vasprintf(&msg, fmt, ap) < 0) {
		formats_check_oom(ck);
		return;
	}
	if (ps_diags_add(ck->diags, severity, code, file, line, column, "%s",
	    msg) != 0)
		formats_check_oom(ck);
	free(msg);
}

void
formats_check_report(formats_check *ck, ps_severity severity, const util_yaml_node *at,
    const char *code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(ck, severity, ck->file, at != NULL ? at->line : 0,
	    at != NULL ? at->column : 0, code, fmt, ap);
	va_end(ap);
}

void
formats_check_vreport_in(formats_check *ck, ps_severity severity, const char *path,
    unsigned line, unsigned column, const char *code, const char *fmt,
    va_list ap)
{
	char *file = NULL;

	if (asprintf(&file, "%s%s", ck->prefix, path) < 0) {
		formats_check_oom(ck);
		return;
	}
	vreport(ck, severity, file, line, column, code, fmt, ap);
	free(file);
}

void
formats_check_report_in(formats_check *ck, ps_severity severity, const char *path,
    unsigned line, unsigned column, const char *code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	formats_check_vreport_in(ck, severity, path, line, column, code, fmt, ap);
	va_end(ap);
}

void
formats_check_vreport_later(formats_check *ck, const char *path,
    const util_yaml_node *at, const char *code, const char *fmt, va_list ap)
{
	int signed_pack = ck->opt->already_signed != 0;
	char *msg = NULL;

	if (vasprintf(&msg, fmt, ap) < 0) {
		formats_check_oom(ck);
		return;
	}
	formats_check_report_in(ck, signed_pack ? PS_SEVERITY_WARNING :
	    PS_SEVERITY_ERROR, path, at != NULL ? at->line : 0,
	    at != NULL ? at->column : 0, code, "%s%s", msg, signed_pack ?
	    "; a warning as the pack is already signed (packsign sign "
	    "refuses it)" : "");
	free(msg);
}

void
formats_check_report_later(formats_check *ck, const char *path,
    const util_yaml_node *at, const char *code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	formats_check_vreport_later(ck, path, at, code, fmt, ap);
	va_end(ap);
}

const util_yaml_node *
formats_check_merge_key(const util_yaml_node *node)
{
	const util_yaml_node *found = NULL;
	size_t i;

	if (node == NULL || node->kind == UTIL_YAML_SCALAR)
		return NULL;
	for (i = 0; found == NULL && i < node->count; i++) {
		if (node->kind == UTIL_YAML_MAPPING &&
		    strcmp(node->keys[i]->value, "<<") == 0)
			return node->keys[i];
		found = formats_check_merge_key(node->items[i]);
	}
	return found;
}

char *
formats_check_strdup(formats_check *ck, const char *s)
{
	char *copy;

	if (s == NULL)
		return NULL;
	if ((copy = strdup(s)) == NULL)
		formats_check_oom(ck);
	return copy;
}

void
formats_check_strings_add(formats_check *ck, ps_strings *list, const char *s)
{
	if (s != NULL && util_strings_add(list, s) != 0)
		formats_check_oom(ck);
}

void
formats_check_scrub(char *s)
{
	unsigned char *p = (unsigned char *)s;
	size_t n;

	for (; *p != '\0'; p++) {
		if (*p < 0x20 || *p == 0x7f)
			*p = '?';
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			p[0] = '?';
			p[1] = '?';
			p++;
		} else if ((n = ps_text_hidden((const char *)p, NULL)) > 0) {
			/* bidi controls, separators, the BOM: one '?' a byte */
			memset(p, '?', n);
			p += n - 1;
		}
	}
}

void
formats_check_egress_add(formats_check *ck, const char *host, unsigned port,
    const char *protocol)
{
	ps_egress *grown;

	grown = realloc(ck->m->egress, (ck->m->egress_count + 1) *
	    sizeof(*grown));
	if (grown == NULL) {
		formats_check_oom(ck);
		return;
	}
	ck->m->egress = grown;
	grown += ck->m->egress_count++;
	grown->host = formats_check_strdup(ck, host);
	grown->port = port;
	grown->protocol = formats_check_strdup(ck, protocol);
}

const util_yaml_node *
formats_check_field(formats_check *ck, const util_yaml_node *map, const char *key,
    int required)
{
	const util_yaml_node *value;

	if (map == NULL || map->kind != UTIL_YAML_MAPPING)
		return NULL;
	value = util_yaml_get(map, key);
	if (value == NULL && required != 0)
		formats_check_error(ck, map, "field_missing",
		    "required field '%s' is missing", key);
	return value;
}

static const util_yaml_node *
check_kind(formats_check *ck, const util_yaml_node *map, const char *key,
    int required, util_yaml_kind kind, const char *expected)
{
	const util_yaml_node *value = formats_check_field(ck, map, key, required);

	if (value == NULL)
		return NULL;
	if (value->kind != kind) {
		formats_check_error(ck, value, "field_type",
		    "'%s' must be a %s, found %s", key, expected,
		    util_yaml_describe(value));
		return NULL;
	}
	return value;
}

const util_yaml_node *
formats_check_mapping(formats_check *ck, const util_yaml_node *map, const char *key,
    int required)
{
	return check_kind(ck, map, key, required, UTIL_YAML_MAPPING, "mapping");
}

const util_yaml_node *
formats_check_sequence(formats_check *ck, const util_yaml_node *map, const char *key,
    int required)
{
	return check_kind(ck, map, key, required, UTIL_YAML_SEQUENCE,
	    "list");
}

static int
is_blank(const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
			return 0;
	}
	return 1;
}

const char *
formats_check_node_string(formats_check *ck, const util_yaml_node *node,
    const char *what)
{
	const char *text = util_yaml_string(node);

	if (text == NULL) {
		formats_check_error(ck, node, "field_type",
		    "%s must be a string, found %s%s", what,
		    util_yaml_describe(node), node->kind == UTIL_YAML_SCALAR ?
		    " (quote it to make it a string)" : "");
		return NULL;
	}
	if (is_blank(text) != 0) {
		formats_check_error(ck, node, "field_empty", "%s is empty", what);
		return NULL;
	}
	return text;
}

const char *
formats_check_string(formats_check *ck, const util_yaml_node *map, const char *key,
    int required)
{
	const util_yaml_node *value = formats_check_field(ck, map, key, required);
	char what[128];

	if (value == NULL)
		return NULL;
	snprintf(what, sizeof(what), "'%s'", key);
	return formats_check_node_string(ck, value, what);
}

/* YAML 1.1 booleans that YAML 1.2 reads as strings. */
static int
is_yaml11_bool(const char *s)
{
	static const char *const words[] = { "yes", "no", "on", "off", "y",
	    "n", NULL };
	size_t i;

	for (i = 0; words[i] != NULL; i++) {
		if (strcasecmp(s, words[i]) == 0)
			return 1;
	}
	return 0;
}

int
formats_check_bool(formats_check *ck, const util_yaml_node *map, const char *key,
    int *out)
{
	const util_yaml_node *value = formats_check_field(ck, map, key, 0);

	if (value == NULL)
		return 0;
	if (util_yaml_bool(value, out) == 0)
		return 1;
	if (value->kind == UTIL_YAML_SCALAR && value->type == UTIL_YAML_STRING &&
	    is_yaml11_bool(value->value) != 0)
		formats_check_error(ck, value, "field_not_boolean",
		    "'%s' must be a boolean: '%s' is a string in YAML 1.2, "
		    "write true or false", key, value->value);
	else
		formats_check_error(ck, value, "field_not_boolean",
		    "'%s' must be a boolean (true or false), found %s", key,
		    util_yaml_describe(value));
	return -1;
}

void
formats_check_known(formats_check *ck, const util_yaml_node *map,
    const char *const *known, const char *where)
{
	size_t i, j;

	if (map == NULL || map->kind != UTIL_YAML_MAPPING)
		return;
	for (i = 0; i < map->count; i++) {
		for (j = 0; known[j] != NULL; j++) {
			if (strcmp(map->keys[i]->value, known[j]) == 0)
				break;
		}
		if (known[j] == NULL)
			formats_check_warn(ck, map->keys[i], "field_unknown",
			    "unknown field '%s'%s%s; it is not checked",
			    map->keys[i]->value, where[0] != '\0' ? " in " : "",
			    where);
	}
}

/* "SHA256:" and 43 characters of unpadded base64 of 32 bytes. */
static int
fingerprint_valid(const char *s)
{
	unsigned char bin[32];
	size_t len = 0;
	const char *b64 = s + 7;

	if (strlen(b64) != 43)
		return -1;
	if (sodium_base642bin(bin, sizeof(bin), b64, 43, NULL, &len, NULL,
	    sodium_base64_VARIANT_ORIGINAL_NO_PADDING) != 0 || len != 32)
		return -1;
	return 0;
}

/* An identity name: 1-128 printable characters, no leading/trailing space. */
static int
identity_valid(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > 128 || s[0] == ' ' || s[n - 1] == ' ')
		return -1;
	for (i = 0; i < n; i++) {
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return -1;
	}
	return 0;
}

static void
signed_by_one(formats_check *ck, const util_yaml_node *node)
{
	const char *s = util_yaml_string(node);
	size_t i;

	if (s == NULL) {
		formats_check_error(ck, node, "signed_by_invalid",
		    "'signed_by' entries must be strings, found %s",
		    util_yaml_describe(node));
		return;
	}
	if (strncmp(s, "SHA256:", 7) == 0 ? fingerprint_valid(s) != 0 :
	    identity_valid(s) != 0) {
		formats_check_error(ck, node, "signed_by_invalid",
		    "'signed_by' entry '%s' is neither an identity name (1-128 "
		    "printable characters) nor a key fingerprint "
		    "(SHA256: and 43 base64 characters)", s);
		return;
	}
	for (i = 0; i < ck->m->signed_by.count; i++) {
		if (strcmp(ck->m->signed_by.items[i], s) == 0) {
			formats_check_warn(ck, node, "signed_by_duplicate",
			    "'signed_by' names '%s' twice", s);
			return;
		}
	}
	formats_check_strings_add(ck, &ck->m->signed_by, s);
}

void
formats_check_signed_by(formats_check *ck, const util_yaml_node *root)
{
	const util_yaml_node *value = formats_check_field(ck, root, "signed_by", 0);
	size_t i;

	if (value == NULL)
		return;
	if (value->kind == UTIL_YAML_SEQUENCE && value->count > FORMATS_SIGNED_BY_MAX) {
		formats_check_error(ck, value, "signed_by_invalid", "'signed_by' lists "
		    "%zu entries; at most %d are allowed", value->count,
		    FORMATS_SIGNED_BY_MAX);
		return;
	}
	if (value->kind == UTIL_YAML_SEQUENCE) {
		for (i = 0; i < value->count; i++)
			signed_by_one(ck, value->items[i]);
		return;
	}
	if (value->kind == UTIL_YAML_SCALAR) {
		signed_by_one(ck, value);
		return;
	}
	formats_check_error(ck, value, "signed_by_invalid",
	    "'signed_by' must be a string or a list of strings, found %s",
	    util_yaml_describe(value));
}

const char *
formats_check_semver(formats_check *ck, const util_yaml_node *root, int allow_prerelease)
{
	const char *text = formats_check_string(ck, root, "version", 1);
	const util_yaml_node *at = util_yaml_get(root, "version");
	formats_semver v;

	if (text == NULL)
		return NULL;
	if (formats_semver_parse(text, &v) != 0) {
		formats_check_error(ck, at, "version_invalid",
		    "version '%s' is not SemVer 2.0.0 (MAJOR.MINOR.PATCH, no "
		    "leading zeros, optional -pre-release and +build)", text);
		return NULL;
	}
	if (allow_prerelease == 0 && (v.prerelease[0] != '\0' ||
	    v.build[0] != '\0')) {
		formats_check_error(ck, at, "version_invalid",
		    "version '%s' must be plain MAJOR.MINOR.PATCH, without "
		    "pre-release or build parts", text);
		return NULL;
	}
	ck->m->version = formats_check_strdup(ck, text);
	return text;
}

int
formats_label_valid(const char *s, size_t n, size_t max)
{
	size_t i;

	if (n == 0 || n > max || s[0] == '-' || s[n - 1] == '-')
		return -1;
	for (i = 0; i < n; i++) {
		if (islower((unsigned char)s[i]) == 0 &&
		    isdigit((unsigned char)s[i]) == 0 && s[i] != '-')
			return -1;
	}
	return 0;
}
