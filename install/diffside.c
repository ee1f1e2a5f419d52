/*
 * The installed side of a diff (docs/formats/diff.md, "Sides"): who
 * signed and the files from the receipt; the manifest and the prompt
 * files read from the tree, each byte hashed and compared with the
 * receipt before it is parsed or shown, so that an edited tree can never
 * stand for what the user once consented to (installed_modified).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/side.h"
#include "install/installed.h"
#include "install/receipt.h"
#include "util/error.h"
#include "util/sha256.h"
#include "util/strings.h"

/* A pack read through the tree, every read checked against the receipt. */
struct checked_files {
	ps_pack_files tree;
	const ps_entry *entries;     /* sorted bytewise */
	size_t count;
	const char *root;            /* the tree, for messages */
	int modified;                /* a read found other bytes: the
	                              * validator's diagnostic would hide
	                              * it, so it is kept here */
	ps_error modified_err;
};

static const ps_entry *
find_entry(const struct checked_files *f, const char *path)
{
	size_t lo = 0, hi = f->count, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = strcmp(f->entries[mid].path, path);
		if (c == 0)
			return &f->entries[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int
refuse_modified(const char *root, const char *path, ps_error *err)
{
	char subject[PS_ERROR_VALUE_MAX];

	snprintf(subject, sizeof(subject), "%s/%s", root, path);
	util_refuse(err, "installed_modified", subject, "hashed the installed "
	    "file before reading it: it must be what the receipt records "
	    "(packsign verify --installed lists every change; packsign install "
	    "--reinstall with that version's archive restores its tree)");
	return util_error_expect(err, "the receipt's sha256", "other bytes");
}

static int
checked_read(void *ctx, const char *path, size_t max, char **data,
    size_t *len, ps_error *err)
{
	struct checked_files *c = ctx;
	const ps_entry *e = find_entry(c, path);
	unsigned char sha[PS_SHA256_LEN];

	if (c->tree.read(c->tree.ctx, path, max, data, len, err) != 0)
		return -1;
	if (e != NULL && e->type == PS_ENTRY_FILE &&
	    util_sha256_buffer(*data, *len, sha) == 0 &&
	    memcmp(sha, e->sha256, PS_SHA256_LEN) == 0)
		return 0;
	free(*data);
	*data = NULL;
	refuse_modified(c->root, path, err);
	if (!c->modified) {
		c->modified = 1;
		c->modified_err = *err;
	}
	return -1;
}

static int
checked_stat(void *ctx, const char *path, ps_entry_type *type,
    uint64_t *size, ps_error *err)
{
	struct checked_files *c = ctx;

	return c->tree.stat(c->tree.ctx, path, type, size, err);
}

static int
checked_list(void *ctx, int (*fn)(void *, const char *, ps_entry_type,
    uint64_t, ps_error *), void *arg, ps_error *err)
{
	struct checked_files *c = ctx;

	return c->tree.list(c->tree.ctx, fn, arg, err);
}

static int
checked_head(void *ctx, const char *path, unsigned char *buf, size_t n,
    size_t *got, ps_error *err)
{
	struct checked_files *c = ctx;

	return c->tree.head(c->tree.ctx, path, buf, n, got, err);
}

static void
checked_view(struct checked_files *c, ps_pack_files *view)
{
	memset(view, 0, sizeof(*view));
	view->ctx = c;
	view->stat = checked_stat;
	view->read = checked_read;
	view->list = checked_list;
	view->head = checked_head;
}

/* ------------------------------------------------------------- the side */

static int
load_manifest(const ps_pack_files *files, const char *path,
    ps_manifest **out, ps_error *err)
{
	ps_validate_options vo;
	ps_diags diags;
	int rc;

	ps_diags_init(&diags);
	ps_validate_options_init(&vo);
	rc = ps_manifest_load(files, &vo, out, &diags, err);
	if (rc == 0 && (*out == NULL || !ps_manifest_valid(&diags, 0)))
		rc = util_refuse(err, "manifest_invalid", path, "validated the "
		    "installed manifest (packsign validate lists its %zu errors)",
		    ps_diags_count(&diags, PS_SEVERITY_ERROR));
	ps_diags_free(&diags);
	return rc;
}

/* The receipt's entries as the side's digest (they are what the tree
 * digest the signature covers was computed over). */
static int
copy_entries(ps_digest *d, const ps_installed *r, ps_error *err)
{
	size_t i;

	if (r->entry_count > 0 &&
	    (d->entries = calloc(r->entry_count, sizeof(ps_entry))) == NULL)
		return util_fail_oom(err, r->id);
	for (i = 0; i < r->entry_count; i++) {
		d->entries[i] = r->entries[i];
		d->entries[i].path = NULL;
		d->entry_count++;
		if (util_strdup(&d->entries[i].path, r->entries[i].path, NULL,
		    err) != 0)
			return -1;
	}
	return 0;
}

/* The receipt's entries as the side's digest (they are what the tree
 * digest the signature covers was computed over). */
static int
receipt_digest(const ps_installed *r, const ps_manifest *m, ps_digest **out,
    ps_error *err)
{
	ps_digest *d = calloc(1, sizeof(*d));

	*out = NULL;
	if (d == NULL)
		return util_fail_oom(err, r->id);
	d->format = r->format;
	memcpy(d->tree_digest, r->tree_digest, PS_SHA256_LEN);
	if (util_strdup(&d->manifest_path, m->manifest_path, NULL, err) != 0 ||
	    copy_entries(d, r, err) != 0) {
		ps_digest_free(d);
		return -1;
	}
	*out = d;
	return 0;
}

static int
trust_from_receipt(ps_diff_side *s, const ps_installed *r,
    const ps_trust *policy, ps_error *err)
{
	size_t i;

	for (i = 0; i < r->signer_count; i++) {
		if (diff_side_add_signer(s, r->signers[i].identity,
		    r->signers[i].fingerprint, policy, err) != 0)
			return -1;
	}
	return diff_side_set_source(s, r->source_commit != NULL ?
	    r->source_repository : NULL, r->source_commit, err);
}

static int
side_from_receipt(const ps_installed *r, const ps_trust *policy,
    ps_diff_side *s, ps_error *err)
{
	struct checked_files c;
	ps_pack_files view;
	ps_manifest *m = NULL;
	ps_digest *d = NULL;
	int rc;

	memset(&c, 0, sizeof(c));
	c.entries = r->entries;
	c.count = r->entry_count;
	c.root = r->path;
	if (ps_pack_files_dir_open(r->path, &c.tree, err) != 0)
		return -1;
	checked_view(&c, &view);
	rc = load_manifest(&view, r->path, &m, err);
	if (c.modified) {
		*err = c.modified_err;
		rc = -1;
	}
	if (rc == 0)
		rc = receipt_digest(r, m, &d, err);
	diff_side_take(s, m, d);
	if (rc == 0)
		rc = diff_side_read_texts(s, &view, err);
	ps_pack_files_close(&c.tree);
	if (rc == 0)
		rc = trust_from_receipt(s, r, policy, err);
	diff_side_seal(s);
	return rc;
}

int
install_diff_side_new(const char *tree_path, ps_manifest *manifest,
    ps_digest *digest, const ps_verify_result *v, const ps_trust *policy,
    ps_diff_side **out, ps_error *err)
{
	struct checked_files c;
	ps_pack_files view;
	size_t i;
	int rc;

	if (diff_side_new(out, err) != 0)
		return -1;
	diff_side_take(*out, manifest, digest);
	(*out)->borrowed = 1;
	memset(&c, 0, sizeof(c));
	c.entries = digest->entries;
	c.count = digest->entry_count;
	c.root = tree_path;
	if (ps_pack_files_dir_open(tree_path, &c.tree, err) != 0)
		return -1;
	checked_view(&c, &view);
	rc = diff_side_read_texts(*out, &view, err);
	ps_pack_files_close(&c.tree);
	for (i = 0; rc == 0 && i < v->identity_count; i++)
		rc = diff_side_add_signer(*out, v->identities[i].identity,
		    v->identities[i].fingerprint, policy, err);
	if (rc == 0)
		rc = diff_side_set_source(*out, v->has_source ?
		    v->source_repository : NULL, v->source_commit, err);
	diff_side_seal(*out);
	return rc;
}

static int
side_of(const ps_installed *r, const ps_trust *policy, ps_diff_side **out,
    ps_error *err)
{
	if (diff_side_new(out, err) != 0)
		return -1;
	if (side_from_receipt(r, policy, *out, err) == 0)
		return 0;
	ps_diff_side_free(*out);
	*out = NULL;
	return -1;
}

int
ps_diff_side_installed_path(const char *path, const ps_trust *policy,
    ps_diff_side **out, ps_error *err)
{
	install_datadir dd;
	ps_installed *r = NULL;
	char *rel = NULL;
	int rc;

	*out = NULL;
	memset(&dd, 0, sizeof(dd));
	dd.fd = dd.lock_fd = dd.tmp_fd = -1;
	rc = install_load_path(path, &dd, &r, &rel, err);
	if (rc == 0)
		rc = side_of(r, policy, out, err);
	install_receipt_free(r);
	install_datadir_close(&dd);
	free(rel);
	return rc;
}

/* The version asked for, or the newest. */
static const ps_installed *
pick(const ps_installed_list *found, const char *version)
{
	size_t i;

	for (i = 0; i < found->count; i++) {
		if (version != NULL || found->items[i].newest)
			return &found->items[i];
	}
	return found->count > 0 ? &found->items[found->count - 1] : NULL;
}

int
install_diff_side(const install_datadir *dd, ps_format format,
    const char *id, const char *version, const ps_trust *policy,
    ps_diff_side **out, ps_error *err)
{
	ps_installed_list found = { NULL, 0 };
	int rc;

	*out = NULL;
	rc = install_find(dd, format, id, version, &found, err);
	if (rc == 0)
		rc = side_of(pick(&found, version), policy, out, err);
	install_list_free_items(&found);
	return rc;
}

int
ps_diff_side_installed(const char *data_dir, ps_format format,
    const char *id, const char *version, const ps_trust *policy,
    ps_diff_side **out, ps_error *err)
{
	install_datadir dd;
	int rc;

	*out = NULL;
	rc = install_datadir_open(data_dir, 0, &dd, err);
	if (rc != 0 && ps_error_is(err, PS_CODE_NOT_FOUND)) {
		util_refuse(err, "not_installed", id, "looked in %s", data_dir);
		rc = util_error_expect(err, "an installed pack", "no data "
		    "directory");
	}
	if (rc == 0)
		rc = install_diff_side(&dd, format, id, version, policy, out, err);
	install_datadir_close(&dd);
	return rc;
}
