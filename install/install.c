/*
 * ps_install() (docs/formats/install.md, "Install"): the signature and
 * the archive are copied into a private directory of DIR/.tmp, the
 * archive hashed as it is copied; verification matches that digest to the
 * signed subject before it parses the copy, then its reader extracts the
 * copy into that directory in the pass that checks it, so the bytes
 * verified are the bytes installed.  The
 * receipt is put in place first and the tree last: a run killed before the
 * final rename leaves a receipt without a tree, which no reader shows and
 * the next run removes.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "formats/semver.h"
#include "sign/dsse.h"
#include "sign/statement.h"
#include "util/error.h"
#include "util/lease.h"
#include "util/strings.h"
#include "util/fdio.h"
#include "util/pathname.h"
#include "util/sha256.h"
#include "util/worker.h"
#include "install/datadir.h"
#include "install/download.h"
#include "install/extract.h"
#include "install/indexed.h"
#include "pack/archivename.h"
#include "pack/items.h"
#include "pack/packdir.h"
#include "install/installed.h"
#include "install/receipt.h"
#include "install/upgrade.h"
#include "net/httpsurl.h"
#include "verify/verify.h"

#define COPY_BUFFER (256 * 1024)
#define COPY_SLOTS 8
#define TREE_NAME "tree"
#define RECEIPT_NAME "receipt.json"
#define ARCHIVE_NAME "archive"

struct install {
	const char *archive;
	const ps_install_options *o;
	ps_install_result *res;
	install_datadir dd;
	char *work;                  /* name of the private directory */
	int work_fd;
	char *base;                  /* the archive's file name */
	char *copy_sig;              /* the signature's private copy */
	char **copy_bundles;         /* --bundle: the bundles' private
	                              * copies, BASE.N.sigstore.json */
	int source_fd;               /* the caller's archive, open */
	int copy_fd;                 /* its private, anonymous copy */
	unsigned char copy_sha256[PS_SHA256_LEN];   /* taken while copying */
	char *tree_path;             /* where the archive is extracted */
	int tree_fd;                 /* that directory while extracting */
	install_extractor *extractor;
	ps_manifest *manifest;
	sign_statement *st;
	char *rel;                   /* layout path of the tree */
	ps_digest *extracted;
	int receipt_placed;
	install_upgrade up;          /* pins, and the diff of an upgrade */
	int reinstalling;            /* o->reinstall of an installed tree */
	ps_consent_record kept;      /* its receipt's consent record */
	int from_url;                /* ps_install_url(): `dl` is set */
	install_download dl;
	/* A v2 tar from a URL streams: a thread downloads into a pipe whose
	 * other end verify reads (install.md section 3.1). */
	struct streaming {
		pthread_t thread;
		int started;
		int pipe_r, pipe_w;
		ps_fetch_options quiet;  /* dl's, without progress reports */
		install_download dl;
		uint64_t received;
		int rc;
		ps_error err;
		pthread_mutex_t lock;
		int done;                /* under lock: the download ended
		                          * before the pipe's end was closed */
	} stream;
	const install_indexed *indexed;   /* ps_install_indexed(), or NULL */
};

void
ps_install_options_init(ps_install_options *o)
{
	memset(o, 0, sizeof(*o));
	ps_verify_options_init(&o->verify);
	ps_extract_limits_init(&o->limits);
	o->lang = PS_LANG_EN;
}

void
ps_install_result_free(ps_install_result *r)
{
	if (r == NULL)
		return;
	ps_verify_result_free(r->verify);
	free(r->id);
	free(r->version);
	free(r->name);
	free(r->domain);
	free(r->summary);
	free(r->path);
	free(r->receipt_path);
	ps_diff_free(r->diff);
	free(r->consent.from_version);
	free(r->consent.by);
	free(r);
}

/* ------------------------------------------------------ the private copy */

/* An interrupted install (o->cancelled) stops where it polls: between two
 * blocks copied, before the commit; the run then removes its work. */
static int
stopped(const ps_install_options *o, const char *label, ps_error *err)
{
	if (o == NULL || o->cancelled == NULL ||
	    o->cancelled(o->cancelled_ctx) == 0)
		return 0;
	return util_fail(err, "install_cancelled", label, "interrupted: "
	    "nothing was installed, and what this run wrote is removed");
}

/* The most a copy may hold, and the refusal of more. */
struct copy_bound {
	uint64_t max;
	const char *code;
	const char *why;             /* what `max` is */
	const ps_install_options *o; /* its cancellation; NULL: none polled */
};

/* Copies `src` to `dst` within `bound`. */
static int
copy_fd(int src, int dst, const char *label, const struct copy_bound *bound,
    ps_error *err)
{
	unsigned char *buf = malloc(COPY_BUFFER);
	uint64_t total = 0;
	int rc = 0;
	ssize_t n;

	if (buf == NULL)
		return util_fail_oom(err, label);
	while (rc == 0 && (n = util_read_full(src, buf, COPY_BUFFER)) != 0) {
		if (n < 0)
			rc = util_fail_errno(err, "io_error", label, "read", errno);
		else if ((total += (uint64_t)n) > bound->max)
			rc = util_refuse(err, bound->code, label, "holds more "
			    "than %llu bytes, %s", (unsigned long long)bound->max,
			    bound->why);
		else
			rc = util_write_all(dst, buf, (size_t)n, label, err);
	}
	free(buf);
	return rc;
}


/* One read into the worker's ring: queued for hashing, then written from
 * there (the record is handed over at the next reservation); 0 at the
 * end, -1, or the bytes. */
static ssize_t
copy_one(util_worker *w, int src, int dst, const char *label,
    const struct copy_bound *bound, uint64_t *total, ps_error *err)
{
	unsigned char *room;
	ssize_t n;

	if (stopped(bound->o, label, err) != 0 ||
	    (room = util_worker_reserve(w, COPY_BUFFER, err)) == NULL)
		return -1;
	if ((n = util_read_full(src, room, COPY_BUFFER)) < 0)
		return util_fail_errno(err, "io_error", label, "read", errno);
	if ((*total += (uint64_t)n) > bound->max)
		return util_refuse(err, bound->code, label, "holds more than %llu "
		    "bytes, %s", (unsigned long long)bound->max, bound->why);
	util_worker_commit(w, 0, (size_t)n);
	if (n > 0 && util_write_all(dst, room, (size_t)n, label, err) != 0)
		return -1;
	return n;
}

/* copy_fd hashing what it copies, the hash on a second thread, overlapping the reads and
 * writes (issue 22). */
static int
copy_hashing(int src, int dst, const char *label,
    const struct copy_bound *bound, util_sha256 *hash, ps_error *err)
{
	util_worker *w = NULL;
	uint64_t total = 0;
	ssize_t n;
	int rc;

	if (util_worker_new(&util_sha256_worker_ops, hash, COPY_BUFFER, COPY_SLOTS,
	    &w, err) != 0)
		return -1;
	while ((n = copy_one(w, src, dst, label, bound, &total, err)) > 0)
		;
	rc = n < 0 ? -1 : util_worker_finish(w, err);
	util_worker_free(w);
	return rc;
}

/* Copies the file `path` to `name` in the private directory. */
static int
copy_file(struct install *in, const char *path, const char *name,
    const struct copy_bound *bound, ps_error *err)
{
	int src = util_open_file(path, err), dst, rc;

	if (src < 0)
		return -1;
	dst = openat(in->work_fd, name, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0600);
	if (dst < 0)
		rc = util_fail_errno(err, "io_error", name, "create", errno);
	else
		rc = copy_fd(src, dst, path, bound, err);
	if (dst >= 0 && close(dst) != 0 && rc == 0)
		rc = util_fail_errno(err, "io_error", name, "close", errno);
	close(src);
	return rc;
}

/* A file of the private directory without a name, gone once closed even
 * after a crash: O_TMPFILE, else a name removed at once. */
