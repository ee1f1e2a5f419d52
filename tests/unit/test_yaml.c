/* Unit tests: util/yaml (safe YAML tree, core schema, refusals). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/yaml.h"

/* Loads `text`; fails the test when it is refused. */
static util_yaml_doc *
load_ok(const char *text)
{
	util_yaml_doc *doc = NULL;
	ps_error err;
	char line[4096];

	if (util_yaml_load(text, strlen(text), "t.yaml", &doc, &err) != 0)
		fail_msg("refused: %s", ps_error_format(&err, line,
		    sizeof(line)));
	return doc;
}

/* Loads `len` bytes expecting refusal with `code` at `subject`. */
static void
refused_n(const char *text, size_t len, const char *code, const char *subject)
{
	util_yaml_doc *doc = NULL;
	ps_error err;

	assert_int_equal(util_yaml_load(text, len, "t.yaml", &doc, &err), -1);
	assert_null(doc);
	assert_string_equal(err.code, code);
	assert_int_equal(err.status, PS_STATUS_REFUSED);
	if (subject != NULL)
		assert_string_equal(err.subject, subject);
}

static void
refused(const char *text, const char *code, const char *subject)
{
	refused_n(text, strlen(text), code, subject);
}

static void
tree_and_positions(void **state)
{
	util_yaml_doc *doc;
	const util_yaml_node *root, *list, *k;

	(void)state;
	doc = load_ok("# c\nname: demo\nlist:\n  - a\n  - {x: 1}\n");
	root = util_yaml_root(doc);
	assert_int_equal(root->kind, UTIL_YAML_MAPPING);
	assert_int_equal(root->line, 2);
	assert_int_equal(root->column, 1);
	assert_string_equal(util_yaml_string(util_yaml_get(root, "name")), "demo");
	assert_int_equal(util_yaml_get(root, "name")->column, 7);
	list = util_yaml_get(root, "list");
	assert_int_equal(list->kind, UTIL_YAML_SEQUENCE);
	assert_int_equal(list->count, 2);
	assert_int_equal(list->items[0]->line, 4);
	assert_int_equal(list->items[0]->column, 5);
	assert_int_equal(list->items[1]->kind, UTIL_YAML_MAPPING);
	assert_int_equal(list->items[1]->line, 5);
	assert_int_equal(list->items[1]->column, 5);
	k = util_yaml_get_key(root, "list");
	assert_int_equal(k->line, 3);
	assert_int_equal(k->column, 1);
	assert_null(util_yaml_get(root, "missing"));
	assert_null(util_yaml_get(list, "name"));
	assert_string_equal(util_yaml_describe(list), "sequence");
	assert_string_equal(util_yaml_describe(root), "mapping");
	util_yaml_free(doc);
}

static void
empty_document_has_no_root(void **state)
{
	util_yaml_doc *doc;

	(void)state;
	doc = load_ok("");
	assert_null(util_yaml_root(doc));
	util_yaml_free(doc);
	doc = load_ok("# only a comment\n");
	assert_null(util_yaml_root(doc));
	util_yaml_free(doc);
}

static util_yaml_type
type_of(const char *text)
{
	util_yaml_doc *doc = load_ok(text);
	util_yaml_type t = util_yaml_root(doc)->type;

	util_yaml_free(doc);
	return t;
}

