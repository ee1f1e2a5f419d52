/* Internal header of keyless/: the OIDC identity token a keyless signer holds.
 *
 * The token (a JWT) is the signer's own: packsign does not verify its
 * signature (Fulcio does, with its issuer's keys), but reads its claims
 * to refuse, before any request, a token Fulcio would refuse (another
 * audience, expired) and to know which identity the certificate must
 * carry (docs/formats/signature.md, section 9.5).  The token is a
 * secret: no message quotes it or a claim from it other than the ones
 * named below.
 */
#ifndef KEYLESS_TOKEN_H
#define KEYLESS_TOKEN_H

#include <stdint.h>

#include "packsign.h"

#define KEYLESS_TOKEN_MAX (16 * 1024)          /* bytes of a JWT */
#define KEYLESS_AUDIENCE "sigstore"
#define KEYLESS_GITHUB_ISSUER "https://token.actions.githubusercontent.com"
#define KEYLESS_GITLAB_ISSUER "https://gitlab.com"

typedef struct keyless_token {
	char *issuer;        /* iss: the certificate's OIDC issuer */
	char *challenge;     /* sub (else email): what the proof of
	                      * possession signs */
	char *identity;      /* the SAN Fulcio certifies for these claims */
	char *repository;    /* GitHub, GitLab: the source repository as an
	                      * https URL; NULL otherwise */
	char *commit;        /* GitHub, GitLab: sha; NULL otherwise */
	int64_t expires;     /* exp */
} keyless_token;

/*
 * Reads the claims of `jwt` as of `now` (seconds since the epoch).
 * Codes (exit 2): identity_token_missing (empty), identity_token_invalid
 * (not three base64url parts, no JSON object, no https iss, aud not
 * naming "sigstore", nbf after now, no identity Fulcio certifies),
 * identity_token_expired (exp at or before now), out_of_memory.
 */
int keyless_token_parse(const char *jwt, int64_t now, keyless_token **out,
    ps_error *err);
void keyless_token_free(keyless_token *t);

#endif
