/* packsign uninstall: remove installed packs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/installed_report.h"
#include "cli/json.h"
#include "cli/options.h"
#include "cli/output.h"

const struct cli_usage cmd_uninstall_usage = {
	.name = "uninstall",
	.text =
    "usage: packsign uninstall ID[@VERSION] [--data-dir DIR] [--format F]\n"
    "           [--forget] [--json] [-q]\n"
    "\n"
    "Removes VERSION of the pack ID, or every installed version of it, from\n"
    "the data directory: each tree is renamed away before its receipt is\n"
    "removed and it is deleted, so a run stopped half-way never leaves a pack\n"
    "that `packsign list` shows half-removed.  Prints what was removed.  An\n"
    "id or version that is not installed is exit 1 [not_installed].  The\n"
    "id's pins (the signers and repository its first install pinned) stay,\n"
    "so that reinstalling it later is checked against them, unless --forget.\n"
    "\n"
    "  --data-dir DIR  default $PACKSIGN_DATA_DIR, else\n"
    "                  $XDG_DATA_HOME/packsign, else ~/.local/share/packsign\n"
    "  --format F      soyapack, holon, autograph or agentpack: needed when\n"
    "                  ID is installed in two formats\n"
    "  --forget        also remove the id's pins (every version: no @VERSION)\n"
    "  --json          print what was removed as one JSON object\n"
    "  -q, --quiet     print nothing on success (errors as always)\n",
};

struct uninstall_args {
	const char *data_dir;
	ps_format format;
	int json, forget, quiet;
	const char *target;          /* ID[@VERSION] */
	const char *at;              /* its '@' before VERSION, or NULL */
};

static int
parse_uninstall(int argc, char **argv, struct uninstall_args *a)
{
	const struct cli_option options[] = {
		CLI_STRING(0, "data-dir", &a->data_dir),
		CLI_CALLBACK(0, "format", &a->format, cli_parse_format),
		CLI_FLAG(0, "json", &a->json),
		CLI_FLAG(0, "forget", &a->forget),
		CLI_FLAG('q', "quiet", &a->quiet),
		CLI_END
	};
	struct cli_operands rest;
	int rc;

	memset(a, 0, sizeof(*a));
	a->format = PS_FORMAT_UNKNOWN;
	rc = cli_parse_options(&cmd_uninstall_usage, options, argc, argv,
	    &rest);
	if (rc != EXIT_OK)
		return rc;
	if (rest.count != 1)
		return cli_usage_error(&cmd_uninstall_usage, rest.count == 0 ?
		    "missing ID[@VERSION]" : "one ID[@VERSION] at a time");
	a->target = rest.argv[0];
	rc = cli_split_target(&cmd_uninstall_usage, a->target, &a->at);
	if (rc == EXIT_OK && a->forget && a->at != NULL)
		return cli_usage_error(&cmd_uninstall_usage, "--forget forgets "
		    "the id: uninstall every version (ID without @VERSION)");
	return rc;
}

static void
print_removed(const ps_installed_list *removed)
{
	size_t i;

	for (i = 0; removed != NULL && i < removed->count; i++) {
		printf("removed %s ", ps_format_name(removed->items[i].format));
		cli_print_pack_name(stdout, &removed->items[i]);
		fputs(" from ", stdout);
		cli_put_safe(stdout, removed->items[i].path);
		fputc('\n', stdout);
	}
}

static int
print_json(const char *data_dir, const ps_installed_list *removed,
    int forgot, int rc, const ps_error *err)
{
	json_t *o = json_object(), *packs = json_array();
	size_t i;
	int code;

	for (i = 0; removed != NULL && i < removed->count; i++)
		json_array_append_new(packs,
		    cli_installed_json(&removed->items[i]));
	json_object_set_new(o, "data_dir", cli_json_text(data_dir));
	json_object_set_new(o, "removed", packs);
	json_object_set_new(o, "pins_forgotten", json_boolean(forgot));
	cli_json_error(o, rc, err);
	code = cli_print_json(o);
	json_decref(o);
	return code;
}

/* --forget: the id's pins in every format (or in --format's).  With nothing installed (an earlier plain uninstall kept
 * them), forgetting pins is the whole job; without pins either, the
 * not_installed refusal stands. */
static int
forget(const char *data_dir, ps_format format, const char *id, int rc,
    int json, int quiet, int *forgot_out, ps_error *err)
{
	ps_error mine;
	int forgot = 0;

	ps_error_clear(&mine);
	if (ps_pins_forget(data_dir, format, id, &forgot, &mine) != 0) {
		*err = mine;
		return -1;
	}
	*forgot_out = forgot;
	if (forgot && !json && !quiet) {
		fputs("forgot the pins of ", stdout);
		cli_put_safe(stdout, id);
		fputc('\n', stdout);
	}
	if (rc != 0 && forgot) {
		ps_error_clear(err);
		return 0;
	}
	return rc;
}

static int
uninstall(const struct uninstall_args *a, const char *data_dir,
    const char *id)
{
	ps_installed_list *removed = NULL;
	ps_error err;
	int rc, code, forgot = 0;

	ps_error_clear(&err);
	rc = ps_uninstall(data_dir, a->format, id, a->at != NULL ? a->at + 1 :
	    NULL, &removed, &err);
	if (a->forget && (rc == 0 || ps_error_is(&err, PS_CODE_NOT_INSTALLED)))
		rc = forget(data_dir, a->format, id, rc, a->json, a->quiet,
		    &forgot, &err);
	code = rc == 0 ? EXIT_OK : err.status == PS_STATUS_REFUSED ?
	    EXIT_REFUSED : EXIT_FAILED;
	if (rc != 0)
		cli_report(&err);
	if (a->json && print_json(data_dir, removed, forgot, rc, &err) != EXIT_OK)
		code = EXIT_FAILED;
	else if (!a->json && !a->quiet)
		print_removed(removed);
	ps_installed_list_free(removed);
	return code;
}

static int
run_uninstall(struct uninstall_args *a)
{
	char *data_dir = NULL, *id;
	size_t id_len;
	int rc;

	id_len = a->at != NULL ? (size_t)(a->at - a->target) :
	    strlen(a->target);
	if ((id = strndup(a->target, id_len)) == NULL)
		return cli_fail_oom();
	rc = cli_data_dir(a->data_dir, &data_dir);
	if (rc == EXIT_OK)
		rc = uninstall(a, data_dir, id);
	free(data_dir);
	free(id);
	return rc;
}

int
cmd_uninstall(int argc, char **argv)
{
	struct uninstall_args a;
	int rc;

	rc = parse_uninstall(argc, argv, &a);
	if (rc != EXIT_OK)
		return rc == CLI_HELP ? EXIT_OK : rc;
	return run_uninstall(&a);
}
