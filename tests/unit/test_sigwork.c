/*
 * Unit tests: the work a signature envelope can cause (docs/security.md,
 * section 7, "Signature checks").  Every check of an entry with a key
 * hashes the whole PAE, so a hostile .sig must cost at most 8 + (the
 * policy's keys) checks however its entries are arranged, and a genuine
 * one a check per signature.  ps_key_verify_signature() is wrapped
 * (-Wl,--wrap in the Makefile) and counted: the tests count checks, they
 * never time anything.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "index/index.h"
#include "keys/keys.h"
#include "sign/bundle.h"
#include "sign/dsse.h"
#include "sign/statement.h"

#define PACK "examples/packs/research.top-journal-reviewer"
#define KEYS 16

int __real_ps_key_verify_signature(const ps_pubkey *key, const void *msg,
    size_t len, const unsigned char *sig, size_t sig_len);

static size_t checks;

int
__wrap_ps_key_verify_signature(const ps_pubkey *key, const void *msg,
    size_t len, const unsigned char *sig, size_t sig_len)
{
	checks++;
	return __real_ps_key_verify_signature(key, msg, len, sig, sig_len);
}

struct fixture {
	char dir[64];
	char archive[128];
	char sig[160];
	ps_seckey *sk[KEYS];
	ps_pubkey *pk[KEYS];
	char fp[KEYS][PS_FINGERPRINT_MAX];
	ps_digest *digest;
	unsigned char *statement;
	size_t statement_len;
};

static unsigned char *
statement_of(const struct fixture *f, size_t *len)
{
	static const char *const prompts[] = { "agents/checklist.yml",
	    "agents/reviewer.yml", "prompts/checklist.md", "prompts/review.md" };
	const ps_entry *e;
	sign_statement *st;
	unsigned char *out;
	ps_error err;
	size_t i;

	assert_int_equal(sign_statement_new(&st, &err), 0);
	assert_int_equal(sign_statement_set_digest(st, f->digest, &err), 0);
	assert_int_equal(sign_statement_add_subject(st, "r.tar.gz",
	    f->digest->archive_digest, &err), 0);
	for (i = 0; i < 4; i++) {
		e = ps_digest_find(f->digest, prompts[i]);
		assert_non_null(e);
		assert_int_equal(sign_statement_add_prompt(st, e->path, e->sha256,
		    &err), 0);
	}
	st->pack_id = strdup("research.top-journal-reviewer");
	st->pack_version = strdup("0.1.0");
	st->packsign_version = strdup(PS_VERSION);
	st->compression = PS_COMPRESS_GZIP;
	assert_int_equal(sign_statement_serialize(st, &out, len, &err), 0);
	sign_statement_free(st);
	return out;
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	ps_pack_options po;
	char name[16];
	ps_error err;
	int fd, i;

	assert_non_null(f);
	strcpy(f->dir, "/tmp/ps-sigwork-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->archive, sizeof(f->archive), "%s/r.tar.gz", f->dir);
	snprintf(f->sig, sizeof(f->sig), "%s.sig", f->archive);
	ps_pack_options_init(&po);
	po.compression = PS_COMPRESS_GZIP;
	fd = open(f->archive, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ps_pack(PACK, fd, &po, NULL, &err), 0);
	close(fd);
	assert_int_equal(ps_digest_path(f->archive, &po, &f->digest, &err), 0);
	for (i = 0; i < KEYS; i++) {
		assert_int_equal(ps_seckey_generate(&f->sk[i], &err), 0);
		assert_int_equal(ps_seckey_public(f->sk[i], &f->pk[i], &err), 0);
		snprintf(name, sizeof(name), "k%d", i);
		assert_int_equal(ps_pubkey_set_identity(f->pk[i], name, &err), 0);
		assert_int_equal(ps_pubkey_fingerprint(f->pk[i], f->fp[i]), 0);
	}
	f->statement = statement_of(f, &f->statement_len);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];
	int i;

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	for (i = 0; i < KEYS; i++) {
		ps_seckey_free(f->sk[i]);
		ps_pubkey_free(f->pk[i]);
	}
	ps_digest_free(f->digest);
	free(f->statement);
	free(f);
	return 0;
}

/* A policy of the first `n` keys, one identity each (k0, k1, ...),
 * `roles` (may be "") added to each, and `threshold`. */
