/* packsign update: install the newest indexed version of installed packs,
 * with the consent and pin rules of an upgrade; never a downgrade. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/checks.h"
#include "cli/cli.h"
#include "cli/index_source.h"
#include "cli/install_run.h"
#include "cli/json.h"
#include "cli/options.h"
#include "cli/output.h"

const struct cli_usage cmd_update_usage = {
	.name = "update",
	.text =
    "usage: packsign update [ID...] --index FILE|URL\n"
    "           (--trust POLICY | -p KEY.pub) [--data-dir DIR] [--dry-run]\n"
    "           [--yes] [--accept CLASSES] [--allow-shell]\n"
    "           [--allow-signer-change] [--allow-source-change]\n"
    "           [--require-index-state] [--at TIME] [--lang en|zh] [-q]\n"
    "           [--json] [--from-dir DIR]\n"
    "           [--signed-by ID] [--source-repo URL] [--source-commit HASH]\n"
    "           [--require-source] [--allow-dirty]\n"
    "           " CLI_LIMIT_USAGE "\n"
    "           " CLI_DOWNLOAD_USAGE "\n"
    "\n"
    "Verifies the signed pack index (as `packsign install --index` does) and,\n"
    "for each installed pack (or each ID given), installs the newest version\n"
    "the index lists that is not yanked and not a prerelease, when it is\n"
    "above the newest installed one; an id whose newest indexed version is\n"
    "not above it is skipped, and said so.  Each install is an upgrade: pins\n"
    "checked, the diff against the installed version, consent to its\n"
    "widening (on a terminal, or --accept CLASSES), the confirmation\n"
    "(--yes).  --dry-run checks each without installing.  --from-dir DIR\n"
    "takes each entry's archive and .sig from DIR, as install does.\n"
    "\n"
    "--json prints one object: publisher, index_version, index_state,\n"
    "data_dir, ok, exit and updates, each id's object as install --json\n"
    "prints it, or {format, id, installed, action: \"skipped\", newest,\n"
    "reason: \"not_listed\"|\"not_newer\", ok, exit, code, ...}, or an id\n"
    "not installed with its refusal (code not_installed).\n"
    "\n"
    "  -q, --quiet          print nothing on success: no progress line, no\n"
    "                       installed or skipped lines (the questions on a\n"
    "                       terminal, errors and warnings as always)\n"
    "\n"
    "Exit status: the highest of the installs' (0 all updated or nothing to\n"
    "do, 1 one was refused or an ID is not installed, 2 one could not be\n"
    "done).\n",
};

static int
check_update(const struct install_args *a)
{
	if (a->index == NULL)
		return cli_usage_error(&cmd_update_usage, "missing --index");
	if (cli_checks_one_policy(&cmd_update_usage, &a->checks) != EXIT_OK)
		return EXIT_FAILED;
	if (a->accept_diff != NULL || a->index_o.allow_yanked ||
	    a->o.allow_downgrade || a->checks.verify.sig_path != NULL ||
	    a->o.reinstall)
		return cli_usage_error(&cmd_update_usage, "--accept-diff, "
		    "--allow-yanked, --allow-downgrade, --reinstall and --sig are "
		    "for install, one pack at a time");
	return EXIT_OK;
}

static int
parse_update(int argc, char **argv, struct install_args *a,
    struct cli_operands *ids)
{
	const struct cli_option options[] = {
		CLI_INSTALL_OPTIONS(a),
		CLI_END
	};
	int rc;

	cli_install_args_init(a);
	rc = cli_parse_options(&cmd_update_usage, options, argc, argv, ids);
	return rc != EXIT_OK ? rc : check_update(a);
}

/* The newest installed version of `id`, or NULL. */
static const ps_installed *
installed_newest(const ps_installed_list *list, const char *id)
{
	size_t i;

	for (i = 0; i < list->count; i++) {
		if (list->items[i].newest && strcmp(list->items[i].id, id) == 0)
			return &list->items[i];
	}
	return NULL;
}

/* --json: an id the index has nothing newer for. */
static int
skipped_json(struct install_args *a, const ps_installed *inst,
    const ps_index_entry *e)
{
	json_t *o = json_pack("{s:s,s:o,s:o,s:s,s:o,s:s}", "format",
	    ps_format_name(inst->format), "id", cli_json_text(inst->id),
	    "installed", cli_json_text(inst->version), "action", "skipped",
	    "newest", cli_json_text(e != NULL ? e->version : NULL), "reason",
	    e == NULL ? "not_listed" : "not_newer");
	ps_error none;

	if (o == NULL)
		return cli_fail_oom();
	ps_error_clear(&none);
	cli_json_error(o, 0, &none);
	return json_array_append_new(a->collect, o) == 0 ? EXIT_OK :
	    cli_fail_oom();
}

