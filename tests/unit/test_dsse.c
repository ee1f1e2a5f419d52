/* Unit tests: DSSE envelopes (sign/dsse.h) and the statement (sign/statement.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "sign/dsse.h"
#include "sign/statement.h"

struct keypair {
	unsigned char pk[32];
	unsigned char sk[64];
	ps_pubkey pub;     /* pk as a key, for sign_dsse_verify() */
};

/* Fixed test keys: seed = 32 bytes of `fill`. */
static void
test_key(struct keypair *k, unsigned char fill)
{
	unsigned char seed[32];

	assert_true(sodium_init() >= 0);
	memset(seed, fill, sizeof(seed));
	assert_int_equal(crypto_sign_seed_keypair(k->pk, k->sk, seed), 0);
	memset(&k->pub, 0, sizeof(k->pub));
	k->pub.alg = PS_KEY_ED25519;
	memcpy(k->pub.key, k->pk, sizeof(k->pk));
}

static sign_dsse_envelope *
signed_envelope(const char *payload, const struct keypair *k,
    const char *keyid)
{
	sign_dsse_envelope *env = NULL;
	ps_error err;

	assert_int_equal(sign_dsse_new("application/vnd.in-toto+json",
	    (const unsigned char *)payload, strlen(payload), &env, &err), 0);
	assert_int_equal(sign_dsse_sign(env, k->sk, keyid, &err), 0);
	return env;
}

static char *
serialize(const sign_dsse_envelope *env)
{
	char *text = NULL;
	size_t len;
	ps_error err;

	assert_int_equal(sign_dsse_serialize(env, &text, &len, &err), 0);
	assert_int_equal(strlen(text), len);
	return text;
}

/* Parses `text`; returns the refusal code, or "ok". */
static const char *
parse_code(const char *text)
{
	static ps_error err;
	sign_dsse_envelope *env = NULL;

	if (sign_dsse_parse(text, strlen(text), "t.sig", &env, &err) == 0) {
		sign_dsse_free(env);
		return "ok";
	}
	assert_null(env);
	assert_int_equal(err.status, PS_STATUS_REFUSED);
	return err.code;
}

static void
pae_test_vector(void **state)
{
	unsigned char *pae = NULL;
	size_t len = 0;
	ps_error err;
	const char *want = "DSSEv1 29 http://example.com/HelloWorld 11 hello world";

	(void)state;
	assert_int_equal(sign_dsse_pae("http://example.com/HelloWorld",
	    (const unsigned char *)"hello world", 11, &pae, &len, &err), 0);
	assert_int_equal(len, strlen(want));
	assert_memory_equal(pae, want, len);
	free(pae);
	assert_int_equal(sign_dsse_pae("t", NULL, 0, &pae, &len, &err), 0);
	assert_int_equal(len, strlen("DSSEv1 1 t 0 "));
	assert_memory_equal(pae, "DSSEv1 1 t 0 ", len);
	free(pae);
}

static void
sign_serialize_parse_verify(void **state)
{
	struct keypair a;
	sign_dsse_envelope *env, *back = NULL;
	sign_dsse_verification v;
	ps_error err;
	char *text, *again;

	(void)state;
	test_key(&a, 1);
	env = signed_envelope("{\"x\":1}", &a, "key-a");
	text = serialize(env);
	assert_int_equal(text[strlen(text) - 1], '\n');
	assert_non_null(strstr(text, "{\"payload\":\"eyJ4IjoxfQ==\","
	    "\"payloadType\":\"application/vnd.in-toto+json\",\"signatures\":"
	    "[{\"keyid\":\"key-a\",\"sig\":\""));
	assert_int_equal(sign_dsse_parse(text, strlen(text), "t", &back, &err), 0);
	again = serialize(back);
	assert_string_equal(text, again);      /* deterministic, round trip */
	assert_int_equal(sign_dsse_verify(back, &a.pub, &v, &err), 0);
	assert_int_equal(v.verified_count, 1);
	assert_int_equal(v.verified[0], 1);
	assert_int_equal(v.payload_len, 7);
	assert_memory_equal(v.payload, "{\"x\":1}", 7);
	assert_string_equal(v.payload_type, "application/vnd.in-toto+json");
	free(text);
	free(again);
	sign_dsse_free(env);
	sign_dsse_free(back);
}

