/*
 * Step 1 and step 6 of verification: which signatures count.  The keys of
 * the policy (listed or revoked) are matched with the entries by
 * sign_dsse_match_keys(): an entry is checked with the key its keyid
 * names, then searched for among the keys that verified nothing, at most
 * 8 + (the number of keys) checks in all (signature.md, section 2).  A
 * signature counts when its key is trusted, unrevoked, in its window at
 * `at`, its identity has the pack role, the pack is in its identity's
 * scope and, when the manifest has signed_by, the identity or key
 * fingerprint is listed there.  The threshold counts distinct identities.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"
#include "util/fdio.h"
#include "util/strings.h"
#include "verify/bundles.h"
#include "sigstore/sigstore.h"
#include "verify/certsigners.h"
#include "verify/signatures.h"

/* How far a rejected signature got: the refusal names the furthest. */
static int
stage_of(const char *code)
{
	if (strcmp(code, PS_CODE_SIGNED_BY_MISMATCH) == 0)
		return 4;
	if (strcmp(code, PS_CODE_PACK_OUT_OF_SCOPE) == 0)
		return 3;
	if (strcmp(code, PS_CODE_ROLE_MISSING) == 0)
		return 2;
	if (strncmp(code, "key_", 4) == 0)
		return 1;
	return 0;
}

static int
set_reason(ps_verify_signature *s, const char *code, const char *reason,
    ps_error *err)
{
	snprintf(s->code, sizeof(s->code), "%s", code);
	free(s->reason);
	s->reason = strdup(reason);
	s->counted = 0;
	if (s->reason == NULL)
		return util_fail_oom(err, NULL);
	return 0;
}

/* A lookup refusal in words: "MESSAGE: expected E, found F". */
static int
reason_from(ps_verify_signature *s, const ps_error *e, ps_error *err)
{
	char text[PS_ERROR_TEXT_MAX + 2 * PS_ERROR_VALUE_MAX + 32];

	/* Values the message already names are not repeated. */
	if (e->found[0] != '\0' && strstr(e->message, e->found) == NULL)
		snprintf(text, sizeof(text), "%s: expected %s, found %s",
		    e->message, e->expected, e->found);
	else
		snprintf(text, sizeof(text), "%s", e->message);
	return set_reason(s, e->code, text, err);
}

static const ps_trust_signer *
owner_of(const ps_trust *policy, const ps_pubkey *key)
{
	size_t i, j;

	for (i = 0; i < policy->signer_count; i++) {
		for (j = 0; j < policy->signers[i].key_count; j++) {
			if (ps_pubkey_equal(policy->signers[i].keys[j].key, key))
				return &policy->signers[i];
		}
	}
	return NULL;
}

static int
open_envelope(verify_vctx *v, ps_error *err)
{
	const char *sig = v->res->sig_path;
	int fd, rc;

	if (v->o->bundle_count > 0)
		return verify_bundles_read(v, err);
	if (v->stream != NULL && v->stream->has_sig_fd) {
		if (lseek(v->stream->sig_fd, 0, SEEK_SET) != 0)
			return util_fail_errno(err, "io_error", sig, "seek", errno);
		return sign_dsse_read_fd(v->stream->sig_fd, sig, &v->env, err);
	}
	fd = util_open_file(sig, err);
	if (fd < 0 && ps_error_is(err, PS_CODE_NOT_FOUND) && v->o->sig_path == NULL) {
		util_refuse(err, "signature_missing", v->path, "looked for the "
		    "signature beside the archive");
		return util_error_expect(err, sig, "no such file");
	}
	if (fd < 0)
		return -1;
	rc = sign_dsse_read_fd(fd, sig, &v->env, err);
	close(fd);
	return rc;
}

static void
add_key(const ps_pubkey **keys, size_t *count, const ps_pubkey *key)
{
	size_t i;

	for (i = 0; i < *count; i++) {
		if (ps_pubkey_equal(keys[i], key))
			return;
	}
	keys[(*count)++] = key;
}

/* Every distinct key of the policy, listed or only revoked, once. */
static const ps_pubkey **
policy_keys(const ps_trust *policy, size_t *count)
{
	size_t i, j, n = policy->revoked_count;
	const ps_pubkey **keys;

	for (i = 0; i < policy->signer_count; i++)
		n += policy->signers[i].key_count;
	keys = calloc(n + 1, sizeof(*keys));
	if (keys == NULL)
		return NULL;
	*count = 0;
	for (i = 0; i < policy->signer_count; i++)
		for (j = 0; j < policy->signers[i].key_count; j++)
			add_key(keys, count, policy->signers[i].keys[j].key);
	for (i = 0; i < policy->revoked_count; i++)
		add_key(keys, count, policy->revoked[i].key);
	return keys;
}

