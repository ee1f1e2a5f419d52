/*
 * Step 2: one log entry, in the order that authenticates before it reads:
 * the log is found by its id, the SET and the inclusion proof are
 * verified over the body's bytes as given, and only then is the body
 * compared with the bundle.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sigstore/merkle.h"
#include "sigstore/protojson.h"
#include "sigstore/tlog.h"
#include "util/error.h"

static void
hex_of(const unsigned char *b, size_t len, char *out, size_t size)
{
	size_t i;

	out[0] = '\0';
	for (i = 0; i < len && 2 * i + 2 < size; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

char *
sigstore_tlog_set_payload(const sigstore_entry *e)
{
	char id[2 * SIGSTORE_LOG_ID_MAX + 1], *b64, *out = NULL;

	hex_of(e->log_id, e->log_id_len, id, sizeof(id));
	b64 = sigstore_base64_encode(e->body, e->body_len);
	if (b64 != NULL && asprintf(&out, "{\"body\":\"%s\",\"integratedTime\":"
	    "%lld,\"logID\":\"%s\",\"logIndex\":%lld}", b64,
	    (long long)e->integrated_time, id, (long long)e->log_index) < 0)
		out = NULL;
	free(b64);
	return out;
}

static int
find_log(const ps_sigstore_root *root, const sigstore_entry *e,
    const char *subject, const sigstore_log **out, ps_error *err)
{
	char id[2 * SIGSTORE_LOG_ID_MAX + 1];

	*out = sigstore_root_find_tlog(root, e->log_id, e->log_id_len);
	if (*out == NULL) {
		hex_of(e->log_id, e->log_id_len, id, sizeof(id));
		util_refuse(err, "tlog_unknown_log", subject, "looked up the "
		    "entry's log id among the trusted root's transparency logs");
		return util_error_expect(err, "a log of the trusted root", id);
	}
	if ((*out)->key == NULL)
		return util_refuse(err, "tlog_key_unsupported", subject, "the "
		    "trusted root's key of %s is of an algorithm packsign does not "
		    "verify (%s)", (*out)->base_url, (*out)->key_details);
	return 0;
}

static int
check_kind(const sigstore_entry *e, const char *subject, int *version,
    ps_error *err)
{
	char found[64];

	*version = sigstore_body_rekor_version(e->kind, e->version);
	if (*version > 0)
		return 0;
	snprintf(found, sizeof(found), "%s %s", e->kind, e->version);
	util_refuse(err, "tlog_kind_unsupported", subject, "an entry of a kind "
	    "packsign does not verify");
	return util_error_expect(err, "hashedrekord 0.0.1, dsse 0.0.1, intoto "
	    "0.0.2 (Rekor v1); hashedrekord 0.0.2, dsse 0.0.2 (Rekor v2)", found);
}

/* What each bundle version and log version must carry. */
static int
check_required(const sigstore_bundle *b, const sigstore_entry *e,
    int version, const char *subject, ps_error *err)
{
	if ((version == 2 || b->minor >= 2) && !e->has_proof)
		return util_refuse(err, "tlog_proof_missing", subject, "%s needs an "
		    "inclusion proof", version == 2 ? "a Rekor v2 entry (it has no "
		    "inclusion promise)" : b->minor == 2 ? "a bundle v0.2 entry" :
		    "a bundle v0.3 entry");
	if (b->minor == 1 && e->set == NULL)
		return util_refuse(err, "tlog_promise_missing", subject, "a bundle "
		    "v0.1 entry needs its inclusion promise (signedEntryTimestamp)");
	return 0;
}

static int
verify_set(const sigstore_entry *e, const sigstore_log *log,
    const char *subject, ps_error *err)
{
	sigstore_time t = { e->integrated_time, 0 };
	char *payload;
	int rc;

	if (!e->has_integrated_time || e->integrated_time > SIGSTORE_JSON_INT_MAX ||
	    e->log_index > SIGSTORE_JSON_INT_MAX)
		return util_refuse(err, "tlog_set_invalid", subject, "an inclusion "
		    "promise needs the entry's integratedTime (at most 2^53, as "
		    "its logIndex)");
	payload = sigstore_tlog_set_payload(e);
	if (payload == NULL)
		return util_fail_oom(err, subject);
	rc = sigstore_pkey_verify(log->key, payload, strlen(payload), e->set,
	    e->set_len);
	free(payload);
	if (rc != 0)
		return util_refuse(err, "tlog_set_invalid", subject, "the inclusion "
		    "promise (SET) does not verify with the key of %s over the "
		    "entry's body, integrated time, log id and index",
		    log->base_url);
	if (!sigstore_validity_contains(&log->valid, t))
		return util_refuse(err, "tlog_log_not_valid", subject, "the log %s "
		    "was not valid at the entry's integrated time %lld (its "
		    "validFor in the trusted root)", log->base_url,
		    (long long)e->integrated_time);
	return 0;
}

