/* Sigstore bundles: one DSSE signature with a public key hint, out and in. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <sodium.h>

#include "sign/bundle.h"
#include "util/error.h"
#include "util/fdio.h"

/* The media types whose JSON shape packsign reads (they agree on it). */
static const char *const bundle_media_types[] = {
	"application/vnd.dev.sigstore.bundle+json;version=0.1",
	"application/vnd.dev.sigstore.bundle+json;version=0.2",
	SIGN_BUNDLE_MEDIA_TYPE,
};

char *
sign_bundle_path(const char *archive, size_t i)
{
	char *path = NULL;

	if (asprintf(&path, "%s.%zu.sigstore.json", archive, i + 1) < 0)
		return NULL;
	return path;
}

/* ------------------------------------------------------------ writing */

static json_t *
material_json(const char *hint)
{
	return json_pack("{s:{s:s}, s:[]}", "publicKey", "hint", hint,
	    "tlogEntries");
}

/* timestampVerificationData with one RFC 3161 token, base64 of its DER. */
static json_t *
timestamps_json(const unsigned char *der, size_t len)
{
	size_t cap = sodium_base64_ENCODED_LEN(len, sodium_base64_VARIANT_ORIGINAL);
	char *b64 = malloc(cap);
	json_t *v = NULL;

	if (b64 == NULL)
		return NULL;
	sodium_bin2base64(b64, cap, der, len, sodium_base64_VARIANT_ORIGINAL);
	v = json_pack("{s:[{s:s}]}", "rfc3161Timestamps", "signedTimestamp", b64);
	free(b64);
	return v;
}

static json_t *
material_with(const char *hint, const unsigned char *der, size_t len)
{
	json_t *m = material_json(hint), *ts;

	if (m == NULL || der == NULL)
		return m;
	ts = timestamps_json(der, len);
	if (ts == NULL || json_object_set_new(m, "timestampVerificationData",
	    ts) != 0) {
		json_decref(m);
		return NULL;
	}
	return m;
}

static json_t *
bundle_json(const sign_dsse_envelope *env, size_t i, const unsigned char *der,
    size_t der_len, ps_error *err)
{
	sign_dsse_envelope *one = NULL;
	json_t *dsse, *root;
	json_error_t jerr;
	char *text = NULL;
	size_t len = 0;

	if (sign_dsse_single(env, i, &one, err) != 0)
		return NULL;
	if (sign_dsse_serialize(one, &text, &len, err) != 0) {
		sign_dsse_free(one);
		return NULL;
	}
	sign_dsse_free(one);
	dsse = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	root = json_pack("{s:o?, s:s, s:o?}", "dsseEnvelope", dsse,
	    "mediaType", SIGN_BUNDLE_MEDIA_TYPE, "verificationMaterial",
	    material_with(sign_dsse_keyid(env, i), der, der_len));
	if (dsse == NULL || root == NULL) {
		json_decref(root);
		util_fail_oom(err, NULL);
		return NULL;
	}
	return root;
}

int
sign_bundle_serialize(const sign_dsse_envelope *env, size_t i, char **out,
    size_t *out_len, ps_error *err)
{
	return sign_bundle_serialize_timestamped(env, i, NULL, 0, out, out_len,
	    err);
}

int
sign_bundle_serialize_timestamped(const sign_dsse_envelope *env, size_t i,
    const unsigned char *der, size_t der_len, char **out, size_t *out_len,
    ps_error *err)
{
	json_t *root = bundle_json(env, i, der, der_len, err);

	*out = NULL;
	if (root == NULL)
		return -1;
	return sign_json_line(root, out, out_len, err);
}

/* ------------------------------------------------------------ reading */

static int
malformed(ps_error *err, const char *label, const char *what)
{
	return util_refuse(err, "bundle_malformed", label,
	    "not a valid Sigstore bundle: %s", what);
}

