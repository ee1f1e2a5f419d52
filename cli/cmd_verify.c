/* packsign verify: checks signed archives against a trust policy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/checks.h"
#include "cli/keyless_report.h"
#include "cli/cli.h"
#include "cli/copies.h"
#include "cli/installed_report.h"
#include "cli/json.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "cli/verify_batch.h"
#include "cli/verify_installed.h"

const struct cli_usage cmd_verify_usage = {
	.name = "verify",
	.text =
    "usage: packsign verify ARCHIVE... [--sig F] [--jobs N]\n"
    "           (--trust POLICY | -p KEY.pub)\n"
    "           [--signed-by ID] [--source-repo URL] [--source-commit HASH]\n"
    "           [--require-source] [--allow-dirty] [--rebuild-from GITDIR]\n"
    "           [--deep] [--at TIME] [--json] [-q]\n"
    "           " CLI_LIMIT_USAGE "\n"
    "       packsign verify --files-from LIST [--jobs N]\n"
    "           (--trust POLICY | -p KEY.pub) ...\n"
    "       packsign verify ARCHIVE --bundle B [--bundle B...]\n"
    "           [--trusted-root F] (--trust POLICY | -p KEY.pub) ...\n"
    "       packsign verify DIR --sig F (--trust POLICY | -p KEY.pub) ...\n"
    "       packsign verify --installed PATH|ID[@VERSION]...\n"
    "           [--data-dir DIR] [--format F] [--trust POLICY | -p KEY.pub]\n"
    "           [--at TIME] [--json]\n"
    "\n"
    "Verifies each ARCHIVE against ARCHIVE.sig in the order of\n"
    "docs/formats/signature.md, section 3: signatures under the policy's keys\n"
    "(threshold of distinct identities), the statement, the archive's SHA-256,\n"
    "every entry, the manifest, signed_by, the signers' permission ceilings\n"
    "(the policy's may:), then provenance.  An unpacked directory is checked\n"
    "by its tree and prompt digests (the archive's own digest cannot be).\n"
    "Each refusal is one line naming the check, the expected and the found\n"
    "value and a code; exit 1 if any archive is refused, 2 if the job could\n"
    "not be done.  Rules added after a pack could have been signed only warn\n"
    "(\"packsign: warning: \" on stderr, \"warnings\" in --json).  Several\n"
    "ARCHIVEs are verified N at once (--jobs), as --files-from verifies\n"
    "them, each reported in its place, without a progress line.\n"
    "\n"
    "With --files-from, the archives are LIST's lines (\"-\": standard\n"
    "input), read as a stream: one path a line, ending in LF; empty lines\n"
    "skipped; a line over PATH_MAX - 1 bytes, ending in CR or holding a NUL\n"
    "is reported in its place (exit 2) and the list read on.  N archives are\n"
    "verified at once, the policy loaded once for all, and each is reported\n"
    "as today, in the list's order, as soon as it and those before it are\n"
    "done; --json prints one object a line (JSON Lines), without the\n"
    "summary.  An empty list is files_from_empty (exit 2).\n"
    "\n"
    "With --installed, each operand is an installed pack's tree: its PATH\n"
    "(as `packsign list` shows it), or ID[@VERSION] of the data directory\n"
    "(as uninstall takes it: that version, or every installed version of\n"
    "ID, first; else the operand is a path).  Every file is\n"
    "hashed again and compared with the install receipt, and every\n"
    "modified, added or missing path is printed (\"modified: \", \"added: \",\n"
    "\"missing: \"); exit 1 when any is found.  With a policy, the receipt's\n"
    "signature is verified again too.\n"
    "\n"
    CLI_CHECK_FLAGS_HELP
    "  --rebuild-from GITDIR\n"
    "                       rebuild the tar from the recorded commit and path\n"
    "                       in GITDIR and compare its tar digest\n"
    "  --deep               also hash every file and compare the tree\n"
    "                       digest (default: the archive digest covers all)\n"
    "  --at TIME            judge key windows at TIME (YYYY-MM-DDTHH:MM:SSZ)\n"
    "  --installed          the operands are installed trees (PATH or\n"
    "                       ID[@VERSION]), not archives\n"
    "  --data-dir DIR       --installed: where ID is installed (default\n"
    "                       $PACKSIGN_DATA_DIR, else $XDG_DATA_HOME/packsign,\n"
    "                       else ~/.local/share/packsign)\n"
    "  --format F           --installed: soyapack, holon, autograph or\n"
    "                       agentpack, when ID is installed in two formats\n"
    "  --bundle B           read the signatures from the Sigstore bundle B\n"
    "                       instead of the .sig (repeatable: the bundles'\n"
    "                       signatures over one payload count together);\n"
    "                       its transparency-log entries and timestamps,\n"
    "                       when it carries any, must verify too\n"
    "  --trusted-root F     with --bundle: the Sigstore trusted root those\n"
    "                       are verified against (default: the compiled-in\n"
    "                       public-good root)\n"
    CLI_LIMIT_FLAGS_HELP
    "  --files-from LIST    verify the archives LIST names, one a line\n"
    "                       (\"-\": standard input); no ARCHIVE then\n"
    "  --jobs N             several archives (operands or --files-from):\n"
    "                       verify N at once, 1 to 64 (default: the\n"
    "                       online CPUs), reported in their order\n"
    "  --json               print the full report as one JSON object\n"
    "                       (--files-from: one object per archive a line)\n"
    "  -q, --quiet          print nothing on success: no progress line, no\n"
    "                       Good signature or ok lines, no closing line when\n"
    "                       all verified (refusals, modified paths and\n"
    "                       warnings are printed as always)\n",
};

#define VERIFY_MAX_BUNDLES 64

struct bundle_list {
	const char *paths[VERIFY_MAX_BUNDLES];
	size_t count;
};

struct verify_args {
	struct cli_checks checks;
	struct bundle_list bundles;
	const char *trusted_root;    /* --trusted-root F, or NULL */
	ps_sigstore_root *root;      /* loaded from it */
	int json, installed;
	const char *data_dir;        /* --installed: where ID is */
	ps_format format;
	char **paths;
	int count;
	const char *files_from;      /* --files-from LIST, or NULL */
	int jobs;                    /* --jobs; 0: not given */
};

