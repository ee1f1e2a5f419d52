/* packsign keygen: a new minisign-compatible ed25519 key pair. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

const char cmd_keygen_usage[] =
    "usage: packsign keygen -o NAME [--identity ID] [--no-passphrase]\n"
    "                       [--passphrase-file FILE | --passphrase-fd N]\n"
    "                       [--kdf sensitive|interactive] [--force] [--json]\n"
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
    "\n"
    "Without a passphrase option, PACKSIGN_PASSPHRASE is used, else the\n"
    "passphrase is asked twice on the terminal.\n";

struct keygen_args {
	const char *name;
	const char *identity;
	int no_passphrase;
	int force;
	int json;
	ps_kdf_level kdf;
	struct cli_passphrase_opts pass;
};

enum { OPT_IDENTITY = 256, OPT_NO_PASS, OPT_PASS_FILE, OPT_PASS_FD,
    OPT_KDF, OPT_FORCE, OPT_JSON };

static const struct option keygen_options[] = {
	{ "identity", required_argument, NULL, OPT_IDENTITY },
	{ "no-passphrase", no_argument, NULL, OPT_NO_PASS },
	{ "passphrase-file", required_argument, NULL, OPT_PASS_FILE },
	{ "passphrase-fd", required_argument, NULL, OPT_PASS_FD },
	{ "kdf", required_argument, NULL, OPT_KDF },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

int
cli_parse_kdf(const char *command, const char *text, ps_kdf_level *out)
{
	if (strcmp(text, "sensitive") == 0)
		*out = PS_KDF_SENSITIVE;
	else if (strcmp(text, "interactive") == 0)
		*out = PS_KDF_INTERACTIVE;
	else
		return cli_usage_error(command, "--kdf is 'sensitive' or "
		    "'interactive', found '%s'", text);
	return EXIT_OK;
}

static int
parse_option(int c, struct keygen_args *a)
{
	switch (c) {
	case 'o': a->name = optarg; return EXIT_OK;
	case OPT_IDENTITY: a->identity = optarg; return EXIT_OK;
	case OPT_NO_PASS: a->no_passphrase = 1; return EXIT_OK;
	case OPT_PASS_FILE: a->pass.file = optarg; return EXIT_OK;
	case OPT_PASS_FD: a->pass.fd = optarg; return EXIT_OK;
	case OPT_KDF: return cli_parse_kdf("keygen", optarg, &a->kdf);
	case OPT_FORCE: a->force = 1; return EXIT_OK;
	case OPT_JSON: a->json = 1; return EXIT_OK;
	case 'h': cli_print_help("keygen"); return -1;
	default: return cli_usage_error("keygen", "unknown option");
	}
}

int
cli_check_passphrase_options(const char *command,
    const struct cli_passphrase_opts *pass, int no_passphrase)
{
	if (pass->file != NULL && pass->fd != NULL)
		return cli_usage_error(command, "--passphrase-file and "
		    "--passphrase-fd exclude each other");
	if (no_passphrase && (pass->file != NULL || pass->fd != NULL))
		return cli_usage_error(command, "--no-passphrase excludes "
		    "--passphrase-file and --passphrase-fd");
	return EXIT_OK;
}

static int
parse_args(int argc, char **argv, struct keygen_args *a)
{
	int c, rc;

	memset(a, 0, sizeof(*a));
	a->pass.env = "PACKSIGN_PASSPHRASE";
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:h", keygen_options, NULL)) != -1)
		if ((rc = parse_option(c, a)) != EXIT_OK)
			return rc;
	if (optind != argc)
		return cli_usage_error("keygen", "unexpected argument '%s'",
		    argv[optind]);
	if (a->name == NULL || a->name[0] == '\0')
		return cli_usage_error("keygen", "-o NAME is required");
	if (a->identity != NULL && !ps_identity_valid(a->identity))
		return cli_usage_error("keygen", "--identity is 1 to %d "
		    "characters from A-Z a-z 0-9 . _ @ + : / -, found '%s'",
		    PS_IDENTITY_MAX, a->identity);
	return cli_check_passphrase_options("keygen", &a->pass,
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
	if (rc == EXIT_OK)
		rc = cli_print_key_files(pub, pub_path, sec_path, pass != NULL,
		    a->json);
	ps_secret_free(sec_text);
	ps_pubkey_free(pub);
	free(pub_text);
	return rc;
}

int
cmd_keygen(int argc, char **argv)
{
	struct keygen_args a;
	ps_secret *pass = NULL;
	ps_seckey *key = NULL;
	char *pub_path = NULL, *sec_path = NULL;
	ps_error err;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc != EXIT_OK)
		return rc < 0 ? EXIT_OK : rc;
	if (asprintf(&pub_path, "%s.pub", a.name) < 0 ||
	    asprintf(&sec_path, "%s.key", a.name) < 0)
		return cli_fail("out_of_memory", "", "allocate");
	cli_protect_secrets();
	rc = cli_check_new_files(pub_path, sec_path, a.force);
	if (rc == EXIT_OK && !a.no_passphrase)
		rc = cli_passphrase("keygen", &a.pass, "Passphrase: ", 1, &pass);
	if (rc == EXIT_OK && ps_seckey_generate(&key, &err) != 0)
		rc = cli_report(&err);
	if (rc == EXIT_OK)
		rc = write_pair(&a, pub_path, sec_path, key, pass);
	ps_seckey_free(key);
	ps_secret_free(pass);
	free(pub_path);
	free(sec_path);
	return rc;
}
