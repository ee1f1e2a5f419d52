/* Unit tests: formats/jsonschema (the JSON Schema subset on YAML trees). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "formats/jsonschema.h"

static util_yaml_doc *
load(const char *text)
{
	util_yaml_doc *doc = NULL;
	ps_error err;
	char line[2048];

	if (util_yaml_load(text, strlen(text), "t.yaml", &doc, &err) != 0)
		fail_msg("YAML refused: %s", ps_error_format(&err, line,
		    sizeof(line)));
	return doc;
}

/* Validates; returns the mismatch count, first message in `first`. */
static size_t
run(const char *schema, const char *instance, char *first, size_t size)
{
	util_yaml_doc *s = load(schema), *i = load(instance);
	ps_diags diags;
	size_t n;

	ps_diags_init(&diags);
	if (formats_jsonschema_check(util_yaml_root(s), "schema.yaml", &diags) != 0)
		fail_msg("schema refused: %s", diags.items[0].message);
	ps_diags_free(&diags);
	n = formats_jsonschema_validate(util_yaml_root(s), util_yaml_root(i), "in.yaml",
	    "example x input", PS_SEVERITY_ERROR, &diags);
	assert_int_equal(n, diags.count);
	if (first != NULL)
		snprintf(first, size, "%s", n > 0 ? diags.items[0].message : "");
	if (n > 0)
		assert_string_equal(diags.items[0].code, "schema_mismatch");
	ps_diags_free(&diags);
	util_yaml_free(s);
	util_yaml_free(i);
	return n;
}

static void
passes(const char *schema, const char *instance)
{
	char msg[1024];

	if (run(schema, instance, msg, sizeof(msg)) != 0)
		fail_msg("'%s' against '%s': %s", instance, schema, msg);
}

static void
fails(const char *schema, const char *instance, const char *message)
{
	char msg[1024];

	if (run(schema, instance, msg, sizeof(msg)) == 0)
		fail_msg("'%s' passed '%s'", instance, schema);
	if (message != NULL && strcmp(msg, message) != 0)
		fail_msg("got '%s', expected '%s'", msg, message);
}

static void
type_keyword(void **state)
{
	(void)state;
	passes("type: string", "abc");
	passes("type: string", "'12'");
	fails("type: string", "12", "example x input /: expected string, "
	    "found integer 12");
	passes("type: integer", "12");
	passes("type: integer", "12.0");
	fails("type: integer", "-0x10", NULL);   /* a string in YAML 1.2 */
	fails("type: integer", "12.5", "example x input /: expected "
	    "integer, found number 12.5");
	passes("type: number", "12");
	passes("type: number", "1e3");
	fails("type: number", "'1'", NULL);
	passes("type: boolean", "false");
	fails("type: boolean", "yes", "example x input /: expected boolean, "
	    "found string 'yes'");
	passes("type: 'null'", "~");
	passes("type: 'null'", "");
	passes("type: array", "[1]");
	fails("type: array", "{a: 1}", "example x input /: expected array, "
	    "found object an object");
	passes("type: object", "{a: 1}");
	passes("type: [string, 'null']", "~");
	fails("type: [string, 'null']", "3", "example x input /: expected "
	    "string or null, found integer 3");
}

static void
properties_required_additional(void **state)
{
	static const char *schema =
	    "type: object\n"
	    "required: [name, version]\n"
	    "properties:\n"
	    "  name: {type: string}\n"
	    "  version: {type: string}\n"
	    "  max_bullets: {type: integer, maximum: 12}\n"
	    "additionalProperties: false\n";

	(void)state;
	passes(schema, "name: a\nversion: '1'\n");
	fails(schema, "name: a\n", "example x input /: missing required "
	    "property 'version'");
	fails(schema, "name: a\nversion: '1'\nmax_bullets: 20\n",
	    "example x input /max_bullets: expected at most 12, found 20");
	fails(schema, "name: a\nversion: '1'\nextra: 1\n", "example x input "
	    "/extra: property 'extra' is not allowed here");
	fails(schema, "name: 3\nversion: '1'\n", "example x input /name: "
	    "expected string, found integer 3");
	passes("additionalProperties: true", "{a: 1}");
	passes("additionalProperties: {type: integer}", "{a: 1, b: 2}");
	fails("additionalProperties: {type: integer}", "{a: 1, b: x}",
	    "example x input /b: expected integer, found string 'x'");
	passes("properties: {a: {type: integer}}\nadditionalProperties: "
	    "false", "{a: 1}");
	/* Object keywords do not apply to other types. */
	passes("required: [a]", "12");
}

