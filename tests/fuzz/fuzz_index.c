/*
 * The signed pack index: its payload parser, its envelope verification and
 * the client state file (docs/formats/index.md).  Byte 0 picks the mode
 * (byte 0 mod 3):
 *   0  index_payload_parse() of the rest, the parser a verified signature
 *      hands the payload to;
 *   1  ps_index_verify() of the rest as an envelope, against a fixed policy
 *      of four keys derived from fixed seeds (tests/fuzz/mkcorpus signs
 *      seeds with the same keys); bit 3 of byte 0 allows expiry;
 *   2  the rest as DIR/index-state.json: ps_index_state_load() and
 *      ps_index_state_check(); bit 3 of byte 0 also records an index with
 *      ps_index_state_record() and loads again.
 * A parsed index is checked whole (bounds, order, URLs), written back and
 * parsed again (the same entries), and resolved (each entry exactly; "*"
 * agrees with ps_index_newest()).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sodium.h>

#include "fuzz.h"
#include "index/index.h"

/* 2026-06-01T00:00:00Z: inside the seeds' validity (mkcorpus). */
#define FUZZ_INDEX_AT 1780272000LL
#define FUZZ_KEYS 4

static ps_trust *fuzz_policy;
static char fuzz_dir[128];

/* The minisign public key line of the key of seed bytes `b`. */
static void
key_line(unsigned char b, char *out, size_t size)
{
	unsigned char seed[crypto_sign_SEEDBYTES], sk[crypto_sign_SECRETKEYBYTES];
	unsigned char raw[2 + 8 + crypto_sign_PUBLICKEYBYTES];

	memset(seed, b, sizeof(seed));
	crypto_sign_seed_keypair(raw + 10, sk, seed);
	memcpy(raw, "Ed", 2);
	memcpy(raw + 2, raw + 10, 8);
	sodium_bin2base64(out, size, raw, sizeof(raw),
	    sodium_base64_VARIANT_ORIGINAL);
}

/* Seeds 0x42 (index role, packs "acme.*" and "acme/" anything), 0x43 (packs only:
 * role_missing), 0x44 (both roles, min_index_version 5) and 0x45
 * (revoked). */
static void
fixed_policy(void)
{
	char k[FUZZ_KEYS][80], text[1024];
	ps_error err;
	int i;

	if (fuzz_policy != NULL)
		return;
	if (sodium_init() < 0)
		fuzz_fail("sodium_init", NULL);
	for (i = 0; i < FUZZ_KEYS; i++)
		key_line((unsigned char)(0x42 + i), k[i], sizeof(k[i]));
	snprintf(text, sizeof(text), "version: 1\nsigners:\n"
	    "  - identity: fuzz-index\n    keys:\n      - key: %s\n"
	    "    packs: [\"acme.*\", \"acme/*\"]\n    roles: [index]\n"
	    "  - identity: fuzz-pack\n    keys:\n      - key: %s\n"
	    "    packs: [\"*\"]\n"
	    "  - identity: fuzz-floor\n    keys:\n      - key: %s\n"
	    "    packs: [\"*\"]\n    roles: [pack, index]\n"
	    "    min_index_version: 5\n"
	    "revoked:\n  - key: %s\n    reason: fuzz\n", k[0], k[1], k[2], k[3]);
	ps_error_clear(&err);
	if (ps_trust_load(text, strlen(text), "fuzz-policy", &fuzz_policy,
	    &err) != 0)
		fuzz_fail("fixed policy", err.code);
}

static void
check_signers(const ps_index_entry *e)
{
	size_t i;

	if (e->signer_count < 1 || e->signer_count > PS_INDEX_MAX_SIGNERS)
		fuzz_fail("index entry", "signer count");
	for (i = 0; i < e->signer_count; i++) {
		if (e->signers[i] == NULL || strncmp(e->signers[i], "SHA256:",
		    7) != 0)
			fuzz_fail("index entry", "signer");
		if (i > 0 && strcmp(e->signers[i - 1], e->signers[i]) >= 0)
			fuzz_fail("index entry", "signers not sorted, distinct");
	}
}

