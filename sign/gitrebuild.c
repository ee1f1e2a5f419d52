/*
 * sign_git_rebuild: the canonical tar of a pack read straight from a
 * commit's tree objects, with the same rules as the directory walker
 * (walk.c) and writer (pack.c), so the bytes equal `packsign pack` of a
 * clean checkout.  Blobs are written as stored: paths whose attributes
 * would make checkout change the bytes are refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynlib/git.h"
#include "pack/ignore.h"
#include "pack/items.h"
#include "sign/provenance.h"
#include "pack/tarwrite.h"
#include "pack/walk.h"
#include "util/error.h"
#include "util/locale.h"
#include "util/pathname.h"
#include "util/sha256.h"

struct rebuild {
	dynlib_git git;
	git_repository *repo;
	git_oid commit;
	const char *pack_path;        /* in the repository; "" at the root */
	git_tree *root;               /* the pack's tree */
	pack_ignore *ignore;
	pack_items items;
	size_t manifest;
	ps_format format;
	pack_tar_writer *writer;
};

static const char *const refused_attrs[] = {
	"filter", "text", "eol", "crlf", "ident", "working-tree-encoding"
};
#define REFUSED_ATTRS (sizeof(refused_attrs) / sizeof(refused_attrs[0]))

/* The repository-relative path of a pack path, for errors and attributes. */
static void
repo_path(const struct rebuild *r, const char *rel, char *out, size_t size)
{
	snprintf(out, size, "%s%s%s", r->pack_path,
	    r->pack_path[0] != '\0' ? "/" : "", rel);
}

static int
check_attributes(const struct rebuild *r, const char *gitpath, ps_error *err)
{
	git_attr_options opts = { GIT_ATTR_OPTIONS_VERSION, 0, NULL, { { 0 } } };
	const char *values[REFUSED_ATTRS];
	char where[PS_ERROR_TEXT_MAX];
	size_t i;

	repo_path(r, gitpath, where, sizeof(where));
	opts.flags = GIT_ATTR_CHECK_INDEX_ONLY | GIT_ATTR_CHECK_INCLUDE_COMMIT;
	r->git.oid_cpy(&opts.attr_commit_id, &r->commit);
	if (r->git.attr_get_many_ext(values, r->repo, &opts, where, REFUSED_ATTRS,
	    (const char **)refused_attrs) != 0)
		return sign_git_failed(&r->git, err, where, "read git attributes");
	for (i = 0; i < REFUSED_ATTRS; i++) {
		git_attr_value_t value = r->git.attr_value(values[i]);

		if (value == GIT_ATTR_VALUE_UNSPECIFIED ||
		    value == GIT_ATTR_VALUE_FALSE)
			continue;
		util_refuse(err, "git_attributes_refused", where,
		    "git attribute '%s' is set: checkout may change the bytes "
		    "(filter, LFS, eol conversion), so the commit's blob is not "
		    "the packed file; unset it for the pack (e.g. '-text')",
		    refused_attrs[i]);
		return util_error_expect(err, "unspecified or unset",
		    value == GIT_ATTR_VALUE_TRUE ? "set" : values[i]);
	}
	return 0;
}

static int
refuse_mode(const char *where, git_filemode_t mode, ps_error *err)
{
	if (mode == GIT_FILEMODE_LINK) {
		util_refuse(err, "symlink_refused", where, "is a symbolic link in "
		    "the commit; packs hold only regular files and directories");
		return util_error_expect(err, "a regular file or a directory",
		    "a symbolic link");
	}
	if (mode == GIT_FILEMODE_COMMIT) {
		util_refuse(err, "submodule_refused", where, "is a git submodule; "
		    "its files are not in this commit");
		return util_error_expect(err, "a regular file or a directory",
		    "a submodule");
	}
	return util_refuse(err, "special_file_refused", where,
	    "has an unknown git file mode %06o", (unsigned)mode);
}