static void
wrong_key_or_tampered_payload_fails(void **state)
{
	struct keypair a, b;
	sign_dsse_envelope *env, *other;
	sign_dsse_verification v;
	ps_error err;

	(void)state;
	test_key(&a, 1);
	test_key(&b, 2);
	env = signed_envelope("payload", &a, "");
	assert_int_equal(sign_dsse_verify(env, &b.pub, &v, &err), -1);
	assert_string_equal(err.code, "signature_invalid");
	assert_int_equal(err.status, PS_STATUS_REFUSED);
	assert_null(v.payload);
	assert_int_equal(v.verified_count, 0);
	/* The same signature over another payload does not verify. */
	other = signed_envelope("payloaD", &b, "");
	assert_int_equal(sign_dsse_verify(other, &a.pub, &v, &err), -1);
	sign_dsse_free(env);
	sign_dsse_free(other);
}

/* The signature covers the payload type too (PAE). */
static void
payload_type_is_authenticated(void **state)
{
	struct keypair a;
	sign_dsse_envelope *env, *back = NULL;
	sign_dsse_verification v;
	ps_error err;
	char *text, *at;

	(void)state;
	test_key(&a, 1);
	env = signed_envelope("payload", &a, "");
	text = serialize(env);
	at = strstr(text, "in-toto+json");
	assert_non_null(at);
	at[0] = 'j';                    /* "jn-toto+json" */
	assert_int_equal(sign_dsse_parse(text, strlen(text), "t", &back, &err), 0);
	assert_int_equal(sign_dsse_verify(back, &a.pub, &v, &err), -1);
	free(text);
	sign_dsse_free(env);
	sign_dsse_free(back);
}

static void
cosigning_keeps_payload_and_refuses_the_same_key(void **state)
{
	struct keypair a, b;
	sign_dsse_envelope *env, *back = NULL;
	sign_dsse_verification v;
	ps_error err;
	char *one, *two;

	(void)state;
	test_key(&a, 1);
	test_key(&b, 2);
	env = signed_envelope("{\"s\":\"payload\"}", &a, "A");
	one = serialize(env);
	assert_int_equal(sign_dsse_parse(one, strlen(one), "t", &back, &err), 0);
	assert_int_equal(sign_dsse_sign(back, b.sk, "B", &err), 0);
	assert_int_equal(sign_dsse_sign(back, a.sk, "A2", &err), -1);
	assert_string_equal(err.code, "already_signed");
	two = serialize(back);
	/* Same payload field, first signature kept byte for byte. */
	assert_memory_equal(one, two, strlen(one) - 3);
	assert_int_equal(sign_dsse_signature_count(back), 2);
	assert_string_equal(sign_dsse_keyid(back, 1), "B");
	assert_null(sign_dsse_keyid(back, 2));
	assert_int_equal(sign_dsse_verify(back, &a.pub, &v, &err), 0);
	assert_int_equal(v.verified[0] + 2 * v.verified[1], 1);
	assert_int_equal(sign_dsse_verify(back, &b.pub, &v, &err), 0);
	assert_int_equal(v.verified[0] + 2 * v.verified[1], 2);
	free(one);
	free(two);
	sign_dsse_free(env);
	sign_dsse_free(back);
}

/* A keyid naming another key decides nothing. */
static void
keyid_is_only_a_hint(void **state)
{
	struct keypair a, b;
	sign_dsse_envelope *env;
	sign_dsse_verification v;
	ps_error err;

	(void)state;
	test_key(&a, 1);
	test_key(&b, 2);
	env = signed_envelope("p", &b, "this-is-key-a");
	assert_int_equal(sign_dsse_verify(env, &a.pub, &v, &err), -1);
	assert_int_equal(sign_dsse_verify(env, &b.pub, &v, &err), 0);
	sign_dsse_free(env);
}

