/*
 * Keyless signatures (signature.md, "Keyless signatures"): a certificate
 * bundle verified by sigstore/ under the trusted roots of the policy's
 * keyless entries, its certificate matched with those entries; the
 * signature counts for the one identity whose entry it matches.
 *
 * Each (bundle, trusted root) pair is verified at most once; roots are
 * loaded once per verification.  A policy has at most 32 entries of 16
 * roots each, so a bundle costs at most that many verifications.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys/keyless.h"
#include "sigstore/sigstore.h"
#include "util/error.h"
#include "verify/certsigners.h"

#define KL_ROOTS_MAX (32 * 16 + 1)

/* One bundle verified under one root. */
typedef struct kl_try {
	size_t root;                   /* index into the root cache */
	int rc;                        /* 0 verified, 1 refused */
	ps_sigstore_result *r;
	ps_error refusal;
} kl_try;

typedef struct kl_bundle {
	kl_try **tries;                /* each its own allocation: the
	                                * search keeps pointers to them */
	size_t try_count;
	const ps_trust_signer *signer; /* counted for; NULL: none */
	const ps_trust_keyless *entry;
	const kl_try *used;
} kl_bundle;

struct verify_keyless {
	kl_bundle *bundles;            /* per v->bundles[k] */
	const char *paths[KL_ROOTS_MAX];   /* NULL: the default root */
	ps_sigstore_root *loaded[KL_ROOTS_MAX];
	const ps_sigstore_root *roots[KL_ROOTS_MAX];
	size_t root_count;
};

/* The root at `path` (NULL: the options' root, else the public-good one),
 * loaded once: its index in the cache. */
static int
root_index(verify_vctx *v, const char *path, size_t *out, ps_error *err)
{
	struct verify_keyless *kl = v->keyless;
	size_t i;

	for (i = 0; i < kl->root_count; i++) {
		if ((path == NULL && kl->paths[i] == NULL) || (path != NULL &&
		    kl->paths[i] != NULL && strcmp(path, kl->paths[i]) == 0)) {
			*out = i;
			return 0;
		}
	}
	if (i >= KL_ROOTS_MAX)
		return util_fail(err, "internal_error", path, "too many roots");
	if (path != NULL) {
		if (ps_sigstore_root_load(path, &kl->loaded[i], err) != 0)
			return -1;
		kl->roots[i] = kl->loaded[i];
	} else if (v->o->sigstore_root != NULL) {
		kl->roots[i] = v->o->sigstore_root;
	} else {
		if (v->own_root == NULL &&
		    ps_sigstore_root_public_good(&v->own_root, err) != 0)
			return -1;
		kl->roots[i] = v->own_root;
	}
	kl->paths[i] = path;
	kl->root_count++;
	*out = i;
	return 0;
}

/* Bundle `k` under root `root`: verified once, remembered. */
static const kl_try *
try_root(verify_vctx *v, size_t k, size_t root, ps_error *err)
{
	kl_bundle *kb = &v->keyless->bundles[k];
	const verify_bundle *b = &v->bundles[k];
	kl_try **grown, *t;
	size_t i;
	int rc;

	for (i = 0; i < kb->try_count; i++)
		if (kb->tries[i]->root == root)
			return kb->tries[i];
	grown = realloc(kb->tries, (kb->try_count + 1) * sizeof(*grown));
	if (grown == NULL || (t = calloc(1, sizeof(*t))) == NULL) {
		if (grown != NULL)
			kb->tries = grown;
		util_fail_oom(err, NULL);
		return NULL;
	}
	kb->tries = grown;
	kb->tries[kb->try_count++] = t;
	t->root = root;
	rc = sigstore_verify_keyless_bundle(v->keyless->roots[root],
	    v->o->bundle_paths[k], b->bytes, b->len, v->o->at, &t->r,
	    &t->refusal);
	if (rc != 0 && t->refusal.status == PS_STATUS_FAILED) {
		*err = t->refusal;
		return NULL;
	}
	t->rc = rc != 0;
	return t;
}

/* What the search over the policy's entries found for one bundle. */
typedef struct kl_search {
	const ps_trust_signer *signer, *other;
	const ps_trust_keyless *entry;
	const kl_try *used;
	const ps_trust_signer *reusable_signer;  /* matched, but reusable */
	const ps_trust_keyless *reusable_entry;
	const kl_try *first_refused, *first_verified;
} kl_search;

