/* DSSE v1 envelopes: PAE, Ed25519 signing and verification, JSON. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <sodium.h>

#include "sign/dsse.h"
#include "util/error.h"
#include "util/fdio.h"

struct dsse_signature {
	char *keyid;
	unsigned char *sig;
	size_t sig_len;
};

struct sign_dsse_envelope {
	char *payload_type;
	unsigned char *payload;
	size_t payload_len;
	struct dsse_signature sigs[SIGN_DSSE_MAX_SIGNATURES];
	size_t sig_count;
};

static int
malformed(ps_error *err, const char *label, const char *what)
{
	return util_refuse(err, "envelope_malformed", label,
	    "not a valid DSSE envelope: %s", what);
}

int
sign_dsse_pae(const char *payload_type, const unsigned char *payload,
    size_t payload_len, unsigned char **out, size_t *out_len, ps_error *err)
{
	size_t type_len = strlen(payload_type), head_len;
	char head[64];
	unsigned char *buf;
	int n;

	*out = NULL;
	n = snprintf(head, sizeof(head), "DSSEv1 %zu ", type_len);
	if (n < 0 || (size_t)n >= sizeof(head))
		return util_fail(err, "internal_error", NULL, "PAE header");
	head_len = (size_t)n;
	if (payload_len > SIGN_DSSE_MAX_BYTES || type_len > SIGN_DSSE_MAX_BYTES)
		return util_fail(err, "invalid_argument", NULL, "PAE input too large");
	buf = malloc(head_len + type_len + 2 * 24 + payload_len);
	if (buf == NULL)
		return util_fail_oom(err, NULL);
	memcpy(buf, head, head_len);
	memcpy(buf + head_len, payload_type, type_len);
	n = snprintf((char *)buf + head_len + type_len, 48, " %zu ", payload_len);
	*out_len = head_len + type_len + (size_t)n;
	if (payload_len > 0)
		memcpy(buf + *out_len, payload, payload_len);
	*out_len += payload_len;
	*out = buf;
	return 0;
}

static int
check_payload_type(const char *type, ps_error *err)
{
	size_t i, len = strlen(type);

	if (len == 0 || len > SIGN_DSSE_MAX_PAYLOAD_TYPE)
		return util_fail(err, "invalid_argument", NULL,
		    "payload type must be 1 to %d bytes", SIGN_DSSE_MAX_PAYLOAD_TYPE);
	for (i = 0; i < len; i++) {
		if (type[i] < 0x21 || type[i] > 0x7e)
			return util_fail(err, "invalid_argument", NULL,
			    "payload type must be printable ASCII without spaces");
	}
	return 0;
}

int
sign_dsse_new(const char *payload_type, const unsigned char *payload,
    size_t payload_len, sign_dsse_envelope **out, ps_error *err)
{
	sign_dsse_envelope *env;

	*out = NULL;
	if (check_payload_type(payload_type, err) != 0)
		return -1;
	if (payload_len > SIGN_DSSE_MAX_BYTES / 2)
		return util_fail(err, "invalid_argument", NULL,
		    "payload of %zu bytes would not fit a %d-byte envelope",
		    payload_len, SIGN_DSSE_MAX_BYTES);
	env = calloc(1, sizeof(*env));
	if (env == NULL)
		return util_fail_oom(err, NULL);
	env->payload_type = strdup(payload_type);
	env->payload = malloc(payload_len > 0 ? payload_len : 1);
	if (env->payload_type == NULL || env->payload == NULL) {
		sign_dsse_free(env);
		return util_fail_oom(err, NULL);
	}
	if (payload_len > 0)
		memcpy(env->payload, payload, payload_len);
	env->payload_len = payload_len;
	*out = env;
	return 0;
}

void
sign_dsse_free(sign_dsse_envelope *env)
{
	size_t i;

	if (env == NULL)
		return;
	for (i = 0; i < env->sig_count; i++) {
		free(env->sigs[i].keyid);
		free(env->sigs[i].sig);
	}
	free(env->payload_type);
	free(env->payload);
	free(env);
}

static int
pae_of(const sign_dsse_envelope *env, unsigned char **pae, size_t *pae_len,
    ps_error *err)
{
	return sign_dsse_pae(env->payload_type, env->payload, env->payload_len,
	    pae, pae_len, err);
}

/* Ed25519 with raw key bytes: the signer's own check (refuse_resign). */
static int
verify_entry(const struct dsse_signature *s, const unsigned char *pae,
    size_t pae_len, const unsigned char *public_key)
{
	if (s->sig_len != SIGN_DSSE_SIG_LEN)
		return 0;
	return crypto_sign_verify_detached(s->sig, pae, pae_len,
	    public_key) == 0;
}

