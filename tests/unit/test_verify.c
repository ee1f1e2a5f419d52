/* Unit tests: ps_verify (verify/) on an example pack signed here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "keys/keys.h"
#include "pack/archive.h"
#include "pack/zipscan.h"
#include "sign/dsse.h"
#include "sign/statement.h"

#define PACK "examples/packs/research.top-journal-reviewer"

struct fixture {
	ps_compression compression;
	char dir[64];
	char archive[128];
	char sig[160];
	ps_seckey *alice, *bob;
	ps_pubkey *alice_pub, *bob_pub;
	ps_digest *digest;
	const char *source_commit;  /* the statement's, or NULL: no source */
};

static void
new_key(ps_seckey **sk, ps_pubkey **pk)
{
	ps_error err;

	assert_int_equal(ps_seckey_generate(sk, &err), 0);
	assert_int_equal(ps_seckey_public(*sk, pk, &err), 0);
}

/*
 * The reader, wrapped (-Wl,--wrap in the Makefile): each parse of an
 * archive is counted, and `racer` (may be NULL) runs first, as a local
 * writer that changes the file between verification's two passes would.
 */
int __real_pack_files_archive_open_with(const char *path,
    const pack_archive_open_options *o, ps_pack_files *files,
    ps_digest **digest_out, ps_error *err);

static int parses;
static void (*racer)(const char *path);
static void (*zip_racer)(const char *path);
static const char *zip_race_path;

/* The zip's structure scan, wrapped the same way: a writer changes the
 * file after the zip's bytes were hashed, as the scan starts. */
int __real_pack_zipscan_read(int fd, uint64_t size, const char *label,
    uint64_t max_entries, pack_zipscan **out, ps_error *err);

int
__wrap_pack_zipscan_read(int fd, uint64_t size, const char *label,
    uint64_t max_entries, pack_zipscan **out, ps_error *err)
{
	if (zip_racer != NULL)
		zip_racer(zip_race_path);
	return __real_pack_zipscan_read(fd, size, label, max_entries, out, err);
}

int
__wrap_pack_files_archive_open_with(const char *path,
    const pack_archive_open_options *o, ps_pack_files *files,
    ps_digest **digest_out, ps_error *err)
{
	parses++;
	if (racer != NULL)
		racer(path);
	return __real_pack_files_archive_open_with(path, o, files, digest_out,
	    err);
}

static int
setup_as(void **state, ps_compression compression)
{
	struct fixture *f = calloc(1, sizeof(*f));
	ps_pack_options po;
	ps_error err;
	int fd;

	assert_non_null(f);
	parses = 0;
	racer = zip_racer = NULL;
	f->compression = compression;
	strcpy(f->dir, "/tmp/ps-verify-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->archive, sizeof(f->archive), "%s/%s", f->dir,
	    compression == PS_COMPRESS_GZIP ? "r.tar.gz" : "r.tar");
	zip_race_path = f->archive;
	snprintf(f->sig, sizeof(f->sig), "%s.sig", f->archive);
	ps_pack_options_init(&po);
	po.compression = compression;
	fd = open(f->archive, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ps_pack(PACK, fd, &po, NULL, &err), 0);
	close(fd);
	assert_int_equal(ps_digest_path(f->archive, &po, &f->digest, &err), 0);
	new_key(&f->alice, &f->alice_pub);
	new_key(&f->bob, &f->bob_pub);
	assert_int_equal(ps_pubkey_set_identity(f->alice_pub, "alice", &err), 0);
	*state = f;
	return 0;
}

static int
setup(void **state)
{
	return setup_as(state, PS_COMPRESS_GZIP);
}

static int
setup_tar(void **state)
{
	return setup_as(state, PS_COMPRESS_NONE);
}

