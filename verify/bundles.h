/* Internal header of verify/: Sigstore bundles in place of the .sig.
 *
 * Each bundle file is read once into memory: its DSSE signature joins the
 * envelope step 1 verifies, and its transparency-log entries and
 * timestamps, when it carries any, are verified from the same bytes with
 * the policy key that verified its signature (signature.md, section 9.2).
 */
#ifndef VERIFY_BUNDLES_H
#define VERIFY_BUNDLES_H

#include "packsign.h"
#include "verify/vctx.h"

/* Reads and parses every bundle of the options into v->env. */
int verify_bundles_read(verify_vctx *v, ps_error *err);

/*
 * Bundle `k`, when it carries log entries or timestamps: the Sigstore
 * checks (sigstore/) with the policy key that verified its signature,
 * their evidence into that signature's result.  Returns 0 (verified, or
 * nothing to verify), 1 when they refuse (`refusal` says why: the
 * signature does not count), -1 when the job cannot be done (the trusted
 * root, memory).
 */
int verify_bundle_evidence(verify_vctx *v, size_t k, ps_error *refusal,
    ps_error *err);

void verify_bundles_free(verify_vctx *v);

#endif
