/* Unit tests: keys/trust.c and keys/timeglob.c (policies, times, globs). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys/keys.h"

static ps_pubkey *keys[3];
static char *lines[3];   /* minisign base64 lines */
static char *ssh[3];     /* ssh-ed25519 lines */

static int
setup(void **state)
{
	ps_seckey *sk = NULL;
	ps_error err;
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		if (ps_seckey_generate(&sk, &err) != 0 ||
		    ps_seckey_public(sk, &keys[i], &err) != 0 ||
		    ps_pubkey_format_base64(keys[i], &lines[i], &err) != 0 ||
		    ps_pubkey_format_ssh(keys[i], NULL, &ssh[i], &err) != 0)
			return -1;
		ssh[i][strcspn(ssh[i], "\n")] = '\0';
		ps_seckey_free(sk);
	}
	return 0;
}

static int
teardown(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		ps_pubkey_free(keys[i]);
		free(lines[i]);
		free(ssh[i]);
	}
	return 0;
}

static int64_t
at(const char *text)
{
	int64_t t = 0;

	assert_int_equal(ps_time_parse(text, &t), 0);
	return t;
}

static void
times_parse_strictly(void **state)
{
	char out[PS_TIME_TEXT_LEN];
	int64_t t;

	(void)state;
	assert_int_equal(at("1970-01-01T00:00:00Z"), 0);
	assert_int_equal(at("2026-01-01T00:00:00Z"), 1767225600);
	assert_int_equal(at("2024-02-29T12:00:00z"), 1709208000);
	assert_int_equal(at("1969-12-31T23:59:59Z"), -1);
	assert_int_equal(ps_time_parse("2023-02-29T00:00:00Z", &t), -1);
	assert_int_equal(ps_time_parse("2026-01-01T00:00:00+01:00", &t), -1);
	assert_int_equal(ps_time_parse("2026-01-01T00:00:00", &t), -1);
	assert_int_equal(ps_time_parse("2026-01-01 00:00:00Z", &t), -1);
	assert_int_equal(ps_time_parse("2026-01-01T24:00:00Z", &t), -1);
	assert_int_equal(ps_time_parse("2026-12-31T23:59:60Z", &t), -1);
	assert_int_equal(ps_time_parse("2026-13-01T00:00:00Z", &t), -1);
	assert_int_equal(ps_time_parse("2026-1-01T00:00:00Z", &t), -1);
	assert_int_equal(ps_time_parse("+026-01-01T00:00:00Z", &t), -1);
	assert_int_equal(ps_time_format(1709208000, out), 0);
	assert_string_equal(out, "2024-02-29T12:00:00Z");
	assert_int_equal(ps_time_format(-1, out), 0);
	assert_string_equal(out, "1969-12-31T23:59:59Z");
	assert_int_equal(ps_time_format(at("9999-12-31T23:59:59Z") + 1, out), -1);
}

static void
globs_are_anchored(void **state)
{
	(void)state;
	assert_true(ps_glob_match("research.*", "research.top-journal"));
	assert_true(ps_glob_match("research.*", "research."));
	assert_false(ps_glob_match("research.*", "evil.research.x"));
	assert_false(ps_glob_match("research.*", "research"));
	assert_false(ps_glob_match("research", "research-extra"));
	assert_false(ps_glob_match("research", "xresearch"));
	assert_true(ps_glob_match("acme/*", "acme/a/b"));   /* '*' spans '/' */
	assert_true(ps_glob_match("*", ""));
	assert_true(ps_glob_match("a?c", "abc"));
	assert_false(ps_glob_match("a?c", "ac"));
	assert_true(ps_glob_match("a*b*c", "axxbyybzc"));
	assert_false(ps_glob_match("a*b*c", "axxbyyb"));
	assert_true(ps_glob_match("*.pdf-*", "holon.pdf-profile"));
}

static int
load(const char *yaml, ps_trust **policy, ps_error *err)
{
	return ps_trust_load(yaml, strlen(yaml), "p.yaml", policy, err);
}

