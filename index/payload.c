/*
 * The index payload as JSON (docs/formats/index.md, "Payload"): written
 * canonically (sorted keys, no whitespace, ASCII), read strictly (every
 * field typed and bounded, unknown fields and duplicate keys refused), and
 * only ever read from bytes a signature verified.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/semver.h"
#include "index/index.h"
#include "util/error.h"
#include "util/sha256.h"

#define DIGEST_PREFIX "sha256:"

/* ---------------------------------------------------------------- writing */

static json_t *
time_value(int64_t t)
{
	char text[PS_TIME_TEXT_LEN];

	return ps_time_format(t, text) == 0 ? json_string(text) : NULL;
}

static json_t *
digest_value(const unsigned char digest[PS_SHA256_LEN])
{
	char text[PS_SHA256_STRING_LEN];

	return json_string(ps_sha256_string(digest, text));
}

static json_t *
strings_value(char *const *strings, size_t n)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; list != NULL && i < n; i++) {
		if (json_array_append_new(list, json_string(strings[i])) != 0) {
			json_decref(list);
			return NULL;
		}
	}
	return list;
}

static json_t *
entry_value(const ps_index_entry *e)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:o*, s:I, s:o*, s:o*, "
	    "s:o*}", "format", ps_format_name(e->format), "id", e->id,
	    "version", e->version, "url", e->url,
	    "archive_digest", digest_value(e->sha256),
	    "size", (json_int_t)e->size, "tree_digest",
	    digest_value(e->tree_digest), "signers",
	    strings_value(e->signers, e->signer_count),
	    "published", time_value(e->published));

	if (o != NULL && e->bundle_count > 0 && json_object_set_new(o,
	    "bundles", strings_value(e->bundles, e->bundle_count)) != 0) {
		json_decref(o);
		return NULL;
	}
	if (o != NULL && e->yanked != NULL && json_object_set_new(o, "yanked",
	    json_string(e->yanked)) != 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *
index_value(const ps_index *ix)
{
	json_t *packs = json_array(), *o;
	size_t i;

	for (i = 0; packs != NULL && i < ix->entry_count; i++) {
		if (json_array_append_new(packs, entry_value(&ix->entries[i])) !=
		    0) {
			json_decref(packs);
			packs = NULL;
		}
	}
	o = json_pack("{s:i, s:I, s:s, s:o*, s:o*, s:o*}", "packsign_index",
	    INDEX_FORMAT_VERSION, "version", (json_int_t)ix->version,
	    "publisher", ix->publisher, "issued", time_value(ix->issued),
	    "expires", time_value(ix->expires), "packs", packs);
	if (o != NULL && ix->base_url != NULL && json_object_set_new(o,
	    "base_url", json_string(ix->base_url)) != 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int
index_payload_write(const ps_index *ix, char **out, size_t *len,
    ps_error *err)
{
	json_t *o = index_value(ix);

	*out = o != NULL ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS |
	    JSON_ENSURE_ASCII) : NULL;
	json_decref(o);
	if (*out == NULL)
		return util_fail_oom(err, ix->publisher);
	*len = strlen(*out);
	return 0;
}

/* ---------------------------------------------------------------- reading */

struct reader {
	const char *label;
	ps_error *err;
	char where[64];              /* "packs[3]" or "" */
};

static int
invalid(struct reader *r, const char *field, const char *why)
{
	util_refuse(r->err, "index_invalid", r->label, "%s%s%s: %s", r->where,
	    r->where[0] != '\0' ? "." : "", field, why);
	return -1;
}

static int
only_fields(struct reader *r, json_t *obj, const char *const *allowed)
{
	const char *key;
	json_t *value;
	size_t i;

	json_object_foreach(obj, key, value) {
		for (i = 0; allowed[i] != NULL; i++) {
			if (strcmp(key, allowed[i]) == 0)
				break;
		}
		(void)value;
		if (allowed[i] == NULL)
			return invalid(r, key, "unknown field");
	}
	return 0;
}

/* A string field of 1 to `max` bytes (NULL when optional and absent). */
static int
take_text(struct reader *r, json_t *obj, const char *key, size_t max,
    int optional, int allow_space, char **out)
{
	json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (v == NULL && optional)
		return 0;
	if (!json_is_string(v))
		return invalid(r, key, v == NULL ? "missing" : "not a string");
	if (strlen(json_string_value(v)) != json_string_length(v) ||
	    index_text_valid(json_string_value(v), max, allow_space) != 0)
		return invalid(r, key, "not 1 to the allowed number of "
		    "printable ASCII bytes");
	if ((*out = strdup(json_string_value(v))) == NULL)
		return util_fail_oom(r->err, r->label);
	return 0;
}

static int
take_count(struct reader *r, json_t *obj, const char *key, uint64_t min,
    uint64_t *out)
{
	json_t *v = json_object_get(obj, key);

	if (!json_is_integer(v) || json_integer_value(v) < (json_int_t)min ||
	    (uint64_t)json_integer_value(v) > PS_INDEX_VERSION_MAX)
		return invalid(r, key, v == NULL ? "missing" :
		    "not an integer in the allowed range");
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int
take_time(struct reader *r, json_t *obj, const char *key, int64_t *out)
{
	char *text, again[PS_TIME_TEXT_LEN];
	int rc;

	if (take_text(r, obj, key, PS_TIME_TEXT_LEN, 0, 0, &text) != 0)
		return -1;
	/* One spelling of a time: what ps_time_format() writes. */
	rc = ps_time_parse(text, out) != 0 || ps_time_format(*out, again) != 0 ||
	    strcmp(again, text) != 0 ? invalid(r, key,
	    "not YYYY-MM-DDTHH:MM:SSZ") : 0;
	free(text);
	return rc;
}

static int
take_digest(struct reader *r, json_t *obj, const char *key,
    unsigned char out[PS_SHA256_LEN])
{
	const size_t prefix = sizeof(DIGEST_PREFIX) - 1;
	char *text;
	int rc = 0;

	if (take_text(r, obj, key, PS_SHA256_STRING_LEN, 0, 0, &text) != 0)
		return -1;
	if (strncmp(text, DIGEST_PREFIX, prefix) != 0 ||
	    strspn(text + prefix, "0123456789abcdef") != PS_SHA256_HEX_LEN ||
	    util_hex_decode(text + prefix, out, PS_SHA256_LEN) != 0)
		rc = invalid(r, key, "not sha256: and 64 lowercase hex digits");
	free(text);
	return rc;
}

/* A signer id: "SHA256:" or "KEYLESS:" and 43 base64 characters. */
static int
signer_id_valid(const char *id)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
	    "qrstuvwxyz0123456789+/";
	size_t skip = strncmp(id, "SHA256:", 7) == 0 ? 7 :
	    strncmp(id, PS_KEYLESS_ID_PREFIX, 8) == 0 ? 8 : 0;

	return skip != 0 && strlen(id) == skip + 43 &&
	    strspn(id + skip, b64) == 43;
}

/* Signer ids, sorted and distinct. */
static int
take_signers(struct reader *r, json_t *obj, ps_index_entry *e)
{
	json_t *list = json_object_get(obj, "signers"), *v;
	size_t i;

	if (!json_is_array(list) || json_array_size(list) == 0 ||
	    json_array_size(list) > PS_INDEX_MAX_SIGNERS)
		return invalid(r, "signers", "not a list of 1 to 64 signer "
		    "ids");
	e->signers = calloc(json_array_size(list), sizeof(*e->signers));
	if (e->signers == NULL)
		return util_fail_oom(r->err, r->label);
	json_array_foreach(list, i, v) {
		const char *fp = json_string_value(v);

		if (fp == NULL || !signer_id_valid(fp))
			return invalid(r, "signers", "not a signer id "
			    "SHA256:<43 base64> or KEYLESS:<43 base64>");
		if (i > 0 && strcmp(e->signers[i - 1], fp) >= 0)
			return invalid(r, "signers", "not sorted and distinct");
		if ((e->signers[i] = strdup(fp)) == NULL)
			return util_fail_oom(r->err, r->label);
		e->signer_count++;
	}
	return 0;
}

/* bundles: absent, or 1 to 8 distinct URLs (composed after the
 * archive's). */
static int
take_bundles(struct reader *r, json_t *obj, ps_index_entry *e)
{
	json_t *list = json_object_get(obj, "bundles"), *v;
	size_t i, j, n;

	if (list == NULL)
		return 0;
	n = json_array_size(list);
	if (!json_is_array(list) || n == 0 || n > PS_INDEX_MAX_BUNDLES)
		return invalid(r, "bundles", "not a list of 1 to 8 bundle URLs");
	e->bundles = calloc(n, sizeof(*e->bundles));
	e->bundle_urls = calloc(n, sizeof(*e->bundle_urls));
	if (e->bundles == NULL || e->bundle_urls == NULL)
		return util_fail_oom(r->err, r->label);
	json_array_foreach(list, i, v) {
		const char *url = json_string_value(v);

		if (url == NULL || index_text_valid(url, PS_INDEX_MAX_URL, 0) != 0)
			return invalid(r, "bundles", "not a URL of 1 to 2048 "
			    "printable bytes");
		for (j = 0; j < i; j++) {
			if (strcmp(e->bundles[j], url) == 0)
				return invalid(r, "bundles", "a URL repeated");
		}
		if ((e->bundles[i] = strdup(url)) == NULL)
			return util_fail_oom(r->err, r->label);
		e->bundle_count++;
	}
	return 0;
}

/* A keyless signer is only ever verified from a bundle. */
static int
compose_bundles(struct reader *r, const char *base_url, ps_index_entry *e)
{
	size_t i;

	for (i = 0; e->bundle_count == 0 && i < e->signer_count; i++) {
		if (strncmp(e->signers[i], PS_KEYLESS_ID_PREFIX, 8) == 0)
			return invalid(r, "signers", "a keyless signer id in an "
			    "entry without bundles");
	}
	for (i = 0; i < e->bundle_count; i++) {
		if (index_entry_compose_bundle(e, i, base_url, r->label,
		    r->err) != 0)
			return -1;
	}
	return 0;
}

static int
take_format(struct reader *r, json_t *obj, ps_index_entry *e)
{
	char *name;
	int rc = 0;

	if (take_text(r, obj, "format", 32, 0, 0, &name) != 0)
		return -1;
	if (ps_format_parse(name, &e->format) != 0)
		rc = invalid(r, "format", "not agentpack, soyapack, holon or "
		    "autograph");
	free(name);
	return rc;
}

static int
take_entry(struct reader *r, json_t *obj, const char *base_url,
    ps_index_entry *e)
{
	static const char *const fields[] = { "format", "id", "version", "url",
	    "archive_digest", "size", "tree_digest", "signers", "published",
	    "yanked", "bundles", NULL };
	formats_semver semver;

	if (!json_is_object(obj))
		return invalid(r, "", "not an object");
	if (only_fields(r, obj, fields) != 0 || take_format(r, obj, e) != 0 ||
	    take_text(r, obj, "id", PS_INDEX_MAX_ID, 0, 0, &e->id) != 0 ||
	    take_text(r, obj, "version", PS_INDEX_MAX_VERSION_TEXT, 0, 0,
	    &e->version) != 0 ||
	    take_text(r, obj, "url", PS_INDEX_MAX_URL, 0, 0, &e->url) != 0 ||
	    take_digest(r, obj, "archive_digest", e->sha256) != 0 ||
	    take_count(r, obj, "size", 1, &e->size) != 0 ||
	    take_digest(r, obj, "tree_digest", e->tree_digest) != 0 ||
	    take_signers(r, obj, e) != 0 ||
	    take_time(r, obj, "published", &e->published) != 0 ||
	    take_text(r, obj, "yanked", PS_INDEX_MAX_REASON, 1, 1,
	    &e->yanked) != 0 || take_bundles(r, obj, e) != 0)
		return -1;
	if (formats_semver_parse(e->version, &semver) != 0)
		return invalid(r, "version", "not a SemVer 2.0.0 version");
	if (index_entry_compose_url(e, base_url, r->label, r->err) != 0)
		return -1;
	return compose_bundles(r, base_url, e);
}

static int
take_entries(struct reader *r, json_t *root, ps_index *ix)
{
	json_t *list = json_object_get(root, "packs"), *v;
	size_t i;

	if (!json_is_array(list) ||
	    json_array_size(list) > PS_INDEX_MAX_ENTRIES)
		return invalid(r, "packs", "not a list of at most 10000 "
		    "entries");
	ix->entries = calloc(json_array_size(list) + 1, sizeof(*ix->entries));
	if (ix->entries == NULL)
		return util_fail_oom(r->err, r->label);
	json_array_foreach(list, i, v) {
		snprintf(r->where, sizeof(r->where), "packs[%zu]", i);
		ix->entry_count++;
		if (take_entry(r, v, ix->base_url, &ix->entries[i]) != 0)
			return -1;
	}
	r->where[0] = '\0';
	return index_sort(ix, r->label, r->err);
}

static int
take_index(struct reader *r, json_t *root, ps_index *ix)
{
	static const char *const fields[] = { "packsign_index", "version",
	    "publisher", "issued", "expires", "base_url", "packs", NULL };
	json_t *format = json_object_get(root, "packsign_index");

	if (!json_is_integer(format) || json_integer_value(format) !=
	    INDEX_FORMAT_VERSION)
		return invalid(r, "packsign_index", "not 1 (an index of this "
		    "format)");
	if (only_fields(r, root, fields) != 0 ||
	    take_count(r, root, "version", 1, &ix->version) != 0 ||
	    take_text(r, root, "publisher", PS_IDENTITY_MAX, 0, 0,
	    &ix->publisher) != 0 ||
	    take_time(r, root, "issued", &ix->issued) != 0 ||
	    take_time(r, root, "expires", &ix->expires) != 0 ||
	    take_text(r, root, "base_url", PS_INDEX_MAX_URL, 1, 0,
	    &ix->base_url) != 0)
		return -1;
	if (!ps_identity_valid(ix->publisher))
		return invalid(r, "publisher", "not an identity");
	if (ix->base_url != NULL &&
	    index_base_url_check(ix->base_url, r->label, r->err) != 0)
		return -1;
	if (ix->expires <= ix->issued)
		return invalid(r, "expires", "not after issued");
	return take_entries(r, root, ix);
}

int
index_payload_parse(const unsigned char *bytes, size_t len,
    const char *label, ps_index **out, ps_error *err)
{
	struct reader r = { label, err, "" };
	json_error_t jerr;
	ps_index *ix;
	json_t *root;

	*out = NULL;
	root = json_loadb((const char *)bytes, len, JSON_REJECT_DUPLICATES,
	    &jerr);
	if (root == NULL || !json_is_object(root)) {
		json_decref(root);
		return util_refuse(err, "index_invalid", label, "the payload is "
		    "not a JSON object: %s", root == NULL ? jerr.text :
		    "another value");
	}
	if ((ix = calloc(1, sizeof(*ix))) == NULL) {
		json_decref(root);
		return util_fail_oom(err, label);
	}
	if (take_index(&r, root, ix) != 0) {
		json_decref(root);
		ps_index_free(ix);
		return -1;
	}
	json_decref(root);
	*out = ix;
	return 0;
}
