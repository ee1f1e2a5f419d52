/*
 * ps_fetch() (docs/pipelines.md, "Verify and install in two steps"): the
 * signature is downloaded beside the output and verified, then the
 * archive is downloaded into a second file beside it, hashed as it
 * arrives, matched with the signed subject and verified; only then are
 * both renamed into place, the archive first and the .sig last (as sign
 * does), so that a FILE.sig never stands beside an archive it does not
 * sign.  A failure removes both temporary files.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "install/download.h"
#include "install/indexed.h"
#include "util/atomic.h"
#include "util/error.h"
#include "verify/verify.h"

struct fetchfile {
	install_download dl;
	const install_indexed *indexed;   /* an index entry's, or NULL */
	ps_verify_result **result;        /* verification's, as it fills it */
	const char *path;
	char *tmp_archive;           /* beside path, removed on failure */
	char *tmp_sig;
	char *tmp_bundles[PS_INDEX_MAX_BUNDLES];   /* an entry's bundles */
	int archive_fd;
	int anonymous;               /* archive_fd is O_TMPFILE, no name */
	unsigned char sha256[PS_SHA256_LEN];
};

/* A new file "DIR/.NAME.XXXXXX" beside `path`, readable and writable. */
static int
make_temp(const char *path, const char *suffix, char **out, ps_error *err)
{
	char *copy = strdup(path), *copy2 = strdup(path);
	int fd = -1;

	if (copy != NULL && copy2 != NULL && asprintf(out, "%s/.%s%s.XXXXXX",
	    dirname(copy), basename(copy2), suffix) >= 0)
		fd = mkostemp(*out, O_CLOEXEC);
	else
		*out = NULL;
	free(copy);
	free(copy2);
	if (*out == NULL)
		return util_fail_oom(err, path);
	if (fd < 0) {
		free(*out);
		*out = NULL;
		return util_fail_errno(err, errno == ENOSPC ? "disk_full" :
		    "io_error", path, "create a temporary file beside it", errno);
	}
	return fd;
}

static void
hook(const struct fetchfile *f, const char *path)
{
	if (f->dl.o != NULL && f->dl.o->temp_file_hook != NULL)
		f->dl.o->temp_file_hook(path);
}

/* The archive's file: without a name (gone if the run is killed) in the
 * output's directory, else a named temporary file beside it. */
static int
open_archive(struct fetchfile *f, ps_error *err)
{
	char *copy = strdup(f->path);
	int fd;

	if (copy == NULL)
		return util_fail_oom(err, f->path);
	fd = open(dirname(copy), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	free(copy);
	if (fd >= 0) {
		f->anonymous = 1;
		return fd;
	}
	return make_temp(f->path, "", &f->tmp_archive, err);
}

/* An anonymous archive gets a temporary name beside the output. */
static int
name_archive(struct fetchfile *f, ps_error *err)
{
	char proc[64];
	int fd;

	if (!f->anonymous)
		return 0;
	if ((fd = make_temp(f->path, "", &f->tmp_archive, err)) < 0)
		return -1;
	close(fd);
	(void)unlink(f->tmp_archive);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", f->archive_fd);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, f->tmp_archive,
	    AT_SYMLINK_FOLLOW) != 0)
		return util_fail_errno(err, "io_error", f->path, "link", errno);
	return 0;
}


/* verify_stream.start: no entry is streamed; an index entry's statement
 * is bound to the entry before a byte of the archive is parsed. */
static int
no_stream(void *ctx, const sign_statement *st,
    const pack_archive_visitor **visitor, ps_pack_files *fallback,
    ps_error *err)
{
	struct fetchfile *f = ctx;

	(void)visitor;
	(void)fallback;
	if (f->indexed != NULL && install_indexed_statement(f->indexed,
	    f->dl.label, st, *f->result, err) != 0)
		return -1;
	return 0;
}

/* verify_stream.acquire: the archive is requested only now, once the
 * signature verified. */
static int
download_archive(void *ctx, const sign_statement *st, int *fd,
    const unsigned char **sha256, ps_error *err)
{
	struct fetchfile *f = ctx;
	uint64_t size = 0;
	int rc;

	(void)st;
	if ((f->archive_fd = open_archive(f, err)) < 0)
		return -1;
	rc = install_download_archive(&f->dl, f->archive_fd, f->sha256, &size,
	    err);
	if (f->indexed != NULL)
		rc = install_indexed_download(f->indexed, f->dl.label, rc == 0,
		    size, f->sha256, err);
	if (rc != 0)
		return -1;
	*fd = f->archive_fd;
	*sha256 = f->sha256;
	return 0;
}

static int
download_sig(struct fetchfile *f, ps_error *err)
{
	int fd = make_temp(f->path, ".sig", &f->tmp_sig, err), rc;

	if (fd < 0)
		return -1;
	hook(f, f->tmp_sig);
	rc = install_download_sig(&f->dl, fd, err);
	if (close(fd) != 0 && rc == 0)
		rc = util_fail_errno(err, "io_error", f->tmp_sig, "close", errno);
	return rc;
}

/* An index entry's bundles, each into a temporary file beside the
 * output, verified from there and removed (only the .sig is kept). */
