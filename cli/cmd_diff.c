/* packsign diff: what changed between two versions of a pack. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/checks.h"
#include "cli/cli.h"
#include "cli/copies.h"
#include "cli/diff_report.h"
#include "cli/json.h"
#include "cli/options.h"
#include "cli/output.h"

const struct cli_usage cmd_diff_usage = {
	.name = "diff",
	.text =
    "usage: packsign diff OLD NEW [--trust POLICY | -p KEY.pub] [--at TIME]\n"
    "           [--old-sig F | --old-bundle F] [--new-sig F | --new-bundle F]\n"
    "           [--signed-by ID] [--source-repo URL]\n"
    "           [--source-commit HASH] [--require-source] [--allow-dirty]\n"
    "           [--lang en|zh] [--json | --stat] [--files] [--lines N] [-q]\n"
    "       packsign diff --installed ID[@VERSION] NEW [--data-dir DIR]\n"
    "           [--format F] ...\n"
    "\n"
    "Compares two versions of one pack and prints what changed, most\n"
    "important first: trust (signers, keys, source, first_party), what the\n"
    "pack may do (its format's permissions), prompt files (with a bounded\n"
    "unified diff), code, and other files.  Each widening change, one by\n"
    "which the new version may do more, is marked with the consent class an\n"
    "upgrade asks for (docs/formats/diff.md).\n"
    "\n"
    "OLD and NEW are each a signed archive (verified first, every file\n"
    "hashed: --trust or -p is required), a pack directory (compared without\n"
    "trust) or an installed tree (its receipt; its manifest and prompt files\n"
    "must still match it).  --installed ID[@VERSION] takes OLD from the data\n"
    "directory: that version, or the newest.\n"
    "\n"
    "  --trust POLICY   the trust policy for archives\n"
    "  -p KEY.pub       trust exactly this key\n"
    "  --at TIME        judge key windows at TIME (YYYY-MM-DDTHH:MM:SSZ)\n"
    "  --old-sig F      OLD's signature (default OLD.sig)\n"
    "  --new-sig F      NEW's signature (default NEW.sig)\n"
    "  --old-bundle F, --new-bundle F\n"
    "                   read OLD's (NEW's) signature from this Sigstore\n"
    "                   bundle, key-based or keyless, instead of its .sig\n"
    "  --signed-by ID, --source-repo URL, --source-commit HASH,\n"
    "  --require-source, --allow-dirty\n"
    "                   as for verify, applied to each archive\n"
    "  --installed ID[@VERSION]  OLD is this installed pack\n"
    "  --data-dir DIR   for --installed; default $PACKSIGN_DATA_DIR, else\n"
    "                   $XDG_DATA_HOME/packsign, else ~/.local/share/packsign\n"
    "  --format F       for --installed: the id's format\n"
    "  --lang en|zh     language of the report (default: from LC_ALL,\n"
    "                   LC_MESSAGES or LANG, zh* Chinese, else en)\n"
    "  --json           the diff as one JSON object (diff.md, \"JSON\")\n"
    "  --stat           counts instead of text diffs\n"
    "  --files          list every other file, not only their counts\n"
    "  --lines N        lines of each text diff (default 200)\n"
    "  -q, --quiet      print nothing (as git diff --quiet): the exit\n"
    "                   status says whether they differ\n"
    "\n"
    "Exit status: 0 no differences, 1 differences, 2 the comparison could\n"
    "not be made (a refused signature too), its code printed.\n",
};

struct diff_args {
	struct cli_checks checks;
	const char *old_sig, *new_sig;
	const char *old_bundle, *new_bundle;   /* --old-bundle, --new-bundle */
	const char *installed;       /* ID[@VERSION] */
	const char *at;              /* its '@', or NULL */
	const char *data_dir;
	ps_format format;
	const char *lang;
	int json, stat, files;
	uint64_t lines;
	const char *old_path, *new_path;
};

