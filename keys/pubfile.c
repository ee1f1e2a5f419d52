/*
 * Public key texts: detection, minisign files and lines, OpenSSH lines,
 * and writing them back (docs/formats/keys.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "keys/keys.h"
#include "util/error.h"

static const char packsign_comment[] = "packsign public key ";

/* Length of the token at `s`: up to a blank or `len`. */
static size_t
token_len(const char *s, size_t len)
{
	size_t n = 0;

	while (n < len && !keys_is_blank(s[n]))
		n++;
	return n;
}

static int
decode_minisign_line(const char *b64, size_t n, const char *name,
    ps_pubkey *key, ps_error *err)
{
	unsigned char raw[KEYS_MINISIGN_PUBKEY_LEN];
	char found[32];
	size_t got;
	int rc;

	rc = keys_base64_exact(b64, n, raw, sizeof(raw), &got, 0);
	if (rc == -1)
		return util_fail(err, "key_bad_base64", name,
		    "the key line is not valid base64");
	if (rc == -2 && got == KEYS_MINISIGN_SECKEY_LEN)
		return util_fail(err, "key_malformed", name,
		    "this is a secret key; a public key was expected");
	if (rc == -2) {
		snprintf(found, sizeof(found), "%zu bytes", got);
		util_fail(err, "key_malformed", name,
		    "checked the decoded key length");
		return util_error_expect(err, "42 bytes", found);
	}
	if (raw[0] != 'E' || raw[1] != 'd') {
		snprintf(found, sizeof(found), "0x%02x%02x", raw[0], raw[1]);
		util_fail(err, "key_unsupported_algorithm", name,
		    "checked the signature algorithm");
		return util_error_expect(err, "\"Ed\" (ed25519)", found);
	}
	key->source = PS_KEY_SOURCE_MINISIGN;
	memcpy(key->key_id, raw + 2, PS_KEY_ID_LEN);
	memcpy(key->key, raw + 2 + PS_KEY_ID_LEN, PS_ED25519_PUBLIC_LEN);
	return 0;
}

/* "packsign public key <KEY ID>[ for <ID>]"; other comments are ignored. */
static int
comment_identity(const char *comment, size_t n, const char *name,
    ps_pubkey *key, ps_error *err)
{
	char hex[PS_KEY_ID_HEX_LEN + 1], id[PS_IDENTITY_MAX + 1];
	size_t plen = sizeof(packsign_comment) - 1;

	if (!keys_starts_with(comment, n, packsign_comment))
		return 0;
	ps_key_id_hex(key->key_id, hex);
	if (n < plen + PS_KEY_ID_HEX_LEN ||
	    memcmp(comment + plen, hex, PS_KEY_ID_HEX_LEN) != 0) {
		util_fail(err, "key_comment_mismatch", name,
		    "the comment names another key id than the key");
		return util_error_expect(err, hex, "another key id");
	}
	comment += plen + PS_KEY_ID_HEX_LEN;
	n -= plen + PS_KEY_ID_HEX_LEN;
	if (n == 0)
		return 0;
	if (!keys_starts_with(comment, n, " for ") || n - 5 > PS_IDENTITY_MAX)
		return util_fail(err, "key_malformed", name, "the comment must "
		    "read 'packsign public key <KEY ID> for <ID>'");
	memcpy(id, comment + 5, n - 5);
	id[n - 5] = '\0';
	return ps_pubkey_set_identity(key, id, err) == 0 ? 0 :
	    util_fail(err, "key_malformed", name, "the identity in the comment "
	    "is not 1 to %d characters from A-Z a-z 0-9 . _ @ + : / -",
	    PS_IDENTITY_MAX);
}

static int
parse_minisign_file(const char *text, size_t len, const char *name,
    ps_pubkey *key, ps_error *err)
{
	keys_lines lines;

	if (keys_split_file(text, len, name, &lines, err) != 0 ||
	    decode_minisign_line(lines.line, lines.line_len, name, key, err) != 0)
		return -1;
	return comment_identity(lines.comment, lines.comment_len, name, key,
	    err);
}

