/* Installed packs as list, uninstall and verify --installed show them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"

int
cli_data_dir(const char *option, char **out)
{
	ps_error err;

	if (option != NULL) {
		*out = strdup(option);
		if (*out == NULL)
			return cli_fail("out_of_memory", "", "allocate");
		return EXIT_OK;
	}
	if (ps_data_dir_default(out, &err) != 0)
		return cli_report(&err);
	return EXIT_OK;
}

static json_t *
time_json(int64_t t)
{
	char text[PS_TIME_TEXT_LEN];

	if (ps_time_format(t, text) != 0)
		return json_null();
	return json_string(text);
}

struct json_t *
cli_installed_json(const ps_installed *p)
{
	json_t *o = json_object();

	json_object_set_new(o, "format", json_string(ps_format_name(p->format)));
	json_object_set_new(o, "id", cli_json_text(p->id));
	json_object_set_new(o, "version", cli_json_text(p->version));
	json_object_set_new(o, "name", cli_json_text(p->name));
	json_object_set_new(o, "domain", cli_json_text(p->domain));
	json_object_set_new(o, "newest", json_boolean(p->newest));
	json_object_set_new(o, "path", cli_json_text(p->path));
	json_object_set_new(o, "receipt", cli_json_text(p->receipt_path));
	json_object_set_new(o, "sig", cli_json_text(p->sig_path));
	json_object_set_new(o, "signer", cli_json_text(p->signer));
	json_object_set_new(o, "fingerprint", cli_json_text(p->fingerprint));
	json_object_set_new(o, "source", json_pack("{s:o,s:o}", "repository",
	    cli_json_text(p->source_repository), "commit",
	    cli_json_text(p->source_commit)));
	json_object_set_new(o, "permissions", cli_json_text(p->permissions));
	json_object_set_new(o, "archive", cli_json_text(p->archive_name));
	json_object_set_new(o, "digests", json_pack("{s:o,s:o}", "archive",
	    cli_json_digest(1, p->archive_digest), "tree",
	    cli_json_digest(1, p->tree_digest)));
	json_object_set_new(o, "installed_at", time_json(p->installed_at));
	json_object_set_new(o, "entries",
	    json_integer((json_int_t)p->entry_count));
	return o;
}

struct json_t *
cli_check_json(const ps_installed_check *c)
{
	return json_pack("{s:o,s:o,s:o,s:o,s:b}", "modified",
	    cli_json_strings(&c->modified), "added",
	    cli_json_strings(&c->added), "missing",
	    cli_json_strings(&c->missing), "tree_digest",
	    cli_json_digest(c->tree_computed, c->tree_digest),
	    "signature_checked", c->signature_checked);
}

static void
print_list(FILE *out, const char *indent, const char *label,
    const ps_strings *paths)
{
	size_t i;

	for (i = 0; i < paths->count; i++) {
		fprintf(out, "%s%s: ", indent, label);
		cli_put_safe(out, paths->items[i]);
		fputc('\n', out);
	}
}

void
cli_print_changes(FILE *out, const char *indent, const ps_installed_check *c)
{
	print_list(out, indent, "modified", &c->modified);
	print_list(out, indent, "added", &c->added);
	print_list(out, indent, "missing", &c->missing);
}

void
cli_print_pack_name(FILE *out, const ps_installed *p)
{
	cli_put_safe(out, p->id);
	fputc(' ', out);
	cli_put_safe(out, p->version);
}

static void
print_ok(const ps_installed_check *c)
{
	char text[PS_SHA256_STRING_LEN];

	fputs("ok: ", stdout);
	cli_print_pack_name(stdout, c->receipt);
	fputs(" at ", stdout);
	cli_put_safe(stdout, c->receipt->path);
	printf(": %zu entries match the receipt", c->receipt->entry_count);
	if (c->tree_computed)
		printf(", tree digest %s", ps_sha256_string(c->tree_digest, text));
	fputs(c->signature_checked ? "; receipt signature verified" :
	    "; receipt signature not checked (no policy given)", stdout);
	fputc('\n', stdout);
}

static json_t *
installed_result_json(const char *path, const ps_installed_check *c, int rc,
    const ps_error *err)
{
	json_t *o = json_object();

	json_object_set_new(o, "path", cli_json_text(path));
	json_object_set_new(o, "receipt", c != NULL && c->receipt != NULL ?
	    cli_installed_json(c->receipt) : json_null());
	json_object_set_new(o, "check", c != NULL ? cli_check_json(c) :
	    json_null());
	cli_json_error(o, rc, err);
	return o;
}

/* Re-checks one tree; returns its exit code and adds to `report`. */
static int
verify_installed_one(const char *path, const ps_trust *trust, int64_t at,
    json_t *report)
{
	ps_installed_check *c = NULL;
	ps_error err;
	int rc, code;

	ps_error_clear(&err);
	rc = ps_installed_verify(path, trust, at, &c, &err);
	code = rc == 0 ? EXIT_OK : err.status == PS_STATUS_REFUSED ?
	    EXIT_REFUSED : EXIT_FAILED;
	if (report != NULL)
		json_array_append_new(report, installed_result_json(path, c, rc,
		    &err));
	else if (rc == 0)
		print_ok(c);
	else {
		if (c != NULL)
			cli_print_changes(stdout, "", c);
		cli_report(&err);
	}
	ps_installed_check_free(c);
	return code;
}

int
cli_verify_installed(char **paths, int count, const ps_trust *trust,
    int64_t at, int json)
{
	json_t *results = json ? json_array() : NULL, *report;
	int i, code, worst = EXIT_OK, good = 0;

	for (i = 0; i < count; i++) {
		code = verify_installed_one(paths[i], trust, at, results);
		good += code == EXIT_OK;
		worst = code > worst ? code : worst;
	}
	if (!json)
		return worst;
	report = json_pack("{s:b,s:i,s:i,s:o}", "ok", worst == EXIT_OK,
	    "verified", good, "total", count, "results", results);
	code = cli_print_json(report);
	json_decref(report);
	return code != EXIT_OK ? code : worst;
}
