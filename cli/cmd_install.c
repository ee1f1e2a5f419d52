/* packsign install: verify a signed archive, ask, and install it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/checks.h"
#include "cli/cli.h"
#include "cli/download_options.h"
#include "cli/index_source.h"
#include "cli/install_run.h"
#include "cli/options.h"
#include "cli/output.h"

const struct cli_usage cmd_install_usage = {
	.name = "install",
	.text =
    "usage: packsign install ARCHIVE|URL|- [--sig F|URL]\n"
    "           (--trust POLICY | -p KEY.pub)\n"
    "       packsign install ID[@VERSION|@RANGE] --index FILE|URL\n"
    "           (--trust POLICY | -p KEY.pub) [--allow-yanked]\n"
    "           [--require-index-state] [--from-dir DIR]\n"
    "           (both: the options below)\n"
    "           [--data-dir DIR] [--yes] [--allow-shell] [--allow-downgrade]\n"
    "           [--dry-run] [--reinstall] [--json] [--signed-by ID]\n"
    "           [--source-repo URL]\n"
    "           [--source-commit HASH] [--require-source] [--allow-dirty]\n"
    "           [--at TIME] [--max-size BYTES] [--max-entries N]\n"
    "           [--max-ratio N] [--lang en|zh] [-q]\n"
    "           " CLI_DOWNLOAD_USAGE "\n"
    "       packsign install ARCHIVE|URL --bundle FILE|URL [--bundle ...]\n"
    "           (--trust POLICY | -p KEY.pub) [the options above]\n"
    "\n"
    "Copies ARCHIVE (.tar, .tar.gz, .tgz, .tar.zst, .zip) and its signature\n"
    "into the data directory, hashing the archive as it is copied; matches\n"
    "that digest with the signed subject before a byte of the copy is\n"
    "parsed, then verifies the copy as `packsign verify` does and extracts it\n"
    "into a private directory in the same pass (the copy needs as much free\n"
    "space as ARCHIVE).  Then the install rules (AgentPack shell: true only\n"
    "from a first_party signer or with --allow-shell; no version below the\n"
    "newest installed one without --allow-downgrade; the same version again\n"
    "is a no-op when its tree is the same and its installed files still\n"
    "match the receipt, installed_modified when they do not (--reinstall\n"
    "then replaces them), version_conflict when its tree differs); shows what\n"
    "the pack may do and asks on the terminal; renames the verified tree\n"
    "into DIR/<layout>/<version>/ (docs/formats/install.md).  Without a\n"
    "terminal, --yes is required.  Warnings of the verification go to\n"
    "stderr (and \"warnings\" in --json).\n"
    "\n"
    "ARCHIVE - reads the archive from standard input, named after --sig\n"
    "FILE (ARCHIVE.sig): a tar whose statement is v2 streams through once,\n"
    "each 1 MiB chunk authenticated before it is parsed; otherwise it is\n"
    "copied first (at most --max-size bytes).  A local tar with a v2\n"
    "statement is read in place the same way, with no copy.\n"
    "\n"
    "An https URL is downloaded (https only, every redirect too): its .sig\n"
    "first (URL.sig, or --sig URL|FILE), verified before the archive is\n"
    "requested; then the archive into the data directory's .tmp, hashed as\n"
    "it arrives, under the data directory's lock (other installs wait).  A\n"
    "GitHub .../releases/latest/download/ASSET URL is resolved once, so both\n"
    "files come from one release.  Proxy: https_proxy and no_proxy.\n"
    "\n"
    "With --index, the signed pack index (docs/formats/index.md) says\n"
    "where ID is: it is verified (a key of the policy with the index role,\n"
    "not expired, not older than the data directory has seen of its\n"
    "publisher), the newest version satisfying VERSION or RANGE (default\n"
    "'*', no prereleases) that is not yanked is picked, and its archive is\n"
    "installed from the URL the index lists, capped at the listed size; its\n"
    "SHA-256, pack id, version, tree and signers must be the entry's\n"
    "(index_mismatch) before it is parsed.  With --from-dir DIR nothing is\n"
    "downloaded: the entry's archive and .sig are DIR/NAME and DIR/NAME.sig,\n"
    "NAME the file name of the entry's URL, under the same rules (and the\n"
    "archive's size must be the entry's).\n"
    "\n"
    "An id already installed is an upgrade: its pins are checked first (a\n"
    "pinned identity or key must have signed it, from the pinned\n"
    "repository), then it is compared with the newest installed version as\n"
    "`packsign diff` does.  A widening change of a class the policy's\n"
    "consent: names (default permissions, trust) needs consent: the answer\n"
    "on a terminal, --accept CLASSES, or --accept-diff FILE holding this\n"
    "upgrade's `packsign diff --json`.  --yes is never consent.\n"
    "\n"
    CLI_CHECK_FLAGS_HELP
    "  --at TIME            judge key windows at TIME (YYYY-MM-DDTHH:MM:SSZ)\n"
    "  --data-dir DIR       default $PACKSIGN_DATA_DIR, else\n"
    "                       $XDG_DATA_HOME/packsign, else\n"
    "                       ~/.local/share/packsign\n"
    "  --bundle FILE        verify from this Sigstore bundle (key-based or\n"
    "                       keyless; repeatable) instead of the .sig; the\n"
    "                       receipt keeps the bundles (a bundle URL goes with\n"
    "                       an archive URL)\n"
    "  --yes                install without asking\n"
    "  --allow-shell        accept an AgentPack with shell: true from a signer\n"
    "                       who is not first_party in the policy (a signer's\n"
    "                       permission ceiling still applies)\n"
    "  --allow-downgrade    accept a version below the newest installed one\n"
    "  --dry-run            every check and a trial extraction; keep nothing\n"
    "                       (an upgrade prints the classes it would ask)\n"
    "  --reinstall          the same version with the same tree installed:\n"
    "                       verify and extract it afresh and swap it in for\n"
    "                       the installed tree (one rename), with a new\n"
    "                       receipt; the pins are checked, never rewritten\n"
    "  --accept CLASSES     consent to widening in these classes (comma-\n"
    "                       separated: permissions, trust, prompts, code)\n"
    "  --accept-diff FILE   consent to exactly this diff (diff --json)\n"
    "  --allow-signer-change  accept a signer no pin names, and pin it\n"
    "  --allow-source-change  accept another repository, and pin it\n"
    "  --index FILE|URL     install ID from this signed pack index\n"
    "  --allow-yanked       --index: an exact version that was yanked\n"
    "  --require-index-state\n"
    "                       --index: refuse a publisher never seen here\n"
    "                       unless the policy sets its min_index_version\n"
    "  --from-dir DIR       --index: take the entry's archive and .sig from\n"
    "                       DIR by the file name of its URL (offline)\n"
    CLI_LIMIT_FLAGS_HELP
    CLI_DOWNLOAD_FLAGS_HELP
    "  --lang en|zh         language of the summary and the questions\n"
    "                       (default: from LC_ALL, LC_MESSAGES or LANG, zh*\n"
    "                       Chinese, else en; 是 answers yes in Chinese)\n"
    "  --json               print the result as one JSON object\n"
    "  -q, --quiet          print nothing on success: no progress line, no\n"
    "                       report (the questions on a terminal, errors and\n"
    "                       warnings are printed as always)\n"
    "\n"
    "Exit status: 0 installed (or already installed, or a dry run passed),\n"
    "1 refused, 2 the job could not be done (no terminal to ask on, consent\n"
    "not given, a bad policy, the data directory, I/O, a download: HTTP\n"
    "status, TLS, timeout, size, redirect, scheme, a body cut short).\n",
};

static int stdin_archive(struct install_args *a);

/* --bundle FILE, repeatable (install.md, "Bundles"). */
static int
parse_bundle(const struct cli_usage *cmd, const struct cli_option *opt,
    const char *arg)
{
	struct install_args *a = opt->value;

	if (a->bundle_count >= sizeof(a->bundles) / sizeof(a->bundles[0]))
		return cli_usage_error(cmd, "at most 64 --bundle files");
	if (arg[0] == '\0')
		return cli_usage_error(cmd, "--bundle names a file");
	a->bundles[a->bundle_count++] = arg;
	return EXIT_OK;
}

