/*
 * The verification of a Sigstore bundle, step by step in the order of
 * docs/formats/sigstore.md, section 3: shape, log entries, timestamps,
 * signing times and the evidence the root requires, certificate,
 * identity, signature.  Each step records what it verified in the
 * result before the next starts, so a refusal shows how far it got.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "sigstore/artifact.h"
#include "sigstore/evidence.h"
#include "sigstore/fulcio.h"
#include "sigstore/rfc3161.h"
#include "sigstore/run.h"
#include "sigstore/sigstore.h"
#include "util/error.h"
#include "util/fdio.h"

void
ps_sigstore_options_init(ps_sigstore_options *o)
{
	memset(o, 0, sizeof(*o));
}

/* -------------------------------------------------------- step 1, shape */

static int
refuse_material(sigstore_run *run, ps_error *err)
{
	util_refuse(err, "bundle_material_mismatch", run->subject, "%s",
	    run->keyless ? "an identity was asked for, so the bundle must carry "
	    "a certificate" : "a public key was given, so the bundle must be "
	    "signed by a key, not a certificate");
	return util_error_expect(err, run->keyless ? "a certificate" :
	    "a public key hint", run->keyless ? "a public key hint" :
	    "a certificate");
}

static int
leaf_key(sigstore_run *run, ps_error *err)
{
	X509 *leaf = sigstore_bundle_leaf(run->b);

	if (X509_check_ca(leaf) != 0)
		return util_refuse(err, "certificate_not_leaf", run->subject, "the "
		    "bundle's first certificate is a CA certificate, not the "
		    "signing (leaf) certificate");
	if (sigstore_pkey_from_evp(X509_get0_pubkey(leaf), &run->key) != 0)
		return util_refuse(err, "certificate_key_unsupported",
		    run->subject, "the signing certificate's key is not an ECDSA "
		    "P-256, P-384 or P-521, Ed25519 or RSA (2048 to 8192 bits) key");
	run->content.leaf = leaf;
	return 0;
}

/* The bundle: the file at `path`, or `len` bytes read by the caller. */
static int
step_shape(sigstore_run *run, const char *path, const char *bytes, size_t len,
    sigstore_pkey *given, ps_error *err)
{
	if ((bytes != NULL ? sigstore_bundle_parse(bytes, len, run->subject,
	    &run->b, err) : sigstore_bundle_read(path, &run->b, err)) != 0)
		return -1;
	run->content.bundle = run->b;
	if (sigstore_evidence_alloc(run, err) != 0)
		return -1;
	if ((run->b->material == SIGSTORE_MATERIAL_KEY) == run->keyless)
		return refuse_material(run, err);
	if (run->keyless && leaf_key(run, err) != 0)
		return -1;
	if (!run->keyless)
		run->key = given;
	run->content.key = run->key;
	sigstore_evidence_key(run);
	run->r->steps |= PS_SIGSTORE_STEP_SHAPE;
	return 0;
}

/* ------------------------------------------------- step 2, log entries */

static int
step_log(sigstore_run *run, ps_error *err)
{
	char where[PS_ERROR_TEXT_MAX];
	const sigstore_entry *a, *e;
	size_t i, j;

	for (i = 0; i < run->b->entry_count; i++) {
		e = &run->b->entries[i];
		snprintf(where, sizeof(where), "%s: tlogEntries[%zu]", run->subject,
		    i);
		for (j = 0; j < i; j++) {
			a = &run->b->entries[j];
			if (a->log_index == e->log_index && a->log_id_len ==
			    e->log_id_len && memcmp(a->log_id, e->log_id,
			    e->log_id_len) == 0)
				return util_refuse(err, "tlog_duplicate", where, "the "
				    "same log entry twice (as tlogEntries[%zu])", j);
		}
		if (sigstore_tlog_verify(run->root, &run->content, i, where,
		    &run->proofs[i], err) != 0 ||
		    sigstore_evidence_entry(run, i, err) != 0)
			return -1;
		if (run->proofs[i].set_verified)
			run->times[run->time_count++] = (sigstore_time){
			    e->integrated_time, 0 };
		run->rekor_v2 |= run->proofs[i].rekor_version == 2;
		run->entries_verified++;
	}
	run->r->steps |= PS_SIGSTORE_STEP_LOG;
	return 0;
}

/* ------------------------------------------------- step 3, timestamps */

static int
duplicate_timestamp(const sigstore_bundle *b, size_t i)
{
	size_t j;

	for (j = 0; j < i; j++) {
		if (b->timestamp_lens[j] == b->timestamp_lens[i] &&
		    memcmp(b->timestamps[j], b->timestamps[i],
		    b->timestamp_lens[i]) == 0)
			return 1;
	}
	return 0;
}