static int
update_one(struct install_args *a, const ps_installed *inst,
    const char *data_dir)
{
	const ps_index_entry *e = ps_index_newest(a->opened.index, inst->format,
	    inst->id);

	if ((e == NULL || ps_version_compare(e->version, inst->version) <= 0) &&
	    a->collect != NULL)
		return skipped_json(a, inst, e);
	if ((e == NULL || ps_version_compare(e->version, inst->version) <= 0) &&
	    a->checks.quiet)
		return EXIT_OK;
	if (e == NULL || ps_version_compare(e->version, inst->version) <= 0) {
		fputs("skipped ", stdout);
		cli_put_safe(stdout, inst->id);
		printf(" %s: ", inst->version);
		if (e == NULL)
			puts("the index lists no release of it");
		else {
			fputs("the newest indexed version ", stdout);
			cli_put_safe(stdout, e->version);
			puts(" is not above it");
		}
		return EXIT_OK;
	}
	a->entry = e;
	a->archive = a->shown = inst->id;
	return cli_install_run(a, data_dir);
}

/* --json: an ID given that is not installed. */
static void
not_installed_json(struct install_args *a, const char *id,
    const ps_error *err)
{
	json_t *o = json_pack("{s:n,s:o,s:n,s:n}", "format", "id",
	    cli_json_text(id), "installed", "action");

	if (o != NULL) {
		cli_json_error(o, -1, err);
		json_array_append_new(a->collect, o);
	}
}

static int
update_all(struct install_args *a, const struct cli_operands *ids,
    const ps_installed_list *list, const char *data_dir)
{
	const ps_installed *inst;
	int i, rc, worst = EXIT_OK;
	ps_error err;
	size_t j;

	for (i = 0; i < ids->count; i++) {
		if ((inst = installed_newest(list, ids->argv[i])) == NULL) {
			cli_error_set(&err, PS_STATUS_REFUSED, "not_installed",
			    ids->argv[i], "no version of it is installed (install "
			    "it with install ID --index)");
			rc = cli_report(&err);
			if (a->collect != NULL)
				not_installed_json(a, ids->argv[i], &err);
		} else
			rc = update_one(a, inst, data_dir);
		worst = rc > worst ? rc : worst;
	}
	for (j = 0; ids->count == 0 && j < list->count; j++) {
		if (!list->items[j].newest)
			continue;
		rc = update_one(a, &list->items[j], data_dir);
		worst = rc > worst ? rc : worst;
	}
	return worst;
}

/* --json: one object for the run, each id's object in `updates` (as
 * install --json prints one, or a skipped or not installed id). */
static int
print_updates(struct install_args *a, const char *data_dir, int rc)
{
	const ps_index *ix = a->opened.index;
	json_t *o = json_pack("{s:o,s:I,s:o,s:o,s:b,s:i,s:o}", "publisher",
	    cli_json_text(ix->publisher), "index_version",
	    (json_int_t)ix->version, "index_state",
	    cli_index_state_json(&a->opened), "data_dir",
	    cli_json_text(data_dir), "ok", rc == EXIT_OK, "exit", rc,
	    "updates", a->collect);
	int code;

	a->collect = NULL;
	code = cli_print_report(o, a->index);
	return code != EXIT_OK ? code : rc;
}

static int
run_update(struct install_args *a, const struct cli_operands *ids)
{
	struct cli_index_source src;
	ps_installed_list *list = NULL;
	ps_trust *policy = NULL;
	char *data_dir = NULL;
	ps_error err;
	int rc;

	rc = cli_checks_load_policy(&a->checks, &policy);
	if (rc == EXIT_OK)
		rc = cli_data_dir(a->data_dir, &data_dir);
	cli_download_proxy(&a->fetch);
	/* Seen, even when every id is skipped (not on a dry run). */
	src = (struct cli_index_source){ a->index, policy, a->checks.verify.at,
	    &a->fetch, data_dir, a->index_o.require_state, 0, !a->o.dry_run };
	if (rc == EXIT_OK)
		rc = cli_index_open(&src, &a->opened);
	if (rc == EXIT_OK && ps_installed_list_load(data_dir, &list, &err) != 0)
		rc = cli_report(&err);
	if (rc == EXIT_OK && a->json)
		rc = (a->collect = json_array()) != NULL ? EXIT_OK :
		    cli_fail_oom();
	if (rc == EXIT_OK)
		rc = update_all(a, ids, list, data_dir);
	if (a->collect != NULL)
		rc = print_updates(a, data_dir, rc);
	ps_installed_list_free(list);
	cli_index_close(&a->opened);
	ps_trust_free(policy);
	free(data_dir);
	return rc;
}

int
cmd_update(int argc, char **argv)
{
	struct install_args a;
	struct cli_operands ids;
	int rc;

	rc = parse_update(argc, argv, &a, &ids);
	if (rc != EXIT_OK)
		return rc == CLI_HELP ? EXIT_OK : rc;
	return run_update(&a, &ids);
}
