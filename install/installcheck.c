/*
 * ps_installed_verify(): an installed tree against its receipt.  Every
 * file is hashed again and the tree walked without ignore rules, so a
 * file added, removed or changed since install is named, links and
 * special files included.  With a trust policy the receipt's signature is
 * verified again over the tree, which catches a receipt edited to match.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pack/items.h"
#include "pack/walk.h"
#include "util/error.h"
#include "util/fdio.h"
#include "util/pathname.h"
#include "util/sha256.h"
#include "util/strings.h"
#include "install/installed.h"
#include "install/receipt.h"

void
ps_installed_check_free(ps_installed_check *c)
{
	if (c == NULL)
		return;
	install_receipt_free(c->receipt);
	util_strings_clear(&c->modified);
	util_strings_clear(&c->added);
	util_strings_clear(&c->missing);
	free(c);
}

static int
add_string(ps_strings *list, const char *s, ps_error *err)
{
	return util_strings_add(list, s) == 0 ? 0 : util_fail_oom(err, s);
}

/* ---------------------------------------------------- finding the receipt */

/* DIR/<layout>/<id>/<version>: tries the split for each id depth. */
static int
locate(const char *abs, install_datadir *dd, char **rel, ps_error *err)
{
	const char *p, *cut[5] = { NULL };
	char *dir;
	int k, n = 0, depth;
	ps_format f;

	for (p = abs + strlen(abs); p > abs && n < 5; p--) {
		if (p[-1] == '/')
			cut[n++] = p;       /* cut[k-1]: start of the last k */
	}
	for (k = 3; k <= 4; k++) {
		if (k > n || cut[k - 1] - 1 == abs)
			continue;
		depth = (int)strcspn(cut[k - 1], "/");
		dir = strndup(cut[k - 1], (size_t)depth);
		f = dir != NULL ? install_layout_format(dir) : PS_FORMAT_UNKNOWN;
		free(dir);
		if (f == PS_FORMAT_UNKNOWN || install_layout_id_depth(f) + 2 != k)
			continue;
		dir = strndup(abs, (size_t)(cut[k - 1] - 1 - abs));
		if (dir == NULL || (*rel = strdup(cut[k - 1])) == NULL) {
			free(dir);
			return util_fail_oom(err, abs);
		}
		k = install_datadir_open(dir, 0, dd, err);
		free(dir);
		return k;
	}
	util_refuse(err, "not_installed", abs, "is not an installed pack's "
	    "directory");
	return util_error_expect(err, "DIR/agentpacks/ID/VERSION, "
	    "DIR/soyapacks/OWNER/NAME/VERSION, DIR/holons/HANDLE/NAME/VERSION "
	    "or DIR/augr/NAME/VERSION", abs);
}

int
install_load_path(const char *path, install_datadir *dd, ps_installed **r,
    char **rel, ps_error *err)
{
	char *abs = realpath(path, NULL);
	int rc;

	if (abs == NULL)
		return util_fail_errno(err, errno == ENOENT ? "not_found" :
		    "io_error", path, "resolve", errno);
	rc = locate(abs, dd, rel, err);
	if (rc == 0)
		rc = install_load(dd, *rel, r, err);
	if (rc == 0 && *r == NULL)
		rc = util_refuse(err, "not_installed", abs, "is not a directory");
	free(abs);
	return rc;
}

/* ------------------------------------------------------- the tree as is */

static int
hash_items(int root, pack_items *items, ps_error *err)
{
	ps_entry *e;
	size_t i;
	int fd, rc;

	for (i = 0; i < items->count; i++) {
		e = &items->items[i].entry;
		if (e->type != PS_ENTRY_FILE)
			continue;
		fd = util_open_beneath(root, items->items[i].source != NULL ?
		    items->items[i].source : e->path, O_RDONLY | O_NONBLOCK);
		if (fd < 0)
			return util_fail_errno(err, "io_error", e->path, "open", errno);
		rc = util_sha256_fd(fd, e->sha256, &e->size);
		close(fd);
		if (rc != 0)
			return util_fail_errno(err, "io_error", e->path, "read", errno);
	}
	return 0;
}

static int
survey(const install_datadir *dd, const char *rel, pack_items *items,
    ps_installed_check *c, ps_error *err)
{
	int fd = util_open_beneath(dd->fd, rel, O_RDONLY | O_DIRECTORY), rc;

	if (fd < 0)
		return util_fail_errno(err, "io_error", c->receipt->path, "open",
		    errno);
	rc = pack_walk_survey(fd, c->receipt->path, items, &c->added, err);
	if (rc == 0)
		rc = hash_items(fd, items, err);
	close(fd);
	if (rc == 0 && c->added.count == 0 &&
	    pack_items_tree_digest(items, c->tree_digest, err) == 0)
		c->tree_computed = 1;
	return rc;
}

/* ------------------------------------------------------------ comparing */

static int
same_entry(const ps_entry *a, const ps_entry *b)
{
	if (a->type != b->type)
		return 0;
	return a->type == PS_ENTRY_DIR || (a->size == b->size &&
	    a->executable == b->executable &&
	    memcmp(a->sha256, b->sha256, PS_SHA256_LEN) == 0);
}

/* A recorded entry absent from the tree; an empty directory that has
 * gained files is still there. */
static int
note_missing(const pack_items *items, const ps_entry *want,
    ps_installed_check *c, ps_error *err)
{
	long at = pack_items_find(items, want->path);

	if (want->type == PS_ENTRY_DIR && at >= 0 &&
	    items->items[at].entry.type == PS_ENTRY_DIR)
		return 0;
	return add_string(at >= 0 ? &c->modified : &c->missing, want->path,
	    err);
}

