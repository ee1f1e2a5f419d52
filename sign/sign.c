/*
 * ps_sign: a pack becomes OUT (its canonical archive, or the archive given)
 * and OUT.sig, a DSSE envelope over the in-toto statement
 * (docs/formats/signature.md, section 8).  Every check that can refuse
 * runs before anything is written; the archive is committed before the
 * signature files, and what this run created is removed after a failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "keys/keys.h"
#include "sign/dsse.h"
#include "pack/pack.h"
#include "sign/provenance.h"
#include "sign/signrun.h"
#include "sign/statement.h"
#include "util/atomic.h"
#include "util/error.h"
#include "util/fdio.h"
#include "util/sha256.h"

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
	ps_diags_free(&r->diags);
	free(r);
}

static int
no_memory(ps_error *err)
{
	return util_fail_errno(err, "out_of_memory", NULL, "allocate", ENOMEM);
}

static int
set_string(char **dst, const char *src, ps_error *err)
{
	free(*dst);
	*dst = NULL;
	if (src == NULL)
		return 0;
	*dst = strdup(src);
	return *dst == NULL ? no_memory(err) : 0;
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
	rc = set_string(&run->r->identity, identity, err);
	ps_pubkey_free(file_key);
	return rc;
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
	util_refuse(err, "signed_by_mismatch", run->manifest->manifest_path,
	    "the signing key is not one the manifest's signed_by names%s",
	    identity == NULL ? " (give --identity or keep NAME.pub beside "
	    "NAME.key)" : "");
	return util_error_expect(err, expected, found);
}

/* ------------------------------------------------------------ manifest */

static int
require_valid(sign_run *run, ps_error *err)
{
	if (run->manifest != NULL && ps_manifest_valid(&run->r->diags, 0))
		return 0;
	util_refuse(err, "manifest_invalid", run->path, "the manifest does not "
	    "validate: %zu error(s)", ps_diags_count(&run->r->diags,
	    PS_SEVERITY_ERROR));
	return -1;
}

static int
record_manifest(sign_run *run, ps_error *err)
{
	run->r->format = run->manifest->format;
	run->r->prompt_count = run->manifest->prompt_count;
	if (set_string(&run->r->id, run->manifest->id, err) != 0 ||
	    set_string(&run->r->version, run->manifest->version, err) != 0)
		return -1;
	return check_signed_by(run, err);
}

/* ----------------------------------------------------------- statement */