/* Any algorithm: Ed25519 or ECDSA P-256 (ps_key_verify_signature()). */
static int
verify_entry_key(const struct dsse_signature *s, const unsigned char *pae,
    size_t pae_len, const ps_pubkey *key)
{
	return ps_key_verify_signature(key, pae, pae_len, s->sig,
	    s->sig_len) == 0;
}

static int
check_keyid(const char *keyid, ps_error *err)
{
	size_t i, len = strlen(keyid);

	if (len > SIGN_DSSE_MAX_KEYID)
		return util_fail(err, "invalid_argument", NULL,
		    "key id over %d bytes", SIGN_DSSE_MAX_KEYID);
	for (i = 0; i < len; i++) {
		if (keyid[i] < 0x20 || keyid[i] > 0x7e)
			return util_fail(err, "invalid_argument", NULL,
			    "key id must be printable ASCII");
	}
	return 0;
}

/* One key signs once: Ed25519 is deterministic, a second entry adds nothing. */
static int
refuse_resign(const sign_dsse_envelope *env, const unsigned char *pae,
    size_t pae_len, const unsigned char *secret_key, ps_error *err)
{
	const unsigned char *public_key = secret_key + 32;
	size_t i;

	for (i = 0; i < env->sig_count; i++) {
		if (verify_entry(&env->sigs[i], pae, pae_len, public_key))
			return util_refuse(err, "already_signed", env->sigs[i].keyid,
			    "this key already signed the envelope (signature %zu)",
			    i + 1);
	}
	return 0;
}

/* A copy of `sig` and `keyid` in the next slot (the caller checked that
 * there is one, and what the bytes may be). */
static int
store_signature(sign_dsse_envelope *env, const unsigned char *sig,
    size_t sig_len, const char *keyid, ps_error *err)
{
	struct dsse_signature *s = &env->sigs[env->sig_count];

	s->sig = malloc(sig_len);
	s->keyid = strdup(keyid);
	if (s->sig == NULL || s->keyid == NULL) {
		free(s->sig);
		free(s->keyid);
		memset(s, 0, sizeof(*s));
		return util_fail_oom(err, NULL);
	}
	memcpy(s->sig, sig, sig_len);
	s->sig_len = sig_len;
	env->sig_count++;
	return 0;
}

/* Signs the PAE into the next slot. */
static int
append_signature(sign_dsse_envelope *env, const unsigned char *pae,
    size_t pae_len, const unsigned char *secret_key, const char *keyid,
    ps_error *err)
{
	unsigned char sig[SIGN_DSSE_SIG_LEN];

	if (crypto_sign_detached(sig, NULL, pae, pae_len, secret_key) != 0)
		return util_fail(err, "crypto_error", NULL, "Ed25519 signing failed");
	return store_signature(env, sig, sizeof(sig), keyid, err);
}

