/* Internal header of sigstore/: one verification as it goes.
 *
 * What the steps of sigstore/verifier.c hand each other: the bundle, the
 * signing key, what the artifact digests to, the verified evidence and
 * the result being filled.
 */
#ifndef SIGSTORE_RUN_H
#define SIGSTORE_RUN_H

#include <stddef.h>

#include "packsign.h"
#include "sigstore/certchain.h"
#include "sigstore/rekorbody.h"
#include "sigstore/sigbundle.h"
#include "sigstore/tlog.h"

#define SIGSTORE_TIMES_MAX (SIGSTORE_TLOG_MAX + SIGSTORE_TIMESTAMP_MAX)

typedef struct sigstore_run {
	const ps_sigstore_root *root;
	const char *subject;             /* the bundle file */
	const char *identity;            /* keyless: asked for */
	const char *issuer;
	int keyless;                     /* a certificate is asked for */
	int blob;                        /* verify-blob: the root's evidence is
	                                  * required, the statement checked */
	sigstore_time now;
	sigstore_bundle *b;
	sigstore_pkey *key;              /* the signing key */
	sigstore_content content;
	sigstore_tlog_proof proofs[SIGSTORE_TLOG_MAX];
	size_t entries_verified;
	int rekor_v2;                    /* a Rekor v2 entry verified */
	sigstore_time times[SIGSTORE_TIMES_MAX];   /* verified, step 4 */
	size_t time_count;
	sigstore_time tsa_times[SIGSTORE_TIMESTAMP_MAX];
	size_t tsa_time_count;
	ps_error first_timestamp_error;  /* the first skipped timestamp's */
	sigstore_chain_result chain;
	ps_sigstore_result *r;
} sigstore_run;

#endif
