/*
 * A keyless signature: the statement signed with an ephemeral key that
 * Fulcio certified for the token's identity, logged by Rekor, the bundle
 * verified before it is returned (keyless/signature.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/crypto.h>
#include <sodium.h>

#include "keyless/ephemeral.h"
#include "keyless/signature.h"
#include "keyless/sigstoreapi.h"
#include "keyless/tsa.h"
#include "sign/bundle.h"
#include "sign/dsse.h"
#include "sigstore/sigstore.h"
#include "util/error.h"

/* What one run makes, freed together. */
typedef struct keyless_made {
	keyless_key *key;
	unsigned char *cert;            /* DER leaf */
	size_t cert_len;
	char *pem;
	unsigned char *sig;             /* DSSE signature over the PAE */
	size_t sig_len;
	char *envelope;                 /* DSSE JSON text */
	json_t *entry;                  /* TransparencyLogEntry */
	unsigned char *tst;             /* TimeStampResp; NULL: none */
	size_t tst_len;
} keyless_made;

static void
made_clear(keyless_made *m)
{
	keyless_key_free(m->key);
	OPENSSL_free(m->cert);
	free(m->pem);
	free(m->sig);
	free(m->envelope);
	json_decref(m->entry);
	free(m->tst);
	memset(m, 0, sizeof(*m));
}

static json_t *
b64_json(const unsigned char *bytes, size_t len)
{
	size_t cap = sodium_base64_ENCODED_LEN(len, sodium_base64_VARIANT_ORIGINAL);
	char *text = malloc(cap);
	json_t *v;

	if (text == NULL)
		return NULL;
	sodium_bin2base64(text, cap, bytes, len, sodium_base64_VARIANT_ORIGINAL);
	v = json_string(text);
	free(text);
	return v;
}

/* The statement's source must be the one the token was issued for:
 * the verifier compares the certificate's with it. */
static int
check_source(const keyless_token *t, const ps_sign_result *r, ps_error *err)
{
	const char *field = NULL;

	if (t->repository == NULL || !r->has_source)
		return 0;
	if (r->source_repository == NULL ||
	    strcmp(r->source_repository, t->repository) != 0)
		field = "repository";
	else if (t->commit != NULL && strcmp(r->source_commit, t->commit) != 0)
		field = "commit";
	if (field == NULL)
		return 0;
	util_refuse(err, "keyless_source_mismatch", r->archive_path, "compared "
	    "the statement's source %s with the identity token's: a keyless "
	    "signature must record the repository and commit its workflow ran "
	    "for", field);
	return util_error_expect(err, strcmp(field, "repository") == 0 ?
	    t->repository : t->commit, strcmp(field, "repository") == 0 ?
	    (r->source_repository != NULL ? r->source_repository : "none") :
	    r->source_commit);
}

static int
envelope_text(const unsigned char *payload, size_t len, keyless_made *m,
    ps_error *err)
{
	json_t *env = json_pack("{s:o, s:s, s:[{s:o}]}", "payload",
	    b64_json(payload, len), "payloadType", SIGN_DSSE_INTOTO_TYPE,
	    "signatures", "sig", b64_json(m->sig, m->sig_len));

	m->envelope = env != NULL ? json_dumps(env, JSON_COMPACT |
	    JSON_SORT_KEYS) : NULL;
	json_decref(env);
	return m->envelope != NULL ? 0 : util_fail_oom(err, NULL);
}