static int
blob_size(const struct rebuild *r, const git_tree_entry *te, uint64_t *size,
    ps_error *err)
{
	git_odb *odb = NULL;
	git_object_t type;
	size_t len;
	int rc;

	if (r->git.repository_odb(&odb, r->repo) != 0)
		return sign_git_failed(&r->git, err, NULL, "open object database");
	rc = r->git.odb_read_header(&len, &type, odb, r->git.tree_entry_id(te));
	r->git.odb_free(odb);
	if (rc != 0 || type != GIT_OBJECT_BLOB)
		return sign_git_failed(&r->git, err, r->git.tree_entry_name(te), "read blob header");
	*size = (uint64_t)len;
	return 0;
}

/* Names become canonical (NFC) paths; the name rules come after the
 * ignore rules, as on disk (pack/walk.c). */
static int
canonical(const struct rebuild *r, const char *cprefix, const char *gitpath,
    const char *name, char **out, ps_error *err)
{
	char where[PS_ERROR_TEXT_MAX], *nfc;

	repo_path(r, gitpath, where, sizeof(where));
	nfc = util_path_nfc(name, strlen(name));
	if (nfc == NULL && errno == EILSEQ)
		return util_refuse(err, "name_not_utf8", where,
		    "file name is not valid UTF-8");
	if (nfc == NULL)
		return util_fail_oom(err, NULL);
	*out = util_path_join(cprefix, nfc);
	free(nfc);
	if (*out == NULL)
		return util_fail_oom(err, NULL);
	return 0;
}

/* The name rules of canonical-tar.md section 2; frees `canon` on refusal. */
static int
check_name(const struct rebuild *r, const char *gitpath, char *canon,
    ps_error *err)
{
	char where[PS_ERROR_TEXT_MAX];

	repo_path(r, gitpath, where, sizeof(where));
	if (util_path_check(canon, where, err) == 0)
		return 0;
	free(canon);
	return -1;
}

static int walk_tree(struct rebuild *r, const git_tree *tree,
    const char *gprefix, const char *cprefix, ps_error *err);

static int
ignored(const struct rebuild *r, const char *canon, int is_dir)
{
	return pack_ignore_match(r->ignore, canon, is_dir) &&
	    strcmp(canon, PACK_IGNORE_FILE) != 0 &&
	    ps_format_by_manifest(canon) == PS_FORMAT_UNKNOWN;
}

static int
add_file(struct rebuild *r, const git_tree_entry *te, const char *gitpath,
    char *canon, ps_error *err)
{
	char where[PS_ERROR_TEXT_MAX];
	pack_item *item;
	uint64_t size = 0;

	repo_path(r, gitpath, where, sizeof(where));
	if (blob_size(r, te, &size, err) != 0 ||
	    check_attributes(r, gitpath, err) != 0) {
		free(canon);
		return -1;
	}
	if (!pack_tar_path_fits(canon, 0) || size >= PACK_TAR_SIZE_LIMIT) {
		free(canon);
		return util_refuse(err, size >= PACK_TAR_SIZE_LIMIT ? "file_too_large" :
		    "name_too_long", where, "cannot be stored in a canonical tar "
		    "(see canonical-tar.md)");
	}
	item = pack_items_add(&r->items, canon, PS_ENTRY_FILE, err);
	if (item == NULL)
		return -1;
	item->entry.size = size;
	item->entry.executable =
	    r->git.tree_entry_filemode(te) == GIT_FILEMODE_BLOB_EXECUTABLE;
	if (strcmp(gitpath, canon) != 0 && (item->source = strdup(gitpath)) == NULL)
		return util_fail_oom(err, NULL);
	return 0;
}

static int
add_dir(struct rebuild *r, const git_tree_entry *te, const char *gitpath,
    char *canon, ps_error *err)
{
	git_tree *sub = NULL;
	char where[PS_ERROR_TEXT_MAX];
	int rc;

	repo_path(r, gitpath, where, sizeof(where));
	if (!pack_tar_path_fits(canon, 1)) {
		free(canon);
		return util_refuse(err, "name_too_long", where, "path does not fit "
		    "a tar header without truncation");
	}
	if (pack_items_add(&r->items, canon, PS_ENTRY_DIR, err) == NULL)
		return -1;
	if (r->git.tree_lookup(&sub, r->repo, r->git.tree_entry_id(te)) != 0)
		return sign_git_failed(&r->git, err, where, "read tree");
	/* `canon` belongs to the item list now and stays valid. */
	rc = walk_tree(r, sub, gitpath, canon, err);
	r->git.tree_free(sub);
	return rc;
}

