/* Reports of Sigstore verifications and trusted roots. */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli/json.h"
#include "cli/output.h"
#include "cli/sigstore_report.h"

/* The certificate's named fields, in OID order, as the JSON names them. */
struct cert_field {
	const char *name;
	const char *value;
};

static size_t
cert_fields(const ps_sigstore_certificate *c, struct cert_field *f)
{
	const struct cert_field all[] = {
		{ "github_workflow_trigger", c->github_workflow_trigger },
		{ "github_workflow_sha", c->github_workflow_sha },
		{ "github_workflow_name", c->github_workflow_name },
		{ "github_workflow_repository", c->github_workflow_repository },
		{ "github_workflow_ref", c->github_workflow_ref },
		{ "build_signer_uri", c->build_signer_uri },
		{ "build_signer_digest", c->build_signer_digest },
		{ "runner_environment", c->runner_environment },
		{ "source_repository_uri", c->source_repository_uri },
		{ "source_repository_digest", c->source_repository_digest },
		{ "source_repository_ref", c->source_repository_ref },
		{ "source_repository_identifier", c->source_repository_identifier },
		{ "source_repository_owner_uri", c->source_repository_owner_uri },
		{ "source_repository_owner_identifier",
		    c->source_repository_owner_identifier },
		{ "build_config_uri", c->build_config_uri },
		{ "build_config_digest", c->build_config_digest },
		{ "build_trigger", c->build_trigger },
		{ "run_invocation_uri", c->run_invocation_uri },
		{ "source_repository_visibility", c->source_repository_visibility },
	};

	memcpy(f, all, sizeof(all));
	return sizeof(all) / sizeof(*all);
}

static const char *
when(int64_t t, char buf[PS_TIME_TEXT_LEN])
{
	if (ps_time_format(t, buf) != 0)
		snprintf(buf, PS_TIME_TEXT_LEN, "@%lld", (long long)t);
	return buf;
}

/* ---------------------------------------------------------------- text */

static void
print_signer(FILE *out, const char *target, const ps_sigstore_result *r)
{
	fputs("Good signature: ", out);
	cli_put_safe(out, target);
	fprintf(out, " (%s) by ", r->artifact_sha256);
	if (r->keyless) {
		cli_put_safe(out, r->certificate.san);
		fputs(" (issuer ", out);
		cli_put_safe(out, r->certificate.issuer);
		fputs(")\n", out);
	} else {
		fprintf(out, "the key sha256:%s (%s)\n", r->key_sha256,
		    r->key_details);
	}
	fprintf(out, "  bundle: v0.%d, %s", r->bundle_version, r->dsse ?
	    "DSSE envelope (" : "message signature");
	if (r->dsse) {
		cli_put_safe(out, r->payload_type);
		fputc(')', out);
	}
	if (r->keyless) {
		fputs(", certificate from ", out);
		cli_put_safe(out, r->certificate.authority != NULL ?
		    r->certificate.authority : "(no uri)");
		if (r->certificate.ct_log != NULL) {
			fputs(", SCT from ", out);
			cli_put_safe(out, r->certificate.ct_log);
		}
	}
	fputc('\n', out);
}

static void
print_entries(FILE *out, const ps_sigstore_result *r)
{
	const ps_sigstore_log_entry *e;
	char t[PS_TIME_TEXT_LEN];
	size_t i;

	for (i = 0; i < r->log_entry_count; i++) {
		e = &r->log_entries[i];
		fputs("  log entry: ", out);
		cli_put_safe(out, e->log_url);
		fprintf(out, " index %lld (%s %s, Rekor v%d): %s%s%s", (long long)
		    e->log_index, e->kind, e->version, e->rekor_version,
		    e->set_verified ? "inclusion promise" : "", e->set_verified &&
		    e->proof_verified ? " and " : "", e->proof_verified ?
		    "inclusion proof" : "");
		fputs(" verified", out);
		if (e->has_integrated_time)
			fprintf(out, ", integrated %s", when(e->integrated_time, t));
		if (e->proof_verified)
			fprintf(out, ", tree size %lld", (long long)e->tree_size);
		fputc('\n', out);
	}
}

