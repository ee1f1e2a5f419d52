/* Internal header of sigstore/: public keys of logs, authorities and
 * signers, and the signatures they verify.
 *
 * One key type for every key a Sigstore verification meets: a log's or a
 * CT log's key from the trusted root, a certificate's subject key, a key
 * given on the command line or by the trust policy.  The signature
 * algorithm follows from the key (protobuf-specs' PublicKeyDetails):
 * ECDSA P-256 with SHA-256, P-384 with SHA-384, P-521 with SHA-512
 * (ASN.1 DER signatures), RSA PKCS#1 v1.5 with SHA-256, Ed25519 over the
 * message itself; a message signature by P-384 or P-521 may be over
 * SHA-256 instead (sigstore/artifact.h decides which).
 */
#ifndef SIGSTORE_PKEY_H
#define SIGSTORE_PKEY_H

#include <stddef.h>

#include "packsign.h"

struct evp_pkey_st;
struct x509_st;

typedef enum sigstore_key_kind {
	SIGSTORE_KEY_ECDSA_P256 = 0,
	SIGSTORE_KEY_ECDSA_P384,
	SIGSTORE_KEY_ECDSA_P521,
	SIGSTORE_KEY_ED25519,
	SIGSTORE_KEY_RSA
} sigstore_key_kind;

typedef struct sigstore_pkey {
	struct evp_pkey_st *pkey;
	sigstore_key_kind kind;
	unsigned char *spki;       /* DER SubjectPublicKeyInfo */
	size_t spki_len;
} sigstore_pkey;

/* The longest signature any of these keys makes (RSA 8192). */
#define SIGSTORE_SIG_MAX 1024

/*
 * From DER SubjectPublicKeyInfo, a PKCS#1 RSAPublicKey (`pkcs1`), an
 * OpenSSL key (reference taken) or a packsign public key.  They fail with
 * -1 and no error for a key that is malformed or of another algorithm:
 * callers say what it was in their own terms.
 */
int sigstore_pkey_from_spki(const unsigned char *der, size_t len, int pkcs1,
    sigstore_pkey **out);
int sigstore_pkey_from_evp(struct evp_pkey_st *pkey, sigstore_pkey **out);
int sigstore_pkey_from_pubkey(const ps_pubkey *key, sigstore_pkey **out);
/* A PEM "PUBLIC KEY" block (nothing else in the text but blanks). */
int sigstore_pkey_from_pem(const char *text, size_t len,
    sigstore_pkey **out);
void sigstore_pkey_free(sigstore_pkey *key);

/* 1 when both are the same key (the same SubjectPublicKeyInfo). */
int sigstore_pkey_equal(const sigstore_pkey *a, const sigstore_pkey *b);

/* protobuf-specs' PublicKeyDetails name, e.g. "PKIX_ECDSA_P256_SHA_256". */
const char *sigstore_pkey_details(const sigstore_pkey *key);
/* OpenSSL's name of the hash the key signs with ("SHA2-256"); NULL for
 * Ed25519, which signs the message itself. */
const char *sigstore_pkey_hash(const sigstore_pkey *key);
/* protobuf-specs' HashAlgorithm name of that hash ("SHA2_256"), NULL for
 * Ed25519. */
const char *sigstore_pkey_hash_proto(const sigstore_pkey *key);

/* 0 when `sig` verifies over `msg` (hashed as the key says), else -1. */
int sigstore_pkey_verify(const sigstore_pkey *key, const void *msg,
    size_t len, const unsigned char *sig, size_t sig_len);
/* 0 when `sig` verifies over a digest made with OpenSSL's hash `md`
 * ("SHA2-384"; its length must be that hash's; which hash a key may
 * sign is the caller's to decide); Ed25519 never verifies here. */
int sigstore_pkey_verify_digest(const sigstore_pkey *key, const char *md,
    const unsigned char *digest, size_t digest_len, const unsigned char *sig,
    size_t sig_len);

/* `len` bytes hashed with OpenSSL's `md` ("SHA2-256", ...) into `out`
 * (64 bytes); the length, or 0 when hashing failed. */
size_t sigstore_digest(const char *md, const void *data, size_t len,
    unsigned char out[64]);

#endif
