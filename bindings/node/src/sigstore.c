/*
 * verifyBlob: any file's Sigstore bundle verified offline through
 * ps_sigstore_verify(), its result key for key what `packsign verify-blob
 * --json` prints (cli/sigstore_report.c).  It reads files and hashes, and
 * waits for nothing else: it runs on libuv's pool, as verify does.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "addon.h"

struct blob_call {
	struct nb_call base;
	const char *target;         /* a path or sha256:HEX, as given */
	const char *bundle;
	const char *root_path;      /* NULL: the compiled-in public-good root */
	int by_digest;              /* sha256 was given: target is a digest */
	ps_sigstore_options o;
	ps_sigstore_artifact artifact;
	ps_sigstore_root *root;
	int root_failed;            /* the trusted root could not be loaded */
	ps_sigstore_result *r;
};

/* As verify-blob: sha256:HEX names a digest when it is 64 hex digits and
 * no such file exists (or sha256 was given); 0, or -1 when by_digest and
 * the text is no digest. */
static int
blob_target(struct blob_call *x)
{
	const char *hex = x->target + 7;
	size_t i;

	memset(&x->artifact, 0, sizeof(x->artifact));
	x->artifact.path = x->target;
	if (strncmp(x->target, "sha256:", 7) != 0 || strlen(hex) != 64 ||
	    (!x->by_digest && access(x->target, F_OK) == 0))
		return x->by_digest ? -1 : 0;
	for (i = 0; i < 64; i++) {
		if (!isxdigit((unsigned char)hex[i]))
			return x->by_digest ? -1 : 0;
	}
	for (i = 0; i < 32; i++)
		x->artifact.sha256[i] = (unsigned char)strtoul((char[3]){
		    hex[2 * i], hex[2 * i + 1], '\0' }, NULL, 16);
	x->artifact.path = NULL;
	return 0;
}

static void
blob_run(struct nb_call *c)
{
	struct blob_call *x = (struct blob_call *)c;

	c->rc = x->root_path != NULL ? ps_sigstore_root_load(x->root_path,
	    &x->root, &c->err) : ps_sigstore_root_public_good(&x->root,
	    &c->err);
	if (c->rc != 0) {
		x->root_failed = 1;
		return;
	}
	if (blob_target(x) != 0) {
		nb_error_set(&c->err, "invalid_argument", x->target,
		    "sha256 is 64 hex digits");
		c->rc = -1;
		return;
	}
	x->o.root = x->root;
	c->rc = ps_sigstore_verify(&x->artifact, x->bundle, &x->o, &x->r,
	    &c->err);
}

static void
blob_release(struct nb_call *c)
{
	struct blob_call *x = (struct blob_call *)c;

	ps_sigstore_result_free(x->r);
	ps_sigstore_root_free(x->root);
}

/* A time as the CLI's report writes it: RFC 3339, else "@SECONDS". */
static napi_value
when(napi_env env, int64_t t)
{
	char text[PS_TIME_TEXT_LEN];

	if (ps_time_format(t, text) != 0)
		snprintf(text, sizeof(text), "@%lld", (long long)t);
	return nb_text(env, text);
}

static napi_value
entry_value(napi_env env, const ps_sigstore_log_entry *e)
{
	napi_value o = nb_object(env);

	nb_set(env, o, "log_url", nb_text(env, e->log_url));
	nb_set(env, o, "log_id", nb_text(env, e->log_id));
	nb_set(env, o, "log_index", nb_int(env, e->log_index));
	nb_set(env, o, "kind", nb_text(env, e->kind));
	nb_set(env, o, "version", nb_text(env, e->version));
	nb_set(env, o, "rekor_version", nb_int(env, e->rekor_version));
	nb_set(env, o, "inclusion_promise_verified", nb_bool(env,
	    e->set_verified));
	nb_set(env, o, "integrated_time", e->has_integrated_time ?
	    when(env, e->integrated_time) : nb_null(env));
	nb_set(env, o, "inclusion_proof_verified", nb_bool(env,
	    e->proof_verified));
	nb_set(env, o, "tree_size", e->proof_verified ? nb_int(env,
	    e->tree_size) : nb_null(env));
	nb_set(env, o, "root_hash", nb_text(env, e->proof_verified ?
	    e->root_hash : NULL));
	nb_set(env, o, "checkpoint_origin", nb_text(env, e->checkpoint_origin));
	return o;
}

