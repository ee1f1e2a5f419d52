/* packsign: the command table and dispatch. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const struct cli_command commands[] = {
	{ "pack", cmd_pack, "build the canonical archive of a pack directory",
	    cmd_pack_usage },
	{ "digest", cmd_digest, "print the digests of a pack or archive",
	    cmd_digest_usage },
	{ "sign", cmd_sign, "sign a pack or archive: OUT and OUT.sig",
	    cmd_sign_usage },
	{ "keygen", cmd_keygen, "create a key pair", cmd_keygen_usage },
	{ "key", cmd_key, "show, convert, re-encrypt keys", cmd_key_usage },
	{ "verify", cmd_verify, "verify signed archives against a trust "
	    "policy", cmd_verify_usage },
	{ "install", cmd_install, "verify a signed archive and install it",
	    cmd_install_usage },
	{ "list", cmd_list, "list installed packs", cmd_list_usage },
	{ "uninstall", cmd_uninstall, "remove an installed pack",
	    cmd_uninstall_usage },
	{ "trust", cmd_trust, "check a trust policy", cmd_trust_usage },
	{ "validate", cmd_validate, "check a pack's manifest against its "
	    "format", cmd_validate_usage },
	{ "describe", cmd_describe, "say in plain words what a pack may do",
	    cmd_describe_usage },
	{ "help", cmd_help, "show help for a command", cmd_help_usage },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

const struct cli_command *
cli_find_command(const char *name)
{
	size_t i;

	for (i = 0; i < N_COMMANDS; i++) {
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	}
	return NULL;
}

static void
print_overview(FILE *out)
{
	size_t i;

	fprintf(out, "usage: packsign <command> [options]\n"
	    "       packsign --help | --version | help <command>\n\n"
	    "commands:\n");
	for (i = 0; i < N_COMMANDS; i++)
		fprintf(out, "  %-10s %s\n", commands[i].name,
		    commands[i].summary);
	fprintf(out, "\nexit codes: 0 success, 1 input refused, "
	    "2 job could not be done.\nSee packsign(1).\n");
}

int
cmd_help(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0) {
		print_overview(stdout);
		return EXIT_OK;
	}
	if (argc > 2)
		return cli_usage_error("help", "too many arguments");
	if (cli_find_command(argv[1]) == NULL) {
		fprintf(stderr, "packsign: unknown command '%s' [usage]\n",
		    argv[1]);
		return EXIT_FAILED;
	}
	return cli_print_help(argv[1]);
}

const char cmd_help_usage[] =
    "usage: packsign help [COMMAND]\n"
    "\n"
    "Shows the list of commands, or the help of COMMAND.\n";

int
main(int argc, char **argv)
{
	const struct cli_command *cmd;

	/* Past a file size limit (RLIMIT_FSIZE), write(2) then fails with
	 * EFBIG and the run cleans up and reports, instead of dying. */
	signal(SIGXFSZ, SIG_IGN);
	if (argc < 2) {
		print_overview(stderr);
		return EXIT_FAILED;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		print_overview(stdout);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("packsign %s\n", PS_VERSION);
		return EXIT_OK;
	}
	cmd = cli_find_command(argv[1]);
	if (cmd == NULL) {
		fprintf(stderr, "packsign: unknown command '%s'; "
		    "see 'packsign --help' [usage]\n", argv[1]);
		return EXIT_FAILED;
	}
	return cmd->run(argc - 1, argv + 1);
}
