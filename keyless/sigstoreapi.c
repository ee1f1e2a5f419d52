/* Fulcio v2, Rekor v1 and Rekor v2 requests, and their answers reshaped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <sodium.h>

#include "keyless/postjson.h"
#include "keyless/sigstoreapi.h"
#include "util/error.h"

#define FULCIO "Fulcio for a signing certificate"
#define REKOR "Rekor to log the signature"

static char *
b64(const unsigned char *bytes, size_t len)
{
	size_t cap = sodium_base64_ENCODED_LEN(len, sodium_base64_VARIANT_ORIGINAL);
	char *out = malloc(cap);

	if (out != NULL)
		sodium_bin2base64(out, cap, bytes, len,
		    sodium_base64_VARIANT_ORIGINAL);
	return out;
}

static json_t *
fulcio_request(const char *token, const char *pem, const char *proof)
{
	return json_pack("{s:{s:s}, s:{s:{s:s, s:s}, s:s}}", "credentials",
	    "oidcIdentityToken", token, "publicKeyRequest", "publicKey",
	    "algorithm", "ECDSA", "content", pem, "proofOfPossession", proof);
}

/* The first certificate of the embedded-SCT chain, as PEM and DER. */
static int
leaf_of(json_t *answer, const char *url, unsigned char **der, size_t *len,
    char **pem, ps_error *err)
{
	json_t *certs = json_object_get(json_object_get(json_object_get(answer,
	    "signedCertificateEmbeddedSct"), "chain"), "certificates");
	json_t *first = json_array_get(certs, 0);
	BIO *bio;
	X509 *x = NULL;
	int n;

	if (!json_is_string(first))
		return util_fail(err, "fulcio_failed", url, "asked " FULCIO ": the "
		    "answer has no signedCertificateEmbeddedSct chain (a detached "
		    "SCT is not supported)");
	bio = BIO_new_mem_buf(json_string_value(first),
	    (int)json_string_length(first));
	if (bio != NULL)
		x = PEM_read_bio_X509(bio, NULL, NULL, NULL);
	BIO_free(bio);
	*der = NULL;
	n = x != NULL ? i2d_X509(x, der) : -1;
	X509_free(x);
	ERR_clear_error();
	if (n <= 0)
		return util_fail(err, "fulcio_failed", url, "asked " FULCIO ": the "
		    "first certificate of the chain is not a PEM certificate");
	*len = (size_t)n;
	if ((*pem = strdup(json_string_value(first))) == NULL) {
		OPENSSL_free(*der);
		*der = NULL;
		return util_fail_oom(err, url);
	}
	return 0;
}

static int
make_proof(const keyless_key *key, const char *challenge, char **proof,
    ps_error *err)
{
	unsigned char *sig = NULL;
	size_t sig_len = 0;

	if (keyless_key_sign(key, challenge, strlen(challenge), &sig, &sig_len,
	    err) != 0)
		return -1;
	*proof = b64(sig, sig_len);
	free(sig);
	return *proof != NULL ? 0 : util_fail_oom(err, NULL);
}

int
keyless_fulcio_certificate(const ps_fetch_options *fetch, const char *base,
    const char *token, const char *challenge, const keyless_key *key,
    unsigned char **der, size_t *der_len, char **pem, ps_error *err)
{
	char *url = NULL, *pub = NULL, *proof = NULL;
	json_t *req = NULL, *answer = NULL;
	int rc = -1;

	*der = NULL;
	*pem = NULL;
	if (asprintf(&url, "%s/api/v2/signingCert", base) < 0)
		return util_fail_oom(err, base);
	if (keyless_key_public_pem(key, &pub, err) == 0 &&
	    make_proof(key, challenge, &proof, err) == 0) {
		req = fulcio_request(token, pub, proof);
		if (req == NULL)
			util_fail_oom(err, url);
		else if (keyless_post_json(fetch, url, req,
		    KEYLESS_SERVICE_MAX_ANSWER, FULCIO, "fulcio_failed", &answer,
		    err) == 0)
			rc = leaf_of(answer, url, der, der_len, pem, err);
	}
	json_decref(req);
	json_decref(answer);
	free(pub);
	free(proof);
	free(url);
	return rc;
}

