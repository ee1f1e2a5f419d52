/*
 * JavaScript arguments into C options.  index.js passes one plain object
 * of options per call, its keys already checked; here each value is read
 * with its type checked again (a TypeError naming the key otherwise) and
 * strings are copied into the call, so that nothing the thread reads
 * belongs to JavaScript.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

static int
type_error(napi_env env, const char *name, const char *expected)
{
	char text[256];

	snprintf(text, sizeof(text), "packsign: %s must be %s", name, expected);
	napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", text);
	return -1;
}

/* obj[name], or NULL when absent (undefined or null). */
static int
property(napi_env env, napi_value obj, const char *name, napi_value *out)
{
	napi_valuetype type;
	bool has = false;

	*out = NULL;
	if (obj == NULL || napi_typeof(env, obj, &type) != napi_ok ||
	    type != napi_object)
		return 0;
	if (napi_has_named_property(env, obj, name, &has) != napi_ok)
		return -1;
	if (!has || napi_get_named_property(env, obj, name, out) != napi_ok)
		return has ? -1 : 0;
	if (napi_typeof(env, *out, &type) != napi_ok)
		return -1;
	if (type == napi_undefined || type == napi_null)
		*out = NULL;
	return 0;
}

/* A short string into `buf`: -1 (nothing thrown) when `v` is no string,
 * holds a NUL or does not fit, so that nothing is matched on a prefix. */
int
nb_small_string(napi_env env, napi_value v, char *buf, size_t size)
{
	size_t len = 0;

	if (napi_get_value_string_utf8(env, v, NULL, 0, &len) != napi_ok ||
	    len >= size || napi_get_value_string_utf8(env, v, buf, size, &len) !=
	    napi_ok || strlen(buf) != len)
		return -1;
	return 0;
}

int
nb_arg_string(napi_env env, napi_value v, struct nb_call *c,
    const char *what, const char **out)
{
	size_t len = 0;
	char *buf;

	if (v == NULL || napi_get_value_string_utf8(env, v, NULL, 0, &len) !=
	    napi_ok)
		return type_error(env, what, "a string");
	if ((buf = malloc(len + 1)) == NULL) {
		napi_throw_error(env, NULL, "packsign: out of memory");
		return -1;
	}
	napi_get_value_string_utf8(env, v, buf, len + 1, &len);
	if (strlen(buf) != len) {
		free(buf);
		return type_error(env, what, "a string without NUL characters");
	}
	*out = nb_call_keep(c, buf, len);
	free(buf);
	if (*out == NULL) {
		napi_throw_error(env, NULL, "packsign: out of memory");
		return -1;
	}
	return 0;
}

int
nb_opt_string(napi_env env, napi_value obj, const char *name,
    struct nb_call *c, const char **out)
{
	napi_value v;

	*out = NULL;
	if (property(env, obj, name, &v) != 0)
		return -1;
	return v == NULL ? 0 : nb_arg_string(env, v, c, name, out);
}

int
nb_opt_bool(napi_env env, napi_value obj, const char *name, int *out)
{
	napi_value v;
	bool b;

	if (property(env, obj, name, &v) != 0)
		return -1;
	if (v == NULL)
		return 0;
	if (napi_get_value_bool(env, v, &b) != napi_ok)
		return type_error(env, name, "a boolean");
	*out = b ? 1 : 0;
	return 0;
}

/* A number that is an integer from `min` to 2^53 - 1. */
static int
integer(napi_env env, napi_value v, const char *name, double min,
    int64_t *out)
{
	double d;

	if (napi_get_value_double(env, v, &d) != napi_ok || d != d ||
	    d < min || d > 9007199254740991.0 || (double)(int64_t)d != d)
		return type_error(env, name, "an integer within range");
	*out = (int64_t)d;
	return 0;
}

int
nb_opt_int64(napi_env env, napi_value obj, const char *name, int64_t *out)
{
	napi_value v;

	if (property(env, obj, name, &v) != 0)
		return -1;
	return v == NULL ? 0 : integer(env, v, name, -9007199254740991.0, out);
}

int
nb_opt_uint64(napi_env env, napi_value obj, const char *name, uint64_t *out)
{
	napi_value v;
	int64_t n;

	if (property(env, obj, name, &v) != 0)
		return -1;
	if (v == NULL)
		return 0;
	if (integer(env, v, name, 0, &n) != 0)
		return -1;
	*out = (uint64_t)n;
	return 0;
}

int
nb_opt_time(napi_env env, napi_value obj, const char *name, int64_t *out)
{
	napi_valuetype type;
	char text[64];
	napi_value v;

	if (property(env, obj, name, &v) != 0)
		return -1;
	if (v == NULL)
		return 0;
	if (napi_typeof(env, v, &type) == napi_ok && type == napi_number)
		return integer(env, v, name, -9007199254740991.0, out);
	if (type != napi_string || nb_small_string(env, v, text, sizeof(text)) !=
	    0 || ps_time_parse(text, out) != 0)
		return type_error(env, name, "a Date, seconds since the epoch, "
		    "or RFC 3339 UTC text (2026-01-02T03:04:05Z)");
	return 0;
}

int
nb_opt_format(napi_env env, napi_value obj, const char *name, ps_format *out)
{
	char text[32];
	napi_value v;

	*out = PS_FORMAT_UNKNOWN;
	if (property(env, obj, name, &v) != 0)
		return -1;
	if (v == NULL)
		return 0;
	if (nb_small_string(env, v, text, sizeof(text)) != 0 ||
	    ps_format_parse(text, out) != 0)
		return type_error(env, name, "one of \"soyapack\", \"holon\", "
		    "\"autograph\", \"agentpack\"");
	return 0;
}

