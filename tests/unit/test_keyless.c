/* Unit tests: keys/keyless.c, keys/keylesspattern.c, keys/keylessid.c
 * (keyless signers in a trust policy, their patterns and signer ids). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys/keyless.h"
#include "keys/keylesspattern.h"

#define GH "https://token.actions.githubusercontent.com"
#define REL "https://github.com/acme/packs/.github/workflows/release.yml"

static void
patterns_match_whole_strings(void **state)
{
	(void)state;
	assert_true(keys_keyless_match(REL "@refs/tags/v*",
	    REL "@refs/tags/v1.2.0"));
	assert_false(keys_keyless_match(REL "@refs/tags/v*",
	    REL "@refs/tags/v"));               /* one or more */
	assert_false(keys_keyless_match(REL "@refs/tags/v*",
	    REL "@refs/tags/v1/evil"));         /* never a '/' */
	assert_false(keys_keyless_match(REL "@refs/tags/v*",
	    REL "@refs/heads/v1"));             /* a branch */
	assert_false(keys_keyless_match(REL "@refs/tags/v*",
	    "x" REL "@refs/tags/v1"));          /* anchored */
	assert_true(keys_keyless_match("a", "a"));
	assert_false(keys_keyless_match("a", "ab"));
	assert_true(keys_keyless_match("https://github.com/*/packs",
	    "https://github.com/acme/packs"));
	assert_false(keys_keyless_match("https://github.com/*/packs",
	    "https://github.com/a/b/packs"));
	assert_true(keys_keyless_match("*-*", "a-b-c"));
	assert_false(keys_keyless_match("*-*", "-b"));
	assert_true(keys_keyless_match("*a*a", "xaxaa"));
}

static void
patterns_meet(void **state)
{
	(void)state;
	assert_true(keys_keyless_meet("https://g/a/*/w", "https://g/*/b/w"));
	assert_false(keys_keyless_meet("https://g/a/*/w@refs/tags/*",
	    "https://g/a/*/w@refs/heads/*"));
	assert_false(keys_keyless_meet("a/*", "a/b/c"));
	assert_true(keys_keyless_meet("*", "x"));
	assert_false(keys_keyless_meet("*", "/"));
	assert_false(keys_keyless_meet("x*", "x"));
	assert_true(keys_keyless_meet("x*y", "*y*"));
	assert_true(keys_keyless_meet("v*", "*1"));
	assert_false(keys_keyless_meet("v*.0", "v*/1"));
	assert_true(keys_keyless_pattern_valid("a*b"));
	assert_false(keys_keyless_pattern_valid("a**b"));
	assert_false(keys_keyless_pattern_valid("a b"));
	assert_false(keys_keyless_pattern_valid(""));
}

static int
load(const char *signers, ps_trust **p, ps_error *err)
{
	char text[4096];

	snprintf(text, sizeof(text), "version: 1\nsigners:\n%s", signers);
	return ps_trust_load(text, strlen(text), "dir/p.yaml", p, err);
}

static void
entries_parse_with_every_field(void **state)
{
	ps_trust *p = NULL;
	ps_error err;
	const ps_trust_keyless *e;

	(void)state;
	assert_int_equal(load("  - identity: rel\n"
	    "    keyless:\n"
	    "      - issuer: " GH "\n"
	    "        subject: " REL "@refs/tags/v*\n"
	    "        repository: https://github.com/acme/packs\n"
	    "        repository_id: 42\n"
	    "        owner_id: \"7\"\n"
	    "        ref: refs/tags/v*\n"
	    "        signer_workflow: " REL "\n"
	    "        config_workflow: " REL "@refs/tags/*\n"
	    "        trigger: push\n"
	    "        runner: github-hosted\n"
	    "        trusted_roots: [root.json, /etc/r.json]\n"
	    "    packs: [\"acme.*\"]\n", &p, &err), 0);
	assert_int_equal(p->signers[0].key_count, 0);
	assert_int_equal(p->signers[0].keyless_count, 1);
	e = &p->signers[0].keyless[0];
	assert_string_equal(e->issuer, GH);
	assert_string_equal(e->repository_id, "42");
	assert_string_equal(e->owner_id, "7");
	assert_string_equal(e->runner, "github-hosted");
	assert_int_equal(e->trusted_root_count, 2);
	assert_string_equal(e->trusted_roots[0], "dir/root.json");
	assert_string_equal(e->trusted_roots[1], "/etc/r.json");
	assert_int_equal(p->signers[0].roles, PS_ROLE_PACK);
	ps_trust_free(p);
}

static void
refused(const char *signers, const char *code, const char *where)
{
	ps_trust *p = NULL;
	ps_error err;

	assert_int_equal(load(signers, &p, &err), -1);
	assert_null(p);
	if (strcmp(err.code, code) != 0 || strcmp(err.subject, where) != 0)
		fail_msg("expected %s at %s, got %s at %s: %s", code, where,
		    err.code, err.subject, err.message);
	assert_int_equal(err.status, PS_STATUS_FAILED);
}

#define ENTRY(extra) "  - identity: x\n    keyless:\n      - issuer: " GH \
	"\n        subject: s\n" extra "    packs: [\"*\"]\n"

