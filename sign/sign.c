/*
 * sign_pack (ps_sign, keyless/signhooks.c): a pack becomes OUT (its canonical archive, or the archive given)
 * and OUT.sig, a DSSE envelope over the in-toto statement
 * (docs/formats/signature.md, section 8).  Every check that can refuse
 * runs before anything is written; the archive is committed before the
 * signature files, and what this run created is removed after a failure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "sign/dsse.h"
#include "keys/keys.h"
#include "pack/pack.h"
#include "sign/provenance.h"
#include "sign/outputs.h"
#include "sign/predicate.h"
#include "sign/signprep.h"
#include "sign/signrun.h"
#include "sign/statement.h"
#include "util/error.h"
#include "util/sha256.h"
#include "util/strings.h"

void
ps_sign_options_init(ps_sign_options *options)
{
	memset(options, 0, sizeof(*options));
	ps_pack_options_init(&options->pack);
	options->pack.compression = PS_COMPRESS_GZIP;
}

void
ps_sign_result_free(ps_sign_result *r)
{
	size_t i;

	if (r == NULL)
		return;
	free(r->archive_path);
	free(r->sig_path);
	free(r->minisig_path);
	free(r->id);
	free(r->version);
	free(r->source_repository);
	free(r->source_commit);
	free(r->source_path);
	free(r->source_manifest_ref);
	free(r->identity);
	for (i = 0; i < r->bundle_count; i++)
		free(r->bundle_paths[i]);
	free(r->bundle_paths);
	ps_diags_free(&r->diags);
	free(r);
}

/* ------------------------------------------------------------ identity */

/* The public key file beside the secret key, when one was named. */
static int
load_public_file(sign_run *run, ps_pubkey **file_key, ps_error *err)
{
	const char *path = run->o->public_key_path;
	ps_error quiet;

	*file_key = NULL;
	if (path == NULL)
		return 0;
	if (ps_pubkey_load_file(path, file_key, &quiet) != 0) {
		if (ps_error_is(&quiet, PS_CODE_NOT_FOUND))
			return 0;
		*err = quiet;
		return -1;
	}
	if (!ps_pubkey_equal(*file_key, run->pub)) {
		ps_pubkey_free(*file_key);
		*file_key = NULL;
		return util_fail(err, "key_pair_mismatch", path, "this public key "
		    "is not the public half of the secret key given");
	}
	return 0;
}

static int
resolve_identity(sign_run *run, ps_error *err)
{
	ps_pubkey *file_key = NULL;
	const char *identity = run->o->identity;
	int rc;

	if (run->keyless)
		return util_strdup(&run->r->identity, run->hooks->identity, NULL,
		    err);
	if (ps_seckey_public(run->key, &run->pub, err) != 0)
		return -1;
	if (ps_pubkey_fingerprint(run->pub, run->r->fingerprint) != 0)
		return util_fail(err, "crypto_error", NULL, "fingerprint failed");
	if (identity != NULL && !ps_identity_valid(identity))
		return util_fail(err, "identity_invalid", identity, "an identity is "
		    "1 to %d characters from A-Z a-z 0-9 . _ @ + : / -",
		    PS_IDENTITY_MAX);
	if (load_public_file(run, &file_key, err) != 0)
		return -1;
	if (identity == NULL && file_key != NULL)
		identity = file_key->identity;
	rc = util_strdup(&run->r->identity, identity, NULL, err);
	ps_pubkey_free(file_key);
	return rc;
}

/* ----------------------------------------------------------- statement */

/* The validator lists only prompt files it found as files of the very
 * view the digest was made from (a missing one is path_missing, a
 * directory path_not_file, before anything is signed): one that is not
 * in the digest is a bug, never a property of the pack. */
static int
add_prompts(sign_run *run, ps_error *err)
{
	const ps_entry *e;
	size_t i;

	for (i = 0; i < run->manifest->prompt_count; i++) {
		e = ps_digest_find(run->digest, run->manifest->prompts[i].path);
		if (e == NULL || e->type != PS_ENTRY_FILE)
			return util_fail(err, "internal_error",
			    run->manifest->prompts[i].path, "a prompt file the "
			    "validator listed is not a file of the packed pack");
		if (sign_statement_add_prompt(run->st, e->path, e->sha256, err) != 0)
			return -1;
	}
	return 0;
}

