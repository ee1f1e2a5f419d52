/* packsign: the command table and dispatch. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "packsign.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "cli/suggest.h"

static const struct cli_usage help_usage = {
	.name = "help",
	.text =
    "usage: packsign help [COMMAND]\n"
    "\n"
    "Shows the list of commands, or the help of COMMAND.\n",
};

static int cmd_help(int argc, char **argv);

static const struct cli_command commands[] = {
	{ &cmd_pack_usage, cmd_pack,
	    "build the canonical archive of a pack directory" },
	{ &cmd_digest_usage, cmd_digest,
	    "print the digests of a pack or archive" },
	{ &cmd_sign_usage, cmd_sign,
	    "sign a pack or archive: OUT and OUT.sig" },
	{ &cmd_keygen_usage, cmd_keygen, "create a key pair" },
	{ &cmd_key_usage, cmd_key, "show, convert, re-encrypt keys" },
	{ &cmd_verify_usage, cmd_verify,
	    "verify signed archives against a trust policy" },
	{ &cmd_verify_blob_usage, cmd_verify_blob,
	    "verify any file's Sigstore bundle, offline" },
	{ &cmd_diff_usage, cmd_diff,
	    "show what changed between two versions of a pack" },
	{ &cmd_install_usage, cmd_install,
	    "verify a signed archive and install it" },
	{ &cmd_fetch_usage, cmd_fetch,
	    "download a signed archive and its .sig, and verify them" },
	{ &cmd_outdated_usage, cmd_outdated,
	    "list installed packs an index has newer versions of" },
	{ &cmd_update_usage, cmd_update,
	    "install the newest indexed version of installed packs" },
	{ &cmd_index_usage, cmd_index,
	    "build, yank, refresh and verify a signed pack index" },
	{ &cmd_list_usage, cmd_list, "list installed packs" },
	{ &cmd_uninstall_usage, cmd_uninstall, "remove an installed pack" },
	{ &cmd_trust_usage, cmd_trust, "check a trust policy" },
	{ &cmd_validate_usage, cmd_validate,
	    "check a pack's manifest against its format" },
	{ &cmd_describe_usage, cmd_describe,
	    "say in plain words what a pack may do" },
	{ &help_usage, cmd_help, "show help for a command" },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/* "unknown command 'verfy'; did you mean 'verify'?" (and, from the
 * command line, where the commands are listed): exit 2. */
static int
unknown_command(const char *name, int point_to_help)
{
	const char *names[N_COMMANDS];
	struct cli_suggestion s;
	char hint[256];
	size_t i;

	for (i = 0; i < N_COMMANDS; i++)
		names[i] = commands[i].usage->name;
	cli_suggest(name, names, N_COMMANDS, &s);
	cli_suggestion_text(&s, "", hint, sizeof(hint));
	fputs("packsign: unknown command '", stderr);
	cli_put_safe(stderr, name);
	fprintf(stderr, "'%s", hint);
	if (point_to_help)
		fputs(hint[0] != '\0' ? " See 'packsign --help'" :
		    "; see 'packsign --help'", stderr);
	fputs(" [usage]\n", stderr);
	return EXIT_FAILED;
}

static const struct cli_command *
find_command(const char *name)
{
	size_t i;

	for (i = 0; i < N_COMMANDS; i++) {
		if (strcmp(commands[i].usage->name, name) == 0)
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
		fprintf(out, "  %-10s %s\n", commands[i].usage->name,
		    commands[i].summary);
	fprintf(out, "\nexit codes: 0 success, 1 input refused, "
	    "2 job could not be done.\nSee packsign(1).\n");
}

/* help takes no options: its --help is the overview, not its own help. */
static int
cmd_help(int argc, char **argv)
{
	const struct cli_command *cmd;

	if (argc < 2 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0) {
		print_overview(stdout);
		return EXIT_OK;
	}
	if (argc > 2)
		return cli_usage_error(&help_usage, "too many arguments");
	if ((cmd = find_command(argv[1])) == NULL)
		return unknown_command(argv[1], 0);
	fputs(cmd->usage->text, stdout);
	return EXIT_OK;
}

/* verify-blob; verify, install and diff of Sigstore bundles (their
 * certificates and timestamps) and verify --installed (a receipt may keep
 * bundles); index build --bundle; install --index, update and outdated
 * (an entry may list bundles); sign with a timestamp authority or keyless: they check X.509
 * certificates, which need OpenSSL's digest name table, and the other
 * commands start without it (ps_process_init_x509). */
static int
needs_x509(int argc, char **argv)
{
	int i, reads, sign;

	if (argc < 2 || strcmp(argv[1], "verify-blob") == 0)
		return argc >= 2;
	if (strcmp(argv[1], "update") == 0 || strcmp(argv[1], "outdated") == 0)
		return 1;
	reads = strcmp(argv[1], "verify") == 0 ||
	    strcmp(argv[1], "install") == 0 || strcmp(argv[1], "diff") == 0 ||
	    strcmp(argv[1], "index") == 0;
	sign = strcmp(argv[1], "sign") == 0;
	for (i = 2; i < argc && (reads || sign); i++) {
		if (reads && (strncmp(argv[i], "--bundle", 8) == 0 ||
		    strncmp(argv[i], "--old-bundle", 12) == 0 ||
		    strncmp(argv[i], "--new-bundle", 12) == 0 ||
		    strcmp(argv[i], "--installed") == 0 ||
		    strncmp(argv[i], "--index", 7) == 0))
			return 1;
		if (sign && (strncmp(argv[i], "--tsa-url", 9) == 0 ||
		    strcmp(argv[i], "--keyless") == 0))
			return 1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	const struct cli_command *cmd;
	ps_error err;

	/* Past a file size limit (RLIMIT_FSIZE), write(2) then fails with
	 * EFBIG and the run cleans up and reports, instead of dying. */
	signal(SIGXFSZ, SIG_IGN);
	if ((needs_x509(argc, argv) ? ps_process_init_x509(&err) :
	    ps_process_init(&err)) != 0) {
		fprintf(stderr, "packsign: error: %s [%s]\n", err.message,
		    err.code);
		return EXIT_FAILED;
	}
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
	cmd = find_command(argv[1]);
	if (cmd == NULL)
		return unknown_command(argv[1], 1);
	return cmd->run(argc - 1, argv + 1);
}
