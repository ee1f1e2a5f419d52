/*
 * ps_verify(): the order of docs/formats/signature.md, section 3.  The
 * archive is read twice through one descriptor: hashed and matched to the
 * signed subject before a byte of it is parsed, then parsed while hashed
 * again (a file changed in between is refused); the reader keeps what the
 * checks need (per-file digests, small files).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pack/archivename.h"
#include "pack/pack.h"
#include "sign/provenance.h"
#include "util/error.h"
#include "util/copy.h"
#include "util/lease.h"
#include "util/strings.h"
#include "util/fdio.h"
#include "util/sha256.h"
#include "verify/bundles.h"
#include "verify/certsigners.h"
#include "verify/certsource.h"
#include "verify/ceiling.h"
#include "verify/signatures.h"
#include "verify/source.h"
#include "verify/vctx.h"
#include "verify/verify.h"

void
ps_verify_options_init(ps_verify_options *options)
{
	memset(options, 0, sizeof(*options));
	options->at = (int64_t)time(NULL);
	ps_extract_limits_init(&options->limits);
}

void
ps_verify_result_free(ps_verify_result *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->signature_count; i++) {
		free(r->signatures[i].keyid);
		free(r->signatures[i].identity);
		free(r->signatures[i].reason);
		free(r->signatures[i].signing_times);
		verify_keyless_result_free(r->signatures[i].keyless);
	}
	for (i = 0; i < r->identity_count; i++)
		free(r->identities[i].identity);
	free(r->signatures);
	free(r->identities);
	free(r->path);
	free(r->sig_path);
	free(r->id);
	free(r->version);
	free(r->name);
	free(r->source_repository);
	free(r->source_commit);
	free(r->source_path);
	free(r->source_manifest_ref);
	free(r->lease_declined);
	ps_diags_free(&r->warnings);
	free(r);
}

static int
check_bundle_options(const char *path, const ps_verify_options *o,
    ps_error *err)
{
	if (o->bundle_count == 0)
		return 0;
	if (o->bundle_paths == NULL || o->bundle_count > SIGN_DSSE_MAX_SIGNATURES)
		return util_fail(err, "invalid_argument", path,
		    "1 to %d bundle paths", SIGN_DSSE_MAX_SIGNATURES);
	if (o->sig_path != NULL)
		return util_fail(err, "invalid_argument", path,
		    "a .sig and Sigstore bundles exclude each other");
	return 0;
}

/* Operator input is checked before any work (exit 2). */
static int
check_options(const char *path, const ps_verify_options *o, ps_error *err)
{
	char *normal = NULL;
	ps_error e;

	if (o->trust == NULL)
		return util_fail(err, "invalid_argument", path,
		    "verification needs a trust policy");
	if (check_bundle_options(path, o, err) != 0)
		return -1;
	if (o->source_commit != NULL && !util_commit_id_valid(o->source_commit, 1)) {
		util_fail(err, "source_commit_invalid", "--source-commit",
		    "must be a full commit id, not a branch, tag or prefix");
		return util_error_expect(err, "40 or 64 hex digits",
		    o->source_commit);
	}
	if (o->source_repo == NULL)
		return 0;
	if (sign_git_url_normalize(o->source_repo, &normal, &e) != 0) {
		util_fail(err, "source_repo_invalid", "--source-repo", "%s (%s)",
		    e.message, e.code);
		return -1;
	}
	free(normal);
	return 0;
}

static int
new_result(const char *path, const ps_verify_options *o,
    ps_verify_result **out, ps_error *err)
{
	ps_verify_result *r = calloc(1, sizeof(*r));

	*out = r;
	if (r == NULL)
		return util_fail_oom(err, path);
	r->deep = o->deep;
	r->threshold = o->trust != NULL ? o->trust->threshold : 0;
	if (util_strdup(&r->path, path, NULL, err) != 0)
		return -1;
	if (o->sig_path != NULL)
		return util_strdup(&r->sig_path, o->sig_path, NULL, err);
	if (o->bundle_count > 0 && o->bundle_paths != NULL)
		return util_strdup(&r->sig_path, o->bundle_paths[0], NULL, err);
	if (asprintf(&r->sig_path, "%s.sig", path) < 0) {
		r->sig_path = NULL;
		return util_fail_oom(err, path);
	}
	return 0;
}