static void
core_schema_resolution_table(void **state)
{
	static const struct {
		const char *text;
		util_yaml_type type;
	} table[] = {
		{ "~", UTIL_YAML_NULL }, { "null", UTIL_YAML_NULL },
		{ "Null", UTIL_YAML_NULL }, { "NULL", UTIL_YAML_NULL },
		{ "nULL", UTIL_YAML_STRING }, { "''", UTIL_YAML_STRING },
		{ "true", UTIL_YAML_BOOL }, { "True", UTIL_YAML_BOOL },
		{ "TRUE", UTIL_YAML_BOOL }, { "false", UTIL_YAML_BOOL },
		{ "False", UTIL_YAML_BOOL }, { "FALSE", UTIL_YAML_BOOL },
		{ "tRUE", UTIL_YAML_STRING }, { "yes", UTIL_YAML_STRING },
		{ "no", UTIL_YAML_STRING }, { "on", UTIL_YAML_STRING },
		{ "off", UTIL_YAML_STRING }, { "y", UTIL_YAML_STRING },
		{ "\"true\"", UTIL_YAML_STRING }, { "'12'", UTIL_YAML_STRING },
		{ "0", UTIL_YAML_INT }, { "-19", UTIL_YAML_INT },
		{ "+7", UTIL_YAML_INT }, { "007", UTIL_YAML_INT },
		{ "0o17", UTIL_YAML_INT }, { "0o18", UTIL_YAML_STRING },
		{ "0x1F", UTIL_YAML_INT }, { "0xg", UTIL_YAML_STRING },
		{ "-0x1", UTIL_YAML_STRING }, { "017", UTIL_YAML_INT },
		{ "1_000", UTIL_YAML_STRING }, { "0b101", UTIL_YAML_STRING },
		{ "1.5", UTIL_YAML_FLOAT }, { "-.5", UTIL_YAML_FLOAT },
		{ "1.", UTIL_YAML_FLOAT }, { "1e3", UTIL_YAML_FLOAT },
		{ "2.5E-3", UTIL_YAML_FLOAT }, { ".", UTIL_YAML_STRING },
		{ "1e", UTIL_YAML_STRING }, { ".inf", UTIL_YAML_FLOAT },
		{ "-.Inf", UTIL_YAML_FLOAT }, { "+.INF", UTIL_YAML_FLOAT },
		{ ".nan", UTIL_YAML_FLOAT }, { ".NaN", UTIL_YAML_FLOAT },
		{ "-.nan", UTIL_YAML_STRING }, { "inf", UTIL_YAML_STRING },
		{ "1.2.3", UTIL_YAML_STRING }, { "12:30", UTIL_YAML_STRING },
		{ "\"1.5\"", UTIL_YAML_STRING }, { "|\n  true\n", UTIL_YAML_STRING },
		{ ">\n  12\n", UTIL_YAML_STRING },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (type_of(table[i].text) != table[i].type)
			fail_msg("'%s' resolved to %d, expected %d",
			    table[i].text, type_of(table[i].text),
			    table[i].type);
	}
}

static void
empty_plain_value_is_null(void **state)
{
	util_yaml_doc *doc;
	const util_yaml_node *v;

	(void)state;
	doc = load_ok("a:\nb: ''\n");
	v = util_yaml_get(util_yaml_root(doc), "a");
	assert_int_equal(v->type, UTIL_YAML_NULL);
	assert_string_equal(util_yaml_describe(v), "null");
	assert_int_equal(util_yaml_get(util_yaml_root(doc), "b")->type,
	    UTIL_YAML_STRING);
	util_yaml_free(doc);
}

static long long
int_of(const char *text, int *rc)
{
	util_yaml_doc *doc = load_ok(text);
	long long v = 0;

	*rc = util_yaml_int(util_yaml_root(doc), &v);
	util_yaml_free(doc);
	return v;
}

static void
typed_access_and_overflow(void **state)
{
	util_yaml_doc *doc;
	const util_yaml_node *r;
	int rc, b;
	double d;

	(void)state;
	assert_int_equal(int_of("0o17", &rc), 15);
	assert_int_equal(rc, 0);
	assert_int_equal(int_of("0xff", &rc), 255);
	assert_int_equal(int_of("-42", &rc), -42);
	assert_true(int_of("9223372036854775807", &rc) == INT64_MAX);
	assert_int_equal(rc, 0);
	assert_true(int_of("-9223372036854775808", &rc) == INT64_MIN);
	assert_int_equal(rc, 0);
	int_of("9223372036854775808", &rc);
	assert_int_equal(rc, -1);
	int_of("0x10000000000000000", &rc);
	assert_int_equal(rc, -1);
	int_of("1.0", &rc);
	assert_int_equal(rc, -1);

	doc = load_ok("[true, False, 2.5, .inf, -.INF, .nan, 12, \"x\", 1e400]");
	r = util_yaml_root(doc);
	assert_int_equal(util_yaml_bool(r->items[0], &b), 0);
	assert_int_equal(b, 1);
	assert_int_equal(util_yaml_bool(r->items[1], &b), 0);
	assert_int_equal(b, 0);
	assert_int_equal(util_yaml_bool(r->items[7], &b), -1);
	assert_int_equal(util_yaml_number(r->items[2], &d), 0);
	assert_true(d == 2.5);
	assert_int_equal(util_yaml_number(r->items[3], &d), 0);
	assert_true(isinf(d) && d > 0);
	assert_int_equal(util_yaml_number(r->items[4], &d), 0);
	assert_true(isinf(d) && d < 0);
	assert_int_equal(util_yaml_number(r->items[5], &d), 0);
	assert_true(isnan(d));
	assert_int_equal(util_yaml_number(r->items[6], &d), 0);
	assert_true(d == 12.0);
	assert_int_equal(util_yaml_number(r->items[7], &d), -1);
	assert_int_equal(util_yaml_number(r->items[8], &d), 0);
	assert_true(isinf(d));
	assert_null(util_yaml_string(r->items[6]));
	assert_string_equal(util_yaml_string(r->items[7]), "x");
	assert_string_equal(util_yaml_describe(r->items[2]), "float");
	assert_string_equal(util_yaml_describe(r->items[6]), "integer");
	assert_string_equal(util_yaml_describe(r->items[0]), "boolean");
	assert_string_equal(util_yaml_describe(r->items[7]), "string");
	util_yaml_free(doc);
}