static int
check_args(struct diff_args *a, const struct cli_operands *rest)
{
	const struct cli_checks *k = &a->checks;

	if (rest->count != (a->installed != NULL ? 1 : 2))
		return cli_usage_error(&cmd_diff_usage, a->installed != NULL ?
		    "with --installed, give only NEW" : "expected OLD and NEW");
	a->old_path = a->installed != NULL ? NULL : rest->argv[0];
	a->new_path = rest->argv[rest->count - 1];
	if (k->policy != NULL && k->pubkey != NULL)
		return cli_usage_error(&cmd_diff_usage, "give one of --trust "
		    "POLICY and -p KEY.pub, not both");
	if ((a->old_sig != NULL && a->old_bundle != NULL) ||
	    (a->new_sig != NULL && a->new_bundle != NULL) ||
	    (a->installed != NULL && a->old_bundle != NULL))
		return cli_usage_error(&cmd_diff_usage, "a side's signature is "
		    "its .sig, --old-sig/--new-sig F or --old-bundle/--new-bundle "
		    "F, one of them (--installed: the receipt's)");
	if (a->installed != NULL && cli_split_target(&cmd_diff_usage,
	    a->installed, &a->at) != EXIT_OK)
		return EXIT_FAILED;
	if (strcmp(a->lang, "en") != 0 && strcmp(a->lang, "zh") != 0)
		return cli_usage_error(&cmd_diff_usage, "--lang must be en or "
		    "zh, found '%s'", a->lang);
	if (a->json && a->stat)
		return cli_usage_error(&cmd_diff_usage, "--json holds the "
		    "counts; give one of --json and --stat");
	if (a->lines > 100000)
		return cli_usage_error(&cmd_diff_usage, "--lines is at most "
		    "100000");
	return EXIT_OK;
}

static int
parse_diff(int argc, char **argv, struct diff_args *a)
{
	ps_verify_options *v = &a->checks.verify;
	const struct cli_option options[] = {
		CLI_STRING(0, "trust", &a->checks.policy),
		CLI_STRING('p', NULL, &a->checks.pubkey),
		CLI_CALLBACK(0, "at", &v->at, cli_parse_time),
		CLI_STRING(0, "signed-by", &v->signed_by),
		CLI_STRING(0, "source-repo", &v->source_repo),
		CLI_STRING(0, "source-commit", &v->source_commit),
		CLI_FLAG(0, "require-source", &v->require_source),
		CLI_FLAG(0, "allow-dirty", &v->allow_dirty),
		CLI_STRING(0, "old-sig", &a->old_sig),
		CLI_STRING(0, "new-sig", &a->new_sig),
		CLI_STRING(0, "old-bundle", &a->old_bundle),
		CLI_STRING(0, "new-bundle", &a->new_bundle),
		CLI_STRING(0, "installed", &a->installed),
		CLI_STRING(0, "data-dir", &a->data_dir),
		CLI_CALLBACK(0, "format", &a->format, cli_parse_format),
		CLI_STRING(0, "lang", &a->lang),
		CLI_FLAG(0, "json", &a->json),
		CLI_FLAG(0, "stat", &a->stat),
		CLI_FLAG(0, "files", &a->files),
		CLI_CALLBACK(0, "lines", &a->lines, cli_parse_limit),
		CLI_FLAG('q', "quiet", &a->checks.quiet),
		CLI_END
	};
	struct cli_operands rest;
	int rc;

	memset(a, 0, sizeof(*a));
	ps_verify_options_init(&a->checks.verify);
	a->format = PS_FORMAT_UNKNOWN;
	a->lang = cli_lang_default();
	rc = cli_parse_options(&cmd_diff_usage, options, argc, argv, &rest);
	return rc != EXIT_OK ? rc : check_args(a, &rest);
}

/* ------------------------------------------------------------- the sides */

