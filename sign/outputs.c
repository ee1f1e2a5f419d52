/*
 * What ps_sign writes and how it is published: OUT, OUT.sig, OUT.minisig
 * and the bundles OUT.N.sigstore.json are named and checked before anything is written, written in
 * full to temporary files, renamed in a fixed order, and after a failure
 * what this run created is removed and what it replaced put back
 * (docs/formats/signature.md, section 8.2).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sign/bundle.h"
#include "sign/bundlenums.h"
#include "sign/dsse.h"
#include "sign/outputs.h"
#include "util/atomic.h"
#include "util/error.h"
#include "util/fdio.h"
#include "util/strings.h"

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

static int
check_free(const char *path, const char *hint, ps_error *err)
{
	struct stat sb;

	if (path == NULL)
		return util_fail_oom(err, NULL);
	if (lstat(path, &sb) != 0)
		return 0;
	return util_fail(err, "output_exists", path, "refusing to replace a "
	    "signature's bundle (%s)", hint);
}

/* A new OUT.sig has one signature: its bundle is OUT.1.sigstore.json; a
 * keyless signature's bundle comes after the key's (OUT.1 alone, OUT.2
 * co-signing). */
static int
check_bundle_target(sign_run *run, ps_error *err)
{
	char *path;
	int rc = 0;

	if (run->o->bundle && !run->keyless) {
		path = sign_bundle_path(run->r->archive_path, 0);
		rc = check_free(path, "use --append to co-sign, or --force", err);
		free(path);
	}
	if (rc == 0 && (run->keyless || run->cosign)) {
		path = sign_bundle_path(run->r->archive_path, run->cosign ? 1 : 0);
		rc = check_free(path, "use --force", err);
		free(path);
	}
	return rc;
}

/* Checks the signature files' targets before anything is written. */
static int
check_sig_targets(sign_run *run, ps_error *err)
{
	const char *taken = NULL;
	struct stat sb;

	if ((run->keyless || run->cosign) && run->o->append)
		return util_fail(err, "invalid_argument", run->r->archive_path,
		    "a keyless signature lives in a bundle of its own: it "
		    "cannot be appended to OUT.sig");
	if (run->keyless)
		return run->o->force ? 0 : check_bundle_target(run, err);
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
		return check_bundle_target(run, err);
	return util_fail(err, "output_exists", taken, "refusing to replace a "
	    "signature (use --append to co-sign, or --force)");
}

