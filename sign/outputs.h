/* Internal header of sign/: what signing writes.
 *
 * OUT, OUT.sig and OUT.minisig: named and checked before anything is
 * written, published in a fixed order, rolled back after a failure
 * (docs/formats/signature.md, section 8.2).
 */
#ifndef SIGN_OUTPUTS_H
#define SIGN_OUTPUTS_H

#include "packsign.h"
#include "sign/signrun.h"

/* Names OUT, OUT.sig, OUT.minisig and checks the signature targets (with
 * --append, reads the existing OUT.sig). */
int sign_set_outputs(sign_run *run, const char *archive, ps_error *err);
/* Writes OUT.minisig and OUT.sig in full, then renames OUT, OUT.minisig
 * and OUT.sig into place, back to back. */
int sign_outputs_publish(sign_run *run, ps_error *err);
/* After a failure: removes what this run created, puts back what it
 * replaced. */
void sign_outputs_roll_back(sign_run *run);

#endif
