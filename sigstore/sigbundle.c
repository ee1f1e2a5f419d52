/*
 * Bundles into fields: each field type-checked and bounded where it is
 * read, DER certificates parsed (nothing more: a chain is trusted only in
 * step 5), unknown fields ignored as protobuf readers do.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "sigstore/protojson.h"
#include "sigstore/sigbundle.h"
#include "sigstore/sigstore.h"
#include "util/error.h"
#include "util/fdio.h"

static const struct media_type {
	const char *name;
	int minor;
} media_types[] = {
	{ "application/vnd.dev.sigstore.bundle+json;version=0.1", 1 },
	{ "application/vnd.dev.sigstore.bundle+json;version=0.2", 2 },
	{ "application/vnd.dev.sigstore.bundle+json;version=0.3", 3 },
	{ "application/vnd.dev.sigstore.bundle.v0.3+json", 3 },
};

static void
entry_clear(sigstore_entry *e)
{
	free(e->set);
	free(e->hashes);
	free(e->checkpoint);
	free(e->body);
}

void
sigstore_bundle_free(sigstore_bundle *b)
{
	size_t i;

	if (b == NULL)
		return;
	free(b->key_hint);
	sk_X509_pop_free(b->certs, X509_free);
	for (i = 0; i < b->entry_count; i++)
		entry_clear(&b->entries[i]);
	free(b->entries);
	for (i = 0; i < b->timestamp_count; i++)
		free(b->timestamps[i]);
	free(b->timestamps);
	free(b->timestamp_lens);
	free(b->signature);
	free(b->payload);
	free(b->payload_type);
	free(b);
}

X509 *
sigstore_bundle_leaf(const sigstore_bundle *b)
{
	return b->certs != NULL && sk_X509_num(b->certs) > 0 ?
	    sk_X509_value(b->certs, 0) : NULL;
}

static int
read_media_type(const sigstore_doc *d, json_t *root, sigstore_bundle *b,
    ps_error *err)
{
	const char *type;
	size_t i;

	if (sigstore_json_string(d, root, "mediaType", NULL, 1, &type, err) != 0)
		return -1;
	for (i = 0; i < sizeof(media_types) / sizeof(*media_types); i++) {
		if (strcmp(type, media_types[i].name) == 0) {
			b->minor = media_types[i].minor;
			return 0;
		}
	}
	util_refuse(err, "bundle_unsupported", d->label, "a Sigstore bundle of "
	    "a media type packsign does not read");
	return util_error_expect(err, "bundle v0.1, v0.2 or v0.3 JSON",
	    strlen(type) <= 128 ? type : "a long media type");
}

/* A self-signed CA certificate: a trust anchor has no place in a bundle
 * (protobuf-specs; conformance bundle-with-root-cert_fail). */
static int
is_root(X509 *x)
{
	return X509_check_ca(x) != 0 &&
	    (X509_get_extension_flags(x) & EXFLAG_SS) != 0;
}

static int
read_cert(const sigstore_doc *d, json_t *obj, const char *at,
    sigstore_bundle *b, ps_error *err)
{
	unsigned char *der = NULL;
	const unsigned char *p;
	size_t len = 0;
	X509 *x;

	if (!json_is_object(obj))
		return sigstore_malformed(d, err, at, "not an object");
	if (sigstore_json_bytes(d, obj, "rawBytes", at, 1, SIGSTORE_CERT_MAX_BYTES,
	    &der, &len, err) != 0)
		return -1;
	p = der;
	x = d2i_X509(NULL, &p, (long)len);
	ERR_clear_error();
	if (x == NULL || p != der + len) {
		X509_free(x);
		free(der);
		return sigstore_malformed(d, err, at, "not a DER X.509 "
		    "certificate");
	}
	free(der);
	if (sk_X509_push(b->certs, x) <= 0) {
		X509_free(x);
		return util_fail_oom(err, d->label);
	}
	if (is_root(x))
		return util_refuse(err, "bundle_root_certificate", d->label, "%s: "
		    "a self-signed CA certificate (a root) in the bundle: roots of "
		    "trust come from the trusted root only", at);
	return 0;
}