/* The first archive-only flag given, or NULL. */
static const char *
archive_only_flag(const ps_verify_options *o)
{
	if (o->sig_path != NULL)
		return "--sig";
	if (o->signed_by != NULL)
		return "--signed-by";
	if (o->source_repo != NULL)
		return "--source-repo";
	if (o->source_commit != NULL)
		return "--source-commit";
	if (o->require_source || o->allow_dirty)
		return o->require_source ? "--require-source" : "--allow-dirty";
	if (o->rebuild_from != NULL)
		return "--rebuild-from";
	return o->deep ? "--deep" : NULL;
}

static int
parse_bundle(const struct cli_usage *cmd, const struct cli_option *opt,
    const char *arg)
{
	struct bundle_list *list = opt->value;

	if (list->count >= VERIFY_MAX_BUNDLES)
		return cli_usage_error(cmd, "at most %d --bundle files",
		    VERIFY_MAX_BUNDLES);
	if (arg[0] == '\0')
		return cli_usage_error(cmd, "--bundle names a file");
	list->paths[list->count++] = arg;
	return EXIT_OK;
}

static int
parse_jobs(const struct cli_usage *cmd, const struct cli_option *opt,
    const char *arg)
{
	long long n;

	if (cli_parse_int64(arg, 1, CLI_BATCH_MAX_JOBS, &n) != 0)
		return cli_usage_error(cmd, "--jobs takes a number from 1 to %d, "
		    "not \"%s\"", CLI_BATCH_MAX_JOBS, arg);
	*(int *)opt->value = (int)n;
	return EXIT_OK;
}

/* --files-from and --jobs (which applies to operands too) against the
 * rest; an exit code. */
static int
check_list_args(const struct verify_args *a)
{
	if (a->files_from == NULL)
		return a->jobs == 0 || !a->installed ? EXIT_OK :
		    cli_usage_error(&cmd_verify_usage, "--jobs verifies "
		    "archives; it does not apply to --installed");
	if (a->count > 0)
		return cli_usage_error(&cmd_verify_usage, "give the archives "
		    "either as operands or with --files-from, not both");
	if (a->installed || a->bundles.count > 0)
		return cli_usage_error(&cmd_verify_usage, "--files-from "
		    "verifies archives; it does not apply to %s",
		    a->installed ? "--installed" : "--bundle");
	if (a->checks.verify.sig_path != NULL)
		return cli_usage_error(&cmd_verify_usage, "--sig names the "
		    "signature of one ARCHIVE; --files-from reads each "
		    "ARCHIVE.sig");
	if (a->files_from[0] == '\0')
		return cli_usage_error(&cmd_verify_usage,
		    "--files-from names a file, or - for standard input");
	return EXIT_OK;
}

