/*
 * The DSSE envelope parser and the in-toto statement parser.  The input is
 * parsed as an envelope and, separately, as a statement.  A parsed envelope
 * is serialized and parsed again (same bytes the second time), co-signed
 * with a fixed key and verified with it, and its verified payload goes to
 * the statement parser as a verifier would hand it over.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "fuzz.h"
#include "sign/dsse.h"
#include "sign/statement.h"

static unsigned char fuzz_pk[SIGN_DSSE_PUBLIC_KEY_LEN];
static unsigned char fuzz_sk[SIGN_DSSE_SECRET_KEY_LEN];
static ps_pubkey fuzz_key;     /* fuzz_pk, for sign_dsse_verify() */

static void
fixed_key(void)
{
	unsigned char seed[crypto_sign_SEEDBYTES];

	if (fuzz_pk[0] != 0 || fuzz_pk[1] != 0)
		return;
	if (sodium_init() < 0)
		fuzz_fail("sodium_init", NULL);
	memset(seed, 0x42, sizeof(seed));
	crypto_sign_seed_keypair(fuzz_pk, fuzz_sk, seed);
	fuzz_key.alg = PS_KEY_ED25519;
	memcpy(fuzz_key.key, fuzz_pk, sizeof(fuzz_pk));
}

/* Parse, serialize, parse, serialize: the two outputs are equal. */
static void
check_statement(const unsigned char *bytes, size_t len)
{
	sign_statement *st = NULL, *again = NULL;
	unsigned char *out1 = NULL, *out2 = NULL;
	size_t len1 = 0, len2 = 0;
	ps_error err;

	ps_error_clear(&err);
	if (sign_statement_parse(bytes, len, &st, &err) != 0) {
		fuzz_check_error(&err, "sign_statement_parse");
		return;
	}
	fuzz_note("sign_statement_parse", "ok");
	if (sign_statement_check(st, &err) != 0)
		fuzz_fail("sign_statement_check after parse", err.code);
	if (sign_statement_serialize(st, &out1, &len1, &err) != 0)
		fuzz_fail("sign_statement_serialize", err.code);
	if (sign_statement_parse(out1, len1, &again, &err) != 0)
		fuzz_fail("statement re-parse", err.code);
	if (sign_statement_serialize(again, &out2, &len2, &err) != 0)
		fuzz_fail("sign_statement_serialize again", err.code);
	if (len1 != len2 || memcmp(out1, out2, len1) != 0)
		fuzz_fail("statement round trip", "bytes differ");
	free(out1);
	free(out2);
	sign_statement_free(st);
	sign_statement_free(again);
}

static void
check_roundtrip(const sign_dsse_envelope *env)
{
	sign_dsse_envelope *again = NULL;
	char *out1 = NULL, *out2 = NULL;
	size_t len1 = 0, len2 = 0, i;
	ps_error err;

	ps_error_clear(&err);
	if (sign_dsse_serialize(env, &out1, &len1, &err) != 0)
		fuzz_fail("sign_dsse_serialize", err.code);
	if (sign_dsse_parse(out1, len1, "again", &again, &err) != 0)
		fuzz_fail("envelope re-parse", err.code);
	if (sign_dsse_serialize(again, &out2, &len2, &err) != 0)
		fuzz_fail("sign_dsse_serialize again", err.code);
	if (len1 != len2 || memcmp(out1, out2, len1) != 0)
		fuzz_fail("envelope round trip", "bytes differ");
	if (sign_dsse_signature_count(env) != sign_dsse_signature_count(again))
		fuzz_fail("envelope round trip", "signature count");
	for (i = 0; i < sign_dsse_signature_count(env); i++)
		if (strcmp(sign_dsse_keyid(env, i), sign_dsse_keyid(again, i)) != 0)
			fuzz_fail("envelope round trip", "keyid");
	if (strcmp(sign_dsse_payload_type(env), sign_dsse_payload_type(again)) != 0)
		fuzz_fail("envelope round trip", "payload type");
	free(out1);
	free(out2);
	sign_dsse_free(again);
}

/* Co-signs with the fixed key, which must then verify. */
static void
check_cosign(sign_dsse_envelope *env)
{
	sign_dsse_verification v;
	sign_statement *st = NULL;
	ps_error err;

	ps_error_clear(&err);
	if (sign_dsse_verify(env, &fuzz_key, &v, &err) == 0)
		return;        /* the input carries our own signature */
	fuzz_check_error(&err, "sign_dsse_verify");
	if (v.payload != NULL)
		fuzz_fail("sign_dsse_verify", "payload handed out unverified");
	if (sign_dsse_signature_count(env) >= SIGN_DSSE_MAX_SIGNATURES) {
		if (sign_dsse_sign(env, fuzz_sk, "fuzz", &err) == 0)
			fuzz_fail("sign_dsse_sign", "65th signature accepted");
		return;
	}
	ps_error_clear(&err);
	if (sign_dsse_sign(env, fuzz_sk, "fuzz", &err) != 0)
		fuzz_fail("sign_dsse_sign", err.code);
	if (sign_dsse_verify(env, &fuzz_key, &v, &err) != 0)
		fuzz_fail("verify after sign", err.code);
	if (v.verified_count != 1 || v.payload == NULL ||
	    strcmp(v.payload_type, sign_dsse_payload_type(env)) != 0)
		fuzz_fail("verify after sign", "wrong verification");
	if (sign_statement_from_verified(&v, &st, &err) != 0)
		fuzz_check_error(&err, "sign_statement_from_verified");
	sign_statement_free(st);
	check_statement(v.payload, v.payload_len);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sign_dsse_envelope *env = NULL;
	ps_error err;

	fixed_key();
	ps_error_clear(&err);
	if (sign_dsse_parse(data, size, "fuzz.sig", &env, &err) != 0) {
		fuzz_check_error(&err, "sign_dsse_parse");
		if (env != NULL)
			fuzz_fail("sign_dsse_parse", "envelope set on failure");
	} else {
		fuzz_note("sign_dsse_parse", "ok");
		check_roundtrip(env);
		check_cosign(env);
		check_roundtrip(env);
		sign_dsse_free(env);
	}
	check_statement(data, size);
	return 0;
}
