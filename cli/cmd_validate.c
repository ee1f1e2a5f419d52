/* packsign validate: every manifest problem at once, then a summary. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "cli/cli.h"

const char cmd_validate_usage[] =
    "usage: packsign validate PATH [--format F] [--strict]\n"
    "                         [--engine-version V] [--json]\n"
    "\n"
    "Checks the pack directory PATH against every rule of its manifest\n"
    "format (soyapack.yaml, holon.yaml, augr.pkg.yml or manifest.yml at the\n"
    "root) and prints each problem as FILE:LINE:COL: error|warning: MESSAGE\n"
    "[CODE], sorted, then one summary line.  Archives are not accepted yet.\n"
    "\n"
    "  --format F            require format F: soyapack, holon, autograph,\n"
    "                        agentpack (default: detect)\n"
    "  --strict              lint findings are errors and warnings fail\n"
    "  --engine-version V    autograph: check contract.engine_version\n"
    "                        against engine version V (SemVer)\n"
    "  --json                print the diagnostics and summary as JSON\n"
    "\n"
    "Exit status: 0 valid (warnings allowed unless --strict), 1 invalid,\n"
    "2 the pack could not be read.\n";

/* PATH with a '/' appended unless it already ends with one. */
static char *
diag_prefix(const char *path)
{
	size_t n = strlen(path);
	char *prefix = NULL;

	if (asprintf(&prefix, "%s%s", path, n > 0 && path[n - 1] == '/' ?
	    "" : "/") < 0)
		return NULL;
	return prefix;
}

int
cli_load_pack(const char *command, const char *path,
    ps_validate_options *options, ps_manifest **manifest, ps_diags *diags)
{
	ps_pack_files files;
	ps_error err;
	struct stat st;
	char *prefix;
	int rc;

	ps_error_clear(&err);
	(void)command;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		rc = ps_pack_files_archive_open(path, &files, NULL, &err);
	else
		rc = ps_pack_files_dir_open(path, &files, &err);
	if (rc != 0)
		return cli_report(&err);
	if ((prefix = diag_prefix(path)) == NULL) {
		ps_pack_files_close(&files);
		fprintf(stderr, "packsign: out of memory [out_of_memory]\n");
		return EXIT_FAILED;
	}
	options->prefix = prefix;
	rc = ps_manifest_load(&files, options, manifest, diags, &err);
	options->prefix = NULL;
	free(prefix);
	ps_pack_files_close(&files);
	if (rc != 0)
		return cli_report(&err);
	ps_diags_sort(diags);
	return EXIT_OK;
}

static const char *
plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static void
print_text(const char *path, const ps_manifest *m, const ps_diags *diags,
    int valid)
{
	char line[8192];
	size_t i, e = ps_diags_count(diags, PS_SEVERITY_ERROR);
	size_t w = ps_diags_count(diags, PS_SEVERITY_WARNING);

	for (i = 0; i < diags->count; i++)
		printf("%s\n", ps_diag_format(&diags->items[i], line,
		    sizeof(line)));
	printf("%s: %s", path, valid != 0 ? "valid" : "invalid");
	if (m != NULL)
		printf(" %s %s %s", ps_format_name(m->format),
		    m->id != NULL ? m->id : "?",
		    m->version != NULL ? m->version : "?");
	printf(" (%zu %s, %zu %s)\n", e, plural(e, "error", "errors"), w,
	    plural(w, "warning", "warnings"));
}

static json_t *
diags_json(const ps_diags *diags)
{
	json_t *list = json_array(), *d;
	const ps_diag *x;
	size_t i;

	for (i = 0; list != NULL && i < diags->count; i++) {
		x = &diags->items[i];
		d = json_pack("{s:s, s:I, s:I, s:s, s:s, s:s}", "file", x->file,
		    "line", (json_int_t)x->line, "column", (json_int_t)x->column,
		    "severity", x->severity == PS_SEVERITY_ERROR ? "error" :
		    "warning", "code", x->code, "message", x->message);
		json_array_append_new(list, d);
	}
	return list;
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
	    "diagnostics", diags_json(diags));
	if (root == NULL)
		return -1;
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (text == NULL)
		return -1;
	printf("%s\n", text);
	free(text);
	return 0;
}

int
cli_validate_options(const char *command, int argc, char **argv,
    ps_validate_options *options, int *json, const char **lang)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "strict", no_argument, NULL, 's' },
		{ "engine-version", required_argument, NULL, 'e' },
		{ "json", no_argument, NULL, 'j' },
		{ "lang", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h')
			return cli_print_help(command) == EXIT_OK ? 1 : -1;
		if (c == 'j')
			*json = 1;
		else if (c == 's' && lang == NULL)
			options->strict = 1;
		else if (c == 'e' && lang == NULL)
			options->engine_version = optarg;
		else if (c == 'l' && lang != NULL)
			*lang = optarg;
		else if (c == 'f' && lang == NULL) {
			if (ps_format_parse(optarg, &options->format) != 0) {
				cli_usage_error(command, "unknown format '%s'; "
				    "expected soyapack, holon, autograph or agentpack",
				    optarg);
				return -1;
			}
		} else {
			cli_usage_error(command, "unknown option or missing "
			    "argument '%s'", argv[optind - 1]);
			return -1;
		}
	}
	if (optind != argc - 1) {
		cli_usage_error(command, "expected exactly one PATH");
		return -1;
	}
	return 0;
}

int
cmd_validate(int argc, char **argv)
{
	ps_validate_options options;
	ps_manifest *m = NULL;
	ps_diags diags;
	int json = 0, rc, valid;

	ps_validate_options_init(&options);
	rc = cli_validate_options("validate", argc, argv, &options, &json, NULL);
	if (rc != 0)
		return rc > 0 ? EXIT_OK : EXIT_FAILED;
	ps_diags_init(&diags);
	rc = cli_load_pack("validate", argv[optind], &options, &m, &diags);
	if (rc != EXIT_OK) {
		ps_diags_free(&diags);
		return rc;
	}
	valid = ps_manifest_valid(&diags, options.strict);
	if (json != 0)
		rc = print_json(argv[optind], m, &diags, valid);
	else
		print_text(argv[optind], m, &diags, valid);
	ps_manifest_free(m);
	ps_diags_free(&diags);
	if (rc != 0) {
		fprintf(stderr, "packsign: cannot build the JSON output (out of "
		    "memory, or a path that is not UTF-8) [json_output]\n");
		return EXIT_FAILED;
	}
	return valid != 0 ? EXIT_OK : EXIT_REFUSED;
}
