/*
 * Ed25519 signatures, plain ("Ed") and over a BLAKE2b-512 prehash ("ED",
 * minisign's default): the primitives sign/ and verify/ build on; and
 * ps_key_verify_signature(), which verifies with a key of any algorithm.
 */
#include <string.h>

#include <sodium.h>

#include "keys/keys.h"
#include "util/error.h"

int
ps_key_sign(const ps_seckey *key, const void *msg, size_t len,
    unsigned char sig[PS_ED25519_SIG_LEN], ps_error *err)
{
	if (crypto_sign_detached(sig, NULL, msg, len, key->sk) != 0)
		return util_fail(err, "sign_failed", "", "ed25519 signing failed");
	return 0;
}

int
ps_key_sign_digest(const ps_seckey *key,
    const unsigned char digest[PS_BLAKE2B512_LEN],
    unsigned char sig[PS_ED25519_SIG_LEN], ps_error *err)
{
	return ps_key_sign(key, digest, PS_BLAKE2B512_LEN, sig, err);
}

int
ps_key_sign_prehashed(const ps_seckey *key, const void *msg, size_t len,
    unsigned char sig[PS_ED25519_SIG_LEN], ps_error *err)
{
	unsigned char digest[PS_BLAKE2B512_LEN];

	crypto_generichash(digest, sizeof(digest), msg, len, NULL, 0);
	return ps_key_sign_digest(key, digest, sig, err);
}

int
ps_key_verify(const ps_pubkey *key, const void *msg, size_t len,
    const unsigned char sig[PS_ED25519_SIG_LEN])
{
	if (key->alg != PS_KEY_ED25519 || sodium_init() < 0)
		return -1;
	return crypto_sign_verify_detached(sig, msg, len, key->key) == 0 ?
	    0 : -1;
}

int
ps_key_verify_signature(const ps_pubkey *key, const void *msg, size_t len,
    const unsigned char *sig, size_t sig_len)
{
	switch (key->alg) {
	case PS_KEY_ED25519:
		if (sig_len != PS_ED25519_SIG_LEN)
			return -1;
		return ps_key_verify(key, msg, len, sig);
	case PS_KEY_ECDSA_P256:
		return keys_ecdsa_verify(key, msg, len, sig, sig_len);
	}
	return -1;
}

int
ps_key_verify_digest(const ps_pubkey *key,
    const unsigned char digest[PS_BLAKE2B512_LEN],
    const unsigned char sig[PS_ED25519_SIG_LEN])
{
	return ps_key_verify(key, digest, PS_BLAKE2B512_LEN, sig);
}

int
ps_key_verify_prehashed(const ps_pubkey *key, const void *msg, size_t len,
    const unsigned char sig[PS_ED25519_SIG_LEN])
{
	unsigned char digest[PS_BLAKE2B512_LEN];

	crypto_generichash(digest, sizeof(digest), msg, len, NULL, 0);
	return ps_key_verify_digest(key, digest, sig);
}
