/*
 * Rekor entry bodies (sigstore/rekorbody.c): byte 0 selects the entry's
 * kind and version (byte 0 / 2 mod 5: hashedrekord 0.0.1, dsse 0.0.1,
 * intoto 0.0.2, hashedrekord 0.0.2, dsse 0.0.2) and whether the bundle is
 * a DSSE envelope (bit 0); the rest is the canonicalized body.  The bundle
 * is fixed: an ECDSA P-256 key (the conformance suite's managed key), the
 * signature "fuzzsig!", the artifact "fuzz" or the DSSE payload "{}" of
 * type application/vnd.in-toto+json.  A refusal is exit 1 tlog_body_*; a
 * Rekor v2 body that matches is byte for byte the one sigstore_body_v2
 * makes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sigstore/artifact.h"
#include "sigstore/rekorbody.h"
#include "util/sha256.h"

static const char key_pem[] =
    "-----BEGIN PUBLIC KEY-----\n"
    "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAExRRST79+PsrRBnGAI4cMu6Omz2Jh\n"
    "fwlMW+gIutNKVRaMyS4rQKvgngc5p8UbLj55pVHhIoAxi/SRgURZI0J3Xw==\n"
    "-----END PUBLIC KEY-----\n";

static const struct {
	const char *kind, *version;
} kinds[] = {
	{ "hashedrekord", "0.0.1" }, { "dsse", "0.0.1" }, { "intoto", "0.0.2" },
	{ "hashedrekord", "0.0.2" }, { "dsse", "0.0.2" },
};

static sigstore_pkey *
fuzz_key(void)
{
	static sigstore_pkey *key;

	if (key == NULL && sigstore_pkey_from_pem(key_pem, strlen(key_pem),
	    &key) != 0)
		fuzz_fail("sigstore_pkey_from_pem", NULL);
	return key;
}

static void
content(int dsse, sigstore_bundle *b, sigstore_content *c)
{
	ps_error err;

	memset(b, 0, sizeof(*b));
	memset(c, 0, sizeof(*c));
	b->minor = 3;
	b->dsse = dsse;
	b->signature = (unsigned char *)"fuzzsig!";
	b->signature_len = 8;
	b->payload = (unsigned char *)"{}";
	b->payload_len = 2;
	b->payload_type = (char *)"application/vnd.in-toto+json";
	c->bundle = b;
	c->key = fuzz_key();
	if (util_sha256_buffer("fuzz", 4, c->sha256) != 0)
		fuzz_fail("sha256", NULL);
	memcpy(c->msg_digest, c->sha256, 32);
	c->msg_digest_len = 32;
	if (!dsse && sigstore_artifact_message_hash(c, "fuzz", &err) != 0)
		fuzz_fail("sigstore_artifact_message_hash", NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sigstore_bundle b;
	sigstore_content c;
	sigstore_entry e;
	ps_error err;
	char *want;
	size_t k, len;

	if (size < 1)
		return 0;
	k = (size_t)(data[0] >> 1) % 5;
	content(data[0] & 1, &b, &c);
	memset(&e, 0, sizeof(e));
	strcpy(e.kind, kinds[k].kind);
	strcpy(e.version, kinds[k].version);
	e.body = (unsigned char *)data + 1;
	e.body_len = size - 1;
	ps_error_clear(&err);
	if (sigstore_body_check(&e, &c, "fuzz", &err) != 0) {
		fuzz_check_error(&err, "sigstore_body_check");
		if (strncmp(err.code, "tlog_body_", 10) != 0 &&
		    strcmp(err.code, "out_of_memory") != 0)
			fuzz_fail("sigstore_body_check", err.code);
		return 0;
	}
	fuzz_note("sigstore_body_check", "ok");
	if (k < 3)
		return 0;
	if (sigstore_body_v2(e.kind, &c, &want, &len) != 0)
		fuzz_fail("sigstore_body_v2", "matched but cannot be made");
	if (len != e.body_len || memcmp(want, e.body, len) != 0)
		fuzz_fail("sigstore_body_check", "a v2 body not the one made");
	free(want);
	return 0;
}