/* An entry that is not ignored: its name checked, then by its mode. */
static int
add_entry(struct rebuild *r, const git_tree_entry *te, const char *gitpath,
    char *canon, ps_error *err)
{
	git_filemode_t mode = r->git.tree_entry_filemode(te);
	char where[PS_ERROR_TEXT_MAX];

	if (check_name(r, gitpath, canon, err) != 0)
		return -1;
	if (mode == GIT_FILEMODE_TREE)
		return add_dir(r, te, gitpath, canon, err);
	if (mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE)
		return add_file(r, te, gitpath, canon, err);
	free(canon);
	repo_path(r, gitpath, where, sizeof(where));
	return refuse_mode(where, mode, err);
}

static int
visit(struct rebuild *r, const git_tree_entry *te, const char *gprefix,
    const char *cprefix, ps_error *err)
{
	const char *name = r->git.tree_entry_name(te);
	char *gitpath, *canon = NULL;
	int rc, is_dir = r->git.tree_entry_filemode(te) == GIT_FILEMODE_TREE;

	if (pack_is_vcs_name(name))
		return 0;
	gitpath = util_path_join(gprefix, name);
	if (gitpath == NULL)
		return util_fail_oom(err, NULL);
	if (canonical(r, cprefix, gitpath, name, &canon, err) != 0)
		rc = -1;
	else if (ignored(r, canon, is_dir)) {
		free(canon);
		rc = 0;
	} else
		rc = add_entry(r, te, gitpath, canon, err);
	free(gitpath);
	return rc;
}

static int
walk_tree(struct rebuild *r, const git_tree *tree, const char *gprefix,
    const char *cprefix, ps_error *err)
{
	size_t i, n = r->git.tree_entrycount(tree);

	for (i = 0; i < n; i++) {
		if (visit(r, r->git.tree_entry_byindex(tree, i), gprefix, cprefix,
		    err) != 0)
			return -1;
	}
	return 0;
}

/* .packsignignore from the commit, with the same limits as on disk. */
static int
load_ignore(struct rebuild *r, ps_error *err)
{
	const git_tree_entry *te = r->git.tree_entry_byname(r->root, PACK_IGNORE_FILE);
	git_blob *blob = NULL;
	int rc;

	if (te == NULL)
		return pack_ignore_parse("", 0, &r->ignore, err);
	if (r->git.tree_entry_filemode(te) == GIT_FILEMODE_LINK)
		return util_refuse(err, "symlink_refused", PACK_IGNORE_FILE,
		    "is a symbolic link");
	if (r->git.tree_entry_type(te) != GIT_OBJECT_BLOB ||
	    r->git.tree_entry_filemode(te) == GIT_FILEMODE_COMMIT)
		return util_refuse(err, "ignore_syntax", PACK_IGNORE_FILE,
		    "not a regular file");
	if (r->git.blob_lookup(&blob, r->repo, r->git.tree_entry_id(te)) != 0)
		return sign_git_failed(&r->git, err, PACK_IGNORE_FILE, "read blob");
	rc = pack_ignore_parse(r->git.blob_rawcontent(blob),
	    (size_t)r->git.blob_rawsize(blob), &r->ignore, err);
	r->git.blob_free(blob);
	return rc;
}

/* ------------------------------------------------------------- writing */

