/* Unit tests: verify/ceiling.c, permission ceilings against manifest
 * models (docs/formats/trust-policy.md, "Permission ceilings").  Ceilings
 * come from real policy text through ps_trust_load(), manifests are
 * models built here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify/ceiling.h"

static char *line;       /* a minisign base64 line for the policies */
static char *lines[3];   /* three more, for several signers */

static int
setup(void **state)
{
	ps_seckey *sk = NULL;
	ps_pubkey *pk = NULL;
	ps_error err;
	int i;

	(void)state;
	for (i = 0; i < 4; i++) {
		if (ps_seckey_generate(&sk, &err) != 0 ||
		    ps_seckey_public(sk, &pk, &err) != 0 ||
		    ps_pubkey_format_base64(pk, i == 0 ? &line : &lines[i - 1],
		    &err) != 0)
			return -1;
		ps_seckey_free(sk);
		ps_pubkey_free(pk);
	}
	return 0;
}

static int
teardown(void **state)
{
	int i;

	(void)state;
	free(line);
	for (i = 0; i < 3; i++)
		free(lines[i]);
	return 0;
}

/* A one-signer policy whose signer `community` has `may` (YAML lines
 * indented under the signer, or "" for none). */
static ps_trust *
policy(const char *may)
{
	ps_trust *p = NULL;
	char *text = NULL;
	ps_error err;

	assert_true(asprintf(&text, "version: 1\nsigners:\n"
	    "  - identity: community\n    keys:\n      - key: %s\n"
	    "    packs: [\"*\"]\n%s", line, may) > 0);
	if (ps_trust_load(text, strlen(text), "p.yaml", &p, &err) != 0)
		fail_msg("%s: %s [%s]", err.subject, err.message, err.code);
	free(text);
	return p;
}

/* Whether the ceiling of `may` covers `m`; the miss when it does not. */
static int
covers(const char *may, const ps_manifest *m, verify_ceiling_miss *miss)
{
	ps_trust *p = policy(may);
	int rc;

	assert_non_null(p->signers[0].may);
	rc = verify_ceiling_covers(m, p->signers[0].may, miss);
	ps_trust_free(p);
	return rc;
}

/* Expects `m` refused by `may` on `permission`, with `expected` and
 * `found` when given. */
static void
refused(const char *may, const ps_manifest *m, const char *permission,
    const char *expected, const char *found)
{
	verify_ceiling_miss miss;

	if (covers(may, m, &miss))
		fail_msg("covered, expected a refusal on %s", permission);
	assert_string_equal(miss.permission, permission);
	if (expected != NULL)
		assert_string_equal(miss.expected, expected);
	if (found != NULL)
		assert_string_equal(miss.found, found);
}

static void
passes(const char *may, const ps_manifest *m)
{
	verify_ceiling_miss miss;

	if (!covers(may, m, &miss))
		fail_msg("refused on %s: expected %s, found %s", miss.permission,
		    miss.expected, miss.found);
}

static ps_manifest
agentpack(int network, int shell, const char *file_write, int knowledge,
    int filesystem)
{
	ps_manifest m;

	memset(&m, 0, sizeof(m));
	m.format = PS_FORMAT_AGENTPACK;
	m.permissions.declared = 1;
	m.permissions.network = network;
	m.permissions.shell = shell;
	m.permissions.file_write = (char *)file_write;
	m.permissions.read_knowledge = knowledge;
	m.permissions.read_filesystem = filesystem;
	return m;
}

#define AGENTPACK_MAY "    may:\n      agentpack: {network: false, shell: " \
    "false, file_write: workspace, read_knowledge: true}\n"

static void
agentpack_booleans_and_file_write(void **state)
{
	ps_manifest m = agentpack(0, 0, "workspace", 1, 0);

	(void)state;
	passes(AGENTPACK_MAY, &m);
	m = agentpack(0, 0, "none", 0, 0);
	passes(AGENTPACK_MAY, &m);
	m = agentpack(0, 0, NULL, 0, 0);             /* undeclared: none */
	passes("    may:\n      agentpack: {}\n", &m);
	m = agentpack(1, 0, "workspace", 1, 0);
	refused(AGENTPACK_MAY, &m, "network", "false", "true");
	m = agentpack(0, 1, "workspace", 1, 0);
	refused(AGENTPACK_MAY, &m, "shell", "false", "true");
	/* ordered: none < workspace < knowledge, the ceiling a maximum */
	m = agentpack(0, 0, "knowledge", 1, 0);
	refused(AGENTPACK_MAY, &m, "file_write", "at most workspace",
	    "knowledge");
	passes("    may:\n      agentpack: {file_write: knowledge, "
	    "read_knowledge: true}\n", &m);
	/* left out of the block: denied */
	m = agentpack(0, 0, "none", 0, 1);
	refused(AGENTPACK_MAY, &m, "read_filesystem", "false", "true");
	m = agentpack(0, 0, "workspace", 0, 0);
	refused("    may:\n      agentpack: {}\n", &m, "file_write",
	    "at most none", "workspace");
}

