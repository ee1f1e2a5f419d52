/*
 * ECDSA P-256 public keys through OpenSSL: reading one from a decoded
 * SubjectPublicKeyInfo, its canonical DER form (named curve, uncompressed
 * point), PEM output and signature verification (SHA-256, ASN.1 DER
 * signatures).  packsign never signs with ECDSA (docs/formats/keys.md).
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "keys/keys.h"
#include "util/error.h"
#include "util/sha256.h"

/* The EVP_PKEY of a stored point; NULL when OpenSSL refuses it. */
static EVP_PKEY *
ecdsa_pkey(const ps_pubkey *key)
{
	unsigned char der[KEYS_ECDSA_SPKI_LEN];
	const unsigned char *p = der;

	keys_ecdsa_spki(key->ecdsa_point, der);
	return d2i_PUBKEY(NULL, &p, (long)sizeof(der));
}

static int
refuse_curve(const char *curve, const char *name, ps_error *err)
{
	util_fail(err, "key_unsupported_algorithm", name, "an ECDSA public key "
	    "must be on P-256 (prime256v1); this one is on %s", curve);
	return util_error_expect(err, "prime256v1", curve);
}

/* OpenSSL's full public key check: on the curve, not infinity, in the
 * group of prime order (P-256 has cofactor 1). */
static int
check_point(EVP_PKEY *pkey, const char *name, ps_error *err)
{
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(pkey, NULL);
	int ok = ctx != NULL && EVP_PKEY_public_check(ctx) == 1;

	EVP_PKEY_CTX_free(ctx);
	ERR_clear_error();
	if (!ok)
		return util_fail(err, "key_malformed", name, "the ECDSA public key "
		    "is not a valid P-256 point (off the curve or infinity)");
	return 0;
}

/* The affine coordinates as the uncompressed point 04 || X || Y. */
static int
get_point(EVP_PKEY *pkey, unsigned char point[PS_ECDSA_P256_PUBLIC_LEN])
{
	BIGNUM *x = NULL, *y = NULL;
	int ok;

	ok = EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_EC_PUB_X, &x) == 1 &&
	    EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_EC_PUB_Y, &y) == 1 &&
	    BN_bn2binpad(x, point + 1, 32) == 32 &&
	    BN_bn2binpad(y, point + 33, 32) == 32;
	point[0] = 0x04;
	BN_free(x);
	BN_free(y);
	return ok ? 0 : -1;
}

int
keys_ecdsa_from_pkey(EVP_PKEY *pkey, const char *name, ps_pubkey **out,
    ps_error *err)
{
	unsigned char der[KEYS_ECDSA_SPKI_LEN], digest[PS_SHA256_LEN];
	char curve[64] = "";
	size_t n = 0;

	*out = NULL;
	if (EVP_PKEY_get_group_name(pkey, curve, sizeof(curve), &n) != 1 ||
	    n == 0) {
		ERR_clear_error();
		return refuse_curve("an unnamed curve", name, err);
	}
	if (strcmp(curve, "prime256v1") != 0 && strcmp(curve, "P-256") != 0)
		return refuse_curve(curve, name, err);
	if (check_point(pkey, name, err) != 0 || ps_pubkey_new(out, err) != 0)
		return -1;
	(*out)->alg = PS_KEY_ECDSA_P256;
	(*out)->source = PS_KEY_SOURCE_PEM;
	if (get_point(pkey, (*out)->ecdsa_point) != 0) {
		ERR_clear_error();
		ps_pubkey_free(*out);
		*out = NULL;
		return util_fail(err, "key_malformed", name,
		    "cannot read the ECDSA public key's point");
	}
	keys_ecdsa_spki((*out)->ecdsa_point, der);
	if (util_sha256_buffer(der, sizeof(der), digest) == 0)
		memcpy((*out)->key_id, digest, PS_KEY_ID_LEN);
	return 0;
}

int
keys_ecdsa_format_pem(const ps_pubkey *key, char **out, ps_error *err)
{
	EVP_PKEY *pkey = ecdsa_pkey(key);
	BIO *bio = BIO_new(BIO_s_mem());
	char *data = NULL;
	long n = 0;

	*out = NULL;
	if (pkey == NULL || bio == NULL || PEM_write_bio_PUBKEY(bio, pkey) != 1 ||
	    (n = BIO_get_mem_data(bio, &data)) <= 0 ||
	    (*out = strndup(data, (size_t)n)) == NULL) {
		ERR_clear_error();
		util_fail(err, "io_error", "", "cannot write PEM public key");
	}
	BIO_free(bio);
	EVP_PKEY_free(pkey);
	return *out != NULL ? 0 : -1;
}

/*
 * 1 when `sig` is exactly the DER encoding OpenSSL writes for the value it
 * decodes to: BER forms (long lengths, padded integers) and trailing bytes
 * are refused before any verification.
 */
static int
strict_der(const unsigned char *sig, size_t sig_len)
{
	const unsigned char *p = sig;
	unsigned char *der = NULL;
	ECDSA_SIG *s;
	int n, ok = 0;

	if (sig_len == 0 || sig_len > KEYS_ECDSA_SIG_MAX)
		return 0;
	s = d2i_ECDSA_SIG(NULL, &p, (long)sig_len);
	if (s != NULL && p == sig + sig_len) {
		n = i2d_ECDSA_SIG(s, &der);
		ok = n > 0 && (size_t)n == sig_len && memcmp(der, sig, sig_len) == 0;
	}
	OPENSSL_free(der);
	ECDSA_SIG_free(s);
	return ok;
}

int
keys_ecdsa_verify(const ps_pubkey *key, const void *msg, size_t len,
    const unsigned char *sig, size_t sig_len)
{
	EVP_MD_CTX *md;
	EVP_PKEY *pkey;
	int ok = 0;

	if (key->alg != PS_KEY_ECDSA_P256 || !strict_der(sig, sig_len)) {
		ERR_clear_error();
		return -1;
	}
	pkey = ecdsa_pkey(key);
	md = EVP_MD_CTX_new();
	if (pkey != NULL && md != NULL &&
	    EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, pkey) == 1)
		ok = EVP_DigestVerify(md, sig, sig_len, msg, len) == 1;
	EVP_MD_CTX_free(md);
	EVP_PKEY_free(pkey);
	ERR_clear_error();
	return ok ? 0 : -1;
}
