/* packsign digest PATH: the digests of a pack directory or archive. */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/copies.h"
#include "cli/options.h"
#include "cli/output.h"

const struct cli_usage cmd_digest_usage = {
	.name = "digest",
	.text =
    "usage: packsign digest PATH [--json] [--files] [--mtime N] [-q]\n"
    "           " CLI_LIMIT_USAGE "\n"
    "\n"
    "Prints the digests of PATH, a pack directory or an archive (.tar,\n"
    ".tar.gz, .tgz, .tar.zst, .zip), as specified in\n"
    "docs/formats/digests.md:\n"
    "  tree_digest     container-independent digest of the files\n"
    "  tar_digest      SHA-256 of the uncompressed canonical tar (for a\n"
    "                  directory: of the tar 'packsign pack' would write)\n"
    "  archive_digest  SHA-256 of the archive file's bytes\n"
    "  canonical       for tars: whether they follow every canonical rule\n"
    "and the manifest's format, id and version, and the SHA-256 of every\n"
    "prompt file it declares (docs/formats/manifests.md).\n"
    "\n"
    "  --json               print one JSON object\n"
    "  --files              also list every file's SHA-256, size and path\n"
    "  --mtime N            for directories: the mtime of the canonical tar\n"
    "                       (default: $SOURCE_DATE_EPOCH, else 0)\n"
    CLI_LIMIT_FLAGS_HELP
    CLI_QUIET_HELP
    "  -h, --help           show this help\n",
};

struct digest_args {
	const char *path;
	int json, files, quiet;
	ps_pack_options pack;        /* the mtime of a directory's tar */
};

static int
parse_digest(int argc, char **argv, struct digest_args *a)
{
	const char *mtime = NULL;
	const struct cli_option options[] = {
		CLI_FLAG(0, "json", &a->json),
		CLI_FLAG(0, "files", &a->files),
		CLI_FLAG('q', "quiet", &a->quiet),
		CLI_STRING(0, "mtime", &mtime),
		CLI_LIMIT_OPTIONS(&a->pack.limits),
		CLI_END
	};
	struct cli_operands rest;
	int rc;

	memset(a, 0, sizeof(*a));
	ps_pack_options_init(&a->pack);
	rc = cli_parse_options(&cmd_digest_usage, options, argc, argv, &rest);
	if (rc != EXIT_OK)
		return rc;
	if (rest.count != 1)
		return cli_usage_error(&cmd_digest_usage, "expected one PATH");
	a->path = rest.argv[0];
	return cli_mtime_option(mtime, &a->pack);
}

static const char *
source_name(ps_source_kind kind)
{
	return kind == PS_SOURCE_DIRECTORY ? "directory" :
	    kind == PS_SOURCE_TAR ? "tar" : "zip";
}

/* The digest of a prompt file (NULL when the manifest names a missing one). */
static const ps_entry *
prompt_entry(const ps_digest *d, const ps_manifest *m, size_t i)
{
	const ps_entry *e = ps_digest_find(d, m->prompts[i].path);

	return e != NULL && e->type == PS_ENTRY_FILE ? e : NULL;
}

static void
print_prompts(const ps_digest *d, const ps_manifest *m)
{
	char hex[PS_SHA256_HEX_LEN + 1];
	const ps_entry *e;
	size_t i;

	for (i = 0; m != NULL && i < m->prompt_count; i++) {
		if ((e = prompt_entry(d, m, i)) == NULL)
			continue;
		ps_hex_encode(e->sha256, PS_SHA256_LEN, hex);
		printf("prompt: %s ", hex);
		cli_put_line(stdout, "", e->path);
	}
}

