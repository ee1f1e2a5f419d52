/*
 * Sigstore bundles through the verifier (sigstore/sigbundle.c and the
 * steps after it): the input is a bundle, verified as verify --bundle
 * verifies a pack's key-based bundle (sigstore_verify_key_bundle: shape,
 * log entries, timestamps, signing times, DSSE signature) against the
 * compiled-in public-good root with a fixed Ed25519 key (seed 0x42 x
 * 32).  A refusal is exit 1 (or out_of_memory); the result says how far
 * it got, steps in order; a verified bundle has every step up to the
 * signature, and every verified signing time is not after the present.
 */
#include <stdint.h>
#include <string.h>

#include <sodium.h>

#include "fuzz.h"
#include "sigstore/sigstore.h"

static ps_sigstore_root *
fuzz_root(void)
{
	static ps_sigstore_root *root;
	ps_error err;

	if (root == NULL && ps_sigstore_root_public_good(&root, &err) != 0)
		fuzz_fail("ps_sigstore_root_public_good", err.code);
	return root;
}

static const ps_pubkey *
fuzz_key(void)
{
	static ps_pubkey pub;
	unsigned char seed[32], sk[64];

	if (pub.key[0] == 0 && pub.key[1] == 0) {
		if (sodium_init() < 0)
			fuzz_fail("sodium_init", NULL);
		memset(seed, 0x42, sizeof(seed));
		crypto_sign_seed_keypair(pub.key, sk, seed);
		pub.alg = PS_KEY_ED25519;
	}
	return &pub;
}

/* The steps passed are a prefix of the order (a key-based bundle has
 * no certificate or identity step), the signature only after all. */
static void
check_steps(unsigned steps)
{
	unsigned low = steps & 0x0f;

	if ((low & (low + 1)) != 0 || (steps & (PS_SIGSTORE_STEP_CERTIFICATE |
	    PS_SIGSTORE_STEP_IDENTITY)) != 0)
		fuzz_fail("steps", "not a prefix of the order");
	if ((steps & PS_SIGSTORE_STEP_SIGNATURE) != 0 && low != 0x0f)
		fuzz_fail("steps", "a signature before the evidence");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ps_sigstore_result *r = NULL;
	ps_error err;
	size_t i;

	ps_error_clear(&err);
	if (sigstore_verify_key_bundle(fuzz_root(), "fuzz.json",
	    (const char *)data, size, fuzz_key(), 1900000000, &r, &err) != 0) {
		fuzz_check_error(&err, "sigstore_verify_key_bundle");
		if (err.status != PS_STATUS_REFUSED &&
		    strcmp(err.code, "out_of_memory") != 0)
			fuzz_fail("sigstore_verify_key_bundle", err.code);
	} else {
		fuzz_note("sigstore_verify_key_bundle", "ok");
		if ((r->steps & PS_SIGSTORE_STEP_SIGNATURE) == 0 || r->keyless)
			fuzz_fail("sigstore_verify_key_bundle", "steps");
	}
	if (r != NULL) {
		check_steps(r->steps);
		for (i = 0; i < r->signing_time_count; i++) {
			if (r->signing_times[i] > 1900000000)
				fuzz_fail("signing time", "after the present");
		}
	}
	ps_sigstore_result_free(r);
	return 0;
}
