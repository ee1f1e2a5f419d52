/* Internal header of keys/: permission ceilings and consent classes.
 *
 * A signer's `may:` and the policy's `consent:` (trust-policy.md,
 * "Permission ceilings" and "Consent"): parsed by keys/trustmay.c into
 * the ps_ceiling and ps_trust.consent of packsign.h.  The orders of the
 * ordered values live here once, for the parser and for verify/ceiling.c,
 * which compares a pack's manifest with a ceiling.
 */
#ifndef KEYS_TRUSTMAY_H
#define KEYS_TRUSTMAY_H

#include <stddef.h>

#include "packsign.h"
#include "keys/trustyaml.h"
#include "util/yaml.h"

/* AgentPack file_write, lowest first: none < workspace < knowledge. */
extern const char *const keys_may_file_write[];
/* SoyaPack determinism tiers, lowest first, as the SoyaPack spec lists
 * them: read-only < side-effect < unrestricted. */
extern const char *const keys_may_tiers[];
/* Consent class names, in bit order of PS_CONSENT_*. */
extern const char *const keys_may_consent[];

/* The position of `value` in the NULL-terminated `order`; -1 when it is
 * not listed (or NULL). */
int keys_may_rank(const char *const *order, const char *value);

/* Parses `node`, a signer's `may:`, into a new signer->may. */
int keys_may_parse(keys_trust_ctx *ctx, const util_yaml_node *node,
    ps_trust_signer *signer);
/* Parses the policy's `consent:` (NULL: absent) into ctx->policy->consent. */
int keys_may_parse_consent(keys_trust_ctx *ctx, const util_yaml_node *node);
/* Frees a ceiling and everything in it; NULL is a no-op. */
void keys_may_free(ps_ceiling *ceiling);

#endif