static void
print_text(const char *path, const ps_digest *d, const ps_manifest *m,
    int files)
{
	char hex[PS_SHA256_STRING_LEN];
	size_t i;

	cli_put_line(stdout, "path: ", path);
	printf("source: %s\nformat: %s\n", source_name(d->source),
	    ps_format_name(d->format));
	if (m != NULL && m->id != NULL)
		cli_put_line(stdout, "id: ", m->id);
	if (m != NULL && m->version != NULL)
		cli_put_line(stdout, "version: ", m->version);
	printf("tree_digest: %s\n", ps_sha256_string(d->tree_digest, hex));
	if (d->has_tar_digest)
		printf("tar_digest: %s\n", ps_sha256_string(d->tar_digest, hex));
	if (d->has_archive_digest)
		printf("archive_digest: %s\n",
		    ps_sha256_string(d->archive_digest, hex));
	if (d->source == PS_SOURCE_TAR)
		printf("canonical: %s\n", d->canonical ? "yes" : "no");
	cli_put_line(stdout, "manifest: ", d->manifest_path);
	printf("manifest_sha256: %s\n", ps_sha256_string(d->manifest_sha256,
	    hex));
	printf("entries: %zu\nsize: %llu\n", d->entry_count,
	    (unsigned long long)d->total_size);
	print_prompts(d, m);
	for (i = 0; files && i < d->entry_count; i++) {
		if (d->entries[i].type != PS_ENTRY_FILE)
			continue;
		ps_hex_encode(d->entries[i].sha256, PS_SHA256_LEN, hex);
		printf("file: %s %llu %c ", hex,
		    (unsigned long long)d->entries[i].size,
		    d->entries[i].executable ? 'x' : '-');
		cli_put_line(stdout, "", d->entries[i].path);
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

static json_t *
prompts_json(const ps_digest *d, const ps_manifest *m)
{
	json_t *list = json_array();
	char hex[PS_SHA256_HEX_LEN + 1];
	const ps_entry *e;
	size_t i;

	for (i = 0; m != NULL && i < m->prompt_count; i++) {
		if ((e = prompt_entry(d, m, i)) == NULL)
			continue;
		ps_hex_encode(e->sha256, PS_SHA256_LEN, hex);
		json_array_append_new(list, json_pack("{s:s, s:s}", "path",
		    e->path, "sha256", hex));
	}
	return list;
}

static json_t *
string_or_null(const char *text)
{
	return text != NULL ? json_string(text) : json_null();
}

static int
print_json(const char *path, const ps_digest *d, const ps_manifest *m,
    int files)
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
	json_object_set_new(root, "id", string_or_null(m != NULL ? m->id : NULL));
	json_object_set_new(root, "version",
	    string_or_null(m != NULL ? m->version : NULL));
	json_object_set_new(root, "prompts", prompts_json(d, m));
	if (files)
		json_object_set_new(root, "files", files_json(d));
	rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_ENSURE_ASCII);
	fputc('\n', stdout);
	json_decref(root);
	return rc;
}

static int
run_digest(struct digest_args *a)
{
	ps_validate_options validate;
	ps_inspection *in = NULL;
	ps_error err;
	int rc;

	ps_validate_options_init(&validate);
	if (ps_inspect(a->path, &a->pack, &validate, &in, &err) != 0)
		return cli_report(&err);
	if (ps_diags_count(&in->diags, PS_SEVERITY_ERROR) > 0)
		fprintf(stderr, "packsign: warning: the manifest has %zu "
		    "problem(s); id, version and prompt files may be incomplete "
		    "(see packsign validate)\n",
		    ps_diags_count(&in->diags, PS_SEVERITY_ERROR));
	rc = EXIT_OK;
	if (a->json) {
		if (print_json(a->path, in->digest, in->manifest,
		    a->files) != 0)
			rc = EXIT_FAILED;
	} else if (!a->quiet) {
		print_text(a->path, in->digest, in->manifest, a->files);
	}
	ps_inspection_free(in);
	return rc;
}

int
cmd_digest(int argc, char **argv)
{
	struct digest_args a;
	ps_copies *copies;
	int rc;

	rc = parse_digest(argc, argv, &a);
	if (rc != EXIT_OK)
		return rc == CLI_HELP ? EXIT_OK : rc;
	if (cli_copies_open(NULL, &copies) != EXIT_OK)
		return EXIT_FAILED;
	a.pack.limits.copies = copies;
	rc = run_digest(&a);
	ps_copies_free(copies);
	return rc;
}
