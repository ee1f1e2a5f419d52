/* Internal header of verify/: step 8, provenance.
 *
 * The recorded repository, commit and path against the options, the
 * holon source.ref rule, and the rebuild from git.
 */
#ifndef VERIFY_SOURCE_H
#define VERIFY_SOURCE_H

#include "packsign.h"
#include "verify/vctx.h"

/* Step 8: provenance. */
int verify_source(verify_vctx *v, ps_error *err);

#endif