static int
check_bundle_args(const struct verify_args *a)
{
	if (a->bundles.count == 0)
		return a->trusted_root == NULL ? EXIT_OK : cli_usage_error(
		    &cmd_verify_usage, "--trusted-root applies to --bundle");
	if (a->installed)
		return cli_usage_error(&cmd_verify_usage, "--bundle checks an "
		    "archive; it does not apply to --installed");
	if (a->checks.verify.sig_path != NULL)
		return cli_usage_error(&cmd_verify_usage,
		    "give one of --sig and --bundle, not both");
	if (a->count > 1)
		return cli_usage_error(&cmd_verify_usage, "--bundle names the "
		    "signatures of one ARCHIVE, %d were given", a->count);
	return EXIT_OK;
}

static int
check_args(const struct verify_args *a)
{
	const struct cli_checks *k = &a->checks;
	const char *flag = archive_only_flag(&k->verify);

	if ((a->files_from != NULL || a->jobs != 0) &&
	    check_list_args(a) != EXIT_OK)
		return EXIT_FAILED;
	if (a->files_from == NULL && a->count == 0)
		return cli_usage_error(&cmd_verify_usage, a->installed ?
		    "missing PATH or ID" : "missing ARCHIVE");
	if (a->installed && flag != NULL)
		return cli_usage_error(&cmd_verify_usage, "%s checks an "
		    "archive; it does not apply to --installed", flag);
	if (!a->installed && (a->data_dir != NULL ||
	    a->format != PS_FORMAT_UNKNOWN))
		return cli_usage_error(&cmd_verify_usage, "--data-dir and "
		    "--format name installed packs: they need --installed");
	if (a->count > 1 && k->verify.sig_path != NULL)
		return cli_usage_error(&cmd_verify_usage, "--sig names the "
		    "signature of one ARCHIVE, %d were given", a->count);
	if (k->policy != NULL && k->pubkey != NULL)
		return cli_usage_error(&cmd_verify_usage,
		    "give one of --trust POLICY and -p KEY.pub, not both");
	if (!a->installed && k->policy == NULL && k->pubkey == NULL)
		return cli_usage_error(&cmd_verify_usage,
		    "give one of --trust POLICY and -p KEY.pub");
	return check_bundle_args(a);
}

static int
parse_verify(int argc, char **argv, struct verify_args *a)
{
	const struct cli_option options[] = {
		CLI_CHECK_OPTIONS(&a->checks),
		CLI_STRING(0, "rebuild-from", &a->checks.verify.rebuild_from),
		CLI_FLAG(0, "deep", &a->checks.verify.deep),
		CLI_FLAG(0, "installed", &a->installed),
		CLI_STRING(0, "data-dir", &a->data_dir),
		CLI_CALLBACK(0, "format", &a->format, cli_parse_format),
		CLI_CALLBACK(0, "bundle", &a->bundles, parse_bundle),
		CLI_STRING(0, "trusted-root", &a->trusted_root),
		CLI_FLAG(0, "json", &a->json),
		CLI_STRING(0, "files-from", &a->files_from),
		CLI_CALLBACK(0, "jobs", &a->jobs, parse_jobs),
		CLI_LIMIT_OPTIONS(&a->checks.verify.limits),
		CLI_END
	};
	struct cli_operands rest;
	int rc;

	memset(a, 0, sizeof(*a));
	ps_verify_options_init(&a->checks.verify);
	a->format = PS_FORMAT_UNKNOWN;
	rc = cli_parse_options(&cmd_verify_usage, options, argc, argv, &rest);
	if (rc != EXIT_OK)
		return rc;
	a->paths = rest.argv;
	a->count = rest.count;
	return check_args(a);
}

static json_t *
result_json(const char *path, const ps_verify_result *r, int rc,
    const ps_error *err)
{
	json_t *o = json_object();

	json_object_set_new(o, "path", cli_json_text(path));
	if (r != NULL) {
		cli_verify_json(o, r);
		json_object_set_new(o, "warnings", cli_json_diags(&r->warnings));
	}
	cli_json_error(o, rc, err);
	return o;
}

static void
print_source(const ps_verify_result *r)
{
	if (!r->has_source) {
		fputs("; no source recorded", stdout);
		return;
	}
	fputs(" from ", stdout);
	cli_put_safe(stdout, r->source_repository != NULL ?
	    r->source_repository : "(no repository recorded)");
	fputs(" @ ", stdout);
	cli_put_safe(stdout, r->source_commit);
	if (r->source_dirty)
		fputs(" (dirty)", stdout);
}

