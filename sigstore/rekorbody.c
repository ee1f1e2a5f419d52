/*
 * Log entry bodies: Rekor v2 bodies are made from the bundle and compared
 * byte for byte (canonical JSON leaves one form), Rekor v1 bodies, whose
 * JSON the v1 log wrote, are read field by field.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/pem.h>

#include "sigstore/protojson.h"
#include "sigstore/rekorbody.h"
#include "util/error.h"
#include "util/sha256.h"

int
sigstore_body_rekor_version(const char *kind, const char *version)
{
	if ((strcmp(kind, "hashedrekord") == 0 || strcmp(kind, "dsse") == 0) &&
	    strcmp(version, "0.0.1") == 0)
		return 1;
	if (strcmp(kind, "intoto") == 0 && strcmp(version, "0.0.2") == 0)
		return 1;
	if ((strcmp(kind, "hashedrekord") == 0 || strcmp(kind, "dsse") == 0) &&
	    strcmp(version, "0.0.2") == 0)
		return 2;
	return -1;
}

static int
mismatch(ps_error *err, const char *subject, const char *what)
{
	return util_refuse(err, "tlog_body_mismatch", subject, "the log entry "
	    "does not record this bundle: %s", what);
}

/* A message signature's entry records the artifact's digest with the
 * signature's hash, and the artifact came by its SHA-256 only. */
static int
digest_unusable(ps_error *err, const char *subject, const sigstore_content *c)
{
	return util_refuse(err, "artifact_digest_unusable", subject, "the log "
	    "entry records the artifact's %s digest and the artifact was given "
	    "by its SHA-256 only: give the file", c->hash->md);
}

/* A message signature whose digest with its hash is not at hand. */
static int
message_digest_missing(const sigstore_content *c)
{
	return !c->bundle->dsse && c->hash != NULL && c->msg_digest_len == 0;
}

/* ------------------------------------------------------------ Rekor v2 */

/* DSSE's pre-authentication encoding of the bundle's envelope. */
static unsigned char *
pae(const sigstore_bundle *b, size_t *len)
{
	char head[96];
	size_t tlen = strlen(b->payload_type), hlen;
	unsigned char *out;
	int n;

	n = snprintf(head, sizeof(head), "DSSEv1 %zu ", tlen);
	if (n < 0)
		return NULL;
	hlen = (size_t)n;
	out = malloc(hlen + tlen + 32 + b->payload_len);
	if (out == NULL)
		return NULL;
	memcpy(out, head, hlen);
	memcpy(out + hlen, b->payload_type, tlen);
	n = snprintf((char *)out + hlen + tlen, 32, " %zu ", b->payload_len);
	memcpy(out + hlen + tlen + (size_t)n, b->payload, b->payload_len);
	*len = hlen + tlen + (size_t)n + b->payload_len;
	return out;
}

/* The verifier object: {"keyDetails":...,"publicKey"|"x509Certificate":
 * {"rawBytes":...}} in canonical JSON. */
static char *
verifier_json(const sigstore_content *c)
{
	unsigned char *der = NULL;
	char *b64, *out = NULL;
	int len;

	if (c->leaf != NULL) {
		len = i2d_X509(c->leaf, &der);
		if (len <= 0)
			return NULL;
		b64 = sigstore_base64_encode(der, (size_t)len);
		OPENSSL_free(der);
	} else {
		b64 = sigstore_base64_encode(c->key->spki, c->key->spki_len);
	}
	if (b64 != NULL && asprintf(&out, "{\"keyDetails\":\"%s\",\"%s\":"
	    "{\"rawBytes\":\"%s\"}}", sigstore_pkey_details(c->key),
	    c->leaf != NULL ? "x509Certificate" : "publicKey", b64) < 0)
		out = NULL;
	free(b64);
	return out;
}

/* The digest a hashedrekord 0.0.2 records: the artifact's with the
 * message signature's hash, or the PAE's with the key's (DSSE). */
