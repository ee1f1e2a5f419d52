/* Internal header of verify/: steps 1 and 6, who signed.
 *
 * Which policy keys verify the envelope's signatures, their scope and the
 * threshold of distinct identities, then signed_by.
 */
#ifndef VERIFY_SIGNATURES_H
#define VERIFY_SIGNATURES_H

#include "packsign.h"
#include "verify/vctx.h"

/* Step 1: reads the envelope, finds which policy key verifies each entry
 * and drops revoked, untrusted and out-of-window keys.  Refuses when no
 * entry is left; nothing of the payload is parsed here. */
int verify_signatures(verify_vctx *v, ps_error *err);
/* Step 1, end (the pack id is known from the verified statement): scope,
 * then the threshold of distinct identities. */
int verify_scope(verify_vctx *v, ps_error *err);
/* Step 6: signed_by of the manifest and --signed-by, threshold again. */
int verify_signed_by(verify_vctx *v, ps_error *err);

#endif
