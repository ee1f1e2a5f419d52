/* packsign sign: a pack (or archive) and its DSSE signature OUT.sig. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/copies.h"
#include "cli/download_options.h"
#include "cli/json.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "cli/secrets.h"
#include "cli/signals.h"

const struct cli_usage cmd_sign_usage = {
	.name = "sign",
	.text =
    "usage: packsign sign PATH [-s KEY] [-o OUT] [--identity ID] [--minisig]\n"
    "                     [--keyless [--identity-token FILE|-]\n"
    "                      [--signing-config F] [--trusted-root F]]\n"
    "                     [--bundle [--tsa-url URL [--ca-file FILE]]]\n"
    "                     [--predicate-version 1|2] [--predicate-out FILE]\n"
    "                     [--source-repo URL] [--source-commit HASH]\n"
    "                     [--allow-dirty] [--append] [--force] [--mtime N]\n"
    "                     [--compress none|gzip|zstd] [--json] [-q]\n"
    "                     [--passphrase-file FILE | --passphrase-fd N]\n"
    "                     " CLI_LIMIT_USAGE "\n"
    "\n"
    "PATH a pack directory: validates its manifest, writes its canonical\n"
    "archive OUT (default <id>-<version>.tar.gz here, '/' in the id as '-')\n"
    "and OUT.sig, a DSSE envelope over an in-toto statement of the pack and\n"
    "its git provenance.  PATH an archive (.tar, .tar.gz, .tgz, .tar.zst,\n"
    ".zip): reads every entry, refuses unsafe ones, signs it as it is and\n"
    "writes PATH.sig.  The same pack and key give the same bytes.\n"
    "\n"
    "  -s, --secret-key KEY\n"
    "                       minisign secret key; '-' reads stdin; default\n"
    "                       $PACKSIGN_SECRET_KEY (the key's text)\n"
    "  --keyless            sign without a key: an ephemeral key certified\n"
    "                       by Fulcio for an OIDC identity, the signature\n"
    "                       logged by Rekor, in OUT.1.sigstore.json only;\n"
    "                       with -s KEY co-signs: the key's OUT.sig (and\n"
    "                       OUT.1 with --bundle), the keyless OUT.2\n"
    "  --identity-token F   the OIDC token's file ('-': stdin); default\n"
    "                       $SIGSTORE_ID_TOKEN, else GitHub Actions' token\n"
    "                       (ACTIONS_ID_TOKEN_REQUEST_URL and _TOKEN)\n"
    "  --signing-config F   Sigstore signing_config.json v0.2 (default:\n"
    "                       the public-good instance)\n"
    "  --trusted-root F     the trusted root the new bundle is verified\n"
    "                       against (default: public good)\n"
    "  -o, --output OUT     the archive to write (directories only); its\n"
    "                       suffix picks the compression\n"
    "  --identity ID        the signer's identity for the manifest's\n"
    "                       signed_by (default: the identity in NAME.pub\n"
    "                       beside NAME.key)\n"
    "  --minisig            also write OUT.minisig (minisign -Vm checks it)\n"
    "  --bundle             also write OUT.N.sigstore.json, a Sigstore\n"
    "                       bundle v0.3 of signature N (1, 2, ...) of\n"
    "                       OUT.sig, with no transparency-log entry\n"
    "  --tsa-url URL        with --bundle: an RFC 3161 timestamp of the new\n"
    "                       signature from this https timestamp authority,\n"
    "                       in its bundle (no timestamp: nothing written)\n"
    "  --ca-file FILE       trust the CAs of FILE (PEM) instead of the\n"
    "                       system's, for the timestamp authority and the\n"
    "                       Sigstore services of --keyless\n"

    "  --predicate-version V  2 (default): the statement records the\n"
    "                       SHA-256 of each 1 MiB chunk of the archive, so\n"
    "                       verifiers can authenticate it as they stream it\n"
    "                       (an archive over 16 GiB gets 1); 1: the older\n"
    "                       predicate, for verifiers before issue 30\n"
    "  --predicate-out FILE also write the statement's predicate (JSON) to\n"
    "                       FILE, for another tool to attest OUT with\n"
    "                       (actions/attest, cosign attest-blob --type)\n"
    "  --source-repo URL    record this repository (normalised to https);\n"
    "                       origin is then not read\n"
    "  --source-commit H    record this full commit id\n"
    "  --allow-dirty        sign a pack whose files differ from the commit,\n"
    "                       recording dirty: true\n"
    "  --append             add this key's signature to an existing OUT.sig\n"
    "                       over the same statement (co-signing)\n"
    "  --force              replace an existing OUT.sig / OUT.minisig\n"
    "  --mtime N            entry mtime (default $SOURCE_DATE_EPOCH, else 0)\n"
    "  --compress KIND      none, gzip or zstd (default from OUT, else gzip)\n"
    "                       (-o, --mtime and --compress build the archive of\n"
    "                       a directory; an archive PATH is signed as is)\n"
    "  --json               print the result as JSON\n"
    "  -q, --quiet          print nothing on success: no progress line, no\n"
    "                       wrote lines (errors, warnings still on stderr)\n"
    "  --passphrase-file F, --passphrase-fd N\n"
    "                       where the key's passphrase comes from (default\n"
    "                       $PACKSIGN_PASSPHRASE, else the terminal)\n"
    CLI_LIMIT_FLAGS_HELP
    "\n"
    "Exit status: 0 signed, 1 refused (invalid manifest, signed_by, dirty\n"
    "tree, holon source, unsafe archive), 2 could not be done.\n",
};

struct sign_args {
	const char *path, *key, *mtime, *compress, *token_file, *predicate;
	int json, quiet;
	struct cli_passphrase_opts pass;
	ps_sign_options o;
	ps_fetch_options fetch;
};

static int
compression_option(struct sign_args *a)
{
	ps_compression *c = &a->o.pack.compression;

	if (a->compress != NULL) {
		if (ps_compression_by_name(a->compress, c) == 0)
			return EXIT_OK;
		return cli_usage_error(&cmd_sign_usage, "--compress must be "
		    "none, gzip or zstd, found '%s'", a->compress);
	}
	if (a->o.output != NULL && ps_compression_from_name(a->o.output, c) != 0)
		return cli_usage_error(&cmd_sign_usage, "cannot tell the "
		    "compression from '%s': use a .tar, .tar.gz, .tgz or "
		    ".tar.zst name, or --compress", a->o.output);
	return EXIT_OK;
}

static int
check_args(struct sign_args *a)
{
	if (a->o.output != NULL && (strcmp(a->o.output, "-") == 0 ||
	    a->o.output[0] == '\0'))
		return cli_usage_error(&cmd_sign_usage, "-o names the archive "
		    "file to write; standard output is not supported");
	if (a->o.tsa_url != NULL && !a->o.bundle)
		return cli_usage_error(&cmd_sign_usage, "--tsa-url needs "
		    "--bundle: the timestamp is written into the bundle");
	if (a->fetch.ca_file != NULL && a->o.tsa_url == NULL && !a->o.keyless)
		return cli_usage_error(&cmd_sign_usage, "--ca-file applies to "
		    "--tsa-url and --keyless");
	if (!a->o.keyless && (a->token_file != NULL ||
	    a->o.signing_config != NULL || a->o.trusted_root != NULL))
		return cli_usage_error(&cmd_sign_usage, "--identity-token, "
		    "--signing-config and --trusted-root apply to --keyless");
	if (a->o.keyless && a->o.append)
		return cli_usage_error(&cmd_sign_usage, "--keyless writes a bundle "
		    "of its own: it excludes --append");
	if (a->o.keyless && a->key == NULL && (a->o.minisig || a->o.bundle ||
	    a->o.tsa_url != NULL || a->o.identity != NULL))
		return cli_usage_error(&cmd_sign_usage, "--keyless without -s "
		    "signs without a key and writes its one bundle: it excludes "
		    "--minisig, --bundle, --tsa-url and --identity (the TSA comes "
		    "from --signing-config); with -s KEY it co-signs");
	if (a->o.append && a->o.force)
		return cli_usage_error(&cmd_sign_usage,
		    "--append and --force exclude each other");
	if (a->o.identity != NULL && !ps_identity_valid(a->o.identity))
		return cli_usage_error(&cmd_sign_usage, "--identity is 1 to "
		    "%d characters from A-Z a-z 0-9 . _ @ + : / -, found '%s'",
		    PS_IDENTITY_MAX, a->o.identity);
	if (compression_option(a) != EXIT_OK)
		return EXIT_FAILED;
	if (a->predicate != NULL && strcmp(a->predicate, "1") != 0 &&
	    strcmp(a->predicate, "2") != 0)
		return cli_usage_error(&cmd_sign_usage, "--predicate-version is "
		    "1 or 2, found '%s'", a->predicate);
	if (a->predicate != NULL)
		a->o.predicate_version = a->predicate[0] - '0';
	if (cli_mtime_option(a->mtime, &a->o.pack) != EXIT_OK)
		return EXIT_FAILED;
	return cli_check_passphrase_options(&cmd_sign_usage, &a->pass, 0);
}

static int
parse_sign(int argc, char **argv, struct sign_args *a)
{
	const struct cli_option options[] = {
		CLI_STRING('s', "secret-key", &a->key),
		CLI_STRING('o', "output", &a->o.output),
		CLI_STRING(0, "identity", &a->o.identity),
		CLI_FLAG(0, "minisig", &a->o.minisig),
		CLI_FLAG(0, "bundle", &a->o.bundle),
		CLI_STRING(0, "tsa-url", &a->o.tsa_url),
		CLI_STRING(0, "ca-file", &a->fetch.ca_file),
		CLI_FLAG(0, "keyless", &a->o.keyless),
		CLI_STRING(0, "identity-token", &a->token_file),
		CLI_STRING(0, "signing-config", &a->o.signing_config),
		CLI_STRING(0, "trusted-root", &a->o.trusted_root),

		CLI_STRING(0, "predicate-version", &a->predicate),
		CLI_STRING(0, "predicate-out", &a->o.predicate_out),
		CLI_STRING(0, "source-repo", &a->o.source_repo),
		CLI_STRING(0, "source-commit", &a->o.source_commit),
		CLI_FLAG(0, "allow-dirty", &a->o.allow_dirty),
		CLI_FLAG(0, "append", &a->o.append),
		CLI_FLAG(0, "force", &a->o.force),
		CLI_STRING(0, "mtime", &a->mtime),
		CLI_STRING(0, "compress", &a->compress),
		CLI_FLAG(0, "json", &a->json),
		CLI_FLAG('q', "quiet", &a->quiet),
		CLI_STRING(0, "passphrase-file", &a->pass.file),
		CLI_STRING(0, "passphrase-fd", &a->pass.fd),
		CLI_LIMIT_OPTIONS(&a->o.pack.limits),
		CLI_END
	};
	struct cli_operands rest;
	int rc;

	memset(a, 0, sizeof(*a));
	ps_sign_options_init(&a->o);
	ps_fetch_options_init(&a->fetch);
	cli_download_proxy(&a->fetch);
	a->o.fetch = &a->fetch;
	a->pass.env = "PACKSIGN_PASSPHRASE";
	rc = cli_parse_options(&cmd_sign_usage, options, argc, argv, &rest);
	if (rc != EXIT_OK)
		return rc;
	if (rest.count != 1)
		return cli_usage_error(&cmd_sign_usage, "expected one PATH (a "
		    "pack directory or an archive)");
	a->path = rest.argv[0];
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
	fputs(" @ ", stdout);
	cli_put_safe(stdout, r->source_commit);
	puts(r->source_dirty ? " (dirty)" : "");
}

/* "Signed ID VERSION as IDENTITY (SHA256:...): OUT, .sig; source ..." */
static void
print_text(const ps_sign_result *r)
{
	char count[64];
	size_t i;

	if (r->archive_written)
		print_wrote(r->archive_path, "");
	if (r->minisig_path != NULL)
		print_wrote(r->minisig_path, "");
	for (i = 0; i < r->bundle_count; i++)
		print_wrote(r->bundle_paths[i], "");
	snprintf(count, sizeof(count), " (%zu signature%s)", r->signature_count,
	    r->signature_count == 1 ? "" : "s");
	if (r->sig_path != NULL)
		print_wrote(r->sig_path, count);
	fputs("Signed ", stdout);
	cli_put_safe(stdout, r->id);
	fputc(' ', stdout);
	cli_put_safe(stdout, r->version);
	if (r->identity != NULL) {
		fputs(" as ", stdout);
		cli_put_safe(stdout, r->identity);
		printf(" (%s): ", r->fingerprint[0] != '\0' ? r->fingerprint :
		    "keyless");
	} else
		printf(" as %s: ", r->fingerprint);
	cli_put_safe(stdout, r->archive_path);
	printf("%s%s%s; ", r->sig_path != NULL ? ", .sig" : "",
	    r->minisig_path != NULL ? ", .minisig" : "",
	    r->bundle_count > 0 ? (r->sig_path != NULL ? ", bundles" :
	    ", bundle") : "");
	print_source(r);
}

