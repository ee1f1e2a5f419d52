/*
 * Git provenance: repository discovery, origin URL normalisation, the
 * dirty check restricted to the pack, and the holon source.ref rule.
 * Every entry point opens libgit2 for its own work (dynlib/git.h) and
 * closes it before it returns: a pack verified without provenance never
 * loads it.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dynlib/git.h"
#include "pack/ignore.h"
#include "sign/provenance.h"
#include "pack/walk.h"
#include "util/error.h"
#include "util/hostname.h"
#include "util/pathname.h"

/* What needs libgit2, for library_missing. */
#define GIT_PURPOSE "reading the pack's git repository (provenance)"

int
sign_git_failed(const dynlib_git *g, ps_error *err, const char *subject,
    const char *what)
{
	const git_error *e = g->error_last();

	return util_fail(err, "git_error", subject, "%s: %s", what,
	    e != NULL && e->message != NULL ? e->message : "libgit2 failed");
}

/* ------------------------------------------------------ URL normalising */

struct url_parts {
	char scheme[8];            /* "https", "ssh", "git", "scp" */
	const char *host;
	size_t host_len;
	const char *port;          /* digits, or NULL */
	size_t port_len;
	const char *path;          /* after the host's '/' or ':' */
};

/* `shown`: the URL as messages may show it (shown_form()). */
static int
url_refuse(ps_error *err, const char *shown, const char *why)
{
	util_refuse(err, "source_url_invalid", "repository URL",
	    "cannot normalise the repository URL: %s", why);
	return util_error_expect(err, "https://, ssh://, git:// or "
	    "[user@]host:path", shown);
}

/*
 * The URL as a message may show it: everything before the last '@' (user
 * information: a token in https://TOKEN@host or https://user:TOKEN@host,
 * even where a stray '/' in it hides the authority's end) and everything
 * from a '?' or '#' on (a query may carry a token too) replaced by "***",
 * so that no byte of a credential reaches a message, whatever else is
 * wrong with the URL.
 */
static void
shown_form(const char *url, char *out, size_t size)
{
	const char *sep = strstr(url, "://"), *start = url, *at = NULL, *c;
	size_t cut = strcspn(url, "?#"), used;

	for (c = url; c < url + cut; c++) {
		if (*c == '@')
			at = c;
	}
	if (at != NULL && sep != NULL && sep < at)
		start = sep + 3;
	if (at != NULL)
		snprintf(out, size, "%.*s***%.*s", (int)(start - url), url,
		    (int)(url + cut - at), at);
	else
		snprintf(out, size, "%.*s", (int)cut, url);
	used = strlen(out);
	if (url[cut] != '\0' && used + 4 < size)
		snprintf(out + used, size - used, "%c***", url[cut]);
}

/* Splits "[userinfo@]host[:port]" ending at `end`; the user information
 * is skipped (dropped from the result). */
static int
split_authority(struct url_parts *p, const char *start, const char *end,
    int colon_is_port)
{
	const char *at = NULL, *c, *colon;

	for (c = start; c < end; c++) {
		if (*c == '@')
			at = c;
	}
	if (at != NULL)
		start = at + 1;
	colon = colon_is_port ? memchr(start, ':', (size_t)(end - start)) : NULL;
	p->host = start;
	p->host_len = (size_t)((colon != NULL ? colon : end) - start);
	if (colon != NULL) {
		p->port = colon + 1;
		p->port_len = (size_t)(end - colon - 1);
	}
	return 0;
}

