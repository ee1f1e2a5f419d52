/* Internal header of keyless/: the ephemeral signing key of one keyless run.
 *
 * An ECDSA P-256 key made for one signature and dropped right after it:
 * OpenSSL holds it (its private scalar in a BIGNUM that EVP_PKEY_free
 * clears), it is never serialized, and no function here returns it.
 */
#ifndef KEYLESS_EPHEMERAL_H
#define KEYLESS_EPHEMERAL_H

#include <stddef.h>

#include "packsign.h"

typedef struct keyless_key keyless_key;

int keyless_key_new(keyless_key **out, ps_error *err);
void keyless_key_free(keyless_key *key);
/* The public half as PEM SubjectPublicKeyInfo (malloc'ed). */
int keyless_key_public_pem(const keyless_key *key, char **pem,
    ps_error *err);
/* ECDSA over SHA-256 of `data`, DER (malloc'ed). */
int keyless_key_sign(const keyless_key *key, const void *data, size_t len,
    unsigned char **sig, size_t *sig_len, ps_error *err);

#endif