/* What the counted bundles' logs and timestamps proved (signature.md
 * 9.2): nothing is printed for signatures without any. */
static void
print_evidence(const ps_verify_result *r)
{
	char when[PS_TIME_TEXT_LEN];
	size_t i, logs = 0, stamps = 0;
	int64_t first = 0;
	const ps_verify_signature *s;

	for (i = 0; i < r->signature_count; i++) {
		s = &r->signatures[i];
		if (!s->counted)
			continue;
		logs += s->log_entry_count;
		stamps += s->timestamp_count;
		if (s->signing_time_count > 0 && (first == 0 ||
		    s->signing_times[0] < first))
			first = s->signing_times[0];
	}
	if (logs == 0 && stamps == 0)
		return;
	printf("; %zu transparency-log entr%s and %zu timestamp%s verified",
	    logs, logs == 1 ? "y" : "ies", stamps, stamps == 1 ? "" : "s");
	if (first != 0 && ps_time_format(first, when) == 0)
		printf(", signed by %s", when);
}

static void
print_good(const ps_verify_result *r)
{
	fputs("Good signature: ", stdout);
	cli_put_safe(stdout, r->id);
	fputc(' ', stdout);
	cli_put_safe(stdout, r->version);
	fputs(" by ", stdout);
	cli_print_signers(stdout, r);
	cli_keyless_print(stdout, r);
	print_source(r);
	cli_keyless_print_source(stdout, r);
	print_evidence(r);
	printf("; %zu prompt file%s verified", r->prompt_count,
	    r->prompt_count == 1 ? "" : "s");
	if (r->directory)
		fputs("; directory: tree and prompt digests checked, the "
		    "archive's own digest cannot be", stdout);
	fputc('\n', stdout);
}

static int
outcome_code(int rc, const ps_error *err)
{
	return rc == 0 ? EXIT_OK : err->status == PS_STATUS_REFUSED ?
	    EXIT_REFUSED : EXIT_FAILED;
}

/* Prints one outcome, or adds it to `report` (--json); its exit code. */
static int
report_one(const char *path, const ps_verify_result *r, int rc,
    const ps_error *err, const struct verify_args *a, json_t *report)
{
	if (a->json) {
		json_array_append_new(report, result_json(path, r, rc, err));
	} else {
		/* Warnings first: a refusal's line stays the last word. */
		cli_print_warnings(path, r != NULL ? &r->warnings : NULL);
		if (rc == 0 && r != NULL) {
			if (!a->checks.quiet)
				print_good(r);
		} else
			cli_report(err);
	}
	return outcome_code(rc, err);
}

/* Verifies one path; returns its exit code and adds to `report`. */
static int
verify_one(const char *path, const struct verify_args *a, json_t *report)
{
	ps_verify_options o = a->checks.verify;
	struct cli_progress progress;
	ps_verify_result *r = NULL;
	ps_error err;
	int rc, code;

	ps_error_clear(&err);
	o.bundle_paths = a->bundles.paths;
	o.bundle_count = a->bundles.count;
	o.sigstore_root = a->root;
	o.progress = cli_progress_start(&progress, a->checks.quiet);
	rc = ps_verify(path, &o, &r, &err);
	cli_progress_end(&progress);
	code = report_one(path, r, rc, &err, a, report);
	ps_verify_result_free(r);
	return code;
}

/* Where the pool reports the operands: printed, or into `results`. */
struct operands_report {
	const struct verify_args *a;
	json_t *results;
};

static int
report_operand(void *ctx, const char *path, const ps_verify_result *r,
    int rc, const ps_error *err)
{
	const struct operands_report *o = ctx;
	int code = report_one(path, r, rc, err, o->a, o->results);

	fflush(stdout);
	return code;
}

/* Several operands: the pool of --files-from, the same ordered output
 * (cli/verify_batch.c), at most one job per archive. */
static int
verify_operands(const struct verify_args *a, json_t *results,
    struct cli_batch_count *count)
{
	struct operands_report report = { a, results };
	struct cli_list list;
	struct cli_batch batch;
	int jobs = a->jobs != 0 ? a->jobs : cli_batch_default_jobs();

	cli_list_args(&list, a->paths, a->count);
	batch = (struct cli_batch){ .list = &list, .options = &a->checks.verify,
	    .jobs = jobs < a->count ? jobs : a->count,
	    .report = report_operand, .ctx = &report };
	return cli_verify_batch(&batch, count);
}

