/*
 * The new side of an upgrade to an index entry (`packsign outdated`): the
 * entry's .sig and archive downloaded into private copies (util/copy.h:
 * memory within the command's budget, else an unlinked file), bound to
 * the entry before a byte of the archive is parsed (size, digest, pack,
 * signers: install/indexed.c), and verified once, the diff side built in
 * that same pass (diff/side.c).  Nothing is written anywhere else.
 */
#include <stdio.h>
#include <string.h>

#include "diff/side.h"
#include "install/download.h"
#include "install/indexed.h"
#include "sign/dsse.h"
#include "util/copy.h"
#include "util/error.h"

struct side_fetch {
	install_download dl;
	install_indexed x;
	ps_copies *copies;
	util_copy sig, archive;
	util_copy bundles[PS_INDEX_MAX_BUNDLES];   /* an entry's bundles */
	char bundle_paths[PS_INDEX_MAX_BUNDLES][32];   /* /proc/self/fd/N */
	const char *bundle_path[PS_INDEX_MAX_BUNDLES];
	unsigned char sha256[PS_SHA256_LEN];
};

#define DOWNLOAD_KEPT "a download is kept only in a private copy"

static int
keep(struct side_fetch *f, uint64_t size, util_copy *c, ps_error *err)
{
	if (util_copy_open(f->copies, size, f->dl.label, c, err) != 0)
		return -1;
	if (c->kind == UTIL_COPY_NONE)
		return util_copy_refuse(f->copies, size, f->dl.label,
		    DOWNLOAD_KEPT, err);
	return 0;
}

/* verify_stream.acquire: requested only once the signature verified. */
static int
acquire(void *ctx, const sign_statement *st, int *fd,
    const unsigned char **sha256, ps_error *err)
{
	struct side_fetch *f = ctx;
	uint64_t size = 0;
	int rc;

	(void)st;
	if (keep(f, f->x.entry->size, &f->archive, err) != 0)
		return -1;
	rc = install_download_archive(&f->dl, f->archive.fd, f->sha256, &size,
	    err);
	if (install_indexed_download(&f->x, f->dl.label, rc == 0, size,
	    f->sha256, err) != 0)
		return -1;
	*fd = f->archive.fd;
	*sha256 = f->sha256;
	return 0;
}

static int
check(void *ctx, const sign_statement *st, const ps_verify_result *r,
    ps_error *err)
{
	struct side_fetch *f = ctx;

	return install_indexed_statement(&f->x, f->dl.label, st, r, err);
}

/* An entry's bundles, each into a private copy, verified through its
 * /proc/self/fd path (a new open of the copy, from its start). */
static int
fetch_bundles(struct side_fetch *f, ps_diff_options *o, ps_error *err)
{
	const ps_index_entry *e = f->x.entry;
	size_t k;

	for (k = 0; k < e->bundle_count; k++) {
		if (keep(f, SIGN_DSSE_MAX_BYTES, &f->bundles[k], err) != 0 ||
		    install_download_bundle(&f->dl, e->bundle_urls[k],
		    f->bundles[k].fd, err) != 0)
			return -1;
		snprintf(f->bundle_paths[k], sizeof(f->bundle_paths[k]),
		    "/proc/self/fd/%d", f->bundles[k].fd);
		f->bundle_path[k] = f->bundle_paths[k];
	}
	o->verify.bundle_paths = f->bundle_path;
	o->verify.bundle_count = e->bundle_count;
	return 0;
}

static int
open_side(struct side_fetch *f, const ps_diff_options *o,
    const ps_fetch_options *capped, ps_diff_side **out, ps_error *err)
{
	diff_source src = { f, -1, acquire, check };
	ps_diff_options with = *o;

	if (install_download_prepare(f->x.entry->archive_url, capped, NULL,
	    &f->dl, err) != 0)
		return -1;
	if (f->x.entry->bundle_count > 0) {
		if (fetch_bundles(f, &with, err) != 0)
			return -1;
	} else if (keep(f, SIGN_DSSE_MAX_BYTES, &f->sig, err) != 0 ||
	    install_download_sig(&f->dl, f->sig.fd, err) != 0) {
		return -1;
	}
	src.sig_fd = f->sig.fd;
	return diff_side_open_source(f->dl.label, &with, &src, out, err);
}

int
ps_index_diff_side(const ps_index *index, const ps_index_entry *entry,
    const ps_diff_options *options, const ps_fetch_options *fetch,
    ps_diff_side **out, ps_error *err)
{
	const ps_index_install_options none = { 0, 0, 0 };
	struct side_fetch f;
	ps_fetch_options capped;
	size_t k;
	int rc;

	ps_error_clear(err);
	*out = NULL;
	memset(&f, 0, sizeof(f));
	f.x = (install_indexed){ index, entry, &none };
	f.copies = options->verify.limits.copies;
	f.sig.fd = f.archive.fd = -1;
	for (k = 0; k < PS_INDEX_MAX_BUNDLES; k++)
		f.bundles[k].fd = -1;
	if (options->verify.bundle_count > 0)
		return util_fail(err, "invalid_argument", entry->archive_url,
		    "an index entry's signature is its .sig or its bundles: "
		    "verify.bundle_paths must be unset");
	/* A yanked entry too: what it would widen. */
	if (install_indexed_entry(index, entry, 1, &f.x.entry, err) != 0 ||
	    install_indexed_fetch_options(f.x.entry, fetch, &capped, err) != 0)
		return -1;
	rc = open_side(&f, options, &capped, out, err);
	util_copy_close(&f.sig);
	util_copy_close(&f.archive);
	for (k = 0; k < PS_INDEX_MAX_BUNDLES; k++)
		util_copy_close(&f.bundles[k]);
	install_download_clear(&f.dl);
	return rc;
}
