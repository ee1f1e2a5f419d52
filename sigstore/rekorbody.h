/* Internal header of sigstore/: Rekor entry bodies against the bundle.
 *
 * A log entry's canonicalized body says what the log recorded: for Rekor
 * v1 a hashedrekord 0.0.1, dsse 0.0.1 or intoto 0.0.2 entry (Rekor's own
 * JSON), for Rekor v2 a hashedrekord 0.0.2 or dsse 0.0.2 entry
 * (protobuf-specs' rekor/v2 Entry in canonical JSON).  The body must
 * record this bundle's signature, its key or certificate and what it
 * signed.  docs/formats/sigstore.md, section 4.4.  Called only after the
 * SET or the inclusion proof authenticated the body.
 */
#ifndef SIGSTORE_REKORBODY_H
#define SIGSTORE_REKORBODY_H

#include <stddef.h>

#include <openssl/x509.h>

#include "packsign.h"
#include "sigstore/pkey.h"
#include "sigstore/sigbundle.h"

/* What a bundle signed, as far as the log can know it. */
typedef struct sigstore_content {
	const sigstore_bundle *bundle;
	const sigstore_pkey *key;        /* the signing key */
	X509 *leaf;                      /* its certificate; NULL: a bare key */
	/* messageSignature: the artifact's SHA-256 and its digest with the
	 * key's hash (the same bytes for P-256); unused for DSSE */
	unsigned char sha256[32];
	unsigned char key_digest[64];
	size_t key_digest_len;
} sigstore_content;

/* 1 for a Rekor v2 kind and version, 0 for Rekor v1's, -1 for neither. */
int sigstore_body_rekor_version(const char *kind, const char *version);

/*
 * Compares entry `e`'s body with the bundle: the Rekor v2 body must be
 * byte for byte the canonical JSON made from the bundle, a Rekor v1 body
 * is read and its signature, verifier and digests compared.  Codes
 * (exit 1): tlog_body_mismatch, tlog_body_malformed.
 */
int sigstore_body_check(const sigstore_entry *e, const sigstore_content *c,
    const char *subject, ps_error *err);

/* The Rekor v2 body the bundle makes (malloc'd, NUL-terminated); -1 out
 * of memory or when the key cannot make one (Ed25519: hashedrekord
 * needs a prehash). */
int sigstore_body_v2(const char *kind, const sigstore_content *c,
    char **out, size_t *len);

#endif
