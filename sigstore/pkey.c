/*
 * Public keys through OpenSSL: which algorithm a key is (a curve packsign
 * does not know, an RSA key outside 2048 to 8192 bits or an invalid point
 * is no key), its DER form for comparisons, and signature checks.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include "keys/keys.h"
#include "sigstore/pkey.h"

/* By sigstore_key_kind. */
static const struct key_info {
	const char *details;
	const char *hash;          /* OpenSSL's name; NULL: none */
	const char *hash_proto;
} key_infos[] = {
	{ "PKIX_ECDSA_P256_SHA_256", "SHA2-256",
	    "SHA2_256" },
	{ "PKIX_ECDSA_P384_SHA_384", "SHA2-384",
	    "SHA2_384" },
	{ "PKIX_ECDSA_P521_SHA_512", "SHA2-512",
	    "SHA2_512" },
	{ "PKIX_ED25519", NULL, NULL },
	{ "PKIX_RSA_PKCS1V15_2048_SHA256", "SHA2-256",
	    "SHA2_256" },
};

static const struct key_info *
info_of(const sigstore_pkey *key)
{
	return &key_infos[key->kind];
}

/* The curve of an EC key; -1 for another curve or explicit parameters. */
static int
ec_kind(EVP_PKEY *pkey, sigstore_key_kind *kind)
{
	char group[64] = "";
	size_t len = 0;

	if (EVP_PKEY_get_utf8_string_param(pkey, OSSL_PKEY_PARAM_GROUP_NAME,
	    group, sizeof(group), &len) != 1)
		return -1;
	if (strcmp(group, "prime256v1") == 0 || strcmp(group, "P-256") == 0)
		*kind = SIGSTORE_KEY_ECDSA_P256;
	else if (strcmp(group, "secp384r1") == 0 || strcmp(group, "P-384") == 0)
		*kind = SIGSTORE_KEY_ECDSA_P384;
	else if (strcmp(group, "secp521r1") == 0 || strcmp(group, "P-521") == 0)
		*kind = SIGSTORE_KEY_ECDSA_P521;
	else
		return -1;
	return 0;
}

/* The kind of a key OpenSSL accepted, checked: -1 when unusable. */
static int
classify(EVP_PKEY *pkey, sigstore_key_kind *kind)
{
	EVP_PKEY_CTX *ctx;
	int ok, bits;

	if (EVP_PKEY_is_a(pkey, "ED25519")) {
		*kind = SIGSTORE_KEY_ED25519;
		return 0;
	}
	if (EVP_PKEY_is_a(pkey, "RSA")) {
		bits = EVP_PKEY_get_bits(pkey);
		*kind = SIGSTORE_KEY_RSA;
		return bits >= 2048 && bits <= 8192 ? 0 : -1;
	}
	if (!EVP_PKEY_is_a(pkey, "EC") || ec_kind(pkey, kind) != 0)
		return -1;
	ctx = EVP_PKEY_CTX_new(pkey, NULL);
	ok = ctx != NULL && EVP_PKEY_public_check(ctx) == 1;
	EVP_PKEY_CTX_free(ctx);
	return ok ? 0 : -1;
}

int
sigstore_pkey_from_evp(EVP_PKEY *pkey, sigstore_pkey **out)
{
	sigstore_pkey *k;
	unsigned char *der = NULL;
	int len;

	*out = NULL;
	k = calloc(1, sizeof(*k));
	if (k == NULL)
		return -1;
	len = i2d_PUBKEY(pkey, &der);
	if (len <= 0 || classify(pkey, &k->kind) != 0) {
		OPENSSL_free(der);
		free(k);
		ERR_clear_error();
		return -1;
	}
	k->spki = malloc((size_t)len);
	if (k->spki == NULL || EVP_PKEY_up_ref(pkey) != 1) {
		OPENSSL_free(der);
		free(k->spki);
		free(k);
		return -1;
	}
	memcpy(k->spki, der, (size_t)len);
	k->spki_len = (size_t)len;
	OPENSSL_free(der);
	k->pkey = pkey;
	*out = k;
	return 0;
}

int
sigstore_pkey_from_spki(const unsigned char *der, size_t len, int pkcs1,
    sigstore_pkey **out)
{
	const unsigned char *p = der;
	EVP_PKEY *pkey;
	int rc;

	*out = NULL;
	if (len == 0 || len > 16384)
		return -1;
	pkey = pkcs1 ? d2i_PublicKey(EVP_PKEY_RSA, NULL, &p, (long)len) :
	    d2i_PUBKEY(NULL, &p, (long)len);
	if (pkey == NULL || p != der + len) {
		EVP_PKEY_free(pkey);
		ERR_clear_error();
		return -1;
	}
	rc = sigstore_pkey_from_evp(pkey, out);
	EVP_PKEY_free(pkey);
	return rc;
}

