/* Internal header of cli/: argument parsing and output only.
 */
#ifndef CLI_CLI_H
#define CLI_CLI_H

#include <stdio.h>

#include "packsign.h"

/* Exit codes (docs/errors.md). */
#define EXIT_OK 0
#define EXIT_REFUSED 1
#define EXIT_FAILED 2

struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
	const char *usage;   /* full help text, ends with a newline */
};

/* The command table lives in main.c. */
const struct cli_command *cli_find_command(const char *name);

/*
 * Prints text that may come from an input (names, messages), escaping
 * control characters so nothing reaches the terminal as a command.
 */
void cli_put_safe(FILE *out, const char *text);

/* --trust POLICY, else -p KEY.pub as a one-key policy. */
int cli_load_policy(const char *policy_path, const char *pubkey_path,
    ps_trust **policy, ps_error *err);

/* Prints "packsign: <error line>" to stderr. */
void cli_print_error(const ps_error *err);

/* Prints the error; returns its exit code, never EXIT_OK.  Inline so that
 * the static analyzer sees a reported error is never success. */
static inline int
cli_report(const ps_error *err)
{
	cli_print_error(err);
	return err->status == PS_STATUS_REFUSED ? EXIT_REFUSED : EXIT_FAILED;
}

/* Progress on a terminal (cli/progress.c). */
struct cli_progress {
	long long started, last;    /* monotonic ns */
	long long interval;         /* ns between redraws */
	int width, drawn, plain;
};
/* A sink for the library's progress, or an empty one when `quiet` or
 * stderr is not a terminal. */
ps_progress_sink cli_progress_start(struct cli_progress *p, int quiet);
/* Erases the line if one is shown (also after a failure). */
void cli_progress_end(struct cli_progress *p);