/* A two-signer policy; `extra` is appended (top-level fields). */
static char *
policy_text(const char *extra)
{
	char *text = NULL;

	assert_true(asprintf(&text,
	    "version: 1\n"
	    "signers:\n"
	    "  - identity: alice\n"
	    "    keys:\n"
	    "      - key: %s\n"
	    "      - key: %s alice@laptop\n"
	    "        not_before: 2026-01-01T00:00:00Z\n"
	    "        not_after: 2027-12-31T23:59:59Z\n"
	    "    packs: [\"research.*\", \"acme/*\"]\n"
	    "    first_party: true\n"
	    "  - identity: bob\n"
	    "    keys:\n"
	    "      - key: %s\n"
	    "    packs: [\"*\"]\n"
	    "revoked:\n"
	    "  - key: %s\n"
	    "    reason: laptop lost\n"
	    "%s", lines[0], ssh[1], lines[2], lines[2], extra) > 0);
	return text;
}

static void
lookup_answers_and_refusals(void **state)
{
	const ps_trust_signer *s = NULL;
	char *text = policy_text("threshold: 2\n");
	ps_trust *p = NULL;
	ps_error err;
	int64_t now = at("2026-06-01T00:00:00Z");

	(void)state;
	assert_int_equal(load(text, &p, &err), 0);
	assert_int_equal(p->threshold, 2);
	assert_int_equal(p->signer_count, 2);
	assert_int_equal(ps_trust_lookup(p, keys[0], "research.x", now, &s,
	    &err), 0);
	assert_string_equal(s->identity, "alice");
	assert_true(s->first_party);
	assert_int_equal(ps_trust_lookup(p, keys[1], "acme/tool", now, &s,
	    &err), 0);
	assert_string_equal(s->identity, "alice");
	/* windows are inclusive at both ends */
	assert_int_equal(ps_trust_lookup(p, keys[1], "acme/t",
	    at("2027-12-31T23:59:59Z"), &s, &err), 0);
	assert_int_equal(ps_trust_lookup(p, keys[1], "acme/t",
	    at("2026-01-01T00:00:00Z"), &s, &err), 0);
	assert_int_equal(ps_trust_lookup(p, keys[1], "acme/t",
	    at("2028-01-01T00:00:00Z"), &s, &err), -1);
	assert_string_equal(err.code, "key_expired");
	assert_int_equal(err.status, PS_STATUS_REFUSED);
	assert_string_equal(err.expected, "2027-12-31T23:59:59Z");
	assert_int_equal(ps_trust_lookup(p, keys[1], "acme/t",
	    at("2025-12-31T23:59:59Z"), &s, &err), -1);
	assert_string_equal(err.code, "key_not_yet_valid");
	assert_null(s);
	/* scope: whole-string match */
	assert_int_equal(ps_trust_lookup(p, keys[0], "evil.research.x", now,
	    &s, &err), -1);
	assert_string_equal(err.code, "pack_out_of_scope");
	assert_string_equal(err.expected, "research.* or acme/*");
	assert_string_equal(err.found, "evil.research.x");
	/* revocation is absolute: bob's only key is also revoked */
	assert_int_equal(ps_trust_lookup(p, keys[2], "anything", now, &s,
	    &err), -1);
	assert_string_equal(err.code, "key_revoked");
	assert_non_null(strstr(err.message, "laptop lost"));
	ps_trust_free(p);
	free(text);
}

static void
unknown_key_is_untrusted(void **state)
{
	const ps_trust_signer *s = NULL;
	ps_trust *p = NULL;
	ps_pubkey *other = NULL;
	char *text = policy_text("");
	ps_error err;

	(void)state;
	assert_int_equal(load(text, &p, &err), 0);
	assert_int_equal(ps_pubkey_copy(keys[0], &other, &err), 0);
	other->key[0] ^= 1;   /* same key id, another key */
	assert_int_equal(ps_trust_lookup(p, other, "research.x", 0, &s, &err),
	    -1);
	assert_string_equal(err.code, "key_untrusted");
	assert_int_equal(err.status, PS_STATUS_REFUSED);
	assert_non_null(strstr(err.found, "SHA256:"));
	ps_pubkey_free(other);
	ps_trust_free(p);
	free(text);
}