/* Entry `e` of `signer` against bundle `k` under each of its roots. */
static int
search_entry(verify_vctx *v, size_t k, const ps_trust_signer *signer,
    const ps_trust_keyless *e, kl_search *s, ps_error *err)
{
	const ps_trust *p = v->o->trust;
	char *const *paths = e->trusted_root_count > 0 ? e->trusted_roots :
	    p->trusted_roots;
	size_t n = e->trusted_root_count > 0 ? e->trusted_root_count :
	    p->trusted_root_count, i, root;
	const kl_try *t;

	for (i = 0; i < (n > 0 ? n : 1); i++) {
		if (root_index(v, n > 0 ? paths[i] : NULL, &root, err) != 0 ||
		    (t = try_root(v, k, root, err)) == NULL)
			return -1;
		if (t->rc != 0) {
			if (s->first_refused == NULL)
				s->first_refused = t;
			continue;
		}
		if (s->first_verified == NULL)
			s->first_verified = t;
		if (!ps_trust_keyless_match(e, &t->r->certificate))
			continue;
		if (ps_keyless_reusable_workflow(&t->r->certificate) &&
		    e->repository == NULL && e->repository_id == NULL) {
			s->reusable_signer = signer;
			s->reusable_entry = e;
			continue;
		}
		if (s->signer != NULL && s->signer != signer)
			s->other = signer;
		else if (s->signer == NULL) {
			s->signer = signer;
			s->entry = e;
			s->used = t;
		}
		return 0;
	}
	return 0;
}

static int
search_policy(verify_vctx *v, size_t k, kl_search *s, ps_error *err)
{
	const ps_trust *p = v->o->trust;
	size_t i, j;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < p->signer_count; i++)
		for (j = 0; j < p->signers[i].keyless_count; j++)
			if (search_entry(v, k, &p->signers[i],
			    &p->signers[i].keyless[j], s, err) != 0)
				return -1;
	return 0;
}

static int
set_reason(ps_verify_signature *s, const char *code, const char *text,
    ps_error *err)
{
	snprintf(s->code, sizeof(s->code), "%s", code);
	free(s->reason);
	s->counted = 0;
	if ((s->reason = strdup(text)) == NULL)
		return util_fail_oom(err, NULL);
	return 0;
}

/* A refusal in words, as verify/signatures.c writes them. */
static int
reason_from(ps_verify_signature *s, const ps_error *e, ps_error *err)
{
	char text[PS_ERROR_TEXT_MAX + 2 * PS_ERROR_VALUE_MAX + 32];

	if (e->found[0] != '\0' && strstr(e->message, e->found) == NULL)
		snprintf(text, sizeof(text), "%s: expected %s, found %s",
		    e->message, e->expected, e->found);
	else
		snprintf(text, sizeof(text), "%s", e->message);
	return set_reason(s, e->code, text, err);
}

/* The entry the certificate comes closest to (the first of its issuer,
 * else the first), and the constraint it fails. */
static int
refuse_untrusted(verify_vctx *v, ps_verify_signature *sig,
    const ps_sigstore_certificate *c, ps_error *err)
{
	const ps_trust *p = v->o->trust;
	const ps_trust_signer *who = NULL;
	const ps_trust_keyless *e = NULL;
	keys_keyless_miss m = { "issuer", "", "none" };
	char text[2048];
	size_t i, j;

	for (i = 0; i < p->signer_count; i++)
		for (j = 0; j < p->signers[i].keyless_count; j++)
			if (e == NULL || (strcmp(e->issuer, c->issuer != NULL ?
			    c->issuer : "") != 0 && c->issuer != NULL &&
			    strcmp(p->signers[i].keyless[j].issuer,
			    c->issuer) == 0)) {
				who = &p->signers[i];
				e = &p->signers[i].keyless[j];
			}
	if (e != NULL)
		keys_keyless_explain(e, c, &m);
	snprintf(text, sizeof(text), "checked the certificate (issuer %.200s, "
	    "subject %.300s) against the policy's keyless entries: none "
	    "matches (the entry of '%.128s' at line %u wants %s %.300s, the "
	    "certificate has %.300s)", c->issuer != NULL ? c->issuer : "none",
	    c->san, who != NULL ? who->identity : "?", e != NULL ? e->line : 0,
	    m.field, m.want, m.found);
	return set_reason(sig, "keyless_untrusted", text, err);
}