static void
check_model(const ps_index *ix)
{
	size_t i;

	if (ix->entry_count > PS_INDEX_MAX_ENTRIES)
		fuzz_fail("index", "too many entries");
	if (ix->version < 1 || ix->version > PS_INDEX_VERSION_MAX)
		fuzz_fail("index", "version out of range");
	if (ix->expires <= ix->issued)
		fuzz_fail("index", "expires not after issued");
	if (ix->publisher == NULL || !ps_identity_valid(ix->publisher))
		fuzz_fail("index", "publisher");
	for (i = 0; i < ix->entry_count; i++) {
		const ps_index_entry *e = &ix->entries[i];

		if (e->archive_url == NULL || strncmp(e->archive_url,
		    "https://", 8) != 0 || strlen(e->archive_url) >
		    PS_INDEX_MAX_URL)
			fuzz_fail("index entry", "archive_url");
		if (e->size < 1 || e->size > PS_INDEX_VERSION_MAX)
			fuzz_fail("index entry", "size");
		if (i > 0 && index_entry_compare(&ix->entries[i - 1], e) >= 0)
			fuzz_fail("index entry", "not sorted or not distinct");
		check_signers(e);
	}
}

static int
same_text(const char *a, const char *b)
{
	return (a == NULL && b == NULL) ||
	    (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static void
same_entry(const ps_index_entry *a, const ps_index_entry *b)
{
	size_t i;

	if (a->format != b->format || !same_text(a->id, b->id) ||
	    !same_text(a->version, b->version) || !same_text(a->url, b->url) ||
	    !same_text(a->archive_url, b->archive_url) ||
	    memcmp(a->sha256, b->sha256, PS_SHA256_LEN) != 0 ||
	    a->size != b->size || memcmp(a->tree_digest, b->tree_digest,
	    PS_SHA256_LEN) != 0 || a->signer_count != b->signer_count ||
	    a->published != b->published || !same_text(a->yanked, b->yanked))
		fuzz_fail("index round trip", a->id);
	for (i = 0; i < a->signer_count; i++)
		if (strcmp(a->signers[i], b->signers[i]) != 0)
			fuzz_fail("index round trip", "signers");
}

/* Written canonically and parsed again: the same index, the same bytes. */
static void
check_roundtrip(const ps_index *ix)
{
	char *out = NULL, *again_out = NULL;
	size_t len = 0, again_len = 0, i;
	ps_index *again = NULL;
	ps_error err;

	ps_error_clear(&err);
	if (index_payload_write(ix, &out, &len, &err) != 0)
		fuzz_fail("index_payload_write", err.code);
	if (index_payload_parse((const unsigned char *)out, len, "again",
	    &again, &err) != 0)
		fuzz_fail("index re-parse", err.code);
	if (again->version != ix->version || strcmp(again->publisher,
	    ix->publisher) != 0 || again->issued != ix->issued ||
	    again->expires != ix->expires || !same_text(again->base_url,
	    ix->base_url) || again->entry_count != ix->entry_count)
		fuzz_fail("index round trip", "header");
	for (i = 0; i < ix->entry_count; i++)
		same_entry(&ix->entries[i], &again->entries[i]);
	if (index_payload_write(again, &again_out, &again_len, &err) != 0)
		fuzz_fail("index_payload_write again", err.code);
	if (len != again_len || memcmp(out, again_out, len) != 0)
		fuzz_fail("index round trip", "bytes differ");
	free(out);
	free(again_out);
	ps_index_free(again);
}

static void
check_resolve_one(const ps_index *ix, const ps_index_entry *e)
{
	const ps_index_entry *got = NULL, *newest;
	ps_error err;

	ps_error_clear(&err);
	if (ps_index_resolve(ix, e->id, e->version, 1, &got, &err) != 0) {
		fuzz_check_error(&err, "ps_index_resolve exact");
		if (!ps_error_is(&err, "index_ambiguous"))
			fuzz_fail("ps_index_resolve exact", err.code);
		return;
	}
	if (got != e)
		fuzz_fail("ps_index_resolve exact", "another entry");
	newest = ps_index_newest(ix, e->format, e->id);
	ps_error_clear(&err);
	if (ps_index_resolve(ix, e->id, "*", 0, &got, &err) != 0) {
		fuzz_check_error(&err, "ps_index_resolve *");
		if (!ps_error_is(&err, "index_no_match") || newest != NULL)
			fuzz_fail("ps_index_resolve *", err.code);
	} else if (got != newest)
		fuzz_fail("ps_index_resolve *", "not ps_index_newest()");
}

static void
check_parsed(const ps_index *ix)
{
	size_t i;

	check_model(ix);
	check_roundtrip(ix);
	for (i = 0; i < ix->entry_count; i++)
		check_resolve_one(ix, &ix->entries[i]);
}

/* A refusal (exit class 1) with one of the codes verification has. */
static void
check_refusal(const ps_error *err, const char *call)
{
	static const char *const prefixes[] = { "index_invalid",
	    "index_url_invalid", "index_publisher_mismatch",
	    "index_out_of_scope", "index_expired", "index_rollback",
	    "envelope_", "too_many_signatures", "signature_", "key_",
	    "role_missing", NULL };
	size_t i;

	fuzz_check_error(err, call);
	if (err->status != PS_STATUS_REFUSED)
		fuzz_fail(call, err->code);
	for (i = 0; prefixes[i] != NULL; i++)
		if (strncmp(err->code, prefixes[i], strlen(prefixes[i])) == 0)
			return;
	fuzz_fail(call, err->code);
}

static void
mode_payload(const uint8_t *data, size_t size)
{
	ps_index *ix = (ps_index *)1;
	ps_error err;

	ps_error_clear(&err);
	if (index_payload_parse(data, size, "fuzz", &ix, &err) != 0) {
		check_refusal(&err, "index_payload_parse");
		if (ix != NULL)
			fuzz_fail("index_payload_parse", "index set on failure");
		return;
	}
	fuzz_note("index_payload_parse", "ok");
	check_parsed(ix);
	ps_index_free(ix);
}

/* The client state against the verified index itself. */
static void
check_state(const ps_index *ix)
{
	ps_index_seen seen;
	ps_error err;

	memset(&seen, 0, sizeof(seen));
	seen.version = ix->version;
	memcpy(seen.payload_sha256, ix->payload_sha256, PS_SHA256_LEN);
	ps_error_clear(&err);
	if (ps_index_state_check(&seen, ix, &err) != 0)
		fuzz_fail("ps_index_state_check same", err.code);
	seen.payload_sha256[0] ^= 1;
	if (ps_index_state_check(&seen, ix, &err) == 0 ||
	    !ps_error_is(&err, "index_equivocation"))
		fuzz_fail("ps_index_state_check", "equivocation passed");
	ps_error_clear(&err);
	seen.version = ix->version + 1;
	if (ps_index_state_check(&seen, ix, &err) == 0 ||
	    !ps_error_is(&err, "index_rollback"))
		fuzz_fail("ps_index_state_check", "rollback passed");
}

static void
mode_envelope(const uint8_t *data, size_t size, uint8_t selector)
{
	ps_index_verify_options o;
	ps_index *ix = (ps_index *)1;
	ps_error err;

	ps_index_verify_options_init(&o);
	o.trust = fuzz_policy;
	o.at = FUZZ_INDEX_AT;
	o.allow_expired = (selector & 8) != 0;
	ps_error_clear(&err);
	if (ps_index_verify(data, size, "fuzz.index", &o, &ix, &err) != 0) {
		check_refusal(&err, "ps_index_verify");
		if (ix != NULL)
			fuzz_fail("ps_index_verify", "index set on failure");
		return;
	}
	fuzz_note("ps_index_verify", "ok");
	if (strcmp(ix->publisher, "fuzz-index") != 0 &&
	    strcmp(ix->publisher, "fuzz-floor") != 0)
		fuzz_fail("ps_index_verify", "publisher without the role");
	if (strcmp(ix->publisher, "fuzz-floor") == 0 && ix->version < 5)
		fuzz_fail("ps_index_verify", "below min_index_version");
	if (!o.allow_expired && ix->expires < FUZZ_INDEX_AT)
		fuzz_fail("ps_index_verify", "expired index accepted");
	check_parsed(ix);
	check_state(ix);
	ps_index_free(ix);
}

/* ------------------------------------------------------ the state file */

static const char *
state_dir(void)
{
	if (fuzz_dir[0] != '\0')
		return fuzz_dir;
	snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/data", fuzz_tmpdir());
	if (mkdir(fuzz_dir, 0700) != 0)
		fuzz_fail("mkdir", fuzz_dir);
	return fuzz_dir;
}

/* The state reader fails only as documented: exit class 2. */
static void
check_state_error(const ps_error *err, const char *call)
{
	fuzz_check_error(err, call);
	if (err->status != PS_STATUS_FAILED ||
	    (!ps_error_is(err, "index_state_invalid") &&
	    !ps_error_is(err, "io_error") &&
	    !ps_error_is(err, "out_of_memory")))
		fuzz_fail(call, err->code);
}

/* The file still holds exactly `data`. */
static void
check_unchanged(const char *path, const uint8_t *data, size_t size)
{
	unsigned char *buf = malloc(size + 1);
	FILE *f = fopen(path, "rb");
	size_t n;

	if (buf == NULL || f == NULL)
		fuzz_fail("reading the state back", path);
	n = fread(buf, 1, size + 1, f);
	fclose(f);
	if (n != size || (size > 0 && memcmp(buf, data, size) != 0))
		fuzz_fail("ps_index_state_record", "damaged state rewritten");
	free(buf);
}

/* An index of `version` checked against what the file says was seen. */
static void
check_seen(const ps_index_seen *seen)
{
	ps_index ix;
	ps_error err;
	int rc;

	if (seen->version < 1 || seen->version > PS_INDEX_VERSION_MAX)
		fuzz_fail("ps_index_state_load", "version out of range");
	memset(&ix, 0, sizeof(ix));
	ix.version = 3;
	ix.publisher = (char *)"fuzz-index";
	ps_error_clear(&err);
	rc = ps_index_state_check(seen, &ix, &err);
	if (rc != 0)
		fuzz_check_error(&err, "ps_index_state_check");
	if (seen->version < 3 && rc != 0)
		fuzz_fail("ps_index_state_check", "a higher version refused");
	if (seen->version > 3 && (rc == 0 || !ps_error_is(&err,
	    "index_rollback")))
		fuzz_fail("ps_index_state_check", "rollback passed");
	if (seen->version == 3 && (rc == 0) != (memcmp(seen->payload_sha256,
	    ix.payload_sha256, PS_SHA256_LEN) == 0))
		fuzz_fail("ps_index_state_check", "equivocation");
}

/* Records an index above what was seen; a damaged file stays as it is. */
static void
check_record(const char *dir, const char *path, const uint8_t *data,
    size_t size, const ps_index_seen *seen, int found, int damaged)
{
	ps_index_seen again;
	ps_index ix;
	ps_error err;
	int recorded = 0, found_again = 0;

	if (found && seen->version >= PS_INDEX_VERSION_MAX)
		return;
	memset(&ix, 0, sizeof(ix));
	ix.version = found ? seen->version + 1 : 1;
	ix.publisher = (char *)"fuzz-index";
	ix.issued = FUZZ_INDEX_AT;
	memset(ix.payload_sha256, 0xab, PS_SHA256_LEN);
	ps_error_clear(&err);
	if (ps_index_state_record(dir, &ix, FUZZ_INDEX_AT, &recorded,
	    &err) != 0) {
		check_state_error(&err, "ps_index_state_record");
		if (!damaged)
			fuzz_fail("ps_index_state_record", err.code);
		check_unchanged(path, data, size);
		return;
	}
	if (damaged || !recorded)
		fuzz_fail("ps_index_state_record", "damaged state rewritten");
	if (ps_index_state_load(dir, "fuzz-index", &again, &found_again,
	    &err) != 0 || !found_again || again.version != ix.version ||
	    memcmp(again.payload_sha256, ix.payload_sha256,
	    PS_SHA256_LEN) != 0 || again.first_seen != FUZZ_INDEX_AT)
		fuzz_fail("ps_index_state_load after record", err.code);
}

static void
mode_state(const uint8_t *data, size_t size, uint8_t selector)
{
	const char *dir = state_dir();
	char path[256];
	ps_index_seen seen;
	ps_error err;
	int found = 0, damaged = 0;

	snprintf(path, sizeof(path), "%s/index-state.json", dir);
	fuzz_write_file(path, data, size);
	ps_error_clear(&err);
	if (ps_index_state_load(dir, "fuzz-index", &seen, &found, &err) != 0) {
		check_state_error(&err, "ps_index_state_load");
		damaged = 1;
		found = 0;
	} else if (found) {
		fuzz_note("ps_index_state_load", "found");
		check_seen(&seen);
	}
	if (selector & 8)
		check_record(dir, path, data, size, &seen, found, damaged);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	fixed_policy();
	switch (data[0] % 3) {
	case 0:
		mode_payload(data + 1, size - 1);
		break;
	case 1:
		mode_envelope(data + 1, size - 1, data[0]);
		break;
	default:
		mode_state(data + 1, size - 1, data[0]);
		break;
	}
	return 0;
}
