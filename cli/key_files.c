/* The key files keygen and key write, and what is printed about them. */
#include <stdio.h>
#include <sys/stat.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/json.h"
#include "cli/key_files.h"
#include "cli/output.h"

int
cli_check_new_files(const char *first, const char *second, int force)
{
	struct stat st;

	if (force)
		return EXIT_OK;
	if (first != NULL && lstat(first, &st) == 0)
		return cli_fail("output_exists", first,
		    "refusing to overwrite an existing file (use --force)");
	if (second != NULL && lstat(second, &st) == 0)
		return cli_fail("output_exists", second,
		    "refusing to overwrite an existing file (use --force)");
	return EXIT_OK;
}

int
cli_write_output(const char *path, const void *data, size_t len,
    unsigned mode, int force)
{
	ps_error err;

	if (ps_key_file_write(path, data, len, mode, force ? 0 :
	    PS_WRITE_NO_REPLACE, &err) != 0)
		return cli_report(&err);
	return EXIT_OK;
}

int
cli_print_key_files(const ps_pubkey *pub, const char *pub_path,
    const char *sec_path, int encrypted, int json)
{
	char hex[PS_KEY_ID_HEX_LEN + 1], fp[PS_FINGERPRINT_MAX];
	json_t *root;

	ps_key_id_hex(pub->key_id, hex);
	if (!json) {
		printf("key id: %s\npublic key: %s\n", hex, pub_path);
		if (sec_path != NULL)
			printf("secret key: %s (%s)\n", sec_path, encrypted ?
			    "encrypted" : "unencrypted");
		return EXIT_OK;
	}
	if (ps_pubkey_fingerprint(pub, fp) != 0)
		return cli_fail("crypto_error", pub_path,
		    "cannot compute the key's fingerprint");
	root = json_pack("{s:s, s:s, s:o, s:o, s:o, s:o}", "key_id", hex,
	    "fingerprint", fp, "identity", cli_json_text(pub->identity),
	    "public_key", cli_json_text(pub_path),
	    "secret_key", cli_json_text(sec_path), "encrypted",
	    sec_path != NULL ? json_boolean(encrypted) : json_null());
	return cli_print_report(root, pub_path);
}
