/*
 * Checkpoints, C2SP signed notes (sigstore/signednote.c): byte 0 bit 0
 * says Rekor v1 (origin "NAME - TREEID"), the rest is the note.  The log
 * is fuzz.example/log with the Ed25519 key of seed 0x42 x 32 (the seeds
 * of tests/fuzz/mkcorpus are signed with it).  A refusal is exit 1 with a
 * tlog_checkpoint_* code; a verified note's origin is the log's (or its
 * v1 form) and its text verifies under the key.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "fuzz.h"
#include "sigstore/signednote.h"

#define ORIGIN "fuzz.example/log"

static sigstore_log *
fuzz_log(void)
{
	static sigstore_log log;
	unsigned char seed[32], sk[64];
	ps_pubkey pub;

	if (log.key != NULL)
		return &log;
	if (sodium_init() < 0)
		fuzz_fail("sodium_init", NULL);
	memset(seed, 0x42, sizeof(seed));
	memset(&pub, 0, sizeof(pub));
	crypto_sign_seed_keypair(pub.key, sk, seed);
	pub.alg = PS_KEY_ED25519;
	if (sigstore_pkey_from_pubkey(&pub, &log.key) != 0)
		fuzz_fail("sigstore_pkey_from_pubkey", NULL);
	log.origin = (char *)ORIGIN;
	log.base_url = (char *)"https://" ORIGIN;
	return &log;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sigstore_log *log = fuzz_log();
	sigstore_checkpoint cp;
	ps_error err;
	char *text;
	int v1;

	if (size < 1)
		return 0;
	v1 = data[0] & 1;
	text = malloc(size);
	if (text == NULL)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	ps_error_clear(&err);
	if (sigstore_note_verify(text, log, v1, "fuzz", &cp, &err) != 0) {
		fuzz_check_error(&err, "sigstore_note_verify");
		if (err.status != PS_STATUS_REFUSED ||
		    strncmp(err.code, "tlog_checkpoint_", 16) != 0)
			if (strcmp(err.code, "out_of_memory") != 0)
				fuzz_fail("sigstore_note_verify", err.code);
	} else {
		fuzz_note("sigstore_note_verify", cp.origin);
		if (v1 ? strncmp(cp.origin, ORIGIN " - ", strlen(ORIGIN) + 3) != 0 :
		    strcmp(cp.origin, ORIGIN) != 0)
			fuzz_fail("sigstore_note_verify", "another origin");
	}
	free(text);
	return 0;
}