static void
one_key_policy(void **state)
{
	const ps_trust_signer *s = NULL;
	ps_pubkey *k = NULL;
	ps_trust *p = NULL;
	char hex[PS_KEY_ID_HEX_LEN + 1];
	ps_error err;

	(void)state;
	assert_int_equal(ps_trust_from_pubkey(keys[0], "a.pub", &p, &err), 0);
	ps_key_id_hex(keys[0]->key_id, hex);
	assert_int_equal(ps_trust_lookup(p, keys[0], "any/pack", 0, &s, &err),
	    0);
	assert_string_equal(s->identity, hex);
	assert_int_equal(ps_trust_lookup(p, keys[1], "any/pack", 0, &s, &err),
	    -1);
	assert_string_equal(err.code, "key_untrusted");
	ps_trust_free(p);
	assert_int_equal(ps_pubkey_copy(keys[0], &k, &err), 0);
	assert_int_equal(ps_pubkey_set_identity(k, "carol", &err), 0);
	assert_int_equal(ps_trust_from_pubkey(k, "c.pub", &p, &err), 0);
	assert_int_equal(ps_trust_lookup(p, keys[0], "x", 0, &s, &err), 0);
	assert_string_equal(s->identity, "carol");
	ps_trust_free(p);
	ps_pubkey_free(k);
}

/* Expects the policy refused with `code`, exit 2, at `subject` if given. */
static void
refused(const char *yaml, const char *code, const char *subject)
{
	ps_trust *p = NULL;
	ps_error err;

	assert_int_equal(load(yaml, &p, &err), -1);
	assert_null(p);
	if (strcmp(err.code, code) != 0)
		fail_msg("expected %s, got %s: %s: %s", code, err.code,
		    err.subject, err.message);
	assert_int_equal(err.status, PS_STATUS_FAILED);
	if (subject != NULL)
		assert_string_equal(err.subject, subject);
}

/* One signer `alice` with key 0; `key_extra` goes under the key entry,
 * `signer_extra` under the signer, `top_extra` at the end. */
static char *
one_signer(const char *key_extra, const char *signer_extra,
    const char *top_extra)
{
	char *text = NULL;

	assert_true(asprintf(&text,
	    "version: 1\n"
	    "signers:\n"
	    "  - identity: alice\n"
	    "    keys:\n"
	    "      - key: %s\n"
	    "%s"
	    "    packs: [\"*\"]\n"
	    "%s"
	    "%s", lines[0], key_extra, signer_extra, top_extra) > 0);
	return text;
}

static void
refused_one(const char *key_extra, const char *signer_extra,
    const char *top_extra, const char *code, const char *subject)
{
	char *text = one_signer(key_extra, signer_extra, top_extra);

	refused(text, code, subject);
	free(text);
}

static void
policy_field_errors(void **state)
{
	(void)state;
	refused("version: 2\nsigners: []\n", "trust_version", "p.yaml:1:10");
	refused("version: \"1\"\nsigners: []\n", "trust_version", "p.yaml:1:10");
	refused("signers: []\n", "trust_missing_field", "p.yaml:1:1");
	refused("", "trust_missing_field", NULL);
	refused("- 1\n", "trust_type", "p.yaml:1:1");
	refused("version: 1\nsigners: {}\n", "trust_type", "p.yaml:2:10");
	refused("version: 1\nsigners: []\n", "trust_missing_field",
	    "p.yaml:2:10");
	refused("version: 1\nsigners: [\n", "yaml_syntax", NULL);
	refused_one("", "", "extra: 1\n", "trust_unknown_field", "p.yaml:7:1");
	refused_one("", "    email: a@b\n", "", "trust_unknown_field",
	    "p.yaml:7:5");
	refused_one("        expires: 2026-01-01T00:00:00Z\n", "", "",
	    "trust_unknown_field", "p.yaml:6:9");
	refused_one("", "    first_party: yes\n", "", "trust_type",
	    "p.yaml:7:18");
	refused_one("", "", "threshold: 0\n", "trust_threshold", "p.yaml:7:12");
	refused_one("", "", "threshold: 2\n", "trust_threshold", "p.yaml:7:12");
	refused_one("", "", "revoked:\n  - key: RWQ\n", "trust_key",
	    "p.yaml:8:10");
	refused_one("", "", "revoked:\n  - reason: x\n", "trust_missing_field",
	    "p.yaml:8:5");
	refused_one("", "", "revoked:\n  - key: x\n    why: x\n",
	    "trust_unknown_field", "p.yaml:9:5");
	refused("version: 1\nsigners:\n  - identity: al ice\n    keys: []\n"
	    "    packs: [\"*\"]\n", "trust_identity", "p.yaml:3:15");
	refused("version: 1\nsigners:\n  - identity: a\n    keys: []\n"
	    "    packs: [\"*\"]\n", "trust_missing_field", "p.yaml:4:11");
	refused("version: 1\nsigners:\n  - identity: a\n    packs: [\"*\"]\n",
	    "trust_missing_field", "p.yaml:3:5");
}

