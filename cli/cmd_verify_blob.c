/* packsign verify-blob: any file's Sigstore bundle, verified offline. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/json.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/sigstore_report.h"

const struct cli_usage cmd_verify_blob_usage = {
	.name = "verify-blob",
	.text =
    "usage: packsign verify-blob FILE|sha256:HEX --bundle B\n"
    "           (--certificate-identity SAN --certificate-oidc-issuer URL |\n"
    "            --key PEM) [--trusted-root F] [--at TIME] [--json] [-q]\n"
    "\n"
    "Verifies the Sigstore bundle B (media types v0.1 to v0.3) over FILE,\n"
    "or over the artifact whose SHA-256 is HEX, offline, in the order of\n"
    "docs/formats/sigstore.md: the bundle's shape, its transparency-log\n"
    "entries (inclusion promise, inclusion proof against a signed\n"
    "checkpoint, the body against the bundle), its RFC 3161 timestamps, the\n"
    "signing times and the evidence the trusted root requires, the\n"
    "certificate's chain at every signing time with its code-signing usage\n"
    "and SCT, the identity, then the signature (a DSSE bundle's in-toto\n"
    "statement must name the artifact).  Keyless bundles are checked against\n"
    "--certificate-identity (the certificate's subject alternative name) and\n"
    "--certificate-oidc-issuer, both exactly; a key-based bundle against\n"
    "--key.  The trusted root is the compiled-in public-good one (`packsign\n"
    "trust check` shows it) unless --trusted-root names another.  sha256:HEX\n"
    "is a digest only when it is 64 hex digits and no such file exists.\n"
    "\n"
    "  --bundle B           the bundle file (JSON)\n"
    "  --certificate-identity SAN\n"
    "                       the signer's identity: the certificate's subject\n"
    "                       alternative name, exactly\n"
    "  --certificate-oidc-issuer URL\n"
    "                       the OIDC issuer that vouched for it, exactly\n"
    "  --key PEM            verify a key-based bundle with this public key\n"
    "  --trusted-root F     a trusted_root.json (or JSON Lines of several)\n"
    "                       instead of the compiled-in public-good root\n"
    "  --at TIME            judge the present as TIME (YYYY-MM-DDTHH:MM:SSZ):\n"
    "                       a signing time after it is refused\n"
    "  --json               print every step's evidence as one JSON object\n"
    "  -q, --quiet          print nothing on success: the exit status says\n"
    "                       whether the bundle verified\n"
    "\n"
    "Exit status: 0 verified, 1 refused (each check has its code), 2 the job\n"
    "could not be done (usage, a file, a malformed trusted root or key).\n",
};

struct verify_blob_args {
	const char *bundle;
	const char *identity;
	const char *issuer;
	const char *key;
	const char *root;
	const char *target;
	int64_t at;
	int json, quiet;
	ps_sigstore_artifact artifact;
};

/* sha256:HEX names a digest when it is 64 hex digits and no such file
 * exists (the conformance suite's CLI protocol). */
static int
parse_target(const char *target, ps_sigstore_artifact *a)
{
	const char *hex = target + 7;
	size_t i;

	memset(a, 0, sizeof(*a));
	a->path = target;
	if (strncmp(target, "sha256:", 7) != 0 || strlen(hex) != 64 ||
	    access(target, F_OK) == 0)
		return 0;
	for (i = 0; i < 64; i++) {
		if (!isxdigit((unsigned char)hex[i]))
			return 0;
	}
	for (i = 0; i < 32; i++)
		a->sha256[i] = (unsigned char)strtoul((char[3]){ hex[2 * i],
		    hex[2 * i + 1], '\0' }, NULL, 16);
	a->path = NULL;
	return 1;
}

static int
parse_verify_blob(int argc, char **argv, struct verify_blob_args *a)
{
	const struct cli_option options[] = {
		CLI_STRING(0, "bundle", &a->bundle),
		CLI_STRING(0, "certificate-identity", &a->identity),
		CLI_STRING(0, "certificate-oidc-issuer", &a->issuer),
		CLI_STRING(0, "key", &a->key),
		CLI_STRING(0, "trusted-root", &a->root),
		CLI_CALLBACK(0, "at", &a->at, cli_parse_time),
		CLI_FLAG(0, "json", &a->json),
		CLI_FLAG('q', "quiet", &a->quiet),
		CLI_END
	};
	const struct cli_usage *u = &cmd_verify_blob_usage;
	struct cli_operands rest;
	int rc;

	memset(a, 0, sizeof(*a));
	rc = cli_parse_options(u, options, argc, argv, &rest);
	if (rc != EXIT_OK)
		return rc;
	if (rest.count != 1)
		return cli_usage_error(u, rest.count == 0 ? "missing FILE or "
		    "sha256:HEX" : "one artifact at a time");
	if (a->bundle == NULL)
		return cli_usage_error(u, "missing --bundle B");
	if (a->key != NULL && (a->identity != NULL || a->issuer != NULL))
		return cli_usage_error(u, "--key excludes --certificate-identity "
		    "and --certificate-oidc-issuer");
	if (a->key == NULL && (a->identity == NULL || a->issuer == NULL))
		return cli_usage_error(u, "give --certificate-identity and "
		    "--certificate-oidc-issuer, or --key");
	a->target = rest.argv[0];
	parse_target(a->target, &a->artifact);
	return EXIT_OK;
}

static int
load_root(const char *path, ps_sigstore_root **root)
{
	ps_error err;
	int rc = path != NULL ? ps_sigstore_root_load(path, root, &err) :
	    ps_sigstore_root_public_good(root, &err);

	return rc == 0 ? EXIT_OK : cli_report(&err);
}

static int
run_verify_blob(struct verify_blob_args *a)
{
	ps_sigstore_root *root = NULL;
	ps_sigstore_result *r = NULL;
	ps_sigstore_options o;
	ps_error err;
	int rc, exit_code;

	rc = load_root(a->root, &root);
	if (rc != EXIT_OK)
		return rc;
	ps_sigstore_options_init(&o);
	o.root = root;
	o.identity = a->identity;
	o.issuer = a->issuer;
	o.key_path = a->key;
	o.at = a->at;
	ps_error_clear(&err);
	rc = ps_sigstore_verify(&a->artifact, a->bundle, &o, &r, &err);
	exit_code = rc == 0 ? EXIT_OK : cli_report(&err);
	if (a->json && cli_print_report(cli_sigstore_json(a->target, a->bundle,
	    root, r, rc, &err), a->bundle) != EXIT_OK)
		exit_code = EXIT_FAILED;
	else if (!a->json && !a->quiet && rc == 0)
		cli_sigstore_print(stdout, a->target, r);
	ps_sigstore_result_free(r);
	ps_sigstore_root_free(root);
	return exit_code;
}

int
cmd_verify_blob(int argc, char **argv)
{
	struct verify_blob_args a;
	int rc;

	rc = parse_verify_blob(argc, argv, &a);
	if (rc != EXIT_OK)
		return rc == CLI_HELP ? EXIT_OK : rc;
	return run_verify_blob(&a);
}