static void
billion_laughs_is_refused(void **state)
{
	(void)state;
	refused("a: &a [\"lol\",\"lol\"]\nb: &b [*a,*a]\nc: [*b,*b]\n",
	    "yaml_anchor", "t.yaml:1:4");
	refused("- *x\n", "yaml_alias", "t.yaml:1:3");
	refused("x: &k v\n", "yaml_anchor", "t.yaml:1:4");
}

static void
deep_nesting_is_refused(void **state)
{
	char buf[512];
	size_t i;
	util_yaml_doc *doc;

	(void)state;
	for (i = 0; i < UTIL_YAML_MAX_DEPTH; i++)
		buf[i] = '[';
	for (i = 0; i < UTIL_YAML_MAX_DEPTH; i++)
		buf[UTIL_YAML_MAX_DEPTH + i] = ']';
	buf[2 * UTIL_YAML_MAX_DEPTH] = '\0';
	doc = load_ok(buf);
	util_yaml_free(doc);
	for (i = 0; i <= UTIL_YAML_MAX_DEPTH; i++)
		buf[i] = '[';
	for (i = 0; i <= UTIL_YAML_MAX_DEPTH; i++)
		buf[UTIL_YAML_MAX_DEPTH + 1 + i] = ']';
	buf[2 * UTIL_YAML_MAX_DEPTH + 2] = '\0';
	refused(buf, "yaml_too_deep", "t.yaml:1:65");
}

static void
duplicate_keys_name_both_lines(void **state)
{
	util_yaml_doc *doc = NULL;
	ps_error err;
	const char *text = "a: 1\nb: 2\nc: 3\n\"b\": 4\na: 5\n";

	(void)state;
	assert_int_equal(util_yaml_load(text, strlen(text), "t.yaml", &doc,
	    &err), -1);
	assert_string_equal(err.code, "yaml_duplicate_key");
	assert_string_equal(err.subject, "t.yaml:4:1");
	assert_string_equal(err.message, "duplicate key 'b' (first at line 2)");
	refused("outer:\n  x: 1\n  y: 2\n  x: 3\n", "yaml_duplicate_key",
	    "t.yaml:4:3");
	refused("{k: 1, 'k': 2}", "yaml_duplicate_key", "t.yaml:1:8");
}

static void
many_distinct_keys_are_fine(void **state)
{
	char *text = malloc(20000 * 16);
	size_t i, off = 0;
	util_yaml_doc *doc;

	(void)state;
	for (i = 0; i < 20000; i++)
		off += (size_t)sprintf(text + off, "k%zu: %zu\n", i, i);
	doc = load_ok(text);
	assert_int_equal(util_yaml_root(doc)->count, 20000);
	util_yaml_free(doc);
	free(text);
}

static void
complex_keys_are_refused(void **state)
{
	(void)state;
	refused("? [a, b]\n: 1\n", "yaml_complex_key", "t.yaml:1:3");
	refused("{{a: 1}: 2}\n", "yaml_complex_key", "t.yaml:1:2");
}

static void
tags_are_refused(void **state)
{
	(void)state;
	refused("a: !!python/object:os.system x\n", "yaml_tag", "t.yaml:1:4");
	refused("a: !custom x\n", "yaml_tag", "t.yaml:1:4");
	refused("a: !!str 12\n", "yaml_tag", "t.yaml:1:4");
	refused("a: ! 12\n", "yaml_tag", "t.yaml:1:4");
	refused("!!map\na: 1\n", "yaml_tag", "t.yaml:1:1");
	refused("a: !!seq [1]\n", "yaml_tag", "t.yaml:1:4");
	refused("%TAG !e! tag:example.com,2000:\n---\na: 1\n", "yaml_tag",
	    NULL);
}

static void
bad_utf8_nul_and_bom_are_refused(void **state)
{
	util_yaml_doc *doc;

	(void)state;
	refused("a: ok\nb: caf\xC3\n", "yaml_invalid_utf8", "t.yaml:2:7");
	refused("a: \xC0\xAF\n", "yaml_invalid_utf8", "t.yaml:1:4");
	refused("a: \xED\xA0\x80\n", "yaml_invalid_utf8", "t.yaml:1:4");
	refused("\xFF\xFE" "a\0:\0", "yaml_invalid_utf8", "t.yaml:1:1");
	refused_n("a: b\0c\n", 7, "yaml_invalid_utf8", "t.yaml:1:5");
	refused("a: \xC3\xA9\xEF\xBB\xBF\n", "yaml_invalid_utf8",
	    "t.yaml:1:5");
	refused("a: \"x\\0y\"\n", "yaml_invalid_utf8", "t.yaml:1:4");
	doc = load_ok("\xEF\xBB\xBF" "a: caf\xC3\xA9\n");
	assert_string_equal(util_yaml_string(util_yaml_get(util_yaml_root(doc),
	    "a")), "caf\xC3\xA9");
	util_yaml_free(doc);
}

