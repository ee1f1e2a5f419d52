/*
 * The result objects: key for key what the CLI's --json prints for the
 * same call (cli/checks.c, cli/install_run.c, cli/installed_report.c,
 * cli/cmd_list.c, cli/cmd_index.c; docs/packsign.1 lists the keys), so
 * that a program moving from `packsign ... --json` to the binding reads
 * the same object.  tests (bindings/node/test) compare the two.
 */
#include <stdlib.h>

#include "addon.h"

/* A bundle's verified log entries and timestamps and the signing times
 * they prove (signature.md 9.2), as cli/checks.c writes them: only a
 * signature that has any carries it. */
static napi_value
evidence(napi_env env, const ps_verify_signature *s)
{
	napi_value o = nb_object(env), times = nb_array(env);
	size_t i;

	for (i = 0; i < s->signing_time_count; i++)
		nb_push(env, times, nb_time(env, s->signing_times[i]));
	nb_set(env, o, "log_entries", nb_int(env,
	    (int64_t)s->log_entry_count));
	nb_set(env, o, "timestamps", nb_int(env, (int64_t)s->timestamp_count));
	nb_set(env, o, "signing_times", times);
	return o;
}

/* What a keyless signature's certificate certifies, as
 * cli/keyless_report.c writes it. */
static napi_value
keyless(napi_env env, const ps_verify_keyless *k)
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
	napi_value o = nb_object(env);
	size_t i;

	nb_set(env, o, "signer_id", nb_text(env, k->signer_id));
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		nb_set(env, o, f[i].name, nb_text(env, f[i].value));
	nb_set(env, o, "reusable_workflow", nb_bool(env,
	    k->reusable_workflow));
	nb_set(env, o, "signing_time", k->signing_time != 0 ?
	    nb_time(env, k->signing_time) : nb_null(env));
	nb_set(env, o, "policy_line", nb_int(env, (int64_t)k->entry_line));
	return o;
}

static napi_value
signatures(napi_env env, const ps_verify_result *r)
{
	napi_value list = nb_array(env), o;
	const ps_verify_signature *s;
	size_t i;

	for (i = 0; i < r->signature_count; i++) {
		s = &r->signatures[i];
		o = nb_object(env);
		nb_set(env, o, "index", nb_int(env, (int64_t)s->index));
		nb_set(env, o, "keyid", nb_text(env, s->keyid));
		nb_set(env, o, "fingerprint", nb_text(env,
		    s->fingerprint[0] != '\0' ? s->fingerprint : NULL));
		nb_set(env, o, "identity", nb_text(env, s->identity));
		nb_set(env, o, "counted", nb_bool(env, s->counted));
		nb_set(env, o, "code", nb_text(env,
		    s->code[0] != '\0' ? s->code : NULL));
		nb_set(env, o, "reason", nb_text(env, s->reason));
		if (s->log_entry_count + s->timestamp_count > 0)
			nb_set(env, o, "sigstore", evidence(env, s));
		if (s->keyless != NULL)
			nb_set(env, o, "keyless", keyless(env, s->keyless));
		nb_push(env, list, o);
	}
	return list;
}

static napi_value
identities(napi_env env, const ps_verify_result *r)
{
	napi_value list = nb_array(env), o;
	size_t i;

	for (i = 0; i < r->identity_count; i++) {
		o = nb_object(env);
		nb_set(env, o, "identity", nb_text(env,
		    r->identities[i].identity));
		nb_set(env, o, "fingerprint", nb_text(env,
		    r->identities[i].fingerprint));
		nb_push(env, list, o);
	}
	return list;
}

static napi_value
source(napi_env env, const ps_verify_result *r)
{
	napi_value o;

	if (!r->has_source)
		return nb_null(env);
	o = nb_object(env);
	nb_set(env, o, "repository", nb_text(env, r->source_repository));
	nb_set(env, o, "commit", nb_text(env, r->source_commit));
	nb_set(env, o, "path", nb_text(env, r->source_path));
	nb_set(env, o, "dirty", nb_bool(env, r->source_dirty));
	nb_set(env, o, "manifest_ref", nb_text(env, r->source_manifest_ref));
	nb_set(env, o, "certified", nb_bool(env, r->source_certified));
	nb_set(env, o, "certificate_checked", nb_bool(env,
	    r->source_certificate_checked));
	return o;
}

static napi_value
checks(napi_env env, const ps_verify_result *r)
{
	napi_value o = nb_object(env);

	nb_set(env, o, "directory", nb_bool(env, r->directory));
	nb_set(env, o, "subject", nb_bool(env, r->subject_checked));
	nb_set(env, o, "tree", nb_bool(env, r->tree_checked));
	nb_set(env, o, "canonical", nb_bool(env, r->canonical_checked));
	nb_set(env, o, "deep", nb_bool(env, r->deep));
	nb_set(env, o, "ceilings", nb_bool(env, r->ceilings_checked));
	nb_set(env, o, "source", nb_bool(env, r->source_checked));
	nb_set(env, o, "rebuild", nb_bool(env, r->rebuild_checked));
	return o;
}

