/* Printing --json reports and the pieces several reports share. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/json.h"
#include "cli/output.h"

/* Non-ASCII as \u escapes: JSON read on a terminal can then carry no
 * C1 control or bidi override from a pack, and means the same. */
int
cli_print_json(struct json_t *json)
{
	if (json == NULL || json_dumpf(json, stdout, JSON_INDENT(2) |
	    JSON_SORT_KEYS | JSON_ENSURE_ASCII) != 0 || fputc('\n', stdout) == EOF)
		return cli_fail("io_error", "stdout", "cannot write JSON");
	return EXIT_OK;
}

int
cli_print_json_line(struct json_t *json)
{
	if (json == NULL || json_dumpf(json, stdout, JSON_COMPACT |
	    JSON_SORT_KEYS | JSON_ENSURE_ASCII) != 0 ||
	    fputc('\n', stdout) == EOF || fflush(stdout) != 0)
		return cli_fail("io_error", "stdout", "cannot write JSON");
	return EXIT_OK;
}

int
cli_print_report(struct json_t *report, const char *subject)
{
	int rc;

	if (report == NULL)
		return cli_fail("json_output", subject,
		    "cannot build the JSON output");
	rc = cli_print_json(report);
	json_decref(report);
	return rc;
}

struct json_t *
cli_json_digest(int has, const unsigned char digest[PS_SHA256_LEN])
{
	char text[PS_SHA256_STRING_LEN];

	return has ? json_string(ps_sha256_string(digest, text)) : json_null();
}

/* Bytes of invalid UTF-8 become '?': jansson refuses them, and a report
 * must not lose a field. */
struct json_t *
cli_json_text(const char *s)
{
	json_t *j;
	char *copy;
	size_t i;

	if (s == NULL)
		return json_null();
	if ((j = json_string(s)) != NULL)
		return j;
	if ((copy = strdup(s)) == NULL)
		return json_null();
	for (i = 0; copy[i] != '\0'; i++) {
		if ((unsigned char)copy[i] >= 0x80)
			copy[i] = '?';
	}
	j = json_string(copy);
	free(copy);
	return j != NULL ? j : json_null();
}

struct json_t *
cli_json_strings(const ps_strings *list)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < list->count; i++)
		json_array_append_new(a, cli_json_text(list->items[i]));
	return a;
}

struct json_t *
cli_json_lines(const char *text)
{
	json_t *a = json_array();
	const char *p = text;
	size_t n;
	char *line;

	while (a != NULL && p != NULL && *p != '\0') {
		n = strcspn(p, "\n");
		line = strndup(p, n);
		json_array_append_new(a, cli_json_text(line));
		free(line);
		p += n + (p[n] == '\n');
	}
	return a;
}

struct json_t *
cli_json_diags(const ps_diags *diags)
{
	json_t *list = json_array(), *d;
	const ps_diag *x;
	size_t i;

	for (i = 0; list != NULL && i < diags->count; i++) {
		x = &diags->items[i];
		d = json_pack("{s:o, s:I, s:I, s:s, s:s, s:o}", "file",
		    cli_json_text(x->file), "line", (json_int_t)x->line,
		    "column", (json_int_t)x->column, "severity",
		    x->severity == PS_SEVERITY_ERROR ? "error" : "warning",
		    "code", x->code, "message", cli_json_text(x->message));
		json_array_append_new(list, d);
	}
	return list;
}

static const char *
error_text(int rc, const char *text)
{
	return rc != 0 && text[0] != '\0' ? text : NULL;
}

void
cli_json_error(struct json_t *o, int rc, const ps_error *err)
{
	json_object_set_new(o, "ok", json_boolean(rc == 0));
	json_object_set_new(o, "exit", json_integer(rc == 0 ? EXIT_OK :
	    err->status == PS_STATUS_REFUSED ? EXIT_REFUSED : EXIT_FAILED));
	json_object_set_new(o, "code", cli_json_text(rc == 0 ? NULL :
	    err->code));
	json_object_set_new(o, "subject", cli_json_text(rc == 0 ? NULL :
	    err->subject));
	json_object_set_new(o, "message", cli_json_text(rc == 0 ? NULL :
	    err->message));
	json_object_set_new(o, "expected", cli_json_text(error_text(rc,
	    err->expected)));
	json_object_set_new(o, "found", cli_json_text(error_text(rc,
	    err->found)));
}