static int
parse_install(int argc, char **argv, struct install_args *a)
{
	const struct cli_option options[] = {
		CLI_INSTALL_OPTIONS(a),
		CLI_CALLBACK(0, "bundle", a, parse_bundle),
		CLI_END
	};
	struct cli_operands rest;
	int rc;

	cli_install_args_init(a);
	rc = cli_parse_options(&cmd_install_usage, options, argc, argv, &rest);
	if (rc != EXIT_OK)
		return rc;
	if (a->bundle_count > 0 && (a->checks.verify.sig_path != NULL ||
	    a->index != NULL))
		return cli_usage_error(&cmd_install_usage, "--bundle reads "
		    "Sigstore bundles in place of the .sig of an archive file or "
		    "URL: not with --sig or --index");
	a->checks.verify.bundle_paths = a->bundles;
	a->checks.verify.bundle_count = a->bundle_count;
	if (rest.count != 1)
		return cli_usage_error(&cmd_install_usage, rest.count == 0 ?
		    "missing ARCHIVE" : "one ARCHIVE at a time");
	a->archive = rest.argv[0];
	a->shown = cli_url_shown(a->archive, a->shown_buf, sizeof(a->shown_buf));
	if (cli_checks_one_policy(&cmd_install_usage, &a->checks) != EXIT_OK)
		return EXIT_FAILED;
	if (a->o.reinstall && (a->o.allow_signer_change ||
	    a->o.allow_source_change))
		return cli_usage_error(&cmd_install_usage, "--reinstall keeps "
		    "the pins: it does not take --allow-signer-change or "
		    "--allow-source-change (upgrade, or uninstall --forget)");
	if (a->index == NULL && (a->index_o.allow_yanked ||
	    a->index_o.require_state || a->from_dir != NULL))
		return cli_usage_error(&cmd_install_usage, "--allow-yanked, "
		    "--require-index-state and --from-dir need --index");
	if (a->index != NULL && (cli_is_url(a->archive) ||
	    a->checks.verify.sig_path != NULL))
		return cli_usage_error(&cmd_install_usage, "with --index, give "
		    "ID[@VERSION|@RANGE], not an archive or --sig");
	return strcmp(a->archive, "-") == 0 ? stdin_archive(a) : EXIT_OK;
}