static void
policy_key_and_date_errors(void **state)
{
	(void)state;
	refused("version: 1\nsigners:\n  - identity: a\n    keys:\n"
	    "      - key: RWQnotakey\n    packs: [\"*\"]\n", "trust_key",
	    "p.yaml:5:14");
	refused("version: 1\nsigners:\n  - identity: a\n    keys:\n"
	    "      - key: ssh-rsa AAAAB3NzaC1yc2E x\n    packs: [\"*\"]\n",
	    "trust_key", "p.yaml:5:14");
	refused("version: 1\nsigners:\n  - identity: a\n    keys:\n"
	    "      - RWQ\n    packs: [\"*\"]\n", "trust_type", "p.yaml:5:9");
	refused_one("        not_before: 2026-01-01\n", "", "", "trust_date",
	    "p.yaml:6:21");
	refused_one("        not_after: 2026-01-01T00:00:00+01:00\n", "", "",
	    "trust_date", "p.yaml:6:20");
	refused_one("        not_after: 5\n", "", "", "trust_date",
	    "p.yaml:6:20");
	refused_one("        not_before: 2027-01-01T00:00:00Z\n"
	    "        not_after: 2026-01-01T00:00:00Z\n", "", "", "trust_window",
	    "p.yaml:7:20");
}

static void
policy_pattern_errors(void **state)
{
	char *text = NULL;

	(void)state;
	assert_true(asprintf(&text, "version: 1\nsigners:\n  - identity: a\n"
	    "    keys:\n      - key: %s\n    packs: [\"[ab]*\"]\n", lines[0]) > 0);
	refused(text, "trust_pattern", "p.yaml:6:13");
	free(text);
	assert_true(asprintf(&text, "version: 1\nsigners:\n  - identity: a\n"
	    "    keys:\n      - key: %s\n    packs: []\n", lines[0]) > 0);
	refused(text, "trust_missing_field", "p.yaml:6:12");
	free(text);
	assert_true(asprintf(&text, "version: 1\nsigners:\n  - identity: a\n"
	    "    keys:\n      - key: %s\n    packs: [\"a b\"]\n", lines[0]) > 0);
	refused(text, "trust_pattern", "p.yaml:6:13");
	free(text);
}

static void
policy_duplicates(void **state)
{
	char *text = NULL;

	(void)state;
	/* the same key under two identities, once as an ssh line */
	assert_true(asprintf(&text, "version: 1\nsigners:\n"
	    "  - identity: a\n    keys:\n      - key: %s\n    packs: [\"*\"]\n"
	    "  - identity: b\n    keys:\n      - key: %s\n    packs: [\"*\"]\n",
	    lines[0], ssh[0]) > 0);
	refused(text, "trust_duplicate_key", "p.yaml:9:14");
	free(text);
	assert_true(asprintf(&text, "version: 1\nsigners:\n"
	    "  - identity: a\n    keys:\n      - key: %s\n      - key: %s\n"
	    "    packs: [\"*\"]\n", lines[0], lines[0]) > 0);
	refused(text, "trust_duplicate_key", "p.yaml:6:14");
	free(text);
	assert_true(asprintf(&text, "version: 1\nsigners:\n"
	    "  - identity: a\n    keys:\n      - key: %s\n    packs: [\"*\"]\n"
	    "  - identity: a\n    keys:\n      - key: %s\n    packs: [\"*\"]\n",
	    lines[0], lines[1]) > 0);
	refused(text, "trust_duplicate_identity", "p.yaml:7:15");
	free(text);
}

