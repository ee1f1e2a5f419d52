/*
 * Publishing an index (docs/formats/index.md, "Publishing"): every new
 * version starts from the previous one, verified, carries its entries
 * forward with their publication times, and adds, yanks or removes; the
 * payload is canonical, so the same inputs and time give the same bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/semver.h"
#include "index/index.h"
#include "keys/keys.h"
#include "sign/dsse.h"
#include "util/duration.h"
#include "util/error.h"
#include "util/strings.h"

void
ps_index_build_options_init(ps_index_build_options *o)
{
	memset(o, 0, sizeof(*o));
}

int
ps_index_duration_parse(const char *text, int64_t *seconds)
{
	double s;

	if (util_duration_parse(text, &s) != 0 || s < 1 ||
	    s > (double)PS_INDEX_MAX_EXPIRES)
		return -1;
	*seconds = (int64_t)s;
	return 0;
}

static int encode_name(const char *name, char **out, ps_error *err);

/* The entry's bundles: `names` as they are, or (`encode`) the prefix
 * and each path's file name, percent-encoded. */
static int
copy_bundles(ps_index_entry *e, const char *const *names, size_t n,
    const char *encode, ps_error *err)
{
	const char *slash;
	char *name;
	size_t i;
	int rc;

	if (n == 0)
		return 0;
	e->bundles = calloc(n, sizeof(*e->bundles));
	e->bundle_urls = calloc(n, sizeof(*e->bundle_urls));
	if (e->bundles == NULL || e->bundle_urls == NULL)
		return util_fail_oom(err, e->id != NULL ? e->id : "bundles");
	for (i = 0; i < n; i++) {
		if (encode == NULL) {
			rc = util_strdup(&e->bundles[i], names[i], NULL, err);
		} else {
			slash = strrchr(names[i], '/');
			if (encode_name(slash != NULL ? slash + 1 : names[i],
			    &name, err) != 0)
				return -1;
			rc = asprintf(&e->bundles[i], "%s%s", encode, name) < 0 ?
			    util_fail_oom(err, names[i]) : 0;
			if (rc != 0)
				e->bundles[i] = NULL;
			free(name);
		}
		if (rc != 0)
			return -1;
		e->bundle_count++;
	}
	return 0;
}

static int
copy_entry(ps_index_entry *to, const ps_index_entry *from, ps_error *err)
{
	size_t i;

	*to = *from;
	to->id = to->version = to->url = to->archive_url = to->yanked = NULL;
	to->bundles = to->bundle_urls = NULL;
	to->bundle_count = 0;
	to->signers = calloc(from->signer_count + 1, sizeof(*to->signers));
	to->signer_count = 0;
	if (to->signers == NULL || util_strdup(&to->id, from->id, NULL,
	    err) != 0 || util_strdup(&to->version, from->version, NULL,
	    err) != 0 || util_strdup(&to->url, from->url, NULL, err) != 0 ||
	    (from->yanked != NULL && util_strdup(&to->yanked, from->yanked,
	    NULL, err) != 0))
		return util_fail_oom(err, from->id);
	for (i = 0; i < from->signer_count; i++) {
		if (util_strdup(&to->signers[i], from->signers[i], NULL, err) != 0)
			return -1;
		to->signer_count++;
	}
	return copy_bundles(to, (const char *const *)from->bundles,
	    from->bundle_count, NULL, err);
}

static int
carry_forward(ps_index *ix, const ps_index *previous, ps_error *err)
{
	size_t i;

	ix->entries = calloc(previous->entry_count + 1, sizeof(*ix->entries));
	if (ix->entries == NULL)
		return util_fail_oom(err, ix->publisher);
	for (i = 0; i < previous->entry_count; i++) {
		ix->entry_count++;
		if (copy_entry(&ix->entries[i], &previous->entries[i], err) != 0)
			return -1;
	}
	return 0;
}

static int
compose_bundles(ps_index_entry *e, const char *base_url, const char *label,
    ps_error *err)
{
	size_t k;

	for (k = 0; k < e->bundle_count; k++) {
		free(e->bundle_urls[k]);
		e->bundle_urls[k] = NULL;
		if (index_entry_compose_bundle(e, k, base_url, label, err) != 0)
			return -1;
	}
	return 0;
}

