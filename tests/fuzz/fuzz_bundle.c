/*
 * The Sigstore bundle reader (sign/bundle.c).  The input is parsed as a
 * bundle; a parsed bundle's envelope gives, for each signature, a bundle
 * written again, which parses back to that one signature and is written
 * again with the same bytes; the envelope merges with a copy of one of its
 * entries (the same payload) and refuses to pass 64 signatures.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sign/bundle.h"
#include "sign/dsse.h"

/* Bundle i written, parsed and written again: one signature, same bytes. */
static void
check_rewrite(const sign_dsse_envelope *env, size_t i)
{
	sign_dsse_envelope *again = NULL;
	char *out1 = NULL, *out2 = NULL;
	size_t len1 = 0, len2 = 0;
	ps_error err;

	ps_error_clear(&err);
	if (sign_bundle_serialize(env, i, &out1, &len1, &err) != 0)
		fuzz_fail("sign_bundle_serialize", err.code);
	if (sign_bundle_parse(out1, len1, "again", &again, &err) != 0)
		fuzz_fail("bundle re-parse", err.code);
	if (sign_dsse_signature_count(again) != 1)
		fuzz_fail("bundle re-parse", "not one signature");
	if (strcmp(sign_dsse_keyid(again, 0), sign_dsse_keyid(env, i)) != 0)
		fuzz_fail("bundle re-parse", "keyid");
	if (strcmp(sign_dsse_payload_type(again), sign_dsse_payload_type(env)) != 0)
		fuzz_fail("bundle re-parse", "payload type");
	if (sign_bundle_serialize(again, 0, &out2, &len2, &err) != 0)
		fuzz_fail("sign_bundle_serialize again", err.code);
	if (len1 != len2 || memcmp(out1, out2, len1) != 0)
		fuzz_fail("bundle round trip", "bytes differ");
	free(out1);
	free(out2);
	sign_dsse_free(again);
}

/* Merging a copy of entry 0 adds one signature, or refuses the 65th. */
static void
check_merge(sign_dsse_envelope *env)
{
	sign_dsse_envelope *one = NULL;
	size_t before = sign_dsse_signature_count(env);
	ps_error err;

	ps_error_clear(&err);
	if (sign_dsse_single(env, 0, &one, &err) != 0)
		fuzz_fail("sign_dsse_single", err.code);
	if (sign_dsse_merge(env, one, "one", &err) != 0) {
		fuzz_check_error(&err, "sign_dsse_merge");
		if (before < SIGN_DSSE_MAX_SIGNATURES)
			fuzz_fail("sign_dsse_merge", "refused below the limit");
	} else if (sign_dsse_signature_count(env) != before + 1) {
		fuzz_fail("sign_dsse_merge", "signature count");
	}
	sign_dsse_free(one);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sign_dsse_envelope *env = NULL;
	ps_error err;
	size_t i, n;

	ps_error_clear(&err);
	if (sign_bundle_parse(data, size, "fuzz.sigstore.json", &env,
	    &err) != 0) {
		fuzz_check_error(&err, "sign_bundle_parse");
		if (env != NULL)
			fuzz_fail("sign_bundle_parse", "envelope set on failure");
		return 0;
	}
	fuzz_note("sign_bundle_parse", "ok");
	n = sign_dsse_signature_count(env);
	if (n == 0 || n > SIGN_DSSE_MAX_SIGNATURES)
		fuzz_fail("sign_bundle_parse", "signature count");
	for (i = 0; i < n && i < 4; i++)
		check_rewrite(env, i);
	check_merge(env);
	sign_dsse_free(env);
	return 0;
}
