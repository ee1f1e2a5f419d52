/*
 * packsign key show|pubkey|passwd|export|import: one table entry, the
 * sub-subcommand is dispatched here.
 */
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/json.h"
#include "cli/key_files.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/secrets.h"

const struct cli_usage cmd_key_usage = {
	.name = "key",
	.text =
    "usage: packsign key show FILE [--json] [--passphrase-file F | "
    "--passphrase-fd N] [-q]\n"
    "       packsign key pubkey [-s KEY] [-o OUT] [--identity ID] [--force]\n"
    "       packsign key passwd -s KEY [--no-passphrase] [--kdf LEVEL]\n"
    "                           [--new-passphrase-file F | "
    "--new-passphrase-fd N] [--json]\n"
    "       packsign key export --pem [-s KEY] -o OUT [--no-passphrase] "
    "[--force]\n"
    "       packsign key export --pem-pub|--ssh-pub [-s KEY | -p PUB] "
    "[-o OUT]\n"
    "       packsign key import --pem FILE -o NAME [--identity ID]\n"
    "                           [--no-passphrase] [--kdf LEVEL] [--force]\n"
    "                           [--json]\n"
    "\n"
    "show    prints a key file's type, key id, fingerprint (as ssh-keygen -l\n"
    "        prints it), identity and whether a secret key is encrypted.\n"
    "        An encrypted secret key's id is shown only when a passphrase\n"
    "        is given (--passphrase-*, PACKSIGN_PASSPHRASE).\n"
    "pubkey  re-creates the public key file (stdout unless -o).\n"
    "passwd  changes or (--no-passphrase) removes the passphrase; the new\n"
    "        one comes from --new-passphrase-file/-fd, PACKSIGN_NEW_PASSPHRASE\n"
    "        or the terminal (asked twice).\n"
    "export  --pem: PKCS#8 private key (mode 0600), encrypted with the key's\n"
    "        passphrase (plain when the key has none or --no-passphrase);\n"
    "        --pem-pub: SubjectPublicKeyInfo; --ssh-pub: an ssh-ed25519 line.\n"
    "import  --pem FILE: a PEM ed25519 private key becomes NAME.key and\n"
    "        NAME.pub (encrypted with the PEM's passphrase, else a new one);\n"
    "        a PEM public key becomes NAME.pub.\n"
    "\n"
    "  -s KEY                  secret key file; '-' reads stdin; default\n"
    "                          $PACKSIGN_SECRET_KEY (the key file's text)\n"
    "  --passphrase-file F     the (current) passphrase: F's first line\n"
    "  --passphrase-fd N       the (current) passphrase from descriptor N\n"
    "  --kdf LEVEL             sensitive (default) or interactive\n"
    "  --force                 replace existing output files\n"
    "  --json                  show, passwd, import: print the result as\n"
    "                          one JSON object\n"
    "  -q, --quiet             print nothing on success (a key written to\n"
    "                          stdout still is); errors as always\n"
    "\n"
    "Passphrases otherwise come from PACKSIGN_PASSPHRASE or the terminal.\n",
};

/* The options, as bits of what a subcommand takes. */
enum {
	O_SECRET = 1 << 0, O_PUBLIC = 1 << 1, O_OUT = 1 << 2,
	O_JSON = 1 << 3, O_IDENTITY = 1 << 4, O_NOPASS = 1 << 5,
	O_PASS = 1 << 6, O_NEWPASS = 1 << 7, O_KDF = 1 << 8,
	O_FORCE = 1 << 9, O_PEM = 1 << 10, O_PEMPUB = 1 << 11,
	O_SSHPUB = 1 << 12, O_QUIET = 1 << 13
};

struct key_sub;

struct key_args {
	const struct key_sub *sub;
	const char *secret, *public, *out, *identity;
	int json, quiet, no_passphrase, force, pem, pem_pub, ssh_pub;
	int nargs;
	char **args;       /* positional arguments */
	ps_kdf_level kdf;
	struct cli_passphrase_opts pass, newpass;
};