static int
check_ssh_type(const char *text, size_t type_len, const char *name,
    ps_error *err)
{
	char found[64];

	if (type_len == 11 && memcmp(text, "ssh-ed25519", 11) == 0)
		return 0;
	snprintf(found, sizeof(found), "%.*s",
	    (int)(type_len < 40 ? type_len : 40), text);
	util_fail(err, "key_unsupported_algorithm", name,
	    "checked the OpenSSH key type");
	return util_error_expect(err, "ssh-ed25519", found);
}

/* The 32-byte key inside a base64 OpenSSH wire blob. */
static int
decode_ssh_blob(const char *b64, size_t len, const char *name,
    unsigned char pk[PS_ED25519_PUBLIC_LEN], ps_error *err)
{
	unsigned char wire[KEYS_SSH_WIRE_LEN], expect[KEYS_SSH_WIRE_LEN];
	size_t got;

	switch (keys_base64_exact(b64, len, wire, sizeof(wire), &got, 0)) {
	case -1:
		return util_fail(err, "key_bad_base64", name,
		    "the OpenSSH key blob is not valid base64");
	case -2:
		return util_fail(err, "key_malformed", name,
		    "the OpenSSH key blob is %zu bytes, expected %d", got,
		    KEYS_SSH_WIRE_LEN);
	}
	memcpy(pk, wire + KEYS_SSH_WIRE_LEN - PS_ED25519_PUBLIC_LEN,
	    PS_ED25519_PUBLIC_LEN);
	keys_ssh_wire(pk, expect);
	if (memcmp(wire, expect, KEYS_SSH_WIRE_LEN) != 0)
		return util_fail(err, "key_malformed", name,
		    "the OpenSSH key blob does not encode an ssh-ed25519 key");
	return 0;
}

int
keys_pubkey_parse_ssh(const char *text, size_t len, const char *name,
    ps_pubkey **out, ps_error *err)
{
	unsigned char pk[PS_ED25519_PUBLIC_LEN];
	size_t type_len, b64_len;
	const char *b64;

	*out = NULL;
	keys_trim(&text, &len);
	if (memchr(text, '\n', len) != NULL)
		return util_fail(err, "key_malformed", name,
		    "an OpenSSH public key is one line");
	type_len = token_len(text, len);
	if (check_ssh_type(text, type_len, name, err) != 0)
		return -1;
	b64 = text + type_len;
	b64_len = len - type_len;
	keys_trim(&b64, &b64_len);
	b64_len = token_len(b64, b64_len);
	if (decode_ssh_blob(b64, b64_len, name, pk, err) != 0 ||
	    ps_pubkey_new(out, err) != 0)
		return -1;
	(*out)->source = PS_KEY_SOURCE_SSH;
	memcpy((*out)->key, pk, PS_ED25519_PUBLIC_LEN);
	if (keys_derived_id((*out)->key, (*out)->key_id) != 0) {
		ps_pubkey_free(*out);
		*out = NULL;
		return util_fail(err, "out_of_memory", name, "SHA-256 failed");
	}
	return 0;
}

