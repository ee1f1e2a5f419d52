/*
 * The signed pack index: readIndex, verifyIndex (an Index holding the
 * verified ps_index), resolve, the client state and installIndexed.
 *
 * A verified index is an external value owning a struct nb_index.  A call
 * that uses it on another thread (installIndexed, indexStateRecord) holds
 * a reference to the external and counts itself in `busy`, so neither the
 * garbage collector nor close() frees the index under it: close() while
 * busy frees it when the last such call settles.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

struct nb_index {
	ps_index *ix;
	unsigned busy;
	int closed;
};

static void
index_finalize(napi_env env, void *data, void *hint)
{
	struct nb_index *h = data;

	(void)env;
	(void)hint;
	ps_index_free(h->ix);
	free(h);
}

/* The index of a handle, NULL with an Error thrown when it is closed. */
static struct nb_index *
index_of(napi_env env, napi_value v)
{
	struct nb_index *h = NULL;
	napi_valuetype type;

	if (v == NULL || napi_typeof(env, v, &type) != napi_ok ||
	    type != napi_external ||
	    napi_get_value_external(env, v, (void **)&h) != napi_ok ||
	    h == NULL) {
		napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE",
		    "packsign: not an Index of verifyIndex()");
		return NULL;
	}
	if (h->closed || h->ix == NULL) {
		napi_throw_error(env, "ERR_PACKSIGN_CLOSED",
		    "packsign: the index is closed");
		return NULL;
	}
	return h;
}

static void
index_unbusy(struct nb_index *h)
{
	if (--h->busy == 0 && h->closed) {
		ps_index_free(h->ix);
		h->ix = NULL;
	}
}

napi_value
nb_index_close_js(napi_env env, napi_callback_info info)
{
	struct nb_index *h = NULL;
	struct nb_args a;

	if (nb_args(env, info, &a) != 0 || a.count < 1 ||
	    napi_get_value_external(env, a.v[0], (void **)&h) != napi_ok ||
	    h == NULL || h->closed)
		return NULL;
	h->closed = 1;
	if (h->busy == 0) {
		ps_index_free(h->ix);
		h->ix = NULL;
	}
	return NULL;
}

/* The fields of `packsign index verify --json` that are the index's own
 * (index_state and recorded are the client state's: indexStateLoad). */
static napi_value
index_info(napi_env env, const ps_index *ix)
{
	napi_value o = nb_object(env), packs = nb_array(env);
	size_t i;

	nb_set(env, o, "publisher", nb_text(env, ix->publisher));
	nb_set(env, o, "version", nb_int(env, (int64_t)ix->version));
	nb_set(env, o, "issued", nb_time(env, ix->issued));
	nb_set(env, o, "expires", nb_time(env, ix->expires));
	nb_set(env, o, "fingerprint", nb_text(env, ix->fingerprint));
	nb_set(env, o, "index_sha256", nb_digest(env, 1, ix->payload_sha256));
	for (i = 0; i < ix->entry_count; i++)
		nb_push(env, packs, nb_index_entry(env, &ix->entries[i]));
	nb_set(env, o, "packs", packs);
	return o;
}

/* ------------------------------------------------------------ readIndex */

struct read_call {
	struct nb_call base;
	const char *where;
	ps_fetch_options fetch;
	unsigned char *bytes;
	size_t len;
};

static void
read_run(struct nb_call *c)
{
	struct read_call *x = (struct read_call *)c;

	c->rc = ps_index_read(x->where, &x->fetch, &x->bytes, &x->len, &c->err);
}

static napi_value
read_done(napi_env env, struct nb_call *c, int *reject)
{
	struct read_call *x = (struct read_call *)c;
	napi_value buf = NULL;

	if ((*reject = c->rc != 0))
		return nb_error(env, &c->err, NULL);
	napi_create_buffer_copy(env, x->len, x->bytes, NULL, &buf);
	return buf;
}

static void
read_release(struct nb_call *c)
{
	free(((struct read_call *)c)->bytes);
}

static const struct nb_ops read_ops = { "packsign.readIndex", 1, read_run,
    read_done, read_release, NULL };

/* (file or https URL, fetch options). */
napi_value
nb_read_index_js(napi_env env, napi_callback_info info)
{
	struct read_call *x;
	struct nb_args a;

	if (nb_args(env, info, &a) != 0 || a.count < 2 ||
	    (x = nb_call_new(env, &read_ops, sizeof(*x))) == NULL)
		return NULL;
	ps_fetch_options_init(&x->fetch);
	if (nb_arg_string(env, a.v[0], &x->base, "fileOrUrl", &x->where) != 0 ||
	    nb_opt_fetch(env, a.v[1], &x->base, &x->fetch) != 0) {
		nb_call_discard(&x->base);
		return NULL;
	}
	return nb_call_start(env, &x->base, NULL);
}

