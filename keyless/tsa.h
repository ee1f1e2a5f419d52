/* Internal header of keyless/: the client of an RFC 3161 timestamp authority.
 *
 * One TimeStampReq (version 1, SHA-256 message imprint over the bytes
 * given, a fresh 64-bit nonce, certReq) POSTed as
 * application/timestamp-query through net/; the TimeStampResp is kept
 * only when its status is granted, its token's signature verifies with
 * the signer certificate the token carries, and its TSTInfo has this
 * request's imprint and nonce (docs/formats/signature.md, section 9.4).
 * Whether the authority is trusted is the verifier's question, asked
 * against a trusted root: this is the signer's check that it got an
 * answer to its own question.
 */
#ifndef KEYLESS_TSA_H
#define KEYLESS_TSA_H

#include <stddef.h>

#include "packsign.h"

#define KEYLESS_TSA_MAX_RESPONSE (64 * 1024)   /* bytes of a TimeStampResp */

/*
 * The DER TimeStampResp over `data` (`len` bytes) from the authority at
 * the https `url`, in *der (malloc'ed, *der_len bytes).  Every failure,
 * the transfer's included, is timestamp_failed (exit 2), its message
 * naming the step and, for a transfer, the transport's own code.
 */
int keyless_tsa_timestamp(const ps_fetch_options *fetch, const char *url,
    const unsigned char *data, size_t len, unsigned char **der,
    size_t *der_len, ps_error *err);

#endif