/* Every entry's archive URL again: the base URL may have changed. */
static int
compose_all(ps_index *ix, ps_error *err)
{
	size_t i;

	for (i = 0; i < ix->entry_count; i++) {
		if (index_entry_compose_url(&ix->entries[i], ix->base_url,
		    ix->entries[i].id, err) != 0 ||
		    compose_bundles(&ix->entries[i], ix->base_url,
		    ix->entries[i].id, err) != 0)
			return -1;
	}
	return 0;
}

static int
new_header(ps_index *ix, const ps_index_build_options *o, ps_error *err)
{
	const ps_index *prev = o->previous;
	const char *base = o->base_url != NULL ? o->base_url :
	    prev != NULL ? prev->base_url : NULL;

	if (prev != NULL && prev->version >= PS_INDEX_VERSION_MAX)
		return util_refuse(err, "index_version_exhausted",
		    o->publisher, "the previous index has the highest version "
		    "an index may have");
	if (prev != NULL && strcmp(prev->publisher, o->publisher) != 0) {
		util_refuse(err, "index_publisher_mismatch", o->publisher, "the "
		    "previous index is '%s''s; a new publisher starts a new "
		    "index (without --previous)", prev->publisher);
		return util_error_expect(err, o->publisher, prev->publisher);
	}
	if (o->expires_in <= 0 || o->now > INT64_MAX - o->expires_in)
		return util_fail(err, "index_expires_invalid", o->publisher,
		    "the index must expire after it is issued");
	ix->version = prev != NULL ? prev->version + 1 : 1;
	ix->issued = o->now;
	ix->expires = o->now + o->expires_in;
	if (base != NULL && (index_base_url_check(base, "--base-url",
	    err) != 0 || util_strdup(&ix->base_url, base, NULL, err) != 0))
		return -1;
	return util_strdup(&ix->publisher, o->publisher, NULL, err);
}

int
ps_index_new(const ps_index_build_options *o, ps_index **out, ps_error *err)
{
	ps_index *ix;

	*out = NULL;
	if (o->publisher == NULL || !ps_identity_valid(o->publisher))
		return util_fail(err, "identity_invalid", o->publisher != NULL ?
		    o->publisher : "", "an index needs its publisher's "
		    "identity");
	if ((ix = calloc(1, sizeof(*ix))) == NULL)
		return util_fail_oom(err, o->publisher);
	if (new_header(ix, o, err) != 0 || (o->previous != NULL &&
	    carry_forward(ix, o->previous, err) != 0) || compose_all(ix,
	    err) != 0) {
		ps_index_free(ix);
		return -1;
	}
	*out = ix;
	return 0;
}

/* ------------------------------------------------------------- adding */

/* A file name as a URL path segment: unreserved bytes as they are,
 * every other byte percent-encoded. */
static int
encode_name(const char *name, char **out, ps_error *err)
{
	static const char keep[] = "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~";
	char *text = malloc(3 * strlen(name) + 1);
	size_t n = 0;

	if (text == NULL)
		return util_fail_oom(err, name);
	for (; *name != '\0'; name++) {
		if (strchr(keep, *name) != NULL)
			text[n++] = *name;
		else
			n += (size_t)sprintf(text + n, "%%%02X",
			    (unsigned char)*name);
	}
	text[n] = '\0';
	*out = text;
	return 0;
}

static int
entry_url(ps_index_entry *e, const char *archive,
    const ps_index_build_options *o, ps_error *err)
{
	const char *slash = strrchr(archive, '/');
	const char *prefix = o->url_prefix != NULL ? o->url_prefix : "";
	char *name;
	int rc;

	if (prefix[0] != '\0' && prefix[strlen(prefix) - 1] != '/') {
		util_refuse(err, "index_url_invalid", "--url-prefix", "a URL "
		    "prefix ends in '/'");
		return util_error_expect(err, "https://HOST/PATH/ or PATH/",
		    prefix);
	}
	if (encode_name(slash != NULL ? slash + 1 : archive, &name, err) != 0)
		return -1;
	rc = asprintf(&e->url, "%s%s", prefix, name) < 0 ? -1 : 0;
	free(name);
	if (rc != 0) {
		e->url = NULL;
		return util_fail_oom(err, archive);
	}
	return 0;
}

static int
add_signer(ps_index_entry *e, const char *fingerprint, ps_error *err)
{
	size_t i, at = e->signer_count;

	for (i = 0; i < e->signer_count; i++) {
		if (strcmp(e->signers[i], fingerprint) == 0)
			return 0;
		if (strcmp(e->signers[i], fingerprint) > 0 && at == e->signer_count)
			at = i;
	}
	memmove(&e->signers[at + 1], &e->signers[at],
	    (e->signer_count - at) * sizeof(*e->signers));
	e->signer_count++;
	return util_strdup(&e->signers[at], fingerprint, NULL, err);
}