static void
pem_key_in_block_scalar(void **state)
{
	char *pem = NULL, *text = NULL, *indented, *o;
	const char *c;
	ps_trust *p = NULL;
	ps_error err;

	(void)state;
	assert_int_equal(ps_pubkey_format_pem(keys[0], &pem, &err), 0);
	indented = o = calloc(1, strlen(pem) * 2 + 16);
	for (c = pem; *c != '\0'; c++) {
		if (c == pem || c[-1] == '\n')
			o += sprintf(o, "%s", *c != '\0' ? "          " : "");
		*o++ = *c;
	}
	assert_true(asprintf(&text, "version: 1\nsigners:\n  - identity: a\n"
	    "    keys:\n      - key: |\n%s    packs: [\"*\"]\n", indented) > 0);
	assert_int_equal(load(text, &p, &err), 0);
	assert_true(ps_pubkey_equal(p->signers[0].keys[0].key, keys[0]));
	assert_int_equal(p->signers[0].keys[0].key->source, PS_KEY_SOURCE_PEM);
	ps_trust_free(p);
	free(text);
	free(indented);
	free(pem);
}


/* The `may:` of test_ceiling's policies, read back as parsed: what a
 * block leaves out is written down as denied. */
static void
ceilings_parse_with_denials_filled_in(void **state)
{
	char *text = one_signer("", "    may:\n"
	    "      agentpack: {network: true}\n"
	    "      soyapack:\n"
	    "        egress: [\"API.openai.com:443/HTTPS\", \"*.example.org\"]\n"
	    "        fs_write: [\"/workdir//out/\"]\n"
	    "        determinism_tier: side-effect\n"
	    "      holon: {price: 0.05 USD, retention: P7D, timeout_s: 60}\n",
	    "consent: [code, permissions]\n");
	const ps_ceiling *c;
	ps_trust *p = NULL;
	ps_error err;

	(void)state;
	assert_int_equal(load(text, &p, &err), 0);
	c = p->signers[0].may;
	assert_non_null(c);
	assert_int_equal(c->line, 8);   /* the mapping's first key */
	assert_true(c->agentpack.declared);
	assert_true(c->agentpack.network);
	assert_false(c->agentpack.shell);
	assert_string_equal(c->agentpack.file_write, "none");
	assert_true(c->soyapack.declared);
	assert_int_equal(c->soyapack.egress_count, 2);
	assert_string_equal(c->soyapack.egress[0].host, "api.openai.com");
	assert_int_equal(c->soyapack.egress[0].port, 443);
	assert_string_equal(c->soyapack.egress[0].protocol, "https");
	assert_string_equal(c->soyapack.egress[1].host, "*.example.org");
	assert_int_equal(c->soyapack.egress[1].port, 0);
	assert_null(c->soyapack.egress[1].protocol);
	assert_string_equal(c->soyapack.fs_write.items[0], "/workdir/out");
	assert_int_equal(c->soyapack.fs_read.count, 0);
	assert_int_equal(c->soyapack.determinism_tiers.count, 2);
	assert_string_equal(c->soyapack.determinism_tiers.items[1],
	    "side-effect");
	assert_true(c->holon.declared);
	assert_string_equal(c->holon.retention, "P7D");
	assert_int_equal(c->holon.timeout_s, 60);
	assert_string_equal(c->holon.price_currency, "USD");
	assert_true(c->holon.price_max == 0.05);
	assert_false(c->autograph.declared);
	assert_int_equal(p->consent, PS_CONSENT_DEFAULT | PS_CONSENT_CODE);
	ps_trust_free(p);
	free(text);
	/* no may: no ceiling; no consent: the default */
	text = one_signer("", "", "");
	assert_int_equal(load(text, &p, &err), 0);
	assert_null(p->signers[0].may);
	assert_int_equal(p->consent, PS_CONSENT_DEFAULT);
	ps_trust_free(p);
	free(text);
	text = one_signer("", "    may:\n      soyapack: {}\n", "consent: []\n");
	assert_int_equal(load(text, &p, &err), 0);
	c = p->signers[0].may;
	assert_string_equal(c->soyapack.determinism_tiers.items[0], "read-only");
	assert_int_equal(c->soyapack.determinism_tiers.count, 1);
	/* consent: [] asks what the default asks: classes are only added */
	assert_int_equal(p->consent, PS_CONSENT_DEFAULT);
	ps_trust_free(p);
	free(text);
}

/* One signer's `may:` of one line (line 8 of the policy). */
static void
refused_may(const char *block, const char *code, const char *subject)
{
	char *may = NULL;

	assert_true(asprintf(&may, "    may:\n      %s\n", block) > 0);
	refused_one("", may, "", code, subject);
	free(may);
}