static int
write_blob(struct rebuild *r, pack_item *item, ps_error *err)
{
	const char *path = item->source != NULL ? item->source : item->entry.path;
	git_tree_entry *te = NULL;
	git_blob *blob = NULL;
	int rc;

	if (r->git.tree_entry_bypath(&te, r->root, path) != 0 ||
	    r->git.blob_lookup(&blob, r->repo, r->git.tree_entry_id(te)) != 0) {
		r->git.tree_entry_free(te);
		return sign_git_failed(&r->git, err, path, "read blob");
	}
	r->git.tree_entry_free(te);
	if ((uint64_t)r->git.blob_rawsize(blob) != item->entry.size) {
		r->git.blob_free(blob);
		return util_fail(err, "internal_error", path, "blob size changed");
	}
	rc = pack_tar_write_file(r->writer, item->entry.path, item->entry.size,
	    item->entry.executable, err);
	if (rc == 0)
		rc = pack_tar_write_data(r->writer, r->git.blob_rawcontent(blob),
		    (size_t)item->entry.size, err);
	if (rc == 0 && util_sha256_buffer(r->git.blob_rawcontent(blob),
	    (size_t)item->entry.size, item->entry.sha256) != 0)
		rc = util_fail(err, "crypto_error", NULL, "SHA-256 failed");
	r->git.blob_free(blob);
	return rc;
}

static int
write_item(struct rebuild *r, pack_item *item, ps_error *err)
{
	if (item->entry.type == PS_ENTRY_DIR)
		return pack_tar_write_dir(r->writer, item->entry.path, err);
	return write_blob(r, item, err);
}

static int
write_tar(struct rebuild *r, int out_fd, const ps_pack_options *options,
    unsigned char tar_digest[PS_SHA256_LEN], ps_error *err)
{
	util_locale_scope scope;
	size_t i;
	int rc;

	if (util_locale_enter(&scope, err) != 0)
		return -1;
	rc = pack_tar_writer_new(out_fd, options->compression, options->mtime,
	    &r->writer, err);
	if (rc == 0)
		rc = write_item(r, &r->items.items[r->manifest], err);
	for (i = 0; rc == 0 && i < r->items.count; i++) {
		if (i != r->manifest)
			rc = write_item(r, &r->items.items[i], err);
	}
	if (rc == 0)
		rc = pack_tar_writer_finish(r->writer, tar_digest, err);
	util_locale_leave(&scope);
	return rc;
}

static int
make_digest(struct rebuild *r, const unsigned char tar[PS_SHA256_LEN],
    ps_digest **out, ps_error *err)
{
	unsigned char tree[PS_SHA256_LEN];
	ps_digest *d;

	if (pack_items_tree_digest(&r->items, tree, err) != 0)
		return -1;
	d = pack_items_to_digest(&r->items, err);
	if (d == NULL)
		return -1;
	d->source = PS_SOURCE_DIRECTORY;
	d->format = r->format;
	memcpy(d->tree_digest, tree, PS_SHA256_LEN);
	d->has_tar_digest = 1;
	memcpy(d->tar_digest, tar, PS_SHA256_LEN);
	d->manifest_path = strdup(d->entries[r->manifest].path);
	memcpy(d->manifest_sha256, d->entries[r->manifest].sha256, PS_SHA256_LEN);
	if (d->manifest_path == NULL) {
		ps_digest_free(d);
		return util_fail_oom(err, NULL);
	}
	*out = d;
	return 0;
}

/* ------------------------------------------------------------- opening */

static int
open_commit(struct rebuild *r, const char *repo_dir, const char *commit,
    ps_error *err)
{
	git_commit *c = NULL;
	size_t i, len = strlen(commit);
	int rc;

	for (i = 0; i < len && ((commit[i] >= '0' && commit[i] <= '9') ||
	    (commit[i] >= 'a' && commit[i] <= 'f')); i++)
		;
	if (len != GIT_OID_HEXSZ || i != len ||
	    r->git.oid_fromstr(&r->commit, commit) != 0) {
		util_refuse(err, "commit_invalid", "commit", "not a full commit id");
		return util_error_expect(err, "40 lowercase hex digits", commit);
	}
	if (r->git.repository_open(&r->repo, repo_dir) != 0)
		return util_fail(err, "repository_unavailable", repo_dir,
		    "cannot open the git repository: %s", dynlib_git_message(&r->git));
	rc = r->git.commit_lookup(&c, r->repo, &r->commit);
	if (rc == GIT_ENOTFOUND)
		return util_fail(err, "commit_missing", commit,
		    "the repository %s has no such commit (fetch it first)",
		    repo_dir);
	if (rc != 0)
		return sign_git_failed(&r->git, err, commit, "read commit");
	rc = r->git.commit_tree(&r->root, c);
	r->git.commit_free(c);
	return rc == 0 ? 0 : sign_git_failed(&r->git, err, commit, "read commit tree");
}

