/* packsign digest PATH: the digests of a pack directory or archive. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"

const char cmd_digest_usage[] =
    "usage: packsign digest PATH [--json] [--files] [--mtime N]\n"
    "\n"
    "Prints the digests of PATH, a pack directory or an archive (.tar,\n"
    ".tar.gz, .tgz, .tar.zst, .zip), as specified in\n"
    "docs/formats/digests.md:\n"
    "  tree_digest     container-independent digest of the files\n"
    "  tar_digest      SHA-256 of the uncompressed canonical tar (for a\n"
    "                  directory: of the tar 'packsign pack' would write)\n"
    "  archive_digest  SHA-256 of the archive file's bytes\n"
    "  canonical       for tars: whether they follow every canonical rule\n"
    "\n"
    "      --json      print one JSON object\n"
    "      --files     also list every file's SHA-256, size and path\n"
    "      --mtime N   for directories: the mtime of the canonical tar\n"
    "                  (default: $SOURCE_DATE_EPOCH, else 0)\n"
    "  -h, --help      show this help\n";

static const char *
source_name(ps_source_kind kind)
{
	return kind == PS_SOURCE_DIRECTORY ? "directory" :
	    kind == PS_SOURCE_TAR ? "tar" : "zip";
}

static void
print_text(const char *path, const ps_digest *d, int files)
{
	char hex[PS_SHA256_STRING_LEN];
	size_t i;

	printf("path: %s\nsource: %s\nformat: %s\n", path,
	    source_name(d->source), ps_format_name(d->format));
	printf("tree_digest: %s\n", ps_sha256_string(d->tree_digest, hex));
	if (d->has_tar_digest)
		printf("tar_digest: %s\n", ps_sha256_string(d->tar_digest, hex));
	if (d->has_archive_digest)
		printf("archive_digest: %s\n",
		    ps_sha256_string(d->archive_digest, hex));
	if (d->source == PS_SOURCE_TAR)
		printf("canonical: %s\n", d->canonical ? "yes" : "no");
	printf("manifest: %s\nmanifest_sha256: %s\n", d->manifest_path,
	    ps_sha256_string(d->manifest_sha256, hex));
	printf("entries: %zu\nsize: %llu\n", d->entry_count,
	    (unsigned long long)d->total_size);
	for (i = 0; files && i < d->entry_count; i++) {
		if (d->entries[i].type != PS_ENTRY_FILE)
			continue;
		ps_hex_encode(d->entries[i].sha256, PS_SHA256_LEN, hex);
		printf("file: %s %llu %c %s\n", hex,
		    (unsigned long long)d->entries[i].size,
		    d->entries[i].executable ? 'x' : '-', d->entries[i].path);
	}
}

static json_t *
digest_value(int present, const unsigned char *digest)
{
	char hex[PS_SHA256_STRING_LEN];

	return present ? json_string(ps_sha256_string(digest, hex)) : json_null();
}

static json_t *
files_json(const ps_digest *d)
{
	json_t *list = json_array();
	char hex[PS_SHA256_HEX_LEN + 1];
	size_t i;

	for (i = 0; i < d->entry_count; i++) {
		if (d->entries[i].type != PS_ENTRY_FILE)
			continue;
		ps_hex_encode(d->entries[i].sha256, PS_SHA256_LEN, hex);
		json_array_append_new(list, json_pack("{s:s, s:I, s:s, s:b}",
		    "path", d->entries[i].path, "size",
		    (json_int_t)d->entries[i].size, "sha256", hex, "executable",
		    d->entries[i].executable));
	}
	return list;
}

static int
print_json(const char *path, const ps_digest *d, int files)
{
	char hex[PS_SHA256_HEX_LEN + 1];
	json_t *root;
	int rc;

	ps_hex_encode(d->manifest_sha256, PS_SHA256_LEN, hex);
	root = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:{s:s, s:s}, "
	    "s:I, s:I}", "path", path, "source", source_name(d->source),
	    "format", ps_format_name(d->format),
	    "tree_digest", digest_value(1, d->tree_digest),
	    "tar_digest", digest_value(d->has_tar_digest, d->tar_digest),
	    "archive_digest", digest_value(d->has_archive_digest,
	    d->archive_digest),
	    "canonical", d->source == PS_SOURCE_TAR ?
	    json_boolean(d->canonical) : json_null(),
	    "manifest", "path", d->manifest_path, "sha256", hex,
	    "entries", (json_int_t)d->entry_count,
	    "size", (json_int_t)d->total_size);
	if (root == NULL)
		return -1;
	if (files)
		json_object_set_new(root, "files", files_json(d));
	rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_ENSURE_ASCII);
	fputc('\n', stdout);
	json_decref(root);
	return rc;
}

int
cmd_digest(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "files", no_argument, NULL, 'f' },
		{ "mtime", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *mtime = NULL;
	int ch, json = 0, files = 0;
	ps_pack_options opt;
	ps_digest *d = NULL;
	ps_error err;

	ps_pack_options_init(&opt);
	optind = 0;
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j': json = 1; break;
		case 'f': files = 1; break;
		case 'm': mtime = optarg; break;
		case 'h': return cli_print_help("digest");
		default: return cli_usage_error("digest", "unknown option");
		}
	}
	if (argc - optind != 1)
		return cli_usage_error("digest", "expected one PATH");
	if (cli_mtime_option("digest", mtime, &opt) != 0)
		return EXIT_FAILED;
	if (ps_digest_path(argv[optind], &opt, &d, &err) != 0)
		return cli_report(&err);
	if (json) {
		if (print_json(argv[optind], d, files) != 0) {
			ps_digest_free(d);
			return EXIT_FAILED;
		}
	} else {
		print_text(argv[optind], d, files);
	}
	ps_digest_free(d);
	return EXIT_OK;
}