static int
refuse_mismatch(const char *subject, const char *what, ps_error *err)
{
	return util_refuse(err, "tlog_checkpoint_mismatch", subject, "the "
	    "inclusion proof's %s is not the signed checkpoint's", what);
}

/* The audit path from the body's leaf to the proof's root hash. */
static int
verify_path(const sigstore_entry *e, int version, const char *subject,
    ps_error *err)
{
	unsigned char leaf[32], computed[32];
	uint64_t index = (uint64_t)(version == 2 ? e->log_index : e->proof_index);

	if (version == 2 && e->proof_index != e->log_index)
		return util_refuse(err, "tlog_inclusion_invalid", subject, "the "
		    "inclusion proof's logIndex is not the entry's");
	if (sigstore_merkle_leaf(e->body, e->body_len, leaf) != 0)
		return util_fail(err, "crypto_error", subject, "SHA-256 failed");
	if (sigstore_merkle_verify(index, (uint64_t)e->tree_size, leaf,
	    (const unsigned char (*)[32])e->hashes, e->hash_count, e->root_hash,
	    computed) != 0)
		return util_refuse(err, "tlog_inclusion_invalid", subject, "the "
		    "inclusion proof does not lead from the entry's body (leaf %llu "
		    "of %llu) to its root hash", (unsigned long long)index,
		    (unsigned long long)e->tree_size);
	return 0;
}

/* The root hash and size the path led to, signed by the log: only a
 * checkpoint makes the proof evidence.  Rekor v1 bundles v0.1 may carry
 * a proof without one, which then proves nothing and is not required. */
static int
verify_proof(const sigstore_bundle *b, const sigstore_entry *e,
    const sigstore_log *log, int version, const char *subject,
    sigstore_tlog_proof *out, ps_error *err)
{
	if (verify_path(e, version, subject, err) != 0)
		return -1;
	if (e->checkpoint == NULL && version == 1 && b->minor == 1)
		return 0;
	if (e->checkpoint == NULL)
		return util_refuse(err, "tlog_checkpoint_missing", subject, "the "
		    "inclusion proof has no checkpoint: nothing signed by the log "
		    "says its root hash is the log's");
	if (sigstore_note_verify(e->checkpoint, log, version == 1, subject,
	    &out->checkpoint, err) != 0)
		return -1;
	if (out->checkpoint.size != (uint64_t)e->tree_size)
		return refuse_mismatch(subject, "tree size", err);
	if (memcmp(out->checkpoint.root_hash, e->root_hash, 32) != 0)
		return refuse_mismatch(subject, "root hash", err);
	out->proof_verified = 1;
	return 0;
}

int
sigstore_tlog_verify(const ps_sigstore_root *root, const sigstore_content *c,
    size_t i, const char *subject, sigstore_tlog_proof *out, ps_error *err)
{
	const sigstore_entry *e = &c->bundle->entries[i];
	int version;

	memset(out, 0, sizeof(*out));
	if (find_log(root, e, subject, &out->log, err) != 0 ||
	    check_kind(e, subject, &version, err) != 0 ||
	    check_required(c->bundle, e, version, subject, err) != 0)
		return -1;
	out->rekor_version = version;
	if (e->set != NULL && version == 1) {
		if (verify_set(e, out->log, subject, err) != 0)
			return -1;
		out->set_verified = 1;
	}
	if (e->has_proof && verify_proof(c->bundle, e, out->log, version,
	    subject, out, err) != 0)
		return -1;
	if (!out->set_verified && !out->proof_verified)
		return util_refuse(err, "tlog_proof_missing", subject, "the entry "
		    "has neither an inclusion promise nor an inclusion proof with "
		    "a checkpoint");
	return sigstore_body_check(e, c, subject, err);
}
