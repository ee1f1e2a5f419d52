/*
 * The trust policy parser (docs/formats/trust-policy.md).  A policy that
 * loads must hold what the format promises; each of its keys is then
 * looked up, and must be found for its own signer (or refused for a
 * reason the policy explains: revoked, out of its window or of scope).
 * Each signer's ceiling (`may:`) must hold only well-formed values, and
 * judging fixed packs of every format against it must pass or refuse
 * with permission_exceeds_policy, never anything else.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "keys/trustmay.h"
#include "verify/ceiling.h"

static void
check_hosts(const ps_egress *hosts, size_t count)
{
	const char *c;
	size_t i;

	for (i = 0; i < count; i++) {
		if (hosts[i].host == NULL || hosts[i].host[0] == '\0' ||
		    hosts[i].port > 65535)
			fuzz_fail("ps_trust_load", "bad host pattern kept");
		for (c = hosts[i].host; *c != '\0'; c++)
			if (*c >= 'A' && *c <= 'Z')
				fuzz_fail("ps_trust_load", "host in capitals");
	}
}

static void
check_values(const ps_ceiling *c)
{
	size_t i;

	check_hosts(c->soyapack.egress, c->soyapack.egress_count);
	check_hosts(c->holon.data_egress, c->holon.data_egress_count);
	check_hosts(c->holon.endpoint, c->holon.endpoint_count);
	for (i = 0; i < c->holon.data_egress_count; i++)
		if (c->holon.data_egress[i].port != 0 ||
		    c->holon.data_egress[i].protocol != NULL)
			fuzz_fail("ps_trust_load", "data_egress with a port");
	for (i = 0; i < c->soyapack.fs_write.count; i++)
		if (c->soyapack.fs_write.items[i][0] != '/')
			fuzz_fail("ps_trust_load", "relative fs_write path");
	for (i = 0; i < c->soyapack.determinism_tiers.count; i++)
		if (keys_may_rank(keys_may_tiers,
		    c->soyapack.determinism_tiers.items[i]) < 0)
			fuzz_fail("ps_trust_load", "unknown tier kept");
	if (c->agentpack.declared && keys_may_rank(keys_may_file_write,
	    c->agentpack.file_write) < 0)
		fuzz_fail("ps_trust_load", "unknown file_write kept");
	if (c->holon.timeout_s < 0 || c->holon.price_max < 0)
		fuzz_fail("ps_trust_load", "negative maximum kept");
}

static char *classes[] = { "data.profile" };
static char *names[] = { "web" };
static char *paths[] = { "/workdir/out/x" };
static ps_egress hosts[] = { { "a.example.org", 443, "https" },
    { "*.example.org", 443, "https" } };

/* One pack of each format, asking for a little of everything. */
static void
fixed_packs(ps_manifest m[4])
{
	memset(m, 0, 4 * sizeof(*m));
	m[0].format = PS_FORMAT_AGENTPACK;
	m[0].permissions.network = 1;
	m[0].permissions.file_write = "workspace";
	m[1].format = PS_FORMAT_SOYAPACK;
	m[1].egress = hosts;
	m[1].egress_count = 2;
	m[1].fs_write.items = paths;
	m[1].fs_write.count = 1;
	m[1].determinism_tier = "side-effect";
	m[2].format = PS_FORMAT_HOLON;
	m[2].capabilities.items = classes;
	m[2].capabilities.count = 1;
	m[2].retention = "P7D";
	m[2].endpoint = "https://a.example.org/mcp";
	m[2].timeout_s = 60;
	m[2].price_worst_case = "0.02 USD";
	m[2].price_worst_amount = 0.02;
	m[2].price_currency = "USD";
	m[3].format = PS_FORMAT_AUTOGRAPH;
	m[3].services.items = names;
	m[3].services.count = 1;
}

static void
check_ceiling(const ps_trust_signer *signer)
{
	ps_manifest m[4];
	ps_error err;
	size_t i;
	int rc;

	if (signer->may != NULL)
		check_values(signer->may);
	fixed_packs(m);
	for (i = 0; i < 4; i++) {
		ps_error_clear(&err);
		rc = verify_ceiling_check(&m[i], &signer, 1, "fuzz", &err);
		if (rc == 0)
			continue;
		fuzz_check_error(&err, "verify_ceiling_check");
		if (signer->may == NULL || err.status != PS_STATUS_REFUSED ||
		    strcmp(err.code, PS_CODE_PERMISSION_EXCEEDS_POLICY) != 0)
			fuzz_fail("verify_ceiling_check", err.code);
	}
}

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
	if ((policy->consent & ~0xfu) != 0)
		fuzz_fail("ps_trust_load", "unknown consent bit");
	for (i = 0; i < policy->signer_count; i++) {
		check_signer(policy, &policy->signers[i]);
		check_ceiling(&policy->signers[i]);
	}
	for (i = 0; i < policy->revoked_count; i++)
		if (policy->revoked[i].key == NULL)
			fuzz_fail("ps_trust_load", "revoked key missing");
	ps_trust_free(policy);
	return 0;
}
