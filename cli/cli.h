/* Internal header of cli/: exit codes, the commands and what their help
 * texts and usage errors need to know of them.
 */
#ifndef CLI_CLI_H
#define CLI_CLI_H

/* Exit codes (docs/errors.md). */
#define EXIT_OK 0
#define EXIT_REFUSED 1
#define EXIT_FAILED 2

/*
 * How a command words an option it does not take (unknown, missing its
 * argument, or not for this subcommand).  The wordings are the ones each
 * command has always printed; only "[usage]" and exit 2 are promised.
 */
enum cli_refusal {
	CLI_REFUSE_UNKNOWN,     /* getopt's diagnostic, then "unknown option" */
	CLI_REFUSE_OR_MISSING,  /* ... "unknown option or missing argument" */
	CLI_REFUSE_NAMING_IT,   /* no diagnostic; "unknown option or missing
	                         * argument 'ARG'" */
	CLI_REFUSE_NOT_FOR_SUB, /* getopt's diagnostic when unknown; "'ARG'
	                         * does not apply to 'CMD SUB'" */
};

/*
 * A command as --help, usage errors and the option layer see it.  Each
 * cmd_NAME.c defines its own cmd_NAME_usage; main.c's table lists them.
 */
struct cli_usage {
	const char *name;
	const char *text;          /* the help; the first line: synopsis */
	enum cli_refusal refusal;
	int in_order;              /* options end at the first operand */
};

/* A row of main.c's command table, the one dispatch table. */
struct cli_command {
	const struct cli_usage *usage;
	int (*run)(int argc, char **argv);
	const char *summary;
};

int cmd_validate(int argc, char **argv);
int cmd_describe(int argc, char **argv);
int cmd_pack(int argc, char **argv);
int cmd_digest(int argc, char **argv);
int cmd_keygen(int argc, char **argv);
int cmd_key(int argc, char **argv);
int cmd_trust(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_sign(int argc, char **argv);
int cmd_install(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_uninstall(int argc, char **argv);

extern const struct cli_usage cmd_validate_usage;
extern const struct cli_usage cmd_describe_usage;
extern const struct cli_usage cmd_pack_usage;
extern const struct cli_usage cmd_digest_usage;
extern const struct cli_usage cmd_keygen_usage;
extern const struct cli_usage cmd_key_usage;
extern const struct cli_usage cmd_trust_usage;
extern const struct cli_usage cmd_verify_usage;
extern const struct cli_usage cmd_sign_usage;
extern const struct cli_usage cmd_install_usage;
extern const struct cli_usage cmd_list_usage;
extern const struct cli_usage cmd_uninstall_usage;

#endif