static int
split_url(struct url_parts *p, const char *url, const char *shown,
    ps_error *err)
{
	const char *sep = strstr(url, "://"), *slash, *colon;
	size_t n;

	memset(p, 0, sizeof(*p));
	if (sep != NULL) {
		n = (size_t)(sep - url);
		if (n >= sizeof(p->scheme))
			return url_refuse(err, shown, "unsupported scheme");
		for (size_t i = 0; i < n; i++)
			p->scheme[i] = (char)tolower((unsigned char)url[i]);
		slash = strchr(sep + 3, '/');
		if (slash == NULL)
			return url_refuse(err, shown, "no repository path");
		split_authority(p, sep + 3, slash, 1);
		p->path = slash + 1;
		return 0;
	}
	colon = strchr(url, ':');
	slash = strchr(url, '/');
	if (colon == NULL || (slash != NULL && slash < colon) || colon == url)
		return url_refuse(err, shown, "a local path, not a remote URL");
	strcpy(p->scheme, "scp");
	split_authority(p, url, colon, 0);
	p->path = colon + 1;
	return 0;
}

static int
check_host(const struct url_parts *p, const char *shown, ps_error *err)
{
	size_t len = p->host_len;

	/* A fully qualified "github.com." names the same host, as
	 * formats/url.c also reads it. */
	if (len > 1 && p->host[len - 1] == '.')
		len--;
	if (!util_hostname_valid(p->host, len))
		return url_refuse(err, shown, "bad host name");
	return 0;
}

/* Only https keeps its port, and not the default 443. */
static int
https_port(const struct url_parts *p, const char *shown, long *port,
    ps_error *err)
{
	size_t i;
	long v = 0;

	*port = 0;
	if (p->port == NULL)
		return 0;
	if (p->port_len == 0 || p->port_len > 5)
		return url_refuse(err, shown, "bad port");
	for (i = 0; i < p->port_len; i++) {
		if (!isdigit((unsigned char)p->port[i]))
			return url_refuse(err, shown, "bad port");
		v = v * 10 + (p->port[i] - '0');
	}
	if (v < 1 || v > 65535)
		return url_refuse(err, shown, "bad port");
	if (strcmp(p->scheme, "https") == 0 && v != 443)
		*port = v;
	return 0;
}

static int
path_char_ok(char c)
{
	return isalnum((unsigned char)c) || strchr("._~+-/", c) != NULL;
}

/* Strips '/'s, then ".git", then '/'s; checks components. */
static int
clean_path(const char *path, const char *shown, char **out, ps_error *err)
{
	size_t len, i, start;

	while (*path == '/')
		path++;
	len = strlen(path);
	while (len > 0 && path[len - 1] == '/')
		len--;
	if (len >= 4 && memcmp(path + len - 4, ".git", 4) == 0)
		len -= 4;
	while (len > 0 && path[len - 1] == '/')
		len--;
	if (len == 0)
		return url_refuse(err, shown, "no repository path");
	for (i = 0, start = 0; i <= len; i++) {
		if (i < len && !path_char_ok(path[i]))
			return url_refuse(err, shown, "a character outside "
			    "[A-Za-z0-9._~+-/] in the path (query, fragment, "
			    "space or escape)");
		if (i < len && path[i] != '/')
			continue;
		if (i == start || (i - start == 1 && path[start] == '.') ||
		    (i - start == 2 && path[start] == '.' && path[start + 1] == '.'))
			return url_refuse(err, shown, "an empty, '.' or '..' path "
			    "component");
		start = i + 1;
	}
	*out = strndup(path, len);
	return *out == NULL ? util_fail_oom(err, NULL) : 0;
}

static int
known_scheme(const char *scheme)
{
	return strcmp(scheme, "https") == 0 || strcmp(scheme, "ssh") == 0 ||
	    strcmp(scheme, "git") == 0 || strcmp(scheme, "scp") == 0;
}

static int
assemble(const struct url_parts *p, long port, const char *path, char **out,
    ps_error *err)
{
	char portbuf[8] = "";
	size_t i;
	int n;

	if (port != 0)
		snprintf(portbuf, sizeof(portbuf), ":%ld", port);
	n = asprintf(out, "https://%.*s%s/%s", (int)p->host_len, p->host,
	    portbuf, path);
	if (n < 0) {
		*out = NULL;
		return util_fail_oom(err, NULL);
	}
	for (i = 8; i < 8 + p->host_len; i++)
		(*out)[i] = (char)tolower((unsigned char)(*out)[i]);
	return 0;
}