static void
ceiling_errors_name_their_position(void **state)
{
	(void)state;
	refused_one("", "    may: []\n", "", "trust_type", "p.yaml:7:10");
	refused_one("", "    may:\n", "", "trust_type", "p.yaml:7:9");
	refused_may("agentpack: {network: false, sudo: false}",
	    "trust_unknown_field", "p.yaml:8:35");
	refused_may("flatpak: {}", "trust_unknown_field", "p.yaml:8:7");
	refused_may("agentpack: [network]", "trust_type", "p.yaml:8:18");
	refused_may("agentpack: {network: yes}", "trust_type", "p.yaml:8:28");
	refused_may("agentpack: {file_write: any}", "trust_ceiling",
	    "p.yaml:8:31");
	refused_may("soyapack: {egress: \"a..b\"}", "trust_type",
	    "p.yaml:8:26");
	refused_may("soyapack: {egress: [\"a..b\"]}", "trust_pattern",
	    "p.yaml:8:27");
	refused_may("soyapack: {egress: [\"*.example.org:0\"]}", "trust_pattern",
	    "p.yaml:8:27");
	refused_may("soyapack: {egress: [\"x.org:443/\"]}", "trust_pattern",
	    "p.yaml:8:27");
	refused_may("soyapack: {egress: [\"http://x.org\"]}", "trust_pattern",
	    "p.yaml:8:27");
	refused_may("soyapack: {egress: [\"a.*.org\"]}", "trust_pattern",
	    "p.yaml:8:27");
	refused_may("soyapack: {fs_write: [workdir/out]}", "trust_pattern",
	    "p.yaml:8:29");
	refused_may("soyapack: {fs_read: [/a/../b]}", "trust_pattern",
	    "p.yaml:8:28");
	refused_may("soyapack: {determinism_tier: cached}", "trust_ceiling",
	    "p.yaml:8:36");
	refused_may("soyapack: {determinism_tier: [read-only, 3]}", "trust_type",
	    "p.yaml:8:48");
	refused_may("holon: {data_egress: [\"api.openai.com:443\"]}",
	    "trust_pattern", "p.yaml:8:29");
	refused_may("holon: {retention: 7 days}", "trust_ceiling", "p.yaml:8:26");
	refused_may("holon: {timeout_s: -1}", "trust_ceiling", "p.yaml:8:26");
	refused_may("holon: {timeout_s: \"60\"}", "trust_type", "p.yaml:8:26");
	refused_may("holon: {price: 5}", "trust_type", "p.yaml:8:22");
	refused_may("holon: {price: 5 usd}", "trust_ceiling", "p.yaml:8:22");
	refused_may("holon: {price: -1 USD}", "trust_ceiling", "p.yaml:8:22");
	refused_may("holon: {capabilities: [\"data profile\"]}", "trust_pattern",
	    "p.yaml:8:30");
	refused_may("autograph: {services: web}", "trust_type", "p.yaml:8:29");
	refused_one("", "", "consent: [permissions, telemetry]\n",
	    "trust_consent", "p.yaml:7:24");
	refused_one("", "", "consent: permissions\n", "trust_type",
	    "p.yaml:7:10");
}

/* Three publishers: pack only (roles absent), index only with a floor,
 * both; key 1 of rel-index has a window ending in 2027. */
static char *
roles_policy(void)
{
	char *text = NULL;

	assert_true(asprintf(&text,
	    "version: 1\n"
	    "signers:\n"
	    "  - identity: packer\n"
	    "    keys:\n"
	    "      - key: %s\n"
	    "    packs: [\"research.*\"]\n"
	    "  - identity: rel-index\n"
	    "    keys:\n"
	    "      - key: %s\n"
	    "        not_after: 2027-12-31T23:59:59Z\n"
	    "    packs: [\"research.*\"]\n"
	    "    roles: [index]\n"
	    "    min_index_version: 9007199254740991\n"
	    "  - identity: both\n"
	    "    keys:\n"
	    "      - key: %s\n"
	    "    packs: [\"acme/*\"]\n"
	    "    roles: [index, pack]\n"
	    "    min_index_version: 42\n", lines[0], lines[1], lines[2]) > 0);
	return text;
}

