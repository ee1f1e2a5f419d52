/*
 * Key file parsers, every one on every input: ps_pubkey_parse (minisign
 * file or line, OpenSSH line, PEM SubjectPublicKeyInfo), the minisign
 * secret key (ps_seckey_inspect, then ps_seckey_parse with the passphrase
 * "fuzz") and the PEM private key (ps_seckey_parse_pem).
 *
 * Cost bound: ps_seckey_parse runs scrypt with the limits the file states
 * (capped at minisign's, about a second each).  The target decrypts only
 * when opslimit <= FUZZ_OPSLIMIT_MAX, which bounds both scrypt's work and
 * its memory (libsodium derives N*r*p from opslimit); other encrypted keys
 * are parsed without a passphrase (passphrase_required).  Encrypted PEM
 * keys name their own PBKDF2 iteration count: they are parsed without a
 * passphrase too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#define FUZZ_OPSLIMIT_MAX 65536ULL

static void
check_pubkey_format(const ps_pubkey *key, int (*format)(const ps_pubkey *,
    char **, ps_error *), const char *what)
{
	ps_pubkey *again = NULL;
	char *text = NULL;
	ps_error err;

	ps_error_clear(&err);
	if (format(key, &text, &err) != 0)
		fuzz_fail(what, err.code);
	if (ps_pubkey_parse(text, strlen(text), what, &again, &err) != 0)
		fuzz_fail(what, err.code);
	if (!ps_pubkey_equal(key, again))
		fuzz_fail(what, "another key after the round trip");
	if (strcmp(what, "minisign") == 0 && memcmp(key->key_id,
	    again->key_id, PS_KEY_ID_LEN) != 0)
		fuzz_fail(what, "another key id after the round trip");
	free(text);
	ps_pubkey_free(again);
}

static int
format_ssh(const ps_pubkey *key, char **out, ps_error *err)
{
	return ps_pubkey_format_ssh(key, "fuzz", out, err);
}

static void
check_pubkey(const uint8_t *data, size_t size)
{
	ps_pubkey *key = NULL;
	char fp[PS_FINGERPRINT_MAX];
	ps_error err;

	ps_error_clear(&err);
	if (ps_pubkey_parse((const char *)data, size, "fuzz.pub", &key,
	    &err) != 0) {
		fuzz_check_error(&err, "ps_pubkey_parse");
		return;
	}
	fuzz_note("ps_pubkey_parse", ps_key_source_name(key->source));
	if (key->identity != NULL && !ps_identity_valid(key->identity))
		fuzz_fail("ps_pubkey_parse", "invalid identity accepted");
	if (ps_pubkey_fingerprint(key, fp) != 0)
		fuzz_fail("ps_pubkey_fingerprint", NULL);
	fuzz_note("ps_pubkey_parse", ps_key_algorithm_name(key->alg));
	if (key->alg == PS_KEY_ECDSA_P256 && (key->ecdsa_point[0] != 0x04 ||
	    key->source != PS_KEY_SOURCE_PEM))
		fuzz_fail("ps_pubkey_parse", "ECDSA key not uncompressed PEM");
	/* An ECDSA key has only the PEM form (keys.md). */
	if (key->alg == PS_KEY_ED25519) {
		check_pubkey_format(key, ps_pubkey_format_minisign, "minisign");
		check_pubkey_format(key, ps_pubkey_format_base64, "base64");
		check_pubkey_format(key, format_ssh, "ssh");
	}
	check_pubkey_format(key, ps_pubkey_format_pem, "pem");
	ps_pubkey_free(key);
}

/* A parsed secret key formats (unencrypted) and parses back the same. */
static void
check_seckey_roundtrip(const ps_seckey *key)
{
	ps_seckey *again = NULL;
	ps_pubkey *a = NULL, *b = NULL;
	ps_secret *text = NULL;
	ps_error err;

	ps_error_clear(&err);
	if (ps_seckey_format(key, NULL, PS_KDF_INTERACTIVE, &text, &err) != 0)
		fuzz_fail("ps_seckey_format", err.code);
	if (ps_seckey_parse(ps_secret_bytes(text), ps_secret_len(text), "again",
	    NULL, &again, &err) != 0)
		fuzz_fail("seckey re-parse", err.code);
	if (ps_seckey_public(key, &a, &err) != 0 ||
	    ps_seckey_public(again, &b, &err) != 0)
		fuzz_fail("ps_seckey_public", err.code);
	if (!ps_pubkey_equal(a, b) || memcmp(ps_seckey_key_id(key),
	    ps_seckey_key_id(again), PS_KEY_ID_LEN) != 0)
		fuzz_fail("seckey round trip", "another key");
	ps_pubkey_free(a);
	ps_pubkey_free(b);
	ps_secret_free(text);
	ps_seckey_free(again);
}

static void
check_seckey(const uint8_t *data, size_t size, const ps_secret *pass)
{
	ps_seckey_info info;
	ps_seckey *key = NULL;
	ps_error err;

	ps_error_clear(&err);
	if (ps_seckey_inspect(data, size, "fuzz.key", &info, &err) != 0) {
		fuzz_check_error(&err, "ps_seckey_inspect");
		return;
	}
	if (info.encrypted && info.opslimit > FUZZ_OPSLIMIT_MAX)
		pass = NULL;
	if (ps_seckey_parse(data, size, "fuzz.key", pass, &key, &err) != 0) {
		fuzz_check_error(&err, "ps_seckey_parse");
		return;
	}
	fuzz_note("ps_seckey_parse", info.encrypted ? "decrypted" : "plain");
	check_seckey_roundtrip(key);
	ps_seckey_free(key);
}

static void
check_seckey_pem(const uint8_t *data, size_t size, const ps_secret *pass)
{
	ps_seckey *key = NULL;
	ps_error err;

	ps_error_clear(&err);
	if (ps_pem_is_encrypted(data, size))
		pass = NULL;
	if (ps_seckey_parse_pem(data, size, "fuzz.pem", pass, &key,
	    &err) != 0) {
		fuzz_check_error(&err, "ps_seckey_parse_pem");
		return;
	}
	fuzz_note("ps_seckey_parse_pem", "ok");
	check_seckey_roundtrip(key);
	ps_seckey_free(key);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static ps_secret *pass;

	if (pass == NULL && (pass = ps_secret_from("fuzz", 4)) == NULL)
		fuzz_fail("ps_secret_from", NULL);
	check_pubkey(data, size);
	check_seckey(data, size, pass);
	check_seckey_pem(data, size, pass);
	(void)ps_key_text_is_secret(data, size);
	(void)ps_pem_is_private(data, size);
	return 0;
}
