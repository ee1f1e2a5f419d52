/*
 * JavaScript values shaped as the CLI's --json output (cli/json.c): the
 * same keys, null for an absent value, digests as "sha256:<hex>", times
 * as RFC 3339 UTC text.  A napi call fails only with an exception pending
 * (out of memory); the builders carry on and the call's settle step
 * rejects with that exception.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

napi_value
nb_null(napi_env env)
{
	napi_value v = NULL;

	napi_get_null(env, &v);
	return v;
}

napi_value
nb_object(napi_env env)
{
	napi_value v = NULL;

	napi_create_object(env, &v);
	return v;
}

napi_value
nb_array(napi_env env)
{
	napi_value v = NULL;

	napi_create_array(env, &v);
	return v;
}

void
nb_set(napi_env env, napi_value obj, const char *key, napi_value v)
{
	if (obj != NULL && v != NULL)
		napi_set_named_property(env, obj, key, v);
}

void
nb_push(napi_env env, napi_value array, napi_value v)
{
	uint32_t n = 0;

	if (array != NULL && v != NULL &&
	    napi_get_array_length(env, array, &n) == napi_ok)
		napi_set_element(env, array, n, v);
}

/* 1 when `s` is well-formed UTF-8 (no overlong forms, surrogates or
 * values above U+10FFFF), as jansson requires of a JSON string. */