static char *
b64(const unsigned char *bin, size_t len, int variant)
{
	size_t n = sodium_base64_encoded_len(len, variant);
	char *out = malloc(n);

	assert_non_null(out);
	sodium_bin2base64(out, n, bin, len, variant);
	return out;
}

static void
both_base64_alphabets_are_accepted(void **state)
{
	static const int variants[] = { sodium_base64_VARIANT_ORIGINAL,
	    sodium_base64_VARIANT_ORIGINAL_NO_PADDING,
	    sodium_base64_VARIANT_URLSAFE, sodium_base64_VARIANT_URLSAFE_NO_PADDING };
	/* fb ff fe encodes to "+//+" (standard) and "-__-" (URL-safe). */
	const unsigned char payload[] = { 0xfb, 0xff, 0xfe };
	unsigned char *pae, sig[64];
	struct keypair a;
	sign_dsse_envelope *env;
	sign_dsse_verification v;
	ps_error err;
	char text[1024], *p64, *s64;
	size_t pae_len, i;

	(void)state;
	test_key(&a, 1);
	assert_int_equal(sign_dsse_pae("t/x", payload, 3, &pae, &pae_len, &err), 0);
	crypto_sign_detached(sig, NULL, pae, pae_len, a.sk);
	free(pae);
	for (i = 0; i < 4; i++) {
		p64 = b64(payload, 3, variants[i]);
		s64 = b64(sig, 64, variants[i]);
		snprintf(text, sizeof(text), "{\"payload\":\"%s\",\"payloadType\":"
		    "\"t/x\",\"signatures\":[{\"sig\":\"%s\"}]}", p64, s64);
		assert_int_equal(sign_dsse_parse(text, strlen(text), "t", &env,
		    &err), 0);
		assert_string_equal(sign_dsse_keyid(env, 0), "");
		assert_int_equal(sign_dsse_verify(env, &a.pub, &v, &err), 0);
		assert_memory_equal(v.payload, payload, 3);
		sign_dsse_free(env);
		free(p64);
		free(s64);
	}
}