static void
print_timestamps(FILE *out, const ps_sigstore_result *r)
{
	const ps_sigstore_timestamp *ts;
	char t[PS_TIME_TEXT_LEN];
	size_t i;

	for (i = 0; i < r->timestamp_count; i++) {
		ts = &r->timestamps[i];
		if (ts->verified) {
			fprintf(out, "  timestamp: %s by ", when(ts->time, t));
			cli_put_safe(out, ts->authority != NULL ? ts->authority :
			    "(no uri)");
		} else {
			fprintf(out, "  timestamp %zu skipped: ", i);
			cli_put_safe(out, ts->reason);
			fprintf(out, " [%s]", ts->code);
		}
		fputc('\n', out);
	}
}

static void
print_source(FILE *out, const ps_sigstore_certificate *c)
{
	if (c->source_repository_uri == NULL && c->build_signer_uri == NULL)
		return;
	fputs("  built from: ", out);
	cli_put_safe(out, c->source_repository_uri != NULL ?
	    c->source_repository_uri : "(no repository)");
	if (c->source_repository_digest != NULL) {
		fputs(" at ", out);
		cli_put_safe(out, c->source_repository_digest);
	}
	if (c->source_repository_ref != NULL) {
		fputs(" (", out);
		cli_put_safe(out, c->source_repository_ref);
		fputc(')', out);
	}
	if (c->build_signer_uri != NULL) {
		fputs(", signer workflow ", out);
		cli_put_safe(out, c->build_signer_uri);
	}
	fputc('\n', out);
}

void
cli_sigstore_print(FILE *out, const char *target, const ps_sigstore_result *r)
{
	print_signer(out, target, r);
	print_entries(out, r);
	print_timestamps(out, r);
	if (r->keyless)
		print_source(out, &r->certificate);
}

/* ---------------------------------------------------------------- JSON */

static json_t *
json_time(int has, int64_t t)
{
	char buf[PS_TIME_TEXT_LEN];

	return has ? json_string(when(t, buf)) : json_null();
}

static json_t *
entry_json(const ps_sigstore_log_entry *e)
{
	return json_pack("{s:o, s:s, s:I, s:s, s:s, s:i, s:b, s:o, s:b, s:o, "
	    "s:o, s:o}", "log_url", cli_json_text(e->log_url), "log_id",
	    e->log_id, "log_index", (json_int_t)e->log_index, "kind", e->kind,
	    "version", e->version, "rekor_version", e->rekor_version,
	    "inclusion_promise_verified", e->set_verified, "integrated_time",
	    json_time(e->has_integrated_time, e->integrated_time),
	    "inclusion_proof_verified", e->proof_verified, "tree_size",
	    e->proof_verified ? json_integer(e->tree_size) : json_null(),
	    "root_hash", e->proof_verified ? json_string(e->root_hash) :
	    json_null(), "checkpoint_origin", cli_json_text(e->checkpoint_origin));
}

static json_t *
timestamp_json(const ps_sigstore_timestamp *t)
{
	return json_pack("{s:b, s:o, s:i, s:o, s:o, s:o}", "verified",
	    t->verified, "time", json_time(t->verified, t->time), "nanoseconds",
	    t->verified ? t->nanoseconds : 0, "authority",
	    cli_json_text(t->authority), "code", t->verified ? json_null() :
	    json_string(t->code), "reason", cli_json_text(t->reason));
}

static json_t *
list_json(const ps_sigstore_result *r, int timestamps)
{
	json_t *a = json_array();
	size_t i, n = timestamps ? r->timestamp_count : r->log_entry_count;

	for (i = 0; a != NULL && i < n; i++)
		json_array_append_new(a, timestamps ?
		    timestamp_json(&r->timestamps[i]) :
		    entry_json(&r->log_entries[i]));
	return a;
}