/* Step 2, and what the statement says goes into the result. */
static int
parse_statement(verify_vctx *v, ps_error *err)
{
	ps_verify_result *r = v->res;
	const sign_statement *st;

	if (sign_statement_from_verified(&v->verified, &v->st, err) != 0)
		return -1;
	st = v->st;
	r->format = st->format;
	if (util_strdup(&r->id, st->pack_id, NULL, err) != 0 ||
	    util_strdup(&r->version, st->pack_version, NULL, err) != 0 ||
	    util_strdup(&r->name, st->pack_name, NULL, err) != 0)
		return -1;
	r->has_source = st->has_source;
	r->source_dirty = st->source_dirty;
	if (util_strdup(&r->source_repository, st->source_repository, NULL,
	    err) != 0 ||
	    util_strdup(&r->source_commit, st->source_commit, NULL, err) != 0 ||
	    util_strdup(&r->source_path, st->source_path, NULL, err) != 0 ||
	    util_strdup(&r->source_manifest_ref, st->source_manifest_commit,
	    NULL, err) != 0)
		return -1;
	return 0;
}

static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

static const sign_statement_file *
find_subject(const verify_vctx *v, ps_error *err)
{
	const sign_statement_file *s;
	const char *names[16];
	char found[PS_ERROR_VALUE_MAX];
	size_t i;

	s = sign_statement_find_subject(v->st, base_name(v->path));
	if (s == NULL && v->st->subject_count == 1)
		s = &v->st->subjects[0];
	if (s != NULL)
		return s;
	for (i = 0; i < v->st->subject_count && i < 16; i++)
		/* the statement parser gives subjects for every subject_count. */
		/* NOLINTNEXTLINE(clang-analyzer-core.NullDereference) */
		names[i] = v->st->subjects[i].path;
	util_join(found, sizeof(found), names, i);
	util_refuse(err, "subject_missing", v->path, "looked for the signed "
	    "subject named after the archive");
	util_error_expect(err, base_name(v->path), found);
	return NULL;
}

/*
 * Without --deep only the files the statement names are hashed: the
 * subject digest already covers every byte of the archive, so verify
 * costs about one SHA-256 pass (signature.md, step 4).
 */