static void
format_without_block_is_refused(void **state)
{
	ps_manifest m = agentpack(0, 0, "none", 0, 0);

	(void)state;
	refused("    may:\n      holon: {}\n      soyapack: {}\n", &m, "format",
	    "soyapack or holon", "agentpack");
	refused("    may: {}\n", &m, "format", "none (no block under may:)",
	    "agentpack");
}

static ps_egress egress[4];

static ps_manifest
soyapack(size_t n_egress, const char *tier)
{
	ps_manifest m;

	memset(&m, 0, sizeof(m));
	m.format = PS_FORMAT_SOYAPACK;
	m.egress = egress;
	m.egress_count = n_egress;
	m.determinism_tier = (char *)tier;
	return m;
}

static void
set_egress(size_t i, const char *host, unsigned port, const char *protocol)
{
	egress[i].host = (char *)host;
	egress[i].port = port;
	egress[i].protocol = (char *)protocol;
}

/* `host` alone (port 443, https) against the one pattern `pattern`. */
static int
host_covered(const char *pattern, const char *host, unsigned port,
    const char *protocol)
{
	verify_ceiling_miss miss;
	ps_manifest m = soyapack(1, "read-only");
	char may[512];

	set_egress(0, host, port, protocol);
	snprintf(may, sizeof(may), "    may:\n      soyapack:\n        egress: "
	    "[\"%s\"]\n", pattern);
	return covers(may, &m, &miss);
}

static void
soyapack_wildcard_hosts(void **state)
{
	(void)state;
	assert_true(host_covered("*.example.org", "a.example.org", 443, "https"));
	assert_true(host_covered("*.example.org", "b.a.example.org", 443,
	    "https"));
	assert_true(host_covered("*.example.org", "*.a.example.org", 443,
	    "https"));
	assert_true(host_covered("*.example.org", "*.example.org", 443,
	    "https"));
	/* *.S does not cover S itself, nor a name merely ending in S */
	assert_false(host_covered("*.example.org", "example.org", 443, "https"));
	assert_false(host_covered("*.example.org", "badexample.org", 443,
	    "https"));
	assert_false(host_covered("*.example.org", "*.org", 443, "https"));
	assert_false(host_covered("*.example.org", "*", 443, "https"));
	assert_true(host_covered("*", "*", 443, "https"));
	assert_true(host_covered("*", "*.org", 443, "https"));
	/* an exact name covers itself only, case-insensitively */
	assert_true(host_covered("API.OpenAI.com", "api.openai.COM", 443,
	    "https"));
	assert_true(host_covered("*.Example.ORG", "A.example.org", 443,
	    "https"));
	assert_false(host_covered("api.openai.com", "*.openai.com", 443,
	    "https"));
	assert_false(host_covered("api.openai.com", "x.api.openai.com", 443,
	    "https"));
}

static void
soyapack_ports_and_protocols(void **state)
{
	(void)state;
	assert_true(host_covered("api.openai.com:443/https", "api.openai.com",
	    443, "https"));
	assert_true(host_covered("api.openai.com:443/HTTPS", "api.openai.com",
	    443, "https"));
	assert_false(host_covered("api.openai.com:443/https", "api.openai.com",
	    8443, "https"));
	assert_false(host_covered("api.openai.com:443/https", "api.openai.com",
	    443, "grpc"));
	/* a missing port or protocol in the ceiling means any */
	assert_true(host_covered("api.openai.com/https", "api.openai.com", 8443,
	    "https"));
	assert_true(host_covered("api.openai.com:443", "api.openai.com", 443,
	    "grpc"));
	assert_true(host_covered("api.openai.com", "api.openai.com", 1, "x"));
	assert_true(host_covered("*:443", "anything.example", 443, "https"));
	/* ...and in the pack it means any too: only "any" covers it */
	assert_false(host_covered("api.openai.com:443", "api.openai.com", 0,
	    "https"));
	assert_false(host_covered("api.openai.com/https", "api.openai.com", 443,
	    NULL));
}