/* 1 when entry `i` came from a --bundle file that carries log entries
 * or timestamps: its key's window (and a revocation's `since`) is then
 * judged at the signing times they prove (judge_times). */
static int
has_evidence(const verify_vctx *v, size_t i)
{
	const verify_bundle *b;
	ps_error quiet;
	size_t k, count;

	for (k = 0; k < v->bundle_count; k++) {
		b = &v->bundles[k];
		if (i >= b->first && i < b->first + b->count)
			return sigstore_evidence_count(b->bytes, b->len, "bundle",
			    &count, &quiet) == 0 && count > 0;
	}
	return 0;
}

/* The refusals a verified signing time may undo. */
static int
time_refusal(const ps_error *e)
{
	return ps_error_is(e, PS_CODE_KEY_EXPIRED) ||
	    ps_error_is(e, PS_CODE_KEY_NOT_YET_VALID) ||
	    ps_error_is(e, PS_CODE_KEY_REVOKED);
}

/* ps_trust_lookup() of entry `i` at each of its verified signing times
 * (signature.md 9.2), else at --at (the clock). */
static int
lookup_at_times(const verify_vctx *v, size_t i, const char *pack_id,
    const ps_trust_signer **signer, ps_error *e)
{
	const ps_verify_signature *s = &v->res->signatures[i];
	size_t t;

	if (s->signing_time_count == 0)
		return ps_trust_lookup(v->o->trust, v->entry_key[i], pack_id,
		    v->o->at, signer, e);
	for (t = 0; t < s->signing_time_count; t++) {
		if (ps_trust_lookup(v->o->trust, v->entry_key[i], pack_id,
		    s->signing_times[t], signer, e) != 0)
			return -1;
	}
	return 0;
}

/* Revoked, unknown or out-of-window keys, and keys of an identity without
 * the pack role, are judged before any parsing; scope needs the pack id
 * and waits for the statement.  A bundle's entry refused only for the
 * time (expired, not yet valid, revoked) waits for its evidence. */
static int
judge_key(verify_vctx *v, size_t i, ps_verify_signature *s,
    const ps_pubkey *key, ps_error *err)
{
	const ps_trust_signer *signer, *owner = owner_of(v->o->trust, key);
	ps_error e;

	ps_error_clear(&e);
	if (owner != NULL && (s->identity = strdup(owner->identity)) == NULL)
		return util_fail_oom(err, NULL);
	if (ps_trust_lookup(v->o->trust, key, "", v->o->at, &signer, &e) == 0 ||
	    ps_error_is(&e, PS_CODE_PACK_OUT_OF_SCOPE) ||
	    (time_refusal(&e) && has_evidence(v, i)))
		return 0;
	if (e.status == PS_STATUS_FAILED) {
		*err = e;
		return -1;
	}
	return reason_from(s, &e, err);
}

/* An entry a key verified: who it is, and whether it may count. */
static int
attribute(verify_vctx *v, size_t i, const ps_pubkey *key,
    const sign_dsse_match *m, ps_error *err)
{
	ps_verify_signature *s = &v->res->signatures[i];

	v->entry_key[i] = key;
	ps_pubkey_fingerprint(key, s->fingerprint);
	if (judge_key(v, i, s, key, err) != 0)
		return -1;
	if (s->code[0] == '\0' && v->verified.payload == NULL)
		v->verified = m->verification;
	return 0;
}

/* An entry sign_dsse_match_keys() did not check (fully). */
static int
unchecked(verify_vctx *v, size_t i, const ps_pubkey **keys,
    const sign_dsse_match *m, ps_error *err)
{
	ps_verify_signature *s = &v->res->signatures[i];
	char fp[PS_FINGERPRINT_MAX], text[PS_ERROR_TEXT_MAX];
	const ps_trust_signer *owner;
	const ps_pubkey *key;

	if (m->outcome[i] == SIGN_DSSE_DUPLICATE) {
		key = keys[m->key[m->key[i]]];
		owner = owner_of(v->o->trust, key);
		ps_pubkey_fingerprint(key, fp);
		snprintf(text, sizeof(text), "names the key %s (%s), which "
		    "verified signature %zu: a key is checked once and counts "
		    "once", fp, owner != NULL ? owner->identity : "revoked",
		    m->key[i] + 1);
	} else
		snprintf(text, sizeof(text), "not checked with every key of the "
		    "policy: an envelope gets at most %zu signature checks (8 + "
		    "its %zu keys), spent before this one (keyid '%.200s', the "
		    "fingerprint of no key of the policy)", m->bound,
		    m->bound - SIGN_DSSE_EXTRA_CHECKS, s->keyid);
	return set_reason(s, "signature_unchecked", text, err);
}