/* The example pack as a zip of stored entries (Info-ZIP's zip -0). */
static int
setup_zip(void **state)
{
	struct fixture *f;
	ps_pack_options po;
	char cmd[512];
	ps_error err;

	setup_as(state, PS_COMPRESS_NONE);
	f = *state;
	ps_digest_free(f->digest);
	snprintf(f->archive, sizeof(f->archive), "%s/r.zip", f->dir);
	snprintf(f->sig, sizeof(f->sig), "%s.sig", f->archive);
	snprintf(cmd, sizeof(cmd), "cd '%s' && zip -qrX0 '%s' .", PACK,
	    f->archive);
	assert_int_equal(system(cmd), 0);
	ps_pack_options_init(&po);
	assert_int_equal(ps_digest_path(f->archive, &po, &f->digest, &err), 0);
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	ps_seckey_free(f->alice);
	ps_seckey_free(f->bob);
	ps_pubkey_free(f->alice_pub);
	ps_pubkey_free(f->bob_pub);
	ps_digest_free(f->digest);
	free(f);
	return 0;
}

/* The statement for the fixture's archive, serialised. */
static unsigned char *
statement(const struct fixture *f, size_t *len)
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
	assert_int_equal(sign_statement_add_subject(st, strrchr(f->archive,
	    '/') + 1,
	    f->digest->archive_digest, &err), 0);
	for (i = 0; i < 4; i++) {
		e = ps_digest_find(f->digest, prompts[i]);
		assert_non_null(e);
		assert_int_equal(sign_statement_add_prompt(st, e->path, e->sha256,
		    &err), 0);
	}
	if (f->source_commit != NULL) {
		st->has_source = 1;
		st->source_repository = strdup("https://github.com/acme/reviewer");
		st->source_commit = strdup(f->source_commit);
		st->source_path = strdup("");
	}
	st->pack_id = strdup("research.top-journal-reviewer");
	st->pack_version = strdup("0.1.0");
	st->packsign_version = strdup(PS_VERSION);
	st->compression = f->compression;
	assert_int_equal(sign_statement_serialize(st, &out, len, &err), 0);
	sign_statement_free(st);
	return out;
}

/* Writes the fixture's .sig: `payload` (NULL: the statement) signed by
 * each key in turn with the given key ids. */
static void
write_sig(const struct fixture *f, const char *payload, ps_seckey *k1,
    const char *id1, ps_seckey *k2, const char *id2)
{
	sign_dsse_envelope *env;
	unsigned char *bytes;
	size_t len;
	char *json;
	ps_error err;
	FILE *out;

	bytes = payload != NULL ? (unsigned char *)strdup(payload) :
	    statement(f, &len);
	if (payload != NULL)
		len = strlen(payload);
	assert_int_equal(sign_dsse_new(SIGN_INTOTO_PAYLOAD_TYPE, bytes, len, &env,
	    &err), 0);
	assert_int_equal(sign_dsse_sign(env, k1->sk, id1, &err), 0);
	if (k2 != NULL)
		assert_int_equal(sign_dsse_sign(env, k2->sk, id2, &err), 0);
	assert_int_equal(sign_dsse_serialize(env, &json, &len, &err), 0);
	out = fopen(f->sig, "wb");
	assert_non_null(out);
	assert_int_equal(fwrite(json, 1, len, out), len);
	fclose(out);
	free(json);
	free(bytes);
	sign_dsse_free(env);
}

static ps_trust *
one_key_policy(const ps_pubkey *key)
{
	ps_trust *t;
	ps_error err;

	assert_int_equal(ps_trust_from_pubkey(key, "alice.pub", &t, &err), 0);
	return t;
}

/* A policy: alice and bob, `extra` appended (revocations). */
static ps_trust *
policy(const struct fixture *f, const char *extra, unsigned threshold)
{
	char *a, *b, text[2048];
	ps_trust *t;
	ps_error err;

	assert_int_equal(ps_pubkey_format_base64(f->alice_pub, &a, &err), 0);
	assert_int_equal(ps_pubkey_format_base64(f->bob_pub, &b, &err), 0);
	snprintf(text, sizeof(text), "version: 1\nsigners:\n"
	    "  - identity: alice\n    keys:\n      - key: %s\n"
	    "    packs: [\"*\"]\n"
	    "  - identity: bob\n    keys:\n      - key: %s\n"
	    "    packs: [\"*\"]\n"
	    "threshold: %u\n%s", a, b, threshold, extra);
	if (ps_trust_load(text, strlen(text), "p.yaml", &t, &err) != 0)
		fail_msg("%s", err.message);
	free(a);
	free(b);
	return t;
}