static void
items_and_counts(void **state)
{
	(void)state;
	passes("items: {type: string}", "[a, b]");
	fails("items: {type: string}", "[a, 2]", "example x input /1: "
	    "expected string, found integer 2");
	fails("items: {properties: {'a/b~c': {type: string}}}",
	    "[{'a/b~c': 1}]", "example x input /0/a~1b~0c: expected string, "
	    "found integer 1");
	passes("minItems: 1\nmaxItems: 2", "[1]");
	fails("minItems: 1", "[]", "example x input /: expected at least 1 "
	    "items, found 0");
	fails("maxItems: 2", "[1, 2, 3]", "example x input /: expected at "
	    "most 2 items, found 3");
}

static void
enum_and_const(void **state)
{
	(void)state;
	passes("enum: [Agent, Tool, Skill, Model]", "Tool");
	fails("enum: [Agent, Tool, Skill, Model]", "Agnet", "example x input "
	    "/: expected one of 'Agent', 'Tool', 'Skill', 'Model', found "
	    "'Agnet'");
	passes("enum: [1, 2]", "2.0");                /* JSON: 2 == 2.0 */
	fails("enum: ['1', '2']", "1", NULL);         /* string vs number */
	passes("enum: [[1, {a: b}]]", "[1, {a: b}]");
	fails("enum: [[1, {a: b}]]", "[1, {a: c}]", NULL);
	passes("enum: [~, true]", "true");
	fails("enum: [true]", "'true'", NULL);
	passes("const: soyaos.ai/v0", "soyaos.ai/v0");
	fails("const: soyaos.ai/v0", "soyaos.ai/v1", "example x input /: "
	    "expected 'soyaos.ai/v0', found 'soyaos.ai/v1'");
	passes("const: {a: 1, b: 2}", "{b: 2, a: 1}");
	fails("const: {a: 1}", "{a: 1, b: 2}", NULL);
}

static void
numeric_bounds(void **state)
{
	(void)state;
	passes("minimum: 1\nmaximum: 12", "12");
	passes("minimum: 1\nmaximum: 12", "1");
	fails("minimum: 1", "0", "example x input /: expected at least 1, "
	    "found 0");
	fails("maximum: 1.5", "1.6", "example x input /: expected at most "
	    "1.5, found 1.6");
	passes("exclusiveMinimum: 0", "0.001");
	fails("exclusiveMinimum: 0", "0", "example x input /: expected more "
	    "than 0, found 0");
	passes("exclusiveMaximum: 10", "9");
	fails("exclusiveMaximum: 10", "10.0", "example x input /: expected "
	    "less than 10, found 10.0");
	/* 2^63-1 and 2^63-2 compare exactly, not through doubles. */
	fails("maximum: 9223372036854775806", "9223372036854775807", NULL);
	fails("minimum: 0", ".nan", NULL);
	passes("minimum: 0", "abc");      /* applies to numbers only */
}

static void
string_lengths_count_code_points(void **state)
{
	(void)state;
	passes("minLength: 4\nmaxLength: 4", "caf\xC3\xA9");
	passes("maxLength: 4", "caf\xC3\xA9");      /* 5 bytes, 4 chars */
	fails("maxLength: 3", "caf\xC3\xA9", "example x input /: expected at "
	    "most 3 characters, found 4");
	fails("minLength: 1", "''", "example x input /: expected at least 1 "
	    "characters, found 0");
	passes("maxLength: 1", "12345");     /* an integer, not a string */
}

static void
pattern_is_unanchored_ere(void **state)
{
	(void)state;
	passes("pattern: '^[a-z][a-z0-9-]*$'", "research-summarizer");
	fails("pattern: '^[a-z][a-z0-9-]*$'", "Research", "example x input /: "
	    "expected text matching the pattern '^[a-z][a-z0-9-]*$', found "
	    "'Research'");
	passes("pattern: 'b+'", "abbbc");                 /* unanchored */
	passes("pattern: '^.{4}$'", "caf\xC3\xA9");        /* characters */
	passes("pattern: '^(a|b)+$'", "abab");
}