static ps_trust *
policy(const struct fixture *f, int n, const char *roles, unsigned threshold)
{
	char *text = malloc(64 * 1024), *b64;
	size_t used;
	ps_trust *t;
	ps_error err;
	int i;

	assert_non_null(text);
	used = (size_t)snprintf(text, 64 * 1024, "version: 1\nsigners:\n");
	for (i = 0; i < n; i++) {
		assert_int_equal(ps_pubkey_format_base64(f->pk[i], &b64, &err), 0);
		used += (size_t)snprintf(text + used, 64 * 1024 - used,
		    "  - identity: k%d\n    keys:\n      - key: %s\n"
		    "    packs: [\"*\"]\n%s", i, b64, roles);
		free(b64);
	}
	snprintf(text + used, 64 * 1024 - used, "threshold: %u\n", threshold);
	if (ps_trust_load(text, strlen(text), "p.yaml", &t, &err) != 0)
		fail_msg("%s", err.message);
	free(text);
	return t;
}

/* How a hostile entry names a key: none, key i % KEYS, always key 0, a
 * fingerprint of no policy key. */
enum naming { UNNAMED, CYCLIC, ALL_FIRST, FOREIGN };

static const char *
keyid_for(const struct fixture *f, enum naming how, int i)
{
	switch (how) {
	case CYCLIC:
		return f->fp[i % KEYS];
	case ALL_FIRST:
		return f->fp[0];
	case FOREIGN:
		return "SHA256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
	default:
		return "";
	}
}

/* `count` entries of random bytes named `how`, then (when `genuine` is
 * not NULL) a genuine signature by it, named by its fingerprint. */
static sign_dsse_envelope *
envelope(const struct fixture *f, const char *type, const void *payload,
    size_t len, int count, enum naming how, const ps_seckey *genuine,
    const char *genuine_id)
{
	unsigned char sig[SIGN_DSSE_SIG_LEN];
	sign_dsse_envelope *env;
	ps_error err;
	int i;

	assert_int_equal(sign_dsse_new(type, payload, len, &env, &err), 0);
	for (i = 0; i < count; i++) {
		randombytes_buf(sig, sizeof(sig));
		assert_int_equal(sign_dsse_add_signature(env, sig, sizeof(sig),
		    keyid_for(f, how, i), &err), 0);
	}
	if (genuine != NULL)
		assert_int_equal(sign_dsse_sign(env, genuine->sk, genuine_id,
		    &err), 0);
	return env;
}

static void
write_envelope(const char *path, const sign_dsse_envelope *env)
{
	char *json;
	size_t len;
	ps_error err;
	FILE *out;

	assert_int_equal(sign_dsse_serialize(env, &json, &len, &err), 0);
	out = fopen(path, "wb");
	assert_non_null(out);
	assert_int_equal(fwrite(json, 1, len, out), len);
	fclose(out);
	free(json);
}

/* ps_verify() of the fixture under `t`: its checks and its code. */
static size_t
verify_checks(const struct fixture *f, const ps_trust *t, int *rc,
    char code[PS_ERROR_CODE_MAX])
{
	ps_verify_options o;
	ps_verify_result *r = NULL;
	ps_error err;

	ps_verify_options_init(&o);
	o.trust = t;
	checks = 0;
	*rc = ps_verify(f->archive, &o, &r, &err);
	snprintf(code, PS_ERROR_CODE_MAX, "%s", *rc == 0 ? "" : err.code);
	ps_verify_result_free(r);
	return checks;
}

/* 64 random entries over the statement, named four ways, under 1 and
 * under 16 keys: never more than 8 + keys checks (64 x 16 = 1024 before
 * the bound), refused with the code of what was found. */