/* An entry no policy key verifies: bad bytes under a key it names, or an
 * unknown key. */
static int
unverified(verify_vctx *v, ps_verify_signature *s, const ps_pubkey **keys,
    size_t n, ps_error *err)
{
	char fp[PS_FINGERPRINT_MAX], text[PS_ERROR_TEXT_MAX];
	const ps_trust_signer *owner;
	size_t i;

	for (i = 0; i < n; i++) {
		if (ps_pubkey_fingerprint(keys[i], fp) != 0 ||
		    strcmp(fp, s->keyid) != 0)
			continue;
		owner = owner_of(v->o->trust, keys[i]);
		snprintf(text, sizeof(text), "names the key %s (%s) of the "
		    "policy, but does not verify under it", fp, owner != NULL ?
		    owner->identity : "revoked");
		return set_reason(s, "signature_invalid", text, err);
	}
	snprintf(text, sizeof(text), "no key of the policy verifies it "
	    "(keyid '%.200s')", s->keyid);
	return set_reason(s, "signature_untrusted", text, err);
}

static int
new_entries(verify_vctx *v, ps_error *err)
{
	size_t i, n = sign_dsse_signature_count(v->env);

	v->res->signatures = calloc(n, sizeof(ps_verify_signature));
	v->entry_key = calloc(n, sizeof(*v->entry_key));
	if (v->res->signatures == NULL || v->entry_key == NULL)
		return util_fail_oom(err, NULL);
	v->res->signature_count = n;
	for (i = 0; i < n; i++) {
		v->res->signatures[i].index = i;
		v->res->signatures[i].keyid = strdup(sign_dsse_keyid(v->env, i));
		if (v->res->signatures[i].keyid == NULL)
			return util_fail_oom(err, NULL);
	}
	return 0;
}

static int
count_identities(verify_vctx *v, ps_error *err);
static int
refuse_threshold(verify_vctx *v, ps_error *err);

static int
judge_entry(verify_vctx *v, size_t i, const ps_pubkey **keys, size_t n,
    const sign_dsse_match *m, ps_error *err)
{
	switch (m->outcome[i]) {
	case SIGN_DSSE_VERIFIED:
		return attribute(v, i, keys[m->key[i]], m, err);
	case SIGN_DSSE_DUPLICATE:
	case SIGN_DSSE_UNCHECKED:
		return unchecked(v, i, keys, m, err);
	default:
		return unverified(v, &v->res->signatures[i], keys, n, err);
	}
}

static int
attribute_all(verify_vctx *v, ps_error *err)
{
	size_t i, n = 0;
	const ps_pubkey **keys = policy_keys(v->o->trust, &n);
	sign_dsse_match m;
	int rc;

	if (keys == NULL)
		return util_fail_oom(err, NULL);
	rc = sign_dsse_match_keys(v->env, keys, n, n, &m, err);
	for (i = 0; i < v->res->signature_count && rc == 0; i++)
		rc = judge_entry(v, i, keys, n, &m, err);
	free(keys);
	return rc;
}

/* 1 when an entry a policy key verified still counts. */
static int
any_left(const verify_vctx *v)
{
	size_t i;

	for (i = 0; i < v->res->signature_count; i++) {
		if (v->entry_key[i] != NULL && v->res->signatures[i].code[0] == '\0')
			return 1;
	}
	return 0;
}

/* The log entries and timestamps of each bundle (signature.md 9.2): a
 * bundle whose evidence is refused counts for nothing. */
static int
check_evidence(verify_vctx *v, ps_error *err)
{
	const verify_bundle *b;
	ps_error refusal;
	size_t k, j;
	int rc;

	for (k = 0; k < v->bundle_count; k++) {
		rc = verify_bundle_evidence(v, k, &refusal, err);
		if (rc < 0)
			return -1;
		b = &v->bundles[k];
		for (j = b->first; rc == 1 && j < b->first + b->count; j++) {
			if (v->res->signatures[j].code[0] == '\0' &&
			    reason_from(&v->res->signatures[j], &refusal, err) != 0)
				return -1;
		}
	}
	if (!any_left(v))
		v->verified.payload = NULL;
	return 0;
}