static int
read_chain(const sigstore_doc *d, json_t *chain, const char *at,
    sigstore_bundle *b, ps_error *err)
{
	char arr[SIGSTORE_WHERE_MAX], item[SIGSTORE_WHERE_MAX];
	json_t *certs;
	size_t i;

	sigstore_where(arr, at, "certificates");
	if (sigstore_json_array(d, chain, "certificates", at, SIGSTORE_CHAIN_MAX,
	    &certs, err) != 0)
		return -1;
	if (certs == NULL || json_array_size(certs) == 0)
		return sigstore_malformed(d, err, arr, "empty: no leaf "
		    "certificate");
	for (i = 0; i < json_array_size(certs); i++) {
		sigstore_where_index(item, arr, i);
		if (read_cert(d, json_array_get(certs, i), item, b, err) != 0)
			return -1;
	}
	return 0;
}

/* publicKey, x509CertificateChain (v0.1, v0.2) or certificate (v0.3):
 * exactly one, of the form the version has. */
static int
read_key_material(const sigstore_doc *d, json_t *vm, sigstore_bundle *b,
    ps_error *err)
{
	static const char at[] = "verificationMaterial";
	json_t *key, *chain, *cert;
	const char *hint;
	int forms;

	if (sigstore_json_object(d, vm, "publicKey", at, 0, &key, err) != 0 ||
	    sigstore_json_object(d, vm, "x509CertificateChain", at, 0, &chain,
	    err) != 0 ||
	    sigstore_json_object(d, vm, "certificate", at, 0, &cert, err) != 0)
		return -1;
	forms = (key != NULL) + (chain != NULL) + (cert != NULL);
	if (forms != 1 || (b->minor < 3 && cert != NULL) ||
	    (b->minor == 3 && chain != NULL)) {
		util_refuse(err, "bundle_material", d->label, "%s: a bundle v0.%d "
		    "holds one of publicKey and %s", at, b->minor, b->minor < 3 ?
		    "x509CertificateChain" : "certificate");
		return util_error_expect(err, "one form", forms == 1 ?
		    "the other version's form" : forms == 0 ? "none" : "several");
	}
	b->certs = sk_X509_new_null();
	if (b->certs == NULL)
		return util_fail_oom(err, d->label);
	if (key != NULL) {
		b->material = SIGSTORE_MATERIAL_KEY;
		if (sigstore_json_string(d, key, "hint", "publicKey", 0, &hint,
		    err) != 0)
			return -1;
		b->key_hint = hint != NULL ? strdup(hint) : NULL;
		return hint != NULL && b->key_hint == NULL ?
		    util_fail_oom(err, d->label) : 0;
	}
	b->material = chain != NULL ? SIGSTORE_MATERIAL_CHAIN :
	    SIGSTORE_MATERIAL_CERTIFICATE;
	if (chain != NULL)
		return read_chain(d, chain, "x509CertificateChain", b, err);
	return read_cert(d, cert, "certificate", b, err);
}

static int
read_kind(const sigstore_doc *d, json_t *e, const char *at, sigstore_entry *out,
    ps_error *err)
{
	char kat[SIGSTORE_WHERE_MAX];
	const char *kind, *version;
	json_t *kv;

	sigstore_where(kat, at, "kindVersion");
	if (sigstore_json_object(d, e, "kindVersion", at, 1, &kv, err) != 0 ||
	    sigstore_json_string(d, kv, "kind", kat, 1, &kind, err) != 0 ||
	    sigstore_json_string(d, kv, "version", kat, 1, &version, err) != 0)
		return -1;
	if (strlen(kind) >= sizeof(out->kind) ||
	    strlen(version) >= sizeof(out->version))
		return sigstore_malformed(d, err, kat, "kind or version too long");
	snprintf(out->kind, sizeof(out->kind), "%s", kind);
	snprintf(out->version, sizeof(out->version), "%s", version);
	return 0;
}

