/*
 * The checks ps_sign runs before it signs: the manifest (read through a
 * ps_pack_files that remembers the manifest's hash, so a manifest changed
 * between validation and packing is caught), provenance, and the archive
 * written to its temporary file with its SHA-256 and BLAKE2b-512 computed
 * from the bytes as they are written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "pack/archivename.h"
#include "pack/pack.h"
#include "sign/outputs.h"
#include "sign/signprep.h"
#include "sign/signrun.h"
#include "util/error.h"
#include "util/strings.h"
#include "util/fdio.h"
#include "util/sha256.h"
#include "util/worker.h"

/* Git and --source-* provenance, and the holon source rule. */
static int find_provenance(sign_run *run, ps_error *err);

#define REHASH_BUFFER (256 * 1024)

/* Sets a field that may hold an earlier value (--source-* overrides). */
static int
replace_string(char **dst, const char *src, ps_error *err)
{
	free(*dst);
	return util_strdup(dst, src, NULL, err);
}

/* ------------------------------------------------- output hashing tap */

/*
 * The archive's own digests.  An uncompressed archive is its tar stream,
 * whose SHA-256 the tar writer computes anyway: it is not hashed twice.
 * The tap runs on the tar writer's thread, which already hashes the
 * stream and writes it; these digests (the chunks' are one more SHA-256
 * pass over the whole archive) are handed to a thread of their own, so
 * the three SHA-256 passes of a v2 sign (files, stream, chunks) spread
 * over both cores instead of two of them queuing on one.
 */
struct output_hash {
	util_sha256 *sha;
	crypto_generichash_state b2;
	int want_sha, want_b2;
	util_chunks *chunks;        /* v2's chunk digests, or NULL */
	util_worker *hasher;        /* runs hash_bytes, or NULL */
};

/* The tar writer's blocks: 16 of them queue for the hashing thread. */
#define HASHER_SLOT (64 * 1024)
#define HASHER_SLOTS 16

static int
hash_bytes(void *ctx, uint64_t tag, const void *buf, size_t len,
    ps_error *err)
{
	struct output_hash *h = ctx;

	(void)tag;
	if ((h->want_sha && util_sha256_update(h->sha, buf, len) != 0) ||
	    (h->want_b2 && crypto_generichash_update(&h->b2, buf, len) != 0) ||
	    (h->chunks != NULL && util_chunks_update(h->chunks, buf, len) != 0))
		return util_fail(err, "crypto_error", NULL, "hashing failed");
	return 0;
}

static const util_worker_ops hasher_ops = { hash_bytes, NULL, NULL };

static int
tap_bytes(void *ctx, const void *buf, size_t len, ps_error *err)
{
	struct output_hash *h = ctx;

	return util_worker_push(h->hasher, 0, buf, len, err);
}

/* A v2 statement unless --predicate-version 1 or a zip: *out the chunk
 * digests of OUT to take as it is written or read, else NULL. */
static int
chunks_start(sign_run *run, util_chunks **out, ps_error *err)
{
	const pack_archive_name *kind = pack_archive_name_of(run->path);

	*out = NULL;
	if (run->o->predicate_version < 0 || run->o->predicate_version > 2)
		return util_fail(err, "invalid_argument", run->path, "the "
		    "predicate version is 1 or 2");
	if (run->o->predicate_version == 1 ||
	    (!run->is_dir && kind != NULL && kind->kind == PS_SOURCE_ZIP))
		return 0;             /* v1: a zip is read with seeks */
	if (util_chunks_keep(&run->chunks, SIGN_CHUNKS_MAX) != 0)
		return util_fail_oom(err, run->path);
	run->has_chunks = 1;
	*out = &run->chunks;
	return 0;
}

static int
output_hash_start(struct output_hash *h, sign_run *run, ps_error *err)
{
	h->want_sha = run->o->pack.compression != PS_COMPRESS_NONE;
	h->want_b2 = run->o->minisig;
	h->sha = util_sha256_new();
	if (h->sha == NULL || crypto_generichash_init(&h->b2, NULL, 0,
	    PS_BLAKE2B512_LEN) != 0)
		return util_fail(err, "crypto_error", NULL, "cannot start hashing");
	if (chunks_start(run, &h->chunks, err) != 0)
		return -1;
	if (!h->want_sha && !h->want_b2 && h->chunks == NULL)
		return 0;
	return util_worker_new(&hasher_ops, h, HASHER_SLOT, HASHER_SLOTS,
	    &h->hasher, err);
}