static void
hostile_sig_costs_at_most_8_plus_keys(void **state)
{
	static const struct { enum naming how; const char *code; } cases[] = {
		{ UNNAMED, "signature_untrusted" },
		{ CYCLIC, "signature_invalid" },
		{ ALL_FIRST, "signature_invalid" },
		{ FOREIGN, "signature_untrusted" },
	};
	static const int key_counts[] = { 1, KEYS };
	struct fixture *f = *state;
	sign_dsse_envelope *env;
	char code[PS_ERROR_CODE_MAX];
	size_t i, j, used;
	ps_trust *t;
	int rc;

	for (j = 0; j < 2; j++) {
		t = policy(f, key_counts[j], "", 1);
		for (i = 0; i < 4; i++) {
			env = envelope(f, SIGN_INTOTO_PAYLOAD_TYPE, f->statement,
			    f->statement_len, SIGN_DSSE_MAX_SIGNATURES, cases[i].how,
			    NULL, NULL);
			write_envelope(f->sig, env);
			sign_dsse_free(env);
			used = verify_checks(f, t, &rc, code);
			print_message("# %d keys, naming %zu: %zu checks, %s\n",
			    key_counts[j], i, used, code);
			assert_int_equal(rc, -1);
			assert_true(used <= (size_t)(8 + key_counts[j]));
			/* the first entry's outcome (the refusal rule's tie) */
			assert_string_equal(code, cases[i].code);
		}
		ps_trust_free(t);
	}
}

/* A genuine signature named by its key's fingerprint costs one check,
 * wherever hostile entries put it: threshold T costs T. */
static void
genuine_sig_costs_one_check_each(void **state)
{
	struct fixture *f = *state;
	sign_dsse_envelope *env;
	char code[PS_ERROR_CODE_MAX], *json;
	size_t len;
	ps_error err;
	ps_trust *t = policy(f, KEYS, "", 2);
	int rc;

	/* threshold 2: keys 5 and 11 sign, named. */
	env = envelope(f, SIGN_INTOTO_PAYLOAD_TYPE, f->statement,
	    f->statement_len, 0, UNNAMED, f->sk[5], f->fp[5]);
	assert_int_equal(sign_dsse_sign(env, f->sk[11]->sk, f->fp[11], &err), 0);
	write_envelope(f->sig, env);
	sign_dsse_free(env);
	assert_int_equal(verify_checks(f, t, &rc, code), 2);
	assert_int_equal(rc, 0);
	ps_trust_free(t);
	/* threshold 1: 63 hostile unnamed entries before the genuine one. */
	t = policy(f, KEYS, "", 1);
	env = envelope(f, SIGN_INTOTO_PAYLOAD_TYPE, f->statement,
	    f->statement_len, 63, UNNAMED, f->sk[9], f->fp[9]);
	write_envelope(f->sig, env);
	sign_dsse_free(env);
	assert_true(verify_checks(f, t, &rc, code) <= 8 + KEYS);
	assert_int_equal(rc, 0);
	/* unnamed (another tool's key id): found by the search, at most one
	 * check per key. */
	env = envelope(f, SIGN_INTOTO_PAYLOAD_TYPE, f->statement,
	    f->statement_len, 0, UNNAMED, f->sk[KEYS - 1], "");
	write_envelope(f->sig, env);
	sign_dsse_free(env);
	assert_int_equal(verify_checks(f, t, &rc, code), KEYS);
	assert_int_equal(rc, 0);
	/* named after another key of the policy: that key, then the search. */
	env = envelope(f, SIGN_INTOTO_PAYLOAD_TYPE, f->statement,
	    f->statement_len, 0, UNNAMED, f->sk[1], f->fp[0]);
	write_envelope(f->sig, env);
	sign_dsse_free(env);
	assert_int_equal(verify_checks(f, t, &rc, code), 2);
	assert_int_equal(rc, 0);
	(void)json;
	(void)len;
	ps_trust_free(t);
}

/* --bundle: the bundles' signatures are one envelope, under the same
 * bound. */