static int
enter_pack(struct rebuild *r, const char *commit, ps_error *err)
{
	git_tree_entry *te = NULL;
	git_tree *sub = NULL;
	int rc;

	if (r->pack_path[0] == '\0')
		return 0;
	if (util_path_check(r->pack_path, "pack path", err) != 0)
		return -1;
	rc = r->git.tree_entry_bypath(&te, r->root, r->pack_path);
	if (rc == GIT_ENOTFOUND || (rc == 0 &&
	    r->git.tree_entry_type(te) != GIT_OBJECT_TREE)) {
		r->git.tree_entry_free(te);
		util_refuse(err, "pack_path_missing", r->pack_path,
		    "the commit %.12s has no directory at this path", commit);
		return util_error_expect(err, "a directory", rc == 0 ? "a file" :
		    "nothing");
	}
	if (rc != 0)
		return sign_git_failed(&r->git, err, r->pack_path, "read tree");
	rc = r->git.tree_lookup(&sub, r->repo, r->git.tree_entry_id(te));
	r->git.tree_entry_free(te);
	if (rc != 0)
		return sign_git_failed(&r->git, err, r->pack_path, "read tree");
	r->git.tree_free(r->root);
	r->root = sub;
	return 0;
}

static int
collect(struct rebuild *r, const char *label, ps_error *err)
{
	if (load_ignore(r, err) != 0 || walk_tree(r, r->root, "", "", err) != 0)
		return -1;
	pack_items_sort(&r->items);
	if (pack_items_check(&r->items, label, err) != 0)
		return -1;
	return pack_items_find_manifest(&r->items, label, &r->manifest, &r->format,
	    err);
}

static int
rebuild(struct rebuild *r, const char *repo_dir, const char *commit,
    int out_fd, const ps_pack_options *options, ps_digest **digest_out,
    ps_error *err)
{
	unsigned char tar_digest[PS_SHA256_LEN];
	const char *label = r->pack_path[0] != '\0' ? r->pack_path : repo_dir;

	if (options->mtime < 0 || options->mtime > PS_MTIME_MAX)
		return util_fail(err, "invalid_mtime", NULL,
		    "mtime must be between 0 and %lld", PS_MTIME_MAX);
	if (open_commit(r, repo_dir, commit, err) != 0 ||
	    enter_pack(r, commit, err) != 0 || collect(r, label, err) != 0)
		return -1;
	if (write_tar(r, out_fd, options, tar_digest, err) != 0)
		return -1;
	return digest_out == NULL ? 0 : make_digest(r, tar_digest, digest_out,
	    err);
}

int
sign_git_rebuild(const char *repo_dir, const char *commit,
    const char *pack_path, int out_fd, const ps_pack_options *options,
    ps_digest **digest_out, ps_error *err)
{
	struct rebuild r;
	int rc;

	if (digest_out != NULL)
		*digest_out = NULL;
	memset(&r, 0, sizeof(r));
	r.pack_path = pack_path;
	if (dynlib_git_open(&r.git, "rebuilding the tar from a git commit",
	    err) != 0)
		return -1;
	rc = rebuild(&r, repo_dir, commit, out_fd, options, digest_out, err);
	pack_tar_writer_free(r.writer);
	pack_items_free(&r.items);
	pack_ignore_free(r.ignore);
	r.git.tree_free(r.root);
	r.git.repository_free(r.repo);
	dynlib_git_close(&r.git);
	return rc;
}