static napi_value
timestamp_value(napi_env env, const ps_sigstore_timestamp *t)
{
	napi_value o = nb_object(env);

	nb_set(env, o, "verified", nb_bool(env, t->verified));
	nb_set(env, o, "time", t->verified ? when(env, t->time) :
	    nb_null(env));
	nb_set(env, o, "nanoseconds", nb_int(env, t->verified ?
	    t->nanoseconds : 0));
	nb_set(env, o, "authority", nb_text(env, t->authority));
	nb_set(env, o, "code", nb_text(env, t->verified ? NULL : t->code));
	nb_set(env, o, "reason", nb_text(env, t->reason));
	return o;
}

static napi_value
lists_value(napi_env env, const ps_sigstore_result *r, int timestamps)
{
	napi_value a = nb_array(env);
	size_t i, n = timestamps ? r->timestamp_count : r->log_entry_count;

	for (i = 0; i < n; i++)
		nb_push(env, a, timestamps ? timestamp_value(env,
		    &r->timestamps[i]) : entry_value(env, &r->log_entries[i]));
	return a;
}

/* The certificate's named fields (Fulcio's OID registry, in OID order),
 * as the CLI's report names them. */
static void
named_fields(napi_env env, napi_value o, const ps_sigstore_certificate *c)
{
	const struct {
		const char *name, *value;
	} f[] = {
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
		{ "source_repository_identifier",
		    c->source_repository_identifier },
		{ "source_repository_owner_uri", c->source_repository_owner_uri },
		{ "source_repository_owner_identifier",
		    c->source_repository_owner_identifier },
		{ "build_config_uri", c->build_config_uri },
		{ "build_config_digest", c->build_config_digest },
		{ "build_trigger", c->build_trigger },
		{ "run_invocation_uri", c->run_invocation_uri },
		{ "source_repository_visibility",
		    c->source_repository_visibility },
	};
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		nb_set(env, o, f[i].name, nb_text(env, f[i].value));
}

static napi_value
extensions_value(napi_env env, const ps_sigstore_certificate *c)
{
	napi_value o = nb_object(env), named = nb_object(env);
	napi_value all = nb_array(env), e;
	size_t i;

	named_fields(env, named, c);
	for (i = 0; i < c->extension_count; i++) {
		e = nb_object(env);
		nb_set(env, e, "oid", nb_text(env, c->extensions[i].oid));
		nb_set(env, e, "value", nb_text(env, c->extensions[i].value));
		nb_push(env, all, e);
	}
	nb_set(env, o, "fields", named);
	nb_set(env, o, "all", all);
	return o;
}

static napi_value
certificate_value(napi_env env, const ps_sigstore_result *r)
{
	const ps_sigstore_certificate *c = &r->certificate;
	napi_value o;

	if (!r->keyless || c->san == NULL)
		return nb_null(env);
	o = nb_object(env);
	nb_set(env, o, "san", nb_text(env, c->san));
	nb_set(env, o, "san_type", nb_text(env, c->san_type));
	nb_set(env, o, "issuer", nb_text(env, c->issuer));
	nb_set(env, o, "extensions", extensions_value(env, c));
	nb_set(env, o, "not_before", when(env, c->not_before));
	nb_set(env, o, "not_after", when(env, c->not_after));
	nb_set(env, o, "serial", nb_text(env, c->serial));
	nb_set(env, o, "sha256", nb_text(env, c->sha256));
	nb_set(env, o, "authority", nb_text(env, c->authority));
	nb_set(env, o, "ct_log", nb_text(env, c->ct_log));
	nb_set(env, o, "sct_time", c->ct_log != NULL ? nb_int(env,
	    c->sct_time_ms) : nb_null(env));
	return o;
}

static napi_value
steps_value(napi_env env, unsigned steps)
{
	const struct {
		const char *name;
		unsigned bit;
	} s[] = {
		{ "shape", PS_SIGSTORE_STEP_SHAPE },
		{ "log_entries", PS_SIGSTORE_STEP_LOG },
		{ "timestamps", PS_SIGSTORE_STEP_TIMESTAMPS },
		{ "signing_times", PS_SIGSTORE_STEP_TIMES },
		{ "certificate", PS_SIGSTORE_STEP_CERTIFICATE },
		{ "identity", PS_SIGSTORE_STEP_IDENTITY },
		{ "signature", PS_SIGSTORE_STEP_SIGNATURE },
	};
	napi_value o = nb_object(env);
	size_t i;

	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		nb_set(env, o, s[i].name, nb_bool(env, (steps & s[i].bit) != 0));
	return o;
}

