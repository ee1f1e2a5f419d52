/* signing_config.json v0.2: the services a keyless signer uses. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "keyless/config.h"
#include "sigstore/rfc3339.h"
#include "sign/dsse.h"
#include "util/error.h"
#include "util/strings.h"

static int
invalid(ps_error *err, const char *path, const char *what)
{
	return util_fail(err, "signing_config_invalid", path, "read the "
	    "Sigstore signing config: %s", what);
}

/* 1 when validFor holds `now`: start at or before it, end (when
 * present) after it. */
static int
valid_now(json_t *service, int64_t now)
{
	json_t *v = json_object_get(service, "validFor");
	json_t *start = json_object_get(v, "start"), *end = json_object_get(v,
	    "end");
	sigstore_time t;

	if (!json_is_string(start) ||
	    sigstore_time_parse(json_string_value(start), &t) != 0 ||
	    t.sec > now)
		return 0;
	if (end == NULL)
		return 1;
	return json_is_string(end) &&
	    sigstore_time_parse(json_string_value(end), &t) == 0 && t.sec > now;
}

/* The URL of the first service of `list` valid now whose API version
 * is in [lo, hi]; *version its version. */
static const char *
pick(json_t *root, const char *list, int lo, int hi, int64_t now,
    int *version)
{
	json_t *services = json_object_get(root, list), *s, *url, *v;
	size_t i;

	json_array_foreach(services, i, s) {
		url = json_object_get(s, "url");
		v = json_object_get(s, "majorApiVersion");
		if (!json_is_string(url) || !json_is_integer(v) ||
		    strncmp(json_string_value(url), "https://", 8) != 0 ||
		    json_integer_value(v) < lo || json_integer_value(v) > hi ||
		    !valid_now(s, now))
			continue;
		if (version != NULL)
			*version = (int)json_integer_value(v);
		return json_string_value(url);
	}
	return NULL;
}

static json_t *
read_config(const char *path, ps_error *err)
{
	unsigned char *bytes = NULL;
	json_t *root;
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0) {
		util_fail_errno(err, errno == ENOENT ? "not_found" : "io_error",
		    path, "open", errno);
		return NULL;
	}
	rc = sign_dsse_read_bytes(fd, path, &bytes, &len, err);
	close(fd);
	if (rc != 0)
		return NULL;
	root = json_loadb((const char *)bytes, len, JSON_REJECT_DUPLICATES, NULL);
	free(bytes);
	if (!json_is_object(root)) {
		json_decref(root);
		invalid(err, path, "not a JSON object");
		return NULL;
	}
	return root;
}

static int
from_json(json_t *root, const char *path, int64_t now, keyless_endpoints *e,
    ps_error *err)
{
	json_t *type = json_object_get(root, "mediaType");
	const char *ca, *rekor;

	if (!json_is_string(type) ||
	    strcmp(json_string_value(type), KEYLESS_SIGNING_CONFIG_V02) != 0) {
		invalid(err, path, "not a signing config v0.2");
		return util_error_expect(err, KEYLESS_SIGNING_CONFIG_V02,
		    json_is_string(type) ? "another mediaType" : "no mediaType");
	}
	ca = pick(root, "caUrls", 1, 1, now, NULL);
	rekor = pick(root, "rekorTlogUrls", 1, 2, now, &e->rekor_version);
	if (ca == NULL || rekor == NULL)
		return invalid(err, path, ca == NULL ? "no https Fulcio (caUrls, "
		    "API version 1) valid now" : "no https Rekor (rekorTlogUrls, "
		    "API version 1 or 2) valid now");
	if (util_strdup(&e->fulcio, ca, path, err) != 0 ||
	    util_strdup(&e->rekor, rekor, path, err) != 0)
		return -1;
	return util_strdup(&e->tsa, pick(root, "tsaUrls", 1, 1, now, NULL),
	    path, err);
}

int
keyless_endpoints_load(const char *path, int64_t now, keyless_endpoints *e,
    ps_error *err)
{
	json_t *root;
	int rc;

	memset(e, 0, sizeof(*e));
	if (path == NULL) {
		e->rekor_version = 1;
		return util_strdup(&e->fulcio, KEYLESS_PUBLIC_FULCIO, NULL, err) ||
		    util_strdup(&e->rekor, KEYLESS_PUBLIC_REKOR, NULL, err) ? -1 : 0;
	}
	if ((root = read_config(path, err)) == NULL)
		return -1;
	rc = from_json(root, path, now, e, err);
	json_decref(root);
	if (rc != 0)
		keyless_endpoints_clear(e);
	return rc;
}

void
keyless_endpoints_clear(keyless_endpoints *e)
{
	free(e->fulcio);
	free(e->rekor);
	free(e->tsa);
	memset(e, 0, sizeof(*e));
}