static void
roles_parse_with_default_pack(void **state)
{
	char *text = roles_policy();
	ps_trust *p = NULL;
	ps_error err;

	(void)state;
	assert_int_equal(load(text, &p, &err), 0);
	assert_int_equal(p->signers[0].roles, PS_ROLE_PACK);
	assert_int_equal(p->signers[0].min_index_version, 0);
	assert_int_equal(p->signers[1].roles, PS_ROLE_INDEX);
	assert_true(p->signers[1].min_index_version == PS_INDEX_VERSION_MAX);
	assert_int_equal(p->signers[2].roles, PS_ROLE_PACK | PS_ROLE_INDEX);
	assert_true(p->signers[2].min_index_version == 42);
	ps_trust_free(p);
	free(text);
	assert_int_equal(ps_trust_from_pubkey(keys[0], "a.pub", &p, &err), 0);
	assert_int_equal(p->signers[0].roles, PS_ROLE_PACK | PS_ROLE_INDEX);
	assert_true(p->signers[0].min_index_version == 0);
	ps_trust_free(p);
}

static void
expect_role_missing(const ps_error *err, const char *message_part)
{
	assert_string_equal(err->code, PS_CODE_ROLE_MISSING);
	assert_int_equal(err->status, PS_STATUS_REFUSED);
	if (strstr(err->message, message_part) == NULL)
		fail_msg("'%s' not in '%s'", message_part, err->message);
}

static void
lookups_need_their_role(void **state)
{
	const ps_trust_signer *s = NULL;
	int64_t now = at("2026-06-01T00:00:00Z");
	char *text = roles_policy();
	ps_trust *p = NULL;
	ps_error err;

	(void)state;
	assert_int_equal(load(text, &p, &err), 0);
	assert_int_equal(ps_trust_lookup(p, keys[0], "research.x", now, &s,
	    &err), 0);
	assert_string_equal(s->identity, "packer");
	assert_int_equal(ps_trust_lookup_index(p, keys[0], now, &s, &err), -1);
	assert_null(s);
	expect_role_missing(&err, "belongs to 'packer', whose roles are "
	    "[pack]: it may not sign an index");
	/* role_missing comes before pack_out_of_scope */
	assert_int_equal(ps_trust_lookup(p, keys[1], "other", now, &s, &err),
	    -1);
	assert_null(s);
	expect_role_missing(&err, "belongs to 'rel-index', whose roles are "
	    "[index]: it may not sign packs");
	assert_non_null(strstr(err.message, "SHA256:"));
	assert_string_equal(err.expected, "the pack role");
	assert_string_equal(err.found, "[index]");
	/* an index has no pack scope */
	assert_int_equal(ps_trust_lookup_index(p, keys[1], now, &s, &err), 0);
	assert_string_equal(s->identity, "rel-index");
	/* the window is judged before the role */
	assert_int_equal(ps_trust_lookup(p, keys[1], "research.x",
	    at("2028-01-01T00:00:00Z"), &s, &err), -1);
	assert_string_equal(err.code, "key_expired");
	assert_int_equal(ps_trust_lookup_index(p, keys[1],
	    at("2028-01-01T00:00:00Z"), &s, &err), -1);
	assert_string_equal(err.code, "key_expired");
	assert_int_equal(ps_trust_lookup(p, keys[2], "acme/x", now, &s, &err),
	    0);
	assert_string_equal(s->identity, "both");
	assert_int_equal(ps_trust_lookup(p, keys[2], "research.x", now, &s,
	    &err), -1);
	assert_string_equal(err.code, "pack_out_of_scope");
	assert_int_equal(ps_trust_lookup_index(p, keys[2], now, &s, &err), 0);
	assert_true(s->min_index_version == 42);
	ps_trust_free(p);
	free(text);
}