/* User information is dropped, never refused: see signature.md section 5,
 * rule 3 (it names no other repository, and so no credential can reach a
 * statement). */
int
sign_git_url_normalize(const char *url, char **out, ps_error *err)
{
	struct url_parts p;
	char *path = NULL, shown[SIGN_GIT_URL_MAX + 8];
	size_t i, len = strlen(url);
	long port;
	int rc;

	*out = NULL;
	if (len == 0 || len > SIGN_GIT_URL_MAX)
		return url_refuse(err, "(empty or too long)", "empty or over 2048 "
		    "bytes");
	for (i = 0; i < len; i++) {
		if ((unsigned char)url[i] <= 0x20 || (unsigned char)url[i] >= 0x7f)
			return url_refuse(err, "(not shown)", "a space, control or "
			    "non-ASCII character");
	}
	shown_form(url, shown, sizeof(shown));
	if (split_url(&p, url, shown, err) != 0)
		return -1;
	if (!known_scheme(p.scheme))
		return url_refuse(err, shown, "unsupported scheme");
	if (check_host(&p, shown, err) != 0 ||
	    https_port(&p, shown, &port, err) != 0 ||
	    clean_path(p.path, shown, &path, err) != 0)
		return -1;
	rc = assemble(&p, port, path, out, err);
	free(path);
	return rc;
}

/* ---------------------------------------------------------- discovery */

void
sign_git_source_free(sign_git_source *src)
{
	if (src == NULL)
		return;
	free(src->workdir);
	free(src->pack_path);
	free(src->origin_url);
	free(src);
}

/* The part of `dir` below `root` (both real paths); NULL when outside. */
static char *
relative_to(const char *root, const char *dir)
{
	size_t n = strlen(root);

	while (n > 1 && root[n - 1] == '/')
		n--;
	if (strncmp(root, dir, n) != 0)
		return NULL;
	if (dir[n] == '\0')
		return strdup("");
	if (dir[n] != '/' && !(n == 1 && root[0] == '/'))
		return NULL;
	return strdup(dir + (dir[n] == '/' ? n + 1 : n));
}

static int
check_pack_path(const char *path, ps_error *err)
{
	char copy[UTIL_PATH_MAX + 1], *part, *save = NULL;

	if (path[0] == '\0')
		return 0;
	if (util_path_check(path, "pack path in repository", err) != 0)
		return -1;
	snprintf(copy, sizeof(copy), "%s", path);
	for (part = strtok_r(copy, "/", &save); part != NULL;
	    part = strtok_r(NULL, "/", &save)) {
		if (pack_is_vcs_name(part))
			return util_refuse(err, "source_path_invalid", path,
			    "the pack is inside the repository's metadata");
	}
	return 0;
}

static int
locate(const dynlib_git *g, sign_git_source *src, git_repository *repo, const char *dir,
    ps_error *err)
{
	char real_dir[PATH_MAX], real_root[PATH_MAX];
	const char *workdir = g->repository_workdir(repo);

	if (realpath(dir, real_dir) == NULL)
		return util_fail_errno(err, "io_error", dir, "realpath", errno);
	if (realpath(workdir, real_root) == NULL)
		return util_fail_errno(err, "io_error", workdir, "realpath", errno);
	src->workdir = strdup(real_root);
	src->pack_path = relative_to(real_root, real_dir);
	if (src->workdir == NULL)
		return util_fail_oom(err, NULL);
	if (src->pack_path == NULL)
		return util_refuse(err, "source_path_invalid", dir,
		    "the directory is not inside the work tree %s", real_root);
	return check_pack_path(src->pack_path, err);
}

static int
read_head(const dynlib_git *g, sign_git_source *src, git_repository *repo, ps_error *err)
{
	git_oid oid;
	int rc = g->repository_head_unborn(repo);

	if (rc == 1)
		return util_refuse(err, "source_no_commit", src->workdir,
		    "the repository has no commit yet; commit the pack first");
	if (rc < 0 || g->reference_name_to_id(&oid, repo, "HEAD") != 0)
		return sign_git_failed(g, err, src->workdir, "read HEAD");
	g->oid_tostr(src->commit, sizeof(src->commit), &oid);
	return 0;
}