static json_t *
source_json(const ps_sign_result *r)
{
	if (!r->has_source)
		return json_null();
	return json_pack("{s:s?, s:s, s:s, s:b, s:s?}", "repository",
	    r->source_repository, "commit", r->source_commit, "path",
	    r->source_path, "dirty", r->source_dirty, "manifest_ref",
	    r->source_manifest_ref);
}

static json_t *
bundles_json(const ps_sign_result *r)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; list != NULL && i < r->bundle_count; i++) {
		if (json_array_append_new(list,
		    cli_json_text(r->bundle_paths[i])) != 0) {
			json_decref(list);
			return NULL;
		}
	}
	return list;
}

static int
print_json(const ps_sign_result *r, const char *predicate)
{
	char tree[PS_SHA256_STRING_LEN], archive[PS_SHA256_STRING_LEN];
	json_t *root;
	int rc;

	root = json_pack("{s:s, s:s?, s:s?, s:b, s:s, s:s, s:s, s:s, s:s, "
	    "s:o, s:I, s:s?, s:s, s:I}",
	    "archive", r->archive_path, "sig", r->sig_path,
	    "minisig", r->minisig_path, "archive_written", r->archive_written,
	    "format", ps_format_name(r->format), "id", r->id,
	    "version", r->version,
	    "tree_digest", ps_sha256_string(r->tree_digest, tree),
	    "archive_digest", ps_sha256_string(r->archive_digest, archive),
	    "source", source_json(r), "prompts", (json_int_t)r->prompt_count,
	    "identity", r->identity, "fingerprint", r->fingerprint,
	    "signatures", (json_int_t)r->signature_count);
	if (root != NULL && (json_object_set_new(root, "bundles",
	    bundles_json(r)) != 0 || json_object_set_new(root, "predicate",
	    predicate != NULL ? json_string(predicate) : json_null()) != 0)) {
		json_decref(root);
		root = NULL;
	}
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
sign_with(struct sign_args *a, const ps_seckey *key)
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
			rc = print_json(r, a->o.predicate_out);
		else if (!a->quiet) {
			if (a->o.predicate_out != NULL)
				print_wrote(a->o.predicate_out, " (the predicate)");
			print_text(r);
		}
	}
	ps_sign_result_free(r);
	return rc;
}