/* What the verification of the archive vouches for. */
static int
entry_from(ps_index_entry *e, const ps_verify_result *v, uint64_t size,
    int64_t now, ps_error *err)
{
	size_t i;

	e->format = v->format;
	e->size = size;
	e->published = now;
	memcpy(e->sha256, v->archive_digest, PS_SHA256_LEN);
	memcpy(e->tree_digest, v->tree_digest, PS_SHA256_LEN);
	e->signers = calloc(v->signature_count + 1, sizeof(*e->signers));
	if (e->signers == NULL || util_strdup(&e->id, v->id, NULL, err) != 0 ||
	    util_strdup(&e->version, v->version, NULL, err) != 0)
		return util_fail_oom(err, v->path);
	for (i = 0; i < v->signature_count; i++) {
		if (v->signatures[i].counted &&
		    add_signer(e, v->signatures[i].fingerprint, err) != 0)
			return -1;
	}
	return 0;
}

static int
verified_entry(const char *archive, const ps_index_build_options *o,
    ps_index_entry *e, ps_error *err)
{
	ps_verify_options vo;
	ps_verify_result *v = NULL;
	formats_semver semver;
	struct stat st;
	int rc;

	ps_verify_options_init(&vo);
	vo.trust = o->trust;
	vo.bundle_paths = o->bundle_paths;
	vo.bundle_count = o->bundle_count;
	vo.deep = 1;                 /* the tree digest the entry lists */
	if (o->now != 0)
		vo.at = o->now;
	rc = ps_verify(archive, &vo, &v, err);
	if (rc == 0 && (v->directory || !v->subject_checked ||
	    !v->has_tree_digest))
		rc = util_refuse(err, "index_archive_invalid", archive, "an "
		    "index lists signed archives, not directories");
	if (rc == 0 && stat(archive, &st) != 0)
		rc = util_fail(err, "io_error", archive, "stat failed");
	if (rc == 0)
		rc = entry_from(e, v, (uint64_t)st.st_size, o->now, err);
	if (rc == 0 && (index_text_valid(e->id, PS_INDEX_MAX_ID, 0) != 0 ||
	    index_text_valid(e->version, PS_INDEX_MAX_VERSION_TEXT, 0) != 0 ||
	    formats_semver_parse(e->version, &semver) != 0))
		rc = util_refuse(err, "index_archive_invalid", archive, "its pack "
		    "id or version cannot be listed: an id is 1 to %d bytes of "
		    "printable ASCII, a version SemVer 2.0.0", PS_INDEX_MAX_ID);
	ps_verify_result_free(v);
	if (rc == 0)
		rc = entry_url(e, archive, o, err);
	if (rc == 0)
		rc = copy_bundles(e, o->bundle_paths, o->bundle_count,
		    o->url_prefix != NULL ? o->url_prefix : "", err);
	return rc;
}

/* Where `e` belongs in the sorted entries; *same 1 when an entry of its
 * format, id and precedence is there. */