static void
malformed_envelopes_are_refused(void **state)
{
	char *big;

	(void)state;
	assert_string_equal(parse_code("{\"payload\":\"\",\"payloadType\":\"t\","
	    "\"signatures\":[{\"keyid\":\"\",\"sig\":\"AAAA\"}],\"extra\":[1]}"),
	    "ok");
	assert_string_equal(parse_code("not json"), "envelope_malformed");
	assert_string_equal(parse_code("[]"), "envelope_malformed");
	assert_string_equal(parse_code("{\"payload\":\"\",\"payload\":\"\","
	    "\"payloadType\":\"t\",\"signatures\":[{\"sig\":\"AAAA\"}]}"),
	    "envelope_malformed");
	assert_string_equal(parse_code("{\"payloadType\":\"t\","
	    "\"signatures\":[{\"sig\":\"AAAA\"}]}"), "envelope_malformed");
	assert_string_equal(parse_code("{\"payload\":1,\"payloadType\":\"t\","
	    "\"signatures\":[{\"sig\":\"AAAA\"}]}"), "envelope_malformed");
	assert_string_equal(parse_code("{\"payload\":\"\",\"payloadType\":\"\","
	    "\"signatures\":[{\"sig\":\"AAAA\"}]}"), "envelope_malformed");
	assert_string_equal(parse_code("{\"payload\":\"\",\"payloadType\":\"t\","
	    "\"signatures\":[]}"), "envelope_malformed");
	assert_string_equal(parse_code("{\"payload\":\"\",\"payloadType\":\"t\","
	    "\"signatures\":{}}"), "envelope_malformed");
	assert_string_equal(parse_code("{\"payload\":\"\",\"payloadType\":\"t\","
	    "\"signatures\":[{\"keyid\":7,\"sig\":\"AAAA\"}]}"),
	    "envelope_malformed");
	assert_string_equal(parse_code("{\"payload\":\"\",\"payloadType\":\"t\","
	    "\"signatures\":[{\"keyid\":\"k\"}]}"), "envelope_malformed");
	assert_string_equal(parse_code("{\"payload\":\"\",\"payloadType\":\"t\","
	    "\"signatures\":[{\"sig\":\"\"}]}"), "envelope_malformed");
	/* Not base64 in either alphabet; whitespace; non-zero padding bits. */
	assert_string_equal(parse_code("{\"payload\":\"a*b=\",\"payloadType\":"
	    "\"t\",\"signatures\":[{\"sig\":\"AAAA\"}]}"), "envelope_malformed");
	assert_string_equal(parse_code("{\"payload\":\"AA AA\",\"payloadType\":"
	    "\"t\",\"signatures\":[{\"sig\":\"AAAA\"}]}"), "envelope_malformed");
	assert_string_equal(parse_code("{\"payload\":\"AB==\",\"payloadType\":"
	    "\"t\",\"signatures\":[{\"sig\":\"AAAA\"}]}"), "envelope_malformed");
	assert_string_equal(parse_code("{\"payload\":\"Pz8+Pz8-\",\"payloadType\":"
	    "\"t\",\"signatures\":[{\"sig\":\"AAAA\"}]}"), "envelope_malformed");
	big = malloc(SIGN_DSSE_MAX_BYTES + 2);
	assert_non_null(big);
	memset(big, ' ', SIGN_DSSE_MAX_BYTES + 1);
	big[SIGN_DSSE_MAX_BYTES + 1] = '\0';
	assert_string_equal(parse_code(big), "envelope_too_large");
	free(big);
}

static void
signature_count_is_capped(void **state)
{
	size_t n = 65, i, len = 0;
	char *text = malloc(64 + n * 16);

	(void)state;
	assert_non_null(text);
	len += (size_t)sprintf(text, "{\"payload\":\"\",\"payloadType\":\"t\","
	    "\"signatures\":[");
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(text + len, "%s{\"sig\":\"AAAA\"}",
		    i > 0 ? "," : "");
	strcpy(text + len, "]}");
	assert_string_equal(parse_code(text), "envelope_malformed");
	free(text);
}

static void
read_fd_caps_the_size(void **state)
{
	char path[] = "/tmp/ps-dsse-XXXXXX";
	sign_dsse_envelope *env = NULL;
	ps_error err;
	char *chunk = calloc(1, 1024 * 1024);
	int fd = mkstemp(path), i;

	(void)state;
	assert_true(fd >= 0 && chunk != NULL);
	unlink(path);
	memset(chunk, ' ', 1024 * 1024);
	for (i = 0; i < 4; i++)
		assert_int_equal(write(fd, chunk, 1024 * 1024), 1024 * 1024);
	assert_int_equal(write(fd, "{}", 2), 2);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(sign_dsse_read_fd(fd, "big.sig", &env, &err), -1);
	assert_string_equal(err.code, "envelope_too_large");
	close(fd);
	free(chunk);
}

/* ----------------------------------------------------------- statement */

static void
fill_digest(unsigned char *d, unsigned char v)
{
	memset(d, v, PS_SHA256_LEN);
}