/* `token`: co-signing with --keyless (NULL: the key alone). */
static int
run_sign(struct sign_args *a, ps_secret *token)
{
	ps_seckey *key = NULL;
	char *pub = NULL;
	int rc;

	rc = cli_load_seckey(&cmd_sign_usage, a->key, &a->pass, &key, NULL);
	if (rc != EXIT_OK)
		return rc;
	pub = public_key_beside(a->key);
	a->o.public_key_path = pub;
	a->o.temp_file_hook = cli_remove_on_signal;
	if (token != NULL)
		a->o.identity_token = (const char *)ps_secret_bytes(token);
	rc = sign_with(a, key);
	a->o.identity_token = NULL;
	ps_seckey_free(key);
	free(pub);
	return rc;
}

/* The OIDC token: --identity-token FILE or '-', else $SIGSTORE_ID_TOKEN,
 * else GitHub Actions' request; in guarded memory, NUL-terminated. */
static int
identity_token(struct sign_args *a, ps_secret **out)
{
	const char *env = getenv("SIGSTORE_ID_TOKEN");
	ps_secret *raw = NULL;
	unsigned char *data;
	ps_error err;
	size_t n;
	int rc;

	ps_error_clear(&err);
	if (a->token_file == NULL && env != NULL && env[0] != '\0')
		raw = ps_secret_from(env, strlen(env));
	else if (a->token_file == NULL)
		return ps_keyless_github_token(&a->fetch,
		    getenv("ACTIONS_ID_TOKEN_REQUEST_URL"),
		    getenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN"), out, &err) == 0 ?
		    EXIT_OK : cli_report(&err);
	else if ((strcmp(a->token_file, "-") == 0 ?
	    ps_secret_read_fd(0, 16 * 1024, "standard input", &raw, &err) :
	    ps_secret_read_file(a->token_file, 16 * 1024, &raw, &err)) != 0)
		return cli_report(&err);
	if (raw == NULL)
		return cli_fail("out_of_memory", "", "allocate the token");
	n = ps_secret_len(raw);
	while (n > 0 && strchr(" \t\r\n", ps_secret_bytes(raw)[n - 1]) != NULL)
		n--;
	*out = ps_secret_new(n + 1);
	rc = *out != NULL ? EXIT_OK : cli_fail("out_of_memory", "",
	    "allocate the identity token");
	if (*out != NULL) {
		data = ps_secret_data(*out);
		memcpy(data, ps_secret_bytes(raw), n);
		data[n] = '\0';
		(void)ps_secret_set_len(*out, n);
	}
	ps_secret_free(raw);
	return rc;
}

static int
run_keyless(struct sign_args *a)
{
	ps_secret *token = NULL;
	int rc;

	cli_protect_secrets();
	rc = identity_token(a, &token);
	if (rc != EXIT_OK)
		return rc;
	if (a->key != NULL) {
		rc = run_sign(a, token);
		ps_secret_free(token);
		return rc;
	}
	a->o.identity_token = (const char *)ps_secret_bytes(token);
	a->o.temp_file_hook = cli_remove_on_signal;
	rc = sign_with(a, NULL);
	a->o.identity_token = NULL;
	ps_secret_free(token);
	return rc;
}

int
cmd_sign(int argc, char **argv)
{
	struct sign_args a;
	ps_copies *copies;
	int rc;

	rc = parse_sign(argc, argv, &a);
	if (rc != EXIT_OK)
		return rc == CLI_HELP ? EXIT_OK : rc;
	if (cli_copies_open(NULL, &copies) != EXIT_OK)
		return EXIT_FAILED;
	a.o.pack.limits.copies = copies;
	rc = a.o.keyless ? run_keyless(&a) : run_sign(&a, NULL);
	ps_copies_free(copies);
	return rc;
}