int
sign_dsse_sign(sign_dsse_envelope *env,
    const unsigned char secret_key[SIGN_DSSE_SECRET_KEY_LEN], const char *keyid,
    ps_error *err)
{
	unsigned char *pae = NULL;
	size_t pae_len = 0;
	int rc;

	if (keyid == NULL)
		keyid = "";
	if (check_keyid(keyid, err) != 0)
		return -1;
	if (env->sig_count >= SIGN_DSSE_MAX_SIGNATURES)
		return util_refuse(err, "too_many_signatures", NULL,
		    "an envelope holds at most %d signatures",
		    SIGN_DSSE_MAX_SIGNATURES);
	if (sodium_init() < 0)
		return util_fail(err, "crypto_error", NULL, "libsodium failed");
	if (pae_of(env, &pae, &pae_len, err) != 0)
		return -1;
	rc = refuse_resign(env, pae, pae_len, secret_key, err);
	if (rc == 0)
		rc = append_signature(env, pae, pae_len, secret_key, keyid, err);
	free(pae);
	return rc;
}

int
sign_dsse_add_signature(sign_dsse_envelope *env, const unsigned char *sig,
    size_t sig_len, const char *keyid, ps_error *err)
{
	if (keyid == NULL)
		keyid = "";
	if (check_keyid(keyid, err) != 0)
		return -1;
	if (sig_len == 0 || sig_len > SIGN_DSSE_MAX_SIG)
		return util_fail(err, "invalid_argument", NULL,
		    "a signature is 1 to %d bytes", SIGN_DSSE_MAX_SIG);
	if (env->sig_count >= SIGN_DSSE_MAX_SIGNATURES)
		return util_refuse(err, "too_many_signatures", NULL,
		    "an envelope holds at most %d signatures",
		    SIGN_DSSE_MAX_SIGNATURES);
	return store_signature(env, sig, sig_len, keyid, err);
}

/* ------------------------------------------------------------ JSON out */

static json_t *
base64_string(const unsigned char *bin, size_t len)
{
	size_t b64_len = sodium_base64_encoded_len(len,
	    sodium_base64_VARIANT_ORIGINAL);
	char *b64 = malloc(b64_len);
	json_t *s;

	if (b64 == NULL)
		return NULL;
	sodium_bin2base64(b64, b64_len, bin, len, sodium_base64_VARIANT_ORIGINAL);
	s = json_string(b64);
	free(b64);
	return s;
}

static json_t *
signatures_json(const sign_dsse_envelope *env)
{
	json_t *list = json_array(), *entry;
	size_t i;

	if (list == NULL)
		return NULL;
	for (i = 0; i < env->sig_count; i++) {
		entry = json_object();
		if (entry == NULL || json_array_append_new(list, entry) != 0 ||
		    json_object_set_new(entry, "keyid",
		    json_string(env->sigs[i].keyid)) != 0 ||
		    json_object_set_new(entry, "sig", base64_string(env->sigs[i].sig,
		    env->sigs[i].sig_len)) != 0) {
			json_decref(list);
			return NULL;
		}
	}
	return list;
}

static json_t *
envelope_json(const sign_dsse_envelope *env)
{
	json_t *root = json_object();

	if (root == NULL)
		return NULL;
	if (json_object_set_new(root, "payload", base64_string(env->payload,
	    env->payload_len)) != 0 ||
	    json_object_set_new(root, "payloadType",
	    json_string(env->payload_type)) != 0 ||
	    json_object_set_new(root, "signatures", signatures_json(env)) != 0) {
		json_decref(root);
		return NULL;
	}
	return root;
}

int
sign_json_line(json_t *root, char **out, size_t *out_len, ps_error *err)
{
	char *text, *line;
	size_t len;

	*out = NULL;
	text = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
	json_decref(root);
	if (text == NULL)
		return util_fail_oom(err, NULL);
	len = strlen(text);
	line = realloc(text, len + 2);
	if (line == NULL) {
		free(text);
		return util_fail_oom(err, NULL);
	}
	line[len] = '\n';
	line[len + 1] = '\0';
	*out = line;
	*out_len = len + 1;
	return 0;
}