/* An origin that cannot be recorded: say so, and name the way out. */
static int
origin_refused(ps_error *err)
{
	char message[PS_ERROR_TEXT_MAX];
	int n;

	snprintf(err->subject, sizeof(err->subject), "origin");
	n = snprintf(message, sizeof(message), "%s; sign with --source-repo "
	    "https://HOST/PATH to record the repository (origin is then not "
	    "read)", err->message);
	if (n > 0)         /* a cut message still says what was checked */
		memcpy(err->message, message, sizeof(err->message));
	return -1;
}

/*
 * The configured remote.origin.url, read from a config snapshot:
 * git_remote_lookup() in libgit2 1.5 leaks PCRE2 match data, and the
 * configured URL (before url.*.insteadOf rewriting) is what names the
 * repository.
 */
static int
read_origin(const dynlib_git *g, sign_git_source *src, git_repository *repo, ps_error *err)
{
	git_config *cfg = NULL;
	const char *url = NULL;
	int rc;

	if (g->repository_config_snapshot(&cfg, repo) != 0)
		return sign_git_failed(g, err, src->workdir, "read the repository config");
	rc = g->config_get_string(&url, cfg, "remote.origin.url");
	if (rc == GIT_ENOTFOUND)
		rc = 0;
	else if (rc != 0)
		rc = sign_git_failed(g, err, src->workdir, "read remote.origin.url");
	else if (sign_git_url_normalize(url, &src->origin_url, err) != 0)
		rc = origin_refused(err);
	g->config_free(cfg);
	return rc;
}

/* The non-bare repository containing `dir`, or NULL when there is none. */
static int
open_containing(const dynlib_git *g, const char *dir, git_repository **repo, ps_error *err)
{
	git_buf root = { NULL, 0, 0 };
	int rc = g->repository_discover(&root, dir, 0, NULL);

	*repo = NULL;
	if (rc == GIT_ENOTFOUND)
		return 0;
	if (rc != 0)
		return sign_git_failed(g, err, dir, "find the git repository");
	rc = g->repository_open(repo, root.ptr);
	g->buf_dispose(&root);
	if (rc != 0)
		return util_fail(err, "repository_unavailable", dir,
		    "cannot open the git repository: %s",
		    dynlib_git_message(g));
	if (g->repository_is_bare(*repo)) {
		g->repository_free(*repo);
		*repo = NULL;
	}
	return 0;
}

static int
discover_in(const dynlib_git *g, const char *dir, int want_origin,
    sign_git_source **out, ps_error *err)
{
	git_repository *repo = NULL;
	sign_git_source *src;
	int rc;

	rc = open_containing(g, dir, &repo, err);
	if (rc != 0 || repo == NULL)
		return rc;
	src = calloc(1, sizeof(*src));
	if (src == NULL) {
		g->repository_free(repo);
		return util_fail_oom(err, NULL);
	}
	rc = locate(g, src, repo, dir, err);
	if (rc == 0)
		rc = read_head(g, src, repo, err);
	if (rc == 0 && want_origin)
		rc = read_origin(g, src, repo, err);
	g->repository_free(repo);
	if (rc != 0)
		sign_git_source_free(src);
	else
		*out = src;
	return rc;
}

int
sign_git_discover(const char *dir, int want_origin, sign_git_source **out,
    ps_error *err)
{
	dynlib_git git;
	int rc;

	*out = NULL;
	if (dynlib_git_open(&git, GIT_PURPOSE, err) != 0)
		return -1;
	rc = discover_in(&git, dir, want_origin, out, err);
	dynlib_git_close(&git);
	return rc;
}

/* ------------------------------------------------------------ dirty */

