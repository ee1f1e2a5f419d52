/*
 * Verifying an index (docs/formats/index.md, "Verifying"): the envelope is
 * read by the bounded DSSE reader, a key of the policy whose identity has
 * the index role must verify it, and only then is the payload parsed and
 * judged: publisher, scope, expiry and the policy's floor.  The client
 * state (rollback, equivocation) is install/'s: it lives in the data
 * directory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "index/index.h"
#include "sign/dsse.h"
#include "util/error.h"
#include "util/sha256.h"

/* A key of the policy that verified the envelope, and whose it is. */
struct index_signer {
	const ps_pubkey *key;
	const ps_trust_signer *signer;
};

struct index_check {
	const ps_index_verify_options *o;
	const char *label;
	sign_dsse_envelope *env;
	sign_dsse_verification verified;
	struct index_signer accepted[SIGN_DSSE_MAX_SIGNATURES];
	size_t accepted_count;
	ps_error refusal;            /* why a verifying key did not count */
};

void
ps_index_verify_options_init(ps_index_verify_options *o)
{
	memset(o, 0, sizeof(*o));
	o->at = (int64_t)time(NULL);
}

/* A key that verified an entry: it counts when the index lookup accepts
 * it; otherwise the first refusal is kept to explain. */
static int
judge_key(struct index_check *c, const ps_pubkey *key, ps_error *err)
{
	const ps_trust_signer *signer;
	ps_error e;
	size_t i;

	for (i = 0; i < c->accepted_count; i++) {
		if (c->accepted[i].key == key)
			return 0;
	}
	ps_error_clear(&e);
	if (ps_trust_lookup_index(c->o->trust, key, c->o->at, &signer, &e) != 0) {
		if (e.status == PS_STATUS_FAILED) {
			*err = e;
			return -1;
		}
		if (c->refusal.code[0] == '\0')
			c->refusal = e;
		return 0;
	}
	if (c->accepted_count < SIGN_DSSE_MAX_SIGNATURES)
		c->accepted[c->accepted_count++] =
		    (struct index_signer){ key, signer };
	return 0;
}

/* A key of an identity with the index role, not only revoked. */
static int
index_key(const ps_trust_signer *signer)
{
	return (signer->roles & PS_ROLE_INDEX) != 0;
}

static void
add_key(const ps_pubkey **keys, size_t *n, const ps_pubkey *key)
{
	size_t i;

	for (i = 0; i < *n; i++) {
		if (ps_pubkey_equal(keys[i], key))
			return;
	}
	keys[(*n)++] = key;
}

/* The keys of index identities first (searched), then every other key
 * of the policy, pack signers' and revoked (by name only). */
static const ps_pubkey **
candidates(const ps_trust *t, size_t *n, size_t *searched)
{
	size_t i, j, total = t->revoked_count;
	const ps_pubkey **keys;
	int pass;

	for (i = 0; i < t->signer_count; i++)
		total += t->signers[i].key_count;
	if ((keys = calloc(total + 1, sizeof(*keys))) == NULL)
		return NULL;
	*n = 0;
	for (pass = 1; pass >= 0; pass--) {
		for (i = 0; i < t->signer_count; i++) {
			if (index_key(&t->signers[i]) != pass)
				continue;
			for (j = 0; j < t->signers[i].key_count; j++)
				add_key(keys, n, t->signers[i].keys[j].key);
		}
		if (pass == 1)
			*searched = *n;
	}
	for (i = 0; i < t->revoked_count; i++)
		add_key(keys, n, t->revoked[i].key);
	return keys;
}

/*
 * Each check hashes the whole payload, so the work is bounded before it
 * starts: at most INDEX_MAX_SIGNATURES entries and at most 8 + (the
 * policy's keys) checks (sign_dsse_match_keys()), the keys of index
 * identities searched, the others (pack signers, revoked keys) checked
 * only where an entry's key id names them, to say why they do not count
 * (role_missing, key_revoked).
 */
static int
find_signers(struct index_check *c, ps_error *err)
{
	const ps_trust *t = c->o->trust;
	size_t i, n = 0, searched = 0;
	const ps_pubkey **keys = candidates(t, &n, &searched);
	sign_dsse_match m;
	int rc;

	if (keys == NULL)
		return util_fail_oom(err, c->label);
	rc = sign_dsse_match_keys(c->env, keys, n, searched, &m, err);
	for (i = 0; rc == 0 && i < sign_dsse_signature_count(c->env); i++) {
		if (m.outcome[i] == SIGN_DSSE_VERIFIED)
			rc = judge_key(c, keys[m.key[i]], err);
	}
	free(keys);
	if (rc != 0)
		return -1;
	c->verified = m.verification;
	if (c->accepted_count > 0)
		return 0;
	if (c->refusal.code[0] != '\0') {
		*err = c->refusal;
		snprintf(err->subject, sizeof(err->subject), "%s", c->label);
		return -1;
	}
	util_refuse(err, "signature_untrusted", c->label, "no key of the "
	    "policy %s with the index role verifies the index", t->name !=
	    NULL ? t->name : "");
	return util_error_expect(err, "a signature by a key with the index "
	    "role", "none");
}

static int
too_many_signatures(const struct index_check *c, ps_error *err)
{
	char found[32];

	snprintf(found, sizeof(found), "%zu",
	    sign_dsse_signature_count(c->env));
	util_refuse(err, "index_invalid", c->label, "an index carries at most "
	    "%d signatures (each is checked over the whole index)",
	    INDEX_MAX_SIGNATURES);
	return util_error_expect(err, "at most 8", found);
}