static int
verify_all(struct verify_args *a)
{
	json_t *results = json_array(), *report;
	struct cli_batch_count count = { 0, 0, EXIT_OK };
	int code, rc = EXIT_OK;

	if (a->count == 1) {
		count.worst = verify_one(a->paths[0], a, results);
		count.total = 1;
		count.good = count.worst == EXIT_OK;
	} else
		rc = verify_operands(a, results, &count);
	rc = rc > count.worst ? rc : count.worst;
	if (a->json) {
		report = json_pack("{s:b,s:I,s:I,s:o}", "ok", rc == EXIT_OK,
		    "verified", (json_int_t)count.good, "total",
		    (json_int_t)count.total, "results", results);
		code = cli_print_json(report);
		json_decref(report);
		return code != EXIT_OK ? code : rc;
	}
	json_decref(results);
	if (a->count > 1 && (rc != EXIT_OK || !a->checks.quiet))
		printf("%s: %llu of %llu verified\n", rc == EXIT_OK ?
		    "All good" : "FAILED", (unsigned long long)count.good,
		    (unsigned long long)count.total);
	return rc;
}

/* ------------------------------------------------ verify --files-from */

/* One archive of the list, as verify_one reports it; --json: one line. */
static int
report_listed(void *ctx, const char *path, const ps_verify_result *r,
    int rc, const ps_error *err)
{
	const struct verify_args *a = ctx;
	json_t *line;
	int code, out;

	if (!a->json) {
		code = report_one(path, r, rc, err, a, NULL);
		fflush(stdout);
		return code;
	}
	code = outcome_code(rc, err);
	line = result_json(path, r, rc, err);
	out = cli_print_json_line(line);
	json_decref(line);
	return out > code ? out : code;
}

/* verify --files-from LIST: the pool of cli/verify_batch.c. */
static int
verify_list(const struct verify_args *a)
{
	struct cli_list list;
	struct cli_batch batch;
	struct cli_batch_count count;
	ps_error err;
	int rc;

	if (cli_list_open(&list, a->files_from, &err) != 0)
		return cli_report(&err);
	batch = (struct cli_batch){ .list = &list, .options = &a->checks.verify,
	    .jobs = a->jobs != 0 ? a->jobs : cli_batch_default_jobs(),
	    .report = report_listed, .ctx = (void *)a };
	rc = cli_verify_batch(&batch, &count);
	cli_list_close(&list);
	if (rc == EXIT_OK && count.total == 0)
		return cli_fail("files_from_empty", cli_list_label(&list),
		    "read the --files-from list: it names no archive");
	rc = rc > count.worst ? rc : count.worst;
	if (!a->json && count.total > 1 && (rc != EXIT_OK || !a->checks.quiet))
		printf("%s: %llu of %llu verified\n", rc == EXIT_OK ?
		    "All good" : "FAILED", (unsigned long long)count.good,
		    (unsigned long long)count.total);
	return rc;
}

static int
run_verify(struct verify_args *a)
{
	struct cli_installed_targets t = { a->paths, a->count, a->data_dir,
	    a->format, NULL, a->checks.verify.at, a->json, a->checks.quiet };
	ps_trust *policy = NULL;
	ps_error err;
	int rc;

	rc = cli_checks_load_policy(&a->checks, &policy);
	t.trust = policy;
	if (rc == EXIT_OK && a->trusted_root != NULL &&
	    ps_sigstore_root_load(a->trusted_root, &a->root, &err) != 0)
		rc = cli_report(&err);
	if (rc == EXIT_OK)
		rc = a->installed ? cli_verify_installed(&t) :
		    a->files_from != NULL ? verify_list(a) : verify_all(a);
	ps_trust_free(policy);
	ps_sigstore_root_free(a->root);
	return rc;
}

int
cmd_verify(int argc, char **argv)
{
	struct verify_args a;
	ps_copies *copies;
	int rc;

	rc = parse_verify(argc, argv, &a);
	if (rc != EXIT_OK)
		return rc == CLI_HELP ? EXIT_OK : rc;
	/* One budget for every job of --files-from. */
	if (cli_copies_open(NULL, &copies) != EXIT_OK)
		return EXIT_FAILED;
	a.checks.verify.limits.copies = copies;
	rc = run_verify(&a);
	ps_copies_free(copies);
	return rc;
}