/* ---------------------------------------------------------- verifyIndex */

struct verify_index_call {
	struct nb_call base;
	const void *bytes;
	size_t len;
	const char *label;
	struct nb_trust_source trust_src;
	ps_trust *trust;
	ps_index_verify_options o;
	ps_index *ix;
};

static void
verify_index_run(struct nb_call *c)
{
	struct verify_index_call *x = (struct verify_index_call *)c;

	c->rc = -1;
	if (nb_trust_load(&x->trust_src, &x->trust, &c->err) != 0)
		return;
	x->o.trust = x->trust;
	c->rc = ps_index_verify(x->bytes, x->len, x->label, &x->o, &x->ix,
	    &c->err);
}

/* {handle, info}: index.js makes the Index of them. */
static napi_value
verify_index_done(napi_env env, struct nb_call *c, int *reject)
{
	struct verify_index_call *x = (struct verify_index_call *)c;
	struct nb_index *h;
	napi_value o, ext;

	if ((*reject = c->rc != 0))
		return nb_error(env, &c->err, NULL);
	if ((h = calloc(1, sizeof(*h))) == NULL)
		return NULL;
	if (napi_create_external(env, h, index_finalize, NULL, &ext) !=
	    napi_ok) {
		free(h);
		return NULL;
	}
	h->ix = x->ix;
	x->ix = NULL;
	o = nb_object(env);
	nb_set(env, o, "handle", ext);
	nb_set(env, o, "info", index_info(env, h->ix));
	return o;
}

static void
verify_index_release(struct nb_call *c)
{
	struct verify_index_call *x = (struct verify_index_call *)c;

	ps_index_free(x->ix);
	ps_trust_free(x->trust);
}

static const struct nb_ops verify_index_ops = { "packsign.verifyIndex", 0,
    verify_index_run, verify_index_done, verify_index_release, NULL };

/* (bytes, options {trust, publicKey, at, allowExpired, label}). */
napi_value
nb_verify_index_js(napi_env env, napi_callback_info info)
{
	struct verify_index_call *x;
	struct nb_args a;
	void *data = NULL;
	size_t len = 0;

	if (nb_args(env, info, &a) != 0 || a.count < 2 ||
	    (x = nb_call_new(env, &verify_index_ops, sizeof(*x))) == NULL)
		return NULL;
	ps_index_verify_options_init(&x->o);
	if (napi_get_buffer_info(env, a.v[0], &data, &len) != napi_ok) {
		nb_call_discard(&x->base);
		napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE",
		    "packsign: the index must be a Buffer");
		return NULL;
	}
	x->len = len;
	if ((x->bytes = nb_call_keep(&x->base, data, len)) == NULL ||
	    nb_opt_trust(env, a.v[1], &x->base, &x->trust_src, 1) != 0 ||
	    nb_opt_time(env, a.v[1], "at", &x->o.at) != 0 ||
	    nb_opt_bool(env, a.v[1], "allowExpired", &x->o.allow_expired) != 0 ||
	    nb_opt_string(env, a.v[1], "label", &x->base, &x->label) != 0) {
		nb_call_discard(&x->base);
		return NULL;
	}
	if (x->label == NULL)
		x->label = "index";
	return nb_call_start(env, &x->base, NULL);
}

/* -------------------------------------------------------------- resolve */

/* resolve(handle, id, spec, allowYanked): the entry, synchronously (the
 * index is in memory). */
napi_value
nb_resolve_js(napi_env env, napi_callback_info info)
{
	char id[PS_INDEX_MAX_ID + 1], spec[PS_INDEX_MAX_VERSION_TEXT + 1];
	const ps_index_entry *e = NULL;
	struct nb_index *h;
	struct nb_args a;
	bool yanked = false;
	ps_error err;

	if (nb_args(env, info, &a) != 0 || a.count < 4 ||
	    (h = index_of(env, a.v[0])) == NULL)
		return NULL;
	/* An id or spec longer than the index allows is matched by nothing,
	 * never by its prefix. */
	if (nb_small_string(env, a.v[1], id, sizeof(id)) != 0 ||
	    nb_small_string(env, a.v[2], spec, sizeof(spec)) != 0 ||
	    napi_get_value_bool(env, a.v[3], &yanked) != napi_ok) {
		napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "packsign: "
		    "resolve(id, spec) takes an id and a spec within the "
		    "index's bounds");
		return NULL;
	}
	if (ps_index_resolve(h->ix, id, spec[0] != '\0' ? spec : NULL, yanked,
	    &e, &err) != 0)
		return nb_throw(env, &err);
	return nb_index_entry(env, e);
}