/* Stops the hashing thread (dropping what it has not hashed) and frees. */
static void
output_hash_free(struct output_hash *h)
{
	util_worker_free(h->hasher);
	util_sha256_free(h->sha);
}

static int
output_hash_finish(struct output_hash *h, sign_run *run, ps_error *err)
{
	if (h->hasher != NULL && util_worker_finish(h->hasher, err) != 0)
		return -1;
	if (h->chunks != NULL && util_chunks_finish(h->chunks) != 0)
		return util_fail(err, "crypto_error", NULL, "hashing failed");
	if (!h->want_sha)
		memcpy(run->r->archive_digest, run->digest->tar_digest,
		    PS_SHA256_LEN);
	if ((h->want_sha && util_sha256_final(h->sha, run->r->archive_digest) !=
	    0) || (h->want_b2 && crypto_generichash_final(&h->b2, run->blake2b,
	    PS_BLAKE2B512_LEN) != 0))
		return util_fail(err, "crypto_error", NULL, "hashing failed");
	return 0;
}

/* ------------------------------------------- manifest hash on reading */

struct remembering {
	ps_pack_files inner;
	unsigned char manifest_sha256[PS_SHA256_LEN];
	int seen;
	int defer_heads;    /* answer heads as empty, to be checked later */
	int heads_deferred; /* some head was asked for and not read */
};

static int
rem_stat(void *ctx, const char *path, ps_entry_type *type, uint64_t *size,
    ps_error *err)
{
	struct remembering *m = ctx;

	return m->inner.stat(m->inner.ctx, path, type, size, err);
}

static int
rem_read(void *ctx, const char *path, size_t max, char **data, size_t *len,
    ps_error *err)
{
	struct remembering *m = ctx;

	if (m->inner.read(m->inner.ctx, path, max, data, len, err) != 0)
		return -1;
	if (ps_format_by_manifest(path) != PS_FORMAT_UNKNOWN &&
	    strchr(path, '/') == NULL) {
		if (util_sha256_buffer(*data, *len, m->manifest_sha256) != 0)
			return util_fail(err, "crypto_error", path, "SHA-256 failed");
		m->seen = 1;
	}
	return 0;
}

static int
rem_list(void *ctx, int (*fn)(void *, const char *, ps_entry_type, uint64_t,
    ps_error *), void *arg, ps_error *err)
{
	struct remembering *m = ctx;

	return m->inner.list(m->inner.ctx, fn, arg, err);
}

static int
rem_head(void *ctx, const char *path, unsigned char *buf, size_t n,
    size_t *got, ps_error *err)
{
	struct remembering *m = ctx;

	if (m->defer_heads) {
		/* Before packing: no file is opened for its first bytes; the
		 * validation runs again on those the packing pass reads. */
		*got = 0;
		m->heads_deferred = 1;
		return m->inner.stat(m->inner.ctx, path, &(ps_entry_type){ 0 },
		    &(uint64_t){ 0 }, err);
	}
	return m->inner.head(m->inner.ctx, path, buf, n, got, err);
}

static void
remembering_wrap(struct remembering *m, ps_pack_files *outer)
{
	memset(outer, 0, sizeof(*outer));
	outer->ctx = m;
	outer->stat = rem_stat;
	outer->read = rem_read;
	outer->list = rem_list;
	outer->head = rem_head;
}

/* ---------------------------------------------------------- validation */

/* ------------------------------------------------------------ manifest */

/* The first signed_by entry that is an identity, not a fingerprint: what
 * --identity would most likely have to say. */
static const char *
listed_identity(const ps_strings *list)
{
	size_t i;

	for (i = 0; i < list->count; i++) {
		if (strncmp(list->items[i], "SHA256:", 7) != 0)
			return list->items[i];
	}
	return "ID";
}

/* A key without an identity: where it came from, and the way out. */
static int
refuse_no_identity(sign_run *run, const ps_strings *list, ps_error *err)
{
	const char *pub = run->o->public_key_path;

	if (pub == NULL)
		return util_refuse(err, "signed_by_mismatch",
		    run->manifest->manifest_path, "the signing key has no "
		    "identity (a key given as text, from PACKSIGN_SECRET_KEY or "
		    "standard input, carries none) and signed_by does not name "
		    "its fingerprint: sign with --identity %s",
		    listed_identity(list));
	return util_refuse(err, "signed_by_mismatch",
	    run->manifest->manifest_path, "the signing key has no identity "
	    "(no %s beside it) and signed_by does not name its fingerprint: "
	    "sign with --identity %s, or keep the key's .pub beside it", pub,
	    listed_identity(list));
}

