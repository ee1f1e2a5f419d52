/*
 * Sides of a comparison (docs/formats/diff.md, "Sides"): an archive is
 * verified as ps_verify() does with --deep, and the bytes of its prompt
 * files are kept from that one verified read (never read again from a file
 * that could have changed since); a directory is read as packing reads it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diff/side.h"
#include "pack/archive.h"
#include "sign/statement.h"
#include "util/error.h"
#include "util/strings.h"
#include "verify/verify.h"

void
ps_diff_options_init(ps_diff_options *o)
{
	memset(o, 0, sizeof(*o));
	ps_verify_options_init(&o->verify);
	o->text_lines_max = 200;
}

int
diff_side_new(ps_diff_side **out, ps_error *err)
{
	*out = calloc(1, sizeof(**out));
	return *out == NULL ? util_fail_oom(err, NULL) : 0;
}

void
ps_diff_side_free(ps_diff_side *s)
{
	size_t i;

	if (s == NULL)
		return;
	if (!s->borrowed) {
		ps_manifest_free(s->manifest);
		ps_digest_free(s->digest);
	}
	for (i = 0; i < s->signer_count; i++) {
		free(s->signers[i].identity);
		free(s->signers[i].fingerprint);
	}
	for (i = 0; i < s->text_count; i++) {
		free(s->texts[i].path);
		free(s->texts[i].data);
	}
	free(s->signers);
	free(s->texts);
	free(s->repository);
	free(s->commit);
	free(s);
}

const ps_manifest *
ps_diff_side_manifest(const ps_diff_side *s)
{
	return s->manifest;
}

void
diff_side_take(ps_diff_side *s, ps_manifest *manifest, ps_digest *digest)
{
	s->manifest = manifest;
	s->digest = digest;
}

int
diff_side_add_signer(ps_diff_side *s, const char *identity,
    const char *fingerprint, const ps_trust *policy, ps_error *err)
{
	const ps_trust_signer *in_policy;
	diff_signer *grown, *d;

	grown = realloc(s->signers, (s->signer_count + 1) * sizeof(*grown));
	if (grown == NULL)
		return util_fail_oom(err, identity);
	s->signers = grown;
	d = &s->signers[s->signer_count];
	memset(d, 0, sizeof(*d));
	if (util_strdup(&d->identity, identity, NULL, err) != 0 ||
	    util_strdup(&d->fingerprint, fingerprint, NULL, err) != 0) {
		free(d->identity);
		return -1;
	}
	in_policy = policy != NULL ? ps_trust_find_signer(policy, identity) :
	    NULL;
	d->first_party = in_policy != NULL && in_policy->first_party;
	if (s->signer_count == 0)
		s->identities_bound = policy != NULL && !policy->one_key;
	s->signer_count++;
	s->trusted = 1;
	return 0;
}

int
diff_side_set_source(ps_diff_side *s, const char *repository,
    const char *commit, ps_error *err)
{
	s->trusted = 1;
	s->has_source = repository != NULL;
	if (repository == NULL)
		return 0;
	if (util_strdup(&s->repository, repository, NULL, err) != 0)
		return -1;
	return util_strdup(&s->commit, commit, NULL, err);
}

int
diff_side_add_text(ps_diff_side *s, const char *path, const void *data,
    size_t len, ps_error *err)
{
	diff_text *grown, *t;

	grown = realloc(s->texts, (s->text_count + 1) * sizeof(*grown));
	if (grown == NULL)
		return util_fail_oom(err, path);
	s->texts = grown;
	t = &s->texts[s->text_count];
	memset(t, 0, sizeof(*t));
	if (util_strdup(&t->path, path, NULL, err) != 0)
		return -1;
	s->text_count++;
	if (len > DIFF_TEXT_FILE_MAX || s->text_bytes + len > DIFF_TEXT_TOTAL_MAX)
		return 0;
	if ((t->data = malloc(len + 1)) == NULL)
		return util_fail_oom(err, path);
	if (len > 0)
		memcpy(t->data, data, len);
	t->data[len] = '\0';
	t->len = len;
	s->text_bytes += len;
	return 0;
}

static int
by_text_path(const void *a, const void *b)
{
	return strcmp(((const diff_text *)a)->path, ((const diff_text *)b)->path);
}

void
diff_side_seal(ps_diff_side *s)
{
	if (s->text_count > 1)
		qsort(s->texts, s->text_count, sizeof(*s->texts), by_text_path);
}

const diff_text *
diff_side_text(const ps_diff_side *s, const char *path)
{
	diff_text key;

	if (s->text_count == 0)
		return NULL;
	memset(&key, 0, sizeof(key));
	key.path = (char *)path;
	return bsearch(&key, s->texts, s->text_count, sizeof(*s->texts),
	    by_text_path);
}

int
diff_side_is_prompt(const ps_diff_side *s, const char *path)
{
	size_t i;

	for (i = 0; s->manifest != NULL && i < s->manifest->prompt_count; i++) {
		if (strcmp(s->manifest->prompts[i].path, path) == 0)
			return 1;
	}
	return 0;
}

/* ------------------------------------------------------------ archives */