/* How the archive was read (cli/checks.c's "read"). */
static napi_value
archive_read(napi_env env, const ps_verify_result *r)
{
	static const char *const how[] = { NULL, "lease", "memory copy",
	    "file copy", "read again", "private copy", "chunks" };
	napi_value o = nb_object(env);
	const char *name = (unsigned)r->archive_read < sizeof(how) /
	    sizeof(how[0]) ? how[r->archive_read] : NULL;

	nb_set(env, o, "how", nb_text(env, name));
	nb_set(env, o, "lease_declined", nb_text(env, r->lease_declined));
	return o;
}

void
nb_verify_fields(napi_env env, napi_value o, const ps_verify_result *r)
{
	napi_value d = nb_object(env);

	nb_set(env, o, "sig", nb_text(env, r->sig_path));
	nb_set(env, o, "format", r->id != NULL ?
	    nb_text(env, ps_format_name(r->format)) : nb_null(env));
	nb_set(env, o, "id", nb_text(env, r->id));
	nb_set(env, o, "version", nb_text(env, r->version));
	nb_set(env, o, "name", nb_text(env, r->name));
	nb_set(env, o, "threshold", nb_int(env, r->threshold));
	nb_set(env, o, "identities", identities(env, r));
	nb_set(env, o, "signatures", signatures(env, r));
	nb_set(env, d, "archive", nb_digest(env, r->has_archive_digest,
	    r->archive_digest));
	nb_set(env, d, "tar", nb_digest(env, r->has_tar_digest, r->tar_digest));
	nb_set(env, d, "tree", nb_digest(env, r->has_tree_digest,
	    r->tree_digest));
	nb_set(env, o, "digests", d);
	nb_set(env, o, "source", source(env, r));
	nb_set(env, o, "prompt_files", nb_int(env, (int64_t)r->prompt_count));
	nb_set(env, o, "checks", checks(env, r));
	nb_set(env, o, "read", archive_read(env, r));
}

napi_value
nb_verify_result(napi_env env, const char *path, const ps_verify_result *r,
    int rc, const ps_error *err)
{
	napi_value o = nb_object(env);

	nb_set(env, o, "path", nb_text(env, path));
	if (r != NULL) {
		nb_verify_fields(env, o, r);
		nb_set(env, o, "warnings", nb_diags(env, &r->warnings));
	}
	nb_error_fields(env, o, rc, err);
	return o;
}

static const char *
action_name(const ps_install_result *r, int rc)
{
	if (rc != 0)
		return NULL;
	if (r->already_installed)
		return "already_installed";
	if (r->dry_run)
		return "dry_run";
	return "installed";
}

static napi_value
upgrade(napi_env env, const ps_install_result *r)
{
	napi_value o;

	if (r->consent.from_version == NULL)
		return nb_null(env);
	o = nb_object(env);
	nb_set(env, o, "from", nb_text(env, r->consent.from_version));
	nb_set(env, o, "consent_needed", nb_consent(env, r->consent_needed));
	nb_set(env, o, "consent_by", nb_text(env, r->consent.by));
	nb_set(env, o, "diff", nb_diff(env, r->diff));
	return o;
}

static void
install_fields(napi_env env, napi_value o, const ps_install_result *r, int rc)
{
	napi_value v = NULL;

	nb_set(env, o, "format", r->id != NULL ?
	    nb_text(env, ps_format_name(r->format)) : nb_null(env));
	nb_set(env, o, "id", nb_text(env, r->id));
	nb_set(env, o, "version", nb_text(env, r->version));
	nb_set(env, o, "name", nb_text(env, r->name));
	nb_set(env, o, "domain", nb_text(env, r->domain));
	nb_set(env, o, "path", nb_text(env, r->path));
	nb_set(env, o, "receipt", nb_text(env, r->receipt_path));
	nb_set(env, o, "tree_digest", nb_digest(env, rc == 0, r->tree_digest));
	nb_set(env, o, "files", r->already_installed ? nb_null(env) :
	    nb_int(env, (int64_t)r->file_count));
	nb_set(env, o, "size", r->already_installed ? nb_null(env) :
	    nb_int(env, (int64_t)r->total_size));
	nb_set(env, o, "summary", nb_lines(env, r->summary));
	if (r->verify != NULL) {
		v = nb_object(env);
		nb_verify_fields(env, v, r->verify);
	}
	nb_set(env, o, "verify", v != NULL ? v : nb_null(env));
	nb_set(env, o, "warnings", r->verify != NULL ?
	    nb_diags(env, &r->verify->warnings) : nb_array(env));
	nb_set(env, o, "pinned", nb_bool(env, r->pinned));
	nb_set(env, o, "upgrade", upgrade(env, r));
}

napi_value
nb_install_result(napi_env env, const char *archive, const char *data_dir,
    const ps_install_result *r, int rc, const ps_error *err)
{
	napi_value o = nb_object(env);

	nb_set(env, o, "archive", nb_text(env, archive));
	nb_set(env, o, "data_dir", nb_text(env, data_dir));
	nb_set(env, o, "action", nb_text(env, r != NULL ? action_name(r, rc) :
	    NULL));
	if (r != NULL)
		install_fields(env, o, r, rc);
	nb_error_fields(env, o, rc, err);
	return o;
}

