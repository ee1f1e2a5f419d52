/* Internal header of verify/: permission ceilings, step 7.
 *
 * A counted signer's `may:` bounds what the packs it signs may declare
 * (docs/formats/trust-policy.md, "Permission ceilings";
 * docs/formats/signature.md, section 3, step 7).  The comparison is a pure
 * function of a manifest model and the signers' ceilings, so that unit
 * tests call it without a signed archive.
 */
#ifndef VERIFY_CEILING_H
#define VERIFY_CEILING_H

#include <stddef.h>

#include "packsign.h"
#include "verify/vctx.h"

#define VERIFY_CEILING_TEXT_MAX 256

/* The first permission a ceiling does not cover. */
typedef struct verify_ceiling_miss {
	const char *permission;      /* the ceiling key ("network", "egress",
	                              * ...), or "format" */
	char expected[VERIFY_CEILING_TEXT_MAX];  /* what the ceiling allows */
	char found[VERIFY_CEILING_TEXT_MAX];     /* what the pack declares */
} verify_ceiling_miss;

/*
 * 1 when `ceiling` covers every permission `m` declares (a permission the
 * manifest does not declare is denied, so it asks for nothing); else 0
 * with the first uncovered one in `miss`, checked in the order of
 * trust-policy.md.  No I/O, no allocation.
 */
int verify_ceiling_covers(const ps_manifest *m, const ps_ceiling *ceiling,
    verify_ceiling_miss *miss);

/*
 * 0 when one of the `count` counted signers has no ceiling, or a ceiling
 * that covers every permission of `m` (no union across signers).  Else -1
 * with permission_exceeds_policy (exit 1), subject `subject`, naming each
 * signer's first uncovered permission, its ceiling and the declared value:
 * the last signer's are the error's expected and found, the others' are
 * in its message.  Pure over its arguments.
 */
int verify_ceiling_check(const ps_manifest *m,
    const ps_trust_signer *const *signers, size_t count, const char *subject,
    ps_error *err);

/* Step 7 of ps_verify(): the identities that count after step 6 against
 * their ceilings in v->o->trust; sets v->res->ceilings_checked. */
int verify_ceilings(verify_vctx *v, ps_error *err);

#endif