static json_t *
extensions_json(const ps_sigstore_certificate *c)
{
	struct cert_field f[32];
	json_t *named = json_object(), *all = json_array();
	size_t i, n = cert_fields(c, f);

	for (i = 0; named != NULL && i < n; i++)
		json_object_set_new(named, f[i].name, cli_json_text(f[i].value));
	for (i = 0; all != NULL && i < c->extension_count; i++)
		json_array_append_new(all, json_pack("{s:s, s:o}", "oid",
		    c->extensions[i].oid, "value",
		    cli_json_text(c->extensions[i].value)));
	return json_pack("{s:o?, s:o?}", "fields", named, "all", all);
}

static json_t *
certificate_json(const ps_sigstore_result *r)
{
	const ps_sigstore_certificate *c = &r->certificate;
	char nb[PS_TIME_TEXT_LEN], na[PS_TIME_TEXT_LEN];

	if (!r->keyless || c->san == NULL)
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:o, s:s, s:s, s:s, s:s, s:o, s:o, "
	    "s:o}", "san", cli_json_text(c->san), "san_type",
	    cli_json_text(c->san_type), "issuer", cli_json_text(c->issuer),
	    "extensions", extensions_json(c), "not_before",
	    when(c->not_before, nb), "not_after", when(c->not_after, na),
	    "serial", c->serial, "sha256", c->sha256, "authority",
	    cli_json_text(c->authority), "ct_log", cli_json_text(c->ct_log),
	    "sct_time", c->ct_log != NULL ? json_integer(c->sct_time_ms) :
	    json_null());
}

static json_t *
steps_json(unsigned steps)
{
	return json_pack("{s:b, s:b, s:b, s:b, s:b, s:b, s:b}", "shape",
	    (steps & PS_SIGSTORE_STEP_SHAPE) != 0, "log_entries",
	    (steps & PS_SIGSTORE_STEP_LOG) != 0, "timestamps",
	    (steps & PS_SIGSTORE_STEP_TIMESTAMPS) != 0, "signing_times",
	    (steps & PS_SIGSTORE_STEP_TIMES) != 0, "certificate",
	    (steps & PS_SIGSTORE_STEP_CERTIFICATE) != 0, "identity",
	    (steps & PS_SIGSTORE_STEP_IDENTITY) != 0, "signature",
	    (steps & PS_SIGSTORE_STEP_SIGNATURE) != 0);
}

static json_t *
times_json(const ps_sigstore_result *r)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < r->signing_time_count; i++)
		json_array_append_new(a, json_time(1, r->signing_times[i]));
	return a;
}

static json_t *
evidence_json(const ps_sigstore_result *r)
{
	return json_pack("{s:o, s:i, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, "
	    "s:o}", "steps", steps_json(r->steps), "bundle_version",
	    r->bundle_version, "verification_material", r->keyless ?
	    "certificate" : "public_key", "content", r->dsse ? "dsse_envelope" :
	    "message_signature", "payload_type", cli_json_text(r->payload_type),
	    "artifact_sha256", r->artifact_sha256[0] != '\0' ?
	    json_string(r->artifact_sha256) : json_null(), "key",
	    r->key_details[0] != '\0' ? json_pack("{s:s, s:s}", "details",
	    r->key_details, "sha256", r->key_sha256) : json_null(),
	    "certificate", certificate_json(r), "log_entries", list_json(r, 0),
	    "timestamps", list_json(r, 1), "signing_times", times_json(r));
}