static void
soyapack_egress_refusal_names_the_host(void **state)
{
	ps_manifest m = soyapack(2, "read-only");

	(void)state;
	set_egress(0, "api.openai.com", 443, "https");
	set_egress(1, "example.com", 443, "https");
	refused("    may:\n      soyapack: {egress: [\"api.openai.com:443/https\","
	    " \"*.example.org:443\"]}\n", &m, "egress",
	    "one of api.openai.com:443/https, *.example.org:443",
	    "example.com:443/https");
	refused("    may:\n      soyapack: {}\n", &m, "egress", "none",
	    "api.openai.com:443/https");
}

static char *read_paths[2], *write_paths[2];

static void
soyapack_fs_prefixes_by_component(void **state)
{
	ps_manifest m = soyapack(0, "read-only");
	const char *may = "    may:\n      soyapack:\n        fs_read: [/]\n"
	    "        fs_write: [/workdir/out/]\n";

	(void)state;
	m.fs_read.items = read_paths;
	m.fs_write.items = write_paths;
	read_paths[0] = "/anything/at/all";
	m.fs_read.count = 1;
	write_paths[0] = "/workdir/out";
	write_paths[1] = "/workdir/out/x/y";
	m.fs_write.count = 2;
	passes(may, &m);
	write_paths[1] = "/workdir/outside";
	refused(may, &m, "fs_write", "under one of /workdir/out",
	    "/workdir/outside");
	write_paths[1] = "/workdir";
	refused(may, &m, "fs_write", NULL, "/workdir");
	/* a pack's doubled or trailing slashes change no component */
	write_paths[1] = "/workdir//out/z/";
	passes(may, &m);
	refused("    may:\n      soyapack: {fs_write: [/workdir/out]}\n", &m,
	    "fs_read", "none", "/anything/at/all");
}

static void
soyapack_tiers_are_ordered(void **state)
{
	ps_manifest m = soyapack(0, "side-effect");

	(void)state;
	/* one tier: a maximum */
	passes("    may:\n      soyapack: {determinism_tier: side-effect}\n", &m);
	m.determinism_tier = "read-only";
	passes("    may:\n      soyapack: {determinism_tier: side-effect}\n", &m);
	m.determinism_tier = "unrestricted";
	refused("    may:\n      soyapack: {determinism_tier: side-effect}\n",
	    &m, "determinism_tier", "one of read-only, side-effect",
	    "unrestricted");
	/* a list: exactly those */
	m.determinism_tier = "side-effect";
	refused("    may:\n      soyapack: {determinism_tier: [read-only, "
	    "unrestricted]}\n", &m, "determinism_tier",
	    "one of read-only, unrestricted", "side-effect");
	/* left out: the lowest, read-only */
	refused("    may:\n      soyapack: {}\n", &m, "determinism_tier",
	    "one of read-only", "side-effect");
	m.determinism_tier = "read-only";
	passes("    may:\n      soyapack: {}\n", &m);
}

static char *classes[2] = { "data.profile", "net.scan" };
static char *services[2] = { "web", "miner" };
static char *tasks[1] = { "build" };

/* The example holon, as formats/holon.c models it. */
static ps_manifest
holon(void)
{
	ps_manifest m;

	memset(&m, 0, sizeof(m));
	m.format = PS_FORMAT_HOLON;
	m.capabilities.items = classes;
	m.capabilities.count = 1;
	set_egress(0, "api.openai.com", 0, NULL);
	m.egress = egress;
	m.egress_count = 1;
	m.retention = "none";
	m.training_use = 0;
	m.endpoint = "https://pdf-profile.acme-agents.net/mcp";
	m.timeout_s = 120;
	m.price_worst_case = "0.02 USD";
	m.price_worst_amount = 0.02;
	m.price_currency = "USD";
	return m;
}

#define HOLON_MAY "    may:\n      holon:\n" \
    "        capabilities: [\"data.*\"]\n" \
    "        data_egress: [api.openai.com]\n" \
    "        retention: P7D\n" \
    "        endpoint: [\"*.acme-agents.net:443\"]\n" \
    "        timeout_s: 120\n" \
    "        price: 0.05 USD\n"

