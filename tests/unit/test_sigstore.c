/* Unit tests: sigstore/ pieces below the conformance suite: Merkle
 * inclusion proofs against an independent tree, signed-note checkpoints,
 * the SET's canonical JSON, protobuf JSON's base64 and times, Fulcio's
 * extension values. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "sigstore/fulcio.h"
#include "sigstore/merkle.h"
#include "sigstore/protojson.h"
#include "sigstore/signednote.h"
#include "sigstore/tlog.h"
#include "util/sha256.h"

/* ------------------------------------------------------------- Merkle */

/* RFC 6962 2.1's MTH, written out recursively as the RFC states it. */
static void
mth(unsigned char (*leaves)[32], size_t lo, size_t n, unsigned char out[32])
{
	unsigned char buf[65];
	size_t k = 1;

	if (n == 1) {
		memcpy(out, leaves[lo], 32);
		return;
	}
	while (k * 2 < n)
		k *= 2;
	buf[0] = 1;
	mth(leaves, lo, k, buf + 1);
	mth(leaves, lo + k, n - k, buf + 33);
	assert_int_equal(util_sha256_buffer(buf, sizeof(buf), out), 0);
}

/* RFC 6962 2.1.1's PATH(m, D[lo:lo+n]), leaf side first. */
static size_t
path(unsigned char (*leaves)[32], size_t m, size_t lo, size_t n,
    unsigned char (*out)[32])
{
	size_t k = 1, len;

	if (n == 1)
		return 0;
	while (k * 2 < n)
		k *= 2;
	if (m < k) {
		len = path(leaves, m, lo, k, out);
		mth(leaves, lo + k, n - k, out[len]);
	} else {
		len = path(leaves, m - k, lo + k, n - k, out);
		mth(leaves, lo, k, out[len]);
	}
	return len + 1;
}

static void
tree(unsigned char (*leaves)[32], size_t n)
{
	unsigned char data[8];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf((char *)data, sizeof(data), "leaf%zu", i);
		assert_int_equal(sigstore_merkle_leaf(data, strlen((char *)data),
		    leaves[i]), 0);
	}
}

static void
merkle_every_proof_of_trees_up_to_33(void **state)
{
	unsigned char leaves[34][32], root[32], bigger[32], proof[8][32], got[32];
	size_t n, m, len;

	(void)state;
	tree(leaves, 34);
	for (n = 1; n <= 33; n++) {
		mth(leaves, 0, n, root);
		for (m = 0; m < n; m++) {
			len = path(leaves, m, 0, n, proof);
			assert_int_equal(sigstore_merkle_verify(m, n, leaves[m],
			    (const unsigned char (*)[32])proof, len, root, got), 0);
			assert_memory_equal(got, root, 32);
			/* another leaf, index, size, a changed or a missing hash */
			assert_int_equal(sigstore_merkle_verify(m, n,
			    leaves[(m + 1) % 33], (const unsigned char (*)[32])proof,
			    len, root, got), -1);
			if (n > 1)
				assert_int_equal(sigstore_merkle_verify((m + 1) % n, n,
				    leaves[m], (const unsigned char (*)[32])proof, len,
				    root, got), (m + 1) % n == m ? 0 : -1);
			/* the tree one leaf larger: its root is another's (the
			 * size alone may give the proof the same shape: the
			 * checkpoint signs size and root together) */
			mth(leaves, 0, n + 1, bigger);
			assert_int_equal(sigstore_merkle_verify(m, n + 1, leaves[m],
			    (const unsigned char (*)[32])proof, len, bigger, got), -1);
			if (len > 0) {
				proof[len - 1][5] ^= 1;
				assert_int_equal(sigstore_merkle_verify(m, n, leaves[m],
				    (const unsigned char (*)[32])proof, len, root, got),
				    -1);
				proof[len - 1][5] ^= 1;
				assert_int_equal(sigstore_merkle_verify(m, n, leaves[m],
				    (const unsigned char (*)[32])proof, len - 1, root,
				    got), -1);
			}
			memcpy(proof[len], root, 32);
			assert_int_equal(sigstore_merkle_verify(m, n, leaves[m],
			    (const unsigned char (*)[32])proof, len + 1, root, got),
			    -1);
		}
		assert_int_equal(sigstore_merkle_verify(n, n, leaves[0],
		    (const unsigned char (*)[32])proof, 0, root, got), -1);
	}
}

/* The RFC 6962 test tree of the certificate-transparency project: eight
 * leaves, root 5dc9da79... */