int
sign_set_outputs(sign_run *run, const char *archive, ps_error *err)
{
	ps_sign_result *r = run->r;

	if (util_strdup(&r->archive_path, archive, NULL, err) != 0)
		return -1;
	if (run->keyless)
		return check_sig_targets(run, err);
	if (asprintf(&r->sig_path, "%s.sig", archive) < 0) {
		r->sig_path = NULL;
		return util_fail_oom(err, NULL);
	}
	if (run->o->minisig && asprintf(&r->minisig_path, "%s.minisig",
	    archive) < 0) {
		r->minisig_path = NULL;
		return util_fail_oom(err, NULL);
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

	if (run->keyless)
		return 0;
	if (sign_dsse_serialize(run->env, &text, &len, err) != 0)
		return -1;
	rc = stage_text(run->r->sig_path, text, len,
	    run->o->force || run->o->append, &run->sig_tmp, err);
	free(text);
	return rc;
}

/* The timestamp of the signature this run adds, when one was asked for. */
static int
new_timestamp(sign_run *run, size_t i, unsigned char **der, size_t *len,
    ps_error *err)
{
	const unsigned char *sig;
	size_t sig_len;

	*der = NULL;
	*len = 0;
	if (run->hooks == NULL || run->hooks->timestamp == NULL ||
	    i + 1 != sign_dsse_signature_count(run->env))
		return 0;
	if (sign_dsse_signature_bytes(run->env, i, &sig, &sig_len) != 0)
		return util_fail(err, "internal_error", NULL, "no new signature");
	return run->hooks->timestamp(run->hooks->ctx, sig, sig_len, der, len,
	    err);
}

static int
stage_bundle(sign_run *run, size_t i, size_t index, int kept, ps_error *err)
{
	ps_sign_result *r = run->r;
	unsigned char *der = NULL;
	char *text = NULL;
	size_t len = 0, der_len = 0;
	int rc;

	r->bundle_paths[i] = sign_bundle_path(r->archive_path, index);
	if (r->bundle_paths[i] == NULL)
		return util_fail_oom(err, NULL);
	r->bundle_count = i + 1;
	if (kept) {
		run->bundles[i].kept = 1;
		return 0;
	}
	if (new_timestamp(run, i, &der, &der_len, err) != 0)
		return -1;
	rc = sign_bundle_serialize_timestamped(run->env, i, der, der_len, &text,
	    &len, err);
	free(der);
	if (rc == 0)
		rc = stage_text(r->bundle_paths[i], text, len,
		    run->o->force || run->o->append, &run->bundles[i].tmp, err);
	free(text);
	return rc;
}

/* Keyless: the bundle the hook made, after the key's signatures
 * (OUT.1.sigstore.json alone, OUT.2.sigstore.json co-signing). */
static int
stage_keyless_bundle(sign_run *run, size_t i, ps_error *err)
{
	ps_sign_result *r = run->r;

	r->bundle_paths[i] = sign_bundle_path(r->archive_path,
	    run->env != NULL ? sign_dsse_signature_count(run->env) : 0);
	if (r->bundle_paths[i] == NULL)
		return util_fail_oom(err, NULL);
	r->bundle_count = i + 1;
	return stage_text(r->bundle_paths[i], run->keyless_bundle,
	    run->keyless_bundle_len, run->o->force, &run->bundles[i].tmp, err);
}

/* --bundle: a bundle for every signature of OUT.sig, --append too (an
 * earlier signature's bundle that is in place stays as it is, and no
 * other bundle is overwritten: sign/bundlenums.h); then the keyless one. */
static int
stage_bundles(sign_run *run, ps_error *err)
{
	size_t i, n = 0, *index = NULL;
	int *kept = NULL, rc = 0;

	if (!run->keyless && !run->o->bundle && run->keyless_bundle == NULL)
		return 0;
	if (!run->keyless && run->o->bundle)
		n = sign_dsse_signature_count(run->env);
	run->bundles = calloc(n + 1, sizeof(*run->bundles));
	run->r->bundle_paths = calloc(n + 1, sizeof(*run->r->bundle_paths));
	index = calloc(n + 1, sizeof(*index));
	kept = calloc(n + 1, sizeof(*kept));
	if (run->bundles == NULL || run->r->bundle_paths == NULL ||
	    index == NULL || kept == NULL)
		rc = util_fail_oom(err, NULL);
	for (i = 0; rc == 0 && i < n; i++)
		index[i] = i;
	if (rc == 0 && n > 0 && run->o->append)
		rc = sign_bundle_numbers(run->r->archive_path, run->env, index,
		    kept, err);
	for (i = 0; rc == 0 && i < n; i++)
		rc = stage_bundle(run, i, index[i], kept[i], err);
	if (rc == 0 && run->keyless_bundle != NULL)
		rc = stage_keyless_bundle(run, n, err);
	free(index);
	free(kept);
	return rc;
}

/*
 * Before a new file replaces OUT, OUT.minisig or a bundle, the old one gets a second
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

static int
commit_bundles(sign_run *run, ps_error *err)
{
	sign_bundle_out *b;
	struct stat sb;
	const char *path;
	size_t i;
	int existed;

	for (i = 0; i < run->r->bundle_count; i++) {
		b = &run->bundles[i];
		if (b->kept)
			continue;
		path = run->r->bundle_paths[i];
		if (path == NULL)      /* stage_bundles names every one it stages */
			return util_fail(err, "internal_error", NULL,
			    "bundle %zu was staged without a name", i);
		existed = lstat(path, &sb) == 0;
		b->backup = second_name(path, b->tmp);
		if (util_atomic_commit_unsynced(b->tmp, err) != 0) {
			b->tmp = NULL;
			return -1;
		}
		b->tmp = NULL;
		b->created = !existed;
		b->replaced = existed;
	}
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
 * then the archive, OUT.minisig, the bundles and OUT.sig are renamed into
 * place in that order, back to back, so neither a .sig nor a bundle ever
 * names an archive that is not in place and a crash between two renames
 * is as unlikely as can be.
 */
int
sign_outputs_publish(sign_run *run, ps_error *err)
{
	ps_atomic_file *sig;
	size_t i;

	if (stage_minisig(run, err) != 0 || stage_bundles(run, err) != 0 ||
	    stage_sig(run, err) != 0 || commit_archive(run, err) != 0 ||
	    commit_minisig(run, err) != 0 || commit_bundles(run, err) != 0)
		return -1;
	sig = run->sig_tmp;
	run->sig_tmp = NULL;
	if (sig != NULL && util_atomic_commit_unsynced(sig, err) != 0)
		return -1;
	drop_second_name(&run->archive_backup);
	drop_second_name(&run->minisig_backup);
	for (i = 0; i < run->r->bundle_count; i++)
		drop_second_name(&run->bundles[i].backup);
	/* One directory sync makes every rename above durable. */
	(void)util_atomic_sync_parent(run->r->archive_path);
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

static void
roll_back_bundles(sign_run *run)
{
	sign_bundle_out *b;
	size_t i;

	for (i = 0; run->bundles != NULL && i < run->r->bundle_count; i++) {
		b = &run->bundles[i];
		ps_atomic_abort(b->tmp);
		b->tmp = NULL;
		if (b->created)
			(void)unlink(run->r->bundle_paths[i]);
		put_back(&b->backup, b->replaced, run->r->bundle_paths[i]);
	}
}

/* Removes what this run created after a failure, and puts back what it
 * replaced. */
void
sign_outputs_roll_back(sign_run *run)
{
	roll_back_bundles(run);
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