/* ------------------------------------------------------ the client state */

struct state_call {
	struct nb_call base;
	const char *data_dir, *publisher;
	ps_index_seen seen;
	int found, recorded;
	int64_t now;
	napi_ref keep;              /* the index handle, while busy */
	struct nb_index *h;
};

static napi_value
seen_value(napi_env env, const ps_index_seen *s)
{
	napi_value o = nb_object(env);

	nb_set(env, o, "version", nb_int(env, (int64_t)s->version));
	nb_set(env, o, "index_sha256", nb_digest(env, 1, s->payload_sha256));
	nb_set(env, o, "first_seen", nb_time(env, s->first_seen));
	return o;
}

static void
state_load_run(struct nb_call *c)
{
	struct state_call *x = (struct state_call *)c;

	c->rc = ps_index_state_load(x->data_dir, x->publisher, &x->seen,
	    &x->found, &c->err);
}

/* As index verify --json's index_state: null when nothing was seen. */
static napi_value
state_load_done(napi_env env, struct nb_call *c, int *reject)
{
	struct state_call *x = (struct state_call *)c;

	if ((*reject = c->rc != 0))
		return nb_error(env, &c->err, NULL);
	return x->found ? seen_value(env, &x->seen) : nb_null(env);
}

static void
state_release(struct nb_call *c)
{
	(void)c;
}

static const struct nb_ops state_load_ops = { "packsign.indexStateLoad", 0,
    state_load_run, state_load_done, state_release, NULL };

/* (dataDir, publisher). */
napi_value
nb_index_state_load_js(napi_env env, napi_callback_info info)
{
	struct state_call *x;
	struct nb_args a;

	if (nb_args(env, info, &a) != 0 || a.count < 2 ||
	    (x = nb_call_new(env, &state_load_ops, sizeof(*x))) == NULL)
		return NULL;
	if (nb_arg_string(env, a.v[0], &x->base, "dataDir", &x->data_dir) !=
	    0 || nb_arg_string(env, a.v[1], &x->base, "publisher",
	    &x->publisher) != 0) {
		nb_call_discard(&x->base);
		return NULL;
	}
	return nb_call_start(env, &x->base, NULL);
}

/* {version, index_sha256, first_seen} as indexStateLoad gives it. */
static int
seen_read(napi_env env, napi_value v, ps_index_seen *s)
{
	char hex[PS_SHA256_STRING_LEN + 1];
	unsigned char byte;
	napi_value f;
	size_t n, i;
	int64_t version = 0;
	unsigned hi, lo;

	memset(s, 0, sizeof(*s));
	if (napi_get_named_property(env, v, "version", &f) != napi_ok ||
	    napi_get_value_int64(env, f, &version) != napi_ok || version < 0 ||
	    napi_get_named_property(env, v, "index_sha256", &f) != napi_ok ||
	    napi_get_value_string_utf8(env, f, hex, sizeof(hex), &n) !=
	    napi_ok || n != PS_SHA256_STRING_LEN - 1 ||
	    strncmp(hex, "sha256:", 7) != 0 ||
	    nb_opt_time(env, v, "first_seen", &s->first_seen) != 0)
		return -1;
	for (i = 0; i < PS_SHA256_LEN; i++) {
		if (sscanf(hex + 7 + 2 * i, "%1x%1x", &hi, &lo) != 2)
			return -1;
		byte = (unsigned char)(hi << 4 | lo);
		s->payload_sha256[i] = byte;
	}
	s->version = (uint64_t)version;
	return 0;
}

/* indexStateCheck(seen or null, handle): throws index_rollback or
 * index_equivocation; synchronous (nothing is read). */
napi_value
nb_index_state_check_js(napi_env env, napi_callback_info info)
{
	struct nb_index *h;
	struct nb_args a;
	ps_index_seen seen;
	napi_valuetype type = napi_undefined;
	ps_error err;

	if (nb_args(env, info, &a) != 0 || a.count < 2 ||
	    (h = index_of(env, a.v[1])) == NULL)
		return NULL;
	napi_typeof(env, a.v[0], &type);
	if (type == napi_object && seen_read(env, a.v[0], &seen) != 0) {
		napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "packsign: "
		    "seen must be what indexStateLoad() returned");
		return NULL;
	}
	if (ps_index_state_check(type == napi_object ? &seen : NULL, h->ix,
	    &err) != 0)
		return nb_throw(env, &err);
	return NULL;
}

static void
state_record_run(struct nb_call *c)
{
	struct state_call *x = (struct state_call *)c;

	c->rc = ps_index_state_record(x->data_dir, x->h->ix, x->now,
	    &x->recorded, &c->err);
}