static void
holon_lists_and_booleans(void **state)
{
	ps_manifest m = holon();

	(void)state;
	passes(HOLON_MAY, &m);
	m.capabilities.count = 2;
	refused(HOLON_MAY, &m, "capabilities", "one of data.*", "net.scan");
	m = holon();
	set_egress(0, "evil.example", 0, NULL);
	refused(HOLON_MAY, &m, "data_egress", "one of api.openai.com",
	    "evil.example");
	m = holon();
	m.training_use = 1;
	refused(HOLON_MAY, &m, "training_use", "false", "true");
	m.training_use = -1;                     /* undeclared: denied */
	passes(HOLON_MAY, &m);
	m = holon();
	m.endpoint = "https://pdf-profile.acme-agents.net:8443/mcp";
	refused(HOLON_MAY, &m, "endpoint", "one of *.acme-agents.net:443",
	    "pdf-profile.acme-agents.net:8443/https");
	m.endpoint = "https://acme-agents.net/mcp";
	refused(HOLON_MAY, &m, "endpoint", NULL, "acme-agents.net:443/https");
}

static void
holon_ordered_values(void **state)
{
	ps_manifest m = holon();

	(void)state;
	m.retention = "P1D";
	passes(HOLON_MAY, &m);
	m.retention = "PT12H";
	passes(HOLON_MAY, &m);
	m.retention = "P1W";
	passes(HOLON_MAY, &m);
	m.retention = "P8D";
	refused(HOLON_MAY, &m, "retention", "at most P7D", "P8D");
	m.retention = "P1M";                     /* 30 days */
	refused(HOLON_MAY, &m, "retention", NULL, "P1M");
	m = holon();
	m.timeout_s = 121;
	refused(HOLON_MAY, &m, "timeout_s", "at most 120", "121");
	m = holon();
	m.price_worst_case = "0.06 USD";
	m.price_worst_amount = 0.06;
	refused(HOLON_MAY, &m, "price", "at most 0.05 USD", "0.06 USD");
	m.price_worst_case = "0.02 EUR";
	m.price_worst_amount = 0.02;
	m.price_currency = "EUR";
	refused(HOLON_MAY, &m, "price", "at most 0.05 USD", "0.02 EUR");
	m.price_worst_amount = 0;                /* free: any currency */
	passes(HOLON_MAY, &m);
}

static void
holon_block_denies_what_it_leaves_out(void **state)
{
	ps_manifest m = holon();

	(void)state;
	/* the brief's two keys alone refuse the example holon: its
	 * capability class is not listed */
	refused("    may:\n      holon: {data_egress: [api.openai.com], "
	    "training_use: false}\n", &m, "capabilities", "none",
	    "data.profile");
	refused("    may:\n      holon: {capabilities: [\"*\"], data_egress: "
	    "[\"*\"], endpoint: [\"*\"], timeout_s: 300}\n", &m, "price",
	    "0 (free packs only)", "0.02 USD");
	m.retention = "P1D";
	refused("    may:\n      holon: {capabilities: [\"*\"], data_egress: "
	    "[\"*\"]}\n", &m, "retention", "at most none", "P1D");
	/* a month is 30 days: P1M covers P30D */
	m.retention = "P30D";
	passes("    may:\n      holon: {capabilities: [\"*\"], data_egress: "
	    "[\"*\"], retention: P1M, endpoint: [\"*\"], timeout_s: 300, "
	    "price: 1 USD}\n", &m);
}

static void
autograph_allow_lists(void **state)
{
	ps_manifest m;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.format = PS_FORMAT_AUTOGRAPH;
	m.services.items = services;
	m.services.count = 1;
	m.tasks.items = tasks;
	m.tasks.count = 1;
	passes("    may:\n      autograph: {services: [web], tasks: [\"*\"]}\n",
	    &m);
	refused("    may:\n      autograph: {services: [web]}\n", &m, "tasks",
	    "none", "build");
	m.services.count = 2;
	refused("    may:\n      autograph: {services: [\"w*\"], tasks: "
	    "[build]}\n", &m, "services", "one of w*", "miner");
	m.services.count = 0;
	m.tasks.count = 0;
	passes("    may:\n      autograph: {}\n", &m);
}

/* A policy with signers a (network only), b (shell only) and c (no
 * may:). */