static void
bundles_share_the_bound(void **state)
{
	struct fixture *f = *state;
	sign_dsse_envelope *env;
	const char *paths[SIGN_DSSE_MAX_SIGNATURES];
	char names[SIGN_DSSE_MAX_SIGNATURES][200], *json;
	ps_trust *t = policy(f, KEYS, "", 1);
	ps_verify_options o;
	ps_verify_result *r = NULL;
	size_t i, len;
	ps_error err;
	FILE *out;

	env = envelope(f, SIGN_INTOTO_PAYLOAD_TYPE, f->statement,
	    f->statement_len, SIGN_DSSE_MAX_SIGNATURES, UNNAMED, NULL, NULL);
	for (i = 0; i < SIGN_DSSE_MAX_SIGNATURES; i++) {
		snprintf(names[i], sizeof(names[i]), "%s/%zu.sigstore.json",
		    f->dir, i + 1);
		paths[i] = names[i];
		assert_int_equal(sign_bundle_serialize(env, i, &json, &len, &err),
		    0);
		out = fopen(names[i], "wb");
		assert_non_null(out);
		assert_int_equal(fwrite(json, 1, len, out), len);
		fclose(out);
		free(json);
	}
	sign_dsse_free(env);
	ps_verify_options_init(&o);
	o.trust = t;
	o.bundle_paths = paths;
	o.bundle_count = SIGN_DSSE_MAX_SIGNATURES;
	checks = 0;
	assert_int_equal(ps_verify(f->archive, &o, &r, &err), -1);
	assert_true(checks <= 8 + KEYS);
	assert_string_equal(err.code, "signature_untrusted");
	ps_verify_result_free(r);
	ps_trust_free(t);
}

/* install: the same verification, before the archive is copied. */
static void
install_shares_the_bound(void **state)
{
	struct fixture *f = *state;
	sign_dsse_envelope *env;
	ps_install_options o;
	ps_install_result *r = NULL;
	ps_trust *t = policy(f, KEYS, "", 1);
	char data[128];
	ps_error err;

	env = envelope(f, SIGN_INTOTO_PAYLOAD_TYPE, f->statement,
	    f->statement_len, SIGN_DSSE_MAX_SIGNATURES, CYCLIC, NULL, NULL);
	write_envelope(f->sig, env);
	sign_dsse_free(env);
	snprintf(data, sizeof(data), "%s/data", f->dir);
	ps_install_options_init(&o);
	o.data_dir = data;
	o.verify.trust = t;
	checks = 0;
	assert_int_equal(ps_install(f->archive, &o, &r, &err), -1);
	assert_true(checks <= 8 + KEYS);
	assert_string_equal(err.code, "signature_invalid");
	ps_install_result_free(r);
	ps_trust_free(t);
}

/* An index: at most 8 entries, the same bound over its candidates. */
static void
hostile_index_costs_at_most_8_plus_keys(void **state)
{
	struct fixture *f = *state;
	sign_dsse_envelope *env;
	ps_index_verify_options o;
	ps_index *ix = NULL;
	ps_trust *t = policy(f, KEYS, "    roles: [index]\n", 1);
	char *json;
	size_t len;
	ps_error err;

	env = envelope(f, PS_INDEX_PAYLOAD_TYPE, "{}", 2, INDEX_MAX_SIGNATURES,
	    UNNAMED, NULL, NULL);
	assert_int_equal(sign_dsse_serialize(env, &json, &len, &err), 0);
	sign_dsse_free(env);
	ps_index_verify_options_init(&o);
	o.trust = t;
	checks = 0;
	assert_int_equal(ps_index_verify(json, len, "index.json", &o, &ix, &err),
	    -1);
	print_message("# index: %zu checks\n", checks);
	assert_true(checks <= 8 + KEYS);
	assert_string_equal(err.code, "signature_untrusted");
	free(json);
	ps_trust_free(t);
}

/* ps_verify() of the fixture under `t`, its result kept. */
static ps_verify_result *
verify_result(const struct fixture *f, const ps_trust *t, int *rc)
{
	ps_verify_options o;
	ps_verify_result *r = NULL;
	ps_error err;

	ps_verify_options_init(&o);
	o.trust = t;
	*rc = ps_verify(f->archive, &o, &r, &err);
	assert_non_null(r);
	return r;
}

/* signature_unchecked, each way a key id can make a verifier skip an
 * entry, reported on that entry with its reason (signature.md section 3,
 * step 3): it names a key that verified an earlier entry, or the checks
 * were spent before it. */
