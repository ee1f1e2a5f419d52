/*
 * Pins (docs/formats/install.md, "Pins"): the first install of an id
 * records who signed it and where it was built, DIR/pins/<layout dir>/
 * <id>.json; every later install of that id must be signed by a pinned
 * identity with its pinned key and come from the pinned repository, or
 * be allowed to change them.  Trust on first use, as ssh's known_hosts:
 * a policy that trusts two publishers for "*" no longer lets the second
 * one take over the first one's pack unnoticed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "install/pins.h"
#include "sign/dsse.h"
#include "util/error.h"
#include "util/fdio.h"
#include "util/pathname.h"
#include "util/strings.h"

#define PINS_VERSION 1
#define PINS_MAX_BYTES (64 * 1024)
#define PINS_WORK_NAME "pins.json"

void
ps_pins_free(ps_pins *p)
{
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < p->signer_count; i++) {
		free(p->signers[i].identity);
		free(p->signers[i].fingerprint);
	}
	free(p->signers);
	free(p->id);
	free(p->version);
	free(p->source_repository);
	free(p);
}

int
install_pins_path(ps_format format, const char *id, char *out, size_t size,
    ps_error *err)
{
	char *rel = NULL;
	char *slash;

	/* The layout path checks every component of the id. */
	if (install_layout_path(format, id, "0", &rel, err) != 0)
		return -1;
	slash = strrchr(rel, '/');
	*slash = '\0';
	snprintf(out, size, "%s/%s.json", INSTALL_DATADIR_PINS, rel);
	free(rel);
	return 0;
}

/* --------------------------------------------------------------- reading */

static int
take_string(json_t *obj, const char *key, int nullable, char **out)
{
	json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (nullable && (v == NULL || json_is_null(v)))
		return 0;
	if (!json_is_string(v) || strlen(json_string_value(v)) !=
	    json_string_length(v))
		return -1;
	return (*out = strdup(json_string_value(v))) == NULL ? -1 : 0;
}

static int
take_signers(json_t *list, ps_pins *p)
{
	size_t i, n = json_array_size(list);
	json_t *j;

	if (!json_is_array(list) || n == 0 || n > SIGN_DSSE_MAX_SIGNATURES ||
	    (p->signers = calloc(n, sizeof(*p->signers))) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		j = json_array_get(list, i);
		p->signer_count++;
		if (!json_is_object(j) ||
		    take_string(j, "identity", 0, &p->signers[i].identity) != 0 ||
		    take_string(j, "fingerprint", 0,
		    &p->signers[i].fingerprint) != 0)
			return -1;
	}
	return 0;
}

static int
take_pins(json_t *root, ps_pins *p)
{
	json_t *v = json_object_get(root, "packsignPins");
	json_t *source = json_object_get(root, "source");
	char *format = NULL;
	int rc;

	if (!json_is_integer(v) || json_integer_value(v) != PINS_VERSION ||
	    take_string(root, "format", 0, &format) != 0)
		return -1;
	rc = ps_format_parse(format, &p->format);
	free(format);
	if (rc != 0 || take_string(root, "id", 0, &p->id) != 0 ||
	    take_string(root, "version", 0, &p->version) != 0 ||
	    take_signers(json_object_get(root, "signers"), p) != 0)
		return -1;
	if (json_is_null(source))
		return 0;
	return json_is_object(source) ? take_string(source, "repository", 1,
	    &p->source_repository) : -1;
}

int
install_pins_parse(const char *text, size_t len, const char *label, ps_pins **out,
    ps_error *err)
{
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
	ps_pins *p = calloc(1, sizeof(*p));
	int rc = root != NULL && p != NULL && json_is_object(root) &&
	    take_pins(root, p) == 0 ? 0 : -1;

	json_decref(root);
	if (rc == 0) {
		*out = p;
		return 0;
	}
	ps_pins_free(p);
	if (p == NULL)
		return util_fail_oom(err, label);
	return util_refuse(err, "pins_invalid", label, "read the pins of an "
	    "installed id: expected a JSON object with packsignPins 1, "
	    "format, id, version, signers (1 to 64 identity and fingerprint "
	    "objects) and source (null or a repository)");
}