static napi_value
key_value(napi_env env, const ps_sigstore_result *r)
{
	napi_value o;

	if (r->key_details[0] == '\0')
		return nb_null(env);
	o = nb_object(env);
	nb_set(env, o, "details", nb_text(env, r->key_details));
	nb_set(env, o, "sha256", nb_text(env, r->key_sha256));
	return o;
}

/* What verification proved, as far as it got. */
static void
evidence(napi_env env, napi_value o, const ps_sigstore_result *r)
{
	napi_value times = nb_array(env);
	size_t i;

	for (i = 0; i < r->signing_time_count; i++)
		nb_push(env, times, when(env, r->signing_times[i]));
	nb_set(env, o, "steps", steps_value(env, r->steps));
	nb_set(env, o, "bundle_version", nb_int(env, r->bundle_version));
	nb_set(env, o, "verification_material", nb_text(env, r->keyless ?
	    "certificate" : "public_key"));
	nb_set(env, o, "content", nb_text(env, r->dsse ? "dsse_envelope" :
	    "message_signature"));
	nb_set(env, o, "payload_type", nb_text(env, r->payload_type));
	nb_set(env, o, "artifact_sha256", nb_text(env,
	    r->artifact_sha256[0] != '\0' ? r->artifact_sha256 : NULL));
	nb_set(env, o, "key", key_value(env, r));
	nb_set(env, o, "certificate", certificate_value(env, r));
	nb_set(env, o, "log_entries", lists_value(env, r, 0));
	nb_set(env, o, "timestamps", lists_value(env, r, 1));
	nb_set(env, o, "signing_times", times);
}

/* Resolves with `packsign verify-blob --json`'s object when the bundle
 * verified; rejects with a PacksignError otherwise, its `result` that
 * object (none when the trusted root could not be loaded: the CLI prints
 * no report then either). */
static napi_value
blob_done(napi_env env, struct nb_call *c, int *reject)
{
	struct blob_call *x = (struct blob_call *)c;
	ps_sigstore_root_info info;
	napi_value o, root;

	if ((*reject = c->rc != 0) && x->root_failed)
		return nb_error(env, &c->err, NULL);
	o = nb_object(env);
	if (x->r != NULL)
		evidence(env, o, x->r);
	ps_sigstore_root_get_info(x->root, &info);
	root = nb_object(env);
	nb_set(env, root, "name", nb_text(env, info.name));
	nb_set(env, root, "public_good", nb_bool(env, info.public_good));
	nb_set(env, o, "artifact", nb_text(env, x->target));
	nb_set(env, o, "bundle", nb_text(env, x->bundle));
	nb_set(env, o, "trusted_root", root);
	nb_error_fields(env, o, c->rc, &c->err);
	return c->rc != 0 ? nb_error(env, &c->err, o) : o;
}

static const struct nb_ops blob_ops = { "packsign.verifyBlob", 0, blob_run,
    blob_done, blob_release, NULL };

/* (artifact, options {bundle, identity, issuer, key, trustedRoot, at,
 * digest}): index.js has checked which are given together; the library
 * checks them again (invalid_argument). */
napi_value
nb_verify_blob_js(napi_env env, napi_callback_info info)
{
	struct blob_call *x;
	struct nb_args a;
	napi_value opts;

	if (nb_args(env, info, &a) != 0 ||
	    (x = nb_call_new(env, &blob_ops, sizeof(*x))) == NULL)
		return NULL;
	opts = a.count > 1 ? a.v[1] : NULL;
	ps_sigstore_options_init(&x->o);
	if (nb_arg_string(env, a.count > 0 ? a.v[0] : NULL, &x->base,
	    "artifact", &x->target) != 0 ||
	    nb_opt_string(env, opts, "bundle", &x->base, &x->bundle) != 0 ||
	    nb_opt_string(env, opts, "identity", &x->base, &x->o.identity) !=
	    0 || nb_opt_string(env, opts, "issuer", &x->base, &x->o.issuer) !=
	    0 || nb_opt_string(env, opts, "key", &x->base, &x->o.key_path) !=
	    0 || nb_opt_string(env, opts, "trustedRoot", &x->base,
	    &x->root_path) != 0 ||
	    nb_opt_time(env, opts, "at", &x->o.at) != 0 ||
	    nb_opt_bool(env, opts, "digest", &x->by_digest) != 0) {
		nb_call_discard(&x->base);
		return NULL;
	}
	if (x->bundle == NULL) {
		nb_call_discard(&x->base);
		napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE",
		    "packsign: verifyBlob: bundle is required");
		return NULL;
	}
	return nb_call_start(env, &x->base, NULL);
}
