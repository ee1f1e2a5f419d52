/* packsign sign: a pack (or archive) and its DSSE signature OUT.sig. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"

const char cmd_sign_usage[] =
    "usage: packsign sign PATH [-s KEY] [-o OUT] [--identity ID] [--minisig]\n"
    "                     [--source-repo URL] [--source-commit HASH]\n"
    "                     [--allow-dirty] [--append] [--force] [--mtime N]\n"
    "                     [--compress none|gzip|zstd] [--json] [-q]\n"
    "                     [--passphrase-file FILE | --passphrase-fd N]\n"
    "\n"
    "PATH a pack directory: validates its manifest, writes its canonical\n"
    "archive OUT (default <id>-<version>.tar.gz here, '/' in the id as '-')\n"
    "and OUT.sig, a DSSE envelope over an in-toto statement of the pack and\n"
    "its git provenance.  PATH an archive (.tar, .tar.gz, .tgz, .tar.zst,\n"
    ".zip): reads every entry, refuses unsafe ones, signs it as it is and\n"
    "writes PATH.sig.  The same pack and key give the same bytes.\n"
    "\n"
    "  -s, --secret-key KEY  minisign secret key; '-' reads stdin; default\n"
    "                        $PACKSIGN_SECRET_KEY (the key's text)\n"
    "  -o, --output OUT      the archive to write (directories only); its\n"
    "                        suffix picks the compression\n"
    "      --identity ID     the signer's identity for the manifest's\n"
    "                        signed_by (default: the identity in NAME.pub\n"
    "                        beside NAME.key)\n"
    "      --minisig         also write OUT.minisig (minisign -Vm checks it)\n"
    "      --source-repo URL record this repository (normalised to https)\n"
    "      --source-commit H record this full commit id\n"
    "      --allow-dirty     sign a pack whose files differ from the commit,\n"
    "                        recording dirty: true\n"
    "      --append          add this key's signature to an existing OUT.sig\n"
    "                        over the same statement (co-signing)\n"
    "      --force           replace an existing OUT.sig / OUT.minisig\n"
    "      --mtime N         entry mtime (default $SOURCE_DATE_EPOCH, else 0)\n"
    "      --compress KIND   none, gzip or zstd (default from OUT, else gzip)\n"
    "                        (-o, --mtime and --compress build the archive of\n"
    "                        a directory; an archive PATH is signed as is)\n"
    "      --json            print the result as JSON\n"
    "  -q, --quiet           no progress line (shown only on a terminal)\n"
    "      --passphrase-file F, --passphrase-fd N\n"
    "                        where the key's passphrase comes from (default\n"
    "                        $PACKSIGN_PASSPHRASE, else the terminal)\n"
    "\n"
    "Exit status: 0 signed, 1 refused (invalid manifest, signed_by, dirty\n"
    "tree, holon source, unsafe archive), 2 could not be done.\n";

enum { OPT_IDENTITY = 256, OPT_MINISIG, OPT_REPO, OPT_COMMIT, OPT_DIRTY,
    OPT_APPEND, OPT_FORCE, OPT_MTIME, OPT_COMPRESS, OPT_JSON, OPT_PASS_FILE,
    OPT_PASS_FD };

static const struct option sign_options[] = {
	{ "secret-key", required_argument, NULL, 's' },
	{ "output", required_argument, NULL, 'o' },
	{ "identity", required_argument, NULL, OPT_IDENTITY },
	{ "minisig", no_argument, NULL, OPT_MINISIG },
	{ "source-repo", required_argument, NULL, OPT_REPO },
	{ "source-commit", required_argument, NULL, OPT_COMMIT },
	{ "allow-dirty", no_argument, NULL, OPT_DIRTY },
	{ "append", no_argument, NULL, OPT_APPEND },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "mtime", required_argument, NULL, OPT_MTIME },
	{ "compress", required_argument, NULL, OPT_COMPRESS },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "quiet", no_argument, NULL, 'q' },
	{ "passphrase-file", required_argument, NULL, OPT_PASS_FILE },
	{ "passphrase-fd", required_argument, NULL, OPT_PASS_FD },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

struct sign_args {
	const char *path, *key, *mtime, *compress;
	int json, quiet;
	struct cli_passphrase_opts pass;
	ps_sign_options o;
};

static int
parse_option(int c, struct sign_args *a)
{
	switch (c) {
	case 's': a->key = optarg; break;
	case 'o': a->o.output = optarg; break;
	case OPT_IDENTITY: a->o.identity = optarg; break;
	case OPT_MINISIG: a->o.minisig = 1; break;
	case OPT_REPO: a->o.source_repo = optarg; break;
	case OPT_COMMIT: a->o.source_commit = optarg; break;
	case OPT_DIRTY: a->o.allow_dirty = 1; break;
	case OPT_APPEND: a->o.append = 1; break;
	case OPT_FORCE: a->o.force = 1; break;
	case OPT_MTIME: a->mtime = optarg; break;
	case OPT_COMPRESS: a->compress = optarg; break;
	case OPT_JSON: a->json = 1; break;
	case 'q': a->quiet = 1; break;
	case OPT_PASS_FILE: a->pass.file = optarg; break;
	case OPT_PASS_FD: a->pass.fd = optarg; break;
	case 'h': cli_print_help("sign"); return -1;
	default: return cli_usage_error("sign", "unknown option or missing "
	    "argument");
	}
	return EXIT_OK;
}

static int
parse_compression(struct sign_args *a)
{
	ps_compression *c = &a->o.pack.compression;

	if (a->compress != NULL) {
		if (ps_compression_by_name(a->compress, c) == 0)
			return EXIT_OK;
		return cli_usage_error("sign", "--compress must be none, gzip or "
		    "zstd, found '%s'", a->compress);
	}
	if (a->o.output != NULL && ps_compression_from_name(a->o.output, c) != 0)
		return cli_usage_error("sign", "cannot tell the compression from "
		    "'%s': use a .tar, .tar.gz, .tgz or .tar.zst name, or "
		    "--compress", a->o.output);
	return EXIT_OK;
}

static int
check_args(struct sign_args *a)
{
	if (a->o.output != NULL && (strcmp(a->o.output, "-") == 0 ||
	    a->o.output[0] == '\0'))
		return cli_usage_error("sign", "-o names the archive file to "
		    "write; standard output is not supported");
	if (a->o.append && a->o.force)
		return cli_usage_error("sign", "--append and --force exclude "
		    "each other");
	if (a->o.identity != NULL && !ps_identity_valid(a->o.identity))
		return cli_usage_error("sign", "--identity is 1 to %d characters "
		    "from A-Z a-z 0-9 . _ @ + : / -, found '%s'",
		    PS_IDENTITY_MAX, a->o.identity);
	if (parse_compression(a) != EXIT_OK)
		return EXIT_FAILED;
	if (cli_mtime_option("sign", a->mtime, &a->o.pack) != 0)
		return EXIT_FAILED;
	return cli_check_passphrase_options("sign", &a->pass, 0);
}

static int
parse_args(int argc, char **argv, struct sign_args *a)
{
	int c, rc;

	memset(a, 0, sizeof(*a));
	ps_sign_options_init(&a->o);
	a->pass.env = "PACKSIGN_PASSPHRASE";
	optind = 0;
	while ((c = getopt_long(argc, argv, "s:o:qh", sign_options, NULL)) != -1)
		if ((rc = parse_option(c, a)) != EXIT_OK)
			return rc;
	if (argc - optind != 1)
		return cli_usage_error("sign", "expected one PATH (a pack "
		    "directory or an archive)");
	a->path = argv[optind];
	return check_args(a);
}

/* NAME.key -> NAME.pub: where the signer's identity is read from. */
static char *
public_key_beside(const char *key)
{
	size_t n;
	char *pub;

	if (key == NULL || strcmp(key, "-") == 0)
		return NULL;
	n = strlen(key);
	if (n < 4 || strcmp(key + n - 4, ".key") != 0)
		return NULL;
	pub = strdup(key);
	if (pub != NULL)
		memcpy(pub + n - 4, ".pub", 4);
	return pub;
}