static int
download_bundles(struct fetchfile *f, ps_error *err)
{
	const ps_index_entry *e = f->indexed->entry;
	size_t k;
	int fd, rc;

	for (k = 0; k < e->bundle_count; k++) {
		if ((fd = make_temp(f->path, ".sigstore.json", &f->tmp_bundles[k],
		    err)) < 0)
			return -1;
		rc = install_download_bundle(&f->dl, e->bundle_urls[k], fd, err);
		if (close(fd) != 0 && rc == 0)
			rc = util_fail_errno(err, "io_error", f->tmp_bundles[k],
			    "close", errno);
		if (rc != 0)
			return -1;
	}
	return 0;
}

/* The archive first, then its .sig, then the directory synced. */
static int
commit(struct fetchfile *f, ps_verify_result *r, ps_error *err)
{
	char *sig = NULL;
	int rc = 0;

	if (asprintf(&sig, "%s.sig", f->path) < 0)
		return util_fail_oom(err, f->path);
	if (fchmod(f->archive_fd, 0644) != 0 || fsync(f->archive_fd) != 0 ||
	    name_archive(f, err) != 0 || rename(f->tmp_archive, f->path) != 0)
		rc = util_fail_errno(err, "io_error", f->path, "rename", errno);
	else {
		free(f->tmp_archive);
		f->tmp_archive = NULL;
	}
	if (rc == 0 && f->tmp_sig != NULL && (chmod(f->tmp_sig, 0644) != 0 ||
	    rename(f->tmp_sig, sig) != 0))
		rc = util_fail_errno(err, "io_error", sig, "rename", errno);
	if (rc == 0 && f->tmp_sig != NULL) {
		free(f->tmp_sig);
		f->tmp_sig = NULL;
		free(r->sig_path);
		r->sig_path = sig;
		sig = NULL;
	}
	if (rc == 0 && util_atomic_sync_parent(f->path) != 0)
		rc = util_fail_errno(err, "io_error", f->path, "fsync", errno);
	free(sig);
	return rc;
}

static int
fetch_run(struct fetchfile *f, const char *url, const ps_verify_options *vo,
    const ps_fetch_options *fo, ps_verify_result **out, ps_error *err)
{
	ps_verify_options o = *vo;
	verify_stream stream = { .ctx = f, .start = no_stream,
	    .acquire = download_archive };

	if (vo->bundle_count > 0)
		return util_fail(err, "invalid_argument", url, "fetch reads the "
		    ".sig, not Sigstore bundles: verify.bundle_count must be 0");
	if (install_download_prepare(url, fo, vo->sig_path, &f->dl, err) != 0)
		return -1;
	if (f->indexed != NULL && f->indexed->entry->bundle_count > 0) {
		if (download_bundles(f, err) != 0)
			return -1;
		o.bundle_paths = (const char *const *)f->tmp_bundles;
		o.bundle_count = f->indexed->entry->bundle_count;
	} else if (f->dl.sig_url != NULL) {
		if (download_sig(f, err) != 0)
			return -1;
		o.sig_path = f->tmp_sig;
	}
	if (verify_keep(f->dl.label, &o, &stream, out, NULL, NULL, err) != 0)
		return -1;
	return commit(f, *out, err);
}

static int
install_fetch(const char *url, const char *path, const ps_verify_options *vo,
    const ps_fetch_options *fo, const install_indexed *indexed,
    ps_verify_result **out, ps_error *err)
{
	struct fetchfile f;
	size_t k;
	int rc;

	ps_error_clear(err);
	*out = NULL;
	memset(&f, 0, sizeof(f));
	f.indexed = indexed;
	f.result = out;
	f.path = path;
	f.archive_fd = -1;
	rc = fetch_run(&f, url, vo, fo, out, err);
	if (f.archive_fd >= 0)
		close(f.archive_fd);
	if (f.tmp_archive != NULL)
		(void)unlink(f.tmp_archive);
	if (f.tmp_sig != NULL)
		(void)unlink(f.tmp_sig);
	for (k = 0; k < PS_INDEX_MAX_BUNDLES && f.tmp_bundles[k] != NULL; k++) {
		(void)unlink(f.tmp_bundles[k]);
		free(f.tmp_bundles[k]);
	}
	hook(&f, NULL);
	free(f.tmp_archive);
	free(f.tmp_sig);
	install_download_clear(&f.dl);
	return rc;
}

int
ps_fetch(const char *url, const char *path, const ps_verify_options *vo,
    const ps_fetch_options *fo, ps_verify_result **out, ps_error *err)
{
	return install_fetch(url, path, vo, fo, NULL, out, err);
}

/* ps_fetch() of the entry, capped at its size, bound to it before a byte
 * is parsed, verified with --deep (the tree digest the entry lists). */
int
ps_index_fetch_entry(const ps_index *index, const ps_index_entry *entry,
    const char *path, const ps_verify_options *verify,
    const ps_fetch_options *fetch, ps_verify_result **out, ps_error *err)
{
	const ps_index_install_options none = { 0, 0, 0 };
	install_indexed x = { index, entry, &none };
	ps_verify_options deep = *verify;
	ps_fetch_options capped;

	*out = NULL;
	deep.deep = 1;
	/* outdated looks at a yanked entry too: what it would widen. */
	if (install_indexed_entry(index, entry, 1, &x.entry, err) != 0)
		return -1;
	entry = x.entry;
	if (install_indexed_fetch_options(entry, fetch, &capped, err) != 0)
		return -1;
	return install_fetch(entry->archive_url, path, &deep, &capped, &x, out,
	    err);
}