static int
check_media_type(json_t *root, const char *label, ps_error *err)
{
	json_t *v = json_object_get(root, "mediaType");
	const char *type;
	size_t i;

	if (!json_is_string(v))
		return malformed(err, label, v == NULL ? "\"mediaType\" is "
		    "missing" : "\"mediaType\" is not a string");
	type = json_string_value(v);
	for (i = 0; i < sizeof(bundle_media_types) /
	    sizeof(bundle_media_types[0]); i++) {
		if (strcmp(type, bundle_media_types[i]) == 0)
			return 0;
	}
	util_refuse(err, "bundle_unsupported", label, "a Sigstore bundle of "
	    "a media type packsign does not read");
	return util_error_expect(err, "bundle v0.1, v0.2 or v0.3 JSON",
	    strlen(type) <= 128 ? type : "a long media type");
}

static int
check_material(json_t *root, const char *label, int *keyless, ps_error *err)
{
	json_t *m = json_object_get(root, "verificationMaterial"), *key, *hint;

	if (!json_is_object(m))
		return malformed(err, label, "\"verificationMaterial\" is missing "
		    "or not an object");
	if (keyless != NULL && (json_object_get(m, "certificate") != NULL ||
	    json_object_get(m, "x509CertificateChain") != NULL)) {
		*keyless = 1;       /* its shape is sigstore/'s to check */
		return 0;
	}
	if (json_object_get(m, "certificate") != NULL ||
	    json_object_get(m, "x509CertificateChain") != NULL) {
		util_refuse(err, "bundle_keyless", label, "a certificate-based "
		    "(keyless) bundle: packsign verifies signatures with the "
		    "policy's keys only");
		return util_error_expect(err, "verificationMaterial.publicKey",
		    "a certificate");
	}
	key = json_object_get(m, "publicKey");
	if (!json_is_object(key))
		return malformed(err, label, "\"verificationMaterial.publicKey\" "
		    "is missing or not an object");
	hint = json_object_get(key, "hint");
	if (hint != NULL && !json_is_string(hint))
		return malformed(err, label, "\"publicKey.hint\" is not a string");
	return 0;
}

static int
read_dsse(json_t *root, const char *label, sign_dsse_envelope **out,
    ps_error *err)
{
	json_t *dsse = json_object_get(root, "dsseEnvelope");

	if (dsse == NULL && json_object_get(root, "messageSignature") != NULL)
		return util_refuse(err, "bundle_unsupported", label, "a bundle "
		    "with a message signature: packsign reads DSSE envelopes "
		    "only");
	if (!json_is_object(dsse))
		return malformed(err, label, "\"dsseEnvelope\" is missing or not "
		    "an object");
	/* Not re-encoded: jansson would write reals longer (0.1 as
	 * 0.10000000000000001) and the size bound is the bundle's, on the
	 * bytes as given. */
	return sign_dsse_from_json(dsse, label, out, err);
}

static int
parse_bundle(const void *bytes, size_t len, const char *label,
    sign_dsse_envelope **out, int *keyless, ps_error *err)
{
	json_error_t jerr;
	json_t *root;
	char what[256];
	int rc;

	*out = NULL;
	if (len > SIGN_DSSE_MAX_BYTES)
		return util_refuse(err, "envelope_too_large", label,
		    "the bundle is %zu bytes; the limit is %d", len,
		    SIGN_DSSE_MAX_BYTES);
	root = json_loadb(bytes, len, JSON_REJECT_DUPLICATES, &jerr);
	if (root == NULL) {
		snprintf(what, sizeof(what), "JSON error at line %d column %d: %s",
		    jerr.line, jerr.column, jerr.text);
		return malformed(err, label, what);
	}
	if (!json_is_object(root))
		rc = malformed(err, label, "the top level is not an object");
	else if ((rc = check_media_type(root, label, err)) == 0 &&
	    (rc = check_material(root, label, keyless, err)) == 0)
		rc = read_dsse(root, label, out, err);
	json_decref(root);
	return rc;
}

int
sign_bundle_parse(const void *bytes, size_t len, const char *label,
    sign_dsse_envelope **out, ps_error *err)
{
	return parse_bundle(bytes, len, label, out, NULL, err);
}

int
sign_bundle_parse_any(const void *bytes, size_t len, const char *label,
    sign_dsse_envelope **out, int *keyless, ps_error *err)
{
	*keyless = 0;
	return parse_bundle(bytes, len, label, out, keyless, err);
}
