/* The ephemeral ECDSA P-256 key of a keyless signature. */
#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "keyless/ephemeral.h"
#include "util/error.h"

struct keyless_key {
	EVP_PKEY *pkey;
};

static int
crypto_failed(ps_error *err, const char *what)
{
	ERR_clear_error();
	return util_fail(err, "crypto_error", NULL, "OpenSSL could not %s",
	    what);
}

int
keyless_key_new(keyless_key **out, ps_error *err)
{
	keyless_key *k = calloc(1, sizeof(*k));

	*out = NULL;
	if (k == NULL)
		return util_fail_oom(err, NULL);
	k->pkey = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	if (k->pkey == NULL) {
		free(k);
		return crypto_failed(err, "make an ECDSA P-256 key");
	}
	*out = k;
	return 0;
}

void
keyless_key_free(keyless_key *k)
{
	if (k == NULL)
		return;
	EVP_PKEY_free(k->pkey);
	free(k);
}

int
keyless_key_public_pem(const keyless_key *k, char **pem, ps_error *err)
{
	BIO *bio = BIO_new(BIO_s_mem());
	char *data = NULL;
	long len;

	*pem = NULL;
	if (bio == NULL || PEM_write_bio_PUBKEY(bio, k->pkey) != 1 ||
	    (len = BIO_get_mem_data(bio, &data)) <= 0 ||
	    (*pem = malloc((size_t)len + 1)) == NULL) {
		BIO_free(bio);
		return crypto_failed(err, "write the public key");
	}
	memcpy(*pem, data, (size_t)len);
	(*pem)[len] = '\0';
	BIO_free(bio);
	return 0;
}

int
keyless_key_sign(const keyless_key *k, const void *data, size_t len,
    unsigned char **sig, size_t *sig_len, ps_error *err)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	size_t n = 0;
	int ok;

	*sig = NULL;
	ok = ctx != NULL && EVP_DigestSignInit(ctx, NULL, EVP_sha256(), NULL,
	    k->pkey) == 1 && EVP_DigestSign(ctx, NULL, &n, data, len) == 1 &&
	    (*sig = malloc(n)) != NULL &&
	    EVP_DigestSign(ctx, *sig, &n, data, len) == 1;
	EVP_MD_CTX_free(ctx);
	if (!ok) {
		free(*sig);
		*sig = NULL;
		return crypto_failed(err, "sign with the ephemeral key");
	}
	*sig_len = n;
	return 0;
}
