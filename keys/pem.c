/*
 * PEM through OpenSSL: PKCS#8 private keys (encrypted or plain) and
 * SubjectPublicKeyInfo public keys: ed25519, and ECDSA P-256 for public
 * keys (keys/ecdsa.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/x509.h>
#include <sodium.h>

#include "keys/keys.h"
#include "util/error.h"

/*
 * Hands OpenSSL the caller's passphrase.  Without a callback OpenSSL would
 * prompt on the terminal: a library must not.
 */
static int
passphrase_cb(char *buf, int size, int rwflag, void *u)
{
	const ps_secret *passphrase = u;
	size_t len;

	(void)rwflag;
	if (passphrase == NULL || size < 0)
		return -1;
	len = ps_secret_len(passphrase);
	if (len > (size_t)size)
		return -1;
	memcpy(buf, ps_secret_bytes(passphrase), len);
	return (int)len;
}

static int
openssl_fail(ps_error *err, const char *code, const char *name,
    const char *what)
{
	unsigned long e = ERR_peek_last_error();
	char reason[256] = "";

	if (e != 0)
		ERR_error_string_n(e, reason, sizeof(reason));
	ERR_clear_error();
	return util_fail(err, code, name, "%s%s%s", what, reason[0] != '\0' ?
	    ": " : "", reason);
}

static int
check_ed25519(EVP_PKEY *pkey, const char *name, ps_error *err)
{
	if (EVP_PKEY_get_base_id(pkey) == EVP_PKEY_ED25519)
		return 0;
	util_fail(err, "key_unsupported_algorithm", name,
	    "checked the PEM key's algorithm");
	return util_error_expect(err, "ED25519", EVP_PKEY_get0_type_name(pkey) !=
	    NULL ? EVP_PKEY_get0_type_name(pkey) : "another algorithm");
}

static int
contains(const unsigned char *text, size_t len, const char *needle)
{
	size_t n = strlen(needle), i;

	for (i = 0; i + n <= len; i++) {
		if (memcmp(text + i, needle, n) == 0)
			return 1;
	}
	return 0;
}

int
ps_pem_is_private(const unsigned char *text, size_t len)
{
	return contains(text, len, "-----BEGIN PRIVATE KEY-----") ||
	    contains(text, len, "-----BEGIN ENCRYPTED PRIVATE KEY-----");
}

int
ps_pem_is_encrypted(const unsigned char *text, size_t len)
{
	return contains(text, len, "-----BEGIN ENCRYPTED PRIVATE KEY-----");
}

/* OWASP 2023 guidance for PBKDF2-HMAC-SHA256; OpenSSL defaults to 2048. */
#define KEYS_PEM_PBKDF2_ITERATIONS 600000

static int
only_space(const unsigned char *p, const unsigned char *end)
{
	for (; p < end; p++) {
		if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
			return 0;
	}
	return 1;
}

/*
 * OpenSSL's PEM readers skip blocks of other types and ignore whatever
 * follows the first match: a policy could hide a second key that way.
 * Exactly one block of the expected type, with only white space around it.
 */
static int
check_single_block(const unsigned char *text, size_t len, const char *type,
    const char *name, ps_error *err)
{
	char begin[64], end[64];
	const unsigned char *b, *e, *stop = text + len;

	snprintf(begin, sizeof(begin), "-----BEGIN %s-----", type);
	snprintf(end, sizeof(end), "-----END %s-----", type);
	b = memmem(text, len, begin, strlen(begin));
	e = b != NULL ? memmem(b, (size_t)(stop - b), end, strlen(end)) : NULL;
	if (b == NULL || e == NULL || !only_space(text, b) ||
	    !only_space(e + strlen(end), stop) ||
	    memmem(b + 1, (size_t)(stop - b - 1), "-----BEGIN ", 11) != NULL)
		return util_fail(err, "key_malformed", name, "expected exactly one "
		    "'%s' block and nothing else", begin);
	return 0;
}

static int
check_public_algorithm(EVP_PKEY *pkey, const char *name, ps_error *err)
{
	int id = EVP_PKEY_get_base_id(pkey);

	if (id == EVP_PKEY_ED25519 || id == EVP_PKEY_EC)
		return 0;
	util_fail(err, "key_unsupported_algorithm", name,
	    "checked the PEM key's algorithm");
	return util_error_expect(err, "ED25519 or EC (P-256)",
	    EVP_PKEY_get0_type_name(pkey) != NULL ?
	    EVP_PKEY_get0_type_name(pkey) : "another algorithm");
}