int
sigstore_pkey_from_pubkey(const ps_pubkey *key, sigstore_pkey **out)
{
	unsigned char der[KEYS_ECDSA_SPKI_LEN];
	EVP_PKEY *pkey;
	int rc;

	*out = NULL;
	if (key->alg == PS_KEY_ECDSA_P256) {
		keys_ecdsa_spki(key->ecdsa_point, der);
		return sigstore_pkey_from_spki(der, sizeof(der), 0, out);
	}
	pkey = EVP_PKEY_new_raw_public_key_ex(NULL, "ED25519", NULL, key->key,
	    PS_ED25519_PUBLIC_LEN);
	if (pkey == NULL) {
		ERR_clear_error();
		return -1;
	}
	rc = sigstore_pkey_from_evp(pkey, out);
	EVP_PKEY_free(pkey);
	return rc;
}

/* 1 when only blanks come before `start`. */
static int
blank_before(const char *text, const char *start)
{
	for (; text < start; text++) {
		if (*text != ' ' && *text != '\t' && *text != '\r' &&
		    *text != '\n')
			return 0;
	}
	return 1;
}

int
sigstore_pkey_from_pem(const char *text, size_t len, sigstore_pkey **out)
{
	static const char begin[] = "-----BEGIN PUBLIC KEY-----";
	BIO *bio;
	EVP_PKEY *pkey;
	const char *start;
	int rc;

	*out = NULL;
	start = len <= 65536 ? memmem(text, len, begin, sizeof(begin) - 1) : NULL;
	if (start == NULL || !blank_before(text, start))
		return -1;
	bio = BIO_new_mem_buf(text, (int)len);
	pkey = bio != NULL ? PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL) : NULL;
	BIO_free(bio);
	ERR_clear_error();
	if (pkey == NULL)
		return -1;
	rc = sigstore_pkey_from_evp(pkey, out);
	EVP_PKEY_free(pkey);
	return rc;
}

void
sigstore_pkey_free(sigstore_pkey *key)
{
	if (key == NULL)
		return;
	EVP_PKEY_free(key->pkey);
	free(key->spki);
	free(key);
}

int
sigstore_pkey_equal(const sigstore_pkey *a, const sigstore_pkey *b)
{
	return a != NULL && b != NULL && a->spki_len == b->spki_len &&
	    memcmp(a->spki, b->spki, a->spki_len) == 0;
}

const char *
sigstore_pkey_details(const sigstore_pkey *key)
{
	return info_of(key)->details;
}

const char *
sigstore_pkey_hash(const sigstore_pkey *key)
{
	return info_of(key)->hash;
}

const char *
sigstore_pkey_hash_proto(const sigstore_pkey *key)
{
	return info_of(key)->hash_proto;
}

int
sigstore_pkey_verify(const sigstore_pkey *key, const void *msg, size_t len,
    const unsigned char *sig, size_t sig_len)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int ok;

	ok = ctx != NULL && sig_len > 0 && sig_len <= SIGSTORE_SIG_MAX &&
	    EVP_DigestVerifyInit_ex(ctx, NULL, info_of(key)->hash, NULL, NULL,
	    key->pkey, NULL) == 1 &&
	    EVP_DigestVerify(ctx, sig, sig_len, msg, len) == 1;
	EVP_MD_CTX_free(ctx);
	ERR_clear_error();
	return ok ? 0 : -1;
}

int
sigstore_pkey_verify_digest(const sigstore_pkey *key, const char *hash,
    const unsigned char *digest, size_t digest_len, const unsigned char *sig,
    size_t sig_len)
{
	EVP_PKEY_CTX *ctx = NULL;
	EVP_MD *md = NULL;
	int ok = 0;

	if (info_of(key)->hash == NULL || hash == NULL || sig_len == 0 ||
	    sig_len > SIGSTORE_SIG_MAX)
		return -1;
	md = EVP_MD_fetch(NULL, hash, NULL);
	if (md != NULL && (size_t)EVP_MD_get_size(md) == digest_len) {
		ctx = EVP_PKEY_CTX_new(key->pkey, NULL);
		ok = ctx != NULL && EVP_PKEY_verify_init(ctx) == 1 &&
		    EVP_PKEY_CTX_set_signature_md(ctx, md) == 1 &&
		    EVP_PKEY_verify(ctx, sig, sig_len, digest, digest_len) == 1;
	}
	EVP_PKEY_CTX_free(ctx);
	EVP_MD_free(md);
	ERR_clear_error();
	return ok ? 0 : -1;
}

size_t
sigstore_digest(const char *md, const void *data, size_t len,
    unsigned char out[64])
{
	unsigned int n = 0;
	EVP_MD *m = EVP_MD_fetch(NULL, md, NULL);
	int ok = m != NULL && EVP_MD_get_size(m) <= 64 &&
	    EVP_Digest(data, len, out, &n, m, NULL) == 1;

	EVP_MD_free(m);
	ERR_clear_error();
	return ok ? (size_t)n : 0;
}