/* Why bundle k's signature counts for no identity. */
static int
refuse_search(verify_vctx *v, ps_verify_signature *sig, const kl_search *s,
    ps_error *err)
{
	const ps_sigstore_certificate *c;
	char text[PS_ERROR_TEXT_MAX];

	if (s->signer != NULL && s->other != NULL) {
		snprintf(text, sizeof(text), "the certificate matches keyless "
		    "entries of two identities, '%s' and '%s': a signature "
		    "belongs to one identity", s->signer->identity,
		    s->other->identity);
		return set_reason(sig, "keyless_ambiguous", text, err);
	}
	if (s->reusable_signer != NULL) {
		c = &s->first_verified->r->certificate;
		snprintf(text, sizeof(text), "the certificate shows a reusable "
		    "workflow (Build Signer URI %.300s, of another repository "
		    "than the Source Repository URI %.200s) and the keyless "
		    "entry of '%s' at line %u constrains neither repository nor "
		    "repository_id: it would trust every repository that calls "
		    "the workflow", c->build_signer_uri, c->source_repository_uri,
		    s->reusable_signer->identity, s->reusable_entry->line);
		return set_reason(sig, "keyless_reusable_workflow", text, err);
	}
	if (s->first_verified == NULL)
		return s->first_refused != NULL ? reason_from(sig,
		    &s->first_refused->refusal, err) : set_reason(sig,
		    "bundle_keyless", "a certificate-based (keyless) bundle, and "
		    "the policy lists no keyless signer (trust-policy.md, "
		    "\"Keyless signers\")", err);
	c = &s->first_verified->r->certificate;
	return refuse_untrusted(v, sig, c, err);
}

/* The entry's window on every verified signing time. */
static int
check_window(const kl_search *s, ps_verify_signature *sig, ps_error *err)
{
	const ps_sigstore_result *r = s->used->r;
	char bound[PS_TIME_TEXT_LEN], when[PS_TIME_TEXT_LEN];
	char text[PS_ERROR_TEXT_MAX];
	size_t i;

	for (i = 0; i < r->signing_time_count; i++) {
		if (r->signing_times[i] >= s->entry->not_before &&
		    r->signing_times[i] <= s->entry->not_after)
			continue;
		ps_time_format(r->signing_times[i], when);
		ps_time_format(r->signing_times[i] < s->entry->not_before ?
		    s->entry->not_before : s->entry->not_after, bound);
		snprintf(text, sizeof(text), "the keyless entry of '%s' at line "
		    "%u is %s at the certificate's verified signing time %s "
		    "(its %s is %s)", s->signer->identity, s->entry->line,
		    r->signing_times[i] < s->entry->not_before ? "not valid yet" :
		    "expired", when, r->signing_times[i] < s->entry->not_before ?
		    "not_before" : "not_after", bound);
		return set_reason(sig, r->signing_times[i] <
		    s->entry->not_before ? "key_not_yet_valid" : "key_expired",
		    text, err) == 0 ? 1 : -1;
	}
	return 0;
}

static int
dup(char **out, const char *s)
{
	*out = NULL;
	return s != NULL && (*out = strdup(s)) == NULL ? -1 : 0;
}

