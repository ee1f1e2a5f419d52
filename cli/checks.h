/* Internal header of cli/: what verify and install share (the check
 * flags, the trust policy they load, the report of a verification).
 */
#ifndef CLI_CHECKS_H
#define CLI_CHECKS_H

#include <stdio.h>

#include "packsign.h"
#include "cli/options.h"

struct cli_checks {
	const char *policy;          /* --trust */
	const char *pubkey;          /* -p */
	ps_verify_options verify;    /* the other flags; trust once loaded */
	int quiet;                   /* -q: no progress line */
};

/* The check flags as entries of an option table, filling checks `c`. */
#define CLI_CHECK_OPTIONS(c) \
	CLI_STRING(0, "sig", &(c)->verify.sig_path), \
	CLI_STRING(0, "trust", &(c)->policy), \
	CLI_STRING(0, "signed-by", &(c)->verify.signed_by), \
	CLI_STRING(0, "source-repo", &(c)->verify.source_repo), \
	CLI_STRING(0, "source-commit", &(c)->verify.source_commit), \
	CLI_FLAG(0, "require-source", &(c)->verify.require_source), \
	CLI_FLAG(0, "allow-dirty", &(c)->verify.allow_dirty), \
	CLI_CALLBACK(0, "at", &(c)->verify.at, cli_parse_time), \
	CLI_FLAG('q', "quiet", &(c)->quiet), \
	CLI_STRING('p', NULL, &(c)->pubkey)
#define CLI_CHECK_FLAGS_HELP \
    "  --sig F              the signature (default ARCHIVE.sig)\n" \
    "  --trust POLICY       the trust policy (docs/formats/trust-policy.md)\n" \
    "  -p KEY.pub           trust exactly this key, for every pack\n" \
    "  --signed-by ID       require a counted signature by identity ID\n" \
    "  --source-repo URL    the recorded repository must be URL (normalised)\n" \
    "  --source-commit HASH the recorded commit must be HASH (full id)\n" \
    "  --require-source     refuse a signature that records no source\n" \
    "  --allow-dirty        accept a source signed from a dirty work tree\n"

/* Exactly one of --trust and -p was given; else a usage error of `cmd`
 * ("give one of --trust POLICY and -p KEY.pub").  Exit code. */
int cli_checks_one_policy(const struct cli_usage *cmd,
    const struct cli_checks *checks);
/* --trust POLICY, else -p KEY.pub as a one-key policy (trust check too). */
int cli_load_policy(const char *policy_path, const char *pubkey_path,
    ps_trust **policy, ps_error *err);
/* Loads --trust or -p (neither: *policy NULL) into checks->verify.trust;
 * returns an exit code.  The caller frees *policy. */
int cli_checks_load_policy(struct cli_checks *checks, ps_trust **policy);

struct json_t;
/* Sets what a verification learned (sig, format, id, ..., checks) on `o`. */
void cli_verify_json(struct json_t *o, const ps_verify_result *r);
/* "identity (fingerprint), ..." of the counted signers. */
void cli_print_signers(FILE *out, const ps_verify_result *r);
/* The warnings of a verification of `path` on stderr, one a line:
 *   packsign: warning: PATH/FILE:LINE:COL: MESSAGE [CODE] */
void cli_print_warnings(const char *path, const ps_diags *warnings);

#endif