/* The manifest's signed_by, when present, names the identity or key. */
static int
check_signed_by(sign_run *run, ps_error *err)
{
	const ps_strings *list = &run->manifest->signed_by;
	const char *identity = run->r->identity;
	char expected[PS_ERROR_VALUE_MAX] = "", found[PS_ERROR_VALUE_MAX];
	size_t i, used = 0;

	if (list->count == 0)
		return 0;
	for (i = 0; i < list->count; i++) {
		if ((identity != NULL && strcmp(list->items[i], identity) == 0) ||
		    strcmp(list->items[i], run->r->fingerprint) == 0)
			return 0;
		if (used < sizeof(expected))
			used += (size_t)snprintf(expected + used,
			    sizeof(expected) - used, "%s%s", i > 0 ? ", " : "",
			    list->items[i]);
	}
	snprintf(found, sizeof(found), "%s%s (%s)", identity != NULL ?
	    "identity " : "no identity", identity != NULL ? identity : "",
	    run->r->fingerprint);
	if (identity == NULL)
		refuse_no_identity(run, list, err);
	else
		util_refuse(err, "signed_by_mismatch", run->manifest->manifest_path,
		    "the signing key is not one the manifest's signed_by names");
	return util_error_expect(err, expected, found);
}

static int
require_valid_model(sign_run *run, const ps_manifest *m, ps_error *err)
{
	if (m != NULL && ps_manifest_valid(&run->r->diags, 0))
		return 0;
	util_refuse(err, "manifest_invalid", run->path, "the manifest does not "
	    "validate: %zu error(s)", ps_diags_count(&run->r->diags,
	    PS_SEVERITY_ERROR));
	return -1;
}

static int
require_valid(sign_run *run, ps_error *err)
{
	return require_valid_model(run, run->manifest, err);
}

static int
record_manifest(sign_run *run, ps_error *err)
{
	run->r->format = run->manifest->format;
	run->r->prompt_count = run->manifest->prompt_count;
	if (util_strdup(&run->r->id, run->manifest->id, NULL, err) != 0 ||
	    util_strdup(&run->r->version, run->manifest->version, NULL, err) != 0)
		return -1;
	return check_signed_by(run, err);
}

/* Refuses an invalid manifest; records it; checks signed_by. */
static int
record_valid_manifest(sign_run *run, ps_error *err)
{
	if (require_valid(run, err) != 0)
		return -1;
	return record_manifest(run, err);
}

static int
load_manifest(sign_run *run, const ps_pack_files *files, ps_manifest **out,
    ps_error *err)
{
	ps_validate_options vo;
	char *prefix = NULL;
	size_t n = strlen(run->path);
	int rc;

	ps_validate_options_init(&vo);
	if (asprintf(&prefix, "%s%s", run->path, n > 0 &&
	    run->path[n - 1] == '/' ? "" : "/") < 0)
		return util_fail_oom(err, NULL);
	vo.prefix = prefix;
	rc = ps_manifest_load(files, &vo, out, &run->r->diags, err);
	free(prefix);
	ps_diags_sort(&run->r->diags);
	return rc;
}

/* Validates through the packer's view of the walk, hashing the manifest
 * as it is read. */
static int
validate_through(sign_run *run, struct remembering *rem, ps_manifest **out,
    ps_error *err)
{
	ps_pack_files outer;
	int rc;

	if (pack_packer_files(run->packer, &rem->inner, err) != 0)
		return -1;
	remembering_wrap(rem, &outer);
	rc = load_manifest(run, &outer, out, err);
	ps_pack_files_close(&rem->inner);
	return rc;
}

/* The one walk of the directory: validated through it now (but for the
 * files' first bytes), packed from it once the outputs are known. */
static int
validate_dir(sign_run *run, struct remembering *rem, ps_error *err)
{
	memset(rem, 0, sizeof(*rem));
	rem->defer_heads = 1;
	if (pack_packer_open_reading(run->path, &run->packer, err) != 0 ||
	    validate_through(run, rem, &run->manifest, err) != 0)
		return -1;
	return record_valid_manifest(run, err);
}

/* ------------------------------------------------------------- writing */