static sign_statement *
example_statement(void)
{
	sign_statement *st = NULL;
	unsigned char d[PS_SHA256_LEN];
	ps_error err;

	assert_int_equal(sign_statement_new(&st, &err), 0);
	fill_digest(d, 0xaa);
	assert_int_equal(sign_statement_add_subject(st, "research.tar.gz", d,
	    &err), 0);
	st->format = PS_FORMAT_AGENTPACK;
	st->pack_id = strdup("research.top-journal-reviewer");
	st->pack_version = strdup("1.2.0");
	st->pack_name = strdup("Top journal reviewer");
	fill_digest(st->tar_digest, 0x11);
	fill_digest(st->tree_digest, 0x22);
	st->manifest_path = strdup("manifest.yml");
	fill_digest(st->manifest_sha256, 0x33);
	fill_digest(d, 0x44);
	assert_int_equal(sign_statement_add_prompt(st, "prompts/review.md", d,
	    &err), 0);
	fill_digest(d, 0x55);
	assert_int_equal(sign_statement_add_prompt(st, "prompts/caf\xc3\xa9.md", d,
	    &err), 0);
	st->has_source = 1;
	st->source_repository = strdup("https://github.com/example/packs");
	st->source_commit = strdup("0123456789abcdef0123456789abcdef01234567");
	st->source_path = strdup("packs/reviewer");
	st->source_dirty = 0;
	st->packsign_version = strdup(PS_VERSION);
	st->mtime = 1700000000;
	st->compression = PS_COMPRESS_GZIP;
	return st;
}

#define H(c) c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c
static const char example_json[] =
    "{\"_type\":\"https://in-toto.io/Statement/v1\",\"predicate\":{"
    "\"build\":{\"compression\":\"gzip\",\"mtime\":1700000000,"
    "\"packsignVersion\":\"0.1.0\"},\"format\":\"agentpack\",\"manifest\":"
    "{\"digest\":{\"sha256\":\"" H("33") "\"},\"path\":\"manifest.yml\"},"
    "\"pack\":{\"id\":\"research.top-journal-reviewer\",\"name\":"
    "\"Top journal reviewer\",\"version\":\"1.2.0\"},\"prompts\":["
    "{\"digest\":{\"sha256\":\"" H("55") "\"},\"path\":"
    "\"prompts/caf\\u00E9.md\"},"
    "{\"digest\":{\"sha256\":\"" H("44") "\"},\"path\":"
    "\"prompts/review.md\"}],\"source\":{\"digest\":{\"gitCommit\":"
    "\"0123456789abcdef0123456789abcdef01234567\"},\"dirty\":false,"
    "\"path\":\"packs/reviewer\",\"repository\":"
    "\"https://github.com/example/packs\"},\"tarDigest\":{\"sha256\":\""
    H("11") "\"},\"treeDigest\":{\"sha256\":\"" H("22") "\"}},"
    "\"predicateType\":\"https://packsign.dev/attestation/pack/v1\","
    "\"subject\":[{\"digest\":{\"sha256\":\"" H("aa") "\"},\"name\":"
    "\"research.tar.gz\"}]}";

static void
statement_bytes_are_canonical(void **state)
{
	sign_statement *st = example_statement(), *back = NULL;
	unsigned char *one = NULL, *two = NULL;
	size_t n1, n2;
	ps_error err;

	(void)state;
	assert_int_equal(sign_statement_serialize(st, &one, &n1, &err), 0);
	assert_int_equal(n1, strlen(example_json));
	assert_memory_equal(one, example_json, n1);
	assert_int_equal(sign_statement_parse(one, n1, &back, &err), 0);
	assert_int_equal(sign_statement_serialize(back, &two, &n2, &err), 0);
	assert_int_equal(n1, n2);
	assert_memory_equal(one, two, n1);
	assert_string_equal(back->prompts[0].path, "prompts/caf\xc3\xa9.md");
	assert_int_equal(back->mtime, 1700000000);
	assert_int_equal(back->compression, PS_COMPRESS_GZIP);
	assert_non_null(sign_statement_find_subject(back, "research.tar.gz"));
	assert_null(sign_statement_find_subject(back, "other.tar.gz"));
	free(one);
	free(two);
	sign_statement_free(st);
	sign_statement_free(back);
}

