/* Internal header of sigstore/: step 3, RFC 3161 timestamps.
 *
 * A bundle's timestampVerificationData.rfc3161Timestamps[i] is a DER
 * TimeStampResp (RFC 3161 section 2.4.2) over the bundle's signature
 * bytes.  It counts when a timestamp authority of the trusted root signed
 * it: OpenSSL's TS_RESP_verify_signature() with the authority's chain as
 * of the token's genTime, the signer being the authority's own leaf, the
 * message imprint (SHA-256, -384 or -512) over the signature, and genTime
 * inside the authority's validFor.  docs/formats/sigstore.md, section 5.
 */
#ifndef SIGSTORE_RFC3161_H
#define SIGSTORE_RFC3161_H

#include <stddef.h>

#include "packsign.h"
#include "sigstore/trustroot.h"

/*
 * Verifies one token over `sig`.  On success *time is its genTime and
 * *tsa the authority.  Codes (exit 1): timestamp_malformed,
 * timestamp_untrusted (no authority of the root signed it),
 * timestamp_imprint_mismatch, timestamp_outside_validity.
 */
int sigstore_timestamp_verify(const ps_sigstore_root *root,
    const unsigned char *der, size_t len, const unsigned char *sig,
    size_t sig_len, const char *subject, sigstore_time *time,
    const sigstore_authority **tsa, ps_error *err);

#endif