/* A timestamp that does not verify is skipped, as sigstore-python does:
 * only verified ones count (docs/formats/sigstore.md, section 5). */
static int
step_timestamps(sigstore_run *run, ps_error *err)
{
	const sigstore_authority *tsa;
	const sigstore_bundle *b = run->b;
	char where[PS_ERROR_TEXT_MAX];
	sigstore_time t;
	ps_error e;
	size_t i;

	if (b->timestamp_count > 0 && run->root->tsa_count == 0)
		return util_refuse(err, "timestamp_untrusted", run->subject, "the "
		    "bundle carries %zu timestamps and the trusted root lists no "
		    "timestamp authority to verify them", b->timestamp_count);
	for (i = 0; i < b->timestamp_count; i++) {
		snprintf(where, sizeof(where), "%s: rfc3161Timestamps[%zu]",
		    run->subject, i);
		if (duplicate_timestamp(b, i))
			return util_refuse(err, "timestamp_duplicate", where, "the "
			    "same timestamp twice");
		ps_error_clear(&e);
		if (sigstore_timestamp_verify(run->root, b->timestamps[i],
		    b->timestamp_lens[i], b->signature, b->signature_len, where, &t,
		    &tsa, &e) != 0) {
			if (e.status == PS_STATUS_FAILED) {
				*err = e;
				return -1;
			}
			if (run->first_timestamp_error.code[0] == '\0')
				run->first_timestamp_error = e;
			if (sigstore_evidence_timestamp(run, i, t, NULL, &e, err) != 0)
				return -1;
			continue;
		}
		if (sigstore_evidence_timestamp(run, i, t, tsa, NULL, err) != 0)
			return -1;
		run->tsa_times[run->tsa_time_count++] = t;
		run->times[run->time_count++] = t;
	}
	run->r->steps |= PS_SIGSTORE_STEP_TIMESTAMPS;
	return 0;
}

/* ---------------------------------------------- step 4, signing times */

/* No verified timestamp where one is needed: the first skipped one's
 * reason when there was one (it says why), else `code`. */
static int
refuse_no_time(sigstore_run *run, const char *code, const char *why,
    ps_error *err)
{
	if (run->first_timestamp_error.code[0] != '\0') {
		*err = run->first_timestamp_error;
		return -1;
	}
	return util_refuse(err, code, run->subject, "%s", why);
}

static int
check_future(sigstore_run *run, ps_error *err)
{
	char when[40], now[40];
	size_t i;

	for (i = 0; i < run->time_count; i++) {
		if (sigstore_time_cmp(run->times[i], run->now) <= 0)
			continue;
		sigstore_time_format(run->times[i], when);
		sigstore_time_format(run->now, now);
		util_refuse(err, "signing_time_future", run->subject, "a verified "
		    "signing time lies in the future");
		return util_error_expect(err, now, when);
	}
	return 0;
}

/* A Rekor v2 log must have been valid at each timestamp's time. */
static int
check_v2_logs(sigstore_run *run, ps_error *err)
{
	const sigstore_log *log;
	size_t i, j;

	for (i = 0; i < run->b->entry_count; i++) {
		log = run->proofs[i].log;
		if (run->proofs[i].rekor_version != 2)
			continue;
		for (j = 0; j < run->tsa_time_count; j++) {
			if (!sigstore_validity_contains(&log->valid, run->tsa_times[j]))
				return util_refuse(err, "tlog_log_not_valid", run->subject,
				    "the Rekor v2 log %s was not valid (its validFor in the "
				    "trusted root) at the time of timestamp %zu", log->base_url,
				    j);
		}
	}
	return 0;
}

static int
step_times(sigstore_run *run, ps_error *err)
{
	int blob = run->blob;

	if (check_future(run, err) != 0)
		return -1;
	if (blob && run->root->tlog_count > 0 && run->entries_verified == 0)
		return util_refuse(err, "tlog_entry_missing", run->subject, "the "
		    "trusted root lists transparency logs and the bundle carries no "
		    "log entry");
	if (run->rekor_v2 && run->tsa_time_count == 0)
		return refuse_no_time(run, "timestamp_missing", "a Rekor v2 entry "
		    "carries no time: the bundle needs a verified RFC 3161 "
		    "timestamp", err);
	if (blob && run->root->tlog_count == 0 && run->tsa_time_count == 0)
		return refuse_no_time(run, "timestamp_missing", "the trusted root "
		    "lists no transparency log: the bundle needs a verified RFC "
		    "3161 timestamp", err);
	if (run->keyless && run->time_count == 0)
		return refuse_no_time(run, "signing_time_missing", "no verified "
		    "signing time (an inclusion promise or a timestamp) to check the "
		    "certificate at", err);
	if (check_v2_logs(run, err) != 0 || sigstore_evidence_times(run, err) != 0)
		return -1;
	run->r->steps |= PS_SIGSTORE_STEP_TIMES;
	return 0;
}

