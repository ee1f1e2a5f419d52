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

/*
 * Names and messages may come from the archive: control characters are
 * printed as \xHH so that none reaches the terminal as a command.
 */
static void
put_safe(FILE *out, const char *text)
{
	const unsigned char *p;

	for (p = (const unsigned char *)text; *p != '\0'; p++) {
		if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\x%02x", *p);
		else
			fputc(*p, out);
	}
}

/* One labelled line, left out when the value is empty. */
static void
put_field(FILE *out, const char *label, const char *value)
{
	if (value == NULL || value[0] == '\0')
		return;
	fputs(label, out);
	put_safe(out, value);
	fputc('\n', out);
}

/* A refusal says what was checked, what was expected, what was found. */
static int
report(const ps_error *err)
{
	fputs("verify-and-install: ", stderr);
	put_safe(stderr, err->subject);
	fputs(": ", stderr);
	put_safe(stderr, err->message);
	fputc('\n', stderr);
	put_field(stderr, "  code:     ", err->code);
	put_field(stderr, "  expected: ", err->expected);
	put_field(stderr, "  found:    ", err->found);
	return exit_code(err);
}

static void
print_result(const ps_install_result *result)
{
	char digest[PS_SHA256_STRING_LEN];
	const ps_verify_result *verify = result->verify;
	size_t i;

	fputs(result->already_installed ? "already installed: " : "installed ",
	    stdout);
	put_safe(stdout, result->id);
	fputc(' ', stdout);
	put_safe(stdout, result->version);
	fputc('\n', stdout);
	put_field(stdout, "path: ", result->path);
	printf("tree digest: %s\n", ps_sha256_string(result->tree_digest,
	    digest));
	for (i = 0; verify != NULL && i < verify->identity_count; i++) {
		put_field(stdout, "signed by: ", verify->identities[i].identity);
		printf("  key: %s\n", verify->identities[i].fingerprint);
	}
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
