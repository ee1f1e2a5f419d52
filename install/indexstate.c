/*
 * The client state of signed indexes (docs/formats/install.md, "Index
 * state"): DIR/index-state.json records, per publisher identity, the
 * highest index version this data directory has seen, the SHA-256 of its
 * payload and when it was first seen.  It is what turns an expiring
 * signature into freshness: an older index replayed later is
 * index_rollback, another payload under a seen version index_equivocation.
 * It is written under DIR/.lock, whole, by rename; a damaged file is never
 * reset silently.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "install/datadir.h"
#include "install/indexstate.h"
#include "util/error.h"
#include "util/fdio.h"
#include "util/sha256.h"

#define STATE_VERSION 1
#define STATE_MAX_BYTES (1024 * 1024)
#define STATE_MAX_PUBLISHERS 4096

static int
damaged(const install_datadir *dd, ps_error *err, const char *why)
{
	return util_fail(err, "index_state_invalid", INSTALL_INDEX_STATE,
	    "%s/%s is damaged (%s): rollback cannot be checked.  To reset it "
	    "remove the file; every publisher's index is then trusted on "
	    "first use again (install.md, \"Index state\")", dd->path,
	    INSTALL_INDEX_STATE, why);
}

/* The whole file, NULL when there is none. */
static int
read_state(const install_datadir *dd, json_t **out, ps_error *err)
{
	char *text = malloc(STATE_MAX_BYTES + 1);
	json_error_t jerr;
	struct stat st;
	ssize_t n;
	int fd;

	*out = NULL;
	if (text == NULL)
		return util_fail_oom(err, INSTALL_INDEX_STATE);
	/* Non-blocking: a FIFO put there must not hang every reader. */
	fd = openat(dd->fd, INSTALL_INDEX_STATE, O_RDONLY | O_NOFOLLOW |
	    O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		free(text);
		return errno == ENOENT ? 0 : errno == ELOOP ? damaged(dd, err,
		    "a symbolic link") : util_fail_errno(err, "io_error",
		    INSTALL_INDEX_STATE, "open", errno);
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		free(text);
		return damaged(dd, err, "not a regular file");
	}
	n = util_read_full(fd, text, STATE_MAX_BYTES + 1);
	close(fd);
	if (n >= 0 && n <= STATE_MAX_BYTES)
		*out = json_loadb(text, (size_t)n, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	if (n < 0)
		return util_fail_errno(err, "io_error", INSTALL_INDEX_STATE,
		    "read", errno);
	if (n > STATE_MAX_BYTES)
		return damaged(dd, err, "over 1 MiB");
	if (*out == NULL)
		return damaged(dd, err, jerr.text);
	return 0;
}

static int
seen_from(json_t *o, ps_index_seen *seen)
{
	json_t *v = json_object_get(o, "version");
	const char *sha = json_string_value(json_object_get(o, "index_sha256"));
	const char *at = json_string_value(json_object_get(o, "first_seen"));

	if (!json_is_object(o) || json_object_size(o) != 3 ||
	    !json_is_integer(v) || json_integer_value(v) < 1 ||
	    (uint64_t)json_integer_value(v) > PS_INDEX_VERSION_MAX ||
	    sha == NULL || strncmp(sha, "sha256:", 7) != 0 ||
	    util_hex_decode(sha + 7, seen->payload_sha256, PS_SHA256_LEN) != 0 ||
	    at == NULL || ps_time_parse(at, &seen->first_seen) != 0)
		return -1;
	seen->version = (uint64_t)json_integer_value(v);
	return 0;
}

/* The publishers object of a state file, checked whole. */
static json_t *
publishers_of(json_t *root)
{
	json_t *pubs = json_object_get(root, "publishers"), *v;
	json_t *format = json_object_get(root, "packsign_index_state");
	ps_index_seen seen;
	const char *key;

	if (!json_is_object(root) || json_object_size(root) != 2 ||
	    !json_is_integer(format) || json_integer_value(format) !=
	    STATE_VERSION || !json_is_object(pubs) ||
	    json_object_size(pubs) > STATE_MAX_PUBLISHERS)
		return NULL;
	json_object_foreach(pubs, key, v) {
		if (!ps_identity_valid(key) || seen_from(v, &seen) != 0)
			return NULL;
	}
	return pubs;
}

int
install_index_state_load(const install_datadir *dd, const char *publisher,
    ps_index_seen *seen, int *found, ps_error *err)
{
	json_t *root, *pubs;
	int rc = 0;

	*found = 0;
	memset(seen, 0, sizeof(*seen));
	if (read_state(dd, &root, err) != 0)
		return -1;
	if (root == NULL)
		return 0;
	if ((pubs = publishers_of(root)) == NULL)
		rc = damaged(dd, err, "not a packsign_index_state 1 object");
	else if (json_object_get(pubs, publisher) != NULL) {
		seen_from(json_object_get(pubs, publisher), seen);
		*found = 1;
	}
	json_decref(root);
	return rc;
}

/* ------------------------------------------------------------- judging */

static void
seen_text(const ps_index_seen *seen, char *out, size_t size)
{
	char sha[PS_SHA256_STRING_LEN], at[PS_TIME_TEXT_LEN];

	if (ps_time_format(seen->first_seen, at) != 0)
		snprintf(at, sizeof(at), "?");
	snprintf(out, size, "version %llu, payload %s, first seen %s",
	    (unsigned long long)seen->version,
	    ps_sha256_string(seen->payload_sha256, sha), at);
}

int
ps_index_state_check(const ps_index_seen *seen, const ps_index *ix,
    ps_error *err)
{
	char was[160], now[160];
	ps_index_seen offered;

	if (seen == NULL || ix->version > seen->version)
		return 0;
	offered.version = ix->version;
	offered.first_seen = ix->issued;
	memcpy(offered.payload_sha256, ix->payload_sha256, PS_SHA256_LEN);
	seen_text(seen, was, sizeof(was));
	snprintf(now, sizeof(now), "version %llu",
	    (unsigned long long)ix->version);
	if (ix->version < seen->version) {
		util_refuse(err, "index_rollback", ix->publisher, "index "
		    "version %llu is older than the newest this data directory "
		    "has seen of '%s' (an old index replayed?)",
		    (unsigned long long)ix->version, ix->publisher);
		return util_error_expect(err, was, now);
	}
	if (memcmp(seen->payload_sha256, ix->payload_sha256,
	    PS_SHA256_LEN) == 0)
		return 0;
	seen_text(&offered, now, sizeof(now));
	util_refuse(err, "index_equivocation", ix->publisher, "two different "
	    "indexes of '%s' carry version %llu: the one seen first stands "
	    "(its publisher signed both, or its key is compromised)",
	    ix->publisher, (unsigned long long)ix->version);
	return util_error_expect(err, was, now);
}

int
ps_index_state_require(const ps_trust *trust, const ps_index *ix,
    ps_error *err)
{
	const ps_trust_signer *s = ps_trust_find_signer(trust, ix->publisher);

	if (s != NULL && s->min_index_version > 0)
		return 0;
	util_refuse(err, "index_state_missing", ix->publisher, "no index "
	    "state for '%s' and no min_index_version for it in the policy: "
	    "rollback cannot be checked on first use", ix->publisher);
	return util_error_expect(err, "a recorded index or a policy floor",
	    "none");
}

/* ------------------------------------------------------------- writing */

static json_t *
seen_json(const ps_index *ix, int64_t now)
{
	char sha[PS_SHA256_STRING_LEN], at[PS_TIME_TEXT_LEN];

	if (ps_time_format(now, at) != 0)
		return NULL;
	return json_pack("{s:I,s:s,s:s}", "version", (json_int_t)ix->version,
	    "index_sha256", ps_sha256_string(ix->payload_sha256, sha),
	    "first_seen", at);
}

/* The file written whole in DIR/.tmp, synced, renamed over the state,
 * and the data directory synced. */
static int
write_state(const install_datadir *dd, json_t *root, ps_error *err)
{
	char *text = json_dumps(root, JSON_SORT_KEYS | JSON_INDENT(1));
	int fd, rc;

	if (text == NULL)
		return util_fail_oom(err, INSTALL_INDEX_STATE);
	fd = openat(dd->tmp_fd, INSTALL_INDEX_STATE, O_WRONLY | O_CREAT |
	    O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		free(text);
		return util_fail_errno(err, "io_error", INSTALL_INDEX_STATE,
		    "create", errno);
	}
	rc = util_write_all(fd, text, strlen(text), INSTALL_INDEX_STATE, err);
	free(text);
	if (rc == 0 && write(fd, "\n", 1) != 1)
		rc = util_fail_errno(err, errno == ENOSPC ? "disk_full" :
		    "io_error", INSTALL_INDEX_STATE, "write", errno);
	if (rc == 0 && fsync(fd) != 0)
		rc = util_fail_errno(err, "io_error", INSTALL_INDEX_STATE,
		    "fsync", errno);
	if (close(fd) != 0 && rc == 0)
		rc = util_fail_errno(err, "io_error", INSTALL_INDEX_STATE,
		    "close", errno);
	if (rc == 0 && renameat(dd->tmp_fd, INSTALL_INDEX_STATE, dd->fd,
	    INSTALL_INDEX_STATE) != 0)
		rc = util_fail_errno(err, "io_error", INSTALL_INDEX_STATE,
		    "rename", errno);
	if (rc == 0 && fsync(dd->fd) != 0)
		rc = util_fail_errno(err, "io_error", dd->path, "fsync", errno);
	return rc;
}

static int
record(const install_datadir *dd, json_t *root, const ps_index *ix,
    int64_t now, ps_error *err)
{
	json_t *pubs = json_object_get(root, "publishers");

	if (json_object_get(pubs, ix->publisher) == NULL &&
	    json_object_size(pubs) >= STATE_MAX_PUBLISHERS)
		return util_fail(err, "index_state_full", INSTALL_INDEX_STATE,
		    "the state records at most %d publishers",
		    STATE_MAX_PUBLISHERS);
	if (json_object_set_new(pubs, ix->publisher, seen_json(ix, now)) != 0)
		return util_fail_oom(err, INSTALL_INDEX_STATE);
	return write_state(dd, root, err);
}

int
install_index_state_record(const install_datadir *dd, const ps_index *ix,
    int64_t now, int *recorded, ps_error *err)
{
	ps_index_seen seen;
	json_t *root;
	int found, rc;

	*recorded = 0;
	if (install_index_state_load(dd, ix->publisher, &seen, &found,
	    err) != 0 || ps_index_state_check(found ? &seen : NULL, ix,
	    err) != 0)
		return -1;
	if (found && ix->version <= seen.version)
		return 0;
	if (read_state(dd, &root, err) != 0)
		return -1;
	if (root == NULL)
		root = json_pack("{s:i,s:{}}", "packsign_index_state",
		    STATE_VERSION, "publishers");
	if (root == NULL)
		return util_fail_oom(err, INSTALL_INDEX_STATE);
	rc = record(dd, root, ix, now, err);
	json_decref(root);
	if (rc == 0)
		*recorded = 1;
	return rc;
}

/* ------------------------------------------------------ the public calls */

int
ps_index_state_load(const char *data_dir, const char *publisher,
    ps_index_seen *seen, int *found, ps_error *err)
{
	install_datadir dd;
	ps_error e;
	int rc;

	*found = 0;
	ps_error_clear(&e);
	if (install_datadir_open(data_dir, 0, &dd, &e) != 0) {
		install_datadir_close(&dd);      /* frees its copy of the path */
		if (ps_error_is(&e, PS_CODE_NOT_FOUND))
			return 0;
		*err = e;
		return -1;
	}
	rc = install_index_state_load(&dd, publisher, seen, found, err);
	install_datadir_close(&dd);
	return rc;
}

int
ps_index_state_record(const char *data_dir, const ps_index *ix, int64_t now,
    int *recorded, ps_error *err)
{
	install_datadir dd;
	int rc;

	*recorded = 0;
	rc = install_datadir_open(data_dir, 1, &dd, err) != 0 ||
	    install_datadir_lock(&dd, NULL, NULL, err) != 0 ||
	    install_datadir_clean(&dd, err) != 0 ? -1 :
	    install_index_state_record(&dd, ix, now, recorded, err);
	install_datadir_close(&dd);
	return rc;
}