/* install - --sig FILE: the archive on standard input, named by its
 * signature's file name less ".sig" (the signed subject's name). */
static int
stdin_archive(struct install_args *a)
{
	const char *sig = a->checks.verify.sig_path, *base;
	size_t n;

	if (sig == NULL || cli_is_url(sig))
		return cli_usage_error(&cmd_install_usage, "install - reads the "
		    "archive from standard input: give its signature as --sig "
		    "FILE");
	base = strrchr(sig, '/') != NULL ? strrchr(sig, '/') + 1 : sig;
	n = strlen(base);
	if (n <= 4 || n - 4 >= sizeof(a->stdin_name) ||
	    strcmp(base + n - 4, ".sig") != 0)
		return cli_usage_error(&cmd_install_usage, "install - names the "
		    "archive after its signature: --sig must be ARCHIVE.sig, "
		    "found '%s'", sig);
	memcpy(a->stdin_name, base, n - 4);
	a->stdin_name[n - 4] = '\0';
	a->archive = a->shown = a->stdin_name;
	a->o.has_archive_fd = 1;
	a->o.archive_fd = STDIN_FILENO;
	return EXIT_OK;
}

/* The most --accept-diff reads: a diff --json of the largest upgrade
 * (every file of a 1,000,000-entry pack) stays below it. */
#define ACCEPT_DIFF_MAX (512 * 1024 * 1024)

static int
read_accept_diff(const char *path, char **out)
{
	FILE *f = fopen(path, "rb");
	size_t n, size = 0, cap = 0;
	char *buf = NULL, *grown;

	if (f == NULL)
		return cli_fail("not_found", path, "cannot open --accept-diff: %s",
		    strerror(errno));
	do {
		if (cap - size < 65536) {
			cap = cap == 0 ? 65536 : cap * 2;
			if (cap > ACCEPT_DIFF_MAX + 65536 ||
			    (grown = realloc(buf, cap + 1)) == NULL) {
				free(buf);
				fclose(f);
				return cli_fail("accept_diff_invalid", path, "is not "
				    "a diff of at most %d bytes", ACCEPT_DIFF_MAX);
			}
			buf = grown;
		}
		n = fread(buf + size, 1, cap - size, f);
		size += n;
	} while (n > 0);
	fclose(f);
	buf[size] = '\0';
	if (strlen(buf) != size) {
		free(buf);
		return cli_fail("accept_diff_invalid", path, "holds a NUL byte: "
		    "not the output of packsign diff --json");
	}
	*out = buf;
	return EXIT_OK;
}

/* --index: the index verified and held against the state, ID[@SPEC]
 * resolved in it. */
static int
resolve_target(struct install_args *a, const char *data_dir)
{
	struct cli_index_source src;
	const char *at = NULL;
	char *id;
	ps_error err;
	int rc;

	/* Recorded by the install, under its lock. */
	cli_download_proxy(&a->fetch);
	src = (struct cli_index_source){ a->index, a->checks.verify.trust,
	    a->checks.verify.at, &a->fetch, data_dir,
	    a->index_o.require_state, 0, 0 };
	if ((rc = cli_split_target(&cmd_install_usage, a->archive, &at)) !=
	    EXIT_OK || (rc = cli_index_open(&src, &a->opened)) != EXIT_OK)
		return rc;
	id = at != NULL ? strndup(a->archive, (size_t)(at - a->archive)) :
	    strdup(a->archive);
	if (id == NULL)
		return cli_fail_oom();
	rc = ps_index_resolve(a->opened.index, id, at != NULL ? at + 1 : NULL,
	    a->index_o.allow_yanked, &a->entry, &err);
	free(id);
	return rc != 0 ? cli_report(&err) : EXIT_OK;
}

static int
run_install(struct install_args *a)
{
	ps_trust *policy = NULL;
	char *data_dir = NULL;
	int rc;

	char *accepted = NULL;

	rc = cli_checks_load_policy(&a->checks, &policy);
	if (rc == EXIT_OK && a->accept_diff != NULL)
		rc = read_accept_diff(a->accept_diff, &accepted);
	a->o.accept_diff = accepted;
	if (rc == EXIT_OK)
		rc = cli_data_dir(a->data_dir, &data_dir);
	if (rc == EXIT_OK && a->index != NULL)
		rc = resolve_target(a, data_dir);
	if (rc == EXIT_OK)
		rc = cli_install_run(a, data_dir);
	cli_index_close(&a->opened);
	free(accepted);
	free(data_dir);
	ps_trust_free(policy);
	return rc;
}

int
cmd_install(int argc, char **argv)
{
	struct install_args a;
	int rc;

	rc = parse_install(argc, argv, &a);
	if (rc != EXIT_OK)
		return rc == CLI_HELP ? EXIT_OK : rc;
	return run_install(&a);
}
