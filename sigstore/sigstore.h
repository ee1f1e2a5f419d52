/* Internal header of sigstore/: the verifier as other rooms call it.
 *
 * `ps_sigstore_verify()` (include/packsign.h) verifies any file's bundle.
 * `verify/` also checks the log entries and timestamps of the key-based
 * bundles of a signed pack (signature.md, section 9.2) with the key of
 * the trust policy that verified the bundle's signature: what a bundle
 * carries must verify, and nothing is required of a bundle that carries
 * none (packsign's own bundles have no log entry).
 */
#ifndef SIGSTORE_SIGSTORE_H
#define SIGSTORE_SIGSTORE_H

#include <stddef.h>
#include <stdint.h>

#include "packsign.h"

/* How many log entries and timestamps the bundle of `len` bytes carries,
 * read from its JSON alone (bundle_malformed when it is no JSON). */
int sigstore_evidence_count(const char *bytes, size_t len, const char *label,
    size_t *count, ps_error *err);

/*
 * Steps 1 to 4 and 7 of the key-based bundle of `len` bytes (`label`
 * names it) with a DSSE envelope, `key` its signer: the shape, every log entry and timestamp it carries, the
 * signing times (none after `now`; a Rekor v2 entry needs a timestamp),
 * the DSSE signature.  *out as ps_sigstore_verify() sets it.
 */
int sigstore_verify_key_bundle(const ps_sigstore_root *root,
    const char *label, const char *bytes, size_t len, const ps_pubkey *key,
    int64_t now, ps_sigstore_result **out, ps_error *err);

/*
 * Steps 1 to 5 and 7 of the keyless bundle of `len` bytes with a DSSE
 * envelope: the shape, its evidence, the signing times, the certificate
 * (chain, SCT, Fulcio's extensions into (*out)->certificate) and the DSSE
 * signature under the certificate's key; no identity is asked for (the
 * caller matches the certificate with its trust policy).
 */
int sigstore_verify_keyless_bundle(const ps_sigstore_root *root,
    const char *label, const char *bytes, size_t len, int64_t now,
    ps_sigstore_result **out, ps_error *err);

/*
 * ps_sigstore_verify() of a keyless bundle held in memory (`len` bytes,
 * `label` naming it) over `artifact`, with `identity` and `issuer`
 * required of its certificate, at the current time: what a keyless
 * signer (keyless/) checks of the bundle it made before writing it.
 */
int sigstore_verify_keyless_bytes(const ps_sigstore_root *root,
    const char *label, const char *bytes, size_t len,
    const ps_sigstore_artifact *artifact, const char *identity,
    const char *issuer, ps_sigstore_result **out, ps_error *err);

#endif
