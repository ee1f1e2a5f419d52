/*
 * Unit tests: chunk digests (util/chunks.c) and the v2 statement's
 * `chunks` (sign/statement.c; signature.md section 4.4): one digest per
 * 1 MiB, the last chunk short; a chunk that differs, a stream shorter or
 * longer than the list; and the parser's rules: the list shortened,
 * lengthened, over its bound, another chunk size, `chunks` in v1, a v2
 * statement for a zip.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "sign/statement.h"
#include "util/chunks.h"
#include "util/sha256.h"

#define MIB UTIL_CHUNK_SIZE

static unsigned char *
pattern(size_t len)
{
	unsigned char *p = malloc(len + 1);
	size_t i;

	assert_non_null(p);
	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(i * 31 + i / 4099);
	return p;
}

/* The digests of `len` bytes fed in pieces of `step`: one per 1 MiB,
 * each the SHA-256 of its slice. */
static void
keeps_one_digest_per_chunk(void **state)
{
	static const size_t sizes[] = { 1, MIB - 1, MIB, MIB + 1, 2 * MIB,
	    2 * MIB + 77 };
	static const size_t steps[] = { 1000, 65536, 3 * MIB };
	unsigned char want[PS_SHA256_LEN], *data = pattern(3 * MIB);
	util_chunks c;
	size_t i, j, k, off, n;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (j = 0; j < sizeof(steps) / sizeof(steps[0]); j++) {
			assert_int_equal(util_chunks_keep(&c, 16), 0);
			for (off = 0; off < sizes[i]; off += n) {
				n = sizes[i] - off < steps[j] ? sizes[i] - off : steps[j];
				assert_int_equal(util_chunks_update(&c, data + off, n), 0);
			}
			assert_int_equal(util_chunks_finish(&c), 0);
			assert_int_equal(c.count, util_chunks_count(sizes[i]));
			assert_int_equal(c.size, sizes[i]);
			for (k = 0; k < c.count; k++) {
				n = sizes[i] - k * MIB < MIB ? sizes[i] - k * MIB : MIB;
				assert_int_equal(util_sha256_buffer(data + k * MIB, n,
				    want), 0);
				assert_memory_equal(c.digests[k], want, PS_SHA256_LEN);
			}
			util_chunks_free(&c);
		}
	}
	assert_int_equal(util_chunks_count(0), 0);
	free(data);
}

/* More chunks than `max`: over, nothing kept past it. */
static void
bound_is_kept(void **state)
{
	unsigned char *data = pattern(3 * MIB);
	util_chunks c;

	(void)state;
	assert_int_equal(util_chunks_keep(&c, 2), 0);
	assert_int_equal(util_chunks_update(&c, data, 3 * MIB), 0);
	assert_int_equal(util_chunks_finish(&c), 0);
	assert_true(c.over);
	assert_int_equal(c.count, 2);
	util_chunks_free(&c);
	free(data);
}

/* Compared with a list: each chunk flipped, the stream cut at a chunk
 * boundary and inside one, extended, chunks swapped. */
