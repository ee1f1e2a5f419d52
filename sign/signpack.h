/* Internal header of sign/: ps_sign with the services of the rooms above.
 *
 * sign/ talks to no server.  A room that does (keyless/: a timestamp
 * authority) hands sign_pack() the hooks that do it; ps_sign() itself is
 * defined there (keyless/signhooks.c) and calls sign_pack().
 */
#ifndef SIGN_SIGNPACK_H
#define SIGN_SIGNPACK_H

#include <stddef.h>

#include "packsign.h"

typedef struct sign_hooks {
	/* When not NULL: an RFC 3161 TimeStampResp over the signature bytes
	 * `sig` of the signature this run adds, for its bundle (a DER token
	 * in *der, malloc'ed).  Called once per run, after every check that
	 * can refuse and before anything is renamed into place; a failure
	 * fails the run, which leaves the outputs as they were. */
	int (*timestamp)(void *ctx, const unsigned char *sig, size_t sig_len,
	    unsigned char **der, size_t *der_len, ps_error *err);
	/* Keyless (key NULL): the signature is made elsewhere, and lives in
	 * its bundle only.  Called once, after every check that can refuse
	 * and before anything is renamed into place, with the statement this
	 * run signs and what the run recorded (r: the archive's digest, the
	 * source); fills *bundle (malloc'ed, *bundle_len bytes): the whole
	 * OUT.1.sigstore.json.  Then no OUT.sig and no OUT.minisig is
	 * written, OUT.1.sigstore.json is the run's one signature file. */
	int (*keyless)(void *ctx, const unsigned char *payload,
	    size_t payload_len, const ps_sign_result *r, char **bundle,
	    size_t *bundle_len, ps_error *err);
	const char *identity;         /* keyless: the signer's identity, for
	                               * signed_by */
	void *ctx;
} sign_hooks;

/* ps_sign() with `hooks` (NULL: none). */
int sign_pack(const char *path, const ps_seckey *key,
    const ps_sign_options *options, const sign_hooks *hooks,
    ps_sign_result **out, ps_error *err);

#endif