struct dirty {
	const dynlib_git *g;
	const sign_git_source *src;
	pack_ignore *ignore;
	size_t count;
	char shown[PS_ERROR_TEXT_MAX];
};

/* 0 when `packpath` names something `packsign pack` would leave out. */
static int
would_pack(const pack_ignore *ignore, const char *packpath)
{
	char *nfc = util_path_nfc(packpath, strlen(packpath)), *start, *slash;
	int packed = 1;

	if (nfc == NULL)
		return 1;
	if (ps_format_by_manifest(nfc) != PS_FORMAT_UNKNOWN ||
	    strcmp(nfc, PACK_IGNORE_FILE) == 0) {
		free(nfc);
		return 1;
	}
	for (start = nfc; ; start = slash + 1) {
		slash = strchr(start, '/');
		if (slash != NULL)
			*slash = '\0';
		if (pack_is_vcs_name(start) ||
		    pack_ignore_match(ignore, nfc, slash != NULL))
			packed = 0;
		if (slash == NULL || !packed)
			break;
		*slash = '/';
	}
	free(nfc);
	return packed;
}

static const char *
status_path(const git_status_entry *e)
{
	const git_diff_delta *d = e->index_to_workdir != NULL ?
	    e->index_to_workdir : e->head_to_index;

	if (d == NULL)
		return NULL;
	return d->new_file.path != NULL ? d->new_file.path : d->old_file.path;
}

static void
note_dirty(struct dirty *d, const char *path)
{
	size_t used = strlen(d->shown);

	d->count++;
	if (d->count <= SIGN_GIT_DIRTY_SHOWN)
		snprintf(d->shown + used, sizeof(d->shown) - used, "%s%s",
		    used > 0 ? ", " : "", path);
}

static void
scan_status(struct dirty *d, git_status_list *list)
{
	const char *pack = d->src->pack_path, *path, *rel;
	const git_status_entry *e;
	size_t i, n = d->g->status_list_entrycount(list);

	for (i = 0; i < n; i++) {
		e = d->g->status_byindex(list, i);
		path = e != NULL ? status_path(e) : NULL;
		if (path == NULL || e->status == GIT_STATUS_CURRENT)
			continue;
		if (pack[0] != '\0' && !util_path_is_under(path, pack))
			continue;
		rel = pack[0] == '\0' ? path : path + strlen(pack) + 1;
		if (strcmp(path, pack) == 0 || !would_pack(d->ignore, rel))
			continue;
		note_dirty(d, path);
	}
}

static int
status_of(struct dirty *d, git_repository *repo, ps_error *err)
{
	const dynlib_git *g = d->g;
	git_status_options opts;
	git_status_list *list = NULL;
	char *spec = (char *)d->src->pack_path;

	if (g->status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION) != 0)
		return sign_git_failed(g, err, d->src->workdir, "git status");

	opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED |
	    GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS | GIT_STATUS_OPT_INCLUDE_IGNORED |
	    GIT_STATUS_OPT_RECURSE_IGNORED_DIRS |
	    GIT_STATUS_OPT_DISABLE_PATHSPEC_MATCH;
	if (spec[0] != '\0') {
		opts.pathspec.strings = &spec;
		opts.pathspec.count = 1;
	}
	if (g->status_list_new(&list, repo, &opts) != 0)
		return sign_git_failed(g, err, d->src->workdir, "git status");
	scan_status(d, list);
	g->status_list_free(list);
	return 0;
}

static int
load_pack_ignore(struct dirty *d, ps_error *err)
{
	char *dir = NULL;
	int fd, rc;

	if (asprintf(&dir, "%s/%s", d->src->workdir, d->src->pack_path) < 0)
		return util_fail_oom(err, NULL);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		rc = util_fail_errno(err, "io_error", dir, "open", errno);
		free(dir);
		return rc;
	}
	free(dir);
	rc = pack_ignore_load(fd, &d->ignore, err);
	close(fd);
	return rc;
}

