/* Internal header of sigstore/: the artifact a bundle signed.
 *
 * A file is hashed once with SHA-256 and with the signing key's own hash
 * when that is another (SHA-384 for P-384); an artifact given by its
 * SHA-256 alone has only that.  A DSSE bundle signs an in-toto statement
 * whose subjects must include the artifact (by SHA-256).
 */
#ifndef SIGSTORE_ARTIFACT_H
#define SIGSTORE_ARTIFACT_H

#include <stddef.h>

#include "packsign.h"
#include "sigstore/rekorbody.h"

/* Fills c->sha256, c->key_digest (empty when it cannot be had).  The
 * file's codes: not_found, not_a_file, io_error. */
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
