/* Internal header of cli/: a trust policy's ceilings and consent classes
 * as `trust check` prints them (text and --json).
 */
#ifndef CLI_TRUST_MAY_H
#define CLI_TRUST_MAY_H

#include "packsign.h"

struct json_t;

/* A signer's `may:`: an object with one member per format (null: no
 * block, refused), every key with its value, denials included; null for
 * no ceiling. */
struct json_t *cli_may_json(const ps_ceiling *may);
/* The policy's consent classes as a list of names. */
struct json_t *cli_consent_json(unsigned consent);
/* The "  may:" lines of a signer from cli_may_json()'s object. */
void cli_print_may(const struct json_t *may);

#endif