/* ----------------------------------------------------------- Rekor v1 */

/* Hex to base64 (Rekor v1 answers hashes and log IDs in hex). */
static json_t *
hex_b64(json_t *hex)
{
	unsigned char bin[64];
	size_t n = 0;
	char *text;
	json_t *v;

	if (!json_is_string(hex) || sodium_hex2bin(bin, sizeof(bin),
	    json_string_value(hex), json_string_length(hex), NULL, &n,
	    NULL) != 0 || n == 0)
		return NULL;
	if ((text = b64(bin, n)) == NULL)
		return NULL;
	v = json_string(text);
	free(text);
	return v;
}

static json_t *
hashes_b64(json_t *hashes)
{
	json_t *out = json_array(), *h, *v;
	size_t i;

	if (!json_is_array(hashes) || json_array_size(hashes) > 64) {
		json_decref(out);
		return NULL;
	}
	json_array_foreach(hashes, i, h) {
		if ((v = hex_b64(h)) == NULL || json_array_append_new(out, v) != 0) {
			json_decref(out);
			return NULL;
		}
	}
	return out;
}

static json_t *
number_text(json_t *n)
{
	char text[32];

	if (!json_is_integer(n) || json_integer_value(n) < 0)
		return NULL;
	snprintf(text, sizeof(text), "%lld", (long long)json_integer_value(n));
	return json_string(text);
}

static json_t *
proof_json(json_t *p)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:{s:O}}",
	    "logIndex", number_text(json_object_get(p, "logIndex")),
	    "rootHash", hex_b64(json_object_get(p, "rootHash")),
	    "treeSize", number_text(json_object_get(p, "treeSize")),
	    "hashes", hashes_b64(json_object_get(p, "hashes")),
	    "checkpoint", "envelope", json_object_get(p, "checkpoint"));
}

/* Rekor v1's LogEntry (the one value of {UUID: LogEntry}) as a bundle's
 * TransparencyLogEntry; NULL when a field is missing or mistyped. */
static json_t *
entry_json(json_t *answer)
{
	const char *uuid;
	json_t *e = NULL, *v, *ver;

	json_object_foreach(answer, uuid, v) {
		if (e != NULL)
			return NULL;
		e = v;
	}
	ver = json_object_get(e, "verification");
	if (!json_is_string(json_object_get(e, "body")) ||
	    !json_is_string(json_object_get(ver, "signedEntryTimestamp")) ||
	    !json_is_string(json_object_get(json_object_get(ver,
	    "inclusionProof"), "checkpoint")))
		return NULL;
	return json_pack("{s:o, s:{s:o}, s:{s:s, s:s}, s:o, s:{s:O}, s:o, s:O}",
	    "logIndex", number_text(json_object_get(e, "logIndex")),
	    "logId", "keyId", hex_b64(json_object_get(e, "logID")),
	    "kindVersion", "kind", "dsse", "version", "0.0.1",
	    "integratedTime", number_text(json_object_get(e, "integratedTime")),
	    "inclusionPromise", "signedEntryTimestamp",
	    json_object_get(ver, "signedEntryTimestamp"),
	    "inclusionProof", proof_json(json_object_get(ver, "inclusionProof")),
	    "canonicalizedBody", json_object_get(e, "body"));
}

int
keyless_rekor_dsse(const ps_fetch_options *fetch, const char *base,
    const char *envelope, const char *pem, json_t **entry, ps_error *err)
{
	char *url = NULL, *verifier = b64((const unsigned char *)pem,
	    strlen(pem));
	json_t *req = NULL, *answer = NULL;
	int rc = -1;

	*entry = NULL;
	if (verifier == NULL || asprintf(&url, "%s/api/v1/log/entries",
	    base) < 0) {
		free(verifier);
		return util_fail_oom(err, base);
	}
	req = json_pack("{s:s, s:s, s:{s:{s:s, s:[s]}}}", "apiVersion", "0.0.1",
	    "kind", "dsse", "spec", "proposedContent", "envelope", envelope,
	    "verifiers", verifier);
	if (req == NULL)
		util_fail_oom(err, url);
	else if (keyless_post_json(fetch, url, req, KEYLESS_SERVICE_MAX_ANSWER,
	    REKOR, "rekor_failed", &answer, err) == 0) {
		*entry = entry_json(answer);
		rc = *entry != NULL ? 0 : util_fail(err, "rekor_failed", url,
		    "asked " REKOR ": the answer is not one log entry with a "
		    "body, an inclusion promise and an inclusion proof");
	}
	json_decref(req);
	json_decref(answer);
	free(verifier);
	free(url);
	return rc;
}