/* The prompt files' bytes, kept as the verifying reader streams them. */
struct capture {
	ps_diff_side *side;
	const diff_source *src;       /* a caller's archive, or NULL */
	ps_verify_result **result;    /* verification's, as it fills it */
	const sign_statement *st;
	char *path;                 /* the file being kept, or NULL */
	char *buf;
	size_t len, size;
	pack_archive_visitor visitor;
};

static int
signed_prompt(const sign_statement *st, const char *path)
{
	size_t i;

	for (i = 0; i < st->prompt_count; i++) {
		if (strcmp(st->prompts[i].path, path) == 0)
			return 1;
	}
	return 0;
}

/* The file kept so far goes to the side (only once the read succeeded
 * does the side count: a refused archive's side is thrown away).  A file
 * named without its bytes goes as one over the bound, so that the side
 * holds it without a text (not as an empty one). */
static int
capture_flush(struct capture *c, ps_error *err)
{
	int rc = 0;

	if (c->path != NULL)
		rc = diff_side_add_text(c->side, c->path, c->buf, c->buf != NULL ?
		    c->len : (size_t)DIFF_TEXT_FILE_MAX + 1, err);
	free(c->path);
	free(c->buf);
	c->path = c->buf = NULL;
	c->len = c->size = 0;
	return rc;
}

static int
capture_file(void *ctx, const ps_entry *entry, ps_error *err)
{
	struct capture *c = ctx;

	if (capture_flush(c, err) != 0)
		return -1;
	if (!signed_prompt(c->st, entry->path))
		return 0;
	if (util_strdup(&c->path, entry->path, NULL, err) != 0)
		return -1;
	/* Larger files are named without their bytes (no text diff). */
	if (entry->size > DIFF_TEXT_FILE_MAX)
		return 0;
	c->size = (size_t)entry->size;
	if ((c->buf = malloc(c->size + 1)) == NULL)
		return util_fail_oom(err, entry->path);
	return 0;
}

static int
capture_data(void *ctx, const void *buf, size_t len, ps_error *err)
{
	struct capture *c = ctx;

	(void)err;
	if (c->buf == NULL || len == 0 || len > c->size - c->len)
		return 0;           /* the reader refuses a size mismatch */
	memcpy(c->buf + c->len, buf, len);
	c->len += len;
	return 0;
}

static int
capture_start(void *ctx, const sign_statement *st,
    const pack_archive_visitor **visitor, ps_pack_files *fallback,
    ps_error *err)
{
	struct capture *c = ctx;

	(void)fallback;
	if (c->src != NULL && c->src->check != NULL &&
	    c->src->check(c->src->ctx, st, *c->result, err) != 0)
		return -1;
	c->st = st;
	c->visitor = (pack_archive_visitor){ c, capture_file, capture_data,
	    NULL, NULL, NULL };
	*visitor = &c->visitor;
	return 1;
}

static int
capture_end(void *ctx, int rc, ps_error *err)
{
	struct capture *c = ctx;

	if (rc != 0) {
		free(c->path);
		free(c->buf);
		c->path = c->buf = NULL;
		return rc;
	}
	return capture_flush(c, err);
}

static int
side_from_result(ps_diff_side *s, const ps_verify_result *r,
    const ps_trust *policy, ps_error *err)
{
	size_t i;

	for (i = 0; i < r->identity_count; i++) {
		if (diff_side_add_signer(s, r->identities[i].identity,
		    r->identities[i].fingerprint, policy, err) != 0)
			return -1;
	}
	return diff_side_set_source(s, r->has_source ? r->source_repository :
	    NULL, r->source_commit, err);
}

/* verify_stream.acquire for a caller's archive. */
static int
capture_acquire(void *ctx, const sign_statement *st, int *fd,
    const unsigned char **sha256, ps_error *err)
{
	struct capture *c = ctx;

	return c->src->acquire(c->src->ctx, st, fd, sha256, err);
}

