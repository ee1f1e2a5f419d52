/* Internal header of sign/: Sigstore bundles.
 *
 * A Sigstore bundle (protobuf-specs, bundle v0.3 JSON) carries one DSSE
 * signature with its payload and a hint naming the public key
 * (docs/formats/signature.md, "Sigstore bundles").  packsign writes one
 * per signature of OUT.sig and reads bundles back into one envelope for
 * the ordinary verification path.  An RFC 3161 timestamp is written when
 * the signer asked for one (sign --tsa-url); log entries and timestamps
 * are verified by verify/bundles.c through sigstore/, not here.
 */
#ifndef SIGN_BUNDLE_H
#define SIGN_BUNDLE_H

#include <stddef.h>

#include "packsign.h"
#include "sign/dsse.h"

#define SIGN_BUNDLE_MEDIA_TYPE "application/vnd.dev.sigstore.bundle.v0.3+json"

/* OUT.N.sigstore.json for signature entry `i` (N = i + 1); malloc'ed,
 * NULL when out of memory. */
char *sign_bundle_path(const char *archive, size_t i);

/*
 * Deterministic JSON of the bundle for signature entry `i` of `env`:
 * sorted keys, no whitespace, non-ASCII escaped, one LF.  The hint is the
 * entry's key id.  `*out` is malloc'ed.
 */
int sign_bundle_serialize(const sign_dsse_envelope *env, size_t i, char **out,
    size_t *out_len, ps_error *err);

/*
 * The same with verificationMaterial.timestampVerificationData holding
 * one RFC 3161 TimeStampResp (`der`, `der_len` bytes) over the entry's
 * signature bytes; `der` NULL: none (sign_bundle_serialize).
 */
int sign_bundle_serialize_timestamped(const sign_dsse_envelope *env, size_t i,
    const unsigned char *der, size_t der_len, char **out, size_t *out_len,
    ps_error *err);

/*
 * Parses a bundle of `len` bytes (at most SIGN_DSSE_MAX_BYTES) into an
 * envelope.  Accepts the v0.1, v0.2 and v0.3 media types with a DSSE
 * envelope and a public key hint; refuses certificates (bundle_keyless),
 * a message signature or another media type (bundle_unsupported), and
 * anything else out of shape (bundle_malformed, or the envelope codes for
 * the inner envelope).  Duplicate keys are refused everywhere.
 */
int sign_bundle_parse(const void *bytes, size_t len, const char *label,
    sign_dsse_envelope **out, ps_error *err);
/* The same, accepting a certificate-based (keyless) bundle too: *keyless
 * is then 1, and its certificate and evidence are sigstore/'s to verify
 * (the envelope's signature verifies under no policy key). */
int sign_bundle_parse_any(const void *bytes, size_t len, const char *label,
    sign_dsse_envelope **out, int *keyless, ps_error *err);

#endif