static int
default_name(sign_run *run, char **out, ps_error *err)
{
	const char *suffix = pack_archive_suffix(run->o->pack.compression);

	if (suffix == NULL)
		return util_fail(err, "invalid_argument", NULL, "unknown compression");
	if (asprintf(out, "%s-%s%s", run->manifest->file_id,
	    run->manifest->version, suffix) < 0) {
		*out = NULL;
		return util_fail_oom(err, NULL);
	}
	return 0;
}

/* What was validated is what was packed: same manifest bytes. */
static int
check_same_manifest(sign_run *run, const struct remembering *rem,
    ps_error *err)
{
	if (rem->seen && run->digest->format == run->manifest->format &&
	    memcmp(rem->manifest_sha256, run->digest->manifest_sha256,
	    PS_SHA256_LEN) == 0)
		return 0;
	return util_fail(err, "file_changed", run->manifest->manifest_path,
	    "the manifest changed between validation and packing; sign again");
}

/* After packing, when the first validation left file heads out: the
 * whole validation again, the heads now those the packing pass read (no
 * file is opened for them), its diagnostics replacing the first's. The
 * archive is still a temporary file. */
static int
validate_packed(sign_run *run, const struct remembering *first,
    ps_error *err)
{
	struct remembering rem;
	ps_manifest *m = NULL;
	int rc;

	if (!first->heads_deferred)
		return 0;
	memset(&rem, 0, sizeof(rem));
	ps_diags_free(&run->r->diags);
	rc = validate_through(run, &rem, &m, err);
	if (rc == 0)
		rc = require_valid_model(run, m, err);
	ps_manifest_free(m);
	if (rc == 0)
		rc = check_same_manifest(run, &rem, err);
	return rc;
}

static int
write_archive(sign_run *run, ps_error *err)
{
	struct output_hash h;
	pack_output_tap tap;
	int rc;

	memset(&h, 0, sizeof(h));
	if (ps_atomic_open(run->r->archive_path, 0644, 0, &run->archive_tmp,
	    err) != 0)
		return -1;
	if (run->o->temp_file_hook != NULL)
		run->o->temp_file_hook(ps_atomic_temp_path(run->archive_tmp));
	rc = output_hash_start(&h, run, err);
	if (rc == 0 && h.hasher != NULL) {
		tap.ctx = &h;
		tap.bytes = tap_bytes;
		pack_packer_set_tap(run->packer, &tap);
	}
	if (rc == 0) {
		rc = pack_packer_write(run->packer, ps_atomic_fd(run->archive_tmp),
		    &run->o->pack, &run->digest, err);
	}
	if (rc == 0)
		rc = output_hash_finish(&h, run, err);
	output_hash_free(&h);
	return rc;
}

int
sign_prepare_dir(sign_run *run, ps_error *err)
{
	struct remembering rem;
	struct stat sb;
	char *name = NULL;
	int rc;

	if (validate_dir(run, &rem, err) != 0 ||
	    find_provenance(run, err) != 0)
		return -1;
	if (run->o->output == NULL && default_name(run, &name, err) != 0)
		return -1;
	rc = sign_set_outputs(run, name != NULL ? name : run->o->output, err);
	free(name);
	if (rc != 0)
		return -1;
	run->archive_existed = lstat(run->r->archive_path, &sb) == 0;
	if (write_archive(run, err) != 0 || check_same_manifest(run, &rem,
	    err) != 0 || validate_packed(run, &rem, err) != 0)
		return -1;
	memcpy(run->r->tree_digest, run->digest->tree_digest, PS_SHA256_LEN);
	return 0;
}

/* ------------------------------------------------------------ archives */

static int
check_archive_name(const char *path, ps_error *err)
{
	if (pack_archive_name_of(path) != NULL)
		return 0;
	util_fail(err, "archive_unsupported", path, "not a pack directory nor "
	    "an archive packsign reads");
	return util_error_expect(err, PACK_ARCHIVE_NAMES, path);
}