static int
compare(const pack_items *items, ps_installed_check *c, ps_error *err)
{
	const ps_installed *r = c->receipt;
	size_t i = 0, j = 0;
	int cmp, rc = 0;

	while (rc == 0 && (i < r->entry_count || j < items->count)) {
		if (j < items->count && items->items[j].entry.type == PS_ENTRY_DIR &&
		    !pack_items_is_empty_dir(items, j)) {
			j++;
			continue;
		}
		cmp = i == r->entry_count ? 1 : j == items->count ? -1 :
		    strcmp(r->entries[i].path, items->items[j].entry.path);
		if (cmp < 0)
			rc = note_missing(items, &r->entries[i++], c, err);
		else if (cmp > 0)
			rc = add_string(&c->added, items->items[j++].entry.path, err);
		else if (!same_entry(&r->entries[i++], &items->items[j++].entry))
			rc = add_string(&c->modified, r->entries[i - 1].path, err);
	}
	return rc;
}

/* Signed prompt files are compared with the statement's digests the
 * receipt keeps, whatever its file list says. */
static int
compare_prompts(const pack_items *items, ps_installed_check *c, ps_error *err)
{
	const ps_installed *r = c->receipt;
	ps_strings *list;
	size_t i;
	long at;

	for (i = 0; i < r->prompt_count; i++) {
		at = pack_items_find(items, r->prompts[i].path);
		if (at >= 0 && memcmp(items->items[at].entry.sha256,
		    r->prompts[i].sha256, PS_SHA256_LEN) == 0)
			continue;
		list = at >= 0 ? &c->modified : &c->missing;
		if (!util_strings_has(list, r->prompts[i].path) &&
		    add_string(list, r->prompts[i].path, err) != 0)
			return -1;
	}
	return 0;
}

static int
refuse_modified(const ps_installed_check *c, ps_error *err)
{
	char found[PS_ERROR_VALUE_MAX];

	snprintf(found, sizeof(found), "%zu modified, %zu added, %zu missing",
	    c->modified.count, c->added.count, c->missing.count);
	util_refuse(err, "installed_modified", c->receipt->path, "compared the "
	    "installed files with the receipt written at install");
	return util_error_expect(err, "the files as installed", found);
}

static int
check_tree(const install_datadir *dd, const char *rel, ps_installed_check *c,
    ps_error *err)
{
	pack_items items;
	int rc;

	memset(&items, 0, sizeof(items));
	rc = survey(dd, rel, &items, c, err);
	if (rc == 0)
		rc = compare(&items, c, err);
	if (rc == 0)
		rc = compare_prompts(&items, c, err);
	pack_items_free(&items);
	if (rc != 0)
		return -1;
	if (c->modified.count + c->added.count + c->missing.count > 0)
		return refuse_modified(c, err);
	if (c->tree_computed && memcmp(c->tree_digest, c->receipt->tree_digest,
	    PS_SHA256_LEN) != 0) {
		util_refuse(err, "installed_modified", c->receipt->path, "the "
		    "recomputed tree digest differs from the receipt's");
		return util_error_expect(err, "the receipt's tree digest", "another");
	}
	return 0;
}

static void
free_names(char **names, size_t n)
{
	size_t i;

	for (i = 0; names != NULL && i < n; i++)
		free(names[i]);
	free(names);
}

/* Receipt 3: its bundles, RECEIPT.N.sigstore.json beside its .sig's
 * name. */
static int
bundle_names(const ps_installed *r, char ***out, ps_error *err)
{
	size_t i, n = r->bundle_count, stem = strlen(r->sig_path) - 4;
	char **names = calloc(n, sizeof(*names));

	*out = NULL;
	if (names == NULL)
		return util_fail_oom(err, r->sig_path);
	for (i = 0; i < n; i++)
		if (asprintf(&names[i], "%.*s.%zu.sigstore.json", (int)stem,
		    r->sig_path, i + 1) < 0) {
			free_names(names, i);
			return util_fail_oom(err, r->sig_path);
		}
	*out = names;
	return 0;
}

static int
check_signature(ps_installed_check *c, const ps_trust *trust, int64_t at,
    ps_error *err)
{
	ps_verify_options o;
	ps_verify_result *v = NULL;
	int rc;

	ps_verify_options_init(&o);
	o.trust = trust;
	o.at = at;
	o.sig_path = c->receipt->sig_path;
	if (c->receipt->bundle_count > 0 && bundle_names(c->receipt,
	    (char ***)&o.bundle_paths, err) != 0)
		return -1;
	if (c->receipt->bundle_count > 0) {
		o.bundle_count = c->receipt->bundle_count;
		o.sig_path = NULL;
	}
	rc = ps_verify(c->receipt->path, &o, &v, err);
	ps_verify_result_free(v);
	free_names((char **)o.bundle_paths, o.bundle_count);
	if (rc == 0)
		c->signature_checked = 1;
	return rc;
}

int
ps_installed_verify(const char *path, const ps_trust *trust, int64_t at,
    ps_installed_check **out, ps_error *err)
{
	ps_installed_check *c = calloc(1, sizeof(*c));
	install_datadir dd;
	char *rel = NULL;
	int rc;

	ps_error_clear(err);
	*out = c;
	if (c == NULL)
		return util_fail_oom(err, path);
	memset(&dd, 0, sizeof(dd));
	dd.fd = dd.lock_fd = dd.tmp_fd = -1;
	rc = install_load_path(path, &dd, &c->receipt, &rel, err);
	if (rc == 0)
		rc = check_tree(&dd, rel, c, err);
	if (rc == 0 && trust != NULL)
		rc = check_signature(c, trust, at, err);
	install_datadir_close(&dd);
	free(rel);
	return rc;
}