static int
signed_file(void *ctx, const char *path)
{
	const sign_statement *st = ctx;
	size_t lo = 0, hi = st->prompt_count, mid;
	int c;

	if (strcmp(path, st->manifest_path) == 0)
		return 1;
	while (lo < hi) {         /* prompts are sorted by path */
		mid = lo + (hi - lo) / 2;
		c = strcmp(st->prompts[mid].path, path);
		if (c == 0)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

#define SUBJECT_CHECK "compared the SHA-256 of the archive's bytes with " \
    "the signed subject"

/* The archive, opened once: both passes read this descriptor, so that
 * nothing renamed over the path between them is read.  install hands over
 * its private copy and the digest it took while copying. */
static int
open_archive_fd(verify_vctx *v, int *owned, const unsigned char **copied,
    ps_error *err)
{
	int fd;

	*owned = 0;
	*copied = NULL;
	if (pack_archive_name_readable(v->path, v->path, err) == NULL)
		return -1;
	if (v->stream != NULL && v->stream->acquire != NULL)
		return v->stream->acquire(v->stream->ctx, v->st, &fd, copied,
		    err) != 0 ? -1 : fd;
	*owned = 1;
	return util_open_file(v->path, err);
}

/* Pass 1: every byte is hashed and the digest matched to the signed
 * subject before any byte is parsed or decompressed (install hashed its
 * private copy while making it).  A file that grew past the size its
 * copy was made for keeps no copy: pass 2 reads it again. */
static int
authenticate(verify_vctx *v, int fd, util_copy *copy,
    const unsigned char *copied, const sign_statement_file *subject,
    ps_error *err)
{
	unsigned char *got = v->res->archive_digest;
	uint64_t size = 0;

	if (copied != NULL)
		memcpy(got, copied, PS_SHA256_LEN);
	else if (util_sha256_fd_copy(fd, copy->fd, copy->capacity, got,
	    &size) != 0)
		return util_fail_errno(err, errno == ENOSPC ? "disk_full" :
		    "io_error", v->path, copy->fd >= 0 ? "read into its private "
		    "copy" : "read", errno);
	if (copy->fd >= 0 && size > copy->capacity)
		util_copy_close(copy);
	v->res->has_archive_digest = 1;
	if (memcmp(got, subject->sha256, PS_SHA256_LEN) != 0)
		return util_refuse_digest(err, "subject_mismatch", v->path,
		    SUBJECT_CHECK, subject->sha256, got);
	return 0;
}

static int
refuse_changed(verify_vctx *v, const sign_statement_file *subject,
    const unsigned char got[PS_SHA256_LEN], ps_error *err)
{
	return util_refuse_digest(err, "subject_changed", v->path, "hashed the "
	    "archive again while parsing it: its bytes changed after they "
	    "matched the signed subject", subject->sha256, got);
}

/* After the reader failed: a file that no longer holds the signed bytes
 * is refused for that, not for what a writer racing the reader put in. */
static int
refuse_reading(verify_vctx *v, int fd, const sign_statement_file *subject,
    const ps_error *reader_err, ps_error *err)
{
	unsigned char got[PS_SHA256_LEN];
	uint64_t size;

	if (lseek(fd, 0, SEEK_SET) == 0 &&
	    util_sha256_fd_overlapped(fd, got, &size) == 0 &&
	    memcmp(got, subject->sha256, PS_SHA256_LEN) != 0)
		return refuse_changed(v, subject, got, err);
	*err = *reader_err;
	return -1;
}

/* Pass 2, one read of the authenticated file: the reader checks, hashes
 * again and keeps what the validators need while the caller's visitor
 * sees every entry (install extracts them). */
static int
parse_archive(verify_vctx *v, int fd, int fd_mode, const unsigned char *known,
    ps_pack_files *files, ps_digest **d, ps_error *err)
{
	verify_stream *s = v->stream;
	pack_archive_open_options o;
	int rc = 0;

	memset(&o, 0, sizeof(o));
	o.progress = &v->o->progress;
	o.limits = &v->o->limits;
	o.has_fd = 1;
	o.fd = fd;
	o.fd_private = fd_mode;
	o.known_digest = known;
	o.chunks = v->chunks;
	if (s != NULL && (rc = s->start(s->ctx, v->st, &o.also, &o.fallback,
	    err)) < 0)
		return -1;
	if (rc == 0) {
		o.want_hash = v->o->deep ? NULL : signed_file;
		o.want_ctx = v->st;
		return pack_files_archive_open_with(v->path, &o, files, d, err);
	}
	s->streamed = 1;
	rc = pack_files_archive_open_with(v->path, &o, files, d, err);
	if (s->end(s->ctx, rc, err) != 0 && rc == 0) {
		ps_pack_files_close(files);
		ps_digest_free(*d);
		*d = NULL;
		rc = -1;
	}
	return rc;
}

/* The private copy pass 2 parses, made while pass 1 reads (util/copy.h
 * decides where: memory within the command's budget, else a file that is
 * not on tmpfs), so that what is parsed is what was hashed whatever a
 * writer does to the file meanwhile, and it is not hashed again.  A tar
 * over VERIFY_COPY_MAX, or one that fits nowhere, keeps no copy: it is
 * read again and hashed again while parsed (a change is subject_changed).
 * A zip is copied at any size (it is read with seeks: the reader would
 * copy it otherwise). */
#ifndef VERIFY_COPY_MAX
#define VERIFY_COPY_MAX (2ULL * 1024 * 1024 * 1024)
#endif

static int
private_copy(verify_vctx *v, int fd, util_copy *c, ps_error *err)
{
	const pack_archive_name *kind = pack_archive_name_of(v->path);
	struct stat st;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (kind != NULL &&
	    kind->kind != PS_SOURCE_ZIP && (uint64_t)st.st_size >
	    VERIFY_COPY_MAX))
		return 0;
	return util_copy_open(v->o->limits.copies, (uint64_t)st.st_size,
	    v->path, c, err);
}

/* Pass 2 on the copy (or install's), else on the file itself: under its
 * lease (fd_mode PACK_FD_LEASED: checked after every read, not hashed
 * again), or hashed again. */
static int
parse_authenticated(verify_vctx *v, int fd, int copy, int fd_mode,
    const sign_statement_file *subject, ps_pack_files *files, ps_digest **d,
    ps_error *err)
{
	int mode = copy >= 0 ? PACK_FD_PRIVATE : fd_mode;
	const unsigned char *known = mode != PACK_FD_SHARED ?
	    v->res->archive_digest : NULL;
	int from = copy >= 0 ? copy : fd;
	ps_error e;

	ps_error_clear(&e);
	if (parse_archive(v, from, mode, known, files, d, &e) != 0) {
		if (mode == PACK_FD_LEASED || v->chunks != NULL) {
			/* every byte it read was read under the lease (or it
			 * refused the break): nothing to hash again */
			*err = e;
			return -1;
		}
		return refuse_reading(v, from, subject, &e, err);
	}
	if (memcmp((*d)->archive_digest, subject->sha256, PS_SHA256_LEN) != 0)
		return refuse_changed(v, subject, (*d)->archive_digest, err);
	return 0;
}

/* A read lease instead of a copy (util/lease.h): 1 when taken; else
 * the result says why not. */
static int
take_lease(verify_vctx *v, int fd)
{
	const pack_archive_name *kind = pack_archive_name_of(v->path);
	char why[UTIL_LEASE_WHY_MAX];

	if (kind != NULL && kind->kind == PS_SOURCE_ZIP)
		snprintf(why, sizeof(why), "a zip is read with seeks, from a "
		    "private copy");
	else if (util_lease_take(fd, why))
		return 1;
	free(v->res->lease_declined);
	v->res->lease_declined = strdup(why);   /* NULL: not reported */
	return 0;
}

/* Pass 1's bytes were hashed, not parsed: one check after its last read
 * covers every read (a break is never undone: F_GETLEASE reports F_UNLCK
 * from the moment it starts); pass 2's reader checks after each read. */
static int
lease_still_held(verify_vctx *v, int fd, const char *when, ps_error *err)
{
	if (util_lease_held(fd))
		return 0;
	util_refuse(err, "subject_changed", v->path, "checked the archive's "
	    "read lease %s: it was broken (a process opened the file for "
	    "writing or truncated it)", when);
	return util_error_expect(err, "the read lease held (F_RDLCK)",
	    "broken");
}

static ps_archive_read
read_kind(int owned, int leased, const util_copy *copy)
{
	if (leased)
		return PS_ARCHIVE_READ_LEASE;
	if (!owned)
		return PS_ARCHIVE_READ_PRIVATE;
	if (copy->fd < 0)
		return PS_ARCHIVE_READ_AGAIN;
	return copy->kind == UTIL_COPY_FILE ? PS_ARCHIVE_READ_FILE :
	    PS_ARCHIVE_READ_MEMORY;
}

/* A v2 statement's chunks of a tar: the reader authenticates each one
 * before the parser sees it. */
static void
use_chunks(verify_vctx *v)
{
	const pack_archive_name *kind = pack_archive_name_of(v->path);

	v->chunks = NULL;
	if (v->st->predicate_version != 2 || kind == NULL ||
	    kind->kind == PS_SOURCE_ZIP)
		return;
	v->chunk_list.digests =
	    (const unsigned char (*)[PS_SHA256_LEN])v->st->chunks;
	v->chunk_list.count = v->st->chunk_count;
	v->chunk_list.size = v->st->archive_size;
	v->chunks = &v->chunk_list;
}

/* One pass, no copy (a v2 statement, a tar verify opened): every chunk
 * authenticated before it is parsed, the whole file's SHA-256 taken
 * while it is read and compared with the subject before any result. */
static int
read_once(verify_vctx *v, int fd, const sign_statement_file *subject,
    ps_pack_files *files, ps_digest **d, ps_error *err)
{
	ps_error e;

	v->res->archive_read = PS_ARCHIVE_READ_CHUNKS;
	ps_error_clear(&e);
	if (parse_archive(v, fd, PACK_FD_SHARED, NULL, files, d, &e) != 0) {
		*err = e;
		return -1;
	}
	memcpy(v->res->archive_digest, (*d)->archive_digest, PS_SHA256_LEN);
	v->res->has_archive_digest = 1;
	if (memcmp((*d)->archive_digest, subject->sha256, PS_SHA256_LEN) != 0)
		return util_refuse_digest(err, "subject_mismatch", v->path,
		    SUBJECT_CHECK, subject->sha256, (*d)->archive_digest);
	return 0;
}

/* Pass 1 then pass 2 on what the caller's fd holds: leased, copied, or
 * (install's) private. */
static int
read_passes(verify_vctx *v, int fd, int owned, const unsigned char *copied,
    const sign_statement_file *subject, ps_pack_files *files, ps_digest **d,
    ps_error *err)
{
	util_copy copy = { .fd = -1 };
	int leased = 0, rc = 0;

	/* install's copy: only install can write it, and it is hashed; or
	 * install's own file under the lease install took (no digest). */
	if (!owned)
		leased = copied == NULL;
	else if (!(leased = take_lease(v, fd)))
		rc = private_copy(v, fd, &copy, err);
	if (rc == 0)
		rc = authenticate(v, fd, &copy, copied, subject, err);
	v->res->archive_read = read_kind(owned, leased, &copy);
	if (rc == 0 && leased)
		rc = lease_still_held(v, fd, "after hashing it", err);
	if (rc == 0)
		rc = parse_authenticated(v, fd, copy.fd, !owned ?
		    PACK_FD_PRIVATE : leased ? PACK_FD_LEASED : PACK_FD_SHARED,
		    subject, files, d, err);
	if (rc == 0 && leased)
		rc = lease_still_held(v, fd, "after parsing it", err);
	if (leased && owned)
		util_lease_drop(fd);
	util_copy_close(&copy);
	return rc;
}

/* Step 3: authenticate, then parse what was authenticated. */
static int
read_archive(verify_vctx *v, ps_pack_files *files, ps_digest **d, ps_error *err)
{
	const sign_statement_file *subject = find_subject(v, err);
	const unsigned char *copied;
	int fd, owned, rc;

	if (subject == NULL ||
	    (fd = open_archive_fd(v, &owned, &copied, err)) < 0)
		return -1;
	use_chunks(v);
	/* verify's own file, or install's read in place (no digest) */
	if (v->chunks != NULL && (owned || copied == NULL))
		rc = read_once(v, fd, subject, files, d, err);
	else
		rc = read_passes(v, fd, owned, copied, subject, files, d, err);
	if (owned)
		close(fd);
	if (rc == 0)
		v->res->subject_checked = 1;
	return rc;
}

static int
check_manifest_digest(verify_vctx *v, const ps_digest *d, ps_error *err)
{
	if (d->manifest_path == NULL ||
	    strcmp(d->manifest_path, v->st->manifest_path) != 0) {
		util_refuse(err, "manifest_mismatch", v->path, "compared the pack's "
		    "manifest with the signed manifest path");
		return util_error_expect(err, v->st->manifest_path,
		    d->manifest_path != NULL ? d->manifest_path : "none");
	}
	if (memcmp(d->manifest_sha256, v->st->manifest_sha256,
	    PS_SHA256_LEN) != 0)
		return util_refuse_digest(err, "manifest_digest_mismatch",
		    d->manifest_path, "compared the manifest's SHA-256 with the "
		    "signed one", v->st->manifest_sha256, d->manifest_sha256);
	return 0;
}

static int
check_prompts(verify_vctx *v, const ps_digest *d, ps_error *err)
{
	const sign_statement_file *p;
	const ps_entry *e;
	char want[PS_SHA256_STRING_LEN];
	size_t i;

	for (i = 0; i < v->st->prompt_count; i++) {
		p = &v->st->prompts[i];
		e = ps_digest_find(d, p->path);
		if (e == NULL || e->type != PS_ENTRY_FILE) {
			util_refuse(err, "prompt_digest_mismatch", p->path,
			    "looked for a signed prompt file in the pack");
			return util_error_expect(err, ps_sha256_string(p->sha256,
			    want), e == NULL ? "no such file" : "a directory");
		}
		if (memcmp(e->sha256, p->sha256, PS_SHA256_LEN) != 0)
			return util_refuse_digest(err, "prompt_digest_mismatch", p->path,
			    "compared the prompt file's SHA-256 with the signed "
			    "one", p->sha256, e->sha256);
	}
	return 0;
}

static int
check_tree(verify_vctx *v, const ps_digest *d, ps_error *err)
{
	if (d->partial)
		return 0;         /* without --deep: not computed */
	v->res->has_tree_digest = 1;
	memcpy(v->res->tree_digest, d->tree_digest, PS_SHA256_LEN);
	if (memcmp(d->tree_digest, v->st->tree_digest, PS_SHA256_LEN) != 0)
		return util_refuse_digest(err, "tree_digest_mismatch", v->path,
		    "recomputed the tree digest and compared it with the signed "
		    "one", v->st->tree_digest, d->tree_digest);
	v->res->tree_checked = 1;
	return 0;
}

/*
 * Step 4 for a tar: its stream, and the canonical rules when the
 * predicate says packsign built it (a `build` field); a tar signed as it
 * was found gets the safety rules only.
 */
static int
check_tar(verify_vctx *v, const ps_digest *d, ps_error *err)
{
	if (d->source != PS_SOURCE_TAR)
		return 0;
	v->res->has_tar_digest = d->has_tar_digest;
	memcpy(v->res->tar_digest, d->tar_digest, PS_SHA256_LEN);
	if (v->st->no_tar_digest) {
		util_refuse(err, "tar_digest_mismatch", v->path, "the signed "
		    "statement records no tar digest, but this is a tar");
		return util_error_expect(err, "a tarDigest for a tar", "none");
	}
	if (!d->has_tar_digest ||
	    memcmp(d->tar_digest, v->st->tar_digest, PS_SHA256_LEN) != 0)
		return util_refuse_digest(err, "tar_digest_mismatch", v->path,
		    "compared the SHA-256 of the uncompressed tar stream with the "
		    "signed tar digest", v->st->tar_digest, d->tar_digest);
	if (v->st->no_build)
		return 0;
	if (!d->canonical) {
		util_refuse(err, "not_canonical", v->path, "checked the canonical "
		    "rules of canonical-tar.md (the predicate says packsign built "
		    "this tar)");
		return util_error_expect(err, "a canonical tar", "a tar that "
		    "breaks them (packsign digest shows canonical: no)");
	}
	v->res->canonical_checked = 1;
	return 0;
}

static int
check_entries(verify_vctx *v, const ps_digest *d, ps_error *err)
{
	if (check_manifest_digest(v, d, err) != 0 ||
	    check_prompts(v, d, err) != 0 || check_tar(v, d, err) != 0 ||
	    check_tree(v, d, err) != 0)
		return -1;
	v->res->prompt_count = v->st->prompt_count;
	return 0;
}

static int
refuse_manifest(verify_vctx *v, const ps_diags *diags, ps_error *err)
{
	char line[PS_ERROR_TEXT_MAX] = "no manifest could be parsed";
	size_t i;

	for (i = 0; i < diags->count; i++) {
		if (diags->items[i].severity == PS_SEVERITY_ERROR) {
			ps_diag_format(&diags->items[i], line, sizeof(line));
			break;
		}
	}
	util_refuse(err, "manifest_invalid", v->path, "validated the manifest "
	    "(%zu errors; packsign validate lists them): %s",
	    ps_diags_count(diags, PS_SEVERITY_ERROR), line);
	return -1;
}

static int
refuse_pack(verify_vctx *v, const char *field, const char *want,
    const char *got, ps_error *err)
{
	util_refuse(err, "pack_mismatch", v->path, "compared the manifest's %s "
	    "with the signed one", field);
	return util_error_expect(err, want, got != NULL ? got : "none");
}

/* Every prompt file the manifest declares must be covered. */
static int
check_prompts_signed(verify_vctx *v, ps_error *err)
{
	const ps_manifest *m = v->manifest;
	size_t i, j;

	for (i = 0; i < m->prompt_count; i++) {
		for (j = 0; j < v->st->prompt_count; j++) {
			if (strcmp(m->prompts[i].path, v->st->prompts[j].path) == 0)
				break;
		}
		if (j == v->st->prompt_count) {
			util_refuse(err, "prompt_unsigned", m->prompts[i].path,
			    "the manifest declares this prompt file, the signature "
			    "does not cover it");
			return util_error_expect(err, "a signed prompt file",
			    "not in the predicate");
		}
	}
	return 0;
}

/* A warning of a rule added after packs could have been signed (an error
 * when signing): the report shows it. */
static int
later_rule_warning(const ps_diag *d)
{
	static const char *const codes[] = { PS_CODE_AGENTPACK_CONFIG_PATH,
	    PS_CODE_AUTOGRAPH_COMPOSE, PS_CODE_AUTOGRAPH_COMPOSE_INVALID,
	    PS_CODE_AUTOGRAPH_COMPOSE_LIMIT, PS_CODE_AUTOGRAPH_TASKFILE_INVALID,
	    PS_CODE_AUTOGRAPH_TASKFILE_LIMIT };
	size_t i;

	if (d->severity != PS_SEVERITY_WARNING)
		return 0;
	/* The YAML refusals of a file active by its standard path only. */
	if (strncmp(d->code, "yaml_", 5) == 0)
		return 1;
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		if (strcmp(d->code, codes[i]) == 0)
			return 1;
	}
	return 0;
}