/* ------------------------------------------------------------------ show */

static void
add_pubkey_fields(json_t *obj, const ps_pubkey *key)
{
	char hex[PS_KEY_ID_HEX_LEN + 1], fp[PS_FINGERPRINT_MAX] = "";

	ps_key_id_hex(key->key_id, hex);
	ps_pubkey_fingerprint(key, fp);
	json_object_set_new(obj, "key_id", json_string(hex));
	json_object_set_new(obj, "fingerprint", json_string(fp));
	json_object_set_new(obj, "identity", key->identity != NULL ?
	    json_string(key->identity) : json_null());
	json_object_set_new(obj, "algorithm",
	    json_string(ps_key_algorithm_name(key->alg)));
}

static int
passphrase_given(const struct key_args *a)
{
	return a->pass.file != NULL || a->pass.fd != NULL ||
	    getenv(a->pass.env) != NULL;
}

typedef int (*seckey_parser)(const unsigned char *text, size_t len,
    const char *name, const ps_secret *passphrase, ps_seckey **out,
    ps_error *err);

/* The public half of a secret key, unlocked only when a passphrase is
 * at hand: `key show` never prompts. */
static int
show_unlocked(const struct key_args *a, const char *file,
    const ps_secret *text, int encrypted, seckey_parser parse, json_t *obj)
{
	ps_secret *pass = NULL;
	ps_seckey *key = NULL;
	ps_pubkey *pub = NULL;
	ps_error err;
	int rc = EXIT_OK;

	if (encrypted && !passphrase_given(a))
		return EXIT_OK;
	if (encrypted)
		rc = cli_passphrase(&cmd_key_usage, &a->pass, "Passphrase: ",
		    0, &pass);
	if (rc == EXIT_OK && (parse(ps_secret_bytes(text), ps_secret_len(text),
	    file, pass, &key, &err) != 0 ||
	    ps_seckey_public(key, &pub, &err) != 0))
		rc = cli_report(&err);
	if (rc == EXIT_OK)
		add_pubkey_fields(obj, pub);
	ps_pubkey_free(pub);
	ps_seckey_free(key);
	ps_secret_free(pass);
	return rc;
}

static int
show_minisign_secret(const struct key_args *a, const char *file,
    const ps_secret *text, json_t *obj)
{
	ps_seckey_info info;
	ps_error err;

	if (ps_seckey_inspect(ps_secret_bytes(text), ps_secret_len(text), file,
	    &info, &err) != 0)
		return cli_report(&err);
	json_object_set_new(obj, "format", json_string("minisign"));
	json_object_set_new(obj, "encrypted", json_boolean(info.encrypted));
	if (info.encrypted)
		json_object_set_new(obj, "kdf", json_pack("{s:s,s:I,s:I}",
		    "name", "scrypt", "opslimit", (json_int_t)info.opslimit,
		    "memlimit", (json_int_t)info.memlimit));
	return show_unlocked(a, file, text, info.encrypted, ps_seckey_parse,
	    obj);
}

static int
show_pem_secret(const struct key_args *a, const char *file,
    const ps_secret *text, json_t *obj)
{
	int encrypted = ps_pem_is_encrypted(ps_secret_bytes(text),
	    ps_secret_len(text));

	json_object_set_new(obj, "format", json_string("pem"));
	json_object_set_new(obj, "encrypted", json_boolean(encrypted));
	return show_unlocked(a, file, text, encrypted, ps_seckey_parse_pem, obj);
}

static int
show_public(const char *file, const ps_secret *text, json_t *obj)
{
	ps_pubkey *key = NULL;
	ps_error err;

	if (ps_pubkey_parse((const char *)ps_secret_bytes(text),
	    ps_secret_len(text), file, &key, &err) != 0)
		return cli_report(&err);
	json_object_set_new(obj, "format",
	    json_string(ps_key_source_name(key->source)));
	add_pubkey_fields(obj, key);
	ps_pubkey_free(key);
	return EXIT_OK;
}