/* Every counting entry judged again at its verified signing times (or
 * at --at): inside the key's window at each, revoked at none. */
static int
judge_times(verify_vctx *v, ps_error *err)
{
	const ps_trust_signer *signer;
	ps_verify_signature *s;
	ps_error e;
	size_t i;

	for (i = 0; i < v->res->signature_count; i++) {
		s = &v->res->signatures[i];
		if (v->entry_key[i] == NULL || s->code[0] != '\0')
			continue;
		ps_error_clear(&e);
		if (lookup_at_times(v, i, "", &signer, &e) == 0 ||
		    ps_error_is(&e, PS_CODE_PACK_OUT_OF_SCOPE))
			continue;
		if (e.status == PS_STATUS_FAILED) {
			*err = e;
			return -1;
		}
		if (reason_from(s, &e, err) != 0)
			return -1;
	}
	if (!any_left(v))
		v->verified.payload = NULL;
	return 0;
}

int
verify_signatures(verify_vctx *v, ps_error *err)
{
	if (open_envelope(v, err) != 0 || new_entries(v, err) != 0 ||
	    attribute_all(v, err) != 0 || check_evidence(v, err) != 0 ||
	    judge_times(v, err) != 0 || verify_keyless_bundles(v, err) != 0)
		return -1;
	if (v->verified.payload == NULL)
		return refuse_threshold(v, err);
	return 0;
}

int
verify_scope(verify_vctx *v, ps_error *err)
{
	const ps_trust_signer *signer;
	ps_verify_signature *s;
	ps_error e;
	size_t i;

	for (i = 0; i < v->res->signature_count; i++) {
		s = &v->res->signatures[i];
		if (v->entry_key[i] == NULL && verify_keyless_scope(v, i,
		    err) != 0)
			return -1;
		if (v->entry_key[i] == NULL || s->code[0] != '\0')
			continue;
		ps_error_clear(&e);
		if (lookup_at_times(v, i, v->st->pack_id, &signer, &e) == 0)
			s->counted = 1;
		else if (e.status == PS_STATUS_FAILED) {
			*err = e;
			return -1;
		} else if (reason_from(s, &e, err) != 0)
			return -1;
	}
	if (count_identities(v, err) != 0)
		return -1;
	if (v->res->identity_count < v->o->trust->threshold)
		return refuse_threshold(v, err);
	return 0;
}

static int
add_identity(ps_verify_result *res, const ps_verify_signature *s,
    ps_error *err)
{
	ps_verify_identity *id;
	size_t i;

	for (i = 0; i < res->identity_count; i++) {
		/* the first identity_count entries are filled;
		 * count_identities() starts from zero. */
		/* NOLINTNEXTLINE(clang-analyzer-core.NonNullParamChecker) */
		if (strcmp(res->identities[i].identity, s->identity) == 0)
			return 0;
	}
	id = &res->identities[res->identity_count];
	id->identity = strdup(s->identity);
	if (id->identity == NULL)
		return util_fail_oom(err, NULL);
	memcpy(id->fingerprint, s->fingerprint, sizeof(id->fingerprint));
	res->identity_count++;
	return 0;
}

static void
clear_identities(ps_verify_result *res)
{
	size_t i;

	for (i = 0; i < res->identity_count; i++)
		free(res->identities[i].identity);
	free(res->identities);
	res->identities = NULL;
	res->identity_count = 0;
}

/* Rebuilds the list of the distinct identities that count. */
static int
count_identities(verify_vctx *v, ps_error *err)
{
	ps_verify_result *res = v->res;
	size_t i;

	clear_identities(res);
	res->identities = calloc(res->signature_count + 1,
	    sizeof(ps_verify_identity));
	if (res->identities == NULL)
		return util_fail_oom(err, NULL);
	for (i = 0; i < res->signature_count; i++) {
		if (res->signatures[i].counted &&
		    add_identity(res, &res->signatures[i], err) != 0)
			return -1;
	}
	return 0;
}

/* "1: alice" */
static void
found_identities(const ps_verify_result *res, char *out, size_t size)
{
	const char *names[SIGN_DSSE_MAX_SIGNATURES];
	char list[PS_ERROR_VALUE_MAX - 32];
	size_t i;

	for (i = 0; i < res->identity_count && i < SIGN_DSSE_MAX_SIGNATURES; i++)
		names[i] = res->identities[i].identity;
	util_join(list, sizeof(list), names, i);
	snprintf(out, size, "%zu%s%s", res->identity_count,
	    res->identity_count > 0 ? ": " : "", list);
}