static EVP_PKEY *
read_public(const char *text, size_t len)
{
	EVP_PKEY *pkey = NULL;
	BIO *bio = BIO_new_mem_buf(text, (int)len);

	if (bio != NULL)
		pkey = PEM_read_bio_PUBKEY(bio, NULL, passphrase_cb, NULL);
	BIO_free(bio);
	return pkey;
}

int
keys_pubkey_parse_pem(const char *text, size_t len, const char *name,
    ps_pubkey **out, ps_error *err)
{
	EVP_PKEY *pkey = NULL;
	size_t klen = PS_ED25519_PUBLIC_LEN;
	int rc;

	*out = NULL;
	if (ps_pem_is_private((const unsigned char *)text, len))
		return util_fail(err, "key_malformed", name,
		    "this is a private key; a public key was expected");
	if (check_single_block((const unsigned char *)text, len, "PUBLIC KEY",
	    name, err) != 0)
		return -1;
	if ((pkey = read_public(text, len)) == NULL)
		return openssl_fail(err, "key_malformed", name,
		    "expected a PEM public key (SubjectPublicKeyInfo)");
	if (EVP_PKEY_get_base_id(pkey) == EVP_PKEY_EC) {
		rc = keys_ecdsa_from_pkey(pkey, name, out, err);
		EVP_PKEY_free(pkey);
		return rc;
	}
	if (check_public_algorithm(pkey, name, err) != 0 ||
	    ps_pubkey_new(out, err) != 0 ||
	    EVP_PKEY_get_raw_public_key(pkey, (*out)->key, &klen) != 1 ||
	    keys_derived_id((*out)->key, (*out)->key_id) != 0) {
		if (*out != NULL)
			openssl_fail(err, "key_malformed", name,
			    "cannot read the ed25519 public key");
		ps_pubkey_free(*out);
		*out = NULL;
		EVP_PKEY_free(pkey);
		return -1;
	}
	(*out)->source = PS_KEY_SOURCE_PEM;
	EVP_PKEY_free(pkey);
	return 0;
}

static int
read_private(const unsigned char *text, size_t len, const char *name,
    const ps_secret *passphrase, EVP_PKEY **pkey, ps_error *err)
{
	int encrypted = ps_pem_is_encrypted(text, len);
	BIO *bio;

	*pkey = NULL;
	if (len > PS_KEY_FILE_MAX)
		return util_fail(err, "input_too_large", name,
		    "a key file is at most %d bytes", PS_KEY_FILE_MAX);
	if (encrypted && passphrase == NULL)
		return util_fail(err, "passphrase_required", name,
		    "the PEM key is encrypted and no passphrase was given");
	if (check_single_block(text, len, encrypted ? "ENCRYPTED PRIVATE KEY" :
	    "PRIVATE KEY", name, err) != 0)
		return -1;
	bio = BIO_new_mem_buf(text, (int)len);
	if (bio != NULL)
		*pkey = PEM_read_bio_PrivateKey(bio, NULL, passphrase_cb,
		    (void *)passphrase);
	BIO_free(bio);
	if (*pkey != NULL)
		return check_ed25519(*pkey, name, err);
	if (encrypted)
		return openssl_fail(err, "wrong_passphrase", name,
		    "cannot decrypt the PEM private key: wrong passphrase?");
	return openssl_fail(err, "key_malformed", name,
	    "expected a PEM private key (PKCS#8)");
}

int
ps_seckey_parse_pem(const unsigned char *text, size_t len, const char *name,
    const ps_secret *passphrase, ps_seckey **out, ps_error *err)
{
	unsigned char *seed = NULL, pk[PS_ED25519_PUBLIC_LEN];
	unsigned char id[PS_KEY_ID_LEN];
	size_t slen = KEYS_ED25519_SEED_LEN;
	EVP_PKEY *pkey;
	int rc = -1;

	*out = NULL;
	if (read_private(text, len, name, passphrase, &pkey, err) != 0) {
		EVP_PKEY_free(pkey);
		return -1;
	}
	seed = sodium_malloc(KEYS_ED25519_SEED_LEN);
	if (seed == NULL)
		util_fail_oom(err, name);
	else if (EVP_PKEY_get_raw_private_key(pkey, seed, &slen) != 1 ||
	    slen != KEYS_ED25519_SEED_LEN)
		openssl_fail(err, "key_malformed", name,
		    "cannot read the ed25519 private key");
	else if (keys_seckey_from_seed(seed, (unsigned char[PS_KEY_ID_LEN]){0},
	    out, err) == 0) {
		crypto_sign_ed25519_sk_to_pk(pk, (*out)->sk);
		rc = keys_derived_id(pk, id);
		memcpy((*out)->key_id, id, PS_KEY_ID_LEN);
	}
	sodium_free(seed);
	EVP_PKEY_free(pkey);
	return rc;
}