static void
entry_errors(void **state)
{
	(void)state;
	refused("  - identity: x\n    packs: [\"*\"]\n", "trust_missing_field",
	    "dir/p.yaml:3:5");
	refused("  - identity: x\n    keyless: []\n    packs: [\"*\"]\n",
	    "trust_missing_field", "dir/p.yaml:4:14");
	refused("  - identity: x\n    keyless: [{issuer: " GH "}]\n"
	    "    packs: [\"*\"]\n", "trust_missing_field", "dir/p.yaml:4:15");
	refused(ENTRY("        repository_id: 01\n"), "trust_keyless",
	    "dir/p.yaml:7:24");
	refused(ENTRY("        repository_id: -1\n"), "trust_keyless",
	    "dir/p.yaml:7:24");
	refused(ENTRY("        owner_id: [1]\n"), "trust_keyless",
	    "dir/p.yaml:7:19");
	refused(ENTRY("        repository: http://github.com/a/b\n"),
	    "trust_keyless", "dir/p.yaml:7:21");
	refused(ENTRY("        ref: refs/**\n"), "trust_pattern",
	    "dir/p.yaml:7:14");
	refused(ENTRY("        runner: GitHub Hosted\n"), "trust_keyless",
	    "dir/p.yaml:7:17");
	refused(ENTRY("        trusted_roots: []\n"), "trust_keyless",
	    "dir/p.yaml:7:24");
	refused(ENTRY("        trusted_roots: [\"\"]\n"), "trust_keyless",
	    "dir/p.yaml:7:25");
	refused(ENTRY("        colour: red\n"), "trust_unknown_field",
	    "dir/p.yaml:7:9");
	refused(ENTRY("    roles: [index]\n"), "trust_role",
	    "dir/p.yaml:7:12");
	refused(ENTRY("    roles: [pack, index]\n"), "trust_role",
	    "dir/p.yaml:7:12");
}

static void
overlap_between_identities(void **state)
{
	ps_trust *p = NULL;
	ps_error err;

	(void)state;
	/* one identity's entries may overlap */
	assert_int_equal(load("  - identity: x\n    keyless:\n"
	    "      - {issuer: " GH ", subject: \"" REL "@*\"}\n"
	    "      - {issuer: " GH ", subject: \"" REL "@refs/tags/*\"}\n"
	    "    packs: [\"*\"]\n", &p, &err), 0);
	ps_trust_free(p);
	/* two identities: refused at the second */
	refused("  - identity: x\n    keyless:\n"
	    "      - {issuer: " GH ", subject: \"https://github.com/acme/*/x\"}\n"
	    "    packs: [\"*\"]\n"
	    "  - identity: y\n    keyless:\n"
	    "      - {issuer: " GH ", subject: \"https://github.com/*/packs/x\"}\n"
	    "    packs: [\"*\"]\n", "trust_keyless_overlap", "dir/p.yaml:9:9");
	/* disjoint: another issuer, repository id, ref, workflow */
	assert_int_equal(load("  - identity: x\n    keyless:\n"
	    "      - {issuer: " GH ", subject: s, repository_id: 1}\n"
	    "      - {issuer: https://gitlab.com, subject: s}\n"
	    "      - {issuer: " GH ", subject: t, signer_workflow: \"" REL "\"}\n"
	    "    packs: [\"*\"]\n"
	    "  - identity: y\n    keyless:\n"
	    "      - {issuer: " GH ", subject: s, repository_id: 2}\n"
	    "      - {issuer: " GH ", subject: t, signer_workflow: \"" REL
	    "x@*\"}\n"
	    "    packs: [\"*\"]\n", &p, &err), 0);
	ps_trust_free(p);
}

static void
signer_ids_are_stable(void **state)
{
	ps_sigstore_certificate c;
	char a[PS_FINGERPRINT_MAX], b[PS_FINGERPRINT_MAX];

	(void)state;
	memset(&c, 0, sizeof(c));
	c.issuer = (char *)GH;
	c.san = (char *)(REL "@refs/tags/v1");
	c.build_signer_uri = (char *)(REL "@refs/tags/v1");
	c.source_repository_uri = (char *)"https://github.com/acme/packs";
	c.source_repository_identifier = (char *)"42";
	assert_int_equal(ps_keyless_signer_id(&c, a), 0);
	assert_int_equal(strlen(a), PS_FINGERPRINT_MAX - 1);
	assert_memory_equal(a, "KEYLESS:", 8);
	/* another release of the same workflow: the same id */
	c.san = (char *)(REL "@refs/tags/v2");
	c.build_signer_uri = (char *)(REL "@refs/tags/v2");
	assert_int_equal(ps_keyless_signer_id(&c, b), 0);
	assert_string_equal(a, b);
	/* a re-created repository (same URI, another id): another id */
	c.source_repository_identifier = (char *)"43";
	assert_int_equal(ps_keyless_signer_id(&c, b), 0);
	assert_string_not_equal(a, b);
	/* another workflow */
	c.source_repository_identifier = (char *)"42";
	c.build_signer_uri = (char *)(REL "x@refs/tags/v2");
	assert_int_equal(ps_keyless_signer_id(&c, b), 0);
	assert_string_not_equal(a, b);
	c.issuer = NULL;
	assert_int_equal(ps_keyless_signer_id(&c, b), -1);
	assert_string_equal(b, "");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(patterns_match_whole_strings),
		cmocka_unit_test(patterns_meet),
		cmocka_unit_test(entries_parse_with_every_field),
		cmocka_unit_test(entry_errors),
		cmocka_unit_test(overlap_between_identities),
		cmocka_unit_test(signer_ids_are_stable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
