/* packsign list: the packs installed in a data directory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/checks.h"
#include "cli/cli.h"
#include "cli/download_options.h"
#include "cli/index_source.h"
#include "cli/installed_report.h"
#include "cli/json.h"
#include "cli/options.h"
#include "cli/output.h"

const struct cli_usage cmd_list_usage = {
	.name = "list",
	.text =
    "usage: packsign list [--data-dir DIR] [--verify] [--json] [-q]\n"
    "                     [--index FILE|URL (--trust POLICY | -p KEY.pub)]\n"
    "                     " CLI_DOWNLOAD_USAGE "\n"
    "\n"
    "Prints one line per installed pack, from its install receipt: format,\n"
    "id, version, \"(newest)\" for the highest version of each id (the one\n"
    "to use unless a caller pins a version), the signer, the recorded commit\n"
    "(12 digits, \"-\" when none), the AgentPack domain and what the pack may\n"
    "do.  With no pack installed (or no data directory), nothing is\n"
    "printed on stdout and stderr says \"packsign: no packs installed in\n"
    "DIR\" (exit 0; --json: an empty \"packs\").\n"
    "\n"
    "  --data-dir DIR  default $PACKSIGN_DATA_DIR, else\n"
    "                  $XDG_DATA_HOME/packsign, else ~/.local/share/packsign\n"
    "  --verify        hash every installed file again and compare with the\n"
    "                  receipt: \"ok\" or \"MODIFIED\" and each modified, added\n"
    "                  or missing path; exit 1 when any pack was modified\n"
    "  --json          print the list as one JSON object\n"
    "  -q, --quiet     print nothing (the exit status says it); with\n"
    "                  --verify only the packs that were modified\n"
    "  --index FILE|URL  a signed pack index (verified with --trust or -p):\n"
    "                  an installed version it marks yanked shows\n"
    "                  \"YANKED: REASON\" (\"yanked\" in --json)\n"
    CLI_DOWNLOAD_FLAGS_HELP,
};

struct list_args {
	const char *data_dir;
	int verify, json, quiet;
	const char *index, *policy, *pubkey;
	ps_fetch_options fetch;
	struct cli_index opened;
};

static int
parse_list(int argc, char **argv, struct list_args *a)
{
	const struct cli_option options[] = {
		CLI_STRING(0, "data-dir", &a->data_dir),
		CLI_FLAG(0, "verify", &a->verify),
		CLI_FLAG(0, "json", &a->json),
		CLI_FLAG('q', "quiet", &a->quiet),
		CLI_STRING(0, "index", &a->index),
		CLI_STRING(0, "trust", &a->policy),
		CLI_STRING('p', NULL, &a->pubkey),
		CLI_DOWNLOAD_OPTIONS(&a->fetch),
		CLI_END
	};
	struct cli_operands rest;
	int rc;

	memset(a, 0, sizeof(*a));
	ps_fetch_options_init(&a->fetch);
	rc = cli_parse_options(&cmd_list_usage, options, argc, argv, &rest);
	if (rc != EXIT_OK)
		return rc;
	if (rest.count != 0)
		return cli_usage_error(&cmd_list_usage,
		    "unexpected argument '%s'", rest.argv[0]);
	if ((a->index != NULL) != (a->policy != NULL || a->pubkey != NULL) ||
	    (a->policy != NULL && a->pubkey != NULL))
		return cli_usage_error(&cmd_list_usage, "--index needs one of "
		    "--trust POLICY and -p KEY.pub, and they need --index");
	return EXIT_OK;
}

static void
print_commit(const char *commit)
{
	char shortened[13];

	if (commit == NULL || commit[0] == '\0') {
		fputc('-', stdout);
		return;
	}
	snprintf(shortened, sizeof(shortened), "%s", commit);
	cli_put_safe(stdout, shortened);
}

static void
print_pins(const ps_pins *pins)
{
	size_t i;

	fputs("  pinned: ", stdout);
	for (i = 0; i < pins->signer_count; i++) {
		fputs(i > 0 ? ", " : "", stdout);
		cli_put_safe(stdout, pins->signers[i].identity);
		fputs(" (", stdout);
		cli_put_safe(stdout, pins->signers[i].fingerprint);
		fputc(')', stdout);
	}
	fputs(" from ", stdout);
	cli_put_safe(stdout, pins->source_repository != NULL ?
	    pins->source_repository : "no repository");
}

static json_t *
pins_json(const ps_pins *pins)
{
	json_t *signers;
	size_t i;

	if (pins == NULL)
		return json_null();
	signers = json_array();
	for (i = 0; i < pins->signer_count; i++)
		json_array_append_new(signers, json_pack("{s:o,s:o}", "identity",
		    cli_json_text(pins->signers[i].identity), "fingerprint",
		    cli_json_text(pins->signers[i].fingerprint)));
	return json_pack("{s:o,s:o,s:o}", "version",
	    cli_json_text(pins->version), "signers", signers,
	    "source_repository", cli_json_text(pins->source_repository));
}

/* The pins of the newest version's id; a damaged pins file is reported
 * and makes the listing exit 1. */
static int
load_pins(const char *data_dir, const ps_installed *p, ps_pins **pins)
{
	ps_error err;

	*pins = NULL;
	ps_error_clear(&err);
	if (!p->newest || ps_pins_load(data_dir, p->format, p->id, pins,
	    &err) == 0)
		return EXIT_OK;
	return cli_report(&err);
}