/* ----------------------------------------------------------- Rekor v2 */

static json_t *
rekor2_request(const char *envelope, const unsigned char *der, size_t len)
{
	json_error_t jerr;
	json_t *env = json_loads(envelope, 0, &jerr);
	char *cert = b64(der, len);
	json_t *req = NULL;

	/* rekor-tiles' CreateEntryRequest, protobuf JSON: dsseRequestV002 is
	 * {envelope, verifiers: [Verifier]}, a Verifier an x509Certificate
	 * {rawBytes} (DER) and its keyDetails. */
	if (env != NULL && cert != NULL)
		req = json_pack("{s:{s:O, s:[{s:{s:s}, s:s}]}}", "dsseRequestV002",
		    "envelope", env, "verifiers", "x509Certificate", "rawBytes",
		    cert, "keyDetails", "PKIX_ECDSA_P256_SHA_256");
	json_decref(env);
	free(cert);
	return req;
}

/* Rekor v2's answer, the TransparencyLogEntry, with only the fields a
 * bundle's entry has; NULL unless dsse 0.0.2 with a proof and checkpoint. */
static json_t *
entry2_json(json_t *a)
{
	json_t *kv = json_object_get(a, "kindVersion");
	json_t *proof = json_object_get(a, "inclusionProof");

	if (!json_is_string(json_object_get(a, "logIndex")) ||
	    !json_is_string(json_object_get(json_object_get(a, "logId"),
	    "keyId")) ||
	    !json_is_string(json_object_get(kv, "kind")) ||
	    strcmp(json_string_value(json_object_get(kv, "kind")), "dsse") != 0 ||
	    !json_is_string(json_object_get(kv, "version")) ||
	    strcmp(json_string_value(json_object_get(kv, "version")),
	    "0.0.2") != 0 ||
	    !json_is_string(json_object_get(json_object_get(proof, "checkpoint"),
	    "envelope")) ||
	    !json_is_array(json_object_get(proof, "hashes")) ||
	    !json_is_string(json_object_get(a, "canonicalizedBody")))
		return NULL;
	return json_pack("{s:O, s:O, s:O, s:O, s:O}", "logIndex",
	    json_object_get(a, "logIndex"), "logId", json_object_get(a, "logId"),
	    "kindVersion", kv, "inclusionProof", proof, "canonicalizedBody",
	    json_object_get(a, "canonicalizedBody"));
}

int
keyless_rekor2_dsse(const ps_fetch_options *fetch, const char *base,
    const char *envelope, const unsigned char *der, size_t der_len,
    json_t **entry, ps_error *err)
{
	json_t *req = rekor2_request(envelope, der, der_len), *answer = NULL;
	char *url = NULL;
	int rc = -1;

	*entry = NULL;
	if (req == NULL || asprintf(&url, "%s/api/v2/log/entries", base) < 0) {
		json_decref(req);
		return util_fail_oom(err, base);
	}
	if (keyless_post_json(fetch, url, req, KEYLESS_SERVICE_MAX_ANSWER,
	    REKOR, "rekor_failed", &answer, err) == 0) {
		*entry = entry2_json(answer);
		rc = *entry != NULL ? 0 : util_fail(err, "rekor_failed", url,
		    "asked " REKOR " (v2): the answer is not a dsse 0.0.2 "
		    "TransparencyLogEntry with an inclusion proof and checkpoint");
	}
	json_decref(req);
	json_decref(answer);
	free(url);
	return rc;
}