int
sign_dsse_serialize(const sign_dsse_envelope *env, char **out, size_t *out_len,
    ps_error *err)
{
	json_t *root;

	*out = NULL;
	if (env->sig_count == 0)
		return util_fail(err, "invalid_argument", NULL,
		    "an envelope without signatures is not written");
	root = envelope_json(env);
	if (root == NULL)
		return util_fail_oom(err, NULL);
	return sign_json_line(root, out, out_len, err);
}

/* ------------------------------------------------------------- JSON in */

static const int base64_variants[] = {
	sodium_base64_VARIANT_ORIGINAL,
	sodium_base64_VARIANT_ORIGINAL_NO_PADDING,
	sodium_base64_VARIANT_URLSAFE,
	sodium_base64_VARIANT_URLSAFE_NO_PADDING
};

/* Standard or URL-safe, padded or not; nothing else, no whitespace. */
static int
decode_base64(const char *b64, size_t b64_len, unsigned char **out,
    size_t *out_len)
{
	size_t cap = b64_len / 4 * 3 + 3, i;
	unsigned char *bin = malloc(cap);

	if (bin == NULL)
		return -2;
	for (i = 0; i < sizeof(base64_variants) / sizeof(base64_variants[0]);
	    i++) {
		if (sodium_base642bin(bin, cap, b64, b64_len, NULL, out_len, NULL,
		    base64_variants[i]) == 0) {
			*out = bin;
			return 0;
		}
	}
	free(bin);
	return -1;
}

static int
get_string(json_t *obj, const char *key, int required, const char *label,
    const char **out, ps_error *err)
{
	json_t *v = json_object_get(obj, key);
	char what[128];

	*out = NULL;
	if (v == NULL && !required)
		return 0;
	if (v == NULL || !json_is_string(v)) {
		snprintf(what, sizeof(what), "\"%s\" %s", key,
		    v == NULL ? "is missing" : "is not a string");
		return malformed(err, label, what);
	}
	*out = json_string_value(v);
	return 0;
}

static int
get_base64(json_t *obj, const char *key, const char *label,
    unsigned char **out, size_t *out_len, ps_error *err)
{
	const char *text;
	char what[128];
	int rc;

	if (get_string(obj, key, 1, label, &text, err) != 0)
		return -1;
	rc = decode_base64(text, strlen(text), out, out_len);
	if (rc == -2)
		return util_fail_oom(err, NULL);
	if (rc != 0) {
		snprintf(what, sizeof(what), "\"%s\" is not base64 (standard or "
		    "URL-safe)", key);
		return malformed(err, label, what);
	}
	return 0;
}

static int
parse_signature(sign_dsse_envelope *env, json_t *entry, const char *label,
    ps_error *err)
{
	struct dsse_signature *s = &env->sigs[env->sig_count];
	const char *keyid;

	if (!json_is_object(entry))
		return malformed(err, label, "a signature is not an object");
	if (get_string(entry, "keyid", 0, label, &keyid, err) != 0)
		return -1;
	if (keyid != NULL && strlen(keyid) > SIGN_DSSE_MAX_KEYID)
		return malformed(err, label, "a keyid is too long");
	if (get_base64(entry, "sig", label, &s->sig, &s->sig_len, err) != 0)
		return -1;
	env->sig_count++;
	if (s->sig_len == 0 || s->sig_len > SIGN_DSSE_MAX_SIG)
		return malformed(err, label, "a sig is empty or too long");
	s->keyid = strdup(keyid != NULL ? keyid : "");
	return s->keyid == NULL ? util_fail_oom(err, NULL) : 0;
}

