/* One JSON POST to a Sigstore service through net/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "keyless/postjson.h"
#include "net/fetch.h"
#include "util/error.h"

/* net/'s error (its code, its message) as the cause of `code`; a status
 * error keeps the service's answer out: it may quote the request. */
static int
wrap(ps_error *err, const char *code, const char *url, const char *service)
{
	char what[PS_ERROR_TEXT_MAX];

	snprintf(what, sizeof(what), "the request failed [%s]: %.400s",
	    err->code, err->message);
	return util_fail(err, code, url, "asked %s: %s", service, what);
}

int
keyless_post_json(const ps_fetch_options *fetch, const char *url,
    json_t *body, size_t max, const char *service, const char *code,
    json_t **answer, ps_error *err)
{
	net_sink sink;
	net_body req = { "application/json", "application/json", NULL, 0,
	    NULL };
	char *text = json_dumps(body, JSON_COMPACT);
	int rc;

	*answer = NULL;
	if (text == NULL)
		return util_fail_oom(err, url);
	req.bytes = text;
	req.len = strlen(text);
	memset(&sink, 0, sizeof(sink));
	sink.fd = -1;
	sink.to_memory = 1;
	sink.max = max;
	sink.max_why = "a Sigstore service's answer may hold";
	rc = net_post(fetch, url, &req, &sink, err);
	sodium_memzero(text, req.len);
	free(text);
	if (rc != 0)
		return wrap(err, code, url, service);
	*answer = sink.received > 0 ? json_loadb((const char *)sink.memory,
	    sink.received, JSON_REJECT_DUPLICATES, NULL) : NULL;
	free(sink.memory);
	if (!json_is_object(*answer)) {
		json_decref(*answer);
		*answer = NULL;
		return util_fail(err, code, url, "asked %s: the answer is not a "
		    "JSON object", service);
	}
	return 0;
}