static int
hash_file_fd(int fd, sign_run *run, util_chunks *chunks,
    unsigned char sha[PS_SHA256_LEN], ps_error *err)
{
	crypto_generichash_state b2;
	unsigned char *buf = malloc(REHASH_BUFFER);
	util_sha256 *h = util_sha256_new();
	ssize_t n;
	int rc = 0;

	if (buf == NULL || h == NULL ||
	    crypto_generichash_init(&b2, NULL, 0, PS_BLAKE2B512_LEN) != 0)
		rc = util_fail(err, "out_of_memory", NULL, "cannot start hashing");
	while (rc == 0 && (n = util_read_full(fd, buf, REHASH_BUFFER)) != 0) {
		if (n < 0)
			rc = util_fail_errno(err, "io_error", run->path, "read", errno);
		else if (util_sha256_update(h, buf, (size_t)n) != 0 ||
		    (run->o->minisig &&
		    crypto_generichash_update(&b2, buf, (size_t)n) != 0) ||
		    (chunks != NULL &&
		    util_chunks_update(chunks, buf, (size_t)n) != 0))
			rc = util_fail(err, "crypto_error", NULL, "hashing failed");
	}
	if (rc == 0 && chunks != NULL && util_chunks_finish(chunks) != 0)
		rc = util_fail(err, "crypto_error", NULL, "hashing failed");
	if (rc == 0 && (util_sha256_final(h, sha) != 0 ||
	    crypto_generichash_final(&b2, run->blake2b, PS_BLAKE2B512_LEN) != 0))
		rc = util_fail(err, "crypto_error", NULL, "hashing failed");
	util_sha256_free(h);
	free(buf);
	return rc;
}

/*
 * minisign signs BLAKE2b-512 of the file, and a v2 statement records its
 * chunk digests: one more read, checked against the SHA-256 the
 * inspection computed so every signature and digest covers one file.
 */
static int
reread_archive(sign_run *run, ps_error *err)
{
	unsigned char sha[PS_SHA256_LEN];
	util_chunks *chunks;
	int fd, rc;

	if (chunks_start(run, &chunks, err) != 0)
		return -1;
	if (chunks == NULL && !run->o->minisig)
		return 0;
	if ((fd = open(run->path, O_RDONLY | O_CLOEXEC)) < 0)
		return util_fail_errno(err, "io_error", run->path, "open", errno);
	rc = hash_file_fd(fd, run, chunks, sha, err);
	close(fd);
	if (rc == 0 && memcmp(sha, run->r->archive_digest, PS_SHA256_LEN) != 0)
		rc = util_fail(err, "file_changed", run->path, "the archive changed "
		    "while it was being signed; sign again");
	return rc;
}

/* The run takes the inspection's manifest, digests and diagnostics. */
static void
take_inspection(sign_run *run, ps_inspection *in)
{
	ps_diags swap = run->r->diags;

	run->r->diags = in->diags;
	in->diags = swap;
	run->manifest = in->manifest;
	run->digest = in->digest;
	in->manifest = NULL;
	in->digest = NULL;
	ps_inspection_free(in);
}

static int
inspect_archive(sign_run *run, ps_error *err)
{
	ps_validate_options vo;
	ps_inspection *in = NULL;
	char *prefix = NULL;

	ps_validate_options_init(&vo);
	if (asprintf(&prefix, "%s/", run->path) < 0)
		return util_fail_oom(err, NULL);
	vo.prefix = prefix;
	if (ps_inspect(run->path, &run->o->pack, &vo, &in, err) != 0) {
		free(prefix);
		return -1;
	}
	free(prefix);
	take_inspection(run, in);
	if (!run->digest->has_archive_digest)
		return util_fail(err, "internal_error", run->path,
		    "no archive digest");
	memcpy(run->r->archive_digest, run->digest->archive_digest,
	    PS_SHA256_LEN);
	memcpy(run->r->tree_digest, run->digest->tree_digest, PS_SHA256_LEN);
	return 0;
}

int
sign_prepare_archive(sign_run *run, ps_error *err)
{
	if (run->o->output != NULL)
		return util_fail(err, "invalid_argument", run->path, "an archive is "
		    "signed where it is: -o applies to pack directories only");
	if (check_archive_name(run->path, err) != 0 ||
	    inspect_archive(run, err) != 0 ||
	    record_valid_manifest(run, err) != 0 ||
	    find_provenance(run, err) != 0 ||
	    sign_set_outputs(run, run->path, err) != 0)
		return -1;
	return reread_archive(run, err);
}

/* ----------------------------------------------------------- provenance */

static int
record_git(sign_run *run, ps_error *err)
{
	ps_sign_result *r = run->r;
	int dirty = 0;

	if (sign_git_check_clean(run->git, &dirty, err) != 0) {
		if (!dirty || !run->o->allow_dirty)
			return -1;
		ps_error_clear(err);
		r->source_dirty = 1;
	}
	r->has_source = 1;
	if (replace_string(&r->source_commit, run->git->commit, err) != 0 ||
	    replace_string(&r->source_path, run->git->pack_path, err) != 0)
		return -1;
	return replace_string(&r->source_repository, run->git->origin_url, err);
}