static void
merkle_rfc6962_reference_root(void **state)
{
	static const char *const hex[] = { "", "00", "10", "2021", "3031",
	    "40414243", "5051525354555657",
	    "606162636465666768696a6b6c6d6e6f" };
	unsigned char leaves[8][32], data[16], root[32], want[32];
	size_t i, len;

	(void)state;
	for (i = 0; i < 8; i++) {
		len = strlen(hex[i]) / 2;
		assert_int_equal(util_hex_decode(hex[i], data, len), 0);
		assert_int_equal(sigstore_merkle_leaf(data, len, leaves[i]), 0);
	}
	mth(leaves, 0, 8, root);
	assert_int_equal(util_hex_decode("5dc9da79a70659a9ad559cb701ded9a2ab9d8"
	    "23aad2f4960cfe370eff4604328", want, 32), 0);
	assert_memory_equal(root, want, 32);
}

/* -------------------------------------------------------- signed notes */

struct note_key {
	unsigned char pk[32], sk[64];
	ps_pubkey pub;
	sigstore_log log;
};

static void
note_key(struct note_key *k, const char *origin)
{
	memset(k, 0, sizeof(*k));
	crypto_sign_keypair(k->pk, k->sk);
	k->pub.alg = PS_KEY_ED25519;
	memcpy(k->pub.key, k->pk, 32);
	assert_int_equal(sigstore_pkey_from_pubkey(&k->pub, &k->log.key), 0);
	k->log.origin = strdup(origin);
	k->log.base_url = strdup(origin);
}

static void
note_key_free(struct note_key *k)
{
	sigstore_pkey_free(k->log.key);
	free(k->log.origin);
	free(k->log.base_url);
}

/* "— NAME base64(hint || Ed25519 signature of text)\n" appended to out. */
static void
sign_line(const struct note_key *k, const char *name, const char *text,
    int corrupt, char *out, size_t size)
{
	unsigned char blob[68], hint[4];
	char b64[128];

	assert_int_equal(sigstore_note_key_hint(&k->log, hint), 0);
	memcpy(blob, hint, 4);
	crypto_sign_detached(blob + 4, NULL, (const unsigned char *)text,
	    strlen(text), k->sk);
	blob[10] ^= (unsigned char)corrupt;
	sodium_bin2base64(b64, sizeof(b64), blob, sizeof(blob),
	    sodium_base64_VARIANT_ORIGINAL);
	snprintf(out + strlen(out), size - strlen(out), "\xe2\x80\x94 %s %s\n",
	    name, b64);
}

static void
note_verifies_and_reads_the_checkpoint(void **state)
{
	static const char text[] = "example.com/log\n42\n"
	    "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\nextension line\n";
	struct note_key k, w;
	sigstore_checkpoint cp;
	char note[2048];
	ps_error err;

	(void)state;
	note_key(&k, "example.com/log");
	note_key(&w, "witness.example");
	snprintf(note, sizeof(note), "%s\n", text);
	sign_line(&w, "witness.example", text, 0, note, sizeof(note));
	sign_line(&k, "example.com/log", text, 0, note, sizeof(note));
	assert_int_equal(sigstore_note_verify(note, &k.log, 0, "t", &cp, &err), 0);
	assert_string_equal(cp.origin, "example.com/log");
	assert_int_equal(cp.size, 42);
	assert_int_equal(cp.root_hash[31], 31);
	/* the witness's key is no log's: not its origin */
	assert_int_equal(sigstore_note_verify(note, &w.log, 0, "t", &cp, &err),
	    -1);
	assert_string_equal(err.code, "tlog_checkpoint_origin");
	note_key_free(&k);
	note_key_free(&w);
}

static void
note_refusals(void **state)
{
	static const char text[] = "example.com/log\n42\n"
	    "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n";
	struct note_key k;
	sigstore_checkpoint cp;
	char note[2048];
	ps_error err;

	(void)state;
	note_key(&k, "example.com/log");
	/* a second line of the log's that does not verify */
	snprintf(note, sizeof(note), "%s\n", text);
	sign_line(&k, "example.com/log", text, 0, note, sizeof(note));
	sign_line(&k, "example.com/log", text, 1, note, sizeof(note));
	assert_int_equal(sigstore_note_verify(note, &k.log, 0, "t", &cp, &err),
	    -1);
	assert_string_equal(err.code, "tlog_checkpoint_signature");
	/* no blank line; a line without a newline; CR */
	snprintf(note, sizeof(note), "%s", text);
	sign_line(&k, "example.com/log", text, 0, note, sizeof(note));
	assert_int_equal(sigstore_note_verify(note, &k.log, 0, "t", &cp, &err),
	    -1);
	assert_string_equal(err.code, "tlog_checkpoint_malformed");
	snprintf(note, sizeof(note), "%s\n\xe2\x80\x94 example.com/log AAAA", text);
	assert_int_equal(sigstore_note_verify(note, &k.log, 0, "t", &cp, &err),
	    -1);
	assert_string_equal(err.code, "tlog_checkpoint_malformed");
	/* under the name of another log */
	snprintf(note, sizeof(note), "%s\n", text);
	sign_line(&k, "example.com/other", text, 0, note, sizeof(note));
	assert_int_equal(sigstore_note_verify(note, &k.log, 0, "t", &cp, &err),
	    -1);
	assert_string_equal(err.code, "tlog_checkpoint_signature");
	/* Rekor v1 wants "NAME - TREEID" */
	snprintf(note, sizeof(note), "%s\n", text);
	sign_line(&k, "example.com/log", text, 0, note, sizeof(note));
	assert_int_equal(sigstore_note_verify(note, &k.log, 1, "t", &cp, &err),
	    -1);
	assert_string_equal(err.code, "tlog_checkpoint_origin");
	note_key_free(&k);
}