static size_t
entry_place(const ps_index *ix, const ps_index_entry *e, int *same)
{
	size_t lo = 0, hi = ix->entry_count, mid;
	int c;

	*same = 0;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = index_entry_compare(&ix->entries[mid], e);
		if (c == 0) {
			*same = 1;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Adds `e` (moved in) in order, replacing an entry of the same format,
 * id and precedence: a binary search, so that adding many archives to
 * a large index stays O(n) moves, not a sort per archive. */
static int
put_entry(ps_index *ix, ps_index_entry *e, ps_error *err)
{
	ps_index_entry *grown;
	size_t at;
	int same;

	at = entry_place(ix, e, &same);
	if (same) {
		index_entry_clear(&ix->entries[at]);
		ix->entries[at] = *e;
		return 0;
	}
	if (ix->entry_count >= PS_INDEX_MAX_ENTRIES) {
		index_entry_clear(e);
		return util_refuse(err, "index_full", ix->publisher, "an index "
		    "lists at most %d entries: remove old ones first",
		    PS_INDEX_MAX_ENTRIES);
	}
	grown = realloc(ix->entries, (ix->entry_count + 1) * sizeof(*grown));
	if (grown == NULL) {
		index_entry_clear(e);
		return util_fail_oom(err, ix->publisher);
	}
	ix->entries = grown;
	memmove(&ix->entries[at + 1], &ix->entries[at],
	    (ix->entry_count - at) * sizeof(*grown));
	ix->entries[at] = *e;
	ix->entry_count++;
	return 0;
}

int
ps_index_add(ps_index *ix, const char *archive,
    const ps_index_build_options *o, ps_error *err)
{
	ps_index_entry e;

	memset(&e, 0, sizeof(e));
	if (o->trust == NULL)
		return util_fail(err, "invalid_argument", archive, "adding an "
		    "archive to an index needs a trust policy to verify it");
	if (o->bundle_count > PS_INDEX_MAX_BUNDLES)
		return util_fail(err, "invalid_argument", archive, "an index "
		    "entry lists at most %d bundles", PS_INDEX_MAX_BUNDLES);
	if (verified_entry(archive, o, &e, err) != 0 ||
	    index_entry_compose_url(&e, ix->base_url, archive, err) != 0 ||
	    compose_bundles(&e, ix->base_url, archive, err) != 0) {
		index_entry_clear(&e);
		return -1;
	}
	return put_entry(ix, &e, err);
}

/* ------------------------------------------------- yanking and removing */

/* The entry of `id` at exactly `version` (one format per id). */
static int
entry_at(ps_index *ix, const char *id, const char *version, size_t *at,
    ps_error *err)
{
	size_t i, found = 0;

	for (i = 0; i < ix->entry_count; i++) {
		if (strcmp(ix->entries[i].id, id) != 0 ||
		    strcmp(ix->entries[i].version, version) != 0)
			continue;
		*at = i;
		found++;
	}
	if (found == 1)
		return 0;
	if (found > 1)
		return util_refuse(err, "index_ambiguous", id, "the index lists "
		    "%s@%s in two formats", id, version);
	util_refuse(err, "index_not_listed", id, "the index does not list "
	    "%s@%s", id, version);
	return util_error_expect(err, "a listed ID@VERSION", version);
}

int
ps_index_yank(ps_index *ix, const char *id, const char *version,
    const char *reason, ps_error *err)
{
	size_t at;

	if (reason == NULL || index_text_valid(reason, PS_INDEX_MAX_REASON,
	    1) != 0)
		return util_fail(err, "index_reason_invalid", "--reason", "a "
		    "reason is 1 to %d bytes of printable ASCII and spaces",
		    PS_INDEX_MAX_REASON);
	if (entry_at(ix, id, version, &at, err) != 0)
		return -1;
	free(ix->entries[at].yanked);
	ix->entries[at].yanked = NULL;
	return util_strdup(&ix->entries[at].yanked, reason, NULL, err);
}

int
ps_index_remove(ps_index *ix, const char *id, const char *version,
    ps_error *err)
{
	size_t at;

	if (entry_at(ix, id, version, &at, err) != 0)
		return -1;
	index_entry_clear(&ix->entries[at]);
	memmove(&ix->entries[at], &ix->entries[at + 1],
	    (ix->entry_count - at - 1) * sizeof(*ix->entries));
	ix->entry_count--;
	return 0;
}

/* ---------------------------------------------------------------- signing */

int
ps_index_sign(const ps_index *ix, const ps_seckey *key, char **out,
    size_t *len, ps_error *err)
{
	char fingerprint[PS_FINGERPRINT_MAX], *payload = NULL;
	sign_dsse_envelope *env = NULL;
	ps_pubkey *pub = NULL;
	size_t payload_len;
	int rc;

	*out = NULL;
	rc = index_payload_write(ix, &payload, &payload_len, err);
	if (rc == 0 && payload_len > INDEX_MAX_PAYLOAD)
		rc = util_refuse(err, "index_full", ix->publisher, "the index's "
		    "payload would be %zu bytes, over the %d an index packsign "
		    "signs may hold: remove old entries first", payload_len,
		    INDEX_MAX_PAYLOAD);
	if (rc == 0)
		rc = ps_seckey_public(key, &pub, err);
	if (rc == 0 && ps_pubkey_fingerprint(pub, fingerprint) != 0)
		rc = util_fail_oom(err, ix->publisher);
	if (rc == 0)
		rc = sign_dsse_new(PS_INDEX_PAYLOAD_TYPE,
		    (const unsigned char *)payload, payload_len, &env, err);
	if (rc == 0)
		rc = sign_dsse_sign(env, key->sk, fingerprint, err);
	if (rc == 0)
		rc = sign_dsse_serialize(env, out, len, err);
	sign_dsse_free(env);
	ps_pubkey_free(pub);
	free(payload);
	return rc;
}