static int
set_source(sign_run *run, ps_error *err)
{
	sign_statement *st = run->st;
	const ps_sign_result *r = run->r;

	st->has_source = r->has_source;
	st->source_dirty = r->source_dirty;
	if (!r->has_source)
		return 0;
	if (util_strdup(&st->source_repository, r->source_repository, NULL,
	    err) != 0 ||
	    util_strdup(&st->source_commit, r->source_commit, NULL, err) != 0 ||
	    util_strdup(&st->source_path, r->source_path, NULL, err) != 0)
		return -1;
	return util_strdup(&st->source_manifest_commit, r->source_manifest_ref,
	    NULL, err);
}

static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

static int
build_statement(sign_run *run, ps_error *err)
{
	sign_statement *st;

	if (sign_statement_new(&run->st, err) != 0)
		return -1;
	st = run->st;
	if (sign_statement_add_subject(st, base_name(run->r->archive_path),
	    run->r->archive_digest, err) != 0 ||
	    sign_statement_set_digest(st, run->digest, err) != 0 ||
	    util_strdup(&st->pack_id, run->manifest->id, NULL, err) != 0 ||
	    util_strdup(&st->pack_version, run->manifest->version, NULL,
	    err) != 0 ||
	    util_strdup(&st->pack_name, run->manifest->name, NULL, err) != 0 ||
	    add_prompts(run, err) != 0 || set_source(run, err) != 0)
		return -1;
	if (run->has_chunks && !run->chunks.over &&
	    sign_statement_set_chunks(st, run->chunks.size,
	    (const unsigned char (*)[PS_SHA256_LEN])run->chunks.digests,
	    run->chunks.count, err) != 0)
		return -1;
	st->no_build = !run->is_dir;
	if (run->is_dir) {
		st->mtime = run->o->pack.mtime;
		st->compression = run->o->pack.compression;
		if (util_strdup(&st->packsign_version, PS_VERSION, NULL, err) != 0)
			return -1;
	}
	return sign_statement_serialize(st, &run->payload, &run->payload_len, err);
}

static int
same_files(const sign_statement_file *a, size_t na, const sign_statement_file *b,
    size_t nb)
{
	size_t i;

	if (na != nb)
		return 0;
	for (i = 0; i < na; i++) {
		if (strcmp(a[i].path, b[i].path) != 0 ||
		    memcmp(a[i].sha256, b[i].sha256, PS_SHA256_LEN) != 0)
			return 0;
	}
	return 1;
}

/* Chunk digests, when both statements record them (a v1 statement is
 * co-signed as it is). */
static int
same_chunks(const sign_statement *a, const sign_statement *b)
{
	if (a->predicate_version != 2 || b->predicate_version != 2)
		return 1;
	return a->archive_size == b->archive_size &&
	    a->chunk_count == b->chunk_count &&
	    memcmp(a->chunks, b->chunks, a->chunk_count * sizeof(*a->chunks)) ==
	    0;
}

/*
 * What a co-signer of an existing archive vouches for and can check
 * itself: the archive's bytes, what it holds and its manifest.  The build
 * and source records are the first signer's; a co-signer checks a source
 * with `packsign verify --rebuild-from`.
 */
static int
same_content(const sign_statement *a, const sign_statement *b)
{
	return a->format == b->format &&
	    strcmp(a->pack_id, b->pack_id) == 0 &&
	    strcmp(a->pack_version, b->pack_version) == 0 &&
	    a->no_tar_digest == b->no_tar_digest &&
	    (a->no_tar_digest || memcmp(a->tar_digest, b->tar_digest,
	    PS_SHA256_LEN) == 0) &&
	    memcmp(a->tree_digest, b->tree_digest, PS_SHA256_LEN) == 0 &&
	    strcmp(a->manifest_path, b->manifest_path) == 0 &&
	    memcmp(a->manifest_sha256, b->manifest_sha256, PS_SHA256_LEN) == 0 &&
	    same_files(a->subjects, a->subject_count, b->subjects,
	    b->subject_count) &&
	    same_files(a->prompts, a->prompt_count, b->prompts, b->prompt_count) &&
	    same_chunks(a, b);
}

/*
 * --append: a directory run signs only the statement it would have
 * written (byte for byte); an archive run co-signs the existing statement
 * once everything it says about the archive checks out.
 */