static int
parse_signatures(sign_dsse_envelope *env, json_t *root, const char *label,
    ps_error *err)
{
	json_t *list = json_object_get(root, "signatures");
	size_t i, n;

	if (list == NULL || !json_is_array(list))
		return malformed(err, label, list == NULL ?
		    "\"signatures\" is missing" : "\"signatures\" is not a list");
	n = json_array_size(list);
	if (n == 0 || n > SIGN_DSSE_MAX_SIGNATURES) {
		malformed(err, label, "wrong number of signatures");
		return util_error_expect(err, "1 to 64 signatures",
		    n == 0 ? "none" : "more than 64");
	}
	for (i = 0; i < n; i++) {
		if (parse_signature(env, json_array_get(list, i), label, err) != 0)
			return -1;
	}
	return 0;
}

static int
parse_root(sign_dsse_envelope *env, json_t *root, const char *label,
    ps_error *err)
{
	const char *type;

	if (!json_is_object(root))
		return malformed(err, label, "the top level is not an object");
	if (get_string(root, "payloadType", 1, label, &type, err) != 0)
		return -1;
	if (type[0] == '\0' || strlen(type) > SIGN_DSSE_MAX_PAYLOAD_TYPE)
		return malformed(err, label, "\"payloadType\" is empty or too long");
	env->payload_type = strdup(type);
	if (env->payload_type == NULL)
		return util_fail_oom(err, NULL);
	if (get_base64(root, "payload", label, &env->payload, &env->payload_len,
	    err) != 0)
		return -1;
	return parse_signatures(env, root, label, err);
}

int
sign_dsse_from_json(json_t *root, const char *label, sign_dsse_envelope **out,
    ps_error *err)
{
	sign_dsse_envelope *env;

	*out = NULL;
	env = calloc(1, sizeof(*env));
	if (env == NULL)
		return util_fail_oom(err, NULL);
	if (parse_root(env, root, label, err) != 0) {
		sign_dsse_free(env);
		return -1;
	}
	*out = env;
	return 0;
}

int
sign_dsse_parse(const void *bytes, size_t len, const char *label,
    sign_dsse_envelope **out, ps_error *err)
{
	json_error_t jerr;
	json_t *root;
	char what[256];
	int rc;

	*out = NULL;
	if (len > SIGN_DSSE_MAX_BYTES)
		return util_refuse(err, "envelope_too_large", label,
		    "the envelope is %zu bytes; the limit is %d", len,
		    SIGN_DSSE_MAX_BYTES);
	root = json_loadb(bytes, len, JSON_REJECT_DUPLICATES, &jerr);
	if (root == NULL) {
		snprintf(what, sizeof(what), "JSON error at line %d column %d: %s",
		    jerr.line, jerr.column, jerr.text);
		return malformed(err, label, what);
	}
	rc = sign_dsse_from_json(root, label, out, err);
	json_decref(root);
	return rc;
}

/* The first buffer for an envelope: its file's size and one byte (to see
 * it did not grow), not the 4 MiB bound, which a small pack's verify
 * would pay for in page faults. */
static size_t
first_capacity(int fd)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0 &&
	    (uint64_t)st.st_size < SIGN_DSSE_MAX_BYTES)
		return (size_t)st.st_size + 1;
	return 64 * 1024;
}

int
sign_dsse_read_bytes(int fd, const char *label, unsigned char **bytes,
    size_t *len, ps_error *err)
{
	size_t cap = first_capacity(fd), used = 0;
	unsigned char *buf = malloc(cap), *grown;
	ssize_t n = 0;

	*bytes = NULL;
	*len = 0;
	while (buf != NULL && (n = util_read_full(fd, buf + used,
	    cap - used)) == (ssize_t)(cap - used) && cap <= SIGN_DSSE_MAX_BYTES) {
		used = cap;
		cap = cap * 2 > SIGN_DSSE_MAX_BYTES + 1 ? SIGN_DSSE_MAX_BYTES + 1 :
		    cap * 2;
		if ((grown = realloc(buf, cap)) == NULL)
			free(buf);
		buf = grown;
	}
	if (buf == NULL)
		return util_fail_oom(err, NULL);
	if (n < 0) {
		free(buf);
		return util_fail_errno(err, "io_error", label, "read", errno);
	}
	used += (size_t)n;
	if (used > SIGN_DSSE_MAX_BYTES) {
		free(buf);
		return util_refuse(err, "envelope_too_large", label,
		    "the envelope is over %d bytes", SIGN_DSSE_MAX_BYTES);
	}
	*bytes = buf;
	*len = used;
	return 0;
}