static void
formats(void **state)
{
	static const char *const uris[] = { "https://example.com/a?b=c#d",
	    "urn:isbn:0451450523", "mailto:a@b.c", "file:///etc/x",
	    "git+https://github.com/o/r@refs/heads/main", "http://[::1]:80/",
	    "https://h/%20" };
	static const char *const not_uris[] = { "example.com/a", "/rel/path",
	    "1http://x", "http://a b", "http://x/%2", "http://x#a#b",
	    "http://x/\xC3\xA9", "" };
	static const char *const emails[] = { "a@example.com",
	    "first.last+tag@sub.example.org", "o'brien@x.io" };
	static const char *const not_emails[] = { "a", "a@b", "@b.com",
	    "a@.com", "a..b@c.com", ".a@c.com", "a@-b.com", "a@b-.com",
	    "a b@c.com", "a@b_c.com" };
	static const char *const dates[] = { "2024-02-29T12:00:00Z",
	    "1985-04-12T23:20:50.52Z", "1996-12-19T16:39:57-08:00",
	    "1990-12-31T23:59:60Z", "2024-01-01t00:00:00z" };
	static const char *const not_dates[] = { "2023-02-29T12:00:00Z",
	    "2024-13-01T00:00:00Z", "2024-01-01 00:00:00Z",
	    "2024-01-01T24:00:00Z", "2024-01-01T00:00:00",
	    "2024-01-01T00:00:00+0100", "2024-01-01T00:00:00.Z",
	    "2024-04-31T00:00:00Z", "24-01-01T00:00:00Z", "2024-01-01" };
	char schema[64], inst[256];
	size_t i;

	(void)state;
#define EACH(list, fmt, expect)                                              \
	for (i = 0; i < sizeof(list) / sizeof(list[0]); i++) {               \
		snprintf(schema, sizeof(schema), "format: %s", fmt);         \
		snprintf(inst, sizeof(inst), "\"%s\"", list[i]);               \
		if ((run(schema, inst, NULL, 0) == 0) != (expect))           \
			fail_msg("%s %s: expected %s", fmt, list[i],         \
			    (expect) ? "pass" : "fail");                     \
	}
	EACH(uris, "uri", 1);
	EACH(not_uris, "uri", 0);
	EACH(emails, "email", 1);
	EACH(not_emails, "email", 0);
	EACH(dates, "date-time", 1);
	EACH(not_dates, "date-time", 0);
	fails("format: uri", "example.com", "example x input /: expected a "
	    "valid uri, found 'example.com'");
}

static void
boolean_schemas(void **state)
{
	(void)state;
	passes("true", "{anything: [1]}");
	fails("false", "1", "example x input /: no value is allowed here, "
	    "found 1");
	fails("properties: {legacy: false}", "legacy: x", "example x input "
	    "/legacy: no value is allowed here, found 'x'");
}

static void
mismatch_positions_and_severity(void **state)
{
	util_yaml_doc *s = load("properties: {a: {type: string}}\n"
	    "required: [b]\n");
	util_yaml_doc *i = load("x: 1\na: 5\n");
	ps_diags d;
	char line[1024];

	(void)state;
	ps_diags_init(&d);
	assert_int_equal(formats_jsonschema_validate(util_yaml_root(s),
	    util_yaml_root(i), "m.yaml", "manifest", PS_SEVERITY_WARNING, &d), 2);
	ps_diags_sort(&d);
	assert_string_equal(ps_diag_format(&d.items[0], line, sizeof(line)),
	    "m.yaml:1:1: warning: manifest /: missing required property 'b' "
	    "[schema_mismatch]");
	assert_string_equal(ps_diag_format(&d.items[1], line, sizeof(line)),
	    "m.yaml:2:4: warning: manifest /a: expected string, found integer "
	    "5 [schema_mismatch]");
	ps_diags_free(&d);
	util_yaml_free(s);
	util_yaml_free(i);
}

static void
many_mismatches_are_capped(void **state)
{
	char inst[4096];
	size_t i, off = 0;
	util_yaml_doc *s = load("items: {type: string}"), *d;
	ps_diags diags;

	(void)state;
	off += (size_t)snprintf(inst, sizeof(inst), "[");
	for (i = 0; i < 300; i++)
		off += (size_t)snprintf(inst + off, sizeof(inst) - off, "1,");
	snprintf(inst + off, sizeof(inst) - off, "1]");
	d = load(inst);
	ps_diags_init(&diags);
	assert_int_equal(formats_jsonschema_validate(util_yaml_root(s),
	    util_yaml_root(d), "f", "l", PS_SEVERITY_ERROR, &diags), 301);
	assert_int_equal(diags.count, 100);
	assert_non_null(strstr(diags.items[99].message, "not shown"));
	ps_diags_free(&diags);
	util_yaml_free(s);
	util_yaml_free(d);
}

/* Checks `schema`; returns errors, first diagnostic code in `code`. */
static size_t
check(const char *schema, size_t *warnings, char *first, size_t size)
{
	util_yaml_doc *s = load(schema);
	ps_diags d;
	size_t n;

	ps_diags_init(&d);
	n = formats_jsonschema_check(util_yaml_root(s), "s.yaml", &d);
	*warnings = ps_diags_count(&d, PS_SEVERITY_WARNING);
	assert_int_equal(n, ps_diags_count(&d, PS_SEVERITY_ERROR));
	if (first != NULL)
		ps_diag_format(&d.items[0], first, size);
	ps_diags_free(&d);
	util_yaml_free(s);
	return n;
}