static int
read_log_id(const sigstore_doc *d, json_t *e, const char *at,
    sigstore_entry *out, ps_error *err)
{
	char iat[SIGSTORE_WHERE_MAX];
	unsigned char *id = NULL;
	json_t *lid;

	sigstore_where(iat, at, "logId");
	if (sigstore_json_object(d, e, "logId", at, 1, &lid, err) != 0 ||
	    sigstore_json_bytes(d, lid, "keyId", iat, 1, SIGSTORE_LOG_ID_MAX, &id,
	    &out->log_id_len, err) != 0)
		return -1;
	memcpy(out->log_id, id, out->log_id_len);
	free(id);
	return 0;
}

static int
read_hashes(const sigstore_doc *d, json_t *proof, const char *at,
    sigstore_entry *out, ps_error *err)
{
	char item[SIGSTORE_WHERE_MAX], arr[SIGSTORE_WHERE_MAX];
	unsigned char *h = NULL;
	json_t *hashes;
	size_t i, len;

	sigstore_where(arr, at, "hashes");
	if (sigstore_json_array(d, proof, "hashes", at, SIGSTORE_PROOF_MAX,
	    &hashes, err) != 0)
		return -1;
	out->hash_count = hashes != NULL ? json_array_size(hashes) : 0;
	out->hashes = calloc(out->hash_count + 1, sizeof(*out->hashes));
	if (out->hashes == NULL)
		return util_fail_oom(err, d->label);
	for (i = 0; i < out->hash_count; i++) {
		sigstore_where_index(item, arr, i);
		if (sigstore_json_bytes_value(d, json_array_get(hashes, i), item,
		    32, &h, &len, err) != 0)
			return -1;
		memcpy(out->hashes[i], h, len);
		free(h);
		if (len != 32)
			return sigstore_malformed(d, err, item, "%zu bytes, not a "
			    "SHA-256 hash", len);
	}
	return 0;
}

static int
read_checkpoint(const sigstore_doc *d, json_t *proof, const char *at,
    sigstore_entry *out, ps_error *err)
{
	char cat[SIGSTORE_WHERE_MAX];
	const char *text;
	json_t *cp;

	sigstore_where(cat, at, "checkpoint");
	if (sigstore_json_object(d, proof, "checkpoint", at, 0, &cp, err) != 0 ||
	    (cp != NULL && sigstore_json_string(d, cp, "envelope", cat, 0, &text,
	    err) != 0))
		return -1;
	if (cp == NULL || text == NULL || text[0] == '\0')
		return 0;
	if (strlen(text) > SIGSTORE_CHECKPOINT_MAX)
		return sigstore_malformed(d, err, cat, "longer than %d bytes",
		    SIGSTORE_CHECKPOINT_MAX);
	out->checkpoint = strdup(text);
	return out->checkpoint == NULL ? util_fail_oom(err, d->label) : 0;
}

static int
read_proof(const sigstore_doc *d, json_t *e, const char *at,
    sigstore_entry *out, ps_error *err)
{
	char pat[SIGSTORE_WHERE_MAX];
	unsigned char *root = NULL;
	size_t len = 0;
	json_t *proof;
	int has_index, has_size;

	sigstore_where(pat, at, "inclusionProof");
	if (sigstore_json_object(d, e, "inclusionProof", at, 0, &proof, err) != 0)
		return -1;
	if (proof == NULL)
		return 0;
	out->has_proof = 1;
	if (sigstore_json_int64(d, proof, "logIndex", pat, 0, &out->proof_index,
	    &has_index, err) != 0 ||
	    sigstore_json_int64(d, proof, "treeSize", pat, 1, &out->tree_size,
	    &has_size, err) != 0 ||
	    sigstore_json_bytes(d, proof, "rootHash", pat, 1, 32, &root, &len,
	    err) != 0)
		return -1;
	memcpy(out->root_hash, root, len);
	free(root);
	if (len != 32)
		return sigstore_malformed(d, err, pat, "rootHash is %zu bytes, not "
		    "a SHA-256 hash", len);
	if (!has_size)
		return sigstore_malformed(d, err, pat, "treeSize missing");
	return read_hashes(d, proof, pat, out, err) != 0 ? -1 :
	    read_checkpoint(d, proof, pat, out, err);
}