static void
index_lookup_checks_keys_first(void **state)
{
	const ps_trust_signer *s = NULL;
	ps_pubkey *other = NULL;
	char *text = policy_text("");
	ps_trust *p = NULL;
	ps_error err;

	(void)state;
	assert_int_equal(load(text, &p, &err), 0);
	assert_int_equal(ps_trust_lookup_index(p, keys[2], 0, &s, &err), -1);
	assert_string_equal(err.code, "key_revoked");
	assert_int_equal(ps_trust_lookup_index(p, keys[1],
	    at("2025-01-01T00:00:00Z"), &s, &err), -1);
	assert_string_equal(err.code, "key_not_yet_valid");
	assert_int_equal(ps_pubkey_copy(keys[0], &other, &err), 0);
	other->key[0] ^= 1;
	assert_int_equal(ps_trust_lookup_index(p, other, 0, &s, &err), -1);
	assert_string_equal(err.code, "key_untrusted");
	assert_int_equal(ps_trust_lookup_index(p, keys[0], 0, &s, &err), -1);
	expect_role_missing(&err, "whose roles are [pack]");
	ps_pubkey_free(other);
	ps_trust_free(p);
	ps_trust_free(NULL);
	free(text);
	assert_int_equal(ps_trust_from_pubkey(keys[0], "a.pub", &p, &err), 0);
	assert_int_equal(ps_trust_lookup_index(p, keys[0], 0, &s, &err), 0);
	ps_trust_free(p);
}

/* Roles refusals: signer_extra starts at line 7, column 5. */
static void
role_errors_name_their_position(void **state)
{
	(void)state;
	refused_one("", "    roles: []\n", "", "trust_role", "p.yaml:7:12");
	refused_one("", "    roles: pack\n", "", "trust_role", "p.yaml:7:12");
	refused_one("", "    roles: {pack: true}\n", "", "trust_role",
	    "p.yaml:7:12");
	refused_one("", "    roles:\n", "", "trust_role", "p.yaml:7:11");
	refused_one("", "    roles: [pack, pack]\n", "", "trust_role",
	    "p.yaml:7:19");
	refused_one("", "    roles: [index, publish]\n", "", "trust_role",
	    "p.yaml:7:20");
	refused_one("", "    roles: [Pack]\n", "", "trust_role", "p.yaml:7:13");
	refused_one("", "    roles: [1]\n", "", "trust_role", "p.yaml:7:13");
	refused_one("", "    roles: [[pack]]\n", "", "trust_role",
	    "p.yaml:7:13");
	refused_one("", "    roles: [\"\"]\n", "", "trust_role", "p.yaml:7:13");
	refused_one("", "    role: [index]\n", "", "trust_unknown_field",
	    "p.yaml:7:5");
}

static void
min_index_version_rules(void **state)
{
	static const char *const bad[] = { "0", "-1", "1.5", "\"5\"", "'7'",
	    "0x10", "+5", "9223372036854775808", "9007199254740992", "1e3", "true", "[1]", "",
	    "seven", "00" };
	char extra[128];
	size_t i;

	(void)state;
	/* only with the index role, wherever the field is */
	refused_one("", "    min_index_version: 5\n", "", "trust_role",
	    "p.yaml:7:24");
	refused_one("", "    min_index_version: 5\n    roles: [pack]\n", "",
	    "trust_role", "p.yaml:7:24");
	refused_one("", "    roles: [pack]\n    min_index_version: 0\n", "",
	    "trust_type", "p.yaml:8:24");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(extra, sizeof(extra), "    roles: [index]\n"
		    "    min_index_version: %s\n", bad[i]);
		refused_one("", extra, "", "trust_type", bad[i][0] != '\0' ?
		    "p.yaml:8:24" : "p.yaml:8:23");
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(times_parse_strictly),
		cmocka_unit_test(globs_are_anchored),
		cmocka_unit_test(lookup_answers_and_refusals),
		cmocka_unit_test(unknown_key_is_untrusted),
		cmocka_unit_test(one_key_policy),
		cmocka_unit_test(policy_field_errors),
		cmocka_unit_test(policy_key_and_date_errors),
		cmocka_unit_test(policy_pattern_errors),
		cmocka_unit_test(policy_duplicates),
		cmocka_unit_test(pem_key_in_block_scalar),
		cmocka_unit_test(ceilings_parse_with_denials_filled_in),
		cmocka_unit_test(ceiling_errors_name_their_position),
		cmocka_unit_test(roles_parse_with_default_pack),
		cmocka_unit_test(lookups_need_their_role),
		cmocka_unit_test(index_lookup_checks_keys_first),
		cmocka_unit_test(role_errors_name_their_position),
		cmocka_unit_test(min_index_version_rules),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