static napi_value
state_record_done(napi_env env, struct nb_call *c, int *reject)
{
	struct state_call *x = (struct state_call *)c;

	napi_delete_reference(env, x->keep);
	index_unbusy(x->h);
	if ((*reject = c->rc != 0))
		return nb_error(env, &c->err, NULL);
	return nb_bool(env, x->recorded);
}

static const struct nb_ops state_record_ops = { "packsign.indexStateRecord",
    1, state_record_run, state_record_done, state_release, NULL };

/* Holds the index for a call on another thread. */
static int
index_hold(napi_env env, napi_value handle, napi_ref *keep,
    struct nb_index **out)
{
	if ((*out = index_of(env, handle)) == NULL ||
	    napi_create_reference(env, handle, 1, keep) != napi_ok)
		return -1;
	(*out)->busy++;
	return 0;
}

/* (dataDir, handle, now: seconds since the epoch). */
napi_value
nb_index_state_record_js(napi_env env, napi_callback_info info)
{
	struct state_call *x;
	struct nb_args a;

	if (nb_args(env, info, &a) != 0 || a.count < 3 ||
	    (x = nb_call_new(env, &state_record_ops, sizeof(*x))) == NULL)
		return NULL;
	if (nb_arg_string(env, a.v[0], &x->base, "dataDir", &x->data_dir) !=
	    0 || napi_get_value_int64(env, a.v[2], &x->now) != napi_ok ||
	    index_hold(env, a.v[1], &x->keep, &x->h) != 0) {
		nb_call_discard(&x->base);
		napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "packsign: "
		    "indexStateRecord(dataDir, index, {now})");
		return NULL;
	}
	return nb_call_start(env, &x->base, NULL);
}

/* ------------------------------------------------------ installIndexed */

struct indexed_call {
	struct nb_install in;       /* first: an nb_install and an nb_call */
	ps_index_install_options io;
	const ps_index_entry *entry;
	napi_ref keep;
	struct nb_index *h;
};

static void
indexed_run(struct nb_call *c)
{
	struct indexed_call *x = (struct indexed_call *)c;

	c->rc = -1;
	if (nb_install_prepare(&x->in) == 0)
		c->rc = ps_install_indexed(x->h->ix, x->entry, &x->io, &x->in.o,
		    &x->in.fetch, &x->in.result, &c->err);
}

static napi_value
indexed_done(napi_env env, struct nb_call *c, int *reject)
{
	struct indexed_call *x = (struct indexed_call *)c;

	napi_delete_reference(env, x->keep);
	index_unbusy(x->h);
	return nb_install_done(env, c, reject);
}

static const struct nb_ops indexed_ops = { "packsign.installIndexed", 1,
    indexed_run, indexed_done, nb_install_release, nb_install_event };

/* The entry of the index that `entry` ({format, id, version}) names. */
static int
entry_find(napi_env env, napi_value entry, struct indexed_call *x)
{
	const char *id = NULL, *version = NULL;
	ps_format format = PS_FORMAT_UNKNOWN;

	if (nb_opt_string(env, entry, "id", &x->in.base, &id) != 0 ||
	    nb_opt_string(env, entry, "version", &x->in.base, &version) != 0 ||
	    nb_opt_format(env, entry, "format", &format) != 0)
		return -1;
	if (id == NULL || version == NULL || (x->entry = ps_index_find(
	    x->h->ix, format, id, version)) == NULL) {
		napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "packsign: "
		    "the entry is not one of this index (resolve() it)");
		return -1;
	}
	x->in.archive = x->entry->archive_url;
	return 0;
}

/* (handle, entry, options, onEvent). */
napi_value
nb_install_indexed_js(napi_env env, napi_callback_info info)
{
	struct indexed_call *x;
	struct nb_args a;

	if (nb_args(env, info, &a) != 0 || a.count < 3 ||
	    (x = nb_call_new(env, &indexed_ops, sizeof(*x))) == NULL)
		return NULL;
	ps_index_install_options_init(&x->io);
	if ((x->h = index_of(env, a.v[0])) == NULL ||
	    entry_find(env, a.v[1], x) != 0 ||
	    nb_install_read(env, a.v[2], &x->in) != 0 ||
	    nb_opt_bool(env, a.v[2], "allowYanked", &x->io.allow_yanked) != 0 ||
	    nb_opt_bool(env, a.v[2], "requireState", &x->io.require_state) !=
	    0 || nb_opt_bool(env, a.v[2], "recordState", &x->io.record_state) !=
	    0 || index_hold(env, a.v[0], &x->keep, &x->h) != 0) {
		nb_call_discard(&x->in.base);
		return NULL;
	}
	return nb_call_start(env, &x->in.base, a.count > 3 ? a.v[3] : NULL);
}
