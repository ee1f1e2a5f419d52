/* Internal header of keys/: keyless signers in a trust policy.
 *
 * A signer's `keyless:` entries and the policy's `trusted_roots:`
 * (docs/formats/trust-policy.md, "Keyless signers"), read strictly from
 * the safe YAML tree; the keyless pattern ('*' is one or more characters
 * other than '/'), its matching and the overlap of two patterns; and the
 * checks that need the whole policy (roles, overlap between identities).
 */
#ifndef KEYS_KEYLESS_H
#define KEYS_KEYLESS_H

#include <stddef.h>

#include "keys/keylesspattern.h"
#include "keys/trustyaml.h"
#include "packsign.h"
#include "util/yaml.h"

#define KEYS_KEYLESS_MAX 32          /* keyless entries in a policy */
#define KEYS_KEYLESS_ROOTS_MAX 16    /* files in one trusted_roots list */
#define KEYS_KEYLESS_PATH_MAX 4096

/* The signer's `keyless:` list. */
int keys_keyless_parse(keys_trust_ctx *ctx, const util_yaml_node *list,
    ps_trust_signer *signer);
/* A `trusted_roots:` list (the policy's, or an entry's). */
int keys_keyless_parse_roots(keys_trust_ctx *ctx, const util_yaml_node *list,
    char ***roots, size_t *count);
/* What needs the signer whole (its roles): trust_role for the index role
 * on a keyless signer without keys, or a keyless signer without the pack
 * role. */
int keys_keyless_check_roles(keys_trust_ctx *ctx, const util_yaml_node *map,
    const ps_trust_signer *signer);
/* After every signer: trust_keyless_overlap when entries of two
 * identities could match one certificate. */
int keys_keyless_check_overlap(keys_trust_ctx *ctx);
/* Why a certificate does not match an entry: the first constraint it
 * fails (trust-policy.md, "Entries", in the table's order). */
typedef struct keys_keyless_miss {
	const char *field, *want, *found;
} keys_keyless_miss;
/* 0 when `c` satisfies every constraint of `e`, else -1 and *m says
 * which failed first. */
int keys_keyless_explain(const ps_trust_keyless *e,
    const ps_sigstore_certificate *c, keys_keyless_miss *m);
void keys_keyless_free(ps_trust_keyless *entries, size_t count);
void keys_keyless_free_roots(char **roots, size_t count);

#endif
