/* Internal header of sigstore/: a Sigstore bundle's fields.
 *
 * dev.sigstore.bundle.v1.Bundle (protobuf-specs), media types v0.1 to
 * v0.3, read into plain fields: step 1 of the verification (the shape;
 * docs/formats/sigstore.md, section 3).  Nothing here is authenticated:
 * the log entry bodies, the certificates and the timestamps are only
 * decoded from base64 and DER, and each later step says what proves them.
 */
#ifndef SIGSTORE_SIGBUNDLE_H
#define SIGSTORE_SIGBUNDLE_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/x509.h>

#include "packsign.h"
#include "sigstore/trustroot.h"

#define SIGSTORE_BUNDLE_MAX_BYTES (4 * 1024 * 1024)
#define SIGSTORE_TLOG_MAX 4              /* log entries of one bundle */
#define SIGSTORE_TIMESTAMP_MAX 32        /* RFC 3161 timestamps */
#define SIGSTORE_TIMESTAMP_MAX_BYTES 65536
#define SIGSTORE_PROOF_MAX 64            /* hashes of an inclusion proof */
#define SIGSTORE_CHECKPOINT_MAX 16384

typedef enum sigstore_material {
	SIGSTORE_MATERIAL_KEY = 0,       /* publicKey (a hint) */
	SIGSTORE_MATERIAL_CHAIN,         /* x509CertificateChain (v0.1, v0.2) */
	SIGSTORE_MATERIAL_CERTIFICATE    /* certificate (v0.3) */
} sigstore_material;

/* One dev.sigstore.rekor.v1.TransparencyLogEntry. */
typedef struct sigstore_entry {
	int64_t log_index;
	unsigned char log_id[SIGSTORE_LOG_ID_MAX];
	size_t log_id_len;
	char kind[32];
	char version[16];
	int has_integrated_time;
	int64_t integrated_time;
	unsigned char *set;               /* inclusionPromise; NULL: none */
	size_t set_len;
	int has_proof;
	int64_t proof_index;
	int64_t tree_size;
	unsigned char root_hash[32];
	unsigned char (*hashes)[32];
	size_t hash_count;
	char *checkpoint;                 /* NULL: none */
	unsigned char *body;              /* canonicalizedBody */
	size_t body_len;
} sigstore_entry;

typedef struct sigstore_bundle {
	int minor;                        /* 1, 2 or 3: bundle v0.N */
	sigstore_material material;
	char *key_hint;                   /* publicKey.hint; NULL: none */
	STACK_OF(X509) *certs;            /* the leaf first */
	sigstore_entry *entries;
	size_t entry_count;
	unsigned char **timestamps;       /* DER TimeStampResp */
	size_t *timestamp_lens;
	size_t timestamp_count;
	int dsse;                         /* dsseEnvelope, else messageSignature */
	unsigned char *signature;         /* the one signature's bytes */
	size_t signature_len;
	char digest_alg[16];              /* messageDigest; "" when absent */
	unsigned char digest[64];
	size_t digest_len;
	unsigned char *payload;           /* DSSE */
	size_t payload_len;
	char *payload_type;
} sigstore_bundle;

/*
 * Reads a bundle of `len` bytes (at most SIGSTORE_BUNDLE_MAX_BYTES).
 * Codes, all exit 1: bundle_malformed, bundle_unsupported (another media
 * type), bundle_material (verification material of a form its version
 * does not have), bundle_root_certificate (a self-signed CA among the
 * certificates), bundle_dsse_signatures (a DSSE envelope with other than
 * one signature).  `label` names the bundle in errors.
 */
int sigstore_bundle_parse(const char *bytes, size_t len, const char *label,
    sigstore_bundle **out, ps_error *err);
void sigstore_bundle_free(sigstore_bundle *b);

/* The leaf certificate: NULL for a key-based bundle. */
X509 *sigstore_bundle_leaf(const sigstore_bundle *b);

/* Reads a bundle file (a regular file, at most the limit). */
int sigstore_bundle_read(const char *path, sigstore_bundle **out,
    ps_error *err);

#endif