/* Replaces the first `from` in the example by `to`; parse result code. */
static const char *
mutated(const char *from, const char *to)
{
	static ps_error err;
	char text[sizeof(example_json) + 512];
	const char *at = strstr(example_json, from);
	sign_statement *st = NULL;
	size_t head;

	assert_non_null(at);
	head = (size_t)(at - example_json);
	memcpy(text, example_json, head);
	snprintf(text + head, sizeof(text) - head, "%s%s", to, at + strlen(from));
	if (sign_statement_parse((unsigned char *)text, strlen(text), &st,
	    &err) == 0) {
		sign_statement_free(st);
		return "ok";
	}
	assert_int_equal(err.status, PS_STATUS_REFUSED);
	return err.code;
}

static void
statement_parser_is_strict(void **state)
{
	(void)state;
	assert_string_equal(mutated("{\"_type\"", "{\"future\":1,\"_type\""), "ok");
	assert_string_equal(mutated("\"name\":\"research",
	    "\"uri\":\"x\",\"name\":\"research"), "ok");
	assert_string_equal(mutated("{\"sha256\":\"aaaa",
	    "{\"sha512\":\"00\",\"sha256\":\"aaaa"), "ok");
	assert_string_equal(mutated("Statement/v1", "Statement/v0.1"),
	    "statement_type_unknown");
	assert_string_equal(mutated("pack/v1", "pack/v3"),
	    "predicate_type_unknown");
	/* v2 without its chunks (signature.md, section 4.4) */
	assert_string_equal(mutated("pack/v1", "pack/v2"),
	    "statement_invalid");
	assert_string_equal(mutated("\"build\":{", "\"signer\":\"x\",\"build\":{"),
	    "statement_invalid");
	assert_string_equal(mutated("\"dirty\":false", "\"dirty\":false,\"x\":1"),
	    "statement_invalid");
	assert_string_equal(mutated("\"dirty\":false", "\"dirty\":\"no\""),
	    "statement_invalid");
	assert_string_equal(mutated("1700000000", "\"1700000000\""),
	    "statement_invalid");
	assert_string_equal(mutated("1700000000", "-1"), "statement_invalid");
	assert_string_equal(mutated("\"gzip\"", "\"bzip2\""), "statement_invalid");
	assert_string_equal(mutated("\"agentpack\"", "\"holon\""),
	    "statement_invalid");
	assert_string_equal(mutated("\"sha256\":\"3333", "\"sha256\":\"333"),
	    "statement_invalid");
	assert_string_equal(mutated("\"sha256\":\"3333", "\"sha256\":\"AA33"),
	    "statement_invalid");
	assert_string_equal(mutated("{\"sha256\":\"3333",
	    "{\"md5\":\"x\",\"sha256\":\"3333"), "statement_invalid");
	assert_string_equal(mutated("01234567\"}", "0123456\"}"),
	    "statement_invalid");
	assert_string_equal(mutated("\"0123456789abcdef", "\"0123456789ABCDEF"),
	    "statement_invalid");
	assert_string_equal(mutated("prompts/review.md", "prompts/../x.md"),
	    "name_dot_component");
	assert_string_equal(mutated("prompts/review.md", "prompts/a.md"),
	    "statement_invalid");          /* no longer sorted */
	assert_string_equal(mutated("packs/reviewer", "/etc"), "name_absolute");
	assert_string_equal(mutated("https://github.com", "http://github.com"),
	    "statement_invalid");
	assert_string_equal(mutated("\"research.tar.gz\"", "\"a/b.tar\""),
	    "statement_invalid");
	assert_string_equal(mutated("{\"_type\"", "{\"_type\":1,\"_type\""),
	    "statement_invalid");          /* duplicate key */
	assert_string_equal(mutated("\"version\":\"1.2.0\"", "\"version\":\"\""),
	    "statement_invalid");
	assert_string_equal(mutated("\"subject\":[{", "\"subject\":[],\"x\":[{"),
	    "statement_invalid");
}

