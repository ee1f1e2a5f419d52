/*
 * minisign signature files ("ED" prehashed mode), so `minisign -V` checks
 * an archive packsign signed (docs/formats/signature.md, "OUT.minisig").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "util/error.h"

#define TRUSTED_COMMENT_MAX 1024
#define SIG_BLOB_LEN (2 + PS_KEY_ID_LEN + PS_ED25519_SIG_LEN)

static int
comment_printable(const char *text)
{
	const unsigned char *p;

	for (p = (const unsigned char *)text; *p != '\0'; p++) {
		if (*p < 0x20 || *p > 0x7e)
			return 0;
	}
	return 1;
}

/* The global signature: Ed25519 over signature || trusted comment text. */
static int
global_signature(const ps_seckey *key, const unsigned char sig[PS_ED25519_SIG_LEN],
    const char *comment, unsigned char out[PS_ED25519_SIG_LEN], ps_error *err)
{
	size_t clen = strlen(comment);
	unsigned char *msg = malloc(PS_ED25519_SIG_LEN + clen);
	int rc;

	if (msg == NULL)
		return util_fail_oom(err, NULL);
	memcpy(msg, sig, PS_ED25519_SIG_LEN);
	memcpy(msg + PS_ED25519_SIG_LEN, comment, clen);
	rc = ps_key_sign(key, msg, PS_ED25519_SIG_LEN + clen, out, err);
	free(msg);
	return rc;
}

int
ps_minisig_format(const ps_seckey *key,
    const unsigned char blake2b[PS_BLAKE2B512_LEN],
    const char *trusted_comment, char **out, ps_error *err)
{
	unsigned char blob[SIG_BLOB_LEN], global[PS_ED25519_SIG_LEN];
	char b64_blob[sodium_base64_ENCODED_LEN(SIG_BLOB_LEN,
	    sodium_base64_VARIANT_ORIGINAL)];
	char b64_global[sodium_base64_ENCODED_LEN(PS_ED25519_SIG_LEN,
	    sodium_base64_VARIANT_ORIGINAL)];
	char hex[PS_KEY_ID_HEX_LEN + 1];

	*out = NULL;
	if (strlen(trusted_comment) > TRUSTED_COMMENT_MAX ||
	    !comment_printable(trusted_comment))
		return util_refuse(err, "minisig_comment_invalid", trusted_comment,
		    "a trusted comment is at most %d printable ASCII bytes",
		    TRUSTED_COMMENT_MAX);
	memcpy(blob, "ED", 2);
	memcpy(blob + 2, ps_seckey_key_id(key), PS_KEY_ID_LEN);
	if (ps_key_sign_digest(key, blake2b, blob + 2 + PS_KEY_ID_LEN, err) != 0 ||
	    global_signature(key, blob + 2 + PS_KEY_ID_LEN, trusted_comment,
	    global, err) != 0)
		return -1;
	sodium_bin2base64(b64_blob, sizeof(b64_blob), blob, sizeof(blob),
	    sodium_base64_VARIANT_ORIGINAL);
	sodium_bin2base64(b64_global, sizeof(b64_global), global, sizeof(global),
	    sodium_base64_VARIANT_ORIGINAL);
	ps_key_id_hex(ps_seckey_key_id(key), hex);
	if (asprintf(out, "untrusted comment: signature from packsign secret "
	    "key %s\n%s\ntrusted comment: %s\n%s\n", hex, b64_blob,
	    trusted_comment, b64_global) < 0) {
		*out = NULL;
		return util_fail_oom(err, NULL);
	}
	return 0;
}
