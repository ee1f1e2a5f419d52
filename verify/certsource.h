/* Internal header of verify/: provenance a CI certified.
 *
 * The Source Repository URI and Digest of a counted keyless signature's
 * certificate (Fulcio's extensions .12 and .13) against the statement's
 * source, or in place of it when the statement records none
 * (signature.md 6.5).
 */
#ifndef VERIFY_CERTSOURCE_H
#define VERIFY_CERTSOURCE_H

#include "packsign.h"
#include "verify/vctx.h"

/* Before step 8: source_certificate_mismatch when a certificate's
 * repository or commit is not the statement's (or, without a statement
 * source, a holon source.ref is not the certified commit); the
 * certificate's source adopted as the statement's when it has none. */
int verify_certified_source(verify_vctx *v, ps_error *err);

#endif