/* Step 5.  The pack is already signed: a rule added since it could have
 * been signed is a warning here (ps_validate_options.already_signed), kept
 * in the result for the report, so that older signed packs still verify. */
static int
load_manifest(verify_vctx *v, const ps_pack_files *files, ps_error *err)
{
	ps_validate_options vo;
	const ps_diag *d;
	ps_diags diags;
	size_t i;
	int rc;

	ps_validate_options_init(&vo);
	vo.format = v->st->format;
	vo.already_signed = 1;
	ps_diags_init(&diags);
	rc = ps_manifest_load(files, &vo, &v->manifest, &diags, err);
	if (rc == 0 && (v->manifest == NULL || !ps_manifest_valid(&diags, 0)))
		rc = refuse_manifest(v, &diags, err);
	for (i = 0; rc == 0 && i < diags.count; i++) {
		d = &diags.items[i];
		if (later_rule_warning(d) != 0 &&
		    ps_diags_add(&v->res->warnings, d->severity, d->code, d->file,
		    d->line, d->column, "%s", d->message) != 0)
			rc = util_fail_oom(err, v->path);
	}
	ps_diags_sort(&v->res->warnings);
	ps_diags_free(&diags);
	if (rc != 0)
		return -1;
	if (strcmp(v->manifest->id, v->st->pack_id) != 0)
		return refuse_pack(v, "id", v->st->pack_id, v->manifest->id, err);
	if (v->manifest->version == NULL ||
	    strcmp(v->manifest->version, v->st->pack_version) != 0)
		return refuse_pack(v, "version", v->st->pack_version,
		    v->manifest->version, err);
	return check_prompts_signed(v, err);
}