static void
unchecked_signatures_say_why(void **state)
{
	struct fixture *f = *state;
	unsigned char sig[SIGN_DSSE_SIG_LEN];
	sign_dsse_envelope *env;
	ps_verify_result *r;
	ps_error err;
	ps_trust *t = policy(f, KEYS, "", 1);
	int rc;

	/* key 3's genuine entry, then one naming key 3 again */
	env = envelope(f, SIGN_INTOTO_PAYLOAD_TYPE, f->statement,
	    f->statement_len, 0, UNNAMED, f->sk[3], f->fp[3]);
	randombytes_buf(sig, sizeof(sig));
	assert_int_equal(sign_dsse_add_signature(env, sig, sizeof(sig),
	    f->fp[3], &err), 0);
	write_envelope(f->sig, env);
	sign_dsse_free(env);
	r = verify_result(f, t, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(r->signature_count, 2);
	assert_true(r->signatures[0].counted);
	assert_false(r->signatures[1].counted);
	assert_string_equal(r->signatures[1].code, "signature_unchecked");
	assert_non_null(strstr(r->signatures[1].reason, f->fp[3]));
	assert_non_null(strstr(r->signatures[1].reason, "which verified "
	    "signature 1: a key is checked once and counts once"));
	ps_verify_result_free(r);
	ps_trust_free(t);

	/* one key: 64 entries naming no key spend the 9 checks on the
	 * first 9; the 10th and later are not checked */
	t = policy(f, 1, "", 1);
	env = envelope(f, SIGN_INTOTO_PAYLOAD_TYPE, f->statement,
	    f->statement_len, SIGN_DSSE_MAX_SIGNATURES, FOREIGN, NULL, NULL);
	write_envelope(f->sig, env);
	sign_dsse_free(env);
	r = verify_result(f, t, &rc);
	assert_int_equal(rc, -1);
	assert_int_equal(r->signature_count, SIGN_DSSE_MAX_SIGNATURES);
	assert_string_equal(r->signatures[8].code, "signature_untrusted");
	assert_string_equal(r->signatures[9].code, "signature_unchecked");
	assert_string_equal(r->signatures[63].code, "signature_unchecked");
	assert_non_null(strstr(r->signatures[9].reason, "an envelope gets at "
	    "most 9 signature checks (8 + its 1 keys), spent before this one"));
	ps_verify_result_free(r);
	ps_trust_free(t);
}

/* The matcher itself: a key verifies one entry; an entry naming a key
 * that verified an earlier one is a duplicate, never checked. */
static void
matcher_outcomes(void **state)
{
	struct fixture *f = *state;
	const ps_pubkey *keys[3] = { f->pk[0], f->pk[1], f->pk[2] };
	sign_dsse_envelope *env;
	sign_dsse_match m;
	ps_error err;

	env = envelope(f, "text/plain", "p", 1, 0, UNNAMED, f->sk[1], f->fp[1]);
	assert_int_equal(sign_dsse_add_signature(env,
	    (const unsigned char *)"0123456789012345678901234567890123456789"
	    "012345678901234567890123", 64, f->fp[1], &err), 0);
	assert_int_equal(sign_dsse_sign(env, f->sk[2]->sk, "", &err), 0);
	checks = 0;
	assert_int_equal(sign_dsse_match_keys(env, keys, 3, 3, &m, &err), 0);
	assert_int_equal(m.outcome[0], SIGN_DSSE_VERIFIED);
	assert_int_equal(m.key[0], 1);
	assert_int_equal(m.outcome[1], SIGN_DSSE_DUPLICATE);
	assert_int_equal(m.key[1], 0);
	assert_int_equal(m.outcome[2], SIGN_DSSE_VERIFIED);
	assert_int_equal(m.key[2], 2);
	/* 1 (named) + keys 0 and 2 for the unnamed third entry */
	assert_int_equal(m.checks, 3);
	assert_int_equal(checks, 3);
	assert_int_equal(m.verification.verified_count, 2);
	assert_non_null(m.verification.payload);
	/* searched 1: key 2 only by name, so the third entry is not found */
	assert_int_equal(sign_dsse_match_keys(env, keys, 3, 1, &m, &err), 0);
	assert_int_equal(m.outcome[2], SIGN_DSSE_FAILED);
	sign_dsse_free(env);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    hostile_sig_costs_at_most_8_plus_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(genuine_sig_costs_one_check_each,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(bundles_share_the_bound, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(install_shares_the_bound, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    hostile_index_costs_at_most_8_plus_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(matcher_outcomes, setup, teardown),
		cmocka_unit_test_setup_teardown(unchecked_signatures_say_why,
		    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