/* Certificate, signature, envelope, log entry, timestamp. */
static int
make_parts(keyless_run *k, const unsigned char *payload, size_t len,
    keyless_made *m, ps_error *err)
{
	unsigned char *pae = NULL;
	size_t pae_len = 0;
	int rc;

	if (keyless_key_new(&m->key, err) != 0 ||
	    keyless_fulcio_certificate(k->fetch, k->endpoints.fulcio, k->jwt,
	    k->token->challenge, m->key, &m->cert, &m->cert_len, &m->pem,
	    err) != 0 ||
	    sign_dsse_pae(SIGN_DSSE_INTOTO_TYPE, payload, len, &pae, &pae_len,
	    err) != 0)
		return -1;
	rc = keyless_key_sign(m->key, pae, pae_len, &m->sig, &m->sig_len, err);
	free(pae);
	/* The key has signed what it signs: it goes now. */
	keyless_key_free(m->key);
	m->key = NULL;
	if (rc != 0 || envelope_text(payload, len, m, err) != 0 ||
	    (k->endpoints.rekor_version == 2 ?
	    keyless_rekor2_dsse(k->fetch, k->endpoints.rekor, m->envelope,
	    m->cert, m->cert_len, &m->entry, err) :
	    keyless_rekor_dsse(k->fetch, k->endpoints.rekor, m->envelope, m->pem,
	    &m->entry, err)) != 0)
		return -1;
	if (k->endpoints.tsa == NULL)
		return 0;
	return keyless_tsa_timestamp(k->fetch, k->endpoints.tsa, m->sig,
	    m->sig_len, &m->tst, &m->tst_len, err);
}

static json_t *
material_json(const keyless_made *m)
{
	json_t *mat = json_pack("{s:{s:o}, s:[O]}", "certificate", "rawBytes",
	    b64_json(m->cert, m->cert_len), "tlogEntries", m->entry);

	if (mat != NULL && m->tst != NULL && json_object_set_new(mat,
	    "timestampVerificationData", json_pack("{s:[{s:o}]}",
	    "rfc3161Timestamps", "signedTimestamp", b64_json(m->tst,
	    m->tst_len))) != 0) {
		json_decref(mat);
		return NULL;
	}
	return mat;
}

static int
assemble(const keyless_made *m, char **out, size_t *out_len, ps_error *err)
{
	json_error_t jerr;
	json_t *env = json_loads(m->envelope, 0, &jerr), *root;

	root = json_pack("{s:o?, s:s, s:o?}", "dsseEnvelope", env, "mediaType",
	    SIGN_BUNDLE_MEDIA_TYPE, "verificationMaterial", material_json(m));
	if (env == NULL || root == NULL ||
	    json_object_get(root, "verificationMaterial") == NULL) {
		json_decref(root);
		return util_fail_oom(err, NULL);
	}
	return sign_json_line(root, out, out_len, err);
}

/* packsign never writes a bundle it would refuse. */
static int
check_bundle(keyless_run *k, const ps_sign_result *r, const char *bundle,
    size_t len, ps_error *err)
{
	ps_sigstore_artifact artifact;
	ps_sigstore_result *res = NULL;
	char what[PS_ERROR_TEXT_MAX];
	int rc;

	memset(&artifact, 0, sizeof(artifact));
	memcpy(artifact.sha256, r->archive_digest, PS_SHA256_LEN);
	rc = sigstore_verify_keyless_bytes(k->root, "the new bundle", bundle, len,
	    &artifact, k->token->identity, k->token->issuer, &res, err);
	ps_sigstore_result_free(res);
	if (rc == 0)
		return 0;
	snprintf(what, sizeof(what), "[%s] %.600s", err->code, err->message);
	return util_fail(err, "keyless_bundle_refused", r->archive_path,
	    "verified the bundle made from Fulcio's and Rekor's answers against "
	    "%s and the token's identity before writing it: %s", k->root_label,
	    what);
}

int
keyless_sign_statement(void *ctx, const unsigned char *payload, size_t len,
    const ps_sign_result *r, char **bundle, size_t *bundle_len, ps_error *err)
{
	keyless_run *k = ctx;
	keyless_made m;
	int rc;

	*bundle = NULL;
	memset(&m, 0, sizeof(m));
	if (check_source(k->token, r, err) != 0)
		return -1;
	rc = make_parts(k, payload, len, &m, err);
	if (rc == 0)
		rc = assemble(&m, bundle, bundle_len, err);
	made_clear(&m);
	if (rc == 0)
		rc = check_bundle(k, r, *bundle, *bundle_len, err);
	if (rc != 0) {
		free(*bundle);
		*bundle = NULL;
	}
	return rc;
}