/* ------------------------------------------------ step 5, certificate */

static int
step_certificate(sigstore_run *run, ps_error *err)
{
	ps_sigstore_certificate *c = &run->r->certificate;
	X509 *leaf = run->content.leaf;

	if (sigstore_chain_verify(run->root, leaf, run->times, run->time_count,
	    run->subject, &run->chain, err) != 0 ||
	    sigstore_chain_usage(leaf, run->subject, err) != 0 ||
	    (run->root->ctlog_count > 0 && sigstore_chain_sct(run->root, leaf,
	    run->now, run->subject, &run->chain, err) != 0))
		return -1;
	if (sigstore_fulcio_read(leaf, run->subject, c, err) != 0)
		return -1;
	if ((run->chain.ca->uri != NULL &&
	    (c->authority = strdup(run->chain.ca->uri)) == NULL) ||
	    (run->chain.ct_log != NULL &&
	    (c->ct_log = strdup(run->chain.ct_log->base_url)) == NULL))
		return util_fail_oom(err, run->subject);
	c->sct_time_ms = (int64_t)run->chain.sct_time_ms;
	run->r->steps |= PS_SIGSTORE_STEP_CERTIFICATE;
	return 0;
}

/* --------------------------------------------------- step 6, identity */

static int
step_identity(sigstore_run *run, ps_error *err)
{
	const ps_sigstore_certificate *c = &run->r->certificate;

	if (c->issuer == NULL || strcmp(c->issuer, run->issuer) != 0) {
		util_refuse(err, "issuer_mismatch", run->subject, "compared the "
		    "certificate's OIDC issuer (Fulcio extension "
		    "1.3.6.1.4.1.57264.1.8, else .1) with the one asked for");
		return util_error_expect(err, run->issuer, c->issuer != NULL ?
		    c->issuer : "none");
	}
	if (strcmp(c->san, run->identity) != 0) {
		util_refuse(err, "identity_mismatch", run->subject, "compared the "
		    "certificate's subject alternative name with the identity asked "
		    "for");
		return util_error_expect(err, run->identity, c->san);
	}
	run->r->steps |= PS_SIGSTORE_STEP_IDENTITY;
	return 0;
}

/* -------------------------------------------------- step 7, signature */

static int
verify_message(sigstore_run *run, ps_error *err)
{
	const sigstore_content *c = &run->content;
	const sigstore_bundle *b = run->b;

	if (c->hash == NULL)
		return util_refuse(err, "signature_algorithm_unsupported",
		    run->subject, "a message signature by an Ed25519 key signs the "
		    "whole artifact, which packsign does not verify");
	if (c->msg_digest_len == 0)
		return util_refuse(err, "artifact_digest_unusable", run->subject,
		    "the message signature is over the artifact's %s digest and the "
		    "artifact was given by its SHA-256 only: give the file",
		    c->hash->md);
	if (b->digest_alg[0] != '\0' && (b->digest_len != c->msg_digest_len ||
	    memcmp(b->digest, c->msg_digest, b->digest_len) != 0))
		return util_refuse(err, "signature_digest_mismatch", run->subject,
		    "the bundle's messageDigest (%s) is not the artifact's",
		    b->digest_alg);
	if (sigstore_pkey_verify_digest(run->key, c->hash->md, c->msg_digest,
	    c->msg_digest_len, b->signature, b->signature_len) != 0)
		return util_refuse(err, "signature_invalid", run->subject, "the "
		    "message signature does not verify over the artifact's %s digest "
		    "with the %s", c->hash->md, run->keyless ? "certificate's key" :
		    "key given");
	return 0;
}