/* verify DIR --sig F: the tree digest stands in for the archive digest.
 * One walk: its digests are compared first, then the manifest is read
 * through the same walk. */
static int
read_directory(verify_vctx *v, pack_packer **packer, ps_pack_files *files,
    ps_digest **d, ps_error *err)
{
	ps_pack_options po;

	v->res->directory = 1;
	ps_pack_options_init(&po);
	po.mtime = v->st->mtime;
	po.compression = v->st->compression;
	if (pack_packer_open(v->path, -1, packer, err) != 0 ||
	    pack_packer_files(*packer, files, err) != 0 ||
	    pack_packer_write(*packer, -1, &po, d, err) != 0 ||
	    check_manifest_digest(v, *d, err) != 0 ||
	    check_prompts(v, *d, err) != 0 || check_tree(v, *d, err) != 0)
		return -1;
	v->res->prompt_count = v->st->prompt_count;
	return 0;
}

static int
is_directory(const char *path, int *dir, ps_error *err)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return util_fail_errno(err, errno == ENOENT ? "not_found" :
		    "io_error", path, "stat", errno);
	*dir = S_ISDIR(st.st_mode);
	return 0;
}

static int
check_pack(verify_vctx *v, ps_error *err)
{
	pack_packer *packer = NULL;
	ps_pack_files files;
	ps_digest *d = NULL;
	int rc;

	memset(&files, 0, sizeof(files));
	if (v->is_dir)
		rc = read_directory(v, &packer, &files, &d, err);
	else
		rc = read_archive(v, &files, &d, err) != 0 ||
		    check_entries(v, d, err) != 0 ? -1 : 0;
	if (rc == 0)
		rc = load_manifest(v, &files, err);
	ps_pack_files_close(&files);
	pack_packer_free(packer);
	if (rc == 0 && v->stream != NULL && v->stream->streamed) {
		v->stream->digest = d;
		d = NULL;
	}
	ps_digest_free(d);
	return rc;
}

