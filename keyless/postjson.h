/* Internal header of keyless/: a JSON request to a Sigstore service.
 *
 * The body is serialized, POSTed through net/ (https, TLS verified, no
 * redirect followed, the answer bounded) and wiped after the request
 * when it held a secret (Fulcio's request holds the identity token).
 */
#ifndef KEYLESS_POSTJSON_H
#define KEYLESS_POSTJSON_H

#include <stddef.h>

#include <jansson.h>

#include "packsign.h"

/*
 * POSTs `body` to `url`; *answer the JSON object the service answered
 * (at most `max` bytes).  Every failure is `code` (exit 2) naming
 * `service`; a transfer's own code is in its message.
 */
int keyless_post_json(const ps_fetch_options *fetch, const char *url,
    json_t *body, size_t max, const char *service, const char *code,
    json_t **answer, ps_error *err);

#endif