static void
print_field(const json_t *obj, const char *key, const char *label)
{
	const json_t *v = json_object_get(obj, key);

	if (v == NULL)
		return;
	if (json_is_string(v)) {
		printf("%-12s ", label);
		cli_put_line(stdout, "", json_string_value(v));
	}
	else if (json_is_boolean(v))
		printf("%-12s %s\n", label, json_is_true(v) ? "yes" : "no");
	else if (json_is_null(v))
		printf("%-12s (none)\n", label);
}

static void
print_show(const json_t *obj)
{
	const json_t *kdf = json_object_get(obj, "kdf");

	print_field(obj, "file", "file:");
	printf("%-12s %s %s key\n", "type:", json_string_value(
	    json_object_get(obj, "algorithm")), json_string_value(
	    json_object_get(obj, "kind")));
	print_field(obj, "format", "format:");
	if (json_object_get(obj, "key_id") == NULL)
		printf("%-12s (encrypted: give the passphrase to show it)\n",
		    "key id:");
	print_field(obj, "key_id", "key id:");
	print_field(obj, "fingerprint", "fingerprint:");
	print_field(obj, "identity", "identity:");
	print_field(obj, "encrypted", "encrypted:");
	if (kdf != NULL)
		printf("%-12s scrypt, opslimit %lld, memlimit %lld\n", "kdf:",
		    (long long)json_integer_value(json_object_get(kdf,
		    "opslimit")), (long long)json_integer_value(
		    json_object_get(kdf, "memlimit")));
}

static int
check_show(const struct key_args *a)
{
	if (a->nargs != 1)
		return cli_usage_error(&cmd_key_usage,
		    "key show takes one FILE");
	return EXIT_OK;
}

static int
key_show(struct key_args *a)
{
	ps_secret *text = NULL;
	json_t *obj;
	ps_error err;
	int rc, secret;

	cli_protect_secrets();
	if (ps_secret_read_file(a->args[0], PS_KEY_FILE_MAX, &text, &err) != 0)
		return cli_report(&err);
	secret = ps_key_text_is_secret(ps_secret_bytes(text),
	    ps_secret_len(text));
	obj = json_pack("{s:s,s:s,s:s}", "file", a->args[0], "kind",
	    secret ? "secret" : "public", "algorithm", "ed25519");
	if (!secret)
		rc = show_public(a->args[0], text, obj);
	else if (ps_pem_is_private(ps_secret_bytes(text), ps_secret_len(text)))
		rc = show_pem_secret(a, a->args[0], text, obj);
	else
		rc = show_minisign_secret(a, a->args[0], text, obj);
	if (rc == EXIT_OK && a->json)
		rc = cli_print_json(obj);
	else if (rc == EXIT_OK && !a->quiet)
		print_show(obj);
	json_decref(obj);
	ps_secret_free(text);
	return rc;
}

/* ---------------------------------------------------------------- pubkey */

/* Writes `text` to OUT (atomically) or stdout when OUT is NULL or "-". */
static int
emit(const char *out, const void *text, size_t len, unsigned mode, int force)
{
	if (out != NULL && strcmp(out, "-") != 0)
		return cli_write_output(out, text, len, mode, force);
	if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0)
		return cli_fail("io_error", "stdout", "cannot write");
	return EXIT_OK;
}

/* The public key of -p PUB, else of the secret key -s / environment. */
static int
load_public(struct key_args *a, ps_pubkey **pub)
{
	ps_seckey *key = NULL;
	ps_error err;
	int rc;

	*pub = NULL;
	if (a->public != NULL)
		return ps_pubkey_load_file(a->public, pub, &err) == 0 ? EXIT_OK :
		    cli_report(&err);
	rc = cli_load_seckey(&cmd_key_usage, a->secret, &a->pass, &key, NULL);
	if (rc == EXIT_OK && ps_seckey_public(key, pub, &err) != 0)
		rc = cli_report(&err);
	ps_seckey_free(key);
	return rc;
}