static void
compare_finds_the_first_bad_chunk(void **state)
{
	unsigned char *data = pattern(3 * MIB), (*list)[PS_SHA256_LEN], *tmp;
	size_t len = 2 * MIB + 500, i;
	util_chunks k, c;

	(void)state;
	assert_int_equal(util_chunks_keep(&k, 16), 0);
	assert_int_equal(util_chunks_update(&k, data, len), 0);
	assert_int_equal(util_chunks_finish(&k), 0);
	list = k.digests;
	/* the same bytes */
	assert_int_equal(util_chunks_compare(&c, (const void *)list, 3), 0);
	assert_int_equal(util_chunks_update(&c, data, len), 0);
	assert_int_equal(util_chunks_finish(&c), 0);
	assert_false(c.bad);
	util_chunks_free(&c);
	for (i = 0; i < 3; i++) {          /* each chunk flipped */
		data[i * MIB + 7] ^= 1;
		assert_int_equal(util_chunks_compare(&c, (const void *)list, 3), 0);
		assert_int_equal(util_chunks_update(&c, data, len), 0);
		assert_int_equal(util_chunks_finish(&c), 0);
		assert_true(c.bad);
		assert_int_equal(c.bad_index, i);
		util_chunks_free(&c);
		data[i * MIB + 7] ^= 1;
	}
	/* cut at a boundary: chunk 2 missing; inside chunk 1: it differs */
	assert_int_equal(util_chunks_compare(&c, (const void *)list, 3), 0);
	assert_int_equal(util_chunks_update(&c, data, 2 * MIB), 0);
	assert_int_equal(util_chunks_finish(&c), 0);
	assert_true(c.bad);
	assert_int_equal(c.bad_index, 2);
	assert_int_equal(c.count, 2);
	util_chunks_free(&c);
	assert_int_equal(util_chunks_compare(&c, (const void *)list, 3), 0);
	assert_int_equal(util_chunks_update(&c, data, MIB + 10), 0);
	assert_int_equal(util_chunks_finish(&c), 0);
	assert_int_equal(c.bad_index, 1);
	util_chunks_free(&c);
	/* extended: the short last chunk now differs; by a chunk more: past
	 * the list */
	assert_int_equal(util_chunks_compare(&c, (const void *)list, 3), 0);
	assert_int_equal(util_chunks_update(&c, data, len + 1), 0);
	assert_int_equal(util_chunks_finish(&c), 0);
	assert_int_equal(c.bad_index, 2);
	util_chunks_free(&c);
	assert_int_equal(util_chunks_compare(&c, (const void *)list, 2), 0);
	assert_int_equal(util_chunks_update(&c, data, len), 0);
	assert_int_equal(util_chunks_finish(&c), 0);
	assert_true(c.bad);
	assert_int_equal(c.bad_index, 2);
	util_chunks_free(&c);
	/* chunks 0 and 1 swapped in the stream */
	tmp = malloc(MIB);
	assert_non_null(tmp);
	memcpy(tmp, data, MIB);
	memmove(data, data + MIB, MIB);
	memcpy(data + MIB, tmp, MIB);
	free(tmp);
	assert_int_equal(util_chunks_compare(&c, (const void *)list, 3), 0);
	assert_int_equal(util_chunks_update(&c, data, len), 0);
	assert_int_equal(util_chunks_finish(&c), 0);
	assert_int_equal(c.bad_index, 0);
	util_chunks_free(&c);
	util_chunks_free(&k);
	free(data);
}

/* A v2 statement of `size` bytes with `count` digests, as JSON text
 * (edited by `edit`, may be NULL), parsed: its code, or "ok". */
static const char *
parse_v2(uint64_t size, size_t count, const char *subject,
    void (*edit)(json_t *root))
{
	static ps_error err;
	unsigned char d[PS_SHA256_LEN], *bytes;
	unsigned char (*list)[PS_SHA256_LEN] = calloc(count + 3, sizeof(*list));
	sign_statement *st = NULL, *back = NULL;
	size_t len;
	json_t *root;
	char *text;
	const char *code = "ok";

	memset(d, 0xaa, sizeof(d));
	assert_int_equal(sign_statement_new(&st, &err), 0);
	assert_int_equal(sign_statement_add_subject(st, subject, d, &err), 0);
	st->format = PS_FORMAT_AGENTPACK;
	st->pack_id = strdup("a.b");
	st->pack_version = strdup("1.0.0");
	st->manifest_path = strdup("manifest.yml");
	st->no_build = 1;
	/* a list that is valid, then edited in the JSON */
	assert_int_equal(sign_statement_set_chunks(st, 3 * MIB, (const void *)
	    list, 3, &err), 0);
	if (sign_statement_serialize(st, &bytes, &len, &err) != 0)
		fail_msg("serialize: %s [%s]", err.message, err.code);
	root = json_loadb((const char *)bytes, len, 0, NULL);
	free(bytes);
	assert_non_null(root);
	json_object_set_new(json_object_get(json_object_get(root, "predicate"),
	    "chunks"), "archiveSize", json_integer((json_int_t)size));
	while (json_array_size(json_object_get(json_object_get(json_object_get(
	    root, "predicate"), "chunks"), "sha256")) > count)
		json_array_remove(json_object_get(json_object_get(json_object_get(
		    root, "predicate"), "chunks"), "sha256"), 0);
	while (json_array_size(json_object_get(json_object_get(json_object_get(
	    root, "predicate"), "chunks"), "sha256")) < count)
		json_array_append_new(json_object_get(json_object_get(
		    json_object_get(root, "predicate"), "chunks"), "sha256"),
		    json_string("0000000000000000000000000000000000000000000000000000000000000000"));
	if (edit != NULL)
		edit(root);
	text = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	if (sign_statement_parse((unsigned char *)text, strlen(text), &back,
	    &err) != 0)
		code = err.code;
	sign_statement_free(back);
	sign_statement_free(st);
	free(text);
	free(list);
	return code;
}