static int
open_archive(const char *path, const ps_diff_options *o,
    const diff_source *src, ps_diff_side *s, ps_error *err)
{
	struct capture c;
	verify_stream stream = { .ctx = &c, .start = capture_start,
	    .end = capture_end };
	ps_verify_options vo = o->verify;
	ps_verify_result *r = NULL;
	ps_manifest *m = NULL;
	int rc;

	if (vo.bundle_count > 0 && ((src != NULL && src->sig_fd >= 0) ||
	    vo.sig_path != NULL))
		return util_fail(err, "invalid_argument", path, "a diff side "
		    "reads Sigstore bundles for an archive file, without "
		    "verify.sig_path (not for an install's copy)");
	memset(&c, 0, sizeof(c));
	c.side = s;
	c.src = src;
	c.result = &r;
	if (src != NULL) {
		stream.acquire = capture_acquire;
		stream.has_sig_fd = src->sig_fd >= 0;   /* else the bundles */
		stream.sig_fd = src->sig_fd;
	}
	vo.deep = 1;                /* every file's digest */
	rc = verify_keep(path, &vo, &stream, &r, &m, NULL, err);
	if (rc == 0)
		rc = side_from_result(s, r, o->verify.trust, err);
	diff_side_take(s, m, stream.digest);
	ps_verify_result_free(r);
	free(c.path);
	free(c.buf);
	return rc;
}

/* ---------------------------------------------------------- directories */

static int
refuse_invalid(const char *path, const ps_diags *diags, ps_error *err)
{
	char line[PS_ERROR_TEXT_MAX] = "no manifest could be parsed";
	size_t i;

	for (i = 0; i < diags->count; i++) {
		if (diags->items[i].severity == PS_SEVERITY_ERROR) {
			ps_diag_format(&diags->items[i], line, sizeof(line));
			break;
		}
	}
	return util_refuse(err, "manifest_invalid", path, "validated the "
	    "manifest (%zu errors; packsign validate lists them): %s",
	    ps_diags_count(diags, PS_SEVERITY_ERROR), line);
}

int
diff_side_read_texts(ps_diff_side *s, const ps_pack_files *files,
    ps_error *err)
{
	const ps_manifest *m = s->manifest;
	char *data;
	size_t i, len;
	int rc = 0;

	for (i = 0; m != NULL && rc == 0 && i < m->prompt_count; i++) {
		data = NULL;
		rc = files->read(files->ctx, m->prompts[i].path, DIFF_TEXT_FILE_MAX,
		    &data, &len, err);
		if (rc != 0 && ps_error_is(err, PS_CODE_PACK_FILE_TOO_LARGE)) {
			ps_error_clear(err);
			data = NULL;
			len = DIFF_TEXT_FILE_MAX + 1;
			rc = 0;
		}
		if (rc == 0)
			rc = diff_side_add_text(s, m->prompts[i].path, data, len, err);
		free(data);
	}
	return rc;
}

static int
read_texts(const char *path, ps_diff_side *s, ps_error *err)
{
	ps_pack_files files;
	int rc;

	if (ps_pack_files_dir_open(path, &files, err) != 0)
		return -1;
	rc = diff_side_read_texts(s, &files, err);
	ps_pack_files_close(&files);
	return rc;
}

static int
open_directory(const char *path, ps_diff_side *s, ps_error *err)
{
	ps_validate_options vo;
	ps_inspection *in = NULL;
	ps_pack_options po;
	int rc;

	ps_pack_options_init(&po);
	ps_validate_options_init(&vo);
	if (ps_inspect(path, &po, &vo, &in, err) != 0)
		return -1;
	if (in->manifest == NULL || !ps_manifest_valid(&in->diags, 0))
		rc = refuse_invalid(path, &in->diags, err);
	else
		rc = 0;
	if (rc == 0) {
		diff_side_take(s, in->manifest, in->digest);
		in->manifest = NULL;
		in->digest = NULL;
		rc = read_texts(path, s, err);
	}
	ps_inspection_free(in);
	return rc;
}

int
ps_diff_side_open(const char *path, const ps_diff_options *o,
    ps_diff_side **out, ps_error *err)
{
	struct stat st;
	int rc;

	*out = NULL;
	if (stat(path, &st) != 0)
		return util_fail_errno(err, errno == ENOENT ? PS_CODE_NOT_FOUND :
		    "io_error", path, "stat", errno);
	if (diff_side_new(out, err) != 0)
		return -1;
	rc = S_ISDIR(st.st_mode) ? open_directory(path, *out, err) :
	    open_archive(path, o, NULL, *out, err);
	if (rc != 0) {
		ps_diff_side_free(*out);
		*out = NULL;
		return -1;
	}
	diff_side_seal(*out);
	return 0;
}

int
diff_side_open_source(const char *label, const ps_diff_options *o,
    const diff_source *src, ps_diff_side **out, ps_error *err)
{
	*out = NULL;
	if (diff_side_new(out, err) != 0)
		return -1;
	if (open_archive(label, o, src, *out, err) != 0) {
		ps_diff_side_free(*out);
		*out = NULL;
		return -1;
	}
	diff_side_seal(*out);
	return 0;
}
