/*
 * ps_sign: sign/'s signing run (sign_pack) with the services it was asked
 * to use, which sign/ itself cannot reach: a timestamp authority for the
 * new signature's bundle (--tsa-url).
 */
#include <stdlib.h>

#include "keyless/tsa.h"
#include "sign/signpack.h"
#include "util/error.h"

typedef struct keyless_tsa_ctx {
	const ps_fetch_options *fetch;
	const char *url;
} keyless_tsa_ctx;

static int
timestamp_hook(void *ctx, const unsigned char *sig, size_t sig_len,
    unsigned char **der, size_t *der_len, ps_error *err)
{
	const keyless_tsa_ctx *c = ctx;

	return keyless_tsa_timestamp(c->fetch, c->url, sig, sig_len, der,
	    der_len, err);
}

int
ps_sign(const char *path, const ps_seckey *key, const ps_sign_options *o,
    ps_sign_result **out, ps_error *err)
{
	ps_fetch_options defaults;
	keyless_tsa_ctx tsa;
	sign_hooks hooks = { NULL, NULL };

	*out = NULL;
	if (o->tsa_url == NULL)
		return sign_pack(path, key, o, NULL, out, err);
	if (!o->bundle)
		return util_fail(err, "invalid_argument", o->tsa_url, "a "
		    "timestamp is written into a Sigstore bundle: tsa_url needs "
		    "bundle");
	ps_fetch_options_init(&defaults);
	tsa.fetch = o->fetch != NULL ? o->fetch : &defaults;
	tsa.url = o->tsa_url;
	hooks.timestamp = timestamp_hook;
	hooks.ctx = &tsa;
	return sign_pack(path, key, o, &hooks, out, err);
}