static void
chunk_size_7(json_t *root)
{
	json_object_set_new(json_object_get(json_object_get(root, "predicate"),
	    "chunks"), "chunkSize", json_integer(7));
}

static void
as_v1(json_t *root)
{
	json_object_set_new(root, "predicateType",
	    json_string(SIGN_PREDICATE_TYPE));
}

static void
no_chunks(json_t *root)
{
	json_object_del(json_object_get(root, "predicate"), "chunks");
}

static void
extra_member(json_t *root)
{
	json_object_set_new(json_object_get(json_object_get(root, "predicate"),
	    "chunks"), "order", json_string("any"));
}

static void
zip_subject(json_t *root)
{
	json_object_set_new(json_array_get(json_object_get(root, "subject"), 0),
	    "name", json_string("a.zip"));
}

static void
statement_rules(void **state)
{
	(void)state;
	assert_string_equal(parse_v2(3 * MIB, 3, "a.tar", NULL), "ok");
	assert_string_equal(parse_v2(2 * MIB + 1, 3, "a.tar", NULL), "ok");
	assert_string_equal(parse_v2(3 * MIB, 2, "a.tar", NULL),
	    "statement_invalid");                      /* shortened */
	assert_string_equal(parse_v2(3 * MIB, 4, "a.tar", NULL),
	    "statement_invalid");                      /* lengthened */
	assert_string_equal(parse_v2(2 * MIB, 3, "a.tar", NULL),
	    "statement_invalid");                      /* size disagrees */
	assert_string_equal(parse_v2(16385ULL * MIB, 16385, "a.tar", NULL),
	    "statement_invalid");                      /* over the bound */
	assert_string_equal(parse_v2(16384ULL * MIB, 16384, "a.tar", NULL),
	    "ok");                                     /* at the bound */
	assert_string_equal(parse_v2(0, 0, "a.tar", NULL), "statement_invalid");
	assert_string_equal(parse_v2(3 * MIB, 3, "a.tar", chunk_size_7),
	    "statement_invalid");
	assert_string_equal(parse_v2(3 * MIB, 3, "a.tar", extra_member),
	    "statement_invalid");
	assert_string_equal(parse_v2(3 * MIB, 3, "a.tar", as_v1),
	    "statement_invalid");                      /* chunks in v1 */
	assert_string_equal(parse_v2(3 * MIB, 3, "a.tar", no_chunks),
	    "statement_invalid");                      /* v2 without */
	assert_string_equal(parse_v2(3 * MIB, 3, "a.tar", zip_subject),
	    "statement_invalid");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keeps_one_digest_per_chunk),
		cmocka_unit_test(bound_is_kept),
		cmocka_unit_test(compare_finds_the_first_bad_chunk),
		cmocka_unit_test(statement_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