static void
note_rekor_v1_origin_and_bad_text(void **state)
{
	static const char v1[] = "example.com/log - 12345\n7\n"
	    "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n";
	static const char bad_size[] = "example.com/log\n007\n"
	    "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n";
	struct note_key k;
	sigstore_checkpoint cp;
	char note[2048];
	ps_error err;

	(void)state;
	note_key(&k, "example.com/log");
	snprintf(note, sizeof(note), "%s\n", v1);
	sign_line(&k, "example.com/log", v1, 0, note, sizeof(note));
	assert_int_equal(sigstore_note_verify(note, &k.log, 1, "t", &cp, &err), 0);
	assert_int_equal(cp.size, 7);
	/* text signed and authentic, but no tree size: refused after */
	snprintf(note, sizeof(note), "%s\n", bad_size);
	sign_line(&k, "example.com/log", bad_size, 0, note, sizeof(note));
	assert_int_equal(sigstore_note_verify(note, &k.log, 0, "t", &cp, &err),
	    -1);
	assert_string_equal(err.code, "tlog_checkpoint_malformed");
	note_key_free(&k);
}

/* The key hint of C2SP signed-note for Ed25519: SHA-256(name || 0x0A ||
 * 0x01 || key)[:4], and a v0.2 root's checkpointKeyId wins. */
static void
note_key_hints(void **state)
{
	struct note_key k;
	unsigned char buf[64], digest[32], hint[4];
	size_t n = strlen("example.com/log");

	(void)state;
	note_key(&k, "example.com/log");
	memcpy(buf, "example.com/log", n);
	buf[n] = 0x0a;
	buf[n + 1] = 0x01;
	memcpy(buf + n + 2, k.pk, 32);
	assert_int_equal(util_sha256_buffer(buf, n + 34, digest), 0);
	assert_int_equal(sigstore_note_key_hint(&k.log, hint), 0);
	assert_memory_equal(hint, digest, 4);
	memcpy(k.log.checkpoint_key_id, "\x01\x02\x03\x04", 4);
	k.log.checkpoint_key_id_len = 4;
	assert_int_equal(sigstore_note_key_hint(&k.log, hint), 0);
	assert_memory_equal(hint, "\x01\x02\x03\x04", 4);
	note_key_free(&k);
}

/* ---------------------------------------------------------------- SET */

static void
set_payload_is_canonical_json(void **state)
{
	sigstore_entry e;
	char *p;

	(void)state;
	memset(&e, 0, sizeof(e));
	e.body = (unsigned char *)"{}";
	e.body_len = 2;
	memcpy(e.log_id, "\xc0\xd2\x3d\x6a", 4);
	e.log_id_len = 4;
	e.integrated_time = 1710869186;
	e.log_index = 79571823;
	p = sigstore_tlog_set_payload(&e);
	assert_non_null(p);
	assert_string_equal(p, "{\"body\":\"e30=\",\"integratedTime\":1710869186,"
	    "\"logID\":\"c0d23d6a\",\"logIndex\":79571823}");
	free(p);
}

/* ------------------------------------------------------ protobuf JSON */

static void
base64_of_protobuf_json(void **state)
{
	unsigned char *out;
	size_t len;

	(void)state;
	assert_int_equal(sigstore_base64_decode("AAEC/w==", 8, 16, &out, &len), 0);
	assert_int_equal(len, 4);
	assert_int_equal(out[3], 0xff);
	free(out);
	assert_int_equal(sigstore_base64_decode("AAEC_w", 6, 16, &out, &len), 0);
	assert_int_equal(out[3], 0xff);
	free(out);
	assert_int_equal(sigstore_base64_decode("AAEC\n/w==", 9, 16, &out, &len),
	    0);
	free(out);
	assert_int_equal(sigstore_base64_decode("AAEC/w=", 7, 16, &out, &len), -1);
	assert_int_equal(sigstore_base64_decode("AA-C/w==", 8, 16, &out, &len),
	    -1);
	assert_int_equal(sigstore_base64_decode("AA EC", 5, 16, &out, &len), -1);
	assert_int_equal(sigstore_base64_decode("AAECAw==", 8, 3, &out, &len), -2);
	assert_int_equal(sigstore_base64_decode("", 0, 3, &out, &len), 0);
	assert_int_equal(len, 0);
	free(out);
}