/* The pins file `rel`; *out NULL when there is none. */
static int
load_file(const install_datadir *dd, const char *rel, ps_pins **out,
    ps_error *err)
{
	char text[PINS_MAX_BYTES + 1], label[UTIL_PATH_MAX * 2];
	ssize_t n;
	int fd;

	*out = NULL;
	snprintf(label, sizeof(label), "%s/%s", dd->path, rel);
	fd = util_open_beneath(dd->fd, rel, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT ? 0 : util_fail_errno(err, "io_error",
		    label, "open", errno);
	n = util_read_full(fd, text, sizeof(text));
	close(fd);
	if (n < 0)
		return util_fail_errno(err, "io_error", label, "read", errno);
	if ((size_t)n > PINS_MAX_BYTES)
		return util_refuse(err, "pins_invalid", label, "is larger than "
		    "%d bytes", PINS_MAX_BYTES);
	return install_pins_parse(text, (size_t)n, label, out, err);
}

/* Whether the version `p` was staged by has its tree in place: the
 * rename that commits an install happened. */
static int
staged_installed(const install_datadir *dd, const ps_pins *p)
{
	struct stat st;
	char *rel = NULL;
	ps_error ignored;
	int rc;

	if (install_layout_path(p->format, p->id, p->version, &rel,
	    &ignored) != 0)
		return 0;
	rc = fstatat(dd->fd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode);
	free(rel);
	return rc;
}

/* The pins in `rel` must be those of `format` and `id`. */
static int
check_named(int rc, ps_format format, const char *id,
    const install_datadir *dd, const char *rel, ps_pins **out, ps_error *err)
{
	char label[UTIL_PATH_MAX * 2];

	if (rc != 0 || *out == NULL || ((*out)->format == format &&
	    strcmp((*out)->id, id) == 0))
		return rc;
	ps_pins_free(*out);
	*out = NULL;
	snprintf(label, sizeof(label), "%s/%s", dd->path, rel);
	util_refuse(err, "pins_invalid", label, "read the pins of an installed "
	    "id: they must be the pins of the id their path names");
	return util_error_expect(err, id, "another id or format");
}

/* Where the pins of `id` live: the directory, opened (not created), and
 * the names in it of the pins and of their stage. */
struct pins_place {
	char rel[UTIL_PATH_MAX];     /* pins/<layout dir>/<id>.json */
	char next[UTIL_PATH_MAX + 8];
	const char *leaf;
	int fd;
};

/* 0 with `pl` open; 1 when the directory does not exist (no pins); -1. */
static int
pins_place_open(const install_datadir *dd, ps_format format, const char *id,
    struct pins_place *pl, ps_error *err)
{
	if (install_pins_path(format, id, pl->rel, sizeof(pl->rel), err) != 0)
		return -1;
	if ((pl->fd = util_open_parent_beneath(dd->fd, pl->rel, &pl->leaf)) < 0)
		return errno == ENOENT ? 1 : util_fail_errno(err, "io_error",
		    pl->rel, "open", errno);
	snprintf(pl->next, sizeof(pl->next), "%s.next", pl->leaf);
	return 0;
}

int
install_pins_discard(const install_datadir *dd, ps_format format,
    const char *id, ps_error *err)
{
	struct pins_place pl;
	int rc = pins_place_open(dd, format, id, &pl, err);

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	if (unlinkat(pl.fd, pl.next, 0) != 0 && errno != ENOENT)
		rc = util_fail_errno(err, "io_error", pl.rel, "remove", errno);
	close(pl.fd);
	return rc;
}

/*
 * Staged pins (".next") are the current ones once their version's tree
 * is in place, whether or not the rename of ".next" over the pins that
 * follows it happened: so the pins change at the same instant as the
 * newest version, whatever syscall a kill interrupted.
 */
int
install_pins_load(const install_datadir *dd, ps_format format,
    const char *id, ps_pins **out, ps_error *err)
{
	char rel[UTIL_PATH_MAX], next[UTIL_PATH_MAX + 8];
	ps_pins *staged = NULL;

	*out = NULL;
	if (install_pins_path(format, id, rel, sizeof(rel), err) != 0)
		return -1;
	snprintf(next, sizeof(next), "%s.next", rel);
	if (load_file(dd, next, &staged, err) != 0) {
		if (err->status != PS_STATUS_REFUSED)
			return -1;
		ps_error_clear(err);    /* a torn stage is no pins */
	}
	if (staged != NULL && staged->format == format &&
	    strcmp(staged->id, id) == 0 && staged_installed(dd, staged)) {
		/* Under the lock, finish what a killed run left staged. */
		if (dd->lock_fd >= 0 &&
		    install_pins_commit(dd, format, id, err) != 0)
			ps_error_clear(err);
		*out = staged;
		return 0;
	}
	ps_pins_free(staged);
	/* Under the lock, a stage whose tree never appeared is thrown away
	 * now: a later install of that version must not make it current. */
	if (dd->lock_fd >= 0 && install_pins_discard(dd, format, id, err) != 0)
		return -1;
	return check_named(load_file(dd, rel, out, err), format, id, dd, rel,
	    out, err);
}

int
ps_pins_load(const char *data_dir, ps_format format, const char *id,
    ps_pins **out, ps_error *err)
{
	install_datadir dd;
	int rc;

	*out = NULL;
	rc = install_datadir_open(data_dir, 0, &dd, err);
	if (rc != 0 && ps_error_is(err, PS_CODE_NOT_FOUND)) {
		ps_error_clear(err);
		rc = 0;
	} else if (rc == 0) {
		rc = install_pins_load(&dd, format, id, out, err);
	}
	install_datadir_close(&dd);
	return rc;
}

/* --------------------------------------------------------------- writing */

static json_t *
pins_json(const ps_pins *p, const char *at)
{
	json_t *signers = json_array();
	size_t i;

	for (i = 0; i < p->signer_count; i++)
		json_array_append_new(signers, json_pack("{s:s,s:s}", "identity",
		    p->signers[i].identity, "fingerprint",
		    p->signers[i].fingerprint));
	return json_pack("{s:i,s:s,s:s,s:s,s:s,s:o,s:o}", "packsignPins",
	    PINS_VERSION, "format", ps_format_name(p->format), "id", p->id,
	    "version", p->version, "pinnedAt", at, "signers", signers, "source",
	    p->source_repository != NULL ? json_pack("{s:s}", "repository",
	    p->source_repository) : json_null());
}

/* W/pins.json, synced. */
static int
write_work_file(int work_fd, const ps_pins *p, const char *at,
    const char *label, ps_error *err)
{
	json_t *j = pins_json(p, at);
	char *text = j != NULL ? json_dumps(j, JSON_SORT_KEYS |
	    JSON_INDENT(1)) : NULL;
	int fd, rc;

	json_decref(j);
	if (text == NULL)
		return util_fail_oom(err, label);
	fd = openat(work_fd, PINS_WORK_NAME, O_WRONLY | O_CREAT | O_TRUNC |
	    O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		free(text);
		return util_fail_errno(err, "io_error", label, "create", errno);
	}
	rc = util_write_all(fd, text, strlen(text), label, err);
	free(text);
	if (rc == 0 && fsync(fd) != 0)
		rc = util_fail_errno(err, "io_error", label, "fsync", errno);
	if (close(fd) != 0 && rc == 0)
		rc = util_fail_errno(err, "io_error", label, "close", errno);
	return rc;
}

/* Written in the work directory `work_fd`, then renamed to
 * "<id>.json.next" beside the pins, and that directory synced. */
int
install_pins_stage(const install_datadir *dd, int work_fd, const ps_pins *p,
    int64_t now, ps_error *err)
{
	char base[UTIL_PATH_MAX], rel[UTIL_PATH_MAX + 8], at[PS_TIME_TEXT_LEN];
	int dir_fd, rc = 0;
	char *slash;

	if (install_pins_path(p->format, p->id, base, sizeof(base), err) != 0)
		return -1;
	if (ps_time_format(now, at) != 0)
		return util_fail(err, "invalid_argument", p->id, "install time "
		    "out of range");
	snprintf(rel, sizeof(rel), "%s.next", base);
	if (write_work_file(work_fd, p, at, rel, err) != 0)
		return -1;
	slash = strrchr(rel, '/');
	*slash = '\0';
	if ((dir_fd = util_mkdir_beneath(dd->fd, rel, 0755, NULL)) < 0)
		return util_fail_errno(err, "io_error", rel, "mkdir", errno);
	if (renameat(work_fd, PINS_WORK_NAME, dir_fd, slash + 1) != 0)
		rc = util_fail_errno(err, "io_error", rel, "rename", errno);
	else if (fsync(dir_fd) != 0)
		rc = util_fail_errno(err, "io_error", rel, "fsync", errno);
	close(dir_fd);
	return rc;
}

/* The staged pins become the pins (after the tree's rename). */
int
install_pins_commit(const install_datadir *dd, ps_format format,
    const char *id, ps_error *err)
{
	struct pins_place pl;
	int rc = pins_place_open(dd, format, id, &pl, err);

	if (rc != 0)
		return rc < 0 ? -1 : util_fail_errno(err, "io_error", pl.rel,
		    "open", ENOENT);
	if (renameat(pl.fd, pl.next, pl.fd, pl.leaf) != 0)
		rc = util_fail_errno(err, "io_error", pl.rel, "rename", errno);
	else if (fsync(pl.fd) != 0)
		rc = util_fail_errno(err, "io_error", pl.rel, "fsync", errno);
	close(pl.fd);
	return rc;
}

int
install_pins_forget(const install_datadir *dd, ps_format format,
    const char *id, ps_error *err)
{
	struct pins_place pl;
	int rc = pins_place_open(dd, format, id, &pl, err);

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	if ((unlinkat(pl.fd, pl.next, 0) != 0 && errno != ENOENT) ||
	    (unlinkat(pl.fd, pl.leaf, 0) != 0 && errno != ENOENT))
		rc = util_fail_errno(err, "io_error", pl.rel, "remove", errno);
	close(pl.fd);
	return rc;
}

/* Forgets the pins of `id` in `format`, if it has any. */
static int
forget_one(install_datadir *dd, ps_format format, const char *id,
    int *forgot, ps_error *err)
{
	char rel[UTIL_PATH_MAX];
	ps_pins *p = NULL;
	ps_error ignored;

	/* An id this format cannot hold has no pins in it. */
	if (install_pins_path(format, id, rel, sizeof(rel), &ignored) != 0)
		return 0;
	if (install_pins_load(dd, format, id, &p, err) != 0) {
		if (!ps_error_is(err, PS_CODE_PINS_INVALID))
			return -1;
		*forgot = 1;            /* damaged pins are pins too */
	}
	ps_error_clear(err);
	*forgot |= p != NULL;
	ps_pins_free(p);
	return install_pins_forget(dd, format, id, err);
}

int
ps_pins_forget(const char *data_dir, ps_format format, const char *id,
    int *forgot, ps_error *err)
{
	static const ps_format all[] = { PS_FORMAT_SOYAPACK, PS_FORMAT_HOLON,
	    PS_FORMAT_AUTOGRAPH, PS_FORMAT_AGENTPACK };
	install_datadir dd;
	int any = 0, rc;
	size_t i;

	rc = install_datadir_open(data_dir, 0, &dd, err);
	if (rc != 0 && ps_error_is(err, PS_CODE_NOT_FOUND)) {
		ps_error_clear(err);
		rc = 1;
	}
	if (rc == 0)
		rc = install_datadir_lock(&dd, NULL, NULL, err);
	for (i = 0; rc == 0 && i < sizeof(all) / sizeof(all[0]); i++) {
		if (format == PS_FORMAT_UNKNOWN || format == all[i])
			rc = forget_one(&dd, all[i], id, &any, err);
	}
	install_datadir_close(&dd);
	if (forgot != NULL)
		*forgot = any;
	return rc < 0 ? -1 : 0;
}
