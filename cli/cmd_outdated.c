/* packsign outdated: the installed packs a signed index has newer
 * versions of, and whether upgrading would widen what they may do. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/checks.h"
#include "cli/cli.h"
#include "cli/copies.h"
#include "cli/download_options.h"
#include "cli/index_source.h"
#include "cli/json.h"
#include "cli/options.h"
#include "cli/output.h"

const struct cli_usage cmd_outdated_usage = {
	.name = "outdated",
	.text =
    "usage: packsign outdated --index FILE|URL (--trust POLICY | -p KEY.pub)\n"
    "           [--data-dir DIR] [--no-widening-check] [--at TIME]\n"
    "           [--require-index-state] [--json] [-q]\n"
    "           " CLI_DOWNLOAD_USAGE "\n"
    "\n"
    "Verifies the signed pack index (as `packsign index verify` does, and\n"
    "records it as seen) and lists, for each installed pack, its newest\n"
    "installed version and the newest version the index lists that is not\n"
    "yanked and not a prerelease.  For each newer one it downloads the\n"
    "archive the index lists (capped at its size) and its .sig, checks\n"
    "they are the entry's, verifies them, and compares them with the\n"
    "installed version as `packsign diff` does, to say which consent\n"
    "classes the upgrade widens; --no-widening-check skips the downloads.\n"
    "\n"
    "  --index FILE|URL     the signed pack index\n"
    "  --trust POLICY, -p KEY.pub\n"
    "                       who may sign the index and the packs\n"
    "  --data-dir DIR       the installed packs (default as install)\n"
    "  --no-widening-check  do not download newer versions\n"
    "  --at TIME            judge expiry and key windows at TIME\n"
    "  --require-index-state\n"
    "                       refuse a publisher never seen here unless the\n"
    "                       policy sets its min_index_version\n"
    "  --json               print one JSON object\n"
    "  -q, --quiet          print nothing: the exit status says whether\n"
    "                       something is outdated\n"
    CLI_DOWNLOAD_FLAGS_HELP
    "\n"
    "Exit status: 0 nothing is outdated, 1 something is (or the index was\n"
    "refused), 2 the job could not be done.\n",
};

struct outdated_args {
	struct cli_checks checks;
	ps_fetch_options fetch;
	const char *index, *data_dir;
	int no_widening_check, require_state, json;
};

static int
parse_outdated(int argc, char **argv, struct outdated_args *a)
{
	const struct cli_option options[] = {
		CLI_STRING(0, "index", &a->index),
		CLI_STRING(0, "trust", &a->checks.policy),
		CLI_STRING('p', NULL, &a->checks.pubkey),
		CLI_STRING(0, "data-dir", &a->data_dir),
		CLI_FLAG(0, "no-widening-check", &a->no_widening_check),
		CLI_FLAG(0, "require-index-state", &a->require_state),
		CLI_CALLBACK(0, "at", &a->checks.verify.at, cli_parse_time),
		CLI_FLAG(0, "json", &a->json),
		CLI_FLAG('q', "quiet", &a->checks.quiet),
		CLI_DOWNLOAD_OPTIONS(&a->fetch),
		CLI_END
	};
	struct cli_operands rest;
	int rc;

	memset(a, 0, sizeof(*a));
	ps_verify_options_init(&a->checks.verify);
	ps_fetch_options_init(&a->fetch);
	rc = cli_parse_options(&cmd_outdated_usage, options, argc, argv, &rest);
	if (rc != EXIT_OK)
		return rc;
	if (rest.count != 0)
		return cli_usage_error(&cmd_outdated_usage, "unexpected argument "
		    "'%s'", rest.argv[0]);
	if (a->index == NULL)
		return cli_usage_error(&cmd_outdated_usage, "missing --index");
	if (cli_checks_one_policy(&cmd_outdated_usage, &a->checks) != EXIT_OK)
		return EXIT_FAILED;
	return EXIT_OK;
}

/* -------------------------------------------------- the widening check */

/* The consent classes the upgrade from the installed version to the
 * index's entry widens: the entry downloaded into private copies,
 * bound to the entry and verified once, its side built in that pass. */
static int
widening(const struct cli_index *ci, const ps_index_entry *e,
    const ps_installed *inst, const char *data_dir,
    const struct outdated_args *a, unsigned *classes, ps_error *err)
{
	ps_diff_side *old_side = NULL, *new_side = NULL;
	ps_diff_options dopt;
	ps_diff *diff = NULL;
	unsigned bit;
	int rc;

	ps_diff_options_init(&dopt);
	dopt.verify = a->checks.verify;
	rc = ps_diff_side_installed(data_dir, inst->format, inst->id,
	    inst->version, dopt.verify.trust, &old_side, err) != 0 ||
	    ps_index_diff_side(ci->index, e, &dopt, &a->fetch, &new_side,
	    err) != 0 ||
	    ps_diff_compare(old_side, new_side, &dopt, &diff, err) != 0 ? -1 : 0;
	*classes = 0;
	for (bit = 1; rc == 0 && bit <= PS_CONSENT_CODE; bit <<= 1) {
		if (ps_diff_consent_needed(diff, bit) > 0)
			*classes |= bit;
	}
	ps_diff_free(diff);
	ps_diff_side_free(old_side);
	ps_diff_side_free(new_side);
	return rc;
}