static int
verify_dsse(sigstore_run *run, ps_error *err)
{
	const sigstore_bundle *b = run->b;
	unsigned char *msg;
	char head[64];
	size_t hlen, tlen = strlen(b->payload_type);
	int n, rc;

	n = snprintf(head, sizeof(head), "DSSEv1 %zu ", tlen);
	hlen = (size_t)n;
	msg = malloc(hlen + tlen + 32 + b->payload_len);
	if (msg == NULL)
		return util_fail_oom(err, run->subject);
	memcpy(msg, head, hlen);
	memcpy(msg + hlen, b->payload_type, tlen);
	n = snprintf((char *)msg + hlen + tlen, 32, " %zu ", b->payload_len);
	memcpy(msg + hlen + tlen + (size_t)n, b->payload, b->payload_len);
	rc = sigstore_pkey_verify(run->key, msg, hlen + tlen + (size_t)n +
	    b->payload_len, b->signature, b->signature_len);
	free(msg);
	if (rc != 0)
		return util_refuse(err, "signature_invalid", run->subject, "the DSSE "
		    "signature does not verify over the envelope's pre-authentication "
		    "encoding with the %s", run->keyless ? "certificate's key" :
		    "key given");
	return 0;
}

static int
step_signature(sigstore_run *run, ps_error *err)
{
	ps_sigstore_result *r = run->r;

	if (!run->b->dsse) {
		if (verify_message(run, err) != 0)
			return -1;
	} else if (verify_dsse(run, err) != 0 || (run->blob &&
	    sigstore_artifact_subject(run->b, run->content.sha256, run->subject,
	    err) != 0)) {
		return -1;
	}
	if (run->b->dsse) {
		r->payload = malloc(run->b->payload_len + 1);
		if (r->payload == NULL)
			return util_fail_oom(err, run->subject);
		memcpy(r->payload, run->b->payload, run->b->payload_len);
		r->payload_len = run->b->payload_len;
	}
	r->steps |= PS_SIGSTORE_STEP_SIGNATURE;
	return 0;
}

/* ------------------------------------------------------------ the API */

static int
run_steps(sigstore_run *run, const char *bytes, size_t len,
    sigstore_pkey *given, const ps_sigstore_artifact *artifact, ps_error *err)
{
	char hex[PS_SHA256_STRING_LEN];

	if (step_shape(run, run->subject, bytes, len, given, err) != 0 ||
	    sigstore_artifact_message_hash(&run->content, run->subject, err) != 0)
		return -1;
	if (artifact != NULL) {
		if (sigstore_artifact_hash(artifact, &run->content, err) != 0)
			return -1;
		snprintf(run->r->artifact_sha256, sizeof(run->r->artifact_sha256),
		    "%s", ps_sha256_string(run->content.sha256, hex));
	}
	if (step_log(run, err) != 0 || step_timestamps(run, err) != 0 ||
	    step_times(run, err) != 0)
		return -1;
	if (run->keyless && (step_certificate(run, err) != 0 ||
	    (run->identity != NULL && step_identity(run, err) != 0)))
		return -1;
	return step_signature(run, err);
}

static void
run_clear(sigstore_run *run, const sigstore_pkey *given)
{
	if (run->key != given)
		sigstore_pkey_free(run->key);
	sigstore_bundle_free(run->b);
	sigstore_chain_result_clear(&run->chain);
}

static int
load_key(const char *path, sigstore_pkey **out, ps_error *err)
{
	char *text = malloc(PS_KEY_FILE_MAX + 1);
	ssize_t n = -1;
	int fd;

	*out = NULL;
	if (text == NULL)
		return util_fail_oom(err, path);
	fd = util_open_file(path, err);
	if (fd >= 0) {
		n = util_read_full(fd, text, PS_KEY_FILE_MAX + 1);
		if (n < 0)
			util_fail_errno(err, "io_error", path, "read", errno);
		close(fd);
	}
	if (n > PS_KEY_FILE_MAX)
		n = util_fail(err, "key_malformed", path, "the key file is over %d "
		    "bytes", PS_KEY_FILE_MAX);
	if (n >= 0 && sigstore_pkey_from_pem(text, (size_t)n, out) != 0)
		n = util_fail(err, "key_malformed", path, "not a PEM public key "
		    "(SubjectPublicKeyInfo) of an algorithm packsign verifies: ECDSA "
		    "P-256, P-384, P-521, Ed25519, RSA 2048 to 8192 bits");
	free(text);
	return n < 0 ? -1 : 0;
}

static int
check_options(const ps_sigstore_artifact *a, const char *path,
    const ps_sigstore_options *o, ps_error *err)
{
	int keyless = o->identity != NULL || o->issuer != NULL;

	if (a == NULL || path == NULL || o->root == NULL ||
	    keyless == (o->key_path != NULL) ||
	    (keyless && (o->identity == NULL || o->issuer == NULL)))
		return util_fail(err, "invalid_argument", path, "ps_sigstore_verify "
		    "needs an artifact, a bundle, a trusted root, and either an "
		    "identity with its issuer or a key");
	return 0;
}

