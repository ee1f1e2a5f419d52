/* What a keyless signature's certificate certifies: verify's text and
 * JSON (cli/keyless_report.h). */
#include <stdio.h>

#include <jansson.h>

#include "cli/json.h"
#include "cli/keyless_report.h"
#include "cli/output.h"

json_t *
cli_keyless_json(const ps_verify_keyless *k)
{
	const struct { const char *name; const char *value; } f[] = {
		{ "issuer", k->issuer }, { "subject", k->subject },
		{ "repository", k->repository },
		{ "repository_id", k->repository_id },
		{ "owner_id", k->owner_id }, { "ref", k->ref },
		{ "commit", k->commit },
		{ "signer_workflow", k->signer_workflow },
		{ "config_workflow", k->config_workflow },
		{ "trigger", k->trigger }, { "runner", k->runner },
		{ "run_uri", k->run_uri }, { "authority", k->authority },
		{ "trusted_root", k->trusted_root },
	};
	char when[PS_TIME_TEXT_LEN];
	json_t *o = json_object();
	size_t i;

	json_object_set_new(o, "signer_id", json_string(k->signer_id));
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		json_object_set_new(o, f[i].name, cli_json_text(f[i].value));
	json_object_set_new(o, "reusable_workflow",
	    json_boolean(k->reusable_workflow));
	json_object_set_new(o, "signing_time", k->signing_time != 0 &&
	    ps_time_format(k->signing_time, when) == 0 ? json_string(when) :
	    json_null());
	json_object_set_new(o, "policy_line",
	    json_integer((json_int_t)k->entry_line));
	return o;
}

static void
put_field(FILE *out, const char *label, const char *value)
{
	if (value == NULL)
		return;
	fprintf(out, ", %s ", label);
	cli_put_safe(out, value);
}

void
cli_keyless_print(FILE *out, const ps_verify_result *r)
{
	const ps_verify_keyless *k;
	size_t i;

	for (i = 0; i < r->signature_count; i++) {
		k = r->signatures[i].keyless;
		if (!r->signatures[i].counted || k == NULL)
			continue;
		fputs("; keyless: ", out);
		cli_put_safe(out, r->signatures[i].identity);
		fputs(" is the workflow ", out);
		cli_put_safe(out, k->signer_workflow != NULL ?
		    k->signer_workflow : k->subject);
		put_field(out, "issuer", k->issuer);
		put_field(out, "repository", k->repository);
		put_field(out, "id", k->repository_id);
		put_field(out, "ref", k->ref);
		put_field(out, "commit", k->commit);
		put_field(out, "trigger", k->trigger);
	}
}

void
cli_keyless_print_source(FILE *out, const ps_verify_result *r)
{
	const ps_verify_keyless *k = NULL;
	size_t i;

	if (!r->source_certified && !r->source_certificate_checked)
		return;
	for (i = 0; i < r->signature_count && k == NULL; i++)
		if (r->signatures[i].counted && r->signatures[i].keyless != NULL &&
		    r->signatures[i].keyless->commit != NULL)
			k = r->signatures[i].keyless;
	if (k == NULL)
		return;
	fputs(r->source_certified ? " (not recorded by the signer: source "
	    "certified by the CI: repository " : "; source certified by the "
	    "CI: repository ", out);
	cli_put_safe(out, k->repository);
	fputs(", commit ", out);
	cli_put_safe(out, k->commit);
	put_field(out, "workflow", k->signer_workflow);
	put_field(out, "ref", k->ref);
	fputs(r->source_certified ? ")" : "", out);
}