static int
check_clean_in(struct dirty *d, int *dirty, ps_error *err)
{
	const dynlib_git *g = d->g;
	git_repository *repo = NULL;
	int rc;

	if (load_pack_ignore(d, err) != 0)
		return -1;
	if (g->repository_open(&repo, d->src->workdir) != 0)
		return util_fail(err, "repository_unavailable", d->src->workdir,
		    "cannot open the git repository");
	rc = status_of(d, repo, err);
	g->repository_free(repo);
	if (rc != 0 || d->count == 0)
		return rc;
	*dirty = 1;
	util_refuse(err, "source_dirty", d->src->pack_path[0] != '\0' ?
	    d->src->pack_path : d->src->workdir,
	    "%zu file%s inside the pack differ%s from commit %.12s (modified, "
	    "staged, deleted, untracked or ignored): %s%s; commit them, or sign "
	    "with --allow-dirty", d->count, d->count == 1 ? "" : "s",
	    d->count == 1 ? "s" : "", d->src->commit, d->shown,
	    d->count > SIGN_GIT_DIRTY_SHOWN ? ", ..." : "");
	return util_error_expect(err, "a clean pack directory", "changes");
}

int
sign_git_check_clean(const sign_git_source *src, int *dirty, ps_error *err)
{
	dynlib_git git;
	struct dirty d;
	int rc;

	*dirty = 0;
	memset(&d, 0, sizeof(d));
	d.src = src;
	d.g = &git;
	if (dynlib_git_open(&git, GIT_PURPOSE, err) != 0)
		return -1;
	rc = check_clean_in(&d, dirty, err);
	pack_ignore_free(d.ignore);
	dynlib_git_close(&git);
	return rc;
}

/* ------------------------------------------------------------ holon ref */

static int
parse_oid(const dynlib_git *g, git_oid *oid, const char *hex, const char *what, const char *code,
    ps_error *err)
{
	size_t i, len = strlen(hex);

	for (i = 0; i < len; i++) {
		if (!((hex[i] >= '0' && hex[i] <= '9') ||
		    (hex[i] >= 'a' && hex[i] <= 'f')))
			break;
	}
	if (len != GIT_OID_HEXSZ || i != len || g->oid_fromstr(oid, hex) != 0) {
		util_refuse(err, code, what, "not a full commit id");
		return util_error_expect(err, "40 lowercase hex digits (this "
		    "libgit2 reads SHA-1 repositories only)", hex);
	}
	return 0;
}

static int
commit_tree(const dynlib_git *g, git_repository *repo, const git_oid *oid, const char *hex,
    git_tree **tree, ps_error *err)
{
	git_commit *commit = NULL;
	int rc = g->commit_lookup(&commit, repo, oid);

	if (rc == GIT_ENOTFOUND)
		return util_fail(err, "commit_missing", hex,
		    "the repository has no such commit (fetch it first)");
	if (rc != 0)
		return sign_git_failed(g, err, hex, "read commit");
	rc = g->commit_tree(tree, commit);
	g->commit_free(commit);
	return rc == 0 ? 0 : sign_git_failed(g, err, hex, "read commit tree");
}

struct holon_diff {
	const char *pack_path;
	char *manifest;           /* <pack_path>/holon.yaml */
	const char *changed;      /* first other change, in the diff */
};

static int
holon_delta(const git_diff_delta *delta, float progress, void *payload)
{
	struct holon_diff *h = payload;
	const char *path = delta->new_file.path != NULL ? delta->new_file.path :
	    delta->old_file.path;

	(void)progress;
	if (h->pack_path[0] != '\0' && !util_path_is_under(path, h->pack_path))
		return 0;
	if (strcmp(path, h->manifest) == 0 && delta->status == GIT_DELTA_MODIFIED)
		return 0;
	h->changed = path;
	return 1;                  /* stop: one is enough to refuse */
}

static int
holon_trees_differ(const dynlib_git *g, git_repository *repo, git_tree *from, git_tree *to,
    struct holon_diff *h, ps_error *err)
{
	git_diff_options opts;
	git_diff *diff = NULL;
	char *spec = (char *)h->pack_path;
	int rc;