static int
run_verify(const struct fixture *f, ps_trust *t, ps_verify_options *o,
    ps_verify_result **r, ps_error *err)
{
	o->trust = t;
	return ps_verify(f->archive, o, r, err);
}

static void
good_archive_fills_the_result(void **state)
{
	struct fixture *f = *state;
	ps_trust *t = one_key_policy(f->alice_pub);
	ps_verify_options o;
	ps_verify_result *r;
	char fp[PS_FINGERPRINT_MAX];
	ps_error err;

	write_sig(f, NULL, f->alice, "hint", NULL, NULL);
	ps_verify_options_init(&o);
	assert_int_equal(run_verify(f, t, &o, &r, &err), 0);
	assert_false(r->tree_checked);            /* only with --deep */
	ps_verify_result_free(r);
	o.deep = 1;
	assert_int_equal(run_verify(f, t, &o, &r, &err), 0);
	assert_string_equal(r->id, "research.top-journal-reviewer");
	assert_int_equal(r->identity_count, 1);
	assert_string_equal(r->identities[0].identity, "alice");
	ps_pubkey_fingerprint(f->alice_pub, fp);
	assert_string_equal(r->identities[0].fingerprint, fp);
	assert_true(r->subject_checked && r->tree_checked &&
	    r->canonical_checked);
	assert_false(r->source_checked || r->directory || r->has_source);
	assert_int_equal(r->prompt_count, 4);
	assert_memory_equal(r->archive_digest, f->digest->archive_digest, 32);
	ps_verify_result_free(r);
	ps_trust_free(t);
}

/* A keyid naming bob while alice signed: the key decides, not the hint. */
static void
keyid_never_decides(void **state)
{
	struct fixture *f = *state;
	ps_trust *t = policy(f, "", 1);
	ps_verify_options o;
	ps_verify_result *r;
	char bob_fp[PS_FINGERPRINT_MAX];
	ps_error err;

	ps_pubkey_fingerprint(f->bob_pub, bob_fp);
	write_sig(f, NULL, f->alice, bob_fp, NULL, NULL);
	ps_verify_options_init(&o);
	assert_int_equal(run_verify(f, t, &o, &r, &err), 0);
	assert_string_equal(r->identities[0].identity, "alice");
	assert_string_equal(r->signatures[0].keyid, bob_fp);
	ps_verify_result_free(r);
	ps_trust_free(t);
}

/* An unknown signer's payload is never parsed: garbage is untrusted, not
 * a statement error. */
static void
payload_not_parsed_before_trust(void **state)
{
	struct fixture *f = *state;
	ps_trust *t = one_key_policy(f->alice_pub);
	ps_verify_options o;
	ps_verify_result *r;
	ps_error err;

	write_sig(f, "{not json", f->bob, "", NULL, NULL);
	ps_verify_options_init(&o);
	assert_int_equal(run_verify(f, t, &o, &r, &err), -1);
	assert_string_equal(err.code, "signature_untrusted");
	assert_int_equal(err.status, PS_STATUS_REFUSED);
	assert_null(r->id);
	ps_verify_result_free(r);
	write_sig(f, "{not json", f->alice, "", NULL, NULL);
	assert_int_equal(run_verify(f, t, &o, &r, &err), -1);
	assert_string_equal(err.code, "statement_invalid");
	ps_verify_result_free(r);
	ps_trust_free(t);
}

/* Revoked and unknown signatures: the code is the furthest one's, and
 * each signature says why it did not count. */
