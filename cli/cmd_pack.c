/* packsign pack DIR -o OUT: the canonical archive of a pack directory. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/json.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "cli/signals.h"

const struct cli_usage cmd_pack_usage = {
	.name = "pack",
	.text =
    "usage: packsign pack DIR -o OUT [--compress none|gzip|zstd] [--mtime N]\n"
    "                     [--json] [-q]\n"
    "\n"
    "Builds the canonical, byte-reproducible archive of the pack directory\n"
    "DIR (docs/formats/canonical-tar.md).  OUT's suffix picks the\n"
    "compression: .tar, .tar.gz or .tgz, .tar.zst; '-o -' writes to stdout\n"
    "(uncompressed unless --compress says otherwise).  OUT is written\n"
    "atomically: a failure never leaves a partial file.\n"
    "\n"
    "  -o, --output OUT      where to write the archive ('-' for stdout)\n"
    "      --compress KIND   none, gzip or zstd (default: from OUT's suffix)\n"
    "      --mtime N         the one mtime of every entry, in seconds since\n"
    "                        the epoch (default: $SOURCE_DATE_EPOCH, else 0)\n"
    "      --json            print what was written as one JSON object (not\n"
    "                        with '-o -')\n"
    "  -q, --quiet           print nothing on success: no progress line, no\n"
    "                        summary (errors still go to stderr)\n"
    "  -h, --help            show this help\n",
};

struct pack_args {
	const char *dir, *out;
	int json, quiet;
	ps_pack_options pack;
};

/* The compression: --compress, else OUT's suffix (stdout: none). */
static int
compression_option(const char *compress, struct pack_args *a)
{
	if (compress != NULL &&
	    ps_compression_by_name(compress, &a->pack.compression) != 0)
		return cli_usage_error(&cmd_pack_usage, "--compress must be "
		    "none, gzip or zstd, found '%s'", compress);
	if (compress == NULL && strcmp(a->out, "-") != 0 &&
	    ps_compression_from_name(a->out, &a->pack.compression) != 0)
		return cli_usage_error(&cmd_pack_usage, "cannot tell the "
		    "compression from '%s': use a .tar, .tar.gz, .tgz or "
		    ".tar.zst name, or --compress", a->out);
	return EXIT_OK;
}

static int
check_args(const struct cli_operands *rest, struct pack_args *a)
{
	if (rest->count != 1)
		return cli_usage_error(&cmd_pack_usage, "expected one pack "
		    "directory");
	a->dir = rest->argv[0];
	if (a->out == NULL)
		return cli_usage_error(&cmd_pack_usage, "-o OUT is required");
	if (a->json && strcmp(a->out, "-") == 0)
		return cli_usage_error(&cmd_pack_usage, "--json and '-o -' "
		    "exclude each other: standard output carries the archive");
	return EXIT_OK;
}

static int
parse_pack(int argc, char **argv, struct pack_args *a)
{
	const char *compress = NULL, *mtime = NULL;
	const struct cli_option options[] = {
		CLI_STRING('o', "output", &a->out),
		CLI_STRING(0, "compress", &compress),
		CLI_STRING(0, "mtime", &mtime),
		CLI_FLAG(0, "json", &a->json),
		CLI_FLAG('q', "quiet", &a->quiet),
		CLI_END
	};
	struct cli_operands rest;
	int rc;

	memset(a, 0, sizeof(*a));
	ps_pack_options_init(&a->pack);
	rc = cli_parse_options(&cmd_pack_usage, options, argc, argv, &rest);
	if (rc == EXIT_OK)
		rc = check_args(&rest, a);
	if (rc == EXIT_OK)
		rc = compression_option(compress, a);
	if (rc == EXIT_OK)
		rc = cli_mtime_option(mtime, &a->pack);
	return rc;
}

static void
print_summary(const char *out, const ps_digest *d)
{
	char tree[PS_SHA256_STRING_LEN], tar[PS_SHA256_STRING_LEN];

	ps_sha256_string(d->tree_digest, tree);
	ps_sha256_string(d->tar_digest, tar);
	fputs("wrote ", stdout);
	cli_put_safe(stdout, out);
	printf(": %s pack, %zu entries, %llu bytes of files\n"
	    "tree_digest: %s\ntar_digest: %s\n",
	    ps_format_name(d->format), d->entry_count,
	    (unsigned long long)d->total_size, tree, tar);
}

/* The summary as JSON: the keys `packsign digest --json` uses. */
static int
print_json(const char *out, const ps_digest *d, const ps_pack_options *opt)
{
	json_t *root;

	root = json_pack("{s:o, s:s, s:o, s:I, s:I, s:I, s:s, s:o, s:o}",
	    "path", cli_json_text(out), "format", ps_format_name(d->format),
	    "manifest", cli_json_text(d->manifest_path),
	    "entries", (json_int_t)d->entry_count,
	    "size", (json_int_t)d->total_size, "mtime", (json_int_t)opt->mtime,
	    "compression", ps_compression_name(opt->compression),
	    "tree_digest", cli_json_digest(1, d->tree_digest),
	    "tar_digest", cli_json_digest(d->has_tar_digest, d->tar_digest));
	return cli_print_report(root, out);
}

static int
pack_to_stdout(const char *dir, const ps_pack_options *opt)
{
	ps_error err;

	if (isatty(STDOUT_FILENO))
		return cli_usage_error(&cmd_pack_usage, "refusing to write an "
		    "archive to a terminal; redirect stdout or use -o FILE");
	if (ps_pack(dir, STDOUT_FILENO, opt, NULL, &err) != 0)
		return cli_report(&err);
	return EXIT_OK;
}

static int
pack_to_file(const char *dir, const char *out, const ps_pack_options *opt,
    int json, int quiet)
{
	ps_atomic_file *file = NULL;
	ps_digest *d = NULL;
	ps_error err;
	int rc;

	if (ps_atomic_open(out, 0644, 0, &file, &err) != 0)
		return cli_report(&err);
	cli_remove_on_signal(ps_atomic_temp_path(file));
	if (ps_pack(dir, ps_atomic_fd(file), opt, &d, &err) != 0) {
		ps_atomic_abort(file);
		cli_remove_on_signal(NULL);
		return cli_report(&err);
	}
	if (ps_atomic_commit(file, &err) != 0) {
		cli_remove_on_signal(NULL);
		ps_digest_free(d);
		return cli_report(&err);
	}
	cli_remove_on_signal(NULL);
	rc = EXIT_OK;
	if (json)
		rc = print_json(out, d, opt);
	else if (!quiet)
		print_summary(out, d);
	ps_digest_free(d);
	return rc;
}

static int
run_pack(struct pack_args *a)
{
	struct cli_progress progress;
	int rc;

	a->pack.progress = cli_progress_start(&progress, a->quiet);
	if (strcmp(a->out, "-") == 0)
		rc = pack_to_stdout(a->dir, &a->pack);
	else
		rc = pack_to_file(a->dir, a->out, &a->pack, a->json, a->quiet);
	cli_progress_end(&progress);
	return rc;
}

int
cmd_pack(int argc, char **argv)
{
	struct pack_args a;
	int rc;

	rc = parse_pack(argc, argv, &a);
	if (rc != EXIT_OK)
		return rc == CLI_HELP ? EXIT_OK : rc;
	return run_pack(&a);
}