static int
is_directory(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A directory is an installed tree when a receipt names it, else a pack
 * directory; anything else is an archive. */
static int
open_path(const char *path, const char *sig, const char *const *bundle,
    const ps_diff_options *o, ps_diff_side **side, ps_error *err)
{
	ps_diff_options mine = *o;

	if (is_directory(path)) {
		if (ps_diff_side_installed_path(path, o->verify.trust, side,
		    err) == 0)
			return 0;
		if (!ps_error_is(err, PS_CODE_NOT_INSTALLED))
			return -1;
		ps_error_clear(err);
		return ps_diff_side_open(path, o, side, err);
	}
	if (o->verify.trust == NULL)
		return cli_error_set(err, PS_STATUS_FAILED, "invalid_argument",
		    path, "is an archive, verified before it is compared: give "
		    "--trust POLICY or -p KEY.pub");
	mine.verify.sig_path = sig;
	if (*bundle != NULL) {
		mine.verify.bundle_paths = bundle;
		mine.verify.bundle_count = 1;
	}
	return ps_diff_side_open(path, &mine, side, err);
}

static int
open_installed(const struct diff_args *a, const char *data_dir,
    const ps_diff_options *o, ps_diff_side **side, ps_error *err)
{
	char *id;
	int rc;

	id = a->at != NULL ? strndup(a->installed, (size_t)(a->at -
	    a->installed)) : strdup(a->installed);
	rc = id == NULL ? cli_error_oom(err) : ps_diff_side_installed(data_dir,
	    a->format, id, a->at != NULL ? a->at + 1 : NULL, o->verify.trust,
	    side, err);
	free(id);
	return rc;
}

static int
compare(const struct diff_args *a, const char *data_dir, ps_diff **diff,
    ps_error *err)
{
	ps_diff_side *old_side = NULL, *new_side = NULL;
	ps_diff_options o;
	int rc;

	ps_diff_options_init(&o);
	o.verify = a->checks.verify;
	o.text_lines_max = a->lines > 0 ? (size_t)a->lines : 200;
	rc = a->installed != NULL ? open_installed(a, data_dir, &o, &old_side,
	    err) :
	    open_path(a->old_path, a->old_sig, &a->old_bundle, &o, &old_side,
	    err);
	if (rc == 0)
		rc = open_path(a->new_path, a->new_sig, &a->new_bundle, &o,
		    &new_side, err);
	if (rc == 0)
		rc = ps_diff_compare(old_side, new_side, &o, diff, err);
	ps_diff_side_free(old_side);
	ps_diff_side_free(new_side);
	return rc;
}

static int
print_result(const struct diff_args *a, const ps_diff *d)
{
	struct cli_diff_style style = { strcmp(a->lang, "zh") == 0 ? PS_LANG_ZH :
	    PS_LANG_EN, a->stat, a->files, PS_CONSENT_DEFAULT };
	ps_error err;
	char *json = NULL;

	if (a->checks.verify.trust != NULL)
		style.asked = a->checks.verify.trust->consent;
	if (!a->json) {
		if (!a->checks.quiet)
			cli_diff_print(stdout, d, &style);
		return EXIT_OK;
	}
	ps_error_clear(&err);
	if (ps_diff_to_json(d, &json, &err) != 0) {
		cli_print_error(&err);
		return EXIT_FAILED;
	}
	puts(json);
	free(json);
	return EXIT_OK;
}

int
cmd_diff(int argc, char **argv)
{
	struct diff_args a;
	ps_trust *policy = NULL;
	ps_copies *copies = NULL;
	char *data_dir = NULL;
	ps_diff *d = NULL;
	ps_error err;
	int rc;

	if ((rc = parse_diff(argc, argv, &a)) != EXIT_OK)
		return rc == CLI_HELP ? EXIT_OK : rc;
	if (cli_checks_load_policy(&a.checks, &policy) != EXIT_OK)
		return EXIT_FAILED;
	if ((a.installed != NULL && cli_data_dir(a.data_dir, &data_dir) !=
	    EXIT_OK) || cli_copies_open(a.data_dir, &copies) != EXIT_OK) {
		ps_trust_free(policy);
		free(data_dir);
		return EXIT_FAILED;
	}
	a.checks.verify.limits.copies = copies;
	ps_error_clear(&err);
	if (compare(&a, data_dir, &d, &err) != 0) {
		/* Whatever stopped the comparison, refusals too: exit 2, as
		 * 1 means "they differ" here (docs/errors.md). */
		cli_print_error(&err);
		rc = EXIT_FAILED;
	} else {
		rc = print_result(&a, d);
		if (rc == EXIT_OK && !ps_diff_empty(d))
			rc = EXIT_REFUSED;
	}
	ps_diff_free(d);
	ps_trust_free(policy);
	ps_copies_free(copies);
	free(data_dir);
	return rc;
}