static int
read_entry(const sigstore_doc *d, json_t *e, const char *at,
    sigstore_entry *out, ps_error *err)
{
	char pat[SIGSTORE_WHERE_MAX];
	json_t *promise;
	int has_index;

	if (!json_is_object(e))
		return sigstore_malformed(d, err, at, "not an object");
	sigstore_where(pat, at, "inclusionPromise");
	if (sigstore_json_int64(d, e, "logIndex", at, 0, &out->log_index,
	    &has_index, err) != 0 ||
	    read_log_id(d, e, at, out, err) != 0 ||
	    read_kind(d, e, at, out, err) != 0 ||
	    sigstore_json_int64(d, e, "integratedTime", at, 0,
	    &out->integrated_time, &out->has_integrated_time, err) != 0 ||
	    sigstore_json_object(d, e, "inclusionPromise", at, 0, &promise,
	    err) != 0 ||
	    (promise != NULL && sigstore_json_bytes(d, promise,
	    "signedEntryTimestamp", pat, 1, SIGSTORE_SIG_MAX, &out->set,
	    &out->set_len, err) != 0) ||
	    read_proof(d, e, at, out, err) != 0 ||
	    sigstore_json_bytes(d, e, "canonicalizedBody", at, 1,
	    SIGSTORE_BUNDLE_MAX_BYTES, &out->body, &out->body_len, err) != 0)
		return -1;
	/* protobuf's default: an integratedTime of 0 is no time at all */
	if (out->integrated_time == 0)
		out->has_integrated_time = 0;
	return 0;
}

static int
read_entries(const sigstore_doc *d, json_t *vm, sigstore_bundle *b,
    ps_error *err)
{
	char at[SIGSTORE_WHERE_MAX];
	json_t *arr;
	size_t i, n;

	if (sigstore_json_array(d, vm, "tlogEntries", "verificationMaterial",
	    SIGSTORE_TLOG_MAX, &arr, err) != 0)
		return -1;
	n = arr != NULL ? json_array_size(arr) : 0;
	b->entries = calloc(n + 1, sizeof(*b->entries));
	if (b->entries == NULL)
		return util_fail_oom(err, d->label);
	for (i = 0; i < n; i++) {
		sigstore_where_index(at, "tlogEntries", i);
		b->entry_count++;
		if (read_entry(d, json_array_get(arr, i), at, &b->entries[i],
		    err) != 0)
			return -1;
	}
	return 0;
}

static int
read_timestamps(const sigstore_doc *d, json_t *vm, sigstore_bundle *b,
    ps_error *err)
{
	static const char tat[] = "timestampVerificationData";
	char arr[SIGSTORE_WHERE_MAX], item[SIGSTORE_WHERE_MAX];
	json_t *tvd, *list, *ts;
	size_t i, n;

	sigstore_where(arr, tat, "rfc3161Timestamps");
	if (sigstore_json_object(d, vm, tat, "verificationMaterial", 0, &tvd,
	    err) != 0 || (tvd != NULL && sigstore_json_array(d, tvd,
	    "rfc3161Timestamps", tat, SIGSTORE_TIMESTAMP_MAX, &list, err) != 0))
		return -1;
	n = tvd != NULL && list != NULL ? json_array_size(list) : 0;
	b->timestamps = calloc(n + 1, sizeof(*b->timestamps));
	b->timestamp_lens = calloc(n + 1, sizeof(*b->timestamp_lens));
	if (b->timestamps == NULL || b->timestamp_lens == NULL)
		return util_fail_oom(err, d->label);
	for (i = 0; i < n; i++) {
		sigstore_where_index(item, arr, i);
		ts = json_array_get(list, i);
		if (!json_is_object(ts))
			return sigstore_malformed(d, err, item, "not an object");
		b->timestamp_count++;
		if (sigstore_json_bytes(d, ts, "signedTimestamp", item, 1,
		    SIGSTORE_TIMESTAMP_MAX_BYTES, &b->timestamps[i],
		    &b->timestamp_lens[i], err) != 0)
			return -1;
	}
	return 0;
}

