/* What verify and install share: the trust policy, a verification's report. */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli/checks.h"
#include "cli/keyless_report.h"
#include "cli/cli.h"
#include "cli/json.h"
#include "cli/output.h"

int
cli_checks_one_policy(const struct cli_usage *cmd,
    const struct cli_checks *checks)
{
	if ((checks->policy == NULL) != (checks->pubkey == NULL))
		return EXIT_OK;
	return cli_usage_error(cmd, "give one of --trust POLICY and -p KEY.pub");
}

int
cli_load_policy(const char *policy_path, const char *pubkey_path,
    ps_trust **policy, ps_error *err)
{
	ps_pubkey *key = NULL;
	int rc;

	if (policy_path != NULL)
		return ps_trust_load_file(policy_path, policy, err);
	if (ps_pubkey_load_file(pubkey_path, &key, err) != 0)
		return -1;
	rc = ps_trust_from_pubkey(key, pubkey_path, policy, err);
	ps_pubkey_free(key);
	return rc;
}

int
cli_checks_load_policy(struct cli_checks *checks, ps_trust **policy)
{
	ps_error err;

	*policy = NULL;
	if (checks->policy == NULL && checks->pubkey == NULL)
		return EXIT_OK;
	if (cli_load_policy(checks->policy, checks->pubkey, policy, &err) != 0)
		return cli_report(&err);
	checks->verify.trust = *policy;
	return EXIT_OK;
}

/* A bundle's verified log entries and timestamps, and the signing times
 * they prove (signature.md 9.2); only a signature that has any carries it. */
static json_t *
evidence_json(const ps_verify_signature *s)
{
	char when[PS_TIME_TEXT_LEN];
	json_t *times = json_array();
	size_t i;

	for (i = 0; times != NULL && i < s->signing_time_count; i++)
		json_array_append_new(times, ps_time_format(s->signing_times[i],
		    when) == 0 ? json_string(when) : json_null());
	return json_pack("{s:I,s:I,s:o?}", "log_entries",
	    (json_int_t)s->log_entry_count, "timestamps",
	    (json_int_t)s->timestamp_count, "signing_times", times);
}

static json_t *
signatures_json(const ps_verify_result *r)
{
	json_t *list = json_array(), *o;
	const ps_verify_signature *s;
	size_t i;

	for (i = 0; i < r->signature_count; i++) {
		s = &r->signatures[i];
		o = json_pack("{s:I,s:o,s:o,s:o,s:b,s:o,s:o}", "index",
		    (json_int_t)s->index, "keyid", cli_json_text(s->keyid),
		    "fingerprint", s->fingerprint[0] != '\0' ?
		    json_string(s->fingerprint) : json_null(), "identity",
		    cli_json_text(s->identity), "counted", s->counted, "code",
		    s->code[0] != '\0' ? json_string(s->code) : json_null(),
		    "reason", cli_json_text(s->reason));
		if (o != NULL && s->log_entry_count + s->timestamp_count > 0)
			json_object_set_new(o, "sigstore", evidence_json(s));
		if (o != NULL && s->keyless != NULL)
			json_object_set_new(o, "keyless",
			    cli_keyless_json(s->keyless));
		json_array_append_new(list, o);
	}
	return list;
}

static json_t *
identities_json(const ps_verify_result *r)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; i < r->identity_count; i++)
		json_array_append_new(list, json_pack("{s:o,s:s}", "identity",
		    cli_json_text(r->identities[i].identity), "fingerprint",
		    r->identities[i].fingerprint));
	return list;
}

static json_t *
source_json(const ps_verify_result *r)
{
	if (!r->has_source)
		return json_null();
	return json_pack("{s:o,s:o,s:o,s:b,s:o,s:b,s:b}", "repository",
	    cli_json_text(r->source_repository), "commit",
	    cli_json_text(r->source_commit), "path",
	    cli_json_text(r->source_path), "dirty", r->source_dirty,
	    "manifest_ref", cli_json_text(r->source_manifest_ref),
	    "certified", r->source_certified, "certificate_checked",
	    r->source_certificate_checked);
}

static json_t *
checks_json(const ps_verify_result *r)
{
	return json_pack("{s:b,s:b,s:b,s:b,s:b,s:b,s:b,s:b}", "directory",
	    r->directory, "subject", r->subject_checked, "tree",
	    r->tree_checked, "canonical", r->canonical_checked, "deep", r->deep,
	    "ceilings", r->ceilings_checked, "source", r->source_checked,
	    "rebuild", r->rebuild_checked);
}

static json_t *
read_json(const ps_verify_result *r)
{
	static const char *const how[] = { NULL, "lease", "memory copy",
	    "file copy", "read again", "private copy", "chunks" };
	const char *name = (unsigned)r->archive_read < sizeof(how) /
	    sizeof(how[0]) ? how[r->archive_read] : NULL;

	return json_pack("{s:o,s:o}", "how", name != NULL ? json_string(name) :
	    json_null(), "lease_declined", cli_json_text(r->lease_declined));
}

void
cli_verify_json(struct json_t *o, const ps_verify_result *r)
{
	json_object_set_new(o, "sig", cli_json_text(r->sig_path));
	json_object_set_new(o, "format", r->id != NULL ?
	    json_string(ps_format_name(r->format)) : json_null());
	json_object_set_new(o, "id", cli_json_text(r->id));
	json_object_set_new(o, "version", cli_json_text(r->version));
	json_object_set_new(o, "name", cli_json_text(r->name));
	json_object_set_new(o, "threshold", json_integer(r->threshold));
	json_object_set_new(o, "identities", identities_json(r));
	json_object_set_new(o, "signatures", signatures_json(r));
	json_object_set_new(o, "digests", json_pack("{s:o,s:o,s:o}",
	    "archive", cli_json_digest(r->has_archive_digest,
	    r->archive_digest), "tar", cli_json_digest(r->has_tar_digest,
	    r->tar_digest), "tree", cli_json_digest(r->has_tree_digest,
	    r->tree_digest)));
	json_object_set_new(o, "source", source_json(r));
	json_object_set_new(o, "prompt_files",
	    json_integer((json_int_t)r->prompt_count));
	json_object_set_new(o, "checks", checks_json(r));
	json_object_set_new(o, "read", read_json(r));
}

void
cli_print_signers(FILE *out, const ps_verify_result *r)
{
	size_t i;

	for (i = 0; i < r->identity_count; i++) {
		fputs(i > 0 ? ", " : "", out);
		cli_put_safe(out, r->identities[i].identity);
		fprintf(out, " (%s)", r->identities[i].fingerprint);
	}
}

void
cli_print_warnings(const char *path, const ps_diags *warnings)
{
	const ps_diag *d;
	size_t i, n = strlen(path);

	for (i = 0; warnings != NULL && i < warnings->count; i++) {
		d = &warnings->items[i];
		/* FILE is relative to the pack: named under PATH, as validate
		 * names the files of an archive. */
		fputs("packsign: warning: ", stderr);
		cli_put_safe(stderr, path);
		fputs(n > 0 && path[n - 1] == '/' ? "" : "/", stderr);
		cli_put_safe(stderr, d->file);
		if (d->line > 0)
			fprintf(stderr, ":%u:%u", d->line, d->column);
		fputs(": ", stderr);
		cli_put_safe(stderr, d->message);
		fprintf(stderr, " [%s]\n", d->code);
	}
}
