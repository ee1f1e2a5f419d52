/* ps_sign through the library: the .sig verifies, the statement parses
 * from the verified bytes, the .minisig verifies, runs are identical. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sodium.h>

#include "keys/keys.h"
#include "sign/dsse.h"
#include "sign/statement.h"
#include "util/sha256.h"

#define PACK "examples/packs/research.top-journal-reviewer"

static ps_seckey *
test_key(unsigned char fill)
{
	unsigned char seed[KEYS_ED25519_SEED_LEN], id[PS_KEY_ID_LEN];
	ps_seckey *key = NULL;
	ps_error err;

	memset(seed, fill, sizeof(seed));
	memset(id, fill, sizeof(id));
	assert_int_equal(keys_seckey_from_seed(seed, id, &key, &err), 0);
	return key;
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = malloc(1 << 20);

	assert_non_null(f);
	assert_non_null(buf);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

/* A copy of the example outside any git work tree: no source, no dirt. */
static void
copy_pack(const char *dir)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "cp -R '%s' '%s/pack'", PACK, dir);
	assert_int_equal(system(cmd), 0);
}

static void
remove_tree(const char *dir)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void
sign_into(const char *out, const ps_seckey *key, int minisig,
    ps_sign_result **r)
{
	char pack[64], *slash;
	ps_sign_options o;
	ps_error err;

	ps_sign_options_init(&o);
	o.output = out;
	o.minisig = minisig;
	o.force = 1;
	o.identity = "alice";
	snprintf(pack, sizeof(pack), "%s", out);
	slash = strrchr(pack, '/');
	snprintf(slash, sizeof(pack) - (size_t)(slash - pack), "/pack");
	if (ps_sign(pack, key, &o, r, &err) != 0)
		fail_msg("ps_sign: %s %s", err.code, err.message);
}

static void
sig_verifies_and_statement_matches(void **state)
{
	char dir[] = "/tmp/ps-sign-XXXXXX", out[64], *sig;
	ps_seckey *key = test_key(7);
	ps_pubkey *pub = NULL;
	ps_sign_result *r = NULL;
	sign_dsse_envelope *env = NULL;
	sign_dsse_verification v;
	sign_statement *st = NULL;
	unsigned char file_sha[PS_SHA256_LEN];
	char *archive;
	size_t len, alen;
	ps_error err;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/p.tar.gz", dir);
	copy_pack(dir);
	sign_into(out, key, 0, &r);
	assert_int_equal(r->signature_count, 1);
	assert_int_equal(r->archive_written, 1);
	sig = slurp(r->sig_path, &len);
	assert_int_equal(sign_dsse_parse(sig, len, "sig", &env, &err), 0);
	assert_int_equal(ps_seckey_public(key, &pub, &err), 0);
	assert_int_equal(sign_dsse_verify(env, pub, &v, &err), 0);
	ps_pubkey_free(pub);
	assert_int_equal(sign_statement_from_verified(&v, &st, &err), 0);
	archive = slurp(out, &alen);
	assert_int_equal(util_sha256_buffer(archive, alen, file_sha), 0);
	assert_memory_equal(st->subjects[0].sha256, file_sha, PS_SHA256_LEN);
	assert_memory_equal(r->archive_digest, file_sha, PS_SHA256_LEN);
	assert_string_equal(st->subjects[0].path, "p.tar.gz");
	assert_memory_equal(st->tree_digest, r->tree_digest, PS_SHA256_LEN);
	assert_int_equal(st->prompt_count, 4);
	assert_int_equal(st->has_source, 0);
	assert_string_equal(sign_dsse_keyid(env, 0), r->fingerprint);
	sign_statement_free(st);
	sign_dsse_free(env);
	ps_sign_result_free(r);
	free(sig);
	free(archive);
	remove_tree(dir);
	ps_seckey_free(key);
}