static int
read_digest(const sigstore_doc *d, json_t *ms, sigstore_bundle *b,
    ps_error *err)
{
	static const char at[] = "messageSignature.messageDigest";
	unsigned char *digest = NULL;
	const char *alg;
	json_t *md;

	if (sigstore_json_object(d, ms, "messageDigest", "messageSignature", 0,
	    &md, err) != 0)
		return -1;
	if (md == NULL)
		return 0;
	if (sigstore_json_string(d, md, "algorithm", at, 1, &alg, err) != 0 ||
	    sigstore_json_bytes(d, md, "digest", at, 1, 64, &digest,
	    &b->digest_len, err) != 0)
		return -1;
	memcpy(b->digest, digest, b->digest_len);
	free(digest);
	if (strlen(alg) >= sizeof(b->digest_alg))
		return sigstore_malformed(d, err, at, "unknown algorithm");
	snprintf(b->digest_alg, sizeof(b->digest_alg), "%s", alg);
	return 0;
}

static int
read_dsse(const sigstore_doc *d, json_t *env, sigstore_bundle *b,
    ps_error *err)
{
	static const char at[] = "dsseEnvelope";
	const char *type;
	json_t *sigs;
	char found[32];

	b->dsse = 1;
	if (sigstore_json_bytes(d, env, "payload", at, 1,
	    SIGSTORE_BUNDLE_MAX_BYTES, &b->payload, &b->payload_len, err) != 0 ||
	    sigstore_json_string(d, env, "payloadType", at, 1, &type, err) != 0 ||
	    sigstore_json_array(d, env, "signatures", at, 64, &sigs, err) != 0)
		return -1;
	b->payload_type = strdup(type);
	if (b->payload_type == NULL)
		return util_fail_oom(err, d->label);
	if (sigs == NULL || json_array_size(sigs) != 1) {
		snprintf(found, sizeof(found), "%zu", sigs == NULL ? (size_t)0 :
		    json_array_size(sigs));
		util_refuse(err, "bundle_dsse_signatures", d->label, "counted the "
		    "signatures of the bundle's DSSE envelope, which carries exactly "
		    "one");
		return util_error_expect(err, "1", found);
	}
	if (!json_is_object(json_array_get(sigs, 0)))
		return sigstore_malformed(d, err, "dsseEnvelope.signatures[0]",
		    "not an object");
	return sigstore_json_bytes(d, json_array_get(sigs, 0), "sig",
	    "dsseEnvelope.signatures[0]", 1, SIGSTORE_SIG_MAX, &b->signature,
	    &b->signature_len, err);
}

static int
read_content(const sigstore_doc *d, json_t *root, sigstore_bundle *b,
    ps_error *err)
{
	json_t *ms, *env;

	if (sigstore_json_object(d, root, "messageSignature", NULL, 0, &ms,
	    err) != 0 ||
	    sigstore_json_object(d, root, "dsseEnvelope", NULL, 0, &env,
	    err) != 0)
		return -1;
	if ((ms == NULL) == (env == NULL))
		return sigstore_malformed(d, err, NULL, "a bundle holds one of "
		    "messageSignature and dsseEnvelope; this one has %s",
		    ms == NULL ? "neither" : "both");
	if (env != NULL)
		return read_dsse(d, env, b, err);
	if (read_digest(d, ms, b, err) != 0)
		return -1;
	return sigstore_json_bytes(d, ms, "signature", "messageSignature", 1,
	    SIGSTORE_SIG_MAX, &b->signature, &b->signature_len, err);
}