	if (g->diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION) != 0)
		return sign_git_failed(g, err, h->pack_path, "diff");
	opts.flags = GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	if (spec[0] != '\0') {
		opts.pathspec.strings = &spec;
		opts.pathspec.count = 1;
	}
	if (g->diff_tree_to_tree(&diff, repo, from, to, &opts) != 0)
		return sign_git_failed(g, err, h->pack_path, "diff");
	rc = g->diff_foreach(diff, holon_delta, NULL, NULL, NULL, h);
	if (rc < 0)
		rc = sign_git_failed(g, err, h->pack_path, "diff");
	else if (h->changed != NULL) {
		util_refuse(err, "holon_ref_changed", h->changed,
		    "changed between source.ref and the signed commit; only "
		    "%s may differ", h->manifest);
		util_error_expect(err, "only the manifest changed", h->changed);
		rc = -1;
	}
	g->diff_free(diff);
	return rc;
}

static int
holon_ancestor(const dynlib_git *g, git_repository *repo, const git_oid *ref, const git_oid *head,
    const char *ref_hex, const char *head_hex, ps_error *err)
{
	int rc = g->graph_descendant_of(repo, head, ref);

	if (rc < 0)
		return sign_git_failed(g, err, ref_hex, "compare commits");
	if (rc == 0) {
		util_refuse(err, "holon_ref_not_ancestor", "source.ref",
		    "the manifest's source.ref is neither the signed commit nor "
		    "one of its ancestors");
		return util_error_expect(err, head_hex, ref_hex);
	}
	return 0;
}

static int
holon_check(const dynlib_git *g, git_repository *repo, const char *pack_path, const char *ref,
    const char *commit, sign_git_ref_relation *relation, ps_error *err)
{
	struct holon_diff h = { pack_path, NULL, NULL };
	git_oid ref_oid, head_oid;
	git_tree *from = NULL, *to = NULL;
	int rc;

	if (parse_oid(g, &ref_oid, ref, "source.ref", "holon_ref_invalid",
	    err) != 0 || parse_oid(g, &head_oid, commit, "commit", "commit_invalid",
	    err) != 0)
		return -1;
	if (g->oid_equal(&ref_oid, &head_oid)) {
		*relation = SIGN_GIT_REF_SAME;
		return 0;
	}
	if (commit_tree(g, repo, &ref_oid, ref, &from, err) != 0 ||
	    commit_tree(g, repo, &head_oid, commit, &to, err) != 0 ||
	    holon_ancestor(g, repo, &ref_oid, &head_oid, ref, commit, err) != 0) {
		g->tree_free(to);
		g->tree_free(from);
		return -1;
	}
	if (asprintf(&h.manifest, "%s%sholon.yaml", pack_path,
	    pack_path[0] != '\0' ? "/" : "") < 0)
		h.manifest = NULL;
	rc = h.manifest == NULL ? util_fail_oom(err, NULL) :
	    holon_trees_differ(g, repo, from, to, &h, err);
	free(h.manifest);
	g->tree_free(from);
	g->tree_free(to);
	if (rc == 0)
		*relation = SIGN_GIT_REF_ANCESTOR;
	return rc;
}

int
sign_git_check_holon_ref(const char *repo_dir, const char *pack_path,
    const char *ref, const char *commit, sign_git_ref_relation *relation,
    ps_error *err)
{
	dynlib_git git;
	git_repository *repo = NULL;
	int rc;

	if (dynlib_git_open(&git, GIT_PURPOSE, err) != 0)
		return -1;
	if (git.repository_open(&repo, repo_dir) != 0)
		rc = util_fail(err, "repository_unavailable", repo_dir,
		    "cannot open the git repository: %s", dynlib_git_message(&git));
	else
		rc = holon_check(&git, repo, pack_path, ref, commit, relation, err);
	git.repository_free(repo);
	dynlib_git_close(&git);
	return rc;
}