json_t *
cli_sigstore_json(const char *target, const char *bundle,
    const ps_sigstore_root *root, const ps_sigstore_result *r, int rc,
    const ps_error *err)
{
	ps_sigstore_root_info info;
	json_t *o = r != NULL ? evidence_json(r) : json_object();

	if (o == NULL)
		return NULL;
	ps_sigstore_root_get_info(root, &info);
	json_object_set_new(o, "artifact", cli_json_text(target));
	json_object_set_new(o, "bundle", cli_json_text(bundle));
	json_object_set_new(o, "trusted_root", json_pack("{s:o, s:b}", "name",
	    cli_json_text(info.name), "public_good", info.public_good));
	cli_json_error(o, rc, err);
	return o;
}

/* ---------------------------------------------------------------- roots */

static const char *const kind_names[] = {
	"certificate authority", "transparency log", "CT log",
	"timestamp authority",
};

static void
print_entry(FILE *out, const ps_sigstore_root_entry *e)
{
	char from[PS_TIME_TEXT_LEN], until[PS_TIME_TEXT_LEN];

	fprintf(out, "  %s ", kind_names[e->kind]);
	cli_put_safe(out, e->url != NULL ? e->url : "(no uri)");
	if (e->key_details != NULL) {
		fputs(" (", out);
		cli_put_safe(out, e->key_details);
		fputs(e->usable ? ")" : ", not usable: packsign does not verify "
		    "with this algorithm)", out);
	} else {
		fprintf(out, " (%zu certificate%s)", e->certificates,
		    e->certificates == 1 ? "" : "s");
	}
	fprintf(out, "\n      valid %s .. %s\n", when(e->valid_from, from),
	    e->has_valid_until ? when(e->valid_until, until) : "(open)");
}

void
cli_sigstore_root_print(FILE *out, const ps_sigstore_root *root)
{
	ps_sigstore_root_info info;
	ps_sigstore_root_entry e;
	size_t k, i;

	ps_sigstore_root_get_info(root, &info);
	fputs("sigstore trusted root: ", out);
	cli_put_safe(out, info.name);
	fprintf(out, " (%zu root%s)\n", info.documents, info.documents == 1 ?
	    "" : "s");
	if (info.public_good)
		fprintf(out, "  source: %s\n  date: %s\n",
		    ps_sigstore_public_good_source(), ps_sigstore_public_good_date());
	for (k = 0; k < 4; k++) {
		for (i = 0; ps_sigstore_root_entry_get(root, (ps_sigstore_kind)k, i,
		    &e) == 0; i++)
			print_entry(out, &e);
	}
}

static json_t *
root_entry_json(const ps_sigstore_root_entry *e)
{
	char from[PS_TIME_TEXT_LEN];

	return json_pack("{s:s, s:o, s:o, s:b, s:s, s:o, s:I}", "kind",
	    kind_names[e->kind], "url", cli_json_text(e->url), "key_details",
	    cli_json_text(e->key_details), "usable", e->usable, "valid_from",
	    when(e->valid_from, from), "valid_until",
	    json_time(e->has_valid_until, e->valid_until), "certificates",
	    (json_int_t)e->certificates);
}

json_t *
cli_sigstore_root_json(const ps_sigstore_root *root)
{
	ps_sigstore_root_info info;
	ps_sigstore_root_entry e;
	json_t *entries = json_array();
	size_t k, i;

	ps_sigstore_root_get_info(root, &info);
	for (k = 0; entries != NULL && k < 4; k++) {
		for (i = 0; ps_sigstore_root_entry_get(root, (ps_sigstore_kind)k, i,
		    &e) == 0; i++)
			json_array_append_new(entries, root_entry_json(&e));
	}
	return json_pack("{s:o, s:b, s:I, s:o, s:o, s:o?}", "name",
	    cli_json_text(info.name), "public_good", info.public_good,
	    "documents", (json_int_t)info.documents, "source", info.public_good ?
	    json_string(ps_sigstore_public_good_source()) : json_null(), "date",
	    info.public_good ? json_string(ps_sigstore_public_good_date()) :
	    json_null(), "entries", entries);
}