static int
v2_digest(const sigstore_content *c, unsigned char out[64], size_t *len)
{
	const char *hash = sigstore_pkey_hash(c->key);
	unsigned char *p;
	size_t plen = 0;

	if (hash == NULL)
		return -1;
	if (!c->bundle->dsse) {
		if (c->hash == NULL)
			return -1;
		memcpy(out, c->msg_digest, c->msg_digest_len);
		*len = c->msg_digest_len;
		return *len > 0 ? 0 : -1;
	}
	p = pae(c->bundle, &plen);
	if (p == NULL)
		return -1;
	*len = sigstore_digest(hash, p, plen, out);
	free(p);
	return *len > 0 ? 0 : -1;
}

static int
v2_hashedrekord(const sigstore_content *c, const char *verifier,
    const char *sig, char **out)
{
	unsigned char digest[64];
	size_t dlen = 0;
	char *d64;
	int n;

	if (v2_digest(c, digest, &dlen) != 0 ||
	    (d64 = sigstore_base64_encode(digest, dlen)) == NULL)
		return -1;
	n = asprintf(out, "{\"apiVersion\":\"0.0.2\",\"kind\":\"hashedrekord\","
	    "\"spec\":{\"hashedRekordV002\":{\"data\":{\"algorithm\":\"%s\","
	    "\"digest\":\"%s\"},\"signature\":{\"content\":\"%s\",\"verifier\":"
	    "%s}}}}", c->bundle->dsse ? sigstore_pkey_hash_proto(c->key) :
	    c->hash->proto, d64, sig, verifier);
	free(d64);
	return n < 0 ? -1 : 0;
}

static int
v2_dsse(const sigstore_content *c, const char *verifier, const char *sig,
    char **out)
{
	unsigned char digest[PS_SHA256_LEN];
	char *d64;
	int n;

	if (!c->bundle->dsse || util_sha256_buffer(c->bundle->payload,
	    c->bundle->payload_len, digest) != 0 ||
	    (d64 = sigstore_base64_encode(digest, sizeof(digest))) == NULL)
		return -1;
	n = asprintf(out, "{\"apiVersion\":\"0.0.2\",\"kind\":\"dsse\",\"spec\":"
	    "{\"dsseV002\":{\"payloadHash\":{\"algorithm\":\"SHA2_256\","
	    "\"digest\":\"%s\"},\"signatures\":[{\"content\":\"%s\","
	    "\"verifier\":%s}]}}}", d64, sig, verifier);
	free(d64);
	return n < 0 ? -1 : 0;
}

int
sigstore_body_v2(const char *kind, const sigstore_content *c, char **out,
    size_t *len)
{
	char *verifier = verifier_json(c), *sig;
	int rc = -1;

	*out = NULL;
	sig = sigstore_base64_encode(c->bundle->signature,
	    c->bundle->signature_len);
	if (verifier != NULL && sig != NULL)
		rc = strcmp(kind, "dsse") == 0 ? v2_dsse(c, verifier, sig, out) :
		    v2_hashedrekord(c, verifier, sig, out);
	free(verifier);
	free(sig);
	if (rc == 0)
		*len = strlen(*out);
	return rc;
}

/* The member at a path of objects (an array's first item for "[0]"). */
static json_t *
path_get(json_t *v, const char *const *path, size_t n)
{
	size_t i;

	for (i = 0; i < n && v != NULL; i++)
		v = strcmp(path[i], "[0]") == 0 ? json_array_get(v, 0) :
		    json_object_get(v, path[i]);
	return v;
}

/* Which part of an authenticated Rekor v2 body differs from the one the
 * bundle makes, in words. */
