/* Internal header of cli/: reports of Sigstore verifications and trusted
 * roots (verify-blob, trust check).
 */
#ifndef CLI_SIGSTORE_REPORT_H
#define CLI_SIGSTORE_REPORT_H

#include <stdio.h>

#include "packsign.h"

struct json_t;

/* "Good signature: ..." and one line per piece of evidence. */
void cli_sigstore_print(FILE *out, const char *target,
    const ps_sigstore_result *r);
/* verify-blob --json: the outcome (`rc`, `err`) and every step's
 * evidence; NULL when jansson ran out of memory. */
struct json_t *cli_sigstore_json(const char *target, const char *bundle,
    const ps_sigstore_root *root, const ps_sigstore_result *r, int rc,
    const ps_error *err);

/* A trusted root's source and entries, as `trust check` shows them. */
void cli_sigstore_root_print(FILE *out, const ps_sigstore_root *root);
struct json_t *cli_sigstore_root_json(const ps_sigstore_root *root);

#endif