static void
furthest_reason_is_the_code(void **state)
{
	struct fixture *f = *state;
	ps_seckey *carol;
	ps_pubkey *carol_pub;
	ps_trust *t;
	ps_verify_options o;
	ps_verify_result *r;
	char *b, extra[256];
	ps_error err;

	new_key(&carol, &carol_pub);
	assert_int_equal(ps_pubkey_format_base64(f->bob_pub, &b, &err), 0);
	snprintf(extra, sizeof(extra), "revoked:\n  - key: %s\n", b);
	t = policy(f, extra, 1);
	write_sig(f, NULL, carol, "", f->bob, "");
	ps_verify_options_init(&o);
	assert_int_equal(run_verify(f, t, &o, &r, &err), -1);
	assert_string_equal(err.code, "key_revoked");
	assert_string_equal(err.expected, "threshold 1");
	assert_string_equal(err.found, "0");
	assert_int_equal(r->signature_count, 2);
	assert_string_equal(r->signatures[0].code, "signature_untrusted");
	assert_string_equal(r->signatures[1].code, "key_revoked");
	assert_string_equal(r->signatures[1].identity, "bob");
	/* Another entry's code is named with its reason; the refusal's own
	 * is left to the end of the line (issue 26: it was there twice). */
	assert_non_null(strstr(err.message, "[signature_untrusted]"));
	assert_null(strstr(err.message, "[key_revoked]"));
	ps_verify_result_free(r);
	ps_trust_free(t);
	free(b);
	ps_seckey_free(carol);
	ps_pubkey_free(carol_pub);
}

static void
threshold_counts_identities(void **state)
{
	struct fixture *f = *state;
	ps_trust *t = policy(f, "", 2);
	ps_verify_options o;
	ps_verify_result *r;
	ps_error err;

	write_sig(f, NULL, f->alice, "", NULL, NULL);
	ps_verify_options_init(&o);
	assert_int_equal(run_verify(f, t, &o, &r, &err), -1);
	assert_string_equal(err.code, "threshold_not_met");
	assert_string_equal(err.found, "1: alice");
	ps_verify_result_free(r);
	write_sig(f, NULL, f->alice, "", f->bob, "");
	assert_int_equal(run_verify(f, t, &o, &r, &err), 0);
	assert_int_equal(r->identity_count, 2);
	ps_verify_result_free(r);
	ps_trust_free(t);
}

/* The fixture's archive packed again from a copy of the example whose
 * manifest says `signed_by: LIST` (a YAML flow list). */
static void
repack_signed_by(struct fixture *f, const char *list)
{
	ps_pack_options po;
	char cmd[512];
	ps_error err;
	int fd;

	snprintf(cmd, sizeof(cmd), "rm -rf '%s/pack' && cp -R '%s' '%s/pack' && "
	    "printf 'signed_by: %s\\n' >>'%s/pack/manifest.yml'", f->dir, PACK,
	    f->dir, list, f->dir);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/pack", f->dir);
	ps_pack_options_init(&po);
	po.compression = f->compression;
	fd = open(f->archive, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ps_pack(cmd, fd, &po, NULL, &err), 0);
	close(fd);
	ps_digest_free(f->digest);
	assert_int_equal(ps_digest_path(f->archive, &po, &f->digest, &err), 0);
}

/* The threshold is counted again after signed_by: with threshold 2 and
 * signed_by [alice], alice and bob signing is one identity that counts,
 * not two (issue 26: a check accepting threshold - 1 there passed). */