/* The reason an index marks this installed version yanked, or NULL. */
static const char *
yanked(const struct list_args *a, const ps_installed *p)
{
	const ps_index_entry *e;

	if (a->opened.index == NULL)
		return NULL;
	e = ps_index_find(a->opened.index, p->format, p->id, p->version);
	return e != NULL ? e->yanked : NULL;
}

static void
print_pack(const ps_installed *p, const ps_pins *pins, const char *why)
{
	printf("%s  ", ps_format_name(p->format));
	cli_print_pack_name(stdout, p);
	fputs(p->newest ? " (newest)" : "", stdout);
	fputs("  signer: ", stdout);
	cli_put_safe(stdout, p->signer != NULL ? p->signer : "-");
	fputs("  commit: ", stdout);
	print_commit(p->source_commit);
	if (p->domain != NULL) {
		fputs("  domain: ", stdout);
		cli_put_safe(stdout, p->domain);
	}
	fputs("  may: ", stdout);
	cli_put_safe(stdout, p->permissions != NULL ? p->permissions : "-");
	if (pins != NULL)
		print_pins(pins);
	if (why != NULL) {
		fputs("  YANKED: ", stdout);
		cli_put_safe(stdout, why);
	}
	fputc('\n', stdout);
}

/* Re-checks one pack, prints the verdict (with -q, `quiet`: only a pack
 * that failed it, after its line); returns its exit code. */
static int
verify_pack(const ps_installed *p, json_t *o, int quiet)
{
	ps_installed_check *c = NULL;
	ps_error err;
	json_t *v;
	int rc;

	ps_error_clear(&err);
	rc = ps_installed_verify(p->path, NULL, 0, &c, &err);
	if (o != NULL) {
		v = c != NULL ? cli_check_json(c) : json_object();
		cli_json_error(v, rc, &err);
		json_object_set_new(o, "verify", v);
	} else if (!quiet || rc != 0) {
		if (quiet)
			print_pack(p, NULL, NULL);
		fputs(rc == 0 ? "  ok\n" : ps_error_is(&err,
		    PS_CODE_INSTALLED_MODIFIED) ? "  MODIFIED\n" : "  FAILED\n",
		    stdout);
		if (c != NULL)
			cli_print_changes(stdout, "    ", c);
	}
	if (rc != 0)
		cli_report(&err);
	ps_installed_check_free(c);
	if (rc == 0)
		return EXIT_OK;
	return err.status == PS_STATUS_REFUSED ? EXIT_REFUSED : EXIT_FAILED;
}

static int
list_packs(const struct list_args *a, const char *data_dir,
    const ps_installed_list *list)
{
	json_t *packs = a->json ? json_array() : NULL, *o = NULL, *root;
	int code, worst = EXIT_OK;
	size_t i;

	ps_pins *pins;

	for (i = 0; i < list->count; i++) {
		code = load_pins(data_dir, &list->items[i], &pins);
		worst = code > worst ? code : worst;
		if (a->json) {
			o = cli_installed_json(&list->items[i]);
			json_object_set_new(o, "pins", pins_json(pins));
			if (a->index != NULL)
				json_object_set_new(o, "yanked", cli_json_text(
				    yanked(a, &list->items[i])));
		} else if (!a->quiet) {
			print_pack(&list->items[i], pins, yanked(a,
			    &list->items[i]));
		}
		ps_pins_free(pins);
		code = a->verify ? verify_pack(&list->items[i], o, a->quiet) :
		    EXIT_OK;
		worst = code > worst ? code : worst;
		if (o != NULL)
			json_array_append_new(packs, o);
	}
	if (!a->json && !a->quiet && list->count == 0) {
		fputs("packsign: no packs installed in ", stderr);
		cli_put_safe(stderr, data_dir);
		fputc('\n', stderr);
	}
	if (!a->json)
		return worst;
	root = json_pack("{s:o,s:b,s:o}", "data_dir", cli_json_text(data_dir),
	    "ok", worst == EXIT_OK, "packs", packs);
	code = cli_print_json(root);
	json_decref(root);
	return code != EXIT_OK ? code : worst;
}

/* --index: verified and held against the state (not recorded). */
static int
open_index(struct list_args *a, const char *data_dir, ps_trust **policy)
{
	struct cli_index_source src;
	ps_error err;

	if (a->index == NULL)
		return EXIT_OK;
	if (cli_load_policy(a->policy, a->pubkey, policy, &err) != 0)
		return cli_report(&err);
	cli_download_proxy(&a->fetch);
	src = (struct cli_index_source){ a->index, *policy, 0, &a->fetch,
	    data_dir, 0, a->json, 0 };
	return cli_index_open(&src, &a->opened);
}

static int
run_list(struct list_args *a)
{
	ps_installed_list *list = NULL;
	ps_trust *policy = NULL;
	char *data_dir = NULL;
	ps_error err;
	int rc;

	rc = cli_data_dir(a->data_dir, &data_dir);
	if (rc == EXIT_OK)
		rc = open_index(a, data_dir, &policy);
	if (rc == EXIT_OK && ps_installed_list_load(data_dir, &list, &err) != 0)
		rc = cli_report(&err);
	if (rc == EXIT_OK)
		rc = list_packs(a, data_dir, list);
	ps_installed_list_free(list);
	cli_index_close(&a->opened);
	ps_trust_free(policy);
	free(data_dir);
	return rc;
}

int
cmd_list(int argc, char **argv)
{
	struct list_args a;
	int rc;

	rc = parse_list(argc, argv, &a);
	if (rc != EXIT_OK)
		return rc == CLI_HELP ? EXIT_OK : rc;
	return run_list(&a);
}
