/* Internal header of cli/: the option layer (tables of options over
 * getopt_long) and the option values several commands share.
 */
#ifndef CLI_OPTIONS_H
#define CLI_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "packsign.h"
#include "cli/cli.h"

/*
 * What a parse returns besides EXIT_OK and EXIT_FAILED (a usage error was
 * printed): the help was printed, and the command ends with EXIT_OK.
 */
#define CLI_HELP (-1)

enum cli_option_kind {
	CLI_OPTION_END,        /* ends a table */
	CLI_OPTION_FLAG,       /* sets an int to 1 */
	CLI_OPTION_STRING,     /* points a const char * at the argument */
	CLI_OPTION_CALLBACK,   /* hands the argument to a function */
};

struct cli_option;

/* Parses `arg` into opt->value; EXIT_OK, or EXIT_FAILED after a usage
 * error. */
typedef int cli_option_fn(const struct cli_usage *cmd,
    const struct cli_option *opt, const char *arg);

/*
 * One option of a command's table.  Tables are built where the command
 * parses, so that each entry points at the field it fills.
 */
struct cli_option {
	enum cli_option_kind kind;
	int letter;                /* the short option, or 0 for none */
	const char *name;          /* the long option, or NULL for none */
	void *value;               /* int *, const char **, or callback's */
	cli_option_fn *callback;
	int refused;               /* known (its argument is taken) but not
	                            * accepted here: a usage error */
};

/* The conditional expressions make the compiler check the field's type. */
#define CLI_FLAG(letter, name, field) \
	{ CLI_OPTION_FLAG, (letter), (name), (1 ? (field) : (int *)NULL), \
	    NULL, 0 }
#define CLI_STRING(letter, name, field) \
	{ CLI_OPTION_STRING, (letter), (name), \
	    (1 ? (field) : (const char **)NULL), NULL, 0 }
#define CLI_CALLBACK(letter, name, field, fn) \
	{ CLI_OPTION_CALLBACK, (letter), (name), (field), (fn), 0 }
/* Another command's option, refused by name (after taking its argument). */
#define CLI_REFUSED(name, kind) { (kind), 0, (name), NULL, NULL, 1 }
#define CLI_END { CLI_OPTION_END, 0, NULL, NULL, NULL, 0 }

/* What is left of argv once the options are taken. */
struct cli_operands {
	char **argv;
	int count;
};

/*
 * Takes the options of `table` from argv (argv[0] is the command's name);
 * -h and --help print the command's help.  Returns EXIT_OK with the
 * operands, CLI_HELP, or EXIT_FAILED after a usage error.
 */
int cli_parse_options(const struct cli_usage *cmd,
    const struct cli_option *table, int argc, char **argv,
    struct cli_operands *operands);

/*
 * argv[1] of a command with subcommands, one of `names`: EXIT_OK and its
 * index, CLI_HELP after -h / --help, or a usage error.
 */
int cli_parse_subcommand(const struct cli_usage *cmd, int argc, char **argv,
    const char *const names[], size_t count, size_t *found);

/* Prints the command's help to stdout; returns CLI_HELP. */
int cli_show_help(const struct cli_usage *cmd);

/* Parses a decimal integer in [min, max]; 0 / -1. */
int cli_parse_int64(const char *text, long long min, long long max,
    long long *out);

/* Callbacks: an RFC 3339 UTC time (--at) into an int64_t; --kdf
 * sensitive|interactive into a ps_kdf_level. */
int cli_parse_time(const struct cli_usage *cmd, const struct cli_option *opt,
    const char *arg);
int cli_parse_kdf(const struct cli_usage *cmd, const struct cli_option *opt,
    const char *arg);
/* Callback: a limit from 0 (none) to LLONG_MAX into a uint64_t. */
int cli_parse_limit(const struct cli_usage *cmd, const struct cli_option *opt,
    const char *arg);

/* -q / --quiet of the commands whose output is a report: nothing is
 * printed on success, the exit status says it (--json is printed). */
#define CLI_QUIET_HELP \
    "  -q, --quiet          print nothing on success (the exit status says\n" \
    "                       it); errors and warnings are printed as always\n"

/* The limits of reading an archive (every command that reads one), filling
 * ps_extract_limits `l`. */
#define CLI_LIMIT_OPTIONS(l) \
	CLI_CALLBACK(0, "max-size", &(l)->max_total_size, cli_parse_limit), \
	CLI_CALLBACK(0, "max-entries", &(l)->max_entries, cli_parse_limit), \
	CLI_CALLBACK(0, "max-ratio", &(l)->max_ratio, cli_parse_limit)
#define CLI_LIMIT_USAGE "[--max-size BYTES] [--max-entries N] [--max-ratio N]"
#define CLI_LIMIT_FLAGS_HELP \
    "  --max-size BYTES     most bytes of file content (default 16 GiB; 0: no\n" \
    "                       limit)\n" \
    "  --max-entries N      most files and directories (default 1000000)\n" \
    "  --max-ratio N        most content bytes per archive byte once past\n" \
    "                       64 MiB (default 200)\n"

/* --mtime (NULL: none given), else SOURCE_DATE_EPOCH (unset or empty:
 * none), into options; EXIT_OK, or EXIT_FAILED after reporting
 * invalid_mtime. */
int cli_mtime_option(const char *flag_value, ps_pack_options *options);

/* Callback: --format soyapack|holon|autograph|agentpack into a ps_format. */
int cli_parse_format(const struct cli_usage *cmd, const struct cli_option *opt,
    const char *arg);

/* ID[@VERSION], split at the last '@' after the first character: *at
 * points at that '@', or is NULL.  A usage error for "" or "ID@". */
int cli_split_target(const struct cli_usage *cmd, const char *target,
    const char **at);

/*
 * The language --lang defaults to: the first of LC_ALL, LC_MESSAGES and
 * LANG that is set and not empty (the order POSIX gives them) names it;
 * "zh" for a locale starting "zh" (zh_CN.UTF-8, zh_TW, zh), else "en"
 * (C, POSIX, en_US.UTF-8, fr_FR, ...: the languages packsign speaks).
 */
const char *cli_lang_default(void);
ps_lang cli_lang_default_value(void);

/* --data-dir DIR, else ps_data_dir_default(); returns an exit code.  The
 * caller frees *out. */
int cli_data_dir(const char *option, char **out);

#endif