static void
threshold_counts_after_signed_by(void **state)
{
	struct fixture *f = *state;
	ps_trust *t = policy(f, "", 2);
	ps_verify_options o;
	ps_verify_result *r;
	ps_error err;

	repack_signed_by(f, "[alice]");
	write_sig(f, NULL, f->alice, "", f->bob, "");
	ps_verify_options_init(&o);
	assert_int_equal(run_verify(f, t, &o, &r, &err), -1);
	assert_string_equal(err.code, "threshold_not_met");
	assert_int_equal(err.status, PS_STATUS_REFUSED);
	assert_string_equal(err.expected, "threshold 2");
	assert_string_equal(err.found, "1: alice");
	assert_int_equal(r->identity_count, 1);
	assert_true(r->signatures[0].counted);
	assert_false(r->signatures[1].counted);
	assert_string_equal(r->signatures[1].code, "signed_by_mismatch");
	ps_verify_result_free(r);
	/* Both listed: both count, the threshold is met. */
	repack_signed_by(f, "[alice, bob]");
	write_sig(f, NULL, f->alice, "", f->bob, "");
	assert_int_equal(run_verify(f, t, &o, &r, &err), 0);
	assert_int_equal(r->identity_count, 2);
	ps_verify_result_free(r);
	ps_trust_free(t);
}

/* A trusted signature the manifest's signed_by does not name: with
 * threshold 1 and nothing else counted, the code is signed_by_mismatch,
 * and the signature says why it did not count. */
static void
signed_by_mismatch_is_the_code(void **state)
{
	struct fixture *f = *state;
	ps_trust *t = policy(f, "", 1);
	char bob_fp[PS_FINGERPRINT_MAX], list[PS_FINGERPRINT_MAX + 8];
	ps_verify_options o;
	ps_verify_result *r;
	ps_error err;

	repack_signed_by(f, "[alice]");
	write_sig(f, NULL, f->bob, "", NULL, NULL);
	ps_verify_options_init(&o);
	assert_int_equal(run_verify(f, t, &o, &r, &err), -1);
	assert_string_equal(err.code, "signed_by_mismatch");
	assert_int_equal(err.status, PS_STATUS_REFUSED);
	assert_string_equal(err.expected, "threshold 1");
	assert_string_equal(err.found, "0");
	assert_int_equal(r->identity_count, 0);
	assert_string_equal(r->signatures[0].code, "signed_by_mismatch");
	assert_non_null(strstr(r->signatures[0].reason, "expected one of alice"));
	ps_verify_result_free(r);
	/* Named by its key's fingerprint: it counts. */
	ps_pubkey_fingerprint(f->bob_pub, bob_fp);
	snprintf(list, sizeof(list), "[\"%s\"]", bob_fp);
	repack_signed_by(f, list);
	write_sig(f, NULL, f->bob, "", NULL, NULL);
	assert_int_equal(run_verify(f, t, &o, &r, &err), 0);
	assert_string_equal(r->identities[0].identity, "bob");
	ps_verify_result_free(r);
	ps_trust_free(t);
}

/* --source-commit against the recorded commit: another one is
 * source_commit_mismatch (expected the option, found the record); the
 * same one in another case passes. */
static void
source_commit_mismatch_is_the_code(void **state)
{
	static const char c1[] = "1111111111111111111111111111111111111111";
	struct fixture *f = *state;
	ps_trust *t = one_key_policy(f->alice_pub);
	ps_verify_options o;
	ps_verify_result *r;
	ps_error err;

	f->source_commit = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
	write_sig(f, NULL, f->alice, "", NULL, NULL);
	ps_verify_options_init(&o);
	o.source_commit = c1;
	assert_int_equal(run_verify(f, t, &o, &r, &err), -1);
	assert_string_equal(err.code, "source_commit_mismatch");
	assert_int_equal(err.status, PS_STATUS_REFUSED);
	assert_string_equal(err.expected, c1);
	assert_string_equal(err.found, f->source_commit);
	assert_true(r->source_checked);
	ps_verify_result_free(r);
	o.source_commit = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
	assert_int_equal(run_verify(f, t, &o, &r, &err), 0);
	assert_true(r->has_source);
	ps_verify_result_free(r);
	ps_trust_free(t);
}