static int
check_no_operand(const struct key_args *a)
{
	if (a->nargs != 0)
		return cli_usage_error(&cmd_key_usage,
		    "unexpected argument '%s'", a->args[0]);
	return EXIT_OK;
}

static int
key_pubkey(struct key_args *a)
{
	ps_pubkey *pub = NULL;
	char *text = NULL;
	ps_error err;
	int rc;

	rc = load_public(a, &pub);
	if (rc == EXIT_OK && (ps_pubkey_set_identity(pub, a->identity,
	    &err) != 0 || ps_pubkey_format_minisign(pub, &text, &err) != 0))
		rc = cli_report(&err);
	if (rc == EXIT_OK)
		rc = emit(a->out, text, strlen(text), 0644, a->force);
	free(text);
	ps_pubkey_free(pub);
	return rc;
}

/* ---------------------------------------------------------------- passwd */

static int
write_seckey(const char *path, const ps_seckey *key, const ps_secret *pass,
    ps_kdf_level kdf, int force)
{
	ps_secret *text = NULL;
	ps_error err;
	int rc;

	if (ps_seckey_format(key, pass, kdf, &text, &err) != 0)
		return cli_report(&err);
	rc = cli_write_output(path, ps_secret_bytes(text), ps_secret_len(text),
	    0600, force);
	ps_secret_free(text);
	return rc;
}

static int
print_passwd(const struct key_args *a, int encrypted)
{
	if (a->json)
		return cli_print_report(json_pack("{s:o, s:b}", "secret_key",
		    cli_json_text(a->secret), "encrypted", encrypted),
		    a->secret);
	if (a->quiet)
		return EXIT_OK;
	cli_put_safe(stdout, a->secret);
	printf(": %s\n", encrypted ? "passphrase changed" :
	    "passphrase removed");
	return EXIT_OK;
}

static int
check_passwd(const struct key_args *a)
{
	if (check_no_operand(a) != EXIT_OK)
		return EXIT_FAILED;
	if (a->secret == NULL || strcmp(a->secret, "-") == 0)
		return cli_usage_error(&cmd_key_usage, "key passwd rewrites a "
		    "file: -s FILE is required");
	return EXIT_OK;
}

static int
key_passwd(struct key_args *a)
{
	struct stat st;
	ps_secret *newpass = NULL;
	ps_seckey *key = NULL;
	int rc;

	/* Rewriting replaces the name: a link's target would keep the old key. */
	if (lstat(a->secret, &st) == 0 && (S_ISLNK(st.st_mode) ||
	    st.st_nlink > 1)) {
		fprintf(stderr, "packsign: %s: key passwd rewrites the file in "
		    "place; it is a symbolic link or has other hard links, whose "
		    "old copy would keep the old protection; give the real file "
		    "[key_file_linked]\n", a->secret);
		return EXIT_FAILED;
	}
	rc = cli_load_seckey(&cmd_key_usage, a->secret, &a->pass, &key, NULL);
	if (rc == EXIT_OK && !a->no_passphrase)
		rc = cli_passphrase(&cmd_key_usage, &a->newpass,
		    "New passphrase: ", 1, &newpass);
	if (rc == EXIT_OK)
		rc = write_seckey(a->secret, key, newpass, a->kdf, 1);
	if (rc == EXIT_OK)
		rc = print_passwd(a, newpass != NULL);
	ps_secret_free(newpass);
	ps_seckey_free(key);
	return rc;
}

/* ---------------------------------------------------------------- export */