static const char *
diagnose_v2(const char *want, const sigstore_entry *e)
{
	static const char *const hr_sig[] = { "spec", "hashedRekordV002",
	    "signature", "content" };
	static const char *const hr_ver[] = { "spec", "hashedRekordV002",
	    "signature", "verifier" };
	static const char *const ds_sig[] = { "spec", "dsseV002", "signatures",
	    "[0]", "content" };
	static const char *const ds_ver[] = { "spec", "dsseV002", "signatures",
	    "[0]", "verifier" };
	const char *what = "another digest of what was signed";
	json_t *w = json_loads(want, 0, NULL);
	json_t *g = json_loadb((const char *)e->body, e->body_len, 0, NULL);
	int dsse = strcmp(e->kind, "dsse") == 0;

	if (g == NULL || !json_is_object(g))
		what = "a body that is not JSON";
	else if (!json_equal(path_get(w, dsse ? ds_sig : hr_sig, dsse ? 5 : 4),
	    path_get(g, dsse ? ds_sig : hr_sig, dsse ? 5 : 4)))
		what = "another signature";
	else if (!json_equal(path_get(w, dsse ? ds_ver : hr_ver, dsse ? 5 : 4),
	    path_get(g, dsse ? ds_ver : hr_ver, dsse ? 5 : 4)))
		what = "another certificate or key";
	else if (json_equal(w, g))
		what = "the same entry in another JSON form (not canonical)";
	json_decref(w);
	json_decref(g);
	return what;
}

static int
check_v2(const sigstore_entry *e, const sigstore_content *c,
    const char *subject, ps_error *err)
{
	char what[160];
	char *want = NULL;
	size_t len = 0;
	int same;

	if (strcmp(e->kind, "hashedrekord") == 0 && message_digest_missing(c))
		return digest_unusable(err, subject, c);
	if (strcmp(e->kind, "dsse") == 0 && !c->bundle->dsse)
		return mismatch(err, subject, "a dsse entry for a message "
		    "signature");
	if (sigstore_body_v2(e->kind, c, &want, &len) != 0) {
		if (sigstore_pkey_hash(c->key) == NULL)
			return mismatch(err, subject, "a hashedrekord 0.0.2 entry "
			    "cannot record an Ed25519 signature over the message");
		return util_fail_oom(err, subject);
	}
	same = len == e->body_len && memcmp(want, e->body, len) == 0;
	if (!same)
		snprintf(what, sizeof(what), "the Rekor v2 entry made from the "
		    "bundle is not the log's: %s", diagnose_v2(want, e));
	free(want);
	return same ? 0 : mismatch(err, subject, what);
}

/* ------------------------------------------------------------ Rekor v1 */

static int
body_malformed(ps_error *err, const char *subject, const char *where)
{
	return util_refuse(err, "tlog_body_malformed", subject, "the log "
	    "entry's body is not a Rekor entry of its kind: %s", where);
}

/* A string at a path of nested objects, NULL when not there. */
static const char *
path_string(json_t *obj, const char *const *path, size_t n)
{
	size_t i;

	for (i = 0; i < n && json_is_object(obj); i++)
		obj = json_object_get(obj, path[i]);
	return i == n && json_is_string(obj) ? json_string_value(obj) : NULL;
}

/* The base64 of a PEM certificate or public key, equal to the bundle's
 * leaf or key (compared as DER, whatever the PEM's line breaks). */
static int
verifier_matches(const char *b64, const sigstore_content *c)
{
	unsigned char *pem = NULL;
	size_t len = 0;
	BIO *bio;
	X509 *x = NULL;
	EVP_PKEY *pk = NULL;
	int same = 0;

	if (b64 == NULL || sigstore_base64_decode(b64, strlen(b64), 65536, &pem,
	    &len) != 0)
		return 0;
	bio = BIO_new_mem_buf(pem, (int)len);
	if (bio != NULL && c->leaf != NULL &&
	    (x = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL)
		same = X509_cmp(x, c->leaf) == 0;
	else if (bio != NULL && c->leaf == NULL &&
	    (pk = PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL)) != NULL)
		same = EVP_PKEY_eq(pk, c->key->pkey) == 1;
	X509_free(x);
	EVP_PKEY_free(pk);
	BIO_free(bio);
	free(pem);
	ERR_clear_error();
	return same;
}