/* The result still says what was learned when a later step refuses. */
static void
tampered_archive_keeps_the_report(void **state)
{
	struct fixture *f = *state;
	ps_trust *t = one_key_policy(f->alice_pub);
	ps_verify_options o;
	ps_verify_result *r;
	ps_error err;
	int fd;

	write_sig(f, NULL, f->alice, "", NULL, NULL);
	fd = open(f->archive, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
	ps_verify_options_init(&o);
	assert_int_equal(run_verify(f, t, &o, &r, &err), -1);
	assert_string_equal(err.code, "subject_mismatch");
	assert_int_equal(r->identity_count, 1);
	assert_string_equal(r->id, "research.top-journal-reviewer");
	assert_false(r->subject_checked);
	ps_verify_result_free(r);
	ps_trust_free(t);
}

static void
bad_options_fail_before_any_work(void **state)
{
	struct fixture *f = *state;
	ps_trust *t = one_key_policy(f->alice_pub);
	ps_verify_options o;
	ps_verify_result *r;
	ps_error err;

	ps_verify_options_init(&o);
	o.source_commit = "main";
	assert_int_equal(run_verify(f, t, &o, &r, &err), -1);
	assert_string_equal(err.code, "source_commit_invalid");
	assert_int_equal(err.status, PS_STATUS_FAILED);
	ps_verify_result_free(r);
	ps_verify_options_init(&o);
	assert_int_equal(ps_verify(f->archive, &o, &r, &err), -1);
	assert_string_equal(err.code, "invalid_argument");
	ps_verify_result_free(r);
	ps_trust_free(t);
}

/* Changes one byte of the archive's content in place, as a writer with
 * access to the file could: a byte of the first file's data (tar) at an
 * offset the caller picked. */
static int flips_blocked;    /* opens a read lease held off */

static void
flip_byte_at(const char *path, off_t offset)
{
	unsigned char c;
	int fd = open(path, O_RDWR | O_NONBLOCK);

	/* Under verify's read lease the open breaks it and would wait
	 * (a writer in another process does): counted, not written. */
	if (fd < 0 && errno == EWOULDBLOCK) {
		flips_blocked++;
		return;
	}
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &c, 1, offset), 1);
	c ^= 0x20;
	assert_int_equal(pwrite(fd, &c, 1, offset), 1);
	close(fd);
}

/* The content of the tar's first entry (its header is bytes 0-511). */
static void
race_content(const char *path)
{
	flip_byte_at(path, 512 + 1);
}

/* The tar's first header: the reader refuses what it then finds. */
static void
race_header(const char *path)
{
	flip_byte_at(path, 148);      /* the header checksum */
}

/* A plain tar is hashed and compared before a byte of it is parsed: a
 * tampered one never reaches the reader. */
static void
plain_tar_is_authenticated_before_parsing(void **state)
{
	struct fixture *f = *state;
	ps_trust *t = one_key_policy(f->alice_pub);
	ps_verify_options o;
	ps_verify_result *r;
	ps_error err;

	write_sig(f, NULL, f->alice, "", NULL, NULL);
	ps_verify_options_init(&o);
	assert_int_equal(run_verify(f, t, &o, &r, &err), 0);
	assert_int_equal(parses, 1);
	assert_true(r->subject_checked);
	ps_verify_result_free(r);
	parses = 0;
	race_content(f->archive);
	assert_int_equal(run_verify(f, t, &o, &r, &err), -1);
	assert_string_equal(err.code, "subject_mismatch");
	assert_int_equal(err.status, PS_STATUS_REFUSED);
	assert_int_equal(parses, 0);
	assert_true(r->has_archive_digest);
	assert_false(r->subject_checked);
	ps_verify_result_free(r);
	ps_trust_free(t);
}

/* Bytes changed in the file between the two passes never reach the
 * parser.  Without a lease (a descriptor open for writing refuses it)
 * pass 2 reads the copy in memory pass 1 made of the bytes it hashed, so
 * the signed pack verifies, with its own tree digest, whether the change
 * was to content or to a header.  With one, the writer's open breaks it
 * and waits: pass 2's first read sees the break, subject_changed. */