static const ps_verify_signature *
furthest_rejected(const ps_verify_result *res)
{
	const ps_verify_signature *best = NULL;
	size_t i;

	for (i = 0; i < res->signature_count; i++) {
		if (res->signatures[i].code[0] == '\0')
			continue;
		if (best == NULL || stage_of(res->signatures[i].code) >
		    stage_of(best->code))
			best = &res->signatures[i];
	}
	return best;
}

/* Each rejected signature with its reason and code; a code that is the
 * refusal's own (`line_code`, printed once at the end of the line) is not
 * repeated. */
static void
describe_rejections(const ps_verify_result *res, const char *line_code,
    char *out, size_t size)
{
	const ps_verify_signature *s;
	size_t i, used;
	int own;

	for (i = 0; i < res->signature_count; i++) {
		s = &res->signatures[i];
		if (s->code[0] == '\0')
			continue;
		used = strlen(out);
		if (used + 1 >= size)
			return;
		own = strcmp(s->code, line_code) == 0;
		snprintf(out + used, size - used, "; signature %zu%s%s did not "
		    "count: %s%s%s%s", s->index + 1, s->identity != NULL ?
		    " by " : "", s->identity != NULL ? s->identity : "",
		    s->reason != NULL ? s->reason : "", own ? "" : " [",
		    own ? "" : s->code, own ? "" : "]");
	}
}

/* With threshold 1 and no identity left, the code is that of the
 * signature that got furthest; otherwise threshold_not_met. */
static int
refuse_threshold(verify_vctx *v, ps_error *err)
{
	const ps_verify_signature *best = furthest_rejected(v->res);
	unsigned threshold = v->o->trust->threshold;
	char expected[64], found[PS_ERROR_VALUE_MAX];
	char text[PS_ERROR_TEXT_MAX] = "counted the distinct trusted "
	    "identities whose signatures verify";
	const char *code = "threshold_not_met";

	if (threshold == 1 && v->res->identity_count == 0 && best != NULL)
		code = best->code;
	describe_rejections(v->res, code, text, sizeof(text));
	snprintf(expected, sizeof(expected), "threshold %u", threshold);
	found_identities(v->res, found, sizeof(found));
	util_refuse(err, code, v->res->sig_path, "%s", text);
	return util_error_expect(err, expected, found);
}

static int
listed(const ps_strings *list, const char *a, const char *b)
{
	size_t i;

	for (i = 0; i < list->count; i++) {
		if (strcmp(list->items[i], a) == 0 ||
		    strcmp(list->items[i], b) == 0)
			return 1;
	}
	return 0;
}

static int
drop_unlisted(verify_vctx *v, const char *wanted, ps_error *err)
{
	char text[PS_ERROR_TEXT_MAX];
	ps_verify_signature *s;
	size_t i;

	for (i = 0; i < v->res->signature_count; i++) {
		s = &v->res->signatures[i];
		if (!s->counted || listed(&v->manifest->signed_by, s->identity,
		    s->fingerprint))
			continue;
		snprintf(text, sizeof(text), "neither %s nor %s is in the "
		    "manifest's signed_by: expected one of %s", s->identity,
		    s->fingerprint, wanted);
		if (set_reason(s, "signed_by_mismatch", text, err) != 0)
			return -1;
	}
	return 0;
}

static int
require_signer(verify_vctx *v, ps_error *err)
{
	char found[PS_ERROR_VALUE_MAX];
	size_t i;

	for (i = 0; i < v->res->identity_count; i++) {
		if (strcmp(v->res->identities[i].identity, v->o->signed_by) == 0)
			return 0;
	}
	found_identities(v->res, found, sizeof(found));
	util_refuse(err, "signer_missing", v->res->sig_path, "--signed-by "
	    "demands a counted signature by this identity");
	return util_error_expect(err, v->o->signed_by, found);
}

int
verify_signed_by(verify_vctx *v, ps_error *err)
{
	const ps_strings *sb = &v->manifest->signed_by;
	char wanted[PS_ERROR_VALUE_MAX];

	if (sb->count > 0) {
		util_join(wanted, sizeof(wanted),
		    (const char *const *)sb->items, sb->count);
		if (drop_unlisted(v, wanted, err) != 0 ||
		    count_identities(v, err) != 0)
			return -1;
		if (v->res->identity_count < v->o->trust->threshold)
			return refuse_threshold(v, err);
	}
	if (v->o->signed_by != NULL)
		return require_signer(v, err);
	return 0;
}