static const struct index_signer *
publisher_signer(const struct index_check *c, const char *publisher)
{
	size_t i;

	for (i = 0; i < c->accepted_count; i++) {
		if (strcmp(c->accepted[i].signer->identity, publisher) == 0)
			return &c->accepted[i];
	}
	return NULL;
}

static int
in_scope(const ps_trust_signer *signer, const char *id)
{
	size_t i;

	for (i = 0; i < signer->pack_count; i++) {
		if (ps_glob_match(signer->packs[i], id))
			return 1;
	}
	return 0;
}

static int
check_scope(const struct index_check *c, const ps_index *ix,
    const ps_trust_signer *signer, ps_error *err)
{
	size_t i;

	for (i = 0; i < ix->entry_count; i++) {
		if (in_scope(signer, ix->entries[i].id))
			continue;
		util_refuse(err, "index_out_of_scope", c->label, "lists %s %s, "
		    "outside the packs '%s' may publish (trust policy %s:%u)",
		    ix->entries[i].id, ix->entries[i].version, signer->identity,
		    c->o->trust->name, signer->line);
		return util_error_expect(err, "ids matching its packs: "
		    "patterns", ix->entries[i].id);
	}
	return 0;
}

static int
check_fresh(const struct index_check *c, const ps_index *ix,
    const ps_trust_signer *signer, ps_error *err)
{
	char at[PS_TIME_TEXT_LEN], expires[PS_TIME_TEXT_LEN];
	char floor[32], found[32];

	if (!c->o->allow_expired && c->o->at > ix->expires) {
		if (ps_time_format(c->o->at, at) != 0)
			snprintf(at, sizeof(at), "%lld", (long long)c->o->at);
		ps_time_format(ix->expires, expires);
		util_refuse(err, "index_expired", c->label, "index version %llu "
		    "of '%s' expired at %s (judged at %s): its publisher must "
		    "sign a fresh one", (unsigned long long)ix->version,
		    ix->publisher, expires, at);
		return util_error_expect(err, "expires at or after now",
		    expires);
	}
	if (ix->version >= signer->min_index_version)
		return 0;
	snprintf(floor, sizeof(floor), "%llu",
	    (unsigned long long)signer->min_index_version);
	snprintf(found, sizeof(found), "%llu", (unsigned long long)ix->version);
	util_refuse(err, "index_rollback", c->label, "index version %s of "
	    "'%s' is below the policy's min_index_version %s (an old index "
	    "replayed?)", found, ix->publisher, floor);
	return util_error_expect(err, floor, found);
}

static int
judge(struct index_check *c, ps_index *ix, ps_error *err)
{
	const struct index_signer *s = publisher_signer(c, ix->publisher);

	if (s == NULL) {
		util_refuse(err, "index_publisher_mismatch", c->label, "the "
		    "index names its publisher '%s', but was signed by '%s'",
		    ix->publisher, c->accepted[0].signer->identity);
		return util_error_expect(err, c->accepted[0].signer->identity,
		    ix->publisher);
	}
	if (ps_pubkey_fingerprint(s->key, ix->fingerprint) != 0)
		return util_fail_oom(err, c->label);
	if (util_sha256_buffer(c->verified.payload, c->verified.payload_len,
	    ix->payload_sha256) != 0)
		return util_fail(err, "io_error", c->label, "SHA-256 failed");
	if (check_scope(c, ix, s->signer, err) != 0)
		return -1;
	return check_fresh(c, ix, s->signer, err);
}

static int
parse_verified(struct index_check *c, ps_index **out, ps_error *err)
{
	const char *type = c->verified.payload_type;

	if (strcmp(type, PS_INDEX_PAYLOAD_TYPE) != 0) {
		util_refuse(err, "index_invalid", c->label, "the envelope does "
		    "not hold an index (a pack's .sig?)");
		return util_error_expect(err, PS_INDEX_PAYLOAD_TYPE, type);
	}
	if (index_payload_parse(c->verified.payload, c->verified.payload_len,
	    c->label, out, err) != 0)
		return -1;
	if (judge(c, *out, err) == 0)
		return 0;
	ps_index_free(*out);
	*out = NULL;
	return -1;
}

int
ps_index_verify(const void *bytes, size_t len, const char *label,
    const ps_index_verify_options *o, ps_index **out, ps_error *err)
{
	struct index_check c;
	int rc;

	*out = NULL;
	memset(&c, 0, sizeof(c));
	c.o = o;
	c.label = label;
	if (o->trust == NULL)
		return util_fail(err, "invalid_argument", label, "verifying an "
		    "index needs a trust policy");
	if (len > SIGN_DSSE_MAX_BYTES)
		return util_refuse(err, "envelope_too_large", label, "an index "
		    "is at most %d bytes", SIGN_DSSE_MAX_BYTES);
	if (sign_dsse_parse(bytes, len, label, &c.env, err) != 0)
		return -1;
	rc = sign_dsse_signature_count(c.env) > INDEX_MAX_SIGNATURES ?
	    too_many_signatures(&c, err) : find_signers(&c, err);
	if (rc == 0)
		rc = parse_verified(&c, out, err);
	sign_dsse_free(c.env);
	return rc;
}