static void
oversize_is_refused(void **state)
{
	size_t len = UTIL_YAML_MAX_BYTES + 1;
	char *big = malloc(len);
	util_yaml_doc *doc = NULL;
	ps_error err;

	(void)state;
	memset(big, '#', len);
	assert_int_equal(util_yaml_load(big, len, "t.yaml", &doc, &err), -1);
	assert_string_equal(err.code, "yaml_too_large");
	assert_string_equal(err.expected, "at most 1048576 bytes");
	assert_string_equal(err.found, "1048577 bytes");
	assert_int_equal(util_yaml_load(big, len - 1, "t.yaml", &doc, &err), 0);
	util_yaml_free(doc);
	free(big);
}

static void
multiple_documents_are_refused(void **state)
{
	(void)state;
	refused("a: 1\n---\nb: 2\n", "yaml_multiple_documents", "t.yaml:2:1");
	refused("---\na: 1\n...\n---\nb: 2\n", "yaml_multiple_documents",
	    "t.yaml:4:1");
}

static void
syntax_errors_have_positions(void **state)
{
	util_yaml_doc *doc = NULL;
	ps_error err;
	const char *text = "a: 1\nb: [1, 2\n";

	(void)state;
	assert_int_equal(util_yaml_load(text, strlen(text), "t.yaml", &doc,
	    &err), -1);
	assert_string_equal(err.code, "yaml_syntax");
	assert_int_equal(strncmp(err.subject, "t.yaml:", 7), 0);
	refused("a: b: c\n", "yaml_syntax", "t.yaml:1:5");
	refused("a:\n\tb: 1\n", "yaml_syntax", NULL);
}

static void
load_file_errors(void **state)
{
	char dir[] = "/tmp/ps-yaml-XXXXXX", path[256];
	util_yaml_doc *doc = NULL;
	ps_error err;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/none.yaml", dir);
	assert_int_equal(util_yaml_load_file(path, "none.yaml", &doc, &err), -1);
	assert_string_equal(err.code, "not_found");
	assert_int_equal(err.status, PS_STATUS_FAILED);
	assert_int_equal(util_yaml_load_file(dir, "dir", &doc, &err), -1);
	assert_string_equal(err.code, "io_error");
	snprintf(path, sizeof(path), "%s/m.yaml", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("k: [1, 2]\n", f);
	fclose(f);
	assert_int_equal(util_yaml_load_file(path, "m.yaml", &doc, &err), 0);
	assert_int_equal(util_yaml_get(util_yaml_root(doc), "k")->count, 2);
	util_yaml_free(doc);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("k: *x\n", f);
	fclose(f);
	assert_int_equal(util_yaml_load_file(path, "m.yaml", &doc, &err), -1);
	assert_string_equal(err.subject, "m.yaml:1:4");
	f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 0; i < UTIL_YAML_MAX_BYTES / 8 + 1; i++)
		fputs("#234567\n", f);
	fclose(f);
	assert_int_equal(util_yaml_load_file(path, "m.yaml", &doc, &err), -1);
	assert_string_equal(err.code, "yaml_too_large");
	assert_int_equal(err.status, PS_STATUS_REFUSED);
	assert_string_equal(err.found, "more than 1048576 bytes");
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tree_and_positions),
		cmocka_unit_test(empty_document_has_no_root),
		cmocka_unit_test(core_schema_resolution_table),
		cmocka_unit_test(empty_plain_value_is_null),
		cmocka_unit_test(typed_access_and_overflow),
		cmocka_unit_test(billion_laughs_is_refused),
		cmocka_unit_test(deep_nesting_is_refused),
		cmocka_unit_test(duplicate_keys_name_both_lines),
		cmocka_unit_test(many_distinct_keys_are_fine),
		cmocka_unit_test(complex_keys_are_refused),
		cmocka_unit_test(tags_are_refused),
		cmocka_unit_test(bad_utf8_nul_and_bom_are_refused),
		cmocka_unit_test(oversize_is_refused),
		cmocka_unit_test(multiple_documents_are_refused),
		cmocka_unit_test(syntax_errors_have_positions),
		cmocka_unit_test(load_file_errors),
	};
	return cmocka_run_group_tests_name("yaml", tests, NULL, NULL);
}