static int
read_bundle(const sigstore_doc *d, json_t *root, sigstore_bundle *b,
    ps_error *err)
{
	json_t *vm;

	if (!json_is_object(root))
		return sigstore_malformed(d, err, NULL, "the top level is not an "
		    "object");
	if (read_media_type(d, root, b, err) != 0 ||
	    sigstore_json_object(d, root, "verificationMaterial", NULL, 1, &vm,
	    err) != 0 ||
	    read_key_material(d, vm, b, err) != 0 ||
	    read_entries(d, vm, b, err) != 0 ||
	    read_timestamps(d, vm, b, err) != 0)
		return -1;
	return read_content(d, root, b, err);
}

int
sigstore_bundle_parse(const char *bytes, size_t len, const char *label,
    sigstore_bundle **out, ps_error *err)
{
	sigstore_doc d = { label, "bundle_malformed", PS_STATUS_REFUSED };
	sigstore_bundle *b;
	json_t *root;
	int rc;

	*out = NULL;
	if (len > SIGSTORE_BUNDLE_MAX_BYTES)
		return util_refuse(err, "bundle_malformed", label, "the bundle is "
		    "%zu bytes; the limit is %d", len, SIGSTORE_BUNDLE_MAX_BYTES);
	if (sigstore_json_load(&d, bytes, len, NULL, &root, err) != 0)
		return -1;
	b = calloc(1, sizeof(*b));
	if (b == NULL) {
		json_decref(root);
		return util_fail_oom(err, label);
	}
	rc = read_bundle(&d, root, b, err);
	json_decref(root);
	if (rc != 0) {
		sigstore_bundle_free(b);
		return -1;
	}
	*out = b;
	return 0;
}

int
sigstore_bundle_read(const char *path, sigstore_bundle **out, ps_error *err)
{
	char *buf = malloc(SIGSTORE_BUNDLE_MAX_BYTES + 1);
	ssize_t n = -1;
	int fd, rc = -1;

	*out = NULL;
	if (buf == NULL)
		return util_fail_oom(err, path);
	fd = util_open_file(path, err);
	if (fd >= 0) {
		n = util_read_full(fd, buf, SIGSTORE_BUNDLE_MAX_BYTES + 1);
		if (n < 0)
			util_fail_errno(err, "io_error", path, "read", errno);
		close(fd);
	}
	if (n > SIGSTORE_BUNDLE_MAX_BYTES)
		util_refuse(err, "bundle_malformed", path, "the bundle is over %d "
		    "bytes", SIGSTORE_BUNDLE_MAX_BYTES);
	else if (n >= 0)
		rc = sigstore_bundle_parse(buf, (size_t)n, path, out, err);
	free(buf);
	return rc;
}

/* The length of the array at obj.key1.key2, 0 when there is none. */
static size_t
array_len(json_t *obj, const char *key1, const char *key2)
{
	json_t *v = json_object_get(obj, key1);

	if (key2 != NULL)
		v = json_is_object(v) ? json_object_get(v, key2) : NULL;
	return json_is_array(v) ? json_array_size(v) : 0;
}

int
sigstore_evidence_count(const char *bytes, size_t len, const char *label,
    size_t *count, ps_error *err)
{
	sigstore_doc d = { label, "bundle_malformed", PS_STATUS_REFUSED };
	json_t *root, *vm;

	*count = 0;
	if (len > SIGSTORE_BUNDLE_MAX_BYTES)
		return util_refuse(err, "bundle_malformed", label, "the bundle is "
		    "%zu bytes; the limit is %d", len, SIGSTORE_BUNDLE_MAX_BYTES);
	if (sigstore_json_load(&d, bytes, len, NULL, &root, err) != 0)
		return -1;
	vm = json_object_get(root, "verificationMaterial");
	*count = array_len(vm, "tlogEntries", NULL) +
	    array_len(vm, "timestampVerificationData", "rfc3161Timestamps");
	json_decref(root);
	return 0;
}
