/*
 * sign: a pack directory or archive signed with a minisign secret key
 * given as a file path or as the key file's bytes in a Buffer.  A Buffer
 * (the key, the passphrase) is copied into the library's guarded memory
 * (ps_secret) and zeroed before sign() returns: the secret then lives in
 * sodium_malloc'd memory only, wiped when the call ends.  A key is never
 * taken from a JavaScript string (index.js refuses one that looks like key
 * text), since strings cannot be wiped.
 */
#include <stdlib.h>
#include <string.h>

#include "addon.h"

struct sign_call {
	struct nb_call base;
	const char *path;
	const char *key_path;
	ps_secret *key_text;        /* from a Buffer, or read from key_path */
	ps_secret *passphrase;      /* from a Buffer; NULL: none */
	ps_secret *token;           /* keyless: from a Buffer, NUL-terminated */
	ps_sign_options o;
	ps_fetch_options fetch;     /* tsaUrl and keyless: caFile */
	ps_seckey *key;
	ps_sign_result *r;
};

static int
load_key(struct sign_call *x)
{
	ps_error *err = &x->base.err;
	const char *name = x->key_path != NULL ? x->key_path : "key";
	ps_seckey_info info;

	if (x->key_text == NULL && ps_secret_read_file(x->key_path,
	    PS_KEY_FILE_MAX, &x->key_text, err) != 0)
		return -1;
	if (ps_seckey_inspect(ps_secret_bytes(x->key_text),
	    ps_secret_len(x->key_text), name, &info, err) != 0)
		return -1;
	return ps_seckey_parse(ps_secret_bytes(x->key_text),
	    ps_secret_len(x->key_text), name, info.encrypted ? x->passphrase :
	    NULL, &x->key, err);
}

static void
sign_run(struct nb_call *c)
{
	struct sign_call *x = (struct sign_call *)c;

	c->rc = -1;
	if (x->o.keyless) {
		x->o.identity_token = (const char *)ps_secret_bytes(x->token);
		c->rc = ps_sign(x->path, NULL, &x->o, &x->r, &c->err);
		x->o.identity_token = NULL;
	} else if (load_key(x) == 0) {
		c->rc = ps_sign(x->path, x->key, &x->o, &x->r, &c->err);
	}
	/* The secrets are wiped now, not when the promise is collected. */
	ps_seckey_free(x->key);
	ps_secret_free(x->key_text);
	ps_secret_free(x->passphrase);
	ps_secret_free(x->token);
	x->key = NULL;
	x->key_text = NULL;
	x->passphrase = NULL;
	x->token = NULL;
}

static napi_value
sign_source(napi_env env, const ps_sign_result *r)
{
	napi_value o;

	if (!r->has_source)
		return nb_null(env);
	o = nb_object(env);
	nb_set(env, o, "repository", nb_text(env, r->source_repository));
	nb_set(env, o, "commit", nb_text(env, r->source_commit));
	nb_set(env, o, "path", nb_text(env, r->source_path));
	nb_set(env, o, "dirty", nb_bool(env, r->source_dirty));
	nb_set(env, o, "manifest_ref", nb_text(env, r->source_manifest_ref));
	return o;
}

/* As `packsign sign --json` (its "predicate": the --predicate-out file
 * asked for, which the result does not hold). */
static napi_value
sign_object(napi_env env, const ps_sign_result *r, const char *predicate_out)
{
	napi_value o = nb_object(env), bundles = nb_array(env);
	size_t i;

	nb_set(env, o, "archive", nb_text(env, r->archive_path));
	nb_set(env, o, "sig", nb_text(env, r->sig_path));
	nb_set(env, o, "minisig", nb_text(env, r->minisig_path));
	nb_set(env, o, "archive_written", nb_bool(env, r->archive_written));
	nb_set(env, o, "format", nb_text(env, ps_format_name(r->format)));
	nb_set(env, o, "id", nb_text(env, r->id));
	nb_set(env, o, "version", nb_text(env, r->version));
	nb_set(env, o, "tree_digest", nb_digest(env, 1, r->tree_digest));
	nb_set(env, o, "archive_digest", nb_digest(env, 1, r->archive_digest));
	nb_set(env, o, "source", sign_source(env, r));
	nb_set(env, o, "prompts", nb_int(env, (int64_t)r->prompt_count));
	nb_set(env, o, "identity", nb_text(env, r->identity));
	nb_set(env, o, "fingerprint", nb_text(env, r->fingerprint));
	nb_set(env, o, "signatures", nb_int(env, (int64_t)r->signature_count));
	for (i = 0; i < r->bundle_count; i++)
		nb_push(env, bundles, nb_text(env, r->bundle_paths[i]));
	nb_set(env, o, "bundles", bundles);
	nb_set(env, o, "predicate", nb_text(env, predicate_out));
	return o;
}

