/*
 * verify-and-install: what an installer embeds.  Verifies a signed pack
 * archive against a trust policy and installs it into a data directory,
 * through libpacksign's public header alone.
 *
 *   usage: verify-and-install ARCHIVE POLICY DATA_DIR
 *
 * ARCHIVE.sig must lie beside ARCHIVE.  Exit status as packsign's:
 * 0 installed (or already installed), 1 the archive was examined and
 * refused, 2 the job could not be done (usage, the policy, I/O).
 *
 * Build it against an installed libpacksign:
 *   cc verify-and-install.c $(pkg-config --cflags --libs packsign)
 */
#include <stdio.h>

#include <packsign.h>

/* Exit codes: a ps_error's status class is the exit code. */
static int
exit_code(const ps_error *err)
{
	return err->status == PS_STATUS_REFUSED ? 1 : 2;
}

/* A refusal says what was checked, what was expected, what was found. */
static int
report(const ps_error *err)
{
	fprintf(stderr, "verify-and-install: %s: %s\n", err->subject,
	    err->message);
	fprintf(stderr, "  code:     %s\n", err->code);
	if (err->expected[0] != '\0')
		fprintf(stderr, "  expected: %s\n", err->expected);
	if (err->found[0] != '\0')
		fprintf(stderr, "  found:    %s\n", err->found);
	return exit_code(err);
}

static void
print_result(const ps_install_result *result)
{
	char digest[PS_SHA256_STRING_LEN];
	size_t i;

	printf("%s %s %s\n", result->already_installed ?
	    "already installed:" : "installed", result->id, result->version);
	printf("path: %s\n", result->path);
	printf("tree digest: %s\n", ps_sha256_string(result->tree_digest,
	    digest));
	for (i = 0; result->verify != NULL &&
	    i < result->verify->identity_count; i++)
		printf("signed by: %s (%s)\n",
		    result->verify->identities[i].identity,
		    result->verify->identities[i].fingerprint);
}

/* Installs ARCHIVE once the policy is loaded; confirm NULL: no question. */
static int
install(const char *archive, const ps_trust *trust, const char *data_dir)
{
	ps_install_options options;
	ps_install_result *result = NULL;
	ps_error err;
	int code = 0;

	ps_install_options_init(&options);
	options.verify.trust = trust;
	options.data_dir = data_dir;
	ps_error_clear(&err);
	if (ps_install(archive, &options, &result, &err) != 0)
		code = report(&err);
	else
		print_result(result);
	ps_install_result_free(result);
	return code;
}

int
main(int argc, char **argv)
{
	ps_trust *trust = NULL;
	ps_error err;
	int code;

	if (argc != 4) {
		fputs("usage: verify-and-install ARCHIVE POLICY DATA_DIR\n",
		    stderr);
		return 2;
	}
	ps_error_clear(&err);
	/* The operator's own policy: its errors are exit 2, never 1. */
	if (ps_trust_load_file(argv[2], &trust, &err) != 0)
		return report(&err);
	code = install(argv[1], trust, argv[3]);
	ps_trust_free(trust);
	return code;
}