/* -------------------------------------------------------------- report */

struct outdated_row {
	const ps_installed *inst;
	const ps_index_entry *newest;    /* NULL: the index has none */
	int outdated;
	int checked;                     /* the widening check ran */
	unsigned widened;
};

static json_t *
row_json(const struct outdated_row *row)
{
	char classes[64];

	ps_consent_class_list(row->widened, classes, sizeof(classes));
	return json_pack("{s:s,s:s,s:s,s:o,s:b,s:o}", "format",
	    ps_format_name(row->inst->format), "id", row->inst->id,
	    "installed", row->inst->version, "newest", cli_json_text(
	    row->newest != NULL ? row->newest->version : NULL), "outdated",
	    row->outdated, "widens", row->checked ? json_string(classes) :
	    json_null());
}

static void
row_text(const struct outdated_row *row)
{
	char classes[64];

	cli_put_safe(stdout, row->inst->id);
	printf(" %s: ", row->inst->version);
	if (row->newest == NULL) {
		puts("not in the index");
		return;
	}
	printf("%s ", row->outdated ? "newer" : "newest indexed");
	cli_put_safe(stdout, row->newest->version);
	ps_consent_class_list(row->widened, classes, sizeof(classes));
	if (!row->outdated)
		puts(" (up to date)");
	else if (!row->checked)
		puts(" (widening not checked)");
	else
		printf(", widens %s\n", row->widened == 0 ? "nothing" : classes);
}

static int
check_row(struct outdated_row *row, const struct cli_index *ci,
    const char *data_dir, const struct outdated_args *a)
{
	ps_error err;

	row->newest = ps_index_newest(ci->index, row->inst->format,
	    row->inst->id);
	row->outdated = row->newest != NULL && ps_version_compare(
	    row->newest->version, row->inst->version) > 0;
	if (!row->outdated || a->no_widening_check)
		return EXIT_OK;
	if (widening(ci, row->newest, row->inst, data_dir, a, &row->widened,
	    &err) != 0)
		return cli_report(&err);
	row->checked = 1;
	return EXIT_OK;
}

static int
report(const struct outdated_args *a, const struct outdated_row *rows,
    size_t count, const struct cli_index *ci)
{
	json_t *list;
	size_t i;

	if (!a->json) {
		for (i = 0; !a->checks.quiet && i < count; i++)
			row_text(&rows[i]);
		return EXIT_OK;
	}
	list = json_array();
	for (i = 0; list != NULL && i < count; i++)
		json_array_append_new(list, row_json(&rows[i]));
	return cli_print_report(json_pack("{s:s,s:I,s:o,s:o}", "publisher",
	    ci->index->publisher, "index_version",
	    (json_int_t)ci->index->version, "index_state",
	    cli_index_state_json(ci), "packs", list), a->index);
}

/* Every installed id, at its newest installed version. */
static int
check_all(const struct outdated_args *a, const struct cli_index *ci,
    const char *data_dir, const ps_installed_list *list, int *outdated)
{
	struct outdated_row *rows = calloc(list->count + 1, sizeof(*rows));
	size_t i, n = 0;
	int rc = EXIT_OK;

	if (rows == NULL)
		return cli_fail_oom();
	for (i = 0; rc == EXIT_OK && i < list->count; i++) {
		if (!list->items[i].newest)
			continue;
		rows[n].inst = &list->items[i];
		rc = check_row(&rows[n], ci, data_dir, a);
		*outdated |= rows[n++].outdated;
	}
	if (rc == EXIT_OK)
		rc = report(a, rows, n, ci);
	free(rows);
	return rc;
}

static int
run_outdated(struct outdated_args *a)
{
	struct cli_index_source src;
	struct cli_index ci;
	ps_installed_list *list = NULL;
	ps_trust *policy = NULL;
	char *data_dir = NULL;
	int rc, outdated = 0;
	ps_error err;

	memset(&ci, 0, sizeof(ci));

	rc = cli_checks_load_policy(&a->checks, &policy);
	cli_download_setup(&a->fetch, &a->checks.verify);
	if (rc == EXIT_OK)
		rc = cli_data_dir(a->data_dir, &data_dir);
	src = (struct cli_index_source){ a->index, policy, a->checks.verify.at,
	    &a->fetch, data_dir, a->require_state, a->json, 1 };
	if (rc == EXIT_OK)
		rc = cli_index_open(&src, &ci);
	if (rc == EXIT_OK && ps_installed_list_load(data_dir, &list, &err) != 0)
		rc = cli_report(&err);
	if (rc == EXIT_OK)
		rc = check_all(a, &ci, data_dir, list, &outdated);
	ps_installed_list_free(list);
	cli_index_close(&ci);
	ps_trust_free(policy);
	free(data_dir);
	return rc == EXIT_OK && outdated ? EXIT_REFUSED : rc;
}

int
cmd_outdated(int argc, char **argv)
{
	struct outdated_args a;
	ps_copies *copies;
	int rc;

	rc = parse_outdated(argc, argv, &a);
	if (rc != EXIT_OK)
		return rc == CLI_HELP ? EXIT_OK : rc;
	if (cli_copies_open(a.data_dir, &copies) != EXIT_OK)
		return EXIT_FAILED;
	a.checks.verify.limits.copies = copies;
	rc = run_outdated(&a);
	ps_copies_free(copies);
	return rc;
}