/* base64 of the bundle's signature, once or twice (intoto 0.0.2). */
static int
signature_matches(const char *b64, const sigstore_content *c, int twice)
{
	unsigned char *once = NULL, *sig = NULL;
	size_t len = 0, slen = 0;
	int same;

	if (b64 == NULL || sigstore_base64_decode(b64, strlen(b64),
	    SIGSTORE_BUNDLE_MAX_BYTES, &once, &len) != 0)
		return 0;
	if (twice && sigstore_base64_decode((char *)once, len, SIGSTORE_SIG_MAX,
	    &sig, &slen) != 0) {
		free(once);
		return 0;
	}
	if (!twice) {
		sig = once;
		slen = len;
		once = NULL;
	}
	same = slen == c->bundle->signature_len &&
	    memcmp(sig, c->bundle->signature, slen) == 0;
	free(once);
	free(sig);
	return same;
}

/* {"algorithm":"sha256","value":HEX} equal to `digest`. */
static int
hex_matches(const char *alg, const char *hex, const char *want_alg,
    const unsigned char *digest, size_t len)
{
	unsigned char got[64];

	return alg != NULL && hex != NULL && strcmp(alg, want_alg) == 0 &&
	    strlen(hex) == 2 * len && len <= sizeof(got) &&
	    util_hex_decode(hex, got, len) == 0 && memcmp(got, digest, len) == 0;
}

/* The artifact digest a hashedrekord 0.0.1 entry names: the artifact's
 * digest with the hash the message signature is over, by that hash's
 * name.  0 when it does; else a refusal. */
static int
artifact_matches(json_t *spec, const sigstore_content *c,
    const char *subject, ps_error *err)
{
	static const char *const alg[] = { "data", "hash", "algorithm" };
	static const char *const val[] = { "data", "hash", "value" };
	const char *a = path_string(spec, alg, 3), *v = path_string(spec, val, 3);
	char what[128];

	if (c->hash == NULL)          /* Ed25519: refused at step 7 */
		return hex_matches(a, v, "sha256", c->sha256, 32) ? 0 :
		    mismatch(err, subject, "another artifact digest");
	if (a == NULL || strcmp(a, c->hash->rekor) != 0) {
		snprintf(what, sizeof(what), "a %s digest of the artifact, where the "
		    "message signature is over its %s digest", a != NULL &&
		    strlen(a) < 16 ? a : "(no or long)", c->hash->rekor);
		return mismatch(err, subject, what);
	}
	if (c->msg_digest_len == 0)
		return digest_unusable(err, subject, c);
	if (!hex_matches(a, v, c->hash->rekor, c->msg_digest, c->msg_digest_len))
		return mismatch(err, subject, "another artifact digest");
	return 0;
}

static int
check_hashedrekord(json_t *spec, const sigstore_content *c,
    const char *subject, ps_error *err)
{
	static const char *const sig[] = { "signature", "content" };
	static const char *const key[] = { "signature", "publicKey", "content" };

	if (c->bundle->dsse)
		return mismatch(err, subject, "a hashedrekord 0.0.1 entry for a "
		    "DSSE envelope");
	if (!signature_matches(path_string(spec, sig, 2), c, 0))
		return mismatch(err, subject, "another signature");
	if (!verifier_matches(path_string(spec, key, 3), c))
		return mismatch(err, subject, c->leaf != NULL ? "another "
		    "certificate" : "another public key");
	return artifact_matches(spec, c, subject, err);
}

/* The payload's SHA-256 as {"algorithm":"sha256","value":HEX} at `obj`. */
static int
payload_matches(json_t *obj, const sigstore_content *c)
{
	unsigned char digest[PS_SHA256_LEN];

	return json_is_object(obj) &&
	    util_sha256_buffer(c->bundle->payload, c->bundle->payload_len,
	    digest) == 0 &&
	    hex_matches(path_string(obj, (const char *const[]){ "algorithm" }, 1),
	    path_string(obj, (const char *const[]){ "value" }, 1), "sha256",
	    digest, sizeof(digest));
}

/* dsse 0.0.1: payloadHash, and one signature with its verifier.  The
 * envelopeHash is not compared: it hashes the envelope's JSON as the
 * signer serialised it, which the bundle does not keep. */