/* Found in review: nested bounded repeats made regcomp take gigabytes. */
static void
patterns_with_exploding_repeats_are_refused(void **state)
{
	size_t w;
	char first[512];

	(void)state;
	assert_int_equal(check("pattern: '((a{1,100}){1,100}){1,100}'", &w,
	    first, sizeof(first)), 1);
	assert_non_null(strstr(first, "[schema_invalid]"));
	assert_int_equal(check("pattern: 'a{1,300}'", &w, NULL, 0), 1);
	assert_int_equal(check("pattern: '([0-9]{1,3}\\.){3}[0-9]{1,3}'", &w,
	    NULL, 0), 0);
	assert_int_equal(check("pattern: '^https?://[a-z.]+(/[a-z]*)*$'", &w,
	    NULL, 0), 0);
	assert_int_equal(check("pattern: '[{(]x{2}[[:alpha:]]{1,}'", &w, NULL,
	    0), 0);
}

static void
schema_shape_is_checked(void **state)
{
	static const char *const bad[] = {
		"type: integr", "type: []", "type: [string, 3]", "type: 3",
		"properties: [a]", "properties: {a: 3}", "required: a",
		"required: [1]", "additionalProperties: 3", "items: [a]",
		"enum: a", "enum: []", "minimum: '1'", "maximum: .inf",
		"exclusiveMinimum: true", "exclusiveMaximum: false",
		"minLength: -1", "maxLength: 1.5", "minItems: x",
		"maxItems: ~", "pattern: 3", "pattern: '(a'",
		"pattern: '(a)\\1'", "format: 3", "[1]", "12",
		"items: {items: {type: nope}}",
	};
	size_t i, w;
	char first[1024];

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (check(bad[i], &w, first, sizeof(first)) == 0)
			fail_msg("schema '%s' accepted", bad[i]);
		assert_non_null(strstr(first, "[schema_invalid]"));
	}
	assert_int_equal(check("exclusiveMaximum: true", &w, first,
	    sizeof(first)), 1);
	assert_non_null(strstr(first, "draft-4 boolean form"));
	assert_int_equal(check("type: integr", &w, first, sizeof(first)), 1);
	assert_string_equal(first, "s.yaml:1:7: error: schema: unknown type "
	    "'integr' (expected null, boolean, integer, number, string, array "
	    "or object) [schema_invalid]");
}

static void
unknown_keywords_warn(void **state)
{
	size_t w;
	char first[1024];

	(void)state;
	assert_int_equal(check("title: T\ndescription: D\ndefault: 1\n"
	    "examples: [1]\n$schema: x\n$id: y\n$comment: z\ndeprecated: "
	    "true\nreadOnly: true\nwriteOnly: false\ntype: object\n", &w,
	    NULL, 0), 0);
	assert_int_equal(w, 0);
	assert_int_equal(check("type: object\noneOf: [{type: string}]\n", &w,
	    first, sizeof(first)), 0);
	assert_int_equal(w, 1);
	assert_string_equal(first, "s.yaml:2:1: warning: schema: keyword "
	    "'oneOf' is not supported by packsign and is not checked "
	    "[schema_keyword_unsupported]");
	assert_int_equal(check("properties: {a: {$ref: '#/x', format: ipv4}}",
	    &w, NULL, 0), 0);
	assert_int_equal(w, 2);
}

static void
deep_schemas_are_bounded(void **state)
{
	char text[4096];
	size_t i, off = 0, w;

	(void)state;
	for (i = 0; i < 63; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off,
		    "{items: ");
	off += (size_t)snprintf(text + off, sizeof(text) - off, "{}");
	for (i = 0; i < 63; i++)
		text[off++] = '}';
	text[off] = '\0';
	assert_int_equal(check(text, &w, NULL, 0), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(type_keyword),
		cmocka_unit_test(properties_required_additional),
		cmocka_unit_test(items_and_counts),
		cmocka_unit_test(enum_and_const),
		cmocka_unit_test(numeric_bounds),
		cmocka_unit_test(string_lengths_count_code_points),
		cmocka_unit_test(pattern_is_unanchored_ere),
		cmocka_unit_test(formats),
		cmocka_unit_test(boolean_schemas),
		cmocka_unit_test(mismatch_positions_and_severity),
		cmocka_unit_test(many_mismatches_are_capped),
		cmocka_unit_test(schema_shape_is_checked),
		cmocka_unit_test(patterns_with_exploding_repeats_are_refused),
		cmocka_unit_test(unknown_keywords_warn),
		cmocka_unit_test(deep_schemas_are_bounded),
	};
	return cmocka_run_group_tests_name("jsonschema", tests, NULL, NULL);
}