/* The regular files of an installed tree (its receipt also lists empty
 * directories), as the CLI's "files" counts them. */
static size_t
file_count(const ps_installed *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->entry_count; i++)
		n += p->entries[i].type == PS_ENTRY_FILE;
	return n;
}

napi_value
nb_installed(napi_env env, const ps_installed *p)
{
	napi_value o = nb_object(env), s = nb_object(env), d = nb_object(env);

	nb_set(env, o, "format", nb_text(env, ps_format_name(p->format)));
	nb_set(env, o, "id", nb_text(env, p->id));
	nb_set(env, o, "version", nb_text(env, p->version));
	nb_set(env, o, "name", nb_text(env, p->name));
	nb_set(env, o, "domain", nb_text(env, p->domain));
	nb_set(env, o, "newest", nb_bool(env, p->newest));
	nb_set(env, o, "path", nb_text(env, p->path));
	nb_set(env, o, "receipt", nb_text(env, p->receipt_path));
	nb_set(env, o, "sig", nb_text(env, p->sig_path));
	nb_set(env, o, "signer", nb_text(env, p->signer));
	nb_set(env, o, "fingerprint", nb_text(env, p->fingerprint));
	nb_set(env, s, "repository", nb_text(env, p->source_repository));
	nb_set(env, s, "commit", nb_text(env, p->source_commit));
	nb_set(env, o, "source", s);
	nb_set(env, o, "permissions", nb_text(env, p->permissions));
	nb_set(env, o, "archive", nb_text(env, p->archive_name));
	nb_set(env, d, "archive", nb_digest(env, 1, p->archive_digest));
	nb_set(env, d, "tree", nb_digest(env, 1, p->tree_digest));
	nb_set(env, o, "digests", d);
	nb_set(env, o, "installed_at", nb_time(env, p->installed_at));
	nb_set(env, o, "files", nb_int(env, (int64_t)file_count(p)));
	return o;
}

napi_value
nb_pins(napi_env env, const ps_pins *pins)
{
	napi_value o, signers, s;
	size_t i;

	if (pins == NULL)
		return nb_null(env);
	o = nb_object(env);
	signers = nb_array(env);
	for (i = 0; i < pins->signer_count; i++) {
		s = nb_object(env);
		nb_set(env, s, "identity", nb_text(env,
		    pins->signers[i].identity));
		nb_set(env, s, "fingerprint", nb_text(env,
		    pins->signers[i].fingerprint));
		nb_push(env, signers, s);
	}
	nb_set(env, o, "version", nb_text(env, pins->version));
	nb_set(env, o, "signers", signers);
	nb_set(env, o, "source_repository", nb_text(env,
	    pins->source_repository));
	return o;
}

napi_value
nb_check(napi_env env, const ps_installed_check *c)
{
	napi_value o = nb_object(env);

	nb_set(env, o, "modified", nb_strings_array(env, &c->modified));
	nb_set(env, o, "added", nb_strings_array(env, &c->added));
	nb_set(env, o, "missing", nb_strings_array(env, &c->missing));
	nb_set(env, o, "tree_digest", nb_digest(env, c->tree_computed,
	    c->tree_digest));
	nb_set(env, o, "signature_checked", nb_bool(env, c->signature_checked));
	return o;
}

/* The plan a confirm or consent callback is shown: the install result's
 * keys where they mean the same, the diff as diff() returns it. */
napi_value
nb_plan(napi_env env, const ps_install_plan *p)
{
	napi_value o = nb_object(env);

	nb_set(env, o, "format", nb_text(env, ps_format_name(p->format)));
	nb_set(env, o, "id", nb_text(env, p->id));
	nb_set(env, o, "version", nb_text(env, p->version));
	nb_set(env, o, "name", nb_text(env, p->name));
	nb_set(env, o, "domain", nb_text(env, p->domain));
	nb_set(env, o, "summary", nb_lines(env, p->summary));
	nb_set(env, o, "destination", nb_text(env, p->destination));
	nb_set(env, o, "signer", nb_text(env, p->signer));
	nb_set(env, o, "replaces_newest", nb_text(env, p->replaces_newest));
	nb_set(env, o, "warnings", nb_diags(env, p->warnings));
	nb_set(env, o, "diff", nb_diff(env, p->diff));
	nb_set(env, o, "consent_needed", nb_consent(env, p->consent_needed));
	return o;
}

napi_value
nb_index_entry(napi_env env, const ps_index_entry *e)
{
	napi_value o = nb_object(env);

	nb_set(env, o, "format", nb_text(env, ps_format_name(e->format)));
	nb_set(env, o, "id", nb_text(env, e->id));
	nb_set(env, o, "version", nb_text(env, e->version));
	nb_set(env, o, "url", nb_text(env, e->archive_url));
	nb_set(env, o, "archive_digest", nb_digest(env, 1, e->sha256));
	nb_set(env, o, "size", nb_int(env, (int64_t)e->size));
	nb_set(env, o, "yanked", nb_text(env, e->yanked));
	return o;
}
