/* Installed packs and re-checks of their trees, as the reports show them. */
#include <stdio.h>

#include <jansson.h>

#include "cli/installed_report.h"
#include "cli/json.h"
#include "cli/output.h"

static json_t *
time_json(int64_t t)
{
	char text[PS_TIME_TEXT_LEN];

	if (ps_time_format(t, text) != 0)
		return json_null();
	return json_string(text);
}

size_t
cli_installed_file_count(const ps_installed *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->entry_count; i++)
		n += p->entries[i].type == PS_ENTRY_FILE;
	return n;
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
	json_object_set_new(o, "files",
	    json_integer((json_int_t)cli_installed_file_count(p)));
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