static int
check_append(sign_run *run, ps_error *err)
{
	char want[PS_SHA256_STRING_LEN + 64], digest[PS_SHA256_STRING_LEN];
	const unsigned char *theirs_bytes;
	sign_statement *theirs = NULL;
	size_t theirs_len;
	int same;

	if (sign_dsse_payload_equal(run->existing, SIGN_INTOTO_PAYLOAD_TYPE,
	    run->payload, run->payload_len))
		return 0;
	if (!run->is_dir &&
	    sign_dsse_payload_to_cosign(run->existing, &theirs_bytes,
	    &theirs_len) == 0 &&
	    sign_statement_parse(theirs_bytes, theirs_len, &theirs, err) == 0) {
		same = same_content(theirs, run->st);
		sign_statement_free(theirs);
		if (same)
			return 0;
	}
	util_refuse(err, "append_mismatch", run->r->sig_path, "the existing "
	    "signature is over another statement than this run's (a "
	    "different archive, pack, prompt files%s)", run->is_dir ?
	    ", source, mtime, compression or predicate version" : "");
	snprintf(want, sizeof(want), "a statement for this archive (subject %s)",
	    ps_sha256_string(run->r->archive_digest, digest));
	return util_error_expect(err, want, "another payload");
}

/* The envelope: a new one, or the existing OUT.sig when appending. */
static int
sign_envelope(sign_run *run, ps_error *err)
{
	if (run->existing != NULL) {
		if (check_append(run, err) != 0)
			return -1;
		run->env = run->existing;
		run->existing = NULL;
	} else if (sign_dsse_new(SIGN_INTOTO_PAYLOAD_TYPE, run->payload,
	    run->payload_len, &run->env, err) != 0) {
		return -1;
	}
	if (sign_dsse_sign(run->env, run->key->sk, run->r->fingerprint, err) != 0)
		return -1;
	run->r->signature_count = sign_dsse_signature_count(run->env);
	return 0;
}

/* Keyless: the bundle the hook makes (certificate, log entry) over the
 * statement. */
static int
sign_keyless(sign_run *run, ps_error *err)
{
	if (run->hooks->keyless(run->hooks->ctx, run->payload, run->payload_len,
	    run->r, &run->keyless_bundle, &run->keyless_bundle_len, err) != 0)
		return -1;
	if (run->keyless)
		run->r->signature_count = 1;
	return 0;
}

/* Co-signing (-s KEY --keyless): the key's signature first, so that a
 * refusal of the key's costs no request. */
static int
sign_and_write(sign_run *run, ps_error *err)
{
	if (build_statement(run, err) != 0 || (run->keyless ?
	    sign_keyless(run, err) : sign_envelope(run, err)) != 0 ||
	    (run->cosign && sign_keyless(run, err) != 0))
		return -1;
	return sign_outputs_publish(run, err);
}

static void
run_free(sign_run *run)
{
	ps_pubkey_free(run->pub);
	pack_packer_free(run->packer);
	ps_manifest_free(run->manifest);
	ps_digest_free(run->digest);
	sign_statement_free(run->st);
	free(run->payload);
	sign_dsse_free(run->env);
	sign_dsse_free(run->existing);
	util_chunks_free(&run->chunks);
	sign_git_source_free(run->git);
	free(run->archive_backup);
	free(run->minisig_backup);
	free(run->bundles);
	free(run->keyless_bundle);
}

static int
sign_path(sign_run *run, ps_error *err)
{
	struct stat sb;

	if (resolve_identity(run, err) != 0)
		return -1;
	if (stat(run->path, &sb) != 0)
		return util_fail_errno(err, errno == ENOENT ? "not_found" :
		    "io_error", run->path, "stat", errno);
	run->is_dir = S_ISDIR(sb.st_mode);
	if (run->is_dir ? sign_prepare_dir(run, err) != 0 :
	    sign_prepare_archive(run, err) != 0)
		return -1;
	return sign_and_write(run, err);
}

int
sign_pack(const char *path, const ps_seckey *key, const ps_sign_options *o,
    const sign_hooks *hooks, ps_sign_result **out, ps_error *err)
{
	sign_run run;
	int rc;

	*out = NULL;
	if (sodium_init() < 0)
		return util_fail(err, "crypto_error", NULL, "libsodium failed");
	memset(&run, 0, sizeof(run));
	run.path = path;
	run.key = key;
	run.o = o;
	run.hooks = hooks;
	run.keyless = key == NULL && hooks != NULL && hooks->keyless != NULL;
	run.cosign = key != NULL && hooks != NULL && hooks->keyless != NULL;
	if (key == NULL && !run.keyless)
		return util_fail(err, "invalid_argument", path, "no key to sign "
		    "with");
	run.r = calloc(1, sizeof(*run.r));
	if (run.r == NULL)
		return util_fail_oom(err, NULL);
	ps_diags_init(&run.r->diags);
	*out = run.r;
	rc = sign_path(&run, err);
	if (rc != 0)
		sign_outputs_roll_back(&run);
	/* After the outputs are in place: a failure here leaves them. */
	else if (o->predicate_out != NULL)
		rc = sign_write_predicate(o->predicate_out, run.payload,
		    run.payload_len, err);
	run_free(&run);
	return rc;
}