static void
bytes_changed_after_authentication_are_not_parsed(void **state)
{
	struct fixture *f = *state;
	void (*const races[])(const char *) = { race_content, race_header };
	ps_trust *t = one_key_policy(f->alice_pub);
	ps_verify_options o;
	ps_verify_result *r;
	ps_error err;
	size_t i;
	int writer = open(f->archive, O_WRONLY | O_APPEND);

	assert_true(writer >= 0);
	write_sig(f, NULL, f->alice, "", NULL, NULL);
	for (i = 0; i < 2; i++) {
		racer = races[i];
		parses = 0;
		ps_verify_options_init(&o);
		o.deep = 1;
		assert_int_equal(run_verify(f, t, &o, &r, &err), 0);
		assert_int_equal(parses, 1);
		assert_true(r->subject_checked);
		assert_int_equal(r->archive_read, PS_ARCHIVE_READ_MEMORY);
		assert_non_null(strstr(r->lease_declined, "open for writing"));
		assert_memory_equal(r->archive_digest, f->digest->archive_digest,
		    PS_SHA256_LEN);
		ps_verify_result_free(r);
		racer = NULL;
		races[i](f->archive);   /* put the byte back */
	}
	close(writer);
	for (i = 0; i < 2; i++) {
		racer = races[i];
		flips_blocked = 0;
		ps_verify_options_init(&o);
		o.deep = 1;
		if (run_verify(f, t, &o, &r, &err) == 0) {
			/* no lease on this file system: the copy path */
			assert_int_equal(flips_blocked, 0);
			assert_int_not_equal(r->archive_read, PS_ARCHIVE_READ_LEASE);
			races[i](f->archive);
		} else {
			assert_string_equal(err.code, "subject_changed");
			assert_int_equal(err.status, PS_STATUS_REFUSED);
			assert_int_equal(flips_blocked, 1);
			assert_int_equal(r->archive_read, PS_ARCHIVE_READ_LEASE);
			assert_false(r->subject_checked);
		}
		ps_verify_result_free(r);
		racer = NULL;
	}
	ps_trust_free(t);
}

/* pass 1, wrapped: `hash_racer` runs after the archive was hashed (as a
 * writer opening it before the lease is checked would). */
int __real_util_sha256_fd_copy(int fd, int copy, uint64_t copy_max,
    unsigned char out[PS_SHA256_LEN], uint64_t *size);
static void (*hash_racer)(const char *path);
static const char *hash_race_path;

int
__wrap_util_sha256_fd_copy(int fd, int copy, uint64_t copy_max,
    unsigned char out[PS_SHA256_LEN], uint64_t *size)
{
	int rc = __real_util_sha256_fd_copy(fd, copy, copy_max, out, size);

	if (hash_racer != NULL)
		hash_racer(hash_race_path);
	return rc;
}

/* A writer's open during pass 1 breaks the lease: refused before a byte
 * is parsed (the lease is checked after pass 1's last read). */
static void
lease_broken_in_pass_1_is_refused_unparsed(void **state)
{
	struct fixture *f = *state;
	ps_trust *t = one_key_policy(f->alice_pub);
	ps_verify_options o;
	ps_verify_result *r;
	ps_error err;

	write_sig(f, NULL, f->alice, "", NULL, NULL);
	ps_verify_options_init(&o);
	assert_int_equal(run_verify(f, t, &o, &r, &err), 0);
	if (r->archive_read != PS_ARCHIVE_READ_LEASE) {
		print_message("# no lease here (%s): skipped\n", r->lease_declined);
		ps_verify_result_free(r);
		ps_trust_free(t);
		return;
	}
	assert_null(r->lease_declined);
	ps_verify_result_free(r);
	hash_racer = race_content;
	hash_race_path = f->archive;
	flips_blocked = 0;
	parses = 0;
	assert_int_equal(run_verify(f, t, &o, &r, &err), -1);
	hash_racer = NULL;
	assert_string_equal(err.code, "subject_changed");
	assert_non_null(strstr(err.message, "after hashing it"));
	assert_int_equal(flips_blocked, 1);
	assert_int_equal(parses, 0);
	ps_verify_result_free(r);
	ps_trust_free(t);
}