/* A refusal rejects with the partial result and, for manifest_invalid,
 * its diagnostics. */
static napi_value
sign_done(napi_env env, struct nb_call *c, int *reject)
{
	struct sign_call *x = (struct sign_call *)c;
	napi_value o = NULL;

	if (x->r != NULL) {
		o = sign_object(env, x->r, x->o.predicate_out);
		if (c->rc != 0)
			nb_set(env, o, "diagnostics", nb_diags(env,
			    &x->r->diags));
	}
	if ((*reject = c->rc != 0))
		return nb_error(env, &c->err, o);
	return o;
}

static void
sign_release(struct nb_call *c)
{
	struct sign_call *x = (struct sign_call *)c;

	ps_sign_result_free(x->r);
	ps_seckey_free(x->key);
	ps_secret_free(x->key_text);
	ps_secret_free(x->passphrase);
	ps_secret_free(x->token);
}

static const struct nb_ops sign_ops = { "packsign.sign", 0, sign_run,
    sign_done, sign_release, NULL };

/* The bytes of a Buffer as a new secret; the Buffer is zeroed. */
static int
secret_of(napi_env env, napi_value v, const char *what, ps_secret **out)
{
	void *data = NULL;
	size_t len = 0;

	if (napi_get_buffer_info(env, v, &data, &len) != napi_ok) {
		napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", what);
		return -1;
	}
	*out = len > 0 ? ps_secret_from(data, len) : ps_secret_new(1);
	if (len > 0)
		explicit_bzero(data, len);
	if (*out == NULL) {
		napi_throw_error(env, NULL, "packsign: out of memory");
		return -1;
	}
	return 0;
}

/* The identity token of a Buffer, its trailing white space (a file's
 * newline) dropped, as `sign --identity-token FILE` reads it; the Buffer
 * is zeroed.  A NUL byte would cut the token short: refused. */
static int
token_of(napi_env env, napi_value v, ps_secret **out)
{
	unsigned char *data = NULL, *buf;
	ps_secret *secret;
	size_t len = 0, n;
	int nul;

	if (napi_get_buffer_info(env, v, (void **)&data, &len) != napi_ok) {
		napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "packsign: "
		    "identityToken must be a Buffer");
		return -1;
	}
	for (n = len; n > 0 && strchr(" \t\r\n", data[n - 1]) != NULL &&
	    data[n - 1] != '\0'; n--)
		;
	nul = n > 0 && memchr(data, '\0', n) != NULL;
	secret = nul ? NULL : ps_secret_new(n + 1);
	if (secret != NULL) {
		buf = ps_secret_data(secret);
		memcpy(buf, data, n);
		buf[n] = '\0';
		(void)ps_secret_set_len(secret, n);
	}
	if (len > 0)
		explicit_bzero(data, len);
	if (nul)
		napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "packsign: "
		    "identityToken holds a NUL byte");
	else if (secret == NULL)
		napi_throw_error(env, NULL, "packsign: out of memory");
	*out = secret;
	return secret != NULL ? 0 : -1;
}

static int
read_secrets(napi_env env, napi_value opts, struct sign_call *x)
{
	napi_value v;
	bool has = false;
	ps_error err;

	if (napi_has_named_property(env, opts, "keyData", &has) == napi_ok &&
	    has && (napi_get_named_property(env, opts, "keyData", &v) !=
	    napi_ok || secret_of(env, v, "packsign: key must be a path or a "
	    "Buffer", &x->key_text) != 0))
		return -1;
	if (napi_has_named_property(env, opts, "passphrase", &has) == napi_ok &&
	    has && (napi_get_named_property(env, opts, "passphrase", &v) !=
	    napi_ok || secret_of(env, v, "packsign: passphrase must be a "
	    "Buffer", &x->passphrase) != 0))
		return -1;
	if (napi_has_named_property(env, opts, "identityToken", &has) ==
	    napi_ok && has && (napi_get_named_property(env, opts,
	    "identityToken", &v) != napi_ok || token_of(env, v, &x->token) != 0))
		return -1;
	if (x->passphrase != NULL && ps_secret_passphrase_line(x->passphrase,
	    "passphrase", &err) != 0) {
		nb_throw(env, &err);
		return -1;
	}
	return 0;
}