static int
bio_to_secret(BIO *bio, ps_secret **out, ps_error *err)
{
	char *data = NULL;
	long n = BIO_get_mem_data(bio, &data);

	if (n <= 0 || data == NULL)
		return util_fail(err, "io_error", "", "OpenSSL wrote no PEM");
	*out = ps_secret_from(data, (size_t)n);
	if (*out == NULL)
		return util_fail_oom(err, "");
	return 0;
}

/* PKCS#8 encrypted with AES-256-CBC under PBKDF2-HMAC-SHA256. */
static int
write_encrypted_pkcs8(BIO *bio, EVP_PKEY *pkey, const ps_secret *passphrase)
{
	PKCS8_PRIV_KEY_INFO *info = EVP_PKEY2PKCS8(pkey);
	X509_ALGOR *pbe = NULL;
	X509_SIG *p8 = NULL;
	int ok = 0;

	if (info != NULL)
		pbe = PKCS5_pbe2_set_iv(EVP_aes_256_cbc(), KEYS_PEM_PBKDF2_ITERATIONS,
		    NULL, 0, NULL, NID_hmacWithSHA256);
	if (pbe != NULL)
		p8 = PKCS8_set0_pbe((const char *)ps_secret_bytes(passphrase),
		    (int)ps_secret_len(passphrase), info, pbe);
	if (p8 != NULL)
		ok = PEM_write_bio_PKCS8(bio, p8) == 1;
	else
		X509_ALGOR_free(pbe);
	X509_SIG_free(p8);
	PKCS8_PRIV_KEY_INFO_free(info);
	return ok ? 0 : -1;
}

int
ps_seckey_format_pem(const ps_seckey *key, const ps_secret *passphrase,
    ps_secret **out, ps_error *err)
{
	EVP_PKEY *pkey;
	BIO *bio;
	int rc = -1, written;

	*out = NULL;
	if (passphrase != NULL && ps_secret_len(passphrase) > INT_MAX)
		return util_fail(err, "passphrase_invalid", "", "too long");
	pkey = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, key->sk,
	    KEYS_ED25519_SEED_LEN);
	/* A secure BIO: OpenSSL's memory BIO copies are wiped on free. */
	bio = BIO_new(BIO_s_secmem());
	if (pkey == NULL || bio == NULL) {
		openssl_fail(err, "out_of_memory", "", "OpenSSL allocation");
	} else {
		written = passphrase != NULL ?
		    write_encrypted_pkcs8(bio, pkey, passphrase) == 0 :
		    PEM_write_bio_PKCS8PrivateKey(bio, pkey, NULL, NULL, 0, NULL,
		    NULL) == 1;
		if (!written)
			openssl_fail(err, "io_error", "", "cannot write PKCS#8 PEM");
		else
			rc = bio_to_secret(bio, out, err);
	}
	BIO_free(bio);
	EVP_PKEY_free(pkey);
	return rc;
}

int
ps_pubkey_format_pem(const ps_pubkey *key, char **out, ps_error *err)
{
	EVP_PKEY *pkey;
	BIO *bio = BIO_new(BIO_s_mem());
	char *data = NULL;
	long n = 0;

	*out = NULL;
	if (key->alg == PS_KEY_ECDSA_P256) {
		BIO_free(bio);
		return keys_ecdsa_format_pem(key, out, err);
	}
	pkey = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, key->key,
	    PS_ED25519_PUBLIC_LEN);
	if (pkey == NULL || bio == NULL || PEM_write_bio_PUBKEY(bio, pkey) != 1 ||
	    (n = BIO_get_mem_data(bio, &data)) <= 0 ||
	    (*out = strndup(data, (size_t)n)) == NULL)
		openssl_fail(err, "io_error", "", "cannot write PEM public key");
	BIO_free(bio);
	EVP_PKEY_free(pkey);
	return *out != NULL ? 0 : -1;
}