static int
add_prompts(sign_run *run, ps_error *err)
{
	const ps_entry *e;
	size_t i;

	for (i = 0; i < run->manifest->prompt_count; i++) {
		e = ps_digest_find(run->digest, run->manifest->prompts[i].path);
		if (e == NULL || e->type != PS_ENTRY_FILE)
			return util_refuse(err, "prompt_missing",
			    run->manifest->prompts[i].path, "a prompt file the "
			    "manifest declares is not a file of the pack");
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
	if (set_string(&st->source_repository, r->source_repository, err) != 0 ||
	    set_string(&st->source_commit, r->source_commit, err) != 0 ||
	    set_string(&st->source_path, r->source_path, err) != 0)
		return -1;
	return set_string(&st->source_manifest_commit, r->source_manifest_ref,
	    err);
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
	    set_string(&st->pack_id, run->manifest->id, err) != 0 ||
	    set_string(&st->pack_version, run->manifest->version, err) != 0 ||
	    set_string(&st->pack_name, run->manifest->name, err) != 0 ||
	    add_prompts(run, err) != 0 || set_source(run, err) != 0)
		return -1;
	st->no_build = !run->is_dir;
	if (run->is_dir) {
		st->mtime = run->o->pack.mtime;
		st->compression = run->o->pack.compression;
		if (set_string(&st->packsign_version, PS_VERSION, err) != 0)
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
	    same_files(a->prompts, a->prompt_count, b->prompts, b->prompt_count);
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
	    ", source, mtime or compression" : "");
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

/* ------------------------------------------------------------- outputs */

static int
read_existing(sign_run *run, ps_error *err)
{
	int fd = open(run->r->sig_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), rc;

	if (fd < 0 && errno == ENOENT)
		return util_fail(err, "sig_missing", run->r->sig_path,
		    "--append adds a signature to an existing file");
	if (fd < 0)
		return util_fail_errno(err, "io_error", run->r->sig_path, "open",
		    errno);
	rc = sign_dsse_read_fd(fd, run->r->sig_path, &run->existing, err);
	close(fd);
	return rc;
}

/* Checks the signature files' targets before anything is written. */
static int
check_sig_targets(sign_run *run, ps_error *err)
{
	const char *taken = NULL;
	struct stat sb;

	if (run->o->append)
		return read_existing(run, err);
	if (run->o->force)
		return 0;
	if (lstat(run->r->sig_path, &sb) == 0)
		taken = run->r->sig_path;
	else if (run->r->minisig_path != NULL &&
	    lstat(run->r->minisig_path, &sb) == 0)
		taken = run->r->minisig_path;
	if (taken == NULL)
		return 0;
	return util_fail(err, "output_exists", taken, "refusing to replace a "
	    "signature (use --append to co-sign, or --force)");
}

static int
set_output_paths(sign_run *run, const char *archive, ps_error *err)
{
	ps_sign_result *r = run->r;

	if (set_string(&r->archive_path, archive, err) != 0)
		return -1;
	if (asprintf(&r->sig_path, "%s.sig", archive) < 0) {
		r->sig_path = NULL;
		return no_memory(err);
	}
	if (run->o->minisig && asprintf(&r->minisig_path, "%s.minisig",
	    archive) < 0) {
		r->minisig_path = NULL;
		return no_memory(err);
	}
	return check_sig_targets(run, err);
}

/* Writes `text` in full to a temporary file for `path`, not yet renamed. */
static int
stage_text(const char *path, const char *text, size_t len, int replace,
    ps_atomic_file **out, ps_error *err)
{
	if (ps_atomic_open(path, 0644, replace ? 0 : PS_ATOMIC_NO_REPLACE, out,
	    err) != 0)
		return -1;
	if (util_write_all(ps_atomic_fd(*out), text, len, path, err) != 0)
		return -1;
	if (fsync(ps_atomic_fd(*out)) != 0)
		return util_fail_errno(err, errno == ENOSPC ? "disk_full" :
		    "io_error", path, "flush output", errno);
	return 0;
}

static int
stage_minisig(sign_run *run, ps_error *err)
{
	char comment[SIGN_STATEMENT_MAX_STRING * 2 + PS_SHA256_STRING_LEN + 32];
	char tree[PS_SHA256_STRING_LEN], *text = NULL;
	int rc;

	if (run->r->minisig_path == NULL)
		return 0;
	snprintf(comment, sizeof(comment), "packsign pack %s %s %s",
	    run->r->id, run->r->version,
	    ps_sha256_string(run->r->tree_digest, tree));
	if (ps_minisig_format(run->key, run->blake2b, comment, &text, err) != 0)
		return -1;
	rc = stage_text(run->r->minisig_path, text, strlen(text),
	    run->o->force || run->o->append, &run->minisig_tmp, err);
	free(text);
	return rc;
}

static int
stage_sig(sign_run *run, ps_error *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc;

	if (sign_dsse_serialize(run->env, &text, &len, err) != 0)
		return -1;
	rc = stage_text(run->r->sig_path, text, len,
	    run->o->force || run->o->append, &run->sig_tmp, err);
	free(text);
	return rc;
}

/*
 * Before a new file replaces OUT or OUT.minisig, the old one gets a second
 * (hard link) name beside it, so that it can be put back if a later rename
 * fails.  A file system without hard links goes without.
 */
static char *
second_name(const char *path, const ps_atomic_file *tmp)
{
	struct stat sb;
	char *name = NULL;

	if (lstat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
		return NULL;
	if (asprintf(&name, "%s.prev", ps_atomic_temp_path(tmp)) < 0)
		return NULL;
	if (link(path, name) != 0) {
		free(name);
		return NULL;
	}
	return name;
}

static int
commit_archive(sign_run *run, ps_error *err)
{
	ps_atomic_file *tmp = run->archive_tmp;
	int rc;

	if (tmp == NULL)
		return 0;
	/* Flushed first, so the second name lives only while renaming. */
	if (fsync(ps_atomic_fd(tmp)) != 0)
		return util_fail_errno(err, errno == ENOSPC ? "disk_full" :
		    "io_error", run->r->archive_path, "flush output", errno);
	run->archive_backup = second_name(run->r->archive_path, tmp);
	run->archive_tmp = NULL;
	rc = util_atomic_commit_unsynced(tmp, err);
	if (run->o->temp_file_hook != NULL)
		run->o->temp_file_hook(NULL);
	if (rc != 0)
		return -1;
	run->archive_created = !run->archive_existed;
	run->archive_replaced = run->archive_existed;
	run->r->archive_written = 1;
	return 0;
}

static int
commit_minisig(sign_run *run, ps_error *err)
{
	ps_atomic_file *tmp = run->minisig_tmp;
	struct stat sb;
	int existed;

	if (tmp == NULL)
		return 0;
	existed = lstat(run->r->minisig_path, &sb) == 0;
	run->minisig_backup = second_name(run->r->minisig_path, tmp);
	run->minisig_tmp = NULL;
	if (util_atomic_commit_unsynced(tmp, err) != 0)
		return -1;
	run->minisig_created = !existed;
	run->minisig_replaced = existed;
	return 0;
}

/* Removes a second name once its file is no longer needed. */
static void
drop_second_name(char **name)
{
	if (*name != NULL)
		(void)unlink(*name);
	free(*name);
	*name = NULL;
}

/*
 * Every output is written in full and flushed before the first rename;
 * then the archive, OUT.minisig and OUT.sig are renamed into place in that
 * order, back to back, so a .sig never names an archive that is not in
 * place and a crash between two renames is as unlikely as can be.
 */
static int
sign_and_write(sign_run *run, ps_error *err)
{
	ps_atomic_file *sig;

	if (build_statement(run, err) != 0 || sign_envelope(run, err) != 0 ||
	    stage_minisig(run, err) != 0 || stage_sig(run, err) != 0 ||
	    commit_archive(run, err) != 0 || commit_minisig(run, err) != 0)
		return -1;
	sig = run->sig_tmp;
	run->sig_tmp = NULL;
	if (util_atomic_commit_unsynced(sig, err) != 0)
		return -1;
	drop_second_name(&run->archive_backup);
	drop_second_name(&run->minisig_backup);
	/* One directory sync makes every rename above durable. */
	(void)util_atomic_sync_parent(run->r->sig_path);
	return 0;
}

/* Puts a replaced file back from its second name; should that fail, the
 * old file keeps its second name rather than be lost. */
static void
put_back(char **name, int replaced, const char *path)
{
	if (*name == NULL)
		return;
	if (!replaced)
		(void)unlink(*name);
	else
		(void)rename(*name, path);
	free(*name);
	*name = NULL;
}

/* Removes what this run created after a failure, and puts back what it
 * replaced. */
static void
roll_back(sign_run *run)
{
	if (run->archive_tmp != NULL) {
		ps_atomic_abort(run->archive_tmp);
		if (run->o->temp_file_hook != NULL)
			run->o->temp_file_hook(NULL);
	}
	run->archive_tmp = NULL;
	ps_atomic_abort(run->minisig_tmp);
	ps_atomic_abort(run->sig_tmp);
	run->minisig_tmp = run->sig_tmp = NULL;
	if (run->minisig_created)
		(void)unlink(run->r->minisig_path);
	if (run->archive_created)
		(void)unlink(run->r->archive_path);
	put_back(&run->minisig_backup, run->minisig_replaced,
	    run->r->minisig_path);
	put_back(&run->archive_backup, run->archive_replaced,
	    run->r->archive_path);
}

static void
run_free(sign_run *run)
{
	ps_pubkey_free(run->pub);
	ps_manifest_free(run->manifest);
	ps_digest_free(run->digest);
	sign_statement_free(run->st);
	free(run->payload);
	sign_dsse_free(run->env);
	sign_dsse_free(run->existing);
	sign_git_source_free(run->git);
	free(run->archive_backup);
	free(run->minisig_backup);
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
ps_sign(const char *path, const ps_seckey *key, const ps_sign_options *o,
    ps_sign_result **out, ps_error *err)
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
	run.r = calloc(1, sizeof(*run.r));
	if (run.r == NULL)
		return no_memory(err);
	ps_diags_init(&run.r->diags);
	*out = run.r;
	rc = sign_path(&run, err);
	if (rc != 0)
		roll_back(&run);
	run_free(&run);
	return rc;
}

/* Called by the preparers once OUT is known. */
int
sign_set_outputs(sign_run *run, const char *archive, ps_error *err)
{
	return set_output_paths(run, archive, err);
}

int
sign_record_manifest(sign_run *run, ps_error *err)
{
	if (require_valid(run, err) != 0)
		return -1;
	return record_manifest(run, err);
}
