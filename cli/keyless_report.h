/* Internal header of cli/: what a keyless signature's certificate
 * certifies, in verify's text and JSON (signature.md, "Keyless
 * signatures"). */
#ifndef CLI_KEYLESS_REPORT_H
#define CLI_KEYLESS_REPORT_H

#include <stdio.h>

#include "packsign.h"

struct json_t;

/* The "keyless" member of a signature in --json. */
struct json_t *cli_keyless_json(const ps_verify_keyless *k);
/* "; keyless: ..." for each counted keyless signature of `r`. */
void cli_keyless_print(FILE *out, const ps_verify_result *r);

/* After the source: what the CI certified about it, when the statement's
 * source was checked against a certificate or taken from one. */
void cli_keyless_print_source(FILE *out, const ps_verify_result *r);

#endif