/* Prints a usage error and the command's synopsis; returns EXIT_FAILED. */
int cli_usage_error(const char *command, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prints the command's help to stdout; returns EXIT_OK. */
int cli_print_help(const char *command);

/*
 * Removes `path` if SIGINT, SIGTERM, SIGHUP or SIGPIPE arrives, so an
 * interrupted run leaves no temporary file; NULL disarms.
 */
void cli_remove_on_signal(const char *path);

/* Parses a decimal integer in [min, max]; 0 / -1. */
int cli_parse_int64(const char *text, long long min, long long max,
    long long *out);

/* Reads --mtime / SOURCE_DATE_EPOCH into options; 0 / -1 (reported). */
int cli_mtime_option(const char *command, const char *flag_value,
    ps_pack_options *options);

/* Where a passphrase may come from; checked in this order, then the tty. */
struct cli_passphrase_opts {
	const char *file;   /* --passphrase-file */
	const char *fd;     /* --passphrase-fd (text, parsed on use) */
	const char *env;    /* environment variable, e.g. PACKSIGN_PASSPHRASE */
};

/* Fills an error from the CLI layer. */
void cli_error_set(ps_error *err, ps_status status, const char *code,
    const char *subject, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Reports an exit-2 error built here; returns EXIT_FAILED. */
int cli_fail(const char *code, const char *subject, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* No core dumps, not ptrace-able by the same user: call before secrets. */
void cli_protect_secrets(void);
/* A passphrase (asked twice on the terminal when `confirm`); exit code. */
int cli_passphrase(const char *command, const struct cli_passphrase_opts *o,
    const char *prompt, int confirm, ps_secret **out);
/* Secret key text from PATH, "-" (stdin) or PACKSIGN_SECRET_KEY (NULL). */
int cli_read_seckey_text(const char *command, const char *path,
    ps_secret **text, const char **name);
/* Loads and decrypts a secret key; keeps the passphrase when asked. */
int cli_load_seckey(const char *command, const char *path,
    const struct cli_passphrase_opts *o, ps_seckey **key,
    ps_secret **passphrase);
/* Dumps `json` (sorted keys, indented) and a newline to stdout. */
struct json_t;
int cli_print_json(struct json_t *json);
/* cli_print_json() of a report built by the caller, then freed; a NULL
 * report (jansson ran out of memory) is a json_output failure about
 * `subject`.  Exit code. */
int cli_print_report(struct json_t *report, const char *subject);
/* An RFC 3339 UTC time option (--at); exit code. */
int cli_parse_time(const char *command, const char *text, int64_t *out);
/* --kdf sensitive|interactive; exit code. */
int cli_parse_kdf(const char *command, const char *text, ps_kdf_level *out);
/* Usage checks shared by the commands that take passphrase options. */
int cli_check_passphrase_options(const char *command,
    const struct cli_passphrase_opts *pass, int no_passphrase);
/* Refuses (unless `force`) when either file exists, before writing any. */
int cli_check_new_files(const char *first, const char *second, int force);
/* Atomic write, refusing to replace unless `force`; exit code. */
int cli_write_output(const char *path, const void *data, size_t len,
    unsigned mode, int force);
/* keygen, key import: the key id and the files written (`sec_path` NULL
 * for a public key alone), as text or (`json`) one JSON object with the
 * fingerprint and identity too; never any secret.  Exit code. */
int cli_print_key_files(const ps_pubkey *pub, const char *pub_path,
    const char *sec_path, int encrypted, int json);

/*
 * validate and describe: parses their options (`lang` NULL for validate,
 * which then accepts --format, --strict, --engine-version).  Returns 0, 1
 * after printing help, -1 after a usage error; PATH is argv[optind].
 */
int cli_validate_options(const char *command, int argc, char **argv,
    ps_validate_options *options, int *json, const char **lang);

/* Opens the pack directory PATH and loads its manifest; diagnostics are
 * sorted.  Returns EXIT_OK or the exit code of a reported failure. */
int cli_load_pack(const char *command, const char *path,
    ps_validate_options *options, ps_manifest **manifest, ps_diags *diags);

/*
 * The check flags verify and install share.  CLI_CHECK_LONG_OPTIONS goes
 * into a getopt_long table (with "p:q" in the short options); a command's
 * own values start at CLI_OPT_NEXT.
 */
enum { CLI_OPT_SIG = 256, CLI_OPT_TRUST, CLI_OPT_SIGNED_BY,
    CLI_OPT_SOURCE_REPO, CLI_OPT_SOURCE_COMMIT, CLI_OPT_REQUIRE_SOURCE,
    CLI_OPT_ALLOW_DIRTY, CLI_OPT_AT, CLI_OPT_NEXT };
#define CLI_CHECK_LONG_OPTIONS \
	{ "sig", required_argument, NULL, CLI_OPT_SIG }, \
	{ "trust", required_argument, NULL, CLI_OPT_TRUST }, \
	{ "signed-by", required_argument, NULL, CLI_OPT_SIGNED_BY }, \
	{ "source-repo", required_argument, NULL, CLI_OPT_SOURCE_REPO }, \
	{ "source-commit", required_argument, NULL, CLI_OPT_SOURCE_COMMIT }, \
	{ "require-source", no_argument, NULL, CLI_OPT_REQUIRE_SOURCE }, \
	{ "allow-dirty", no_argument, NULL, CLI_OPT_ALLOW_DIRTY }, \
	{ "at", required_argument, NULL, CLI_OPT_AT }, \
	{ "quiet", no_argument, NULL, 'q' }
#define CLI_CHECK_FLAGS_HELP \
    "  --sig F              the signature (default ARCHIVE.sig)\n" \
    "  --trust POLICY       the trust policy (docs/formats/trust-policy.md)\n" \
    "  -p KEY.pub           trust exactly this key, for every pack\n" \
    "  --signed-by ID       require a counted signature by identity ID\n" \
    "  --source-repo URL    the recorded repository must be URL (normalised)\n" \
    "  --source-commit HASH the recorded commit must be HASH (full id)\n" \
    "  --require-source     refuse a signature that records no source\n" \
    "  --allow-dirty        accept a source signed from a dirty work tree\n"

struct cli_checks {
	const char *policy;          /* --trust */
	const char *pubkey;          /* -p */
	ps_verify_options verify;    /* the other flags; trust once loaded */
	int quiet;                   /* -q: no progress line */
};

/* Takes the shared flag `c` with its argument: EXIT_OK, a usage error's
 * exit code, or -1 when `c` is not one of them. */
int cli_check_flag(const char *command, int c, const char *arg,
    struct cli_checks *checks);
/* Loads --trust or -p (neither: *policy NULL) into checks->verify.trust;
 * returns an exit code.  The caller frees *policy. */
int cli_checks_load_policy(struct cli_checks *checks, ps_trust **policy);

/* JSON pieces of reports: text from inputs (NULL gives null), a digest
 * (null unless `has`), a list of strings. */
struct json_t *cli_json_text(const char *s);
struct json_t *cli_json_digest(int has,
    const unsigned char digest[PS_SHA256_LEN]);
struct json_t *cli_json_strings(const ps_strings *list);
/* One string per line of `text` (NULL gives an empty list). */
struct json_t *cli_json_lines(const char *text);
/* Sets ok, exit, code, subject, message, expected, found on `o` from the
 * return value `rc` of a library call and its error. */
void cli_json_error(struct json_t *o, int rc, const ps_error *err);
/* Sets what a verification learned (sig, format, id, ..., checks) on `o`. */
void cli_verify_json(struct json_t *o, const ps_verify_result *r);
/* "identity (fingerprint), ..." of the counted signers. */
void cli_print_signers(FILE *out, const ps_verify_result *r);

/* --data-dir DIR, else ps_data_dir_default(); returns an exit code.  The
 * caller frees *out. */
int cli_data_dir(const char *option, char **out);
/* An installed pack's receipt; what re-checking its tree found. */
struct json_t *cli_installed_json(const ps_installed *pack);
struct json_t *cli_check_json(const ps_installed_check *check);
/* "modified: PATH", "added: PATH", "missing: PATH" lines, each after
 * `indent`. */
void cli_print_changes(FILE *out, const char *indent,
    const ps_installed_check *check);
/* "ID VERSION", escaped. */
void cli_print_pack_name(FILE *out, const ps_installed *pack);
/* verify --installed PATH...: re-checks each tree; returns the exit code. */
int cli_verify_installed(char **paths, int count, const ps_trust *trust,
    int64_t at, int json);

int cmd_validate(int argc, char **argv);
int cmd_describe(int argc, char **argv);
int cmd_pack(int argc, char **argv);
int cmd_digest(int argc, char **argv);
int cmd_help(int argc, char **argv);

int cmd_keygen(int argc, char **argv);
int cmd_key(int argc, char **argv);
int cmd_trust(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_sign(int argc, char **argv);
int cmd_install(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_uninstall(int argc, char **argv);

extern const char cmd_keygen_usage[];
extern const char cmd_key_usage[];
extern const char cmd_trust_usage[];
extern const char cmd_verify_usage[];
extern const char cmd_sign_usage[];
extern const char cmd_install_usage[];
extern const char cmd_list_usage[];
extern const char cmd_uninstall_usage[];
extern const char cmd_validate_usage[];
extern const char cmd_describe_usage[];
extern const char cmd_pack_usage[];
extern const char cmd_digest_usage[];
extern const char cmd_help_usage[];

#endif