static int
array_of(napi_env env, napi_value obj, const char *name, napi_value *arr,
    uint32_t *n)
{
	bool is = false;

	*n = 0;
	if (property(env, obj, name, arr) != 0)
		return -1;
	if (*arr == NULL)
		return 0;
	if (napi_is_array(env, *arr, &is) != napi_ok || !is ||
	    napi_get_array_length(env, *arr, n) != napi_ok)
		return type_error(env, name, "an array of strings");
	return 0;
}

int
nb_opt_classes(napi_env env, napi_value obj, const char *name, unsigned *out)
{
	napi_value arr, v;
	char text[32];
	uint32_t i, n;
	unsigned bit;

	if (array_of(env, obj, name, &arr, &n) != 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (napi_get_element(env, arr, i, &v) != napi_ok ||
		    nb_small_string(env, v, text, sizeof(text)) != 0 ||
		    (bit = ps_consent_class_by_name(text)) == 0)
			return type_error(env, name, "consent classes "
			    "(\"permissions\", \"trust\", \"prompts\", \"code\")");
		*out |= bit;
	}
	return 0;
}

int
nb_opt_string_list(napi_env env, napi_value obj, const char *name,
    struct nb_call *c, const char ***out, size_t *count)
{
	const char **list;
	napi_value arr, v;
	uint32_t i, n;

	*out = NULL;
	*count = 0;
	if (array_of(env, obj, name, &arr, &n) != 0)
		return -1;
	if (n == 0)
		return 0;
	list = nb_call_alloc(c, sizeof(*list) * n);
	if (list == NULL) {
		napi_throw_error(env, NULL, "packsign: out of memory");
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (napi_get_element(env, arr, i, &v) != napi_ok ||
		    nb_arg_string(env, v, c, name, &list[i]) != 0)
			return -1;
	}
	*out = list;
	*count = n;
	return 0;
}

int
nb_opt_trust(napi_env env, napi_value obj, struct nb_call *c,
    struct nb_trust_source *src, int required)
{
	if (nb_opt_string(env, obj, "trust", c, &src->policy) != 0 ||
	    nb_opt_string(env, obj, "publicKey", c, &src->public_key) != 0)
		return -1;
	if (src->policy != NULL && src->public_key != NULL)
		return type_error(env, "trust and publicKey", "given one at a "
		    "time (a policy file, or one public key as -p takes)");
	if (required && src->policy == NULL && src->public_key == NULL)
		return type_error(env, "trust or publicKey", "given (a policy "
		    "file, or one public key file)");
	return 0;
}

int
nb_trust_load(const struct nb_trust_source *src, ps_trust **out,
    ps_error *err)
{
	ps_pubkey *key = NULL;
	int rc;

	*out = NULL;
	if (src->policy != NULL)
		return ps_trust_load_file(src->policy, out, err);
	if (src->public_key == NULL)
		return 0;
	if (ps_pubkey_load_file(src->public_key, &key, err) != 0)
		return -1;
	rc = ps_trust_from_pubkey(key, src->public_key, out, err);
	ps_pubkey_free(key);
	return rc;
}

int
nb_opt_verify(napi_env env, napi_value obj, struct nb_call *c,
    ps_verify_options *o)
{
	const char **bundles = NULL;
	size_t count = 0;

	if (nb_opt_string(env, obj, "sigPath", c, &o->sig_path) != 0 ||
	    nb_opt_string(env, obj, "signedBy", c, &o->signed_by) != 0 ||
	    nb_opt_string(env, obj, "sourceRepo", c, &o->source_repo) != 0 ||
	    nb_opt_string(env, obj, "sourceCommit", c, &o->source_commit) !=
	    0 || nb_opt_bool(env, obj, "requireSource", &o->require_source) !=
	    0 || nb_opt_bool(env, obj, "allowDirty", &o->allow_dirty) != 0 ||
	    nb_opt_string(env, obj, "rebuildFrom", c, &o->rebuild_from) != 0 ||
	    nb_opt_bool(env, obj, "deep", &o->deep) != 0 ||
	    nb_opt_time(env, obj, "at", &o->at) != 0 ||
	    nb_opt_string_list(env, obj, "bundles", c, &bundles, &count) != 0)
		return -1;
	o->bundle_paths = bundles;
	o->bundle_count = count;
	return 0;
}

/* ps_fetch_options' cancelled: the call's abort. */
static int
fetch_cancelled(void *ctx)
{
	return nb_call_aborted(ctx);
}

int
nb_opt_fetch(napi_env env, napi_value obj, struct nb_call *c,
    ps_fetch_options *o)
{
	int64_t connect = o->connect_timeout, low = o->low_speed_time;
	int64_t total = o->timeout;

	if (nb_opt_string(env, obj, "caFile", c, &o->ca_file) != 0 ||
	    nb_opt_string(env, obj, "proxy", c, &o->proxy) != 0 ||
	    nb_opt_string(env, obj, "noProxy", c, &o->no_proxy) != 0 ||
	    nb_opt_string(env, obj, "sigUrl", c, &o->sig_url) != 0 ||
	    nb_opt_uint64(env, obj, "maxDownload", &o->max_download) != 0 ||
	    nb_opt_int64(env, obj, "connectTimeout", &connect) != 0 ||
	    nb_opt_int64(env, obj, "lowSpeedTime", &low) != 0 ||
	    nb_opt_int64(env, obj, "timeout", &total) != 0)
		return -1;
	if (connect < 0 || low < 0 || total < 0)
		return type_error(env, "timeouts", "0 or more seconds");
	o->connect_timeout = (long)connect;
	o->low_speed_time = (long)low;
	o->timeout = (long)total;
	o->cancelled = fetch_cancelled;
	o->cancelled_ctx = c;
	return 0;
}
