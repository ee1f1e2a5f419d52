/*
 * ps_sign: sign/'s signing run (sign_pack) with the services it was asked
 * to use, which sign/ itself cannot reach: a timestamp authority for the
 * new signature's bundle (--tsa-url), or keyless signing (Fulcio, Rekor).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "keyless/signature.h"
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

/* Co-signing: the key's bundle's timestamp (--tsa-url). */
static int
cosign_timestamp_hook(void *ctx, const unsigned char *sig, size_t sig_len,
    unsigned char **der, size_t *der_len, ps_error *err)
{
	const keyless_run *k = ctx;

	return keyless_tsa_timestamp(k->fetch, k->tsa_url, sig, sig_len, der,
	    der_len, err);
}

/* Keyless alone writes its one bundle; with a key (co-signing) the key's
 * outputs are as without keyless, but no --append. */
static int
check_keyless(const ps_seckey *key, const ps_sign_options *o, ps_error *err)
{
	if (o->append)
		return util_fail(err, "invalid_argument", NULL, "a keyless "
		    "signature lives in a bundle of its own: keyless excludes "
		    "append");
	if (key == NULL && (o->minisig || o->bundle || o->tsa_url != NULL))
		return util_fail(err, "invalid_argument", NULL, "keyless signing "
		    "without a key writes its one bundle: it excludes minisig, "
		    "bundle and tsa_url");
	if (o->tsa_url != NULL && !o->bundle)
		return util_fail(err, "invalid_argument", o->tsa_url, "a "
		    "timestamp is written into a Sigstore bundle: tsa_url needs "
		    "bundle");
	return 0;
}

/* The token checked, the endpoints and the root loaded: all before any
 * request, and before the pack is read. */
static int
keyless_setup(const ps_sign_options *o, keyless_run *k, ps_error *err)
{
	if (keyless_token_parse(o->identity_token, (int64_t)time(NULL),
	    &k->token, err) != 0 ||
	    keyless_endpoints_load(o->signing_config, (int64_t)time(NULL),
	    &k->endpoints, err) != 0)
		return -1;
	/* A Rekor v2 entry has no SET, so no integrated time a verifier
	 * trusts: the signing time must come from a TSA. */
	if (k->endpoints.rekor_version == 2 && k->endpoints.tsa == NULL)
		return util_fail(err, "signing_config_invalid", o->signing_config,
		    "the signing config selects Rekor v2, whose entries prove no "
		    "signing time, and no timestamp authority valid now: list a "
		    "tsaUrls entry (majorApiVersion 1), or a Rekor v1");
	k->root_label = o->trusted_root != NULL ? o->trusted_root :
	    "the public-good trusted root";
	return o->trusted_root != NULL ?
	    ps_sigstore_root_load(o->trusted_root, &k->root, err) :
	    ps_sigstore_root_public_good(&k->root, err);
}

static int
sign_keyless(const char *path, const ps_seckey *key, const ps_sign_options *o,
    const ps_fetch_options *fetch, ps_sign_result **out, ps_error *err)
{
	keyless_run k;
	sign_hooks hooks;
	int rc;

	memset(&k, 0, sizeof(k));
	memset(&hooks, 0, sizeof(hooks));
	k.fetch = fetch;
	k.jwt = o->identity_token;
	rc = keyless_setup(o, &k, err);
	if (rc == 0) {
		hooks.keyless = keyless_sign_statement;
		hooks.identity = k.token->identity;
		hooks.ctx = &k;
		k.tsa_url = key != NULL ? o->tsa_url : NULL;
		if (k.tsa_url != NULL)
			hooks.timestamp = cosign_timestamp_hook;
		rc = sign_pack(path, key, o, &hooks, out, err);
	}
	keyless_token_free(k.token);
	keyless_endpoints_clear(&k.endpoints);
	ps_sigstore_root_free(k.root);
	return rc;
}

int
ps_sign(const char *path, const ps_seckey *key, const ps_sign_options *o,
    ps_sign_result **out, ps_error *err)
{
	ps_fetch_options defaults;
	keyless_tsa_ctx tsa;
	sign_hooks hooks;

	*out = NULL;
	ps_fetch_options_init(&defaults);
	if (o->keyless)
		return check_keyless(key, o, err) != 0 ? -1 :
		    sign_keyless(path, key, o, o->fetch != NULL ? o->fetch : &defaults,
		    out, err);
	if (o->tsa_url == NULL)
		return sign_pack(path, key, o, NULL, out, err);
	if (!o->bundle)
		return util_fail(err, "invalid_argument", o->tsa_url, "a "
		    "timestamp is written into a Sigstore bundle: tsa_url needs "
		    "bundle");
	memset(&hooks, 0, sizeof(hooks));
	tsa.fetch = o->fetch != NULL ? o->fetch : &defaults;
	tsa.url = o->tsa_url;
	hooks.timestamp = timestamp_hook;
	hooks.ctx = &tsa;
	return sign_pack(path, key, o, &hooks, out, err);
}
