/* The command-line layer: argument parsing and output only. */
#ifndef PS_CLI_H
#define PS_CLI_H

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

/* Prints "packsign: <error line>" to stderr; returns the exit code. */
int cli_report(const ps_error *err);

/* Prints a usage error and the command's synopsis; returns EXIT_FAILED. */
int cli_usage_error(const char *command, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prints the command's help to stdout; returns EXIT_OK. */
int cli_print_help(const char *command);

/* Parses a decimal integer in [min, max]; 0 / -1. */
int cli_parse_int64(const char *text, long long min, long long max,
    long long *out);

/* Reads --mtime / SOURCE_DATE_EPOCH into options; 0 / -1 (reported). */
int cli_mtime_option(const char *command, const char *flag_value,
    ps_pack_options *options);

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

int cmd_validate(int argc, char **argv);
int cmd_describe(int argc, char **argv);
int cmd_pack(int argc, char **argv);
int cmd_digest(int argc, char **argv);
int cmd_help(int argc, char **argv);

extern const char cmd_validate_usage[];
extern const char cmd_describe_usage[];
extern const char cmd_pack_usage[];
extern const char cmd_digest_usage[];
extern const char cmd_help_usage[];

#endif
