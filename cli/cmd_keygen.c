/* packsign keygen: a new minisign-compatible ed25519 key pair. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/key_files.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/secrets.h"

const struct cli_usage cmd_keygen_usage = {
	.name = "keygen",
	.in_order = 1,
	.text =
    "usage: packsign keygen -o NAME [--identity ID] [--no-passphrase]\n"
    "                       [--passphrase-file FILE | --passphrase-fd N]\n"
    "                       [--kdf sensitive|interactive] [--force] [--json]\n"
    "                       [-q]\n"
    "\n"
    "Writes NAME.pub (minisign public key) and NAME.key (minisign secret\n"
    "key, mode 0600, encrypted with scrypt unless --no-passphrase).\n"
    "\n"
    "  -o NAME              output name (NAME.pub and NAME.key)\n"
    "  --identity ID        write 'packsign public key <KEY ID> for <ID>'\n"
    "                       as the public key comment (trusted by -p)\n"
    "  --no-passphrase      leave the secret key unencrypted\n"
    "  --passphrase-file F  read the passphrase from F's first line\n"
    "  --passphrase-fd N    read the passphrase from descriptor N\n"
    "  --kdf LEVEL          sensitive (default, minisign's ~1 GiB) or\n"
    "                       interactive (16 MiB, fast)\n"
    "  --force              replace existing files\n"
    "  --json               print the key id, fingerprint and files as one\n"
    "                       JSON object\n"
    CLI_QUIET_HELP
    "\n"
    "Without a passphrase option, PACKSIGN_PASSPHRASE is used, else the\n"
    "passphrase is asked twice on the terminal.\n",
};

struct keygen_args {
	const char *name;
	const char *identity;
	int no_passphrase;
	int force;
	int json, quiet;
	ps_kdf_level kdf;
	struct cli_passphrase_opts pass;
};

static int
parse_keygen(int argc, char **argv, struct keygen_args *a)
{
	const struct cli_option options[] = {
		CLI_STRING('o', NULL, &a->name),
		CLI_STRING(0, "identity", &a->identity),
		CLI_FLAG(0, "no-passphrase", &a->no_passphrase),
		CLI_STRING(0, "passphrase-file", &a->pass.file),
		CLI_STRING(0, "passphrase-fd", &a->pass.fd),
		CLI_CALLBACK(0, "kdf", &a->kdf, cli_parse_kdf),
		CLI_FLAG(0, "force", &a->force),
		CLI_FLAG(0, "json", &a->json),
		CLI_FLAG('q', "quiet", &a->quiet),
		CLI_END
	};
	struct cli_operands rest;
	int rc;

	memset(a, 0, sizeof(*a));
	a->pass.env = "PACKSIGN_PASSPHRASE";
	rc = cli_parse_options(&cmd_keygen_usage, options, argc, argv, &rest);
	if (rc != EXIT_OK)
		return rc;
	if (rest.count != 0)
		return cli_usage_error(&cmd_keygen_usage, "unexpected argument "
		    "'%s'", rest.argv[0]);
	if (a->name == NULL || a->name[0] == '\0')
		return cli_usage_error(&cmd_keygen_usage,
		    "-o NAME is required");
	if (a->identity != NULL && !ps_identity_valid(a->identity))
		return cli_usage_error(&cmd_keygen_usage, "--identity is 1 "
		    "to %d characters from A-Z a-z 0-9 . _ @ + : / -, found "
		    "'%s'", PS_IDENTITY_MAX, a->identity);
	return cli_check_passphrase_options(&cmd_keygen_usage, &a->pass,
	    a->no_passphrase);
}

/* Both files or neither: a full disk leaves the old pair as it was. */
static int
write_files(const struct keygen_args *a, const char *pub_path,
    const char *pub_text, const char *sec_path, const ps_secret *sec_text)
{
	const ps_key_output outs[] = {
		{ sec_path, ps_secret_bytes(sec_text), ps_secret_len(sec_text),
		    0600 },
		{ pub_path, pub_text, strlen(pub_text), 0644 },
	};
	ps_error err;

	if (ps_key_files_write(outs, 2, a->force ? 0 : PS_WRITE_NO_REPLACE,
	    &err) != 0)
		return cli_report(&err);
	return EXIT_OK;
}

static int
write_pair(const struct keygen_args *a, const char *pub_path,
    const char *sec_path, const ps_seckey *key, const ps_secret *pass)
{
	ps_secret *sec_text = NULL;
	ps_pubkey *pub = NULL;
	char *pub_text = NULL;
	ps_error err;
	int rc = EXIT_OK;

	if (ps_seckey_public(key, &pub, &err) != 0 ||
	    ps_pubkey_set_identity(pub, a->identity, &err) != 0 ||
	    ps_pubkey_format_minisign(pub, &pub_text, &err) != 0 ||
	    ps_seckey_format(key, pass, a->kdf, &sec_text, &err) != 0)
		rc = cli_report(&err);
	if (rc == EXIT_OK)
		rc = write_files(a, pub_path, pub_text, sec_path, sec_text);
	if (rc == EXIT_OK && (a->json || !a->quiet))
		rc = cli_print_key_files(pub, pub_path, sec_path, pass != NULL,
		    a->json);
	ps_secret_free(sec_text);
	ps_pubkey_free(pub);
	free(pub_text);
	return rc;
}

static int
run_keygen(struct keygen_args *a)
{
	ps_secret *pass = NULL;
	ps_seckey *key = NULL;
	char *pub_path = NULL, *sec_path = NULL;
	ps_error err;
	int rc;

	if (asprintf(&pub_path, "%s.pub", a->name) < 0 ||
	    asprintf(&sec_path, "%s.key", a->name) < 0)
		return cli_fail_oom();
	cli_protect_secrets();
	rc = cli_check_new_files(pub_path, sec_path, a->force);
	if (rc == EXIT_OK && !a->no_passphrase)
		rc = cli_passphrase(&cmd_keygen_usage, &a->pass,
		    "Passphrase: ", 1, &pass);
	if (rc == EXIT_OK && ps_seckey_generate(&key, &err) != 0)
		rc = cli_report(&err);
	if (rc == EXIT_OK)
		rc = write_pair(a, pub_path, sec_path, key, pass);
	ps_seckey_free(key);
	ps_secret_free(pass);
	free(pub_path);
	free(sec_path);
	return rc;
}

int
cmd_keygen(int argc, char **argv)
{
	struct keygen_args a;
	int rc;

	rc = parse_keygen(argc, argv, &a);
	if (rc != EXIT_OK)
		return rc == CLI_HELP ? EXIT_OK : rc;
	return run_keygen(&a);
}