/* The certificate's fields into the signature's result. */
static int
keep_certificate(const kl_search *s, const char *root_path,
    ps_verify_signature *sig, ps_error *err)
{
	const ps_sigstore_certificate *c = &s->used->r->certificate;
	const ps_sigstore_result *r = s->used->r;
	ps_verify_keyless *k;
	size_t i;

	/* owned by the signature from here: ps_verify_result_free frees it */
	if ((sig->keyless = calloc(1, sizeof(*sig->keyless))) == NULL)
		return util_fail_oom(err, NULL);
	k = sig->keyless;
	ps_keyless_signer_id(c, k->signer_id);
	if (dup(&k->issuer, c->issuer) || dup(&k->subject, c->san) ||
	    dup(&k->repository, c->source_repository_uri) ||
	    dup(&k->repository_id, c->source_repository_identifier) ||
	    dup(&k->owner_id, c->source_repository_owner_identifier) ||
	    dup(&k->ref, c->source_repository_ref) ||
	    dup(&k->commit, c->source_repository_digest) ||
	    dup(&k->signer_workflow, c->build_signer_uri) ||
	    dup(&k->config_workflow, c->build_config_uri) ||
	    dup(&k->trigger, c->build_trigger) ||
	    dup(&k->runner, c->runner_environment) ||
	    dup(&k->run_uri, c->run_invocation_uri) ||
	    dup(&k->authority, c->authority) ||
	    dup(&k->trusted_root, root_path))
		return util_fail_oom(err, NULL);
	k->reusable_workflow = ps_keyless_reusable_workflow(c);
	k->entry_line = s->entry->line;
	k->signing_time = r->signing_time_count > 0 ? r->signing_times[0] : 0;
	for (i = 1; i < r->signing_time_count; i++)
		if (r->signing_times[i] < k->signing_time)
			k->signing_time = r->signing_times[i];
	return 0;
}

/* The bundle's evidence and identity into its signature's result. */
static int
keep_signature(verify_vctx *v, const kl_search *s, ps_verify_signature *sig,
    ps_error *err)
{
	const ps_sigstore_result *r = s->used->r;
	size_t i;

	sig->code[0] = '\0';
	free(sig->reason);
	sig->reason = NULL;
	free(sig->identity);
	if ((sig->identity = strdup(s->signer->identity)) == NULL ||
	    keep_certificate(s, v->keyless->paths[s->used->root], sig, err))
		return util_fail_oom(err, NULL);
	memcpy(sig->fingerprint, sig->keyless->signer_id,
	    sizeof(sig->fingerprint));
	sig->log_entry_count = r->log_entry_count;
	for (i = 0; i < r->timestamp_count; i++)
		sig->timestamp_count += r->timestamps[i].verified != 0;
	if (r->signing_time_count == 0)
		return 0;
	sig->signing_times = calloc(r->signing_time_count,
	    sizeof(*sig->signing_times));
	if (sig->signing_times == NULL)
		return util_fail_oom(err, NULL);
	memcpy(sig->signing_times, r->signing_times, r->signing_time_count *
	    sizeof(*sig->signing_times));
	sig->signing_time_count = r->signing_time_count;
	return 0;
}

/* The payload sigstore/ verified becomes the verified one (the same bytes
 * as the envelope's, which every bundle shares). */
static int
keep_payload(verify_vctx *v, const ps_sigstore_result *r, size_t j,
    ps_error *err)
{
	if (!sign_dsse_payload_equal(v->env, r->payload_type, r->payload,
	    r->payload_len))
		return util_refuse(err, "bundle_malformed",
		    v->o->bundle_paths[0], "the payload the certificate's key "
		    "signed is not the envelope's");
	if (v->verified.payload != NULL)
		return 0;
	memset(&v->verified, 0, sizeof(v->verified));
	v->verified.signature_count = sign_dsse_signature_count(v->env);
	v->verified.verified_count = 1;
	if (j < SIGN_DSSE_MAX_SIGNATURES)
		v->verified.verified[j] = 1;
	v->verified.payload = r->payload;
	v->verified.payload_len = r->payload_len;
	v->verified.payload_type = r->payload_type;
	return 0;
}

static int
judge_bundle(verify_vctx *v, size_t k, ps_error *err)
{
	const verify_bundle *b = &v->bundles[k];
	ps_verify_signature *sig = &v->res->signatures[b->first];
	kl_bundle *kb = &v->keyless->bundles[k];
	kl_search s;
	int rc;

	/* Its certificate's key, not a policy key, is what may verify it. */
	v->entry_key[b->first] = NULL;
	sig->fingerprint[0] = '\0';
	free(sig->identity);
	sig->identity = NULL;
	if (search_policy(v, k, &s, err) != 0)
		return -1;
	if (s.signer == NULL || s.other != NULL)
		return refuse_search(v, sig, &s, err);
	if ((rc = check_window(&s, sig, err)) != 0)
		return rc < 0 ? -1 : 0;
	if (keep_signature(v, &s, sig, err) != 0 ||
	    keep_payload(v, s.used->r, b->first, err) != 0)
		return -1;
	kb->signer = s.signer;
	kb->entry = s.entry;
	kb->used = s.used;
	return 0;
}

