/* Internal header of keyless/: one keyless signature, made and checked.
 *
 * The hook sign/'s run calls with the statement (sign/signpack.h): an
 * ephemeral key, Fulcio's certificate for the token's identity, the DSSE
 * signature, the Rekor v1 or v2 entry, a timestamp when the signing config
 * names a TSA, the bundle v0.3 assembled, and that bundle verified by
 * sigstore/ against the trusted root used and the token's identity
 * before it is handed back (docs/formats/signature.md, section 9.5).
 */
#ifndef KEYLESS_SIGNATURE_H
#define KEYLESS_SIGNATURE_H

#include <stddef.h>

#include "keyless/config.h"
#include "keyless/token.h"
#include "packsign.h"

typedef struct keyless_run {
	const ps_fetch_options *fetch;
	const char *jwt;                 /* the token itself (a secret) */
	keyless_token *token;
	keyless_endpoints endpoints;
	ps_sigstore_root *root;
	const char *root_label;          /* for messages */
	const char *tsa_url;             /* co-signing: the key's bundle's
	                                  * --tsa-url, else NULL */
} keyless_run;

/* The sign_hooks.keyless function; `ctx` a keyless_run. */
int keyless_sign_statement(void *ctx, const unsigned char *payload,
    size_t payload_len, const ps_sign_result *r, char **bundle,
    size_t *bundle_len, ps_error *err);

#endif