static int
export_private(struct key_args *a)
{
	ps_secret *pass = NULL, *pem = NULL;
	ps_seckey *key = NULL;
	ps_error err;
	int rc;

	if (a->out == NULL)
		return cli_usage_error(&cmd_key_usage,
		    "export --pem needs -o OUT ('-' for stdout)");
	rc = cli_load_seckey(&cmd_key_usage, a->secret, &a->pass, &key, &pass);
	if (rc == EXIT_OK && ps_seckey_format_pem(key, a->no_passphrase ?
	    NULL : pass, &pem, &err) != 0)
		rc = cli_report(&err);
	if (rc == EXIT_OK)
		rc = emit(a->out, ps_secret_bytes(pem), ps_secret_len(pem),
		    0600, a->force);
	ps_secret_free(pem);
	ps_secret_free(pass);
	ps_seckey_free(key);
	return rc;
}

static int
export_public(struct key_args *a)
{
	ps_pubkey *pub = NULL;
	char *text = NULL;
	ps_error err;
	int rc;

	rc = load_public(a, &pub);
	if (rc == EXIT_OK && (a->pem_pub ? ps_pubkey_format_pem(pub, &text,
	    &err) : ps_pubkey_format_ssh(pub, pub->identity, &text, &err)) != 0)
		rc = cli_report(&err);
	if (rc == EXIT_OK)
		rc = emit(a->out, text, strlen(text), 0644, a->force);
	free(text);
	ps_pubkey_free(pub);
	return rc;
}

static int
check_export(const struct key_args *a)
{
	if (check_no_operand(a) != EXIT_OK)
		return EXIT_FAILED;
	if (a->pem + a->pem_pub + a->ssh_pub != 1)
		return cli_usage_error(&cmd_key_usage,
		    "export needs exactly one of --pem, --pem-pub, --ssh-pub");
	if (a->public != NULL && a->secret != NULL)
		return cli_usage_error(&cmd_key_usage,
		    "-s and -p exclude each other");
	if (a->pem && a->public != NULL)
		return cli_usage_error(&cmd_key_usage,
		    "--pem exports a secret key: use -s");
	return EXIT_OK;
}

static int
key_export(struct key_args *a)
{
	return a->pem ? export_private(a) : export_public(a);
}

/* ---------------------------------------------------------------- import */

static int
import_write(struct key_args *a, const ps_seckey *key, const ps_pubkey *pub,
    const ps_secret *pass)
{
	char *sec_path = NULL, *pub_path = NULL, *text = NULL;
	ps_error err;
	int rc = EXIT_OK;

	if (asprintf(&pub_path, "%s.pub", a->out) < 0 || (key != NULL &&
	    asprintf(&sec_path, "%s.key", a->out) < 0))
		return cli_fail_oom();
	rc = cli_check_new_files(pub_path, sec_path, a->force);
	if (rc == EXIT_OK && ps_pubkey_format_minisign(pub, &text, &err) != 0)
		rc = cli_report(&err);
	if (rc == EXIT_OK && key != NULL)
		rc = write_seckey(sec_path, key, pass, a->kdf, a->force);
	if (rc == EXIT_OK)
		rc = cli_write_output(pub_path, text, strlen(text), 0644,
		    a->force);
	if (rc == EXIT_OK && (a->json || !a->quiet))
		rc = cli_print_key_files(pub, pub_path, key != NULL ? sec_path :
		    NULL, pass != NULL, a->json);
	free(text);
	free(sec_path);
	free(pub_path);
	return rc;
}