static ps_trust *
three_signers(void)
{
	ps_trust *p = NULL;
	char *text = NULL;
	ps_error err;

	assert_true(asprintf(&text, "version: 1\nsigners:\n"
	    "  - identity: a\n    keys:\n      - key: %s\n    packs: [\"*\"]\n"
	    "    may:\n      agentpack: {network: true}\n"
	    "  - identity: b\n    keys:\n      - key: %s\n    packs: [\"*\"]\n"
	    "    may:\n      agentpack: {shell: true}\n"
	    "  - identity: c\n    keys:\n      - key: %s\n    packs: [\"*\"]\n",
	    lines[0], lines[1], lines[2]) > 0);
	assert_int_equal(ps_trust_load(text, strlen(text), "p.yaml", &p, &err),
	    0);
	free(text);
	return p;
}

static void
no_union_across_signers(void **state)
{
	ps_manifest m = agentpack(1, 1, "none", 0, 0);
	const ps_trust_signer *signers[3];
	ps_trust *p = three_signers();
	char text[PS_ERROR_TEXT_MAX + 2 * PS_ERROR_VALUE_MAX + 64];
	ps_error err;

	(void)state;
	signers[0] = &p->signers[0];
	signers[1] = &p->signers[1];
	signers[2] = &p->signers[2];
	assert_int_equal(verify_ceiling_check(&m, signers, 2, "x.tar.gz", &err),
	    -1);
	assert_string_equal(err.code, "permission_exceeds_policy");
	assert_int_equal(err.status, PS_STATUS_REFUSED);
	ps_error_format(&err, text, sizeof(text));
	assert_string_equal(text, "x.tar.gz: compared the pack's permissions "
	    "with the ceilings of its signers (a, b): shell: expected false "
	    "(the ceiling of a), found true; network: expected false (the "
	    "ceiling of b), found true [permission_exceeds_policy]");
	/* each alone covers its half */
	m = agentpack(1, 0, "none", 0, 0);
	assert_int_equal(verify_ceiling_check(&m, signers, 2, "x", &err), 0);
	m = agentpack(1, 1, "none", 0, 0);
	/* a counted signer without may: lifts every ceiling */
	assert_int_equal(verify_ceiling_check(&m, signers, 3, "x", &err), 0);
	assert_int_equal(verify_ceiling_check(&m, signers + 2, 1, "x", &err),
	    0);
	ps_trust_free(p);
}

static void
one_signer_refusal_line(void **state)
{
	ps_manifest m = agentpack(1, 0, "workspace", 0, 0);
	ps_trust *p = policy(AGENTPACK_MAY);
	const ps_trust_signer *s = &p->signers[0];
	char text[PS_ERROR_TEXT_MAX + 2 * PS_ERROR_VALUE_MAX + 64];
	ps_error err;

	(void)state;
	assert_int_equal(verify_ceiling_check(&m, &s, 1, "pack.tar.gz", &err),
	    -1);
	ps_error_format(&err, text, sizeof(text));
	assert_string_equal(text, "pack.tar.gz: compared the pack's "
	    "permissions with the ceilings of its signers (community): "
	    "network: expected false (the ceiling of community), found true "
	    "[permission_exceeds_policy]");
	assert_string_equal(err.expected, "false (the ceiling of community)");
	assert_string_equal(err.found, "true");
	assert_int_equal(verify_ceiling_check(&m, &s, 0, "pack.tar.gz", &err),
	    -1);
	assert_string_equal(err.code, "permission_exceeds_policy");
	ps_trust_free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(agentpack_booleans_and_file_write),
		cmocka_unit_test(format_without_block_is_refused),
		cmocka_unit_test(soyapack_wildcard_hosts),
		cmocka_unit_test(soyapack_ports_and_protocols),
		cmocka_unit_test(soyapack_egress_refusal_names_the_host),
		cmocka_unit_test(soyapack_fs_prefixes_by_component),
		cmocka_unit_test(soyapack_tiers_are_ordered),
		cmocka_unit_test(holon_lists_and_booleans),
		cmocka_unit_test(holon_ordered_values),
		cmocka_unit_test(holon_block_denies_what_it_leaves_out),
		cmocka_unit_test(autograph_allow_lists),
		cmocka_unit_test(no_union_across_signers),
		cmocka_unit_test(one_signer_refusal_line),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