static void
print_diags(const ps_diags *diags)
{
	char line[8192];
	size_t i;

	for (i = 0; i < diags->count; i++) {
		cli_put_safe(stderr, ps_diag_format(&diags->items[i], line,
		    sizeof(line)));
		fputc('\n', stderr);
	}
}

static void
print_wrote(const char *path, const char *extra)
{
	fputs("wrote ", stdout);
	cli_put_safe(stdout, path);
	fputs(extra, stdout);
	fputc('\n', stdout);
}

static void
print_source(const ps_sign_result *r)
{
	if (!r->has_source) {
		puts("no source recorded");
		return;
	}
	cli_put_safe(stdout, "source ");
	cli_put_safe(stdout, r->source_repository != NULL ?
	    r->source_repository : "(no repository)");
	printf(" @ %s%s\n", r->source_commit, r->source_dirty ? " (dirty)" : "");
}

/* "Signed ID VERSION as IDENTITY (SHA256:...): OUT, .sig; source ..." */
static void
print_text(const ps_sign_result *r)
{
	char count[64];

	if (r->archive_written)
		print_wrote(r->archive_path, "");
	if (r->minisig_path != NULL)
		print_wrote(r->minisig_path, "");
	snprintf(count, sizeof(count), " (%zu signature%s)", r->signature_count,
	    r->signature_count == 1 ? "" : "s");
	print_wrote(r->sig_path, count);
	fputs("Signed ", stdout);
	cli_put_safe(stdout, r->id);
	fputc(' ', stdout);
	cli_put_safe(stdout, r->version);
	if (r->identity != NULL)
		printf(" as %s (%s): ", r->identity, r->fingerprint);
	else
		printf(" as %s: ", r->fingerprint);
	cli_put_safe(stdout, r->archive_path);
	printf(", .sig%s; ", r->minisig_path != NULL ? ", .minisig" : "");
	print_source(r);
}

