/* packsign pack DIR -o OUT: the canonical archive of a pack directory. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/cli.h"

const char cmd_pack_usage[] =
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
    "  -q, --quiet           no progress line (shown only on a terminal)\n"
    "  -h, --help            show this help\n";

static void
print_summary(const char *out, const ps_digest *d)
{
	char tree[PS_SHA256_STRING_LEN], tar[PS_SHA256_STRING_LEN];

	ps_sha256_string(d->tree_digest, tree);
	ps_sha256_string(d->tar_digest, tar);
	printf("wrote %s: %s pack, %zu entries, %llu bytes of files\n"
	    "tree_digest: %s\ntar_digest: %s\n", out,
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
		return cli_usage_error("pack", "refusing to write an archive to "
		    "a terminal; redirect stdout or use -o FILE");
	if (ps_pack(dir, STDOUT_FILENO, opt, NULL, &err) != 0)
		return cli_report(&err);
	return EXIT_OK;
}

static int
pack_to_file(const char *dir, const char *out, const ps_pack_options *opt,
    int json)
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
	else
		print_summary(out, d);
	ps_digest_free(d);
	return rc;
}

int
cmd_pack(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "compress", required_argument, NULL, 'c' },
		{ "mtime", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL, *compress = NULL, *mtime = NULL;
	struct cli_progress progress;
	ps_pack_options opt;
	int ch, json = 0, quiet = 0, rc;

	ps_pack_options_init(&opt);
	optind = 0;
	while ((ch = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'o': out = optarg; break;
		case 'q': quiet = 1; break;
		case 'c': compress = optarg; break;
		case 'm': mtime = optarg; break;
		case 'j': json = 1; break;
		case 'h': return cli_print_help("pack");
		default: return cli_usage_error("pack", "unknown option");
		}
	}
	if (argc - optind != 1)
		return cli_usage_error("pack", "expected one pack directory");
	if (out == NULL)
		return cli_usage_error("pack", "-o OUT is required");
	if (json && strcmp(out, "-") == 0)
		return cli_usage_error("pack", "--json and '-o -' exclude each "
		    "other: standard output carries the archive");
	if (compress != NULL &&
	    ps_compression_by_name(compress, &opt.compression) != 0)
		return cli_usage_error("pack", "--compress must be none, gzip or "
		    "zstd, found '%s'", compress);
	if (compress == NULL && strcmp(out, "-") != 0 &&
	    ps_compression_from_name(out, &opt.compression) != 0)
		return cli_usage_error("pack", "cannot tell the compression from "
		    "'%s': use a .tar, .tar.gz, .tgz or .tar.zst name, or "
		    "--compress", out);
	if (cli_mtime_option("pack", mtime, &opt) != 0)
		return EXIT_FAILED;
	opt.progress = cli_progress_start(&progress, quiet);
	if (strcmp(out, "-") == 0)
		rc = pack_to_stdout(argv[optind], &opt);
	else
		rc = pack_to_file(argv[optind], out, &opt, json);
	cli_progress_end(&progress);
	return rc;
}