static int
check_dsse(json_t *spec, const sigstore_content *c, const char *subject,
    ps_error *err)
{
	json_t *sigs = json_object_get(spec, "signatures"), *s;

	if (!c->bundle->dsse)
		return mismatch(err, subject, "a dsse entry for a message "
		    "signature");
	if (!payload_matches(json_object_get(spec, "payloadHash"), c))
		return mismatch(err, subject, "another payload hash");
	if (!json_is_array(sigs) || json_array_size(sigs) != 1)
		return mismatch(err, subject, "not exactly one signature");
	s = json_array_get(sigs, 0);
	if (!signature_matches(path_string(s, (const char *const[]){
	    "signature" }, 1), c, 0))
		return mismatch(err, subject, "another signature");
	if (!verifier_matches(path_string(s, (const char *const[]){ "verifier" },
	    1), c))
		return mismatch(err, subject, c->leaf != NULL ? "another "
		    "certificate" : "another public key");
	return 0;
}

/* intoto 0.0.2: the envelope's one signature (base64 of base64) and its
 * public key, and the payload hash. */
static int
check_intoto(json_t *spec, const sigstore_content *c, const char *subject,
    ps_error *err)
{
	static const char *const env[] = { "content", "envelope", "signatures" };
	json_t *content = json_object_get(spec, "content"), *sigs = spec, *s;
	size_t i;

	for (i = 0; i < 3 && json_is_object(sigs); i++)
		sigs = json_object_get(sigs, env[i]);
	if (!c->bundle->dsse)
		return mismatch(err, subject, "an intoto entry for a message "
		    "signature");
	if (!payload_matches(json_object_get(content, "payloadHash"), c))
		return mismatch(err, subject, "another payload hash");
	if (!json_is_array(sigs) || json_array_size(sigs) != 1)
		return mismatch(err, subject, "not exactly one signature");
	s = json_array_get(sigs, 0);
	if (!signature_matches(path_string(s, (const char *const[]){ "sig" }, 1),
	    c, 1))
		return mismatch(err, subject, "another signature");
	if (!verifier_matches(path_string(s, (const char *const[]){
	    "publicKey" }, 1), c))
		return mismatch(err, subject, c->leaf != NULL ? "another "
		    "certificate" : "another public key");
	return 0;
}

static int
check_v1(const sigstore_entry *e, const sigstore_content *c,
    const char *subject, ps_error *err)
{
	sigstore_doc d = { subject, "tlog_body_malformed", PS_STATUS_REFUSED };
	const char *kind, *version;
	json_t *body, *spec;
	ps_error ignored;
	int rc;

	if (sigstore_json_load(&d, (const char *)e->body, e->body_len, NULL,
	    &body, &ignored) != 0)
		return body_malformed(err, subject, "not JSON");
	kind = path_string(body, (const char *const[]){ "kind" }, 1);
	version = path_string(body, (const char *const[]){ "apiVersion" }, 1);
	spec = json_object_get(body, "spec");
	if (kind == NULL || version == NULL || !json_is_object(spec))
		rc = body_malformed(err, subject, "no kind, apiVersion or spec");
	else if (strcmp(kind, e->kind) != 0 || strcmp(version, e->version) != 0)
		rc = mismatch(err, subject, "its kind and apiVersion are not the "
		    "entry's kindVersion");
	else if (strcmp(kind, "hashedrekord") == 0)
		rc = check_hashedrekord(spec, c, subject, err);
	else if (strcmp(kind, "dsse") == 0)
		rc = check_dsse(spec, c, subject, err);
	else
		rc = check_intoto(spec, c, subject, err);
	json_decref(body);
	return rc;
}

int
sigstore_body_check(const sigstore_entry *e, const sigstore_content *c,
    const char *subject, ps_error *err)
{
	if (sigstore_body_rekor_version(e->kind, e->version) == 2)
		return check_v2(e, c, subject, err);
	return check_v1(e, c, subject, err);
}