static void
statement_limits(void **state)
{
	sign_statement *st = example_statement();
	unsigned char d[PS_SHA256_LEN] = { 0 };
	char path[32];
	ps_error err;
	int i, rc = 0;

	(void)state;
	for (i = 0; rc == 0 && i < SIGN_STATEMENT_MAX_ITEMS + 1; i++) {
		snprintf(path, sizeof(path), "p/%05d.md", i);
		rc = sign_statement_add_prompt(st, path, d, &err);
	}
	assert_int_equal(rc, -1);
	assert_int_equal(i, SIGN_STATEMENT_MAX_ITEMS - 1);  /* two were there */
	assert_string_equal(err.code, "statement_invalid");
	sign_statement_free(st);
}

static void
statement_from_verified_payload_only(void **state)
{
	sign_statement *st = example_statement(), *back = NULL;
	unsigned char *json = NULL;
	size_t len;
	struct keypair a;
	sign_dsse_envelope *env = NULL;
	sign_dsse_verification v;
	ps_error err;

	(void)state;
	test_key(&a, 1);
	assert_int_equal(sign_statement_serialize(st, &json, &len, &err), 0);
	memset(&v, 0, sizeof(v));
	assert_int_equal(sign_statement_from_verified(&v, &back, &err), -1);
	assert_string_equal(err.code, "internal_error");
	assert_int_equal(sign_dsse_new("application/json", json, len, &env,
	    &err), 0);
	assert_int_equal(sign_dsse_sign(env, a.sk, "", &err), 0);
	assert_int_equal(sign_dsse_verify(env, &a.pub, &v, &err), 0);
	assert_int_equal(sign_statement_from_verified(&v, &back, &err), -1);
	assert_string_equal(err.code, "payload_type_unknown");
	sign_dsse_free(env);
	assert_int_equal(sign_dsse_new(SIGN_INTOTO_PAYLOAD_TYPE, json, len, &env,
	    &err), 0);
	assert_int_equal(sign_dsse_sign(env, a.sk, "", &err), 0);
	assert_int_equal(sign_dsse_verify(env, &a.pub, &v, &err), 0);
	assert_int_equal(sign_statement_from_verified(&v, &back, &err), 0);
	assert_string_equal(back->pack_id, "research.top-journal-reviewer");
	sign_statement_free(back);
	sign_dsse_free(env);
	free(json);
	sign_statement_free(st);
}

/* The complete example of docs/formats/signature.md, "Example". */
static const char doc_example_sig[] =
#include "dsse_example.inc"
;

static void
documented_example_envelope(void **state)
{
	sign_statement *st = example_statement();
	unsigned char *json = NULL;
	size_t len, text_len;
	struct keypair a;
	sign_dsse_envelope *env = NULL;
	ps_error err;
	char *text = NULL;

	(void)state;
	test_key(&a, 1);
	assert_int_equal(sign_statement_serialize(st, &json, &len, &err), 0);
	assert_int_equal(sign_dsse_new(SIGN_INTOTO_PAYLOAD_TYPE, json, len, &env,
	    &err), 0);
	assert_int_equal(sign_dsse_sign(env, a.sk, "test-key-01", &err), 0);
	assert_int_equal(sign_dsse_serialize(env, &text, &text_len, &err), 0);
	if (getenv("PS_PRINT_EXAMPLE") != NULL)
		fputs(text, stderr);
	assert_string_equal(text, doc_example_sig);
	free(text);
	free(json);
	sign_dsse_free(env);
	sign_statement_free(st);
}

/* signature.md shows the same bytes (run from the source tree). */
static void
documented_example_is_in_the_spec(void **state)
{
	FILE *f = fopen("docs/formats/signature.md", "r");
	char *doc = calloc(1, 256 * 1024), line[sizeof(doc_example_sig)];
	size_t n;

	(void)state;
	if (f == NULL) {
		free(doc);
		skip();
	}
	assert_non_null(doc);
	n = fread(doc, 1, 256 * 1024 - 1, f);
	fclose(f);
	doc[n] = '\0';
	memcpy(line, doc_example_sig, sizeof(doc_example_sig));
	line[strlen(line) - 1] = '\0';        /* the LF */
	assert_non_null(strstr(doc, line));
	free(doc);
}