static int
import_private(struct key_args *a, const ps_secret *text)
{
	ps_secret *pass = NULL;
	ps_seckey *key = NULL;
	ps_pubkey *pub = NULL;
	char prompt[PS_ERROR_TEXT_MAX];
	ps_error err;
	int rc = EXIT_OK;

	snprintf(prompt, sizeof(prompt), "Passphrase for %s: ", a->args[0]);
	if (ps_pem_is_encrypted(ps_secret_bytes(text), ps_secret_len(text)))
		rc = cli_passphrase(&cmd_key_usage, &a->pass, prompt, 0, &pass);
	if (rc == EXIT_OK && (ps_seckey_parse_pem(ps_secret_bytes(text),
	    ps_secret_len(text), a->args[0], pass, &key, &err) != 0 ||
	    ps_seckey_public(key, &pub, &err) != 0 ||
	    ps_pubkey_set_identity(pub, a->identity, &err) != 0))
		rc = cli_report(&err);
	if (rc == EXIT_OK && a->no_passphrase) {
		ps_secret_free(pass);
		pass = NULL;
	} else if (rc == EXIT_OK && pass == NULL) {
		rc = cli_passphrase(&cmd_key_usage, &a->pass,
		    "New passphrase: ", 1, &pass);
	}
	if (rc == EXIT_OK)
		rc = import_write(a, key, pub, pass);
	ps_pubkey_free(pub);
	ps_seckey_free(key);
	ps_secret_free(pass);
	return rc;
}

static int
import_public(struct key_args *a, const ps_secret *text)
{
	ps_pubkey *pub = NULL;
	ps_error err;
	int rc = EXIT_OK;

	if (ps_pubkey_parse((const char *)ps_secret_bytes(text),
	    ps_secret_len(text), a->args[0], &pub, &err) != 0 ||
	    ps_pubkey_set_identity(pub, a->identity, &err) != 0)
		rc = cli_report(&err);
	else if (pub->source != PS_KEY_SOURCE_PEM)
		rc = cli_fail("key_malformed", a->args[0],
		    "--pem expects a PEM key, found a %s key",
		    ps_key_source_name(pub->source));
	if (rc == EXIT_OK)
		rc = import_write(a, NULL, pub, NULL);
	ps_pubkey_free(pub);
	return rc;
}

static int
check_import(const struct key_args *a)
{
	if (!a->pem || a->nargs != 1)
		return cli_usage_error(&cmd_key_usage,
		    "usage: key import --pem FILE -o NAME");
	if (a->out == NULL || a->out[0] == '\0')
		return cli_usage_error(&cmd_key_usage,
		    "key import needs -o NAME");
	return EXIT_OK;
}

static int
key_import(struct key_args *a)
{
	ps_secret *text = NULL;
	ps_error err;
	int rc;

	cli_protect_secrets();
	if (ps_secret_read_file(a->args[0], PS_KEY_FILE_MAX, &text, &err) != 0)
		return cli_report(&err);
	if (ps_pem_is_private(ps_secret_bytes(text), ps_secret_len(text)))
		rc = import_private(a, text);
	else
		rc = import_public(a, text);
	ps_secret_free(text);
	return rc;
}

/* ----------------------------------------------------- parse and dispatch */

struct key_sub {
	const char *name;
	unsigned takes;                           /* O_ bits */
	int (*check)(const struct key_args *a);   /* its usage rules */
	int (*run)(struct key_args *a);
};

static const struct key_sub key_subs[] = {
	{ "show", O_JSON | O_PASS | O_QUIET, check_show, key_show },
	{ "pubkey", O_SECRET | O_OUT | O_IDENTITY | O_PASS | O_FORCE | O_QUIET,
	    check_no_operand, key_pubkey },
	{ "passwd", O_SECRET | O_NOPASS | O_PASS | O_NEWPASS | O_KDF | O_JSON |
	    O_QUIET, check_passwd, key_passwd },
	{ "export", O_SECRET | O_PUBLIC | O_OUT | O_NOPASS | O_PASS | O_FORCE |
	    O_PEM | O_PEMPUB | O_SSHPUB | O_QUIET, check_export, key_export },
	{ "import", O_OUT | O_IDENTITY | O_NOPASS | O_PASS | O_KDF | O_FORCE |
	    O_PEM | O_JSON | O_QUIET, check_import, key_import },
};

#define KEY_SUBS (sizeof(key_subs) / sizeof(key_subs[0]))
#define KEY_OPTIONS 16

