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
 * A command as --help, usage errors and the option layer see it.  Each
 * cmd_NAME.c defines its own cmd_NAME_usage; main.c's table lists them.
 */
struct cli_usage {
	const char *name;
	const char *text;          /* the help; the first line: synopsis */
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
int cmd_verify_blob(int argc, char **argv);
int cmd_sign(int argc, char **argv);
int cmd_install(int argc, char **argv);
int cmd_fetch(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_uninstall(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_index(int argc, char **argv);
int cmd_outdated(int argc, char **argv);
int cmd_update(int argc, char **argv);

extern const struct cli_usage cmd_validate_usage;
extern const struct cli_usage cmd_describe_usage;
extern const struct cli_usage cmd_pack_usage;
extern const struct cli_usage cmd_digest_usage;
extern const struct cli_usage cmd_keygen_usage;
extern const struct cli_usage cmd_key_usage;
extern const struct cli_usage cmd_trust_usage;
extern const struct cli_usage cmd_verify_usage;
extern const struct cli_usage cmd_verify_blob_usage;
extern const struct cli_usage cmd_sign_usage;
extern const struct cli_usage cmd_install_usage;
extern const struct cli_usage cmd_fetch_usage;
extern const struct cli_usage cmd_list_usage;
extern const struct cli_usage cmd_uninstall_usage;
extern const struct cli_usage cmd_diff_usage;
extern const struct cli_usage cmd_index_usage;
extern const struct cli_usage cmd_outdated_usage;
extern const struct cli_usage cmd_update_usage;

#endif