static void
minisig_verifies_and_runs_are_identical(void **state)
{
	char dir[] = "/tmp/ps-sign-XXXXXX", out[64], *a, *b, *archive;
	unsigned char blob[2 + PS_KEY_ID_LEN + PS_ED25519_SIG_LEN];
	unsigned char hash[PS_BLAKE2B512_LEN];
	ps_seckey *key = test_key(9);
	ps_sign_result *r = NULL;
	ps_pubkey *pub = NULL;
	size_t alen, blen, arch_len, got = 0;
	char *line2, *end;
	ps_error err;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/p.tar", dir);
	copy_pack(dir);
	sign_into(out, key, 1, &r);
	a = slurp(r->sig_path, &alen);
	ps_sign_result_free(r);
	sign_into(out, key, 1, &r);
	b = slurp(r->sig_path, &blen);
	assert_int_equal(alen, blen);
	assert_memory_equal(a, b, alen);
	free(b);
	/* line 2 of the .minisig: "ED" || key id || sig over BLAKE2b-512 */
	b = slurp(r->minisig_path, &blen);
	line2 = strchr(b, '\n') + 1;
	end = strchr(line2, '\n');
	assert_int_equal(sodium_base642bin(blob, sizeof(blob), line2,
	    (size_t)(end - line2), NULL, &got, NULL,
	    sodium_base64_VARIANT_ORIGINAL), 0);
	assert_int_equal(got, sizeof(blob));
	assert_memory_equal(blob, "ED", 2);
	archive = slurp(out, &arch_len);
	crypto_generichash(hash, sizeof(hash), (unsigned char *)archive,
	    arch_len, NULL, 0);
	assert_int_equal(ps_seckey_public(key, &pub, &err), 0);
	assert_int_equal(ps_key_verify_digest(pub, hash, blob + 10), 0);
	assert_non_null(strstr(b, "trusted comment: packsign pack "
	    "research.top-journal-reviewer 0.1.0 sha256:"));
	ps_pubkey_free(pub);
	remove_tree(dir);
	ps_sign_result_free(r);
	free(a);
	free(b);
	free(archive);
	ps_seckey_free(key);
}

static void
refusal_leaves_diagnostics_and_no_files(void **state)
{
	char dir[] = "/tmp/ps-sign-XXXXXX", out[64];
	ps_seckey *key = test_key(3);
	ps_sign_result *r = NULL;
	ps_sign_options o;
	ps_error err;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/x.tar", dir);
	ps_sign_options_init(&o);
	o.output = out;
	/* a directory without a manifest */
	assert_int_equal(ps_sign("tests/unit", key, &o, &r, &err), -1);
	assert_non_null(r);
	assert_int_equal(err.status, PS_STATUS_REFUSED);
	assert_string_equal(err.code, "manifest_invalid");
	assert_true(ps_diags_count(&r->diags, PS_SEVERITY_ERROR) > 0);
	assert_int_equal(access(out, F_OK), -1);
	assert_int_equal(rmdir(dir), 0);
	ps_sign_result_free(r);
	ps_seckey_free(key);
}

/* A manifest whose signed_by names neither the signer's identity nor its
 * key: signed_by_mismatch, expected the list, found identity and
 * fingerprint, before anything is written. */
static void
signed_by_mismatch_is_refused_first(void **state)
{
	char dir[] = "/tmp/ps-sign-XXXXXX", out[64], cmd[256], *found;
	ps_seckey *key = test_key(4);
	ps_sign_result *r = NULL;
	ps_pubkey *pub;
	char fp[PS_FINGERPRINT_MAX];
	ps_sign_options o;
	ps_error err;

	(void)state;
	assert_non_null(mkdtemp(dir));
	copy_pack(dir);
	snprintf(cmd, sizeof(cmd), "printf 'signed_by: [bob, carol]\\n' >>"
	    "'%s/pack/manifest.yml'", dir);
	assert_int_equal(system(cmd), 0);
	snprintf(out, sizeof(out), "%s/x.tar.gz", dir);
	ps_sign_options_init(&o);
	o.output = out;
	o.identity = "alice";
	snprintf(cmd, sizeof(cmd), "%s/pack", dir);
	assert_int_equal(ps_sign(cmd, key, &o, &r, &err), -1);
	assert_string_equal(err.code, "signed_by_mismatch");
	assert_int_equal(err.status, PS_STATUS_REFUSED);
	assert_string_equal(err.subject, "manifest.yml");
	assert_string_equal(err.expected, "bob, carol");
	assert_int_equal(ps_seckey_public(key, &pub, &err), 0);
	assert_int_equal(ps_pubkey_fingerprint(pub, fp), 0);
	assert_int_equal(asprintf(&found, "identity alice (%s)", fp) > 0, 1);
	assert_string_equal(err.found, found);
	assert_int_equal(access(out, F_OK), -1);
	ps_sign_result_free(r);
	/* The identity listed: signed. */
	snprintf(cmd, sizeof(cmd), "sed -i 's/^signed_by: .*/signed_by: "
	    "[bob, alice]/' '%s/pack/manifest.yml'", dir);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/pack", dir);
	if (ps_sign(cmd, key, &o, &r, &err) != 0)
		fail_msg("ps_sign: %s %s", err.code, err.message);
	assert_int_equal(access(out, F_OK), 0);
	ps_sign_result_free(r);
	free(found);
	ps_pubkey_free(pub);
	remove_tree(dir);
	ps_seckey_free(key);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sig_verifies_and_statement_matches),
		cmocka_unit_test(minisig_verifies_and_runs_are_identical),
		cmocka_unit_test(refusal_leaves_diagnostics_and_no_files),
		cmocka_unit_test(signed_by_mismatch_is_refused_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
