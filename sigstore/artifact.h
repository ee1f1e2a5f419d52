/* Internal header of sigstore/: the artifact a bundle signed.
 *
 * A message signature is over the artifact's digest with the hash its
 * bundle's messageDigest names (else the key's own), of those the key
 * may sign.  A file is hashed once with SHA-256 and with that hash when
 * it is another (SHA-384, SHA-512); an artifact given by its SHA-256
 * alone has only that.  A DSSE bundle signs an in-toto statement
 * whose subjects must include the artifact (by SHA-256).
 */
#ifndef SIGSTORE_ARTIFACT_H
#define SIGSTORE_ARTIFACT_H

#include <stddef.h>

#include "packsign.h"
#include "sigstore/rekorbody.h"

/*
 * Sets c->hash for a message signature (c->bundle, c->key set): the
 * hash its messageDigest names, else the key's own.  P-256 and RSA keys
 * sign SHA-256, P-384 SHA-384 or SHA-256, P-521 SHA-512 or SHA-256; any
 * other name is refused: signature_algorithm_unsupported (exit 1).  NULL
 * for DSSE and for Ed25519 (refused at the signature step).
 */
int sigstore_artifact_message_hash(sigstore_content *c, const char *subject,
    ps_error *err);

/* Fills c->sha256, c->msg_digest (with c->hash; empty when it cannot be
 * had).  The file's codes: not_found, not_a_file, io_error. */
int sigstore_artifact_hash(const ps_sigstore_artifact *a,
    sigstore_content *c, ps_error *err);

/*
 * The verified DSSE payload is an in-toto statement v1 (or v0.1) naming
 * the artifact: a subject whose digest.sha256 is its SHA-256.  Codes
 * (exit 1): payload_type_unknown, intoto_statement_invalid,
 * artifact_not_subject.
 */
int sigstore_artifact_subject(const sigstore_bundle *b,
    const unsigned char sha256[32], const char *subject, ps_error *err);

#endif