/* PATH is looked up before its signature (signature.md, section 3): a
 * path that does not exist is not_found (exit 2), not an archive without
 * a signature (exit 1), so that a typo never reads as a refusal.  A caller
 * that acquires the archive hands over a file (install's private copy, a
 * download): there is no path to look at. */
static int
look_up_path(verify_vctx *v, ps_error *err)
{
	if (v->stream != NULL && v->stream->acquire != NULL)
		return 0;
	return is_directory(v->path, &v->is_dir, err);
}

static int
run(verify_vctx *v, ps_error *err)
{
	if (check_options(v->path, v->o, err) != 0 ||
	    look_up_path(v, err) != 0 ||
	    pack_archive_name_not_signature(v->path, v->path, err) != 0 ||
	    verify_signatures(v, err) != 0 || parse_statement(v, err) != 0 ||
	    verify_scope(v, err) != 0 || check_pack(v, err) != 0 ||
	    verify_signed_by(v, err) != 0 || verify_ceilings(v, err) != 0 ||
	    verify_certified_source(v, err) != 0)
		return -1;
	return verify_source(v, err);
}

int
verify_keep(const char *path, const ps_verify_options *options,
    verify_stream *stream, ps_verify_result **out,
    ps_manifest **manifest, sign_statement **st, ps_error *err)
{
	verify_vctx v;
	int rc;

	ps_error_clear(err);
	memset(&v, 0, sizeof(v));
	v.path = path;
	v.o = options;
	v.stream = stream;
	if (new_result(path, options, out, err) != 0)
		return -1;
	v.res = *out;
	rc = run(&v, err);
	if (rc == 0 && manifest != NULL) {
		*manifest = v.manifest;
		v.manifest = NULL;
	}
	if (rc == 0 && st != NULL) {
		*st = v.st;
		v.st = NULL;
	}
	ps_manifest_free(v.manifest);
	sign_statement_free(v.st);
	sign_dsse_free(v.env);
	free(v.entry_key);
	verify_keyless_free(&v);
	verify_bundles_free(&v);
	return rc;
}

int
ps_verify(const char *path, const ps_verify_options *options,
    ps_verify_result **out, ps_error *err)
{
	return verify_keep(path, options, NULL, out, NULL, NULL, err);
}