/* A byte a third into the zip, changed in place after the hash. */
static void
race_zip_content(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	flip_byte_at(path, st.st_size / 3);
}

/* A zip is read with seeks, after its bytes were hashed: the scan and
 * libarchive read the copy those bytes went into, not the file a writer
 * changed meanwhile (found attacking issue 17: verify and sign parsed
 * bytes no hash covered). */
static void
zip_is_parsed_from_the_bytes_hashed(void **state)
{
	struct fixture *f = *state;
	ps_trust *t = one_key_policy(f->alice_pub);
	ps_verify_options o;
	ps_verify_result *r;
	ps_error err;

	write_sig(f, NULL, f->alice, "", NULL, NULL);
	zip_race_path = f->archive;
	zip_racer = race_zip_content;
	ps_verify_options_init(&o);
	o.deep = 1;
	assert_int_equal(run_verify(f, t, &o, &r, &err), 0);
	assert_true(r->subject_checked);
	assert_true(r->tree_checked);
	ps_verify_result_free(r);
	ps_trust_free(t);
}

/* Where install cannot lease the caller's file (a descriptor open for
 * writing refuses it) it parses its private copy: a writer changing the
 * file while install reads it changes nothing that is installed.  Under
 * the lease install reads the file itself: the writer's open breaks it
 * (and would wait), and install refuses, subject_changed, nothing
 * installed. */
static void
install_reads_its_private_copy(void **state)
{
	struct fixture *f = *state;
	ps_trust *t = one_key_policy(f->alice_pub);
	ps_install_options o;
	ps_install_result *r;
	char data[96];
	ps_error err;
	int writer = open(f->archive, O_WRONLY | O_APPEND);

	assert_true(writer >= 0);
	write_sig(f, NULL, f->alice, "", NULL, NULL);
	snprintf(data, sizeof(data), "%s/data", f->dir);
	ps_install_options_init(&o);
	o.verify.trust = t;
	o.data_dir = data;
	racer = race_content;
	assert_int_equal(ps_install(f->archive, &o, &r, &err), 0);
	assert_int_equal(parses, 1);
	assert_true(r->installed);
	assert_int_equal(r->verify->archive_read, PS_ARCHIVE_READ_PRIVATE);
	assert_memory_equal(r->tree_digest, f->digest->tree_digest,
	    PS_SHA256_LEN);
	ps_install_result_free(r);
	close(writer);
	race_content(f->archive);             /* put the byte back */
	flips_blocked = 0;
	o.reinstall = 1;
	if (ps_install(f->archive, &o, &r, &err) == 0) {
		assert_int_equal(flips_blocked, 0);  /* no lease here */
		race_content(f->archive);
	} else {
		assert_string_equal(err.code, "subject_changed");
		assert_int_equal(flips_blocked, 1);
		assert_false(r->installed);
		assert_int_equal(r->verify->archive_read, PS_ARCHIVE_READ_LEASE);
	}
	racer = NULL;
	ps_install_result_free(r);
	ps_trust_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(good_archive_fills_the_result,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(keyid_never_decides, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(payload_not_parsed_before_trust,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(furthest_reason_is_the_code,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(threshold_counts_identities,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(threshold_counts_after_signed_by,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(signed_by_mismatch_is_the_code,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(source_commit_mismatch_is_the_code,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(tampered_archive_keeps_the_report,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(bad_options_fail_before_any_work,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    plain_tar_is_authenticated_before_parsing, setup_tar, teardown),
		cmocka_unit_test_setup_teardown(
		    bytes_changed_after_authentication_are_not_parsed, setup_tar,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    lease_broken_in_pass_1_is_refused_unparsed, setup_tar,
		    teardown),
		cmocka_unit_test_setup_teardown(install_reads_its_private_copy,
		    setup_tar, teardown),
		cmocka_unit_test_setup_teardown(zip_is_parsed_from_the_bytes_hashed,
		    setup_zip, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