static int
parse_minisign(const char *text, size_t len, const char *name,
    ps_pubkey **out, ps_error *err)
{
	if (ps_pubkey_new(out, err) != 0)
		return -1;
	if (keys_starts_with(text, len, KEYS_COMMENT_PREFIX) ?
	    parse_minisign_file(text, len, name, *out, err) :
	    decode_minisign_line(text, len, name, *out, err)) {
		ps_pubkey_free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

int
ps_pubkey_parse(const char *text, size_t len, const char *name,
    ps_pubkey **out, ps_error *err)
{
	*out = NULL;
	if (memchr(text, '\0', len) != NULL)
		return util_fail(err, "key_malformed", name,
		    "a key file is text; found a NUL byte");
	if (len > PS_KEY_FILE_MAX)
		return util_fail(err, "input_too_large", name,
		    "a key is at most %d bytes", PS_KEY_FILE_MAX);
	/* Leading blanks are skipped for YAML block scalars and pastes. */
	while (len > 0 && keys_is_blank(*text)) {
		text++;
		len--;
	}
	if (keys_starts_with(text, len, "-----BEGIN "))
		return keys_pubkey_parse_pem(text, len, name, out, err);
	if (keys_starts_with(text, len, "ssh-") || keys_starts_with(text, len, "ecdsa-") ||
	    keys_starts_with(text, len, "sk-"))
		return keys_pubkey_parse_ssh(text, len, name, out, err);
	if (keys_starts_with(text, len, KEYS_COMMENT_PREFIX))
		return parse_minisign(text, len, name, out, err);
	keys_trim(&text, &len);
	if (memchr(text, '\n', len) != NULL)
		return util_fail(err, "key_malformed", name, "expected a minisign "
		    "key file, a base64 key line, an ssh-ed25519 line or PEM");
	return parse_minisign(text, len, name, out, err);
}

int
ps_pubkey_load_file(const char *path, ps_pubkey **out, ps_error *err)
{
	char *data;
	size_t len;
	int rc;

	*out = NULL;
	if (keys_read_file(path, PS_KEY_FILE_MAX, &data, &len, err) != 0)
		return -1;
	rc = ps_pubkey_parse(data, len, path, out, err);
	free(data);
	return rc;
}

int
ps_pubkey_format_base64(const ps_pubkey *key, char **out, ps_error *err)
{
	unsigned char raw[KEYS_MINISIGN_PUBKEY_LEN];
	size_t size = sodium_base64_ENCODED_LEN(sizeof(raw),
	    sodium_base64_VARIANT_ORIGINAL);

	*out = NULL;
	if (key->alg != PS_KEY_ED25519)
		return keys_refuse_ecdsa_form("minisign", err);
	*out = malloc(size);
	if (*out == NULL)
		return util_fail_oom(err, "");
	raw[0] = 'E';
	raw[1] = 'd';
	memcpy(raw + 2, key->key_id, PS_KEY_ID_LEN);
	memcpy(raw + 2 + PS_KEY_ID_LEN, key->key, PS_ED25519_PUBLIC_LEN);
	sodium_bin2base64(*out, size, raw, sizeof(raw),
	    sodium_base64_VARIANT_ORIGINAL);
	return 0;
}

int
ps_pubkey_format_minisign(const ps_pubkey *key, char **out, ps_error *err)
{
	char hex[PS_KEY_ID_HEX_LEN + 1], *line;
	int n;

	*out = NULL;
	if (ps_pubkey_format_base64(key, &line, err) != 0)
		return -1;
	ps_key_id_hex(key->key_id, hex);
	n = asprintf(out, KEYS_COMMENT_PREFIX "%s%s%s%s\n%s\n", packsign_comment,
	    hex, key->identity != NULL ? " for " : "",
	    key->identity != NULL ? key->identity : "", line);
	free(line);
	if (n < 0) {
		*out = NULL;
		return util_fail_oom(err, "");
	}
	return 0;
}

int
ps_pubkey_format_ssh(const ps_pubkey *key, const char *comment, char **out,
    ps_error *err)
{
	unsigned char wire[KEYS_SSH_WIRE_LEN];
	char b64[sodium_base64_ENCODED_LEN(KEYS_SSH_WIRE_LEN,
	    sodium_base64_VARIANT_ORIGINAL)];

	*out = NULL;
	if (key->alg != PS_KEY_ED25519)
		return keys_refuse_ecdsa_form("ssh-ed25519", err);
	keys_ssh_wire(key->key, wire);
	sodium_bin2base64(b64, sizeof(b64), wire, sizeof(wire),
	    sodium_base64_VARIANT_ORIGINAL);
	if (asprintf(out, "ssh-ed25519 %s%s%s\n", b64,
	    comment != NULL ? " " : "", comment != NULL ? comment : "") < 0) {
		*out = NULL;
		return util_fail_oom(err, "");
	}
	return 0;
}