static int
open_anonymous(struct install *in, ps_error *err)
{
	int fd = openat(in->work_fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR &&
	    errno != EINVAL))
		return fd >= 0 ? fd : util_fail_errno(err, errno == ENOSPC ?
		    "disk_full" : "io_error", in->work, "create", errno);
	fd = openat(in->work_fd, ARCHIVE_NAME, O_RDWR | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return util_fail_errno(err, "io_error", ARCHIVE_NAME, "create",
		    errno);
	(void)unlinkat(in->work_fd, ARCHIVE_NAME, 0);
	return fd;
}

/*
 * The archive is copied into the data directory and hashed as it is
 * copied; verification compares that digest with the signed subject
 * before it parses a byte of the copy, which no one else can write, and
 * extracts from the copy (install.md, "Install").  The copy holds the
 * bytes the archive had when it was opened, up to its size then.
 */
static int
copy_archive(struct install *in, uint64_t *size, ps_error *err)
{
	util_sha256 *hash = util_sha256_new();
	struct copy_bound bound = { 0, "subject_changed", "its size when it "
	    "was opened: it grew while it was copied", in->o };
	struct stat st;
	int rc;

	if (hash == NULL)
		return util_fail_oom(err, in->archive);
	if (fstat(in->source_fd, &st) != 0)
		rc = util_fail_errno(err, "io_error", in->archive, "stat", errno);
	else if ((in->indexed != NULL && install_indexed_size(in->indexed,
	    in->archive, (uint64_t)st.st_size, err) != 0) ||
	    (in->copy_fd = open_anonymous(in, err)) < 0)
		rc = -1;
	else {
		bound.max = *size = (uint64_t)st.st_size;
		if (!S_ISREG(st.st_mode)) {       /* a pipe: --max-size */
			bound.max = in->o->limits.max_total_size;
			bound.code = "extract_too_large";
			bound.why = "--max-size (an archive read from a pipe)";
		}
		rc = copy_hashing(in->source_fd, in->copy_fd, in->archive,
		    &bound, hash, err);
	}
	if (rc == 0 && util_sha256_final(hash, in->copy_sha256) != 0)
		rc = util_fail(err, "internal_error", in->archive, "SHA-256 "
		    "failed");
	util_sha256_free(hash);
	return rc;
}

/* A bundle given as an https URL is downloaded (at most `bound`), a
 * file copied. */