/* tsaUrl, caFile, predicateVersion, predicateOut and keyless signing's
 * options. */
static int
read_keyless_options(napi_env env, napi_value opts, struct sign_call *x)
{
	ps_sign_options *o = &x->o;
	int64_t predicate = 0;

	if (nb_opt_string(env, opts, "tsaUrl", &x->base, &o->tsa_url) != 0 ||
	    nb_opt_fetch(env, opts, &x->base, &x->fetch) != 0 ||
	    nb_opt_bool(env, opts, "keyless", &o->keyless) != 0 ||
	    nb_opt_string(env, opts, "signingConfig", &x->base,
	    &o->signing_config) != 0 || nb_opt_string(env, opts, "trustedRoot",
	    &x->base, &o->trusted_root) != 0 || nb_opt_string(env, opts,
	    "predicateOut", &x->base, &o->predicate_out) != 0 ||
	    nb_opt_int64(env, opts,
	    "predicateVersion", &predicate) != 0)
		return -1;
	if (predicate < 0 || predicate > 2) {
		napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "packsign: "
		    "predicateVersion must be 1 or 2");
		return -1;
	}
	o->predicate_version = (int)predicate;
	o->fetch = &x->fetch;
	return 0;
}

static int
read_sign_options(napi_env env, napi_value opts, struct sign_call *x)
{
	ps_sign_options *o = &x->o;
	const char *compression = NULL;

	if (nb_opt_string(env, opts, "keyPath", &x->base, &x->key_path) != 0 ||
	    nb_opt_string(env, opts, "output", &x->base, &o->output) != 0 ||
	    nb_opt_string(env, opts, "identity", &x->base, &o->identity) != 0 ||
	    nb_opt_string(env, opts, "publicKey", &x->base,
	    &o->public_key_path) != 0 || nb_opt_string(env, opts, "sourceRepo",
	    &x->base, &o->source_repo) != 0 || nb_opt_string(env, opts,
	    "sourceCommit", &x->base, &o->source_commit) != 0 ||
	    nb_opt_bool(env, opts, "allowDirty", &o->allow_dirty) != 0 ||
	    nb_opt_bool(env, opts, "append", &o->append) != 0 ||
	    nb_opt_bool(env, opts, "force", &o->force) != 0 ||
	    nb_opt_bool(env, opts, "minisig", &o->minisig) != 0 ||
	    nb_opt_bool(env, opts, "bundle", &o->bundle) != 0 ||
	    nb_opt_int64(env, opts, "mtime", &o->pack.mtime) != 0 ||
	    nb_opt_string(env, opts, "compression", &x->base, &compression) != 0 ||
	    read_keyless_options(env, opts, x) != 0)
		return -1;
	if (compression != NULL && ps_compression_by_name(compression,
	    &o->pack.compression) != 0) {
		napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "packsign: "
		    "compression must be \"none\", \"gzip\" or \"zstd\"");
		return -1;
	}
	return 0;
}

/* (path, options {keyPath | keyData, passphrase, output, ...}). */
napi_value
nb_sign_js(napi_env env, napi_callback_info info)
{
	struct sign_call *x;
	struct nb_args a;

	if (nb_args(env, info, &a) != 0 || a.count < 2 ||
	    (x = nb_call_new(env, &sign_ops, sizeof(*x))) == NULL)
		return NULL;
	ps_sign_options_init(&x->o);
	ps_fetch_options_init(&x->fetch);
	/* The secrets first: a Buffer is zeroed even when another option is
	 * refused. */
	if (read_secrets(env, a.v[1], x) != 0 ||
	    nb_arg_string(env, a.v[0], &x->base, "path", &x->path) != 0 ||
	    read_sign_options(env, a.v[1], x) != 0) {
		nb_call_discard(&x->base);
		return NULL;
	}
	if (x->o.keyless ? x->key_path != NULL || x->key_text != NULL ||
	    x->token == NULL : (x->key_path == NULL) == (x->key_text == NULL) ||
	    x->token != NULL) {
		nb_call_discard(&x->base);
		napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "packsign: "
		    "give the key as a path or a Buffer, or keyless with an "
		    "identityToken Buffer");
		return NULL;
	}
	return nb_call_start(env, &x->base, NULL);
}
