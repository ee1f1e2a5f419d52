/* packsign uninstall: remove installed packs. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"

const char cmd_uninstall_usage[] =
    "usage: packsign uninstall ID[@VERSION] [--data-dir DIR] [--format F]\n"
    "           [--json]\n"
    "\n"
    "Removes VERSION of the pack ID, or every installed version of it, from\n"
    "the data directory: each tree is renamed away before its receipt is\n"
    "removed and it is deleted, so a run stopped half-way never leaves a pack\n"
    "that `packsign list` shows half-removed.  Prints what was removed.  An\n"
    "id or version that is not installed is exit 1 [not_installed].\n"
    "\n"
    "  --data-dir DIR  default $PACKSIGN_DATA_DIR, else\n"
    "                  $XDG_DATA_HOME/packsign, else ~/.local/share/packsign\n"
    "  --format F      soyapack, holon, autograph or agentpack: needed when\n"
    "                  ID is installed in two formats\n"
    "  --json          print what was removed as one JSON object\n";

struct uninstall_args {
	const char *data_dir;
	ps_format format;
	int json;
	char *id;                    /* a copy of ID[@VERSION], split */
	const char *version;         /* NULL: every version */
};

enum { U_DATA_DIR = 256, U_FORMAT, U_JSON };

static const struct option uninstall_options[] = {
	{ "data-dir", required_argument, NULL, U_DATA_DIR },
	{ "format", required_argument, NULL, U_FORMAT },
	{ "json", no_argument, NULL, U_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static int
take_option(struct uninstall_args *a, int c)
{
	switch (c) {
	case U_DATA_DIR: a->data_dir = optarg; break;
	case U_JSON: a->json = 1; break;
	case U_FORMAT:
		if (ps_format_parse(optarg, &a->format) != 0)
			return cli_usage_error("uninstall", "--format must be "
			    "soyapack, holon, autograph or agentpack, found '%s'",
			    optarg);
		break;
	default: return cli_usage_error("uninstall", "unknown option");
	}
	return EXIT_OK;
}

/* ID@VERSION splits at the last '@' after the first character. */
static int
split_target(struct uninstall_args *a, const char *target)
{
	char *at;

	a->id = strdup(target);
	if (a->id == NULL)
		return cli_fail("out_of_memory", "", "allocate");
	at = strrchr(a->id, '@');
	if (at != NULL && at != a->id) {
		*at = '\0';
		a->version = at + 1;
	}
	if (a->id[0] == '\0' || (a->version != NULL && a->version[0] == '\0'))
		return cli_usage_error("uninstall", "expected ID or ID@VERSION, "
		    "found '%s'", target);
	return EXIT_OK;
}

/* Returns EXIT_OK, -1 after printing help, or a usage error's code. */
static int
parse_args(int argc, char **argv, struct uninstall_args *a)
{
	int c;

	memset(a, 0, sizeof(*a));
	a->format = PS_FORMAT_UNKNOWN;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", uninstall_options, NULL)) !=
	    -1) {
		if (c == 'h')
			return cli_print_help("uninstall") - 1;
		if (take_option(a, c) != EXIT_OK)
			return EXIT_FAILED;
	}
	if (argc - optind != 1)
		return cli_usage_error("uninstall", argc == optind ?
		    "missing ID[@VERSION]" : "one ID[@VERSION] at a time");
	return split_target(a, argv[optind]);
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
print_json(const char *data_dir, const ps_installed_list *removed, int rc,
    const ps_error *err)
{
	json_t *o = json_object(), *packs = json_array();
	size_t i;
	int code;

	for (i = 0; removed != NULL && i < removed->count; i++)
		json_array_append_new(packs,
		    cli_installed_json(&removed->items[i]));
	json_object_set_new(o, "data_dir", cli_json_text(data_dir));
	json_object_set_new(o, "removed", packs);
	cli_json_error(o, rc, err);
	code = cli_print_json(o);
	json_decref(o);
	return code;
}

static int
uninstall(const struct uninstall_args *a, const char *data_dir)
{
	ps_installed_list *removed = NULL;
	ps_error err;
	int rc, code;

	ps_error_clear(&err);
	rc = ps_uninstall(data_dir, a->format, a->id, a->version, &removed,
	    &err);
	code = rc == 0 ? EXIT_OK : err.status == PS_STATUS_REFUSED ?
	    EXIT_REFUSED : EXIT_FAILED;
	if (rc != 0)
		cli_report(&err);
	if (a->json && print_json(data_dir, removed, rc, &err) != EXIT_OK)
		code = EXIT_FAILED;
	else if (!a->json)
		print_removed(removed);
	ps_installed_list_free(removed);
	return code;
}

int
cmd_uninstall(int argc, char **argv)
{
	struct uninstall_args a;
	char *data_dir = NULL;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc == EXIT_OK)
		rc = cli_data_dir(a.data_dir, &data_dir);
	if (rc == EXIT_OK)
		rc = uninstall(&a, data_dir);
	free(data_dir);
	free(a.id);
	return rc < 0 ? EXIT_OK : rc;
}
