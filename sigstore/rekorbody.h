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

/* A hash a message signature may be over (docs/formats/sigstore.md,
 * section 9): its protobuf-specs HashAlgorithm name, OpenSSL's name,
 * Rekor v1's name and its length. */
typedef struct sigstore_hash {
	const char *proto;               /* "SHA2_384" */
	const char *md;                  /* "SHA2-384" */
	const char *rekor;               /* "sha384" */
	size_t len;
} sigstore_hash;

/* What a bundle signed, as far as the log can know it. */
typedef struct sigstore_content {
	const sigstore_bundle *bundle;
	const sigstore_pkey *key;        /* the signing key */
	X509 *leaf;                      /* its certificate; NULL: a bare key */
	/* messageSignature: the hash the signature is over (NULL for DSSE
	 * and for Ed25519), the artifact's SHA-256 and its digest with that
	 * hash (the same bytes for SHA-256; empty when the artifact came by
	 * its SHA-256 and the hash is another) */
	const sigstore_hash *hash;
	unsigned char sha256[32];
	unsigned char msg_digest[64];
	size_t msg_digest_len;
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
