/*
 * GitHub Actions' OIDC token for Sigstore: GET ACTIONS_ID_TOKEN_REQUEST_URL
 * with "&audience=sigstore" and the request token as a bearer token; the
 * answer is {"value": JWT}.  The CLI reads the two variables; the library
 * is handed them (docs/formats/signature.md, section 9.5).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sodium.h>

#include "keyless/token.h"
#include "net/fetch.h"
#include "util/error.h"

#define GITHUB "GitHub Actions for an identity token"

static int
failed(ps_error *err, const char *what)
{
	return util_fail(err, "identity_token_missing",
	    "ACTIONS_ID_TOKEN_REQUEST_URL", "asked " GITHUB ": %s", what);
}

static int
take_value(net_sink *sink, ps_secret **token, ps_error *err)
{
	json_t *root = json_loadb((const char *)sink->memory, sink->received,
	    JSON_REJECT_DUPLICATES, NULL), *v = json_object_get(root, "value");
	int rc = 0;

	if (!json_is_string(v) || json_string_length(v) == 0 ||
	    json_string_length(v) > KEYLESS_TOKEN_MAX)
		rc = failed(err, "the answer is not {\"value\": TOKEN}");
	else if ((*token = ps_secret_from(json_string_value(v),
	    json_string_length(v) + 1)) == NULL)
		rc = util_fail_oom(err, NULL);
	else
		(void)ps_secret_set_len(*token, json_string_length(v));
	if (json_is_string(v))
		sodium_memzero((char *)json_string_value(v), json_string_length(v));
	json_decref(root);
	return rc;
}

int
ps_keyless_github_token(const ps_fetch_options *fetch, const char *request_url,
    const char *request_token, ps_secret **token, ps_error *err)
{
	net_body get = { NULL, "application/json", NULL, 0, request_token };
	net_sink sink;
	char *url = NULL, what[PS_ERROR_TEXT_MAX];
	int rc;

	*token = NULL;
	if (request_url == NULL || request_token == NULL)
		return failed(err, "ACTIONS_ID_TOKEN_REQUEST_URL and "
		    "ACTIONS_ID_TOKEN_REQUEST_TOKEN are both needed (the job's "
		    "permissions: id-token: write)");
	if (asprintf(&url, "%s%saudience=" KEYLESS_AUDIENCE, request_url,
	    strchr(request_url, '?') != NULL ? "&" : "?") < 0)
		return util_fail_oom(err, NULL);
	memset(&sink, 0, sizeof(sink));
	sink.fd = -1;
	sink.to_memory = 1;
	sink.max = 64 * 1024;
	sink.max_why = "an identity token's answer may hold";
	rc = net_post(fetch, url, &get, &sink, err);
	free(url);
	if (rc != 0) {
		snprintf(what, sizeof(what), "the request failed [%s]: %.400s",
		    err->code, err->message);
		return failed(err, what);
	}
	rc = take_value(&sink, token, err);
	sodium_memzero(sink.memory, sink.received);
	free(sink.memory);
	return rc;
}