static int
utf8_valid(const unsigned char *s)
{
	unsigned c, need, min, cp;

	while ((c = *s++) != 0) {
		if (c < 0x80)
			continue;
		if (c >= 0xc2 && c <= 0xdf)
			need = 1, min = 0x80, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			need = 2, min = 0x800, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			need = 3, min = 0x10000, cp = c & 0x07;
		else
			return 0;
		for (; need > 0; need--, s++) {
			if ((*s & 0xc0) != 0x80)
				return 0;
			cp = (cp << 6) | (*s & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
	}
	return 1;
}

napi_value
nb_text(napi_env env, const char *s)
{
	napi_value v = NULL;
	char *copy;
	size_t i;

	if (s == NULL)
		return nb_null(env);
	if (utf8_valid((const unsigned char *)s)) {
		napi_create_string_utf8(env, s, NAPI_AUTO_LENGTH, &v);
		return v;
	}
	/* As cli_json_text(): a report must not lose the field. */
	if ((copy = strdup(s)) == NULL)
		return nb_null(env);
	for (i = 0; copy[i] != '\0'; i++) {
		if ((unsigned char)copy[i] >= 0x80)
			copy[i] = '?';
	}
	napi_create_string_utf8(env, copy, NAPI_AUTO_LENGTH, &v);
	free(copy);
	return v;
}

napi_value
nb_bool(napi_env env, int b)
{
	napi_value v = NULL;

	napi_get_boolean(env, b != 0, &v);
	return v;
}

napi_value
nb_int(napi_env env, int64_t n)
{
	napi_value v = NULL;

	napi_create_int64(env, n, &v);
	return v;
}

napi_value
nb_digest(napi_env env, int has, const unsigned char digest[PS_SHA256_LEN])
{
	char text[PS_SHA256_STRING_LEN];

	if (!has)
		return nb_null(env);
	return nb_text(env, ps_sha256_string(digest, text));
}

napi_value
nb_time(napi_env env, int64_t t)
{
	char text[PS_TIME_TEXT_LEN];

	if (ps_time_format(t, text) != 0)
		return nb_null(env);
	return nb_text(env, text);
}

napi_value
nb_lines(napi_env env, const char *text)
{
	napi_value a = nb_array(env), line;
	const char *p = text;
	char *copy;
	size_t n;

	while (p != NULL && *p != '\0') {
		n = strcspn(p, "\n");
		copy = strndup(p, n);
		line = copy != NULL ? nb_text(env, copy) : nb_null(env);
		free(copy);
		nb_push(env, a, line);
		p += n + (p[n] == '\n');
	}
	return a;
}

napi_value
nb_strings_array(napi_env env, const ps_strings *list)
{
	napi_value a = nb_array(env);
	size_t i;

	for (i = 0; i < list->count; i++)
		nb_push(env, a, nb_text(env, list->items[i]));
	return a;
}

napi_value
nb_diags(napi_env env, const ps_diags *diags)
{
	napi_value list = nb_array(env), d;
	const ps_diag *x;
	size_t i;

	for (i = 0; diags != NULL && i < diags->count; i++) {
		x = &diags->items[i];
		d = nb_object(env);
		nb_set(env, d, "file", nb_text(env, x->file));
		nb_set(env, d, "line", nb_int(env, x->line));
		nb_set(env, d, "column", nb_int(env, x->column));
		nb_set(env, d, "severity", nb_text(env,
		    x->severity == PS_SEVERITY_ERROR ? "error" : "warning"));
		nb_set(env, d, "code", nb_text(env, x->code));
		nb_set(env, d, "message", nb_text(env, x->message));
		nb_push(env, list, d);
	}
	return list;
}

napi_value
nb_consent(napi_env env, unsigned classes)
{
	napi_value list = nb_array(env);
	unsigned i;

	for (i = 0; i < 32; i++) {
		if ((classes & (1u << i)) != 0 &&
		    ps_consent_class_name(1u << i) != NULL)
			nb_push(env, list, nb_text(env,
			    ps_consent_class_name(1u << i)));
	}
	return list;
}

napi_value
nb_parse_json(napi_env env, const char *text)
{
	napi_value global, json, parse, arg, out = NULL;

	if (text == NULL || napi_get_global(env, &global) != napi_ok ||
	    napi_get_named_property(env, global, "JSON", &json) != napi_ok ||
	    napi_get_named_property(env, json, "parse", &parse) != napi_ok ||
	    napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &arg) !=
	    napi_ok || napi_call_function(env, json, parse, 1, &arg, &out) !=
	    napi_ok)
		return nb_null(env);
	return out;
}

napi_value
nb_diff(napi_env env, const ps_diff *diff)
{
	napi_value obj, text, symbol;
	napi_property_descriptor d;
	char *json = NULL;
	ps_error err;

	if (diff == NULL || ps_diff_to_json(diff, &json, &err) != 0)
		return nb_null(env);
	obj = nb_parse_json(env, json);
	if (napi_create_string_utf8(env, json, NAPI_AUTO_LENGTH, &text) ==
	    napi_ok && nb_addon_value(env, NB_REF_DIFF_TEXT, &symbol) == 0) {
		memset(&d, 0, sizeof(d));
		d.name = symbol;
		d.value = text;
		d.attributes = napi_default;    /* not enumerable, read-only */
		napi_define_properties(env, obj, 1, &d);
	}
	free(json);
	return obj;
}

static const char *
error_text(int rc, const char *text)
{
	return rc != 0 && text[0] != '\0' ? text : NULL;
}

void
nb_error_fields(napi_env env, napi_value o, int rc, const ps_error *err)
{
	nb_set(env, o, "ok", nb_bool(env, rc == 0));
	nb_set(env, o, "exit", nb_int(env, rc == 0 ? 0 :
	    err->status == PS_STATUS_REFUSED ? 1 : 2));
	nb_set(env, o, "code", nb_text(env, rc == 0 ? NULL : err->code));
	nb_set(env, o, "subject", nb_text(env, rc == 0 ? NULL : err->subject));
	nb_set(env, o, "message", nb_text(env, rc == 0 ? NULL : err->message));
	nb_set(env, o, "expected", nb_text(env, error_text(rc, err->expected)));
	nb_set(env, o, "found", nb_text(env, error_text(rc, err->found)));
}

napi_value
nb_error(napi_env env, const ps_error *err, napi_value result)
{
	char line[PS_ERROR_TEXT_MAX * 2 + PS_ERROR_VALUE_MAX * 2 + 128];
	napi_value fields = nb_object(env), ctor, out = NULL;

	nb_set(env, fields, "code", nb_text(env, err->code));
	nb_set(env, fields, "exit", nb_int(env,
	    err->status == PS_STATUS_REFUSED ? 1 : 2));
	nb_set(env, fields, "subject", nb_text(env, err->subject));
	nb_set(env, fields, "message", nb_text(env, err->message));
	nb_set(env, fields, "expected", nb_text(env, err->expected));
	nb_set(env, fields, "found", nb_text(env, err->found));
	nb_set(env, fields, "line", nb_text(env, ps_error_format(err, line,
	    sizeof(line))));
	if (result != NULL)
		nb_set(env, fields, "result", result);
	if (nb_addon_value(env, NB_REF_ERROR_CLASS, &ctor) != 0 ||
	    napi_new_instance(env, ctor, 1, &fields, &out) != napi_ok)
		return fields;
	return out;
}

napi_value
nb_throw(napi_env env, const ps_error *err)
{
	napi_throw(env, nb_error(env, err, NULL));
	return NULL;
}

void
nb_error_set(ps_error *err, const char *code, const char *subject,
    const char *message)
{
	ps_error_clear(err);
	err->status = PS_STATUS_FAILED;
	snprintf(err->code, sizeof(err->code), "%s", code);
	snprintf(err->subject, sizeof(err->subject), "%s", subject);
	snprintf(err->message, sizeof(err->message), "%s", message);
}
