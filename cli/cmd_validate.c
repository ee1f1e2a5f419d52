/* packsign validate: every manifest problem at once, then a summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/json.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/pack_manifest.h"

const struct cli_usage cmd_validate_usage = {
	.name = "validate",
	.text =
    "usage: packsign validate PATH [--format F] [--strict]\n"
    "                         [--engine-version V] [--json] [-q]\n"
    "\n"
    "Checks the pack at PATH, a directory or an archive (.tar, .tar.gz,\n"
    ".tgz, .tar.zst, .zip: read once, every entry checked, nothing\n"
    "extracted), against every rule of its manifest format (soyapack.yaml,\n"
    "holon.yaml, augr.pkg.yml or manifest.yml at the root) and prints each\n"
    "problem as FILE:LINE:COL: error|warning: MESSAGE [CODE], sorted (an\n"
    "archive's files as ARCHIVE/FILE), then one summary line.\n"
    "\n"
    "  --format F            require format F: soyapack, holon, autograph,\n"
    "                        agentpack (default: detect)\n"
    "  --strict              lint findings are errors and warnings fail\n"
    "  --engine-version V    autograph: check contract.engine_version\n"
    "                        against engine version V (SemVer)\n"
    "  --json                print the diagnostics and summary as JSON\n"
    "  -q, --quiet           no summary line when valid (every diagnostic\n"
    "                        is printed as always): a valid pack without\n"
    "                        warnings prints nothing\n"
    "\n"
    "Exit status: 0 valid (warnings allowed unless --strict), 1 invalid,\n"
    "2 the pack could not be read.\n",
};

struct validate_args {
	const char *path;
	int json, quiet;
	ps_validate_options options;
};

static int
parse_validate(int argc, char **argv, struct validate_args *a)
{
	ps_validate_options *o = &a->options;
	const struct cli_option options[] = {
		CLI_CALLBACK(0, "format", &o->format, cli_parse_format),
		CLI_FLAG(0, "strict", &o->strict),
		CLI_STRING(0, "engine-version", &o->engine_version),
		CLI_FLAG(0, "json", &a->json),
		CLI_FLAG('q', "quiet", &a->quiet),
		/* describe's, refused by name as validate always did */
		CLI_REFUSED("lang", CLI_OPTION_STRING),
		CLI_END
	};
	struct cli_operands rest;
	int rc;

	memset(a, 0, sizeof(*a));
	ps_validate_options_init(&a->options);
	rc = cli_parse_options(&cmd_validate_usage, options, argc, argv, &rest);
	if (rc != EXIT_OK)
		return rc;
	if (rest.count != 1)
		return cli_usage_error(&cmd_validate_usage,
		    "expected exactly one PATH");
	a->path = rest.argv[0];
	return EXIT_OK;
}

static const char *
plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static void
print_text(const char *path, const ps_manifest *m, const ps_diags *diags,
    int valid, int quiet)
{
	char line[8192];
	size_t i, e = ps_diags_count(diags, PS_SEVERITY_ERROR);
	size_t w = ps_diags_count(diags, PS_SEVERITY_WARNING);

	for (i = 0; i < diags->count; i++)
		cli_put_line(stdout, "", ps_diag_format(&diags->items[i], line,
		    sizeof(line)));
	if (valid != 0 && quiet)
		return;
	cli_put_safe(stdout, path);
	printf(": %s", valid != 0 ? "valid" : "invalid");
	if (m != NULL) {
		printf(" %s ", ps_format_name(m->format));
		cli_put_safe(stdout, m->id != NULL ? m->id : "?");
		fputc(' ', stdout);
		cli_put_safe(stdout, m->version != NULL ? m->version : "?");
	}
	printf(" (%zu %s, %zu %s)\n", e, plural(e, "error", "errors"), w,
	    plural(w, "warning", "warnings"));
}

static int
print_json(const char *path, const ps_manifest *m, const ps_diags *diags,
    int valid)
{
	json_t *root;
	char *text;

	root = json_pack("{s:s, s:b, s:s?, s:s?, s:s?, s:I, s:I, s:o}",
	    "path", path, "valid", valid,
	    "format", m != NULL ? ps_format_name(m->format) : NULL,
	    "id", m != NULL ? m->id : NULL,
	    "version", m != NULL ? m->version : NULL,
	    "errors", (json_int_t)ps_diags_count(diags, PS_SEVERITY_ERROR),
	    "warnings", (json_int_t)ps_diags_count(diags, PS_SEVERITY_WARNING),
	    "diagnostics", cli_json_diags(diags));
	if (root == NULL)
		return -1;
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
	    JSON_ENSURE_ASCII);
	json_decref(root);
	if (text == NULL)
		return -1;
	printf("%s\n", text);
	free(text);
	return 0;
}

static int
run_validate(struct validate_args *a)
{
	ps_manifest *m = NULL;
	ps_diags diags;
	int rc, valid;

	ps_diags_init(&diags);
	rc = cli_load_pack(a->path, &a->options, &m, &diags);
	if (rc != EXIT_OK) {
		ps_diags_free(&diags);
		return rc;
	}
	valid = ps_manifest_valid(&diags, a->options.strict);
	if (a->json != 0)
		rc = print_json(a->path, m, &diags, valid);
	else
		print_text(a->path, m, &diags, valid, a->quiet);
	ps_manifest_free(m);
	ps_diags_free(&diags);
	if (rc != 0) {
		fprintf(stderr, "packsign: cannot build the JSON output (out of "
		    "memory, or a path that is not UTF-8) [json_output]\n");
		return EXIT_FAILED;
	}
	return valid != 0 ? EXIT_OK : EXIT_REFUSED;
}

int
cmd_validate(int argc, char **argv)
{
	struct validate_args a;
	int rc;

	rc = parse_validate(argc, argv, &a);
	if (rc != EXIT_OK)
		return rc == CLI_HELP ? EXIT_OK : rc;
	return run_validate(&a);
}