/* Every option of key, those the subcommand does not take refused. */
static void
key_options(struct key_args *a, struct cli_option table[KEY_OPTIONS + 1])
{
	const struct { unsigned bit; struct cli_option option; } all[] = {
		{ O_SECRET, CLI_STRING('s', NULL, &a->secret) },
		{ O_PUBLIC, CLI_STRING('p', NULL, &a->public) },
		{ O_OUT, CLI_STRING('o', NULL, &a->out) },
		{ O_JSON, CLI_FLAG(0, "json", &a->json) },
		{ O_IDENTITY, CLI_STRING(0, "identity", &a->identity) },
		{ O_NOPASS, CLI_FLAG(0, "no-passphrase", &a->no_passphrase) },
		{ O_PASS, CLI_STRING(0, "passphrase-file", &a->pass.file) },
		{ O_PASS, CLI_STRING(0, "passphrase-fd", &a->pass.fd) },
		{ O_NEWPASS, CLI_STRING(0, "new-passphrase-file",
		    &a->newpass.file) },
		{ O_NEWPASS, CLI_STRING(0, "new-passphrase-fd",
		    &a->newpass.fd) },
		{ O_KDF, CLI_CALLBACK(0, "kdf", &a->kdf, cli_parse_kdf) },
		{ O_FORCE, CLI_FLAG(0, "force", &a->force) },
		{ O_PEM, CLI_FLAG(0, "pem", &a->pem) },
		{ O_PEMPUB, CLI_FLAG(0, "pem-pub", &a->pem_pub) },
		{ O_SSHPUB, CLI_FLAG(0, "ssh-pub", &a->ssh_pub) },
		{ O_QUIET, CLI_FLAG('q', "quiet", &a->quiet) },
	};
	const struct cli_option end = CLI_END;
	size_t i;

	_Static_assert(sizeof(all) / sizeof(all[0]) == KEY_OPTIONS,
	    "KEY_OPTIONS counts the options");
	for (i = 0; i < KEY_OPTIONS; i++) {
		table[i] = all[i].option;
		table[i].refused = (all[i].bit & a->sub->takes) == 0;
	}
	table[KEY_OPTIONS] = end;
}

static int
parse_key(int argc, char **argv, struct key_args *a)
{
	struct cli_option options[KEY_OPTIONS + 1];
	const char *names[KEY_SUBS];
	struct cli_operands rest;
	size_t sub;
	int rc;

	memset(a, 0, sizeof(*a));
	a->pass.env = "PACKSIGN_PASSPHRASE";
	a->newpass.env = "PACKSIGN_NEW_PASSPHRASE";
	for (sub = 0; sub < KEY_SUBS; sub++)
		names[sub] = key_subs[sub].name;
	rc = cli_parse_subcommand(&cmd_key_usage, argc, argv, names, KEY_SUBS,
	    &sub);
	if (rc != EXIT_OK)
		return rc;
	a->sub = &key_subs[sub];
	key_options(a, options);
	rc = cli_parse_options(&cmd_key_usage, options, argc - 1, argv + 1,
	    &rest);
	if (rc != EXIT_OK)
		return rc;
	a->args = rest.argv;
	a->nargs = rest.count;
	if (a->identity != NULL && !ps_identity_valid(a->identity))
		return cli_usage_error(&cmd_key_usage, "--identity is 1 to "
		    "%d characters from A-Z a-z 0-9 . _ @ + : / -",
		    PS_IDENTITY_MAX);
	if (cli_check_passphrase_options(&cmd_key_usage, &a->pass, 0) !=
	    EXIT_OK || cli_check_passphrase_options(&cmd_key_usage,
	    &a->newpass, a->no_passphrase) != EXIT_OK)
		return EXIT_FAILED;
	return a->sub->check(a);
}

static int
run_key(struct key_args *a)
{
	return a->sub->run(a);
}

int
cmd_key(int argc, char **argv)
{
	struct key_args a;
	int rc;

	rc = parse_key(argc, argv, &a);
	if (rc != EXIT_OK)
		return rc == CLI_HELP ? EXIT_OK : rc;
	return run_key(&a);
}
