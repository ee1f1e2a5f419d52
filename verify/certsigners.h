/* Internal header of verify/: keyless signatures (signature.md, "Keyless
 * signatures").
 *
 * A certificate bundle's signature counts for the one identity whose
 * `keyless:` entry its certificate matches, once sigstore/ verified the
 * bundle (chain, SCT, evidence, DSSE signature) under that entry's
 * trusted roots; the reusable-workflow rule, the entry's window on the
 * verified signing times and then the pack scope apply.
 */
#ifndef VERIFY_CERTSIGNERS_H
#define VERIFY_CERTSIGNERS_H

#include "packsign.h"
#include "verify/vctx.h"

/* Step 1 for the keyless bundles among v->bundles: each one's signature
 * counts (identity, signer id, certificate fields) or carries the reason
 * it does not; a verified payload into v->verified when none was. */
int verify_keyless_bundles(verify_vctx *v, ps_error *err);
/* Step 6 for entry `i` when it is a keyless signature that still counts:
 * the pack scope of its identity (counted, or pack_out_of_scope). */
int verify_keyless_scope(verify_vctx *v, size_t i, ps_error *err);
/* The certificate of keyless entry `i`, or NULL. */
const ps_sigstore_certificate *verify_keyless_certificate(
    const verify_vctx *v, size_t i);
void verify_keyless_free(verify_vctx *v);
void verify_keyless_result_free(ps_verify_keyless *k);

#endif