static json_t *
source_json(const ps_sign_result *r)
{
	if (!r->has_source)
		return json_null();
	return json_pack("{s:s?, s:s, s:s, s:b, s:s?}", "repository",
	    r->source_repository, "commit", r->source_commit, "path",
	    r->source_path, "dirty", r->source_dirty, "manifestRef",
	    r->source_manifest_ref);
}

static int
print_json(const ps_sign_result *r)
{
	char tree[PS_SHA256_STRING_LEN], archive[PS_SHA256_STRING_LEN];
	json_t *root;
	int rc;

	root = json_pack("{s:s, s:s, s:s?, s:b, s:s, s:s, s:s, s:s, s:s, "
	    "s:o, s:I, s:s?, s:s, s:I}",
	    "archive", r->archive_path, "sig", r->sig_path,
	    "minisig", r->minisig_path, "archiveWritten", r->archive_written,
	    "format", ps_format_name(r->format), "id", r->id,
	    "version", r->version,
	    "treeDigest", ps_sha256_string(r->tree_digest, tree),
	    "archiveDigest", ps_sha256_string(r->archive_digest, archive),
	    "source", source_json(r), "prompts", (json_int_t)r->prompt_count,
	    "identity", r->identity, "fingerprint", r->fingerprint,
	    "signatures", (json_int_t)r->signature_count);
	if (root == NULL) {
		fprintf(stderr, "packsign: cannot build the JSON output "
		    "[json_output]\n");
		return EXIT_FAILED;
	}
	rc = cli_print_json(root);
	json_decref(root);
	return rc;
}

static int
run_sign(struct sign_args *a, const ps_seckey *key)
{
	struct cli_progress progress;
	ps_sign_result *r = NULL;
	ps_error err;
	int rc, failed;

	ps_error_clear(&err);
	a->o.pack.progress = cli_progress_start(&progress, a->quiet);
	failed = ps_sign(a->path, key, &a->o, &r, &err) != 0;
	cli_progress_end(&progress);
	rc = EXIT_OK;
	if (failed) {
		if (r != NULL)
			print_diags(&r->diags);
		rc = cli_report(&err);
	} else {
		if (ps_diags_count(&r->diags, PS_SEVERITY_WARNING) > 0)
			print_diags(&r->diags);
		if (a->json)
			rc = print_json(r);
		else
			print_text(r);
	}
	ps_sign_result_free(r);
	return rc;
}

int
cmd_sign(int argc, char **argv)
{
	struct sign_args a;
	ps_seckey *key = NULL;
	char *pub = NULL;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc != EXIT_OK)
		return rc < 0 ? EXIT_OK : rc;
	rc = cli_load_seckey("sign", a.key, &a.pass, &key, NULL);
	if (rc != EXIT_OK)
		return rc;
	pub = public_key_beside(a.key);
	a.o.public_key_path = pub;
	a.o.temp_file_hook = cli_remove_on_signal;
	rc = run_sign(&a, key);
	ps_seckey_free(key);
	free(pub);
	return rc;
}