static sigstore_time
now_of(int64_t at)
{
	sigstore_time t = { at, 0 };
	struct timespec ts;

	if (at == 0 && clock_gettime(CLOCK_REALTIME, &ts) == 0) {
		t.sec = ts.tv_sec;
		t.nsec = (int32_t)ts.tv_nsec;
	}
	return t;
}

int
ps_sigstore_verify(const ps_sigstore_artifact *artifact,
    const char *bundle_path, const ps_sigstore_options *o,
    ps_sigstore_result **out, ps_error *err)
{
	sigstore_run run;
	sigstore_pkey *given = NULL;
	int rc;

	*out = NULL;
	if (check_options(artifact, bundle_path, o, err) != 0 ||
	    (o->key_path != NULL && load_key(o->key_path, &given, err) != 0))
		return -1;
	memset(&run, 0, sizeof(run));
	run.root = o->root;
	run.subject = bundle_path;
	run.identity = o->identity;
	run.issuer = o->issuer;
	run.keyless = o->key_path == NULL;
	run.blob = 1;
	run.now = now_of(o->at);
	run.r = calloc(1, sizeof(*run.r));
	if (run.r == NULL) {
		sigstore_pkey_free(given);
		return util_fail_oom(err, bundle_path);
	}
	rc = run_steps(&run, NULL, 0, given, artifact, err);
	run_clear(&run, given);
	sigstore_pkey_free(given);
	ERR_clear_error();
	*out = run.r;
	return rc;
}

int
sigstore_verify_key_bundle(const ps_sigstore_root *root, const char *path,
    const char *bytes, size_t len, const ps_pubkey *key, int64_t now,
    ps_sigstore_result **out, ps_error *err)
{
	sigstore_run run;
	sigstore_pkey *given = NULL;
	int rc;

	*out = NULL;
	if (sigstore_pkey_from_pubkey(key, &given) != 0)
		return util_fail(err, "crypto_error", path, "OpenSSL refused the "
		    "policy's key");
	memset(&run, 0, sizeof(run));
	run.root = root;
	run.subject = path;
	run.now = now_of(now);
	run.r = calloc(1, sizeof(*run.r));
	if (run.r == NULL) {
		sigstore_pkey_free(given);
		return util_fail_oom(err, path);
	}
	rc = run_steps(&run, bytes, len, given, NULL, err);
	if (rc == 0 && !run.b->dsse)
		rc = util_refuse(err, "bundle_unsupported", path, "a bundle with a "
		    "message signature: a pack's bundle carries a DSSE envelope");
	run_clear(&run, given);
	sigstore_pkey_free(given);
	ERR_clear_error();
	*out = run.r;
	return rc;
}

int
sigstore_verify_keyless_bundle(const ps_sigstore_root *root, const char *path,
    const char *bytes, size_t len, int64_t now, ps_sigstore_result **out,
    ps_error *err)
{
	sigstore_run run;
	int rc;

	*out = NULL;
	memset(&run, 0, sizeof(run));
	run.root = root;
	run.subject = path;
	run.keyless = 1;
	run.now = now_of(now);
	run.r = calloc(1, sizeof(*run.r));
	if (run.r == NULL)
		return util_fail_oom(err, path);
	rc = run_steps(&run, bytes, len, NULL, NULL, err);
	if (rc == 0 && !run.b->dsse)
		rc = util_refuse(err, "bundle_unsupported", path, "a bundle with a "
		    "message signature: a pack's bundle carries a DSSE envelope");
	run_clear(&run, NULL);
	ERR_clear_error();
	*out = run.r;
	return rc;
}

int
sigstore_verify_keyless_bytes(const ps_sigstore_root *root, const char *label,
    const char *bytes, size_t len, const ps_sigstore_artifact *artifact,
    const char *identity, const char *issuer, ps_sigstore_result **out,
    ps_error *err)
{
	sigstore_run run;
	int rc;

	*out = NULL;
	memset(&run, 0, sizeof(run));
	run.root = root;
	run.subject = label;
	run.identity = identity;
	run.issuer = issuer;
	run.keyless = 1;
	run.blob = 1;
	run.now = now_of(0);
	run.r = calloc(1, sizeof(*run.r));
	if (run.r == NULL)
		return util_fail_oom(err, label);
	rc = run_steps(&run, bytes, len, NULL, artifact, err);
	run_clear(&run, NULL);
	ERR_clear_error();
	*out = run.r;
	return rc;
}