static void
rfc3339_times(void **state)
{
	sigstore_time t, u;
	char text[40];

	(void)state;
	assert_int_equal(sigstore_time_parse("2022-12-31T23:59:59.999Z", &t), 0);
	assert_int_equal(t.sec, 1672531199);
	assert_int_equal(t.nsec, 999000000);
	sigstore_time_format(t, text);
	assert_string_equal(text, "2022-12-31T23:59:59.999000000Z");
	assert_int_equal(sigstore_time_parse("2023-01-01T01:00:00+01:00", &u), 0);
	assert_int_equal(u.sec, 1672531200);
	assert_int_equal(sigstore_time_cmp(t, u), -1);
	assert_int_equal(sigstore_time_parse("2023-02-29T00:00:00Z", &t), -1);
	assert_int_equal(sigstore_time_parse("2024-02-29T00:00:00Z", &t), 0);
	assert_int_equal(sigstore_time_parse("2023-01-01T00:00:00", &t), -1);
	assert_int_equal(sigstore_time_parse("2023-01-01T00:00:00.Z", &t), -1);
	assert_int_equal(sigstore_time_parse("2023-01-01T00:00:00.1234567891Z",
	    &t), -1);
	assert_int_equal(sigstore_time_parse("2023-01-01 00:00:00Z", &t), -1);
	assert_int_equal(sigstore_time_parse("1969-12-31T23:59:59Z", &t), -1);
	assert_int_equal(sigstore_time_parse("2023-01-01T24:00:00Z", &t), -1);
}

static void
validity_ends_are_inclusive(void **state)
{
	sigstore_validity v;
	sigstore_time t;

	(void)state;
	memset(&v, 0, sizeof(v));
	assert_int_equal(sigstore_time_parse("2023-07-12T15:56:36Z", &v.start), 0);
	v.end = v.start;
	v.has_end = 1;
	assert_true(sigstore_validity_contains(&v, v.start));
	t = v.end;
	t.nsec = 1;
	assert_false(sigstore_validity_contains(&v, t));
	t.sec -= 1;
	assert_false(sigstore_validity_contains(&v, t));
	v.has_end = 0;
	t.sec += 100;
	assert_true(sigstore_validity_contains(&v, t));
}

/* ----------------------------------------------------------- Fulcio */

static void
fulcio_values(void **state)
{
	static const unsigned char der[] = { 0x0c, 0x03, 'a', 'b', 'c' };
	static const unsigned char bad_der[] = { 0x0c, 0x04, 'a', 'b', 'c' };
	static const unsigned char ctl[] = { 0x0c, 0x02, 'a', 0x1b };
	char *v;

	(void)state;
	v = sigstore_fulcio_value(der, sizeof(der), 0);
	assert_string_equal(v, "abc");
	free(v);
	v = sigstore_fulcio_value((const unsigned char *)"https://x", 9, 1);
	assert_string_equal(v, "https://x");
	free(v);
	assert_null(sigstore_fulcio_value(bad_der, sizeof(bad_der), 0));
	assert_null(sigstore_fulcio_value(ctl, sizeof(ctl), 0));
	assert_null(sigstore_fulcio_value(der, sizeof(der), 1));
	assert_null(sigstore_fulcio_value((const unsigned char *)"\xff\xfe", 2, 1));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(merkle_every_proof_of_trees_up_to_33),
		cmocka_unit_test(merkle_rfc6962_reference_root),
		cmocka_unit_test(note_verifies_and_reads_the_checkpoint),
		cmocka_unit_test(note_refusals),
		cmocka_unit_test(note_rekor_v1_origin_and_bad_text),
		cmocka_unit_test(note_key_hints),
		cmocka_unit_test(set_payload_is_canonical_json),
		cmocka_unit_test(base64_of_protobuf_json),
		cmocka_unit_test(rfc3339_times),
		cmocka_unit_test(validity_ends_are_inclusive),
		cmocka_unit_test(fulcio_values),
	};
	if (sodium_init() < 0)
		return 1;
	return cmocka_run_group_tests_name("sigstore", tests, NULL, NULL);
}
