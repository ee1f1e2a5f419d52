/* Internal header of keyless/: Fulcio's and Rekor v1's clients.
 *
 * Fulcio v2 `POST /api/v2/signingCert` (the token, the ephemeral public
 * key and the proof of possession: its signature over the token's sub)
 * gives the certificate chain; Rekor v1 `POST /api/v1/log/entries` with
 * a dsse 0.0.1 proposed entry gives the log entry, turned into a bundle's
 * TransparencyLogEntry.  Nothing of either answer is trusted here: the
 * bundle they make is verified whole before it is written
 * (docs/formats/signature.md, section 9.5).
 */
#ifndef KEYLESS_SIGSTOREAPI_H
#define KEYLESS_SIGSTOREAPI_H

#include <stddef.h>

#include <jansson.h>

#include "keyless/ephemeral.h"
#include "packsign.h"

#define KEYLESS_SERVICE_MAX_ANSWER (1024 * 1024)

/* The leaf certificate's DER (malloc'ed) and its PEM as Fulcio sent it.
 * Code fulcio_failed (exit 2). */
int keyless_fulcio_certificate(const ps_fetch_options *fetch,
    const char *base_url, const char *token, const char *challenge,
    const keyless_key *key, unsigned char **der, size_t *der_len,
    char **pem, ps_error *err);

/* The TransparencyLogEntry (bundle JSON) of `envelope` (DSSE JSON text)
 * logged with the certificate `pem`.  Code rekor_failed (exit 2). */
int keyless_rekor_dsse(const ps_fetch_options *fetch, const char *base_url,
    const char *envelope, const char *pem, json_t **entry, ps_error *err);

/* The same through Rekor v2 (`POST {base}/api/v2/log/entries`, a
 * dsseRequestV002 with the certificate `der` as its one verifier): the
 * answer is the TransparencyLogEntry, dsse 0.0.2 with an inclusion proof
 * and checkpoint and no SET.  Code rekor_failed (exit 2). */
int keyless_rekor2_dsse(const ps_fetch_options *fetch, const char *base_url,
    const char *envelope, const unsigned char *der, size_t der_len,
    json_t **entry, ps_error *err);

#endif