static void
statement_takes_the_pack_digests(void **state)
{
	sign_statement *st = NULL;
	ps_digest d;
	ps_error err;

	(void)state;
	memset(&d, 0, sizeof(d));
	d.format = PS_FORMAT_HOLON;
	d.manifest_path = (char *)"holon.yaml";
	fill_digest(d.manifest_sha256, 1);
	fill_digest(d.tree_digest, 2);
	fill_digest(d.tar_digest, 3);
	assert_int_equal(sign_statement_new(&st, &err), 0);
	/* A .zip has no tar stream: the statement then has no tarDigest. */
	assert_int_equal(sign_statement_set_digest(st, &d, &err), 0);
	assert_int_equal(st->no_tar_digest, 1);
	d.has_tar_digest = 1;
	assert_int_equal(sign_statement_set_digest(st, &d, &err), 0);
	assert_int_equal(st->no_tar_digest, 0);
	assert_int_equal(st->format, PS_FORMAT_HOLON);
	assert_string_equal(st->manifest_path, "holon.yaml");
	assert_memory_equal(st->tar_digest, d.tar_digest, PS_SHA256_LEN);
	assert_memory_equal(st->tree_digest, d.tree_digest, PS_SHA256_LEN);
	assert_memory_equal(st->manifest_sha256, d.manifest_sha256,
	    PS_SHA256_LEN);
	sign_statement_free(st);
}

/* A .zip signed as it is: no tarDigest, no build; both parse back. */
static void
statement_without_tar_digest_or_build(void **state)
{
	sign_statement *st = example_statement(), *back = NULL;
	sign_dsse_envelope *env = NULL;
	unsigned char *bytes = NULL;
	size_t len = 0;
	ps_error err;

	(void)state;
	st->no_tar_digest = 1;
	st->no_build = 1;
	assert_int_equal(sign_statement_serialize(st, &bytes, &len, &err), 0);
	assert_null(memmem(bytes, len, "tarDigest", 9));
	assert_null(memmem(bytes, len, "\"build\"", 7));
	assert_int_equal(sign_statement_parse(bytes, len, &back, &err), 0);
	assert_int_equal(back->no_tar_digest, 1);
	assert_int_equal(back->no_build, 1);
	assert_null(back->packsign_version);
	assert_int_equal(sign_dsse_new(SIGN_INTOTO_PAYLOAD_TYPE, bytes, len, &env,
	    &err), 0);
	assert_int_equal(sign_dsse_payload_equal(env, SIGN_INTOTO_PAYLOAD_TYPE,
	    bytes, len), 1);
	assert_int_equal(sign_dsse_payload_equal(env, SIGN_INTOTO_PAYLOAD_TYPE,
	    bytes, len - 1), 0);
	assert_int_equal(sign_dsse_payload_equal(env, "text/plain", bytes, len),
	    0);
	sign_dsse_free(env);
	sign_statement_free(back);
	sign_statement_free(st);
	free(bytes);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pae_test_vector),
		cmocka_unit_test(sign_serialize_parse_verify),
		cmocka_unit_test(wrong_key_or_tampered_payload_fails),
		cmocka_unit_test(payload_type_is_authenticated),
		cmocka_unit_test(cosigning_keeps_payload_and_refuses_the_same_key),
		cmocka_unit_test(keyid_is_only_a_hint),
		cmocka_unit_test(both_base64_alphabets_are_accepted),
		cmocka_unit_test(malformed_envelopes_are_refused),
		cmocka_unit_test(signature_count_is_capped),
		cmocka_unit_test(read_fd_caps_the_size),
		cmocka_unit_test(statement_bytes_are_canonical),
		cmocka_unit_test(statement_parser_is_strict),
		cmocka_unit_test(statement_limits),
		cmocka_unit_test(statement_from_verified_payload_only),
		cmocka_unit_test(documented_example_envelope),
		cmocka_unit_test(documented_example_is_in_the_spec),
		cmocka_unit_test(statement_takes_the_pack_digests),
		cmocka_unit_test(statement_without_tar_digest_or_build),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