static int
fetch_or_copy(struct install *in, const char *path, const char *name,
    const struct copy_bound *bound, ps_error *err)
{
	int fd, rc;

	if (strncmp(path, "https://", 8) != 0)
		return copy_file(in, path, name, bound, err);
	if (!in->from_url)
		return util_fail(err, "invalid_argument", path, "a bundle URL "
		    "goes with an archive URL (install_url)");
	fd = openat(in->work_fd, name, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return util_fail_errno(err, "io_error", name, "create", errno);
	rc = install_download_bundle(&in->dl, path, fd, err);
	if (close(fd) != 0 && rc == 0)
		rc = util_fail_errno(err, "io_error", name, "close", errno);
	return rc;
}

/* --bundle FILE...: each one copied into the private directory as
 * BASE.N.sigstore.json (N from 1), verified and kept from the copy. */
static int
copy_bundles(struct install *in, ps_error *err)
{
	const struct copy_bound bound = { SIGN_DSSE_MAX_BYTES,
	    "envelope_too_large", "the most a bundle may hold", NULL };
	size_t k, n = in->o->verify.bundle_count;
	char name[UTIL_NAME_MAX + 32];

	in->copy_bundles = calloc(n, sizeof(*in->copy_bundles));
	if (in->copy_bundles == NULL)
		return util_fail_oom(err, in->archive);
	for (k = 0; k < n; k++) {
		snprintf(name, sizeof(name), "%s.%zu.sigstore.json", in->base,
		    k + 1);
		if (asprintf(&in->copy_bundles[k], "%s/%s/%s/%s", in->dd.path,
		    INSTALL_DATADIR_TMP, in->work, name) < 0)
			return util_fail_oom(err, in->archive);
		if (fetch_or_copy(in, in->o->verify.bundle_paths[k], name,
		    &bound, err) != 0)
			return -1;
	}
	return 0;
}

/* The signature is read twice (verified, then kept with the receipt):
 * from a private copy, so both reads see the same bytes. */
static int
download_signature(struct install *in, const char *sig_name, ps_error *err)
{
	int fd, rc;

	if (util_strdup(&in->base, in->dl.name, NULL, err) != 0 ||
	    asprintf(&in->copy_sig, "%s/%s/%s/%s", in->dd.path,
	    INSTALL_DATADIR_TMP, in->work, sig_name) < 0 ||
	    asprintf(&in->tree_path, "%s/%s/%s/%s", in->dd.path,
	    INSTALL_DATADIR_TMP, in->work, TREE_NAME) < 0)
		return util_fail_oom(err, in->archive);
	if (in->o->verify.bundle_count > 0)
		return copy_bundles(in, err);
	if (in->dl.sig_url == NULL) {
		const struct copy_bound sig_bound = { SIGN_DSSE_MAX_BYTES,
		    "envelope_too_large", "the most a signature may hold", NULL };

		return copy_file(in, in->o->verify.sig_path, sig_name,
		    &sig_bound, err);
	}
	fd = openat(in->work_fd, sig_name, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return util_fail_errno(err, "io_error", sig_name, "create", errno);
	rc = install_download_sig(&in->dl, fd, err);
	if (close(fd) != 0 && rc == 0)
		rc = util_fail_errno(err, "io_error", sig_name, "close", errno);
	return rc;
}

/* The archive: the path, or the caller's descriptor (a pipe: `path`
 * then only names it), duplicated so that closing it leaves the
 * caller's open. */
static int
open_source(struct install *in, ps_error *err)
{
	int fd;

	if (!in->o->has_archive_fd)
		return util_open_file(in->archive, err);
	if (in->o->verify.sig_path == NULL)
		return util_fail(err, "invalid_argument", in->archive, "an "
		    "archive read from a descriptor needs its signature's path "
		    "(sig_path)");
	if ((fd = fcntl(in->o->archive_fd, F_DUPFD_CLOEXEC, 0)) < 0)
		return util_fail_errno(err, "io_error", in->archive, "dup",
		    errno);
	return fd;
}

static int
copy_signature(struct install *in, ps_error *err)
{
	const char *slash = strrchr(in->archive, '/');
	const char *sig = in->o->verify.sig_path;
	char *sig_default = NULL;
	const struct copy_bound sig_bound = { SIGN_DSSE_MAX_BYTES,
	    "envelope_too_large", "the most a signature may hold", NULL };
	char sig_name[UTIL_NAME_MAX + 8];
	int rc;

	if (in->from_url) {
		snprintf(sig_name, sizeof(sig_name), "%s.sig", in->dl.name);
		return download_signature(in, sig_name, err);
	}
	if (util_strdup(&in->base, slash != NULL ? slash + 1 : in->archive,
	    NULL, err) != 0 || util_path_check(in->base, in->archive, err) != 0)
		return -1;
	snprintf(sig_name, sizeof(sig_name), "%s.sig", in->base);
	if (sig == NULL && asprintf(&sig_default, "%s.sig", in->archive) < 0)
		return util_fail_oom(err, in->archive);
	if (asprintf(&in->copy_sig, "%s/%s/%s/%s", in->dd.path, INSTALL_DATADIR_TMP,
	    in->work, sig_name) < 0 || asprintf(&in->tree_path, "%s/%s/%s/%s",
	    in->dd.path, INSTALL_DATADIR_TMP, in->work, TREE_NAME) < 0) {
		free(sig_default);
		return util_fail_oom(err, in->archive);
	}
	/* A missing archive is named as such, before its signature. */
	rc = pack_archive_name_not_signature(in->archive, in->archive, err) == 0 &&
	    pack_archive_name_readable(in->archive, in->archive, err) != NULL &&
	    (in->source_fd = open_source(in, err)) >= 0 ? 0 : -1;
	if (rc == 0 && in->o->verify.bundle_count > 0) {
		free(sig_default);
		return copy_bundles(in, err);
	}
	if (rc == 0 && sig == NULL && !in->o->has_archive_fd &&
	    access(sig_default, F_OK) != 0 &&
	    errno == ENOENT) {
		util_refuse(err, "signature_missing", in->archive, "looked for its "
		    "signature beside it (an unsigned archive?)");
		rc = util_error_expect(err, sig_default, "no such file");
	}
	if (rc == 0)
		rc = copy_file(in, sig != NULL ? sig : sig_default, sig_name,
		    &sig_bound, err);
	free(sig_default);
	return rc;
}

/* ---------------------------------------------------------- verification */

/* A local tar (a file, or an archive on a pipe) with a v2 statement,
 * not from an index, is read once in place: verify authenticates each
 * chunk before it is parsed (install.md section 3): no copy, no lease. */
static int
read_in_place(struct install *in, const sign_statement *st)
{
	const pack_archive_name *kind = pack_archive_name_of(in->archive);

	return !in->from_url && in->indexed == NULL && kind != NULL &&
	    kind->kind != PS_SOURCE_ZIP && st->predicate_version == 2;
}

/* The download thread: the archive into the pipe, SIGPIPE blocked (a
 * reader that refused a chunk and closed its end makes the write fail
 * with EPIPE, ending the download, and never signals the host). */
static void *
download_into_pipe(void *arg)
{
	struct streaming *s = arg;
	unsigned char sha256[PS_SHA256_LEN];   /* verify takes its own */
	sigset_t pipe_signal;

	sigemptyset(&pipe_signal);
	sigaddset(&pipe_signal, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_signal, NULL);
	s->rc = install_download_archive(&s->dl, s->pipe_w, sha256,
	    &s->received, &s->err);
	pthread_mutex_lock(&s->lock);
	s->done = 1;
	pthread_mutex_unlock(&s->lock);
	close(s->pipe_w);
	s->pipe_w = -1;
	return NULL;
}

/* A v2 tar from a URL (not an index entry's): downloaded on a thread
 * into a pipe that verify reads once, each chunk authenticated before it
 * is parsed; nothing is written to disk but the extracted tree. */
static int
stream_download(struct install *in, const sign_statement *st, int *fd,
    ps_error *err)
{
	struct streaming *s = &in->stream;
	const pack_archive_name *kind = pack_archive_name_of(in->archive);
	int p[2];

	if (!in->from_url || in->indexed != NULL || kind == NULL ||
	    kind->kind == PS_SOURCE_ZIP || st->predicate_version != 2)
		return 0;
	if (pipe2(p, O_CLOEXEC) != 0)
		return util_fail_errno(err, "io_error", in->archive, "pipe", errno);
	(void)fcntl(p[1], F_SETPIPE_SZ, 1024 * 1024);
	s->pipe_r = p[0];
	s->pipe_w = p[1];
	s->quiet = *in->dl.o;
	s->quiet.progress.fn = NULL;     /* reports come from one thread */
	s->dl = in->dl;
	s->dl.o = &s->quiet;
	ps_error_clear(&s->err);
	s->done = 0;
	if (pthread_mutex_init(&s->lock, NULL) != 0 ||
	    pthread_create(&s->thread, NULL, download_into_pipe, s) != 0) {
		close(p[0]);
		close(p[1]);
		s->pipe_r = s->pipe_w = -1;
		return util_fail(err, "out_of_memory", in->archive, "cannot start "
		    "the download thread");
	}
	s->started = 1;
	*fd = s->pipe_r;
	return 1;
}

/* After verification: the pipe closed (a writer still sending ends with
 * EPIPE), the thread joined.  A download that failed on its own, before
 * the reader let go, decides the error (the reader saw only the stream
 * end early); one that failed because the reader refused and closed the
 * pipe does not. */
static int
stream_finish(struct install *in, int rc, ps_error *err)
{
	struct streaming *s = &in->stream;
	int ended_first;

	if (!s->started)
		return rc;
	pthread_mutex_lock(&s->lock);
	ended_first = s->done;
	pthread_mutex_unlock(&s->lock);
	close(s->pipe_r);
	s->pipe_r = -1;
	pthread_join(s->thread, NULL);
	pthread_mutex_destroy(&s->lock);
	s->started = 0;
	if (s->rc != 0 && (ended_first || rc == 0)) {
		*err = s->err;
		return -1;
	}
	return rc;
}

/* A local tar not from an index is read in place under a read lease
 * where one is granted (util/lease.h; install.md section 3): no copy. */
static int
lease_source(struct install *in)
{
	const pack_archive_name *kind = pack_archive_name_of(in->archive);
	char why[UTIL_LEASE_WHY_MAX];

	if (in->from_url || in->indexed != NULL || kind == NULL ||
	    kind->kind == PS_SOURCE_ZIP)
		return 0;
	return util_lease_take(in->source_fd, why);
}

/* verify_stream.acquire: the copy is made once the signature verified,
 * so that an unsigned archive costs no copy. */
static int
acquire_copy(void *ctx, const sign_statement *st, int *fd,
    const unsigned char **sha256, ps_error *err)
{
	struct install *in = ctx;
	uint64_t size = 0;
	int rc;

	if ((rc = stream_download(in, st, fd, err)) != 0) {
		*sha256 = NULL;         /* verify reads the pipe chunk by chunk */
		return rc > 0 ? 0 : -1;
	}
	if (in->from_url && (in->copy_fd = open_anonymous(in, err)) < 0)
		return -1;
	if (read_in_place(in, st) || lease_source(in)) {
		*fd = in->source_fd;
		*sha256 = NULL;         /* verify hashes it, under the lease */
		return 0;
	}
	if (!in->from_url)
		rc = copy_archive(in, &size, err);
	else
		rc = install_download_archive(&in->dl, in->copy_fd,
		    in->copy_sha256, &size, err);
	/* An entry's archive, downloaded or taken from --from-dir. */
	if (in->indexed != NULL && (rc == 0 || in->from_url))
		rc = install_indexed_download(in->indexed, in->archive,
		    rc == 0, size, in->copy_sha256, err);
	if (rc != 0)
		return -1;
	*fd = in->copy_fd;
	*sha256 = in->copy_sha256;
	return 0;
}

/* The same for --bundle: each copy named as the caller's file. */
static void
name_bundles(struct install *in, ps_error *err)
{
	ps_verify_result *v = in->res->verify;
	const char *original;
	size_t k;

	for (k = 0; in->copy_bundles != NULL &&
	    k < in->o->verify.bundle_count; k++) {
		original = in->o->verify.bundle_paths[k];
		if (in->copy_bundles[k] == NULL)
			continue;
		if (strcmp(err->subject, in->copy_bundles[k]) == 0)
			snprintf(err->subject, sizeof(err->subject), "%s",
			    original);
		if (v != NULL && v->sig_path != NULL &&
		    strcmp(v->sig_path, in->copy_bundles[k]) == 0) {
			free(v->sig_path);
			v->sig_path = strdup(original);
		}
	}
}

/* Errors and the report name the caller's signature, not its copy. */
static void
name_originals(struct install *in, ps_error *err)
{
	const char *sig = in->o->verify.sig_path;
	ps_verify_result *v = in->res->verify;
	char *original = NULL;

	if (in->from_url && sig == NULL) {
		if (net_url_public(in->dl.sig_url, &original, err) != 0)
			original = NULL;
	} else if (sig == NULL && asprintf(&original, "%s.sig", in->archive) < 0)
		original = NULL;
	if (sig == NULL)
		sig = original;
	if (sig != NULL && strcmp(err->subject, in->copy_sig) == 0)
		snprintf(err->subject, sizeof(err->subject), "%s", sig);
	name_bundles(in, err);
	if (v != NULL && sig != NULL) {
		free(v->sig_path);
		v->sig_path = strdup(sig);
	}
	free(original);
}

/* A no-op reinstall (the same version and tree, by the signed statement)
 * is verified without extracting; the rules confirm it afterwards. */
static int
tree_wanted(struct install *in, const sign_statement *st)
{
	ps_installed_list list = { NULL, 0 };
	ps_error ignored;
	size_t i;
	int wanted = 1;

	if (in->o->reinstall)
		return 1;
	if (install_scan(&in->dd, st->format, st->pack_id, &list,
	    &ignored) != 0)
		return 1;
	for (i = 0; i < list.count; i++) {
		if (strcmp(list.items[i].version, st->pack_version) == 0 &&
		    memcmp(list.items[i].tree_digest, st->tree_digest,
		    PS_SHA256_LEN) == 0)
			wanted = 0;
	}
	install_list_free_items(&list);
	return wanted;
}

/* verify_stream.start: the extractor sees every entry the verifying
 * reader reads; files it did not keep are read back from the tree. */
static int
start_extracting(void *ctx, const sign_statement *st,
    const pack_archive_visitor **visitor, ps_pack_files *fallback,
    ps_error *err)
{
	struct install *in = ctx;

	if (in->indexed != NULL && install_indexed_statement(in->indexed,
	    in->archive, st, in->res->verify, err) != 0)
		return -1;
	if (!tree_wanted(in, st))
		return 0;
	if (install_extractor_new(in->archive, in->tree_fd, &in->o->limits,
	    &in->extractor, err) != 0)
		return -1;
	install_extractor_cancel(in->extractor, in->o->cancelled,
	    in->o->cancelled_ctx);
	if (!in->o->dry_run)
		install_extractor_writeback(in->extractor);
	if (pack_files_tree_open(in->tree_path, fallback, err) != 0)
		return -1;
	*visitor = install_extractor_visitor(in->extractor);
	return 1;
}

/* verify_stream.end */
static int
end_extracting(void *ctx, int rc, ps_error *err)
{
	struct install *in = ctx;

	rc = install_extractor_end(in->extractor, rc, err);
	install_extractor_free(in->extractor);
	in->extractor = NULL;
	return rc;
}

static int
verify_and_extract(struct install *in, ps_error *err)
{
	ps_verify_options vo = in->o->verify;
	verify_stream stream = { .ctx = in, .start = start_extracting,
	    .end = end_extracting, .acquire = acquire_copy };
	int rc;

	if (mkdirat(in->work_fd, TREE_NAME, 0755) != 0)
		return util_fail_errno(err, errno == ENOSPC ? "disk_full" :
		    "io_error", in->tree_path, "mkdir", errno);
	in->tree_fd = openat(in->work_fd, TREE_NAME, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC);
	if (in->tree_fd < 0)
		return util_fail_errno(err, "io_error", in->tree_path, "open",
		    errno);
	vo.sig_path = in->copy_bundles != NULL ? NULL : in->copy_sig;
	vo.bundle_paths = (const char *const *)in->copy_bundles;
	vo.bundle_count = in->copy_bundles != NULL ?
	    in->o->verify.bundle_count : 0;
	vo.limits = in->o->limits;
	rc = verify_keep(in->archive, &vo, &stream, &in->res->verify,
	    &in->manifest, &in->st, err);
	rc = stream_finish(in, rc, err);
	install_extractor_free(in->extractor);
	in->extractor = NULL;
	close(in->tree_fd);
	in->tree_fd = -1;
	in->extracted = stream.digest;
	name_originals(in, err);
	return rc;
}

/* ------------------------------------------------------------ the rules */

static int
signer_first_party(const struct install *in)
{
	const ps_verify_result *v = in->res->verify;
	const ps_trust_signer *s;
	size_t i;

	for (i = 0; i < v->identity_count; i++) {
		s = ps_trust_find_signer(in->o->verify.trust,
		    v->identities[i].identity);
		if (s != NULL && s->first_party)
			return 1;
	}
	return 0;
}

static int
check_shell(const struct install *in, ps_error *err)
{
	if (in->manifest->format != PS_FORMAT_AGENTPACK ||
	    !in->manifest->permissions.shell || in->o->allow_shell ||
	    signer_first_party(in))
		return 0;
	util_refuse(err, "shell_refused", in->archive, "the AgentPack declares "
	    "permissions.shell: true and its signer %s is not first_party in "
	    "the trust policy (pass --allow-shell to accept it)",
	    in->res->verify->identity_count > 0 ?
	    in->res->verify->identities[0].identity : "?");
	return util_error_expect(err, "shell: false, or a first_party signer",
	    "shell: true");
}

static int
compare_versions(const char *a, const char *b)
{
	formats_semver va, vb;

	if (formats_semver_parse(a, &va) != 0 || formats_semver_parse(b, &vb) != 0)
		return strcmp(a, b);
	return formats_semver_compare(&va, &vb);
}

static void
count_files(ps_install_result *r, const ps_entry *entries, size_t count)
{
	size_t i;

	r->file_count = 0;
	r->total_size = 0;
	for (i = 0; i < count; i++) {
		if (entries[i].type == PS_ENTRY_FILE) {
			r->file_count++;
			r->total_size += entries[i].size;
		}
	}
}

/* The first path a check found changed, for a message. */
static const char *
first_change(const ps_installed_check *c, const char **how)
{
	*how = c->modified.count > 0 ? "modified" : c->added.count > 0 ?
	    "added" : "missing";
	return c->modified.count > 0 ? c->modified.items[0] :
	    c->added.count > 0 ? c->added.items[0] : c->missing.count > 0 ?
	    c->missing.items[0] : "?";
}

/* The no-op is for a tree whose files still match their receipt: one
 * changed since is not "already installed", and --reinstall is the way
 * forward. */
static int
check_intact(const ps_installed *old, ps_error *err)
{
	ps_installed_check *c = NULL;
	char found[PS_ERROR_VALUE_MAX];
	const char *how, *path;
	int rc = ps_installed_verify(old->path, NULL, 0, &c, err);

	if (rc != 0 && c != NULL && ps_error_is(err, PS_CODE_INSTALLED_MODIFIED)) {
		path = first_change(c, &how);
		snprintf(found, sizeof(found), "%zu modified, %zu added, %zu "
		    "missing (%s: %.300s)", c->modified.count, c->added.count,
		    c->missing.count, how, path);
		util_refuse(err, "installed_modified", old->path, "%s %s is "
		    "already installed, but its files changed since; pass "
		    "--reinstall (ps_install_options.reinstall) to replace them "
		    "with this archive's verified tree", old->id, old->version);
		util_error_expect(err, "the files as installed", found);
	}
	ps_installed_check_free(c);
	return rc;
}

/* --reinstall of the installed tree: its receipt's consent record is
 * kept, the tree being the one consented to then. */
static int
reinstall_of(struct install *in, const ps_installed *old, ps_error *err)
{
	in->reinstalling = 1;
	in->kept.asked = old->consent.asked;
	in->kept.widened = old->consent.widened;
	if (old->consent.from_version == NULL)
		return 0;
	if (util_strdup(&in->kept.from_version, old->consent.from_version,
	    NULL, err) != 0 || util_strdup(&in->kept.by, old->consent.by, NULL,
	    err) != 0)
		return -1;
	return 0;
}

static int
check_same_version(struct install *in, const ps_installed *old,
    ps_error *err)
{
	char e[PS_SHA256_STRING_LEN], f[PS_SHA256_STRING_LEN];

	if (memcmp(old->tree_digest, in->st->tree_digest, PS_SHA256_LEN) == 0 &&
	    in->o->reinstall)
		return reinstall_of(in, old, err);
	if (memcmp(old->tree_digest, in->st->tree_digest, PS_SHA256_LEN) == 0) {
		if (check_intact(old, err) != 0)
			return -1;
		in->res->already_installed = 1;
		memcpy(in->res->tree_digest, old->tree_digest, PS_SHA256_LEN);
		count_files(in->res, old->entries, old->entry_count);
		return 0;
	}
	util_refuse(err, "version_conflict", in->res->path, "%s %s is installed "
	    "with other content; a version names one tree (uninstall it "
	    "first)", old->id, old->version);
	return util_error_expect(err, ps_sha256_string(old->tree_digest, e),
	    ps_sha256_string(in->st->tree_digest, f));
}

/* Rollback defence and reinstalls; *newest is the newest installed. */
static int
check_versions(struct install *in, char **newest, ps_error *err)
{
	ps_installed_list list = { NULL, 0 };
	const ps_installed *top = NULL;
	size_t i;
	int rc = 0;

	*newest = NULL;
	if (install_scan(&in->dd, in->manifest->format, in->manifest->id,
	    &list, err) != 0)
		return -1;
	for (i = 0; i < list.count; i++) {
		if (list.items[i].newest)
			top = &list.items[i];
		if (strcmp(list.items[i].version, in->manifest->version) == 0)
			rc = check_same_version(in, &list.items[i], err);
	}
	if (rc == 0 && !in->res->already_installed && !in->reinstalling &&
	    top != NULL && !in->o->allow_downgrade &&
	    compare_versions(in->manifest->version, top->version) < 0) {
		util_refuse(err, "downgrade_refused", in->archive, "%s %s is older "
		    "than the newest installed version (pass --allow-downgrade "
		    "to install it anyway)", in->manifest->id,
		    in->manifest->version);
		rc = util_error_expect(err, top->version, in->manifest->version);
	}
	if (rc == 0 && top != NULL && util_strdup(newest, top->version, NULL, err) != 0)
		rc = -1;
	install_list_free_items(&list);
	return rc;
}

/* A tree at the destination that no receipt describes is not ours. */
static int
check_destination(struct install *in, ps_error *err)
{
	struct stat st;

	if (in->res->already_installed || in->reinstalling ||
	    fstatat(in->dd.fd, in->rel, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return 0;
	util_refuse(err, "install_conflict", in->res->path, "something without a "
	    "receipt is already there; packsign will not replace it");
	return util_error_expect(err, "nothing", "an unknown file or directory");
}

static int
describe_plan(struct install *in, ps_error *err)
{
	ps_install_result *r = in->res;
	const ps_manifest *m = in->manifest;

	r->format = m->format;
	if (util_strdup(&r->id, m->id, NULL, err) != 0 ||
	    util_strdup(&r->version, m->version, NULL, err) != 0 ||
	    util_strdup(&r->name, m->name, NULL, err) != 0 ||
	    util_strdup(&r->domain, m->domain, NULL, err) != 0 ||
	    ps_manifest_describe(m, in->o->lang, &r->summary, err) != 0 ||
	    install_layout_path(m->format, m->id, m->version, &in->rel, err) != 0)
		return -1;
	if (asprintf(&r->path, "%s/%s", in->dd.path, in->rel) < 0 ||
	    asprintf(&r->receipt_path, "%s/%s/%s.json", in->dd.path,
	    INSTALL_DATADIR_RECEIPTS, in->rel) < 0) {
		r->path = r->receipt_path = NULL;
		return util_fail_oom(err, in->archive);
	}
	return 0;
}

static void
make_plan(const struct install *in, const char *newest, ps_install_plan *plan)
{
	const ps_install_result *r = in->res;

	memset(plan, 0, sizeof(*plan));
	plan->format = r->format;
	plan->id = r->id;
	plan->version = r->version;
	plan->name = r->name;
	plan->domain = r->domain;
	plan->summary = r->summary;
	plan->destination = r->path;
	plan->signer = r->verify->identity_count > 0 ?
	    r->verify->identities[0].identity : NULL;
	plan->replaces_newest = newest;
	plan->warnings = &r->verify->warnings;
	plan->diff = r->diff;
	plan->consent_needed = r->consent_needed;
}

static int
confirm(struct install *in, const ps_install_plan *plan, ps_error *err)
{
	if (in->o->confirm == NULL || in->o->dry_run)
		return 0;
	if (in->o->confirm(in->o->confirm_ctx, plan) != 0)
		return 0;
	util_refuse(err, "install_declined", in->archive, "the installation was "
	    "not confirmed");
	return util_error_expect(err, "yes", "no");
}

/* Pins, the diff against the newest version, consent, confirmation. */
static int
ask_upgrade(struct install *in, const char *newest, ps_error *err)
{
	install_upgrade_in u = { in->archive, &in->dd, in->o, in->res->verify,
	    in->manifest, in->extracted, in->tree_path, newest };
	ps_install_plan plan;

	if (install_upgrade_check(&u, &in->up, in->res, err) != 0)
		return -1;
	make_plan(in, newest, &plan);
	if (install_upgrade_consent(in->archive, in->o, &plan, in->res,
	    err) != 0)
		return -1;
	return confirm(in, &plan, err);
}

/* A reinstall: the pins checked (never rewritten), no diff (the tree is
 * the installed one's, by digest), the confirmation. */
static int
ask_reinstall(struct install *in, const char *newest, ps_error *err)
{
	install_upgrade_in u = { in->archive, &in->dd, in->o, in->res->verify,
	    in->manifest, in->extracted, in->tree_path, newest };
	ps_install_plan plan;

	if (install_upgrade_check_pins(&u, &in->up, err) != 0)
		return -1;
	make_plan(in, newest, &plan);
	return confirm(in, &plan, err);
}

static int
apply_rules(struct install *in, ps_error *err)
{
	char *newest = NULL;
	int rc;

	if (describe_plan(in, err) != 0 || check_shell(in, err) != 0 ||
	    check_versions(in, &newest, err) != 0)
		return -1;
	rc = check_destination(in, err);
	if (rc == 0 && !in->res->already_installed)
		rc = in->reinstalling ? ask_reinstall(in, newest, err) :
		    ask_upgrade(in, newest, err);
	free(newest);
	return rc;
}

/* ------------------------------------------------------------ extraction */

/* The tree digest was compared by the verification that extracted it. */
static int
take_extracted(struct install *in, ps_error *err)
{
	const ps_digest *d = in->extracted;

	if (d == NULL)
		return util_fail(err, "internal_error", in->archive, "the archive "
		    "was verified without being extracted");
	count_files(in->res, d->entries, d->entry_count);
	memcpy(in->res->tree_digest, d->tree_digest, PS_SHA256_LEN);
	if (memcmp(d->tree_digest, in->st->tree_digest, PS_SHA256_LEN) != 0)
		return util_refuse_digest(err,
		    "install_digest_mismatch", in->archive, "compared the extracted "
		    "tree's digest with the signed tree digest",
		    in->st->tree_digest, d->tree_digest);
	return 0;
}

/* --------------------------------------------------------------- receipt */

/* Files and empty directories: what the tree digest covers. */
static int
take_entries(ps_installed *r, ps_digest *d, ps_error *err)
{
	size_t i, n = 0;

	if (d->entry_count > 0 &&
	    (r->entries = calloc(d->entry_count, sizeof(ps_entry))) == NULL)
		return util_fail_oom(err, NULL);
	for (i = 0; i < d->entry_count; i++) {
		if (d->entries[i].type == PS_ENTRY_DIR &&
		    pack_digest_has_children(d, i))
			continue;
		r->entries[n] = d->entries[i];
		d->entries[i].path = NULL;
		n++;
	}
	r->entry_count = n;
	return 0;
}

static int
take_prompts(ps_installed *r, const sign_statement *st, ps_error *err)
{
	size_t i;

	if (st->prompt_count > 0 &&
	    (r->prompts = calloc(st->prompt_count, sizeof(ps_entry))) == NULL)
		return util_fail_oom(err, NULL);
	for (i = 0; i < st->prompt_count; i++) {
		r->prompt_count++;
		if ((r->prompts[i].path = strdup(st->prompts[i].path)) == NULL)
			return util_fail_oom(err, NULL);
		memcpy(r->prompts[i].sha256, st->prompts[i].sha256, PS_SHA256_LEN);
	}
	return 0;
}

static int
by_identity(const void *a, const void *b)
{
	return strcmp(((const ps_installed_signer *)a)->identity,
	    ((const ps_installed_signer *)b)->identity);
}

/* Every counted identity, by identity (receipt 2). */
static int
take_signers(ps_installed *r, const ps_verify_result *v, ps_error *err)
{
	size_t i;

	if ((r->signers = calloc(v->identity_count, sizeof(*r->signers))) ==
	    NULL)
		return util_fail_oom(err, NULL);
	for (i = 0; i < v->identity_count; i++) {
		r->signer_count++;
		if (util_strdup(&r->signers[i].identity, v->identities[i].identity,
		    NULL, err) != 0 || util_strdup(&r->signers[i].fingerprint,
		    v->identities[i].fingerprint, NULL, err) != 0)
			return -1;
	}
	qsort(r->signers, r->signer_count, sizeof(*r->signers), by_identity);
	return 0;
}

static int
dup_or_null(char **out, const char *s)
{
	*out = NULL;
	return s != NULL && (*out = strdup(s)) == NULL ? -1 : 0;
}

/* Receipt 3: a keyless signer's certificate fields, from its first
 * counted signature. */
static int
take_keyless(ps_installed *r, const ps_verify_result *v, ps_error *err)
{
	const ps_verify_keyless *k;
	ps_verify_keyless *c;
	size_t i, j;

	for (i = 0; i < r->signer_count; i++)
		for (j = 0; j < v->signature_count; j++) {
			k = v->signatures[j].keyless;
			if (!v->signatures[j].counted || k == NULL ||
			    strcmp(v->signatures[j].identity,
			    r->signers[i].identity) != 0 ||
			    r->signers[i].keyless != NULL)
				continue;
			if ((c = r->signers[i].keyless = calloc(1,
			    sizeof(*c))) == NULL)
				return util_fail_oom(err, NULL);
			memcpy(c->signer_id, k->signer_id, sizeof(c->signer_id));
			if (dup_or_null(&c->issuer, k->issuer) ||
			    dup_or_null(&c->subject, k->subject) ||
			    dup_or_null(&c->repository, k->repository) ||
			    dup_or_null(&c->repository_id, k->repository_id) ||
			    dup_or_null(&c->owner_id, k->owner_id) ||
			    dup_or_null(&c->ref, k->ref) ||
			    dup_or_null(&c->commit, k->commit) ||
			    dup_or_null(&c->signer_workflow, k->signer_workflow) ||
			    dup_or_null(&c->config_workflow, k->config_workflow) ||
			    dup_or_null(&c->trigger, k->trigger) ||
			    dup_or_null(&c->runner, k->runner))
				return util_fail_oom(err, NULL);
		}
	return 0;
}

static int
take_consent(ps_installed *r, const ps_consent_record *c, ps_error *err)
{
	r->consent.asked = c->asked;
	r->consent.widened = c->widened;
	if (c->from_version == NULL)
		return 0;
	if (util_strdup(&r->consent.from_version, c->from_version, NULL,
	    err) != 0 || util_strdup(&r->consent.by, c->by, NULL, err) != 0)
		return -1;
	return 0;
}

static int
fill_receipt(struct install *in, ps_installed *r, ps_error *err)
{
	const ps_verify_result *v = in->res->verify;
	const ps_manifest *m = in->manifest;

	r->format = m->format;
	r->installed_at = in->o->now != 0 ? in->o->now : (int64_t)time(NULL);
	memcpy(r->tree_digest, in->st->tree_digest, PS_SHA256_LEN);
	memcpy(r->archive_digest, v->archive_digest, PS_SHA256_LEN);
	if (util_strdup(&r->id, m->id, NULL, err) != 0 ||
	    util_strdup(&r->version, m->version, NULL, err) != 0 ||
	    util_strdup(&r->name, m->name, NULL, err) != 0 ||
	    util_strdup(&r->domain, m->domain, NULL, err) != 0 ||
	    util_strdup(&r->path, in->rel, NULL, err) != 0 ||
	    util_strdup(&r->archive_name, in->base, NULL, err) != 0 ||
	    util_strdup(&r->signer, v->identities[0].identity, NULL, err) != 0 ||
	    util_strdup(&r->fingerprint, v->identities[0].fingerprint, NULL, err) != 0 ||
	    ps_manifest_permissions(m, &r->permissions, err) != 0 ||
	    take_prompts(r, in->st, err) != 0 ||
	    take_signers(r, v, err) != 0 ||
	    take_consent(r, in->reinstalling ? &in->kept : &in->res->consent,
	    err) != 0 ||
	    util_strdup(&r->manifest_path, in->extracted->manifest_path, NULL,
	    err) != 0)
		return -1;
	memcpy(r->manifest_sha256, in->extracted->manifest_sha256,
	    PS_SHA256_LEN);
	if (take_entries(r, in->extracted, err) != 0)
		return -1;
	r->bundle_count = in->copy_bundles != NULL ?
	    in->o->verify.bundle_count : 0;
	if (take_keyless(r, v, err) != 0)
		return -1;
	if (!v->has_source)
		return 0;
	if (util_strdup(&r->source_repository, v->source_repository, NULL, err) != 0 ||
	    util_strdup(&r->source_commit, v->source_commit, NULL, err) != 0)
		return -1;
	return 0;
}

static int
write_receipt_file(struct install *in, ps_error *err)
{
	ps_installed r;
	int fd, rc;

	memset(&r, 0, sizeof(r));
	fd = openat(in->work_fd, RECEIPT_NAME, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return util_fail_errno(err, errno == ENOSPC ? "disk_full" :
		    "io_error", in->res->receipt_path, "create", errno);
	rc = fill_receipt(in, &r, err);
	if (rc == 0)
		rc = install_receipt_write(fd, &r, in->from_url ?
		    in->dl.public_url : NULL, in->res->receipt_path, err);
	install_receipt_clear(&r);
	if (close(fd) != 0 && rc == 0)
		rc = util_fail_errno(err, "io_error", in->res->receipt_path, "close",
		    errno);
	return rc;
}

/* `rel`'s parent below `base` (created); its last component in *leaf. */
static int
open_parent(const struct install *in, const char *base, const char **leaf,
    ps_error *err)
{
	char dir[UTIL_PATH_MAX];
	const char *slash = strrchr(in->rel, '/');
	int fd;

	*leaf = slash + 1;
	snprintf(dir, sizeof(dir), "%s%s%.*s", base, base[0] != '\0' ? "/" : "",
	    (int)(slash - in->rel), in->rel);
	fd = util_mkdir_beneath(in->dd.fd, dir, 0755, NULL);
	if (fd < 0)
		return util_fail_errno(err, errno == ENOTDIR || errno == ELOOP ?
		    "data_dir_invalid" : "io_error", dir, "mkdir", errno);
	return fd;
}

static int
move_in(int from_fd, const char *from, int to_fd, const char *to,
    const char *label, ps_error *err)
{
	if (renameat(from_fd, from, to_fd, to) != 0)
		return util_fail_errno(err, "io_error", label, "rename", errno);
	return 0;
}

/* --bundle: the copies renamed to VERSION.N.sigstore.json beside the
 * receipt (in place of the .sig; a reinstalled version's .sig goes). */
static int
move_bundles(struct install *in, int fd, const char *version, ps_error *err)
{
	char from[UTIL_NAME_MAX + 32], to[UTIL_NAME_MAX + 32];
	size_t k;

	for (k = 0; k < in->o->verify.bundle_count; k++) {
		snprintf(from, sizeof(from), "%s.%zu.sigstore.json", in->base,
		    k + 1);
		snprintf(to, sizeof(to), "%s.%zu.sigstore.json", version, k + 1);
		if (move_in(in->work_fd, from, fd, to, in->res->receipt_path,
		    err) != 0)
			return -1;
	}
	snprintf(to, sizeof(to), "%s.sig", version);
	(void)unlinkat(fd, to, 0);
	return 0;
}

/* W's receipt files renamed to receipts/<layout path>.sig and .json
 * (over a reinstalled version's; `sync`: the directory then fsynced). */
static int
move_receipt(struct install *in, int sync, ps_error *err)
{
	char sig[UTIL_NAME_MAX + 8], json[UTIL_NAME_MAX + 8], copy_sig[UTIL_NAME_MAX + 8];
	const char *version;
	int fd, rc;

	if ((fd = open_parent(in, INSTALL_DATADIR_RECEIPTS, &version, err)) < 0)
		return -1;
	snprintf(sig, sizeof(sig), "%s.sig", version);
	snprintf(json, sizeof(json), "%s.json", version);
	snprintf(copy_sig, sizeof(copy_sig), "%s.sig", in->base);
	in->receipt_placed = !in->reinstalling;
	rc = in->copy_bundles != NULL ? move_bundles(in, fd, version, err) :
	    move_in(in->work_fd, copy_sig, fd, sig, in->res->receipt_path, err);
	if (rc == 0)
		rc = move_in(in->work_fd, RECEIPT_NAME, fd, json,
		    in->res->receipt_path, err);
	if (rc == 0 && sync && fsync(fd) != 0)
		rc = util_fail_errno(err, "io_error", in->res->receipt_path,
		    "fsync", errno);
	close(fd);
	return rc;
}

static int
place_receipt(struct install *in, ps_error *err)
{
	if (write_receipt_file(in, err) != 0)
		return -1;
	return move_receipt(in, 0, err);
}

/*
 * --reinstall (install.md, section 3.2): the new receipt is written and
 * the file system synced; then the verified tree and the installed one
 * are exchanged in one rename (RENAME_EXCHANGE: the layout path never
 * lacks a tree), and the receipt's two files are renamed over the old
 * ones.  The old tree leaves with W.  Both receipts describe one tree
 * (equal tree digests, equal file lists), so at every instant the pack is
 * installed with files that match its receipt.
 */
static int
commit_reinstall(struct install *in, ps_error *err)
{
	const char *version;
	int fd, rc = 0;

	if (write_receipt_file(in, err) != 0)
		return -1;
	if (syncfs(in->dd.fd) != 0)
		return util_fail_errno(err, "io_error", in->dd.path, "syncfs", errno);
	if (stopped(in->o, in->archive, err) != 0 ||
	    (fd = open_parent(in, "", &version, err)) < 0)
		return -1;
	if (renameat2(in->work_fd, TREE_NAME, fd, version, RENAME_EXCHANGE) != 0)
		rc = util_fail_errno(err, "io_error", in->res->path, "exchange "
		    "the verified tree with the installed one (renameat2 "
		    "RENAME_EXCHANGE)", errno);
	if (rc == 0)
		in->res->installed = in->res->reinstalled = 1;
	if (rc == 0 && fsync(fd) != 0)
		rc = util_fail_errno(err, "io_error", in->res->path, "fsync", errno);
	close(fd);
	return rc == 0 ? move_receipt(in, 1, err) : -1;
}

/* The commit point: durable first, then visible. */
static int
place_tree(struct install *in, ps_error *err)
{
	const char *version;
	int fd, rc = 0;

	if (syncfs(in->dd.fd) != 0)
		return util_fail_errno(err, "io_error", in->dd.path, "syncfs", errno);
	/* The last point to stop: a long sync may have been interrupted. */
	if (stopped(in->o, in->archive, err) != 0 ||
	    (fd = open_parent(in, "", &version, err)) < 0)
		return -1;
	if (renameat2(in->work_fd, TREE_NAME, fd, version, RENAME_NOREPLACE) != 0)
		rc = errno != EEXIST ? util_fail_errno(err, "io_error",
		    in->res->path, "rename", errno) :
		    (util_refuse(err, "install_conflict", in->res->path, "something "
		    "appeared there while installing"), util_error_expect(err,
		    "nothing", "an unknown file or directory"));
	/* The rename is the commit point: from here the tree is installed,
	 * and a failing fsync must not take its receipt back. */
	if (rc == 0)
		in->res->installed = 1;
	if (rc == 0 && fsync(fd) != 0)
		rc = util_fail_errno(err, "io_error", in->res->path, "fsync", errno);
	close(fd);
	return rc;
}

/* A failed install takes back the receipt it placed (the next run would
 * remove it anyway). */
static void
take_back_receipt(struct install *in)
{
	size_t i;
	char path[UTIL_PATH_MAX];

	if (!in->receipt_placed || in->res->installed)
		return;
	snprintf(path, sizeof(path), "%s/%s.json", INSTALL_DATADIR_RECEIPTS, in->rel);
	(void)unlinkat(in->dd.fd, path, 0);
	snprintf(path, sizeof(path), "%s/%s.sig", INSTALL_DATADIR_RECEIPTS, in->rel);
	(void)unlinkat(in->dd.fd, path, 0);
	for (i = 0; in->copy_bundles != NULL &&
	    i < in->o->verify.bundle_count; i++) {
		snprintf(path, sizeof(path), "%s/%s.%zu.sigstore.json",
		    INSTALL_DATADIR_RECEIPTS, in->rel, i + 1);
		(void)unlinkat(in->dd.fd, path, 0);
	}
}

/* ------------------------------------------------------------------- run */

static int
prepare(struct install *in, ps_error *err)
{
	if (in->o->data_dir == NULL || in->o->verify.trust == NULL)
		return util_fail(err, "invalid_argument", in->archive,
		    "install needs a data directory and a trust policy");
	if (install_datadir_open(in->o->data_dir, 1, &in->dd, err) != 0 ||
	    install_datadir_lock(&in->dd, in->o->waiting, in->o->waiting_ctx,
	    err) != 0 || install_datadir_clean(&in->dd, err) != 0)
		return -1;
	if (in->indexed != NULL && install_indexed_state(&in->dd, in->indexed,
	    in->o->verify.trust, in->o->dry_run, in->o->now != 0 ? in->o->now :
	    (int64_t)time(NULL), err) != 0)
		return -1;
	return install_datadir_workdir(&in->dd, "install", &in->work, &in->work_fd,
	    err);
}

/* The private copy is read no more once the tree is extracted from it:
 * closed, the file (which has no name) is freed with its pages unwritten,
 * so the syncfs of the commit does not write the archive's bytes to the
 * disk a second time (issue 22). */
static void
drop_copy(struct install *in)
{
	if (in->copy_fd >= 0)
		close(in->copy_fd);
	in->copy_fd = -1;
}

static int
run(struct install *in, ps_error *err)
{
	/* An index entry's bundles are its own (the callers refuse others). */
	if (in->o->verify.bundle_count > 0 && ((in->indexed != NULL &&
	    in->o->verify.bundle_count != in->indexed->entry->bundle_count) ||
	    in->o->verify.sig_path != NULL ||
	    in->o->verify.bundle_count > SIGN_DSSE_MAX_SIGNATURES))
		return util_fail(err, "invalid_argument", in->archive, "install "
		    "reads Sigstore bundles (verify.bundle_paths, at most 64) "
		    "for an archive file or URL, without verify.sig_path; not "
		    "for an index entry");
	if (in->o->reinstall && (in->o->allow_signer_change ||
	    in->o->allow_source_change))
		return util_fail(err, "invalid_argument", in->archive, "a "
		    "reinstall checks the pins and never rewrites them: "
		    "allow_signer_change and allow_source_change must be 0");
	if (prepare(in, err) != 0 || copy_signature(in, err) != 0 ||
	    verify_and_extract(in, err) != 0 || apply_rules(in, err) != 0)
		return -1;
	if (in->res->already_installed)
		return 0;
	if (take_extracted(in, err) != 0)
		return -1;
	if (in->o->dry_run) {
		in->res->dry_run = 1;
		return 0;
	}
	drop_copy(in);
	if (stopped(in->o, in->archive, err) != 0)
		return -1;
	if (in->reinstalling)
		return commit_reinstall(in, err);
	if (place_receipt(in, err) != 0 ||
	    install_upgrade_stage(&in->up, &in->dd, in->work_fd, in->o->now !=
	    0 ? in->o->now : (int64_t)time(NULL), err) != 0 ||
	    place_tree(in, err) != 0) {
		take_back_receipt(in);
		install_upgrade_take_back(&in->up, &in->dd);
		return -1;
	}
	/* The staged pins are current from the tree's rename on; renaming
	 * them into place only tidies (the next locked run does it too). */
	if (install_upgrade_commit(&in->up, &in->dd, in->res, err) != 0)
		ps_error_clear(err);
	return 0;
}

static void
finish(struct install *in)
{
	size_t i;

	if (in->source_fd >= 0)
		close(in->source_fd);
	if (in->copy_fd >= 0)
		close(in->copy_fd);
	if (in->work_fd >= 0)
		close(in->work_fd);
	if (in->work != NULL && in->dd.tmp_fd >= 0)
		(void)util_remove_tree_at(in->dd.tmp_fd, in->work);
	install_datadir_close(&in->dd);
	ps_manifest_free(in->manifest);
	sign_statement_free(in->st);
	install_upgrade_clear(&in->up);
	free(in->kept.from_version);
	free(in->kept.by);
	ps_digest_free(in->extracted);
	free(in->work);
	free(in->base);
	free(in->copy_sig);
	for (i = 0; in->copy_bundles != NULL &&
	    i < in->o->verify.bundle_count; i++)
		free(in->copy_bundles[i]);
	free(in->copy_bundles);
	free(in->tree_path);
	free(in->rel);
	install_download_clear(&in->dl);
}

static void
start(struct install *in, const char *archive,
    const ps_install_options *options)
{
	memset(in, 0, sizeof(*in));
	in->archive = archive;
	in->o = options;
	in->work_fd = in->tree_fd = in->source_fd = in->copy_fd = -1;
	in->stream.pipe_r = in->stream.pipe_w = -1;
	in->dd.fd = in->dd.lock_fd = in->dd.tmp_fd = -1;
}

int
ps_install(const char *archive, const ps_install_options *options,
    ps_install_result **out, ps_error *err)
{
	struct install in;
	int rc;

	ps_error_clear(err);
	start(&in, archive, options);
	*out = in.res = calloc(1, sizeof(ps_install_result));
	if (in.res == NULL)
		return util_fail_oom(err, archive);
	rc = run(&in, err);
	finish(&in);
	return rc;
}

static int
install_from_url(const char *url, const ps_install_options *options,
    const ps_fetch_options *fetch, const install_indexed *indexed,
    ps_install_result **out, ps_error *err)
{
	struct install in;
	int rc;

	ps_error_clear(err);
	start(&in, url, options);
	in.indexed = indexed;
	in.from_url = 1;
	*out = in.res = calloc(1, sizeof(ps_install_result));
	if (in.res == NULL)
		return util_fail_oom(err, "URL");
	rc = install_download_prepare(url, fetch, options->verify.sig_path,
	    &in.dl, err);
	if (rc == 0) {
		in.archive = in.dl.label;
		rc = run(&in, err);
	}
	finish(&in);
	return rc;
}

int
ps_install_url(const char *url, const ps_install_options *options,
    const ps_fetch_options *fetch, ps_install_result **out, ps_error *err)
{
	return install_from_url(url, options, fetch, NULL, out, err);
}

void
ps_index_install_options_init(ps_index_install_options *o)
{
	memset(o, 0, sizeof(*o));
	o->record_state = 1;
}

/* ps_install_indexed_dir(): DIR/NAME, NAME the file name of an entry's
 * URL (its archive's or a bundle's). */
static int
entry_file(const char *url, const char *dir, char **path, ps_error *err)
{
	char *name = NULL;
	int rc;

	if (net_url_name(url, &name, err) != 0)
		return -1;
	rc = util_path_check(name, url, err) != 0 ||
	    strchr(name, '/') != NULL ? -1 : 0;
	if (rc != 0) {
		util_refuse(err, "url_name_invalid", url, "took "
		    "the file name from the entry's URL: it breaks "
		    "the name rules");
		util_error_expect(err, "a file name under the name rules", name);
	} else if (asprintf(path, "%s/%s", dir, name) < 0) {
		*path = NULL;
		rc = util_fail_oom(err, dir);
	}
	free(name);
	return rc;
}

static void
free_names(size_t n, char **names)
{
	size_t i;

	for (i = 0; names != NULL && i < n; i++)
		free(names[i]);
	free(names);
}

/* The entry's bundles as DIR/NAME files (verify.bundle_paths, freed
 * with free_names()), none when it lists none. */
static int
entry_bundles(const ps_index_entry *e, const char *dir,
    ps_install_options *o, ps_error *err)
{
	char **names;
	size_t i;

	o->verify.bundle_paths = NULL;
	o->verify.bundle_count = 0;
	if (e->bundle_count == 0)
		return 0;
	if ((names = calloc(e->bundle_count, sizeof(*names))) == NULL)
		return util_fail_oom(err, e->archive_url);
	o->verify.bundle_paths = (const char *const *)names;
	for (i = 0; i < e->bundle_count; i++) {
		if (entry_file(e->bundle_urls[i], dir, &names[i], err) != 0)
			return -1;
	}
	o->verify.bundle_count = e->bundle_count;
	return 0;
}

int
ps_install_indexed_dir(const ps_index *index, const ps_index_entry *entry,
    const ps_index_install_options *index_options,
    const ps_install_options *options, const char *dir,
    ps_install_result **out, ps_error *err)
{
	ps_index_install_options defaults;
	install_indexed x = { index, entry, index_options };
	ps_install_options o;
	struct install in;
	char *path = NULL;
	int rc;

	ps_error_clear(err);
	*out = NULL;
	if (index_options == NULL) {
		ps_index_install_options_init(&defaults);
		x.o = &defaults;
	}
	if (options->verify.sig_path != NULL ||
	    options->verify.bundle_count > 0)
		return util_fail(err, "invalid_argument", entry->archive_url,
		    "an index entry's signature is the one beside its archive, "
		    "or its bundles: verify.sig_path and bundle_paths must be "
		    "unset");
	if (install_indexed_entry(index, entry, x.o->allow_yanked, &x.entry,
	    err) != 0 || entry_file(x.entry->archive_url, dir, &path, err) != 0)
		return -1;
	o = *options;
	rc = entry_bundles(x.entry, dir, &o, err);
	start(&in, path, &o);
	in.indexed = &x;
	*out = in.res = calloc(1, sizeof(ps_install_result));
	if (rc == 0)
		rc = in.res != NULL ? run(&in, err) : util_fail_oom(err, path);
	finish(&in);
	free(path);
	free_names(x.entry->bundle_count, (char **)o.verify.bundle_paths);
	return rc;
}

/* The entry's archive, capped at its exact size: a longer, shorter or
 * other body is index_mismatch. */
int
ps_install_indexed(const ps_index *index, const ps_index_entry *entry,
    const ps_index_install_options *index_options,
    const ps_install_options *options, const ps_fetch_options *fetch,
    ps_install_result **out, ps_error *err)
{
	ps_index_install_options defaults;
	install_indexed x = { index, entry, index_options };
	ps_install_options o;
	ps_fetch_options capped;

	*out = NULL;
	if (index_options == NULL) {
		ps_index_install_options_init(&defaults);
		x.o = &defaults;
	}
	if (options->verify.sig_path != NULL ||
	    options->verify.bundle_count > 0)
		return util_fail(err, "invalid_argument", entry->archive_url,
		    "an index entry's signature is the one beside its archive "
		    "URL, or its bundles: verify.sig_path and bundle_paths must "
		    "be unset");
	if (install_indexed_entry(index, entry, x.o->allow_yanked, &x.entry,
	    err) != 0)
		return -1;
	entry = x.entry;
	if (install_indexed_fetch_options(entry, fetch, &capped, err) != 0)
		return -1;
	o = *options;
	o.verify.bundle_paths = (const char *const *)entry->bundle_urls;
	o.verify.bundle_count = entry->bundle_count;
	return install_from_url(entry->archive_url, &o, &capped, &x, out, err);
}
