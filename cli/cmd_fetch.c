/* packsign fetch: download a signed archive and its .sig, and verify
 * them, without installing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/checks.h"
#include "cli/cli.h"
#include "cli/download_options.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "cli/signals.h"

const struct cli_usage cmd_fetch_usage = {
	.name = "fetch",
	.text =
    "usage: packsign fetch URL -o FILE [--sig URL|FILE]\n"
    "           (--trust POLICY | -p KEY.pub) [--signed-by ID]\n"
    "           [--source-repo URL] [--source-commit HASH] [--require-source]\n"
    "           [--allow-dirty] [--at TIME] [-q]\n"
    "           " CLI_LIMIT_USAGE "\n"
    "           " CLI_DOWNLOAD_USAGE "\n"
    "\n"
    "Downloads the archive at the https URL and its signature (URL.sig, or\n"
    "--sig) and verifies them as `packsign verify` does, the signature\n"
    "before the archive is requested, for pipelines that verify and install\n"
    "in separate steps.  The signature goes to a temporary file beside FILE,\n"
    "the archive to a file without a name in its directory; once verified,\n"
    "the archive becomes FILE, then the signature FILE.sig.  A failure or\n"
    "SIGINT/SIGTERM leaves neither.  With --sig FILE only the archive is\n"
    "written (FILE is already local).  https only, every redirect too;\n"
    "proxy: https_proxy and no_proxy.\n"
    "\n"
    "  -o FILE              where the archive goes (FILE.sig beside it)\n"
    CLI_CHECK_FLAGS_HELP
    "  --at TIME            judge key windows at TIME (YYYY-MM-DDTHH:MM:SSZ)\n"
    CLI_LIMIT_FLAGS_HELP
    CLI_DOWNLOAD_FLAGS_HELP
    "  -q, --quiet          print nothing on success: no progress line, no\n"
    "                       fetched line (errors still go to stderr)\n"
    "\n"
    "Exit status: 0 downloaded and verified, 1 refused (signature, policy,\n"
    "digest), 2 the job could not be done (a download: HTTP status, TLS,\n"
    "timeout, size, redirect, scheme, a body cut short; I/O).\n",
};

struct fetch_args {
	struct cli_checks checks;
	ps_fetch_options fetch;
	const char *out;
	const char *url;
};

static int
parse_fetch(int argc, char **argv, struct fetch_args *a)
{
	const struct cli_option options[] = {
		CLI_CHECK_OPTIONS(&a->checks),
		CLI_STRING('o', NULL, &a->out),
		CLI_LIMIT_OPTIONS(&a->checks.verify.limits),
		CLI_DOWNLOAD_OPTIONS(&a->fetch),
		CLI_END
	};
	struct cli_operands rest;
	int rc;

	memset(a, 0, sizeof(*a));
	ps_verify_options_init(&a->checks.verify);
	ps_fetch_options_init(&a->fetch);
	rc = cli_parse_options(&cmd_fetch_usage, options, argc, argv, &rest);
	if (rc != EXIT_OK)
		return rc;
	if (rest.count != 1)
		return cli_usage_error(&cmd_fetch_usage, rest.count == 0 ?
		    "missing URL" : "one URL at a time");
	a->url = rest.argv[0];
	if (a->out == NULL)
		return cli_usage_error(&cmd_fetch_usage, "missing -o FILE");
	if (cli_checks_one_policy(&cmd_fetch_usage, &a->checks) != EXIT_OK)
		return EXIT_FAILED;
	return EXIT_OK;
}

static int
run_fetch(struct fetch_args *a)
{
	struct cli_progress progress;
	ps_verify_result *r = NULL;
	ps_trust *policy = NULL;
	ps_error err;
	int rc;

	rc = cli_checks_load_policy(&a->checks, &policy);
	if (rc != EXIT_OK)
		return rc;
	cli_download_setup(&a->fetch, &a->checks.verify);
	a->fetch.progress = cli_progress_start(&progress, a->checks.quiet);
	a->fetch.temp_file_hook = cli_remove_on_signal;
	a->fetch.cancelled = cli_cancelled;
	cli_cancel_on_signal();
	rc = ps_fetch(a->url, a->out, &a->checks.verify, &a->fetch, &r, &err);
	cli_progress_end(&progress);
	cli_cancel_end();
	if (rc == 0 || r != NULL)
		cli_print_warnings(a->out, r != NULL ? &r->warnings : NULL);
	if (rc != 0) {
		cli_report(&err);
		rc = err.status == PS_STATUS_REFUSED ? EXIT_REFUSED : EXIT_FAILED;
	} else if (!a->checks.quiet) {
		fputs("fetched ", stdout);
		cli_put_safe(stdout, a->out);
		fputs(" and its .sig\nsigned by: ", stdout);
		cli_print_signers(stdout, r);
		fputc('\n', stdout);
	}
	ps_verify_result_free(r);
	ps_trust_free(policy);
	return rc;
}

int
cmd_fetch(int argc, char **argv)
{
	struct fetch_args a;
	int rc;

	rc = parse_fetch(argc, argv, &a);
	if (rc != EXIT_OK)
		return rc == CLI_HELP ? EXIT_OK : rc;
	return run_fetch(&a);
}
