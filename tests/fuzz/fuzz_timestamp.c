/*
 * RFC 3161 timestamp tokens (sigstore/rfc3161.c): the input is a DER
 * TimeStampResp, verified against the compiled-in public-good trusted
 * root over the message signature of the conformance suite's
 * managed-key-happy-path bundle (its real token, a seed, verifies).  A
 * refusal is exit 1 with a timestamp_* code; a verified token names an
 * authority of the root and a time inside that authority's validity.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "sigstore/rfc3161.h"

static const unsigned char signature[] = {
	0x30, 0x45, 0x02, 0x21, 0x00, 0x80, 0x09, 0xf8, 0x69, 0x21, 0x7d, 0xfe,
	0xcd, 0x55, 0xc9, 0x8f, 0x01, 0x1e, 0x21, 0x2d, 0x32, 0x15, 0x32, 0xb6,
	0x8d, 0x17, 0xc1, 0x8d, 0xdb, 0x97, 0x01, 0xa2, 0xc7, 0x25, 0x20, 0x11,
	0x1c, 0x02, 0x20, 0x49, 0x47, 0x53, 0x33, 0xe4, 0xb9, 0xc6, 0xe7, 0x0e,
	0x0d, 0x11, 0x6d, 0xac, 0x61, 0xcd, 0xda, 0xe0, 0xa5, 0x4b, 0x43, 0x11,
	0x3e, 0x1a, 0x99, 0x9b, 0xbe, 0xa0, 0xd1, 0x91, 0xc4, 0x43, 0x97,
};

static ps_sigstore_root *
fuzz_root(void)
{
	static ps_sigstore_root *root;
	ps_error err;

	if (root == NULL && ps_sigstore_root_public_good(&root, &err) != 0)
		fuzz_fail("ps_sigstore_root_public_good", err.code);
	return root;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const ps_sigstore_root *root = fuzz_root();
	const sigstore_authority *tsa = NULL;
	sigstore_time t;
	ps_error err;

	ps_error_clear(&err);
	if (sigstore_timestamp_verify(root, data, size, signature,
	    sizeof(signature), "fuzz", &t, &tsa, &err) != 0) {
		fuzz_check_error(&err, "sigstore_timestamp_verify");
		if (strncmp(err.code, "timestamp_", 10) != 0 ||
		    err.status != PS_STATUS_REFUSED)
			fuzz_fail("sigstore_timestamp_verify", err.code);
		return 0;
	}
	fuzz_note("sigstore_timestamp_verify", "ok");
	if (tsa == NULL || tsa < root->tsas || tsa >= root->tsas + root->tsa_count)
		fuzz_fail("sigstore_timestamp_verify", "no authority of the root");
	if (!sigstore_validity_contains(&tsa->valid, t))
		fuzz_fail("sigstore_timestamp_verify", "outside the validity");
	return 0;
}
