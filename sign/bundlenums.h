/* Internal header of sign/: which OUT.N.sigstore.json each signature gets.
 *
 * Without --append, signature i of OUT.sig has OUT.(i+1).sigstore.json.
 * With --append --bundle the existing bundles are looked at first, so that
 * a keyless bundle (which has no signature in OUT.sig) or another
 * signature's bundle is never overwritten (docs/formats/signature.md,
 * section 9.1).
 */
#ifndef SIGN_BUNDLENUMS_H
#define SIGN_BUNDLENUMS_H

#include <stddef.h>

#include "packsign.h"
#include "sign/dsse.h"

/* How many OUT.N.sigstore.json names --append looks at (N = 1 to this). */
#define SIGN_BUNDLE_SCAN_MAX (2 * SIGN_DSSE_MAX_SIGNATURES)

/*
 * For each of the n = sign_dsse_signature_count(env) signatures: index[i]
 * (its bundle is sign_bundle_path(archive, index[i])) and kept[i] (1: an
 * existing file already holds that signature's bundle and stays).  A
 * signature no file holds gets OUT.(i+1) when that name is free or holds
 * no bundle worth keeping (no bundle at all, or a key-based bundle of none
 * of env's signatures), else the next number after every existing bundle,
 * every signature of env and every number given out.
 */
int sign_bundle_numbers(const char *archive, const sign_dsse_envelope *env,
    size_t *index, int *kept, ps_error *err);

#endif