int
verify_keyless_bundles(verify_vctx *v, ps_error *err)
{
	size_t k;

	for (k = 0; k < v->bundle_count; k++) {
		if (!v->bundles[k].keyless)
			continue;
		if (v->keyless == NULL && ((v->keyless = calloc(1,
		    sizeof(*v->keyless))) == NULL ||
		    (v->keyless->bundles = calloc(v->bundle_count,
		    sizeof(kl_bundle))) == NULL))
			return util_fail_oom(err, NULL);
		if (v->bundles[k].count != 1)
			return util_refuse(err, "bundle_malformed",
			    v->o->bundle_paths[k], "a keyless bundle carries "
			    "one signature, found %zu", v->bundles[k].count);
		if (judge_bundle(v, k, err) != 0)
			return -1;
	}
	for (k = 0; v->keyless != NULL && k < v->res->signature_count; k++)
		if (v->res->signatures[k].code[0] == '\0')
			return 0;
	if (v->keyless == NULL)
		return 0;
	v->verified.payload = NULL;      /* nothing counts: no statement */
	return 0;
}

static const kl_bundle *
bundle_of(const verify_vctx *v, size_t i)
{
	size_t k;

	for (k = 0; v->keyless != NULL && k < v->bundle_count; k++)
		if (v->bundles[k].keyless && v->bundles[k].first == i &&
		    v->keyless->bundles[k].signer != NULL)
			return &v->keyless->bundles[k];
	return NULL;
}

const ps_sigstore_certificate *
verify_keyless_certificate(const verify_vctx *v, size_t i)
{
	const kl_bundle *kb = bundle_of(v, i);

	return kb != NULL ? &kb->used->r->certificate : NULL;
}

int
verify_keyless_scope(verify_vctx *v, size_t i, ps_error *err)
{
	const kl_bundle *kb = bundle_of(v, i);
	ps_verify_signature *sig = &v->res->signatures[i];
	char expected[PS_ERROR_VALUE_MAX] = "", text[PS_ERROR_TEXT_MAX];
	size_t j, used = 0;

	if (kb == NULL || sig->code[0] != '\0')
		return 0;
	for (j = 0; j < kb->signer->pack_count; j++) {
		if (ps_glob_match(kb->signer->packs[j], v->st->pack_id)) {
			sig->counted = 1;
			return 0;
		}
		if (used < sizeof(expected))
			used += (size_t)snprintf(expected + used,
			    sizeof(expected) - used, "%s%s", j > 0 ? " or " : "",
			    kb->signer->packs[j]);
	}
	snprintf(text, sizeof(text), "identity '%.128s' may not sign this "
	    "pack: expected %.400s, found %.200s", kb->signer->identity,
	    expected, v->st->pack_id);
	return set_reason(sig, PS_CODE_PACK_OUT_OF_SCOPE, text, err);
}

void
verify_keyless_free(verify_vctx *v)
{
	struct verify_keyless *kl = v->keyless;
	size_t k, i;

	if (kl == NULL)
		return;
	for (k = 0; kl->bundles != NULL && k < v->bundle_count; k++) {
		for (i = 0; i < kl->bundles[k].try_count; i++) {
			ps_sigstore_result_free(kl->bundles[k].tries[i]->r);
			free(kl->bundles[k].tries[i]);
		}
		free(kl->bundles[k].tries);
	}
	for (i = 0; i < kl->root_count; i++)
		ps_sigstore_root_free(kl->loaded[i]);
	free(kl->bundles);
	free(kl);
	v->keyless = NULL;
}

void
verify_keyless_result_free(ps_verify_keyless *k)
{
	if (k == NULL)
		return;
	free(k->issuer);
	free(k->subject);
	free(k->repository);
	free(k->repository_id);
	free(k->owner_id);
	free(k->ref);
	free(k->commit);
	free(k->signer_workflow);
	free(k->config_workflow);
	free(k->trigger);
	free(k->runner);
	free(k->run_uri);
	free(k->authority);
	free(k->trusted_root);
	free(k);
}