static int
apply_overrides(sign_run *run, ps_error *err)
{
	ps_sign_result *r = run->r;
	char *url = NULL;
	ps_error e;

	if (run->o->source_repo != NULL) {
		if (sign_git_url_normalize(run->o->source_repo, &url, &e) != 0) {
			util_fail(err, "source_repo_invalid", "--source-repo",
			    "%s", e.message);
			return util_error_expect(err, e.expected, e.found);
		}
		free(r->source_repository);
		r->source_repository = url;
	}
	if (run->o->source_commit != NULL) {
		if (!util_commit_id_valid(run->o->source_commit, 0)) {
			util_fail(err, "source_commit_invalid", "--source-commit",
			    "not a full commit id");
			return util_error_expect(err, "40 or 64 lowercase hex digits",
			    run->o->source_commit);
		}
		r->has_source = 1;
		if (replace_string(&r->source_commit, run->o->source_commit,
		    err) != 0 || (r->source_path == NULL &&
		    replace_string(&r->source_path, "", err) != 0))
			return -1;
	}
	if (!r->has_source && r->source_repository != NULL)
		return util_fail(err, "source_commit_missing", "--source-repo",
		    "outside a git work tree a repository needs --source-commit");
	return 0;
}

static int
check_holon_repository(sign_run *run, ps_error *err)
{
	const char *recorded = run->r->source_repository;
	char *declared = NULL;
	int same;

	if (sign_git_url_normalize(run->manifest->source_repository, &declared,
	    err) != 0)
		return -1;
	same = recorded != NULL && strcmp(declared, recorded) == 0;
	if (!same) {
		util_refuse(err, "source_repository_mismatch",
		    run->manifest->manifest_path, "source.repository is not the "
		    "repository being recorded (normalised)");
		util_error_expect(err, declared, recorded != NULL ? recorded :
		    "no repository (no origin remote; give --source-repo)");
	}
	free(declared);
	return same ? 0 : -1;
}

static int
check_holon_ref(sign_run *run, ps_error *err)
{
	const char *ref = run->manifest->source_commit;
	sign_git_ref_relation rel = SIGN_GIT_REF_SAME;

	if (!util_commit_id_valid(ref, 0)) {
		util_refuse(err, "holon_ref_invalid", run->manifest->manifest_path,
		    "source.ref must be a full commit id, not a branch or tag");
		return util_error_expect(err, "40 or 64 lowercase hex digits", ref);
	}
	if (strcmp(ref, run->r->source_commit) == 0)
		return 0;
	if (run->git == NULL) {
		util_refuse(err, "holon_ref_unchecked", run->manifest->manifest_path,
		    "source.ref differs from the recorded commit and there is no "
		    "repository to check that it is a manifest-only ancestor");
		return util_error_expect(err, run->r->source_commit, ref);
	}
	if (sign_git_check_holon_ref(run->git->workdir, run->git->pack_path, ref,
	    run->r->source_commit, &rel, err) != 0)
		return -1;
	return rel == SIGN_GIT_REF_ANCESTOR ?
	    replace_string(&run->r->source_manifest_ref, ref, err) : 0;
}

static int
check_holon(sign_run *run, ps_error *err)
{
	if (run->manifest->source_repository == NULL ||
	    run->manifest->source_commit == NULL)
		return util_refuse(err, "holon_source_missing",
		    run->manifest->manifest_path, "a holon manifest must declare "
		    "source.repository and source.ref");
	if (!run->r->has_source)
		return util_refuse(err, "holon_source_missing", run->path,
		    "a holon pack is signed from its git work tree or with "
		    "--source-repo and --source-commit");
	if (check_holon_repository(run, err) != 0)
		return -1;
	return check_holon_ref(run, err);
}

static int
find_provenance(sign_run *run, ps_error *err)
{
	/* --source-repo names the repository: origin is not read at all, so
	 * a clone from a local path or with a token in its URL signs. */
	if (run->is_dir && sign_git_discover(run->path,
	    run->o->source_repo == NULL, &run->git, err) != 0)
		return -1;
	if (run->git != NULL && record_git(run, err) != 0)
		return -1;
	if (apply_overrides(run, err) != 0)
		return -1;
	if (run->manifest->format == PS_FORMAT_HOLON)
		return check_holon(run, err);
	return 0;
}
