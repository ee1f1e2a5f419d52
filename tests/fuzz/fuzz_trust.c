/*
 * The trust policy parser (docs/formats/trust-policy.md).  A policy that
 * loads must hold what the format promises; each of its keys is then
 * looked up, and must be found for its own signer (or refused for a
 * reason the policy explains: revoked, out of its window or of scope).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static void
check_signer(const ps_trust *policy, const ps_trust_signer *signer)
{
	const ps_trust_signer *found;
	size_t i;
	ps_error err;

	if (!ps_identity_valid(signer->identity))
		fuzz_fail("ps_trust_load", "invalid identity accepted");
	if (ps_trust_find_signer(policy, signer->identity) != signer)
		fuzz_fail("ps_trust_find_signer", signer->identity);
	for (i = 0; i < signer->key_count; i++) {
		if (signer->keys[i].key == NULL)
			fuzz_fail("ps_trust_load", "signer key missing");
		if (signer->keys[i].not_before > signer->keys[i].not_after)
			fuzz_fail("ps_trust_load", "empty window accepted");
		ps_error_clear(&err);
		found = NULL;
		if (ps_trust_lookup(policy, signer->keys[i].key,
		    signer->pack_count > 0 ? signer->packs[0] : "x",
		    signer->keys[i].not_before, &found, &err) != 0)
			fuzz_check_error(&err, "ps_trust_lookup");
		else if (found == NULL || ps_trust_find_signer(policy,
		    found->identity) != found)
			fuzz_fail("ps_trust_lookup", "no signer");
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ps_trust *policy = NULL;
	ps_error err;
	size_t i;

	ps_error_clear(&err);
	if (ps_trust_load((const char *)data, size, "fuzz.yaml", &policy,
	    &err) != 0) {
		fuzz_check_error(&err, "ps_trust_load");
		if (err.status != PS_STATUS_FAILED)
			fuzz_fail("ps_trust_load", "a policy error is exit 2");
		if (policy != NULL)
			fuzz_fail("ps_trust_load", "policy set on failure");
		return 0;
	}
	fuzz_note("ps_trust_load", "ok");
	if (policy->threshold < 1)
		fuzz_fail("ps_trust_load", "threshold below 1");
	for (i = 0; i < policy->signer_count; i++)
		check_signer(policy, &policy->signers[i]);
	for (i = 0; i < policy->revoked_count; i++)
		if (policy->revoked[i].key == NULL)
			fuzz_fail("ps_trust_load", "revoked key missing");
	ps_trust_free(policy);
	return 0;
}