int
sign_dsse_read_fd(int fd, const char *label, sign_dsse_envelope **out,
    ps_error *err)
{
	unsigned char *buf;
	size_t len;
	int rc;

	*out = NULL;
	if (sign_dsse_read_bytes(fd, label, &buf, &len, err) != 0)
		return -1;
	rc = sign_dsse_parse(buf, len, label, out, err);
	free(buf);
	return rc;
}

/* 1 when an entry's key id names `key`'s fingerprint: a hint of which
 * key to try, never a reason to accept one. */
int
sign_dsse_keyid_names(const sign_dsse_envelope *env, const ps_pubkey *key)
{
	char fp[PS_FINGERPRINT_MAX];
	size_t i;

	if (ps_pubkey_fingerprint(key, fp) != 0)
		return 0;
	for (i = 0; i < env->sig_count; i++) {
		if (strcmp(sign_dsse_keyid(env, i), fp) == 0)
			return 1;
	}
	return 0;
}

/* ------------------------------------------------- single and merged */

int
sign_dsse_single(const sign_dsse_envelope *env, size_t i,
    sign_dsse_envelope **out, ps_error *err)
{
	*out = NULL;
	if (i >= env->sig_count)
		return util_fail(err, "invalid_argument", NULL,
		    "no signature %zu", i + 1);
	/* Not sign_dsse_new(): a parsed envelope's payload type and size
	 * need not meet what this signer writes. */
	*out = calloc(1, sizeof(**out));
	if (*out == NULL)
		return util_fail_oom(err, NULL);
	(*out)->payload_type = strdup(env->payload_type);
	(*out)->payload = malloc(env->payload_len > 0 ? env->payload_len : 1);
	(*out)->payload_len = env->payload_len;
	if ((*out)->payload_type == NULL || (*out)->payload == NULL) {
		sign_dsse_free(*out);
		*out = NULL;
		return util_fail_oom(err, NULL);
	}
	if (env->payload_len > 0)
		memcpy((*out)->payload, env->payload, env->payload_len);
	if (store_signature(*out, env->sigs[i].sig, env->sigs[i].sig_len,
	    env->sigs[i].keyid, err) != 0) {
		sign_dsse_free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

int
sign_dsse_merge(sign_dsse_envelope *into, const sign_dsse_envelope *from,
    const char *label, ps_error *err)
{
	size_t i;

	if (!sign_dsse_payload_equal(into, from->payload_type, from->payload,
	    from->payload_len)) {
		util_refuse(err, "bundle_mismatch", label, "the bundles carry "
		    "different payloads: their signatures cannot be combined");
		return util_error_expect(err, "the payload of the first bundle",
		    "another payload");
	}
	if (into->sig_count + from->sig_count > SIGN_DSSE_MAX_SIGNATURES)
		return util_refuse(err, "too_many_signatures", label,
		    "an envelope holds at most %d signatures",
		    SIGN_DSSE_MAX_SIGNATURES);
	for (i = 0; i < from->sig_count; i++) {
		if (store_signature(into, from->sigs[i].sig,
		    from->sigs[i].sig_len, from->sigs[i].keyid, err) != 0)
			return -1;
	}
	return 0;
}

/* ----------------------------------------------------------- accessors */

size_t
sign_dsse_signature_count(const sign_dsse_envelope *env)
{
	return env->sig_count;
}

const char *
sign_dsse_keyid(const sign_dsse_envelope *env, size_t i)
{
	return i < env->sig_count ? env->sigs[i].keyid : NULL;
}

int
sign_dsse_signature_bytes(const sign_dsse_envelope *env, size_t i,
    const unsigned char **sig, size_t *len)
{
	if (i >= env->sig_count)
		return -1;
	*sig = env->sigs[i].sig;
	*len = env->sigs[i].sig_len;
	return 0;
}

const char *
sign_dsse_payload_type(const sign_dsse_envelope *env)
{
	return env->payload_type;
}

int
sign_dsse_verify(const sign_dsse_envelope *env, const ps_pubkey *key,
    sign_dsse_verification *out, ps_error *err)
{
	unsigned char *pae = NULL;
	size_t pae_len = 0, i;

	memset(out, 0, sizeof(*out));
	out->signature_count = env->sig_count;
	if (sodium_init() < 0)
		return util_fail(err, "crypto_error", NULL, "libsodium failed");
	if (pae_of(env, &pae, &pae_len, err) != 0)
		return -1;
	for (i = 0; i < env->sig_count; i++) {
		out->verified[i] = (unsigned char)verify_entry_key(&env->sigs[i],
		    pae, pae_len, key);
		out->verified_count += out->verified[i];
	}
	free(pae);
	if (out->verified_count == 0) {
		util_refuse(err, "signature_invalid", NULL,
		    "none of the %zu signatures verifies with this key",
		    env->sig_count);
		return util_error_expect(err, key->alg == PS_KEY_ECDSA_P256 ?
		    "a valid ECDSA P-256 signature over the DSSE v1 PAE" :
		    "a valid Ed25519 signature over the DSSE v1 PAE", "none");
	}
	out->payload = env->payload;
	out->payload_len = env->payload_len;
	out->payload_type = env->payload_type;
	return 0;
}

int
sign_dsse_payload_equal(const sign_dsse_envelope *env, const char *payload_type,
    const unsigned char *payload, size_t payload_len)
{
	return strcmp(env->payload_type, payload_type) == 0 &&
	    env->payload_len == payload_len &&
	    (payload_len == 0 || memcmp(env->payload, payload, payload_len) == 0);
}

int
sign_dsse_payload_to_cosign(const sign_dsse_envelope *env,
    const unsigned char **payload, size_t *len)
{
	if (strcmp(env->payload_type, SIGN_DSSE_INTOTO_TYPE) != 0)
		return -1;
	*payload = env->payload;
	*len = env->payload_len;
	return 0;
}

/* ------------------------------------------------- bounded key search */

#define NO_KEY ((size_t)-1)

/* sign_dsse_match_keys()'s work: the PAE once, each candidate's
 * fingerprint once, what each key and entry came to. */
struct matcher {
	const sign_dsse_envelope *env;
	const ps_pubkey *const *keys;
	size_t n, searched;
	unsigned char *pae;
	size_t pae_len;
	char (*fp)[PS_FINGERPRINT_MAX];
	size_t *owner;                       /* per key: the entry it
	                                      * verified, or NO_KEY */
	unsigned char *tried;                /* per key: checked by name */
	size_t named[SIGN_DSSE_MAX_SIGNATURES];  /* the key an entry names */
	unsigned char named_checked[SIGN_DSSE_MAX_SIGNATURES];
	sign_dsse_match *out;
};

/* One check: entry i with key k, counted. */
static int
check_pair(struct matcher *m, size_t i, size_t k)
{
	m->out->checks++;
	if (k == m->named[i])
		m->named_checked[i] = 1;
	if (!verify_entry_key(&m->env->sigs[i], m->pae, m->pae_len, m->keys[k]))
		return 0;
	m->out->outcome[i] = SIGN_DSSE_VERIFIED;
	m->out->key[i] = k;
	m->owner[k] = i;
	return 1;
}

static size_t
named_key(const struct matcher *m, size_t i)
{
	size_t k;

	for (k = 0; k < m->n; k++) {
		if (strcmp(m->env->sigs[i].keyid, m->fp[k]) == 0)
			return k;
	}
	return NO_KEY;
}

/* Round 1: each key checked at most once, with the first entry that
 * names it. */
static void
match_named(struct matcher *m)
{
	size_t i, k;

	for (i = 0; i < m->env->sig_count; i++) {
		if ((k = m->named[i] = named_key(m, i)) == NO_KEY)
			continue;
		if (m->owner[k] != NO_KEY) {
			m->out->outcome[i] = SIGN_DSSE_DUPLICATE;
			m->out->key[i] = m->owner[k];
		} else if (!m->tried[k]) {
			m->tried[k] = 1;
			(void)check_pair(m, i, k);
		}
	}
}

/* Round 2 for entry i: 1 when it was checked with every key it could
 * be (verified or not), 0 when the bound came first. */
static int
search_entry(struct matcher *m, size_t i)
{
	size_t k;

	for (k = 0; k < m->searched; k++) {
		if (m->owner[k] != NO_KEY ||
		    (k == m->named[i] && m->named_checked[i]))
			continue;
		if (m->out->checks >= m->out->bound)
			return 0;
		if (check_pair(m, i, k))
			return 1;
	}
	return 1;
}

static void
match_search(struct matcher *m)
{
	sign_dsse_outcome *o = m->out->outcome;
	size_t i;

	for (i = 0; i < m->env->sig_count; i++) {
		if (o[i] == SIGN_DSSE_VERIFIED || o[i] == SIGN_DSSE_DUPLICATE)
			continue;
		if (!search_entry(m, i) && !m->named_checked[i])
			o[i] = SIGN_DSSE_UNCHECKED;
	}
}

static int
matcher_start(struct matcher *m, ps_error *err)
{
	size_t k;

	if (sodium_init() < 0)
		return util_fail(err, "crypto_error", NULL, "libsodium failed");
	m->fp = calloc(m->n + 1, sizeof(*m->fp));
	m->owner = calloc(m->n + 1, sizeof(*m->owner));
	m->tried = calloc(m->n + 1, 1);
	if (m->fp == NULL || m->owner == NULL || m->tried == NULL)
		return util_fail_oom(err, NULL);
	for (k = 0; k < m->n; k++) {
		m->owner[k] = NO_KEY;
		if (ps_pubkey_fingerprint(m->keys[k], m->fp[k]) != 0)
			m->fp[k][0] = '\0';
	}
	return pae_of(m->env, &m->pae, &m->pae_len, err);
}

static void
match_result(const struct matcher *m)
{
	sign_dsse_verification *v = &m->out->verification;
	size_t i;

	v->signature_count = m->env->sig_count;
	for (i = 0; i < m->env->sig_count; i++) {
		v->verified[i] = m->out->outcome[i] == SIGN_DSSE_VERIFIED;
		v->verified_count += v->verified[i];
	}
	if (v->verified_count == 0)
		return;
	v->payload = m->env->payload;
	v->payload_len = m->env->payload_len;
	v->payload_type = m->env->payload_type;
}

int
sign_dsse_match_keys(const sign_dsse_envelope *env,
    const ps_pubkey *const *keys, size_t n, size_t searched,
    sign_dsse_match *out, ps_error *err)
{
	struct matcher m;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&m, 0, sizeof(m));
	out->bound = SIGN_DSSE_EXTRA_CHECKS + n;
	m.env = env;
	m.keys = keys;
	m.n = n;
	m.searched = searched < n ? searched : n;
	m.out = out;
	rc = matcher_start(&m, err);
	if (rc == 0) {
		match_named(&m);
		match_search(&m);
		match_result(&m);
	}
	free(m.pae);
	free(m.fp);
	free(m.owner);
	free(m.tried);
	return rc;
}
