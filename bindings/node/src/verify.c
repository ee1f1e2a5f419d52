/*
 * Reading packs: digest, validate, describe, verify, verifyInstalled and
 * diff.  Each reads files and hashes, and waits for nothing else: they run
 * on libuv's pool, as fs does.
 */
#include <stdlib.h>
#include <string.h>

#include "addon.h"

/* ------------------------------------------- digest, validate, describe */

struct inspect_call {
	struct nb_call base;
	const char *path;
	ps_pack_options pack;
	ps_validate_options val;
	int files;                  /* digest: list every file */
	ps_lang lang;               /* describe */
	ps_inspection *in;
	char *text;                 /* describe */
};

static void
inspect_run(struct nb_call *c)
{
	struct inspect_call *x = (struct inspect_call *)c;

	c->rc = ps_inspect(x->path, &x->pack, &x->val, &x->in, &c->err);
}

static void
inspect_release(struct nb_call *c)
{
	struct inspect_call *x = (struct inspect_call *)c;

	ps_inspection_free(x->in);
	free(x->text);
}

static napi_value
digest_files(napi_env env, const ps_digest *d)
{
	napi_value list = nb_array(env), o;
	char hex[PS_SHA256_HEX_LEN + 1];
	size_t i;

	for (i = 0; i < d->entry_count; i++) {
		if (d->entries[i].type != PS_ENTRY_FILE)
			continue;
		ps_hex_encode(d->entries[i].sha256, PS_SHA256_LEN, hex);
		o = nb_object(env);
		nb_set(env, o, "path", nb_text(env, d->entries[i].path));
		nb_set(env, o, "size", nb_int(env, (int64_t)d->entries[i].size));
		nb_set(env, o, "sha256", nb_text(env, hex));
		nb_set(env, o, "executable", nb_bool(env,
		    d->entries[i].executable));
		nb_push(env, list, o);
	}
	return list;
}

static napi_value
digest_prompts(napi_env env, const ps_digest *d, const ps_manifest *m)
{
	napi_value list = nb_array(env), o;
	char hex[PS_SHA256_HEX_LEN + 1];
	const ps_entry *e;
	size_t i;

	for (i = 0; m != NULL && i < m->prompt_count; i++) {
		e = ps_digest_find(d, m->prompts[i].path);
		if (e == NULL || e->type != PS_ENTRY_FILE)
			continue;
		ps_hex_encode(e->sha256, PS_SHA256_LEN, hex);
		o = nb_object(env);
		nb_set(env, o, "path", nb_text(env, e->path));
		nb_set(env, o, "sha256", nb_text(env, hex));
		nb_push(env, list, o);
	}
	return list;
}

static const char *
source_name(ps_source_kind kind)
{
	return kind == PS_SOURCE_DIRECTORY ? "directory" :
	    kind == PS_SOURCE_TAR ? "tar" : "zip";
}

/* As `packsign digest --json [--files]`. */
static napi_value
digest_done(napi_env env, struct nb_call *c, int *reject)
{
	struct inspect_call *x = (struct inspect_call *)c;
	char hex[PS_SHA256_HEX_LEN + 1];
	const ps_manifest *m;
	const ps_digest *d;
	napi_value o, mf;

	if ((*reject = c->rc != 0))
		return nb_error(env, &c->err, NULL);
	d = x->in->digest;
	m = x->in->manifest;
	o = nb_object(env);
	mf = nb_object(env);
	nb_set(env, o, "path", nb_text(env, x->path));
	nb_set(env, o, "source", nb_text(env, source_name(d->source)));
	nb_set(env, o, "format", nb_text(env, ps_format_name(d->format)));
	nb_set(env, o, "tree_digest", nb_digest(env, 1, d->tree_digest));
	nb_set(env, o, "tar_digest", nb_digest(env, d->has_tar_digest,
	    d->tar_digest));
	nb_set(env, o, "archive_digest", nb_digest(env, d->has_archive_digest,
	    d->archive_digest));
	nb_set(env, o, "canonical", d->source == PS_SOURCE_TAR ?
	    nb_bool(env, d->canonical) : nb_null(env));
	ps_hex_encode(d->manifest_sha256, PS_SHA256_LEN, hex);
	nb_set(env, mf, "path", nb_text(env, d->manifest_path));
	nb_set(env, mf, "sha256", nb_text(env, hex));
	nb_set(env, o, "manifest", mf);
	nb_set(env, o, "entries", nb_int(env, (int64_t)d->entry_count));
	nb_set(env, o, "size", nb_int(env, (int64_t)d->total_size));
	nb_set(env, o, "id", nb_text(env, m != NULL ? m->id : NULL));
	nb_set(env, o, "version", nb_text(env, m != NULL ? m->version : NULL));
	nb_set(env, o, "prompts", digest_prompts(env, d, m));
	if (x->files)
		nb_set(env, o, "files", digest_files(env, d));
	return o;
}

/* As `packsign validate --json`. */
static napi_value
validate_done(napi_env env, struct nb_call *c, int *reject)
{
	struct inspect_call *x = (struct inspect_call *)c;
	const ps_manifest *m;
	const ps_diags *diags;
	napi_value o;

	if ((*reject = c->rc != 0))
		return nb_error(env, &c->err, NULL);
	m = x->in->manifest;
	diags = &x->in->diags;
	o = nb_object(env);
	nb_set(env, o, "path", nb_text(env, x->path));
	nb_set(env, o, "valid", nb_bool(env, m != NULL &&
	    ps_manifest_valid(diags, x->val.strict)));
	nb_set(env, o, "format", m != NULL ?
	    nb_text(env, ps_format_name(m->format)) : nb_null(env));
	nb_set(env, o, "id", nb_text(env, m != NULL ? m->id : NULL));
	nb_set(env, o, "version", nb_text(env, m != NULL ? m->version : NULL));
	nb_set(env, o, "errors", nb_int(env,
	    (int64_t)ps_diags_count(diags, PS_SEVERITY_ERROR)));
	nb_set(env, o, "warnings", nb_int(env,
	    (int64_t)ps_diags_count(diags, PS_SEVERITY_WARNING)));
	nb_set(env, o, "diagnostics", nb_diags(env, diags));
	return o;
}

static void
describe_run(struct nb_call *c)
{
	struct inspect_call *x = (struct inspect_call *)c;
	const ps_diag *first;

	inspect_run(c);
	if (c->rc != 0)
		return;
	if (x->in->manifest == NULL) {
		first = x->in->diags.count > 0 ? &x->in->diags.items[0] : NULL;
		nb_error_set(&c->err, first != NULL ? first->code :
		    "manifest_invalid", x->path, first != NULL &&
		    first->message != NULL ? first->message :
		    "no manifest could be read");
		c->err.status = PS_STATUS_REFUSED;
		c->rc = -1;
		return;
	}
	c->rc = ps_manifest_describe(x->in->manifest, x->lang, &x->text,
	    &c->err);
}

static napi_value
describe_done(napi_env env, struct nb_call *c, int *reject)
{
	struct inspect_call *x = (struct inspect_call *)c;

	if ((*reject = c->rc != 0))
		return nb_error(env, &c->err, NULL);
	return nb_text(env, x->text != NULL ? x->text : "");
}

static const struct nb_ops digest_ops = { "packsign.digest", 0, inspect_run,
    digest_done, inspect_release, NULL };
static const struct nb_ops validate_ops = { "packsign.validate", 0,
    inspect_run, validate_done, inspect_release, NULL };
static const struct nb_ops describe_ops = { "packsign.describe", 0,
    describe_run, describe_done, inspect_release, NULL };

/* Diagnostics name their files under the path given, as validate's do
 * ("examples/packs/x/manifest.yml"). */
static int
diag_prefix(napi_env env, struct inspect_call *x)
{
	size_t n = strlen(x->path);
	char *p = nb_call_alloc(&x->base, n + 2);

	if (p == NULL) {
		napi_throw_error(env, NULL, "packsign: out of memory");
		return -1;
	}
	memcpy(p, x->path, n);
	if (n > 0 && x->path[n - 1] != '/')
		p[n] = '/';
	x->val.prefix = p;
	return 0;
}

/* (path, options): digest {mtime, files}, validate {strict, format,
 * engineVersion}, describe {lang}. */
static napi_value
inspect_start(napi_env env, napi_callback_info info, const struct nb_ops *ops)
{
	struct inspect_call *x;
	struct nb_args a;
	int zh = 0;

	if (nb_args(env, info, &a) != 0 ||
	    (x = nb_call_new(env, ops, sizeof(*x))) == NULL)
		return NULL;
	ps_pack_options_init(&x->pack);
	ps_validate_options_init(&x->val);
	if (nb_arg_string(env, a.count > 0 ? a.v[0] : NULL, &x->base, "path",
	    &x->path) != 0 ||
	    nb_opt_int64(env, a.count > 1 ? a.v[1] : NULL, "mtime",
	    &x->pack.mtime) != 0 ||
	    nb_opt_bool(env, a.count > 1 ? a.v[1] : NULL, "files",
	    &x->files) != 0 ||
	    nb_opt_bool(env, a.count > 1 ? a.v[1] : NULL, "strict",
	    &x->val.strict) != 0 ||
	    nb_opt_format(env, a.count > 1 ? a.v[1] : NULL, "format",
	    &x->val.format) != 0 ||
	    nb_opt_string(env, a.count > 1 ? a.v[1] : NULL, "engineVersion",
	    &x->base, &x->val.engine_version) != 0 ||
	    nb_opt_bool(env, a.count > 1 ? a.v[1] : NULL, "zh", &zh) != 0) {
		nb_call_discard(&x->base);
		return NULL;
	}
	x->lang = zh ? PS_LANG_ZH : PS_LANG_EN;
	if (diag_prefix(env, x) != 0) {
		nb_call_discard(&x->base);
		return NULL;
	}
	return nb_call_start(env, &x->base, NULL);
}

napi_value
nb_digest_js(napi_env env, napi_callback_info info)
{
	return inspect_start(env, info, &digest_ops);
}

napi_value
nb_validate_js(napi_env env, napi_callback_info info)
{
	return inspect_start(env, info, &validate_ops);
}

napi_value
nb_describe_js(napi_env env, napi_callback_info info)
{
	return inspect_start(env, info, &describe_ops);
}

/* --------------------------------------------------------------- verify */

struct verify_call {
	struct nb_call base;
	const char *path;
	struct nb_trust_source trust_src;
	ps_trust *trust;
	int trust_failed;           /* the policy could not be loaded */
	const char *sigstore_root_path;     /* trustedRoot, with bundles */
	ps_sigstore_root *sigstore_root;
	ps_verify_options o;
	ps_verify_result *r;
	ps_installed_check *check;  /* verifyInstalled */
};

static void
verify_run(struct nb_call *c)
{
	struct verify_call *x = (struct verify_call *)c;

	if (nb_trust_load(&x->trust_src, &x->trust, &c->err) != 0) {
		x->trust_failed = 1;
		c->rc = -1;
		return;
	}
	x->o.trust = x->trust;
	if (x->sigstore_root_path != NULL &&
	    ps_sigstore_root_load(x->sigstore_root_path, &x->sigstore_root,
	    &c->err) != 0) {
		x->trust_failed = 1;
		c->rc = -1;
		return;
	}
	x->o.sigstore_root = x->sigstore_root;
	c->rc = ps_verify(x->path, &x->o, &x->r, &c->err);
}

/* Resolves with the result, a refusal too (ok false), as the CLI prints
 * it; rejects only when the policy, the key or the Sigstore trusted root
 * could not be loaded. */
static napi_value
verify_done(napi_env env, struct nb_call *c, int *reject)
{
	struct verify_call *x = (struct verify_call *)c;

	if ((*reject = x->trust_failed))
		return nb_error(env, &c->err, NULL);
	return nb_verify_result(env, x->path, x->r, c->rc, &c->err);
}

static void
verify_release(struct nb_call *c)
{
	struct verify_call *x = (struct verify_call *)c;

	ps_verify_result_free(x->r);
	ps_installed_check_free(x->check);
	ps_trust_free(x->trust);
	ps_sigstore_root_free(x->sigstore_root);
}

static void
installed_run(struct nb_call *c)
{
	struct verify_call *x = (struct verify_call *)c;

	if (nb_trust_load(&x->trust_src, &x->trust, &c->err) != 0) {
		x->trust_failed = 1;
		c->rc = -1;
		return;
	}
	c->rc = ps_installed_verify(x->path, x->trust, x->o.at, &x->check,
	    &c->err);
}

/* As `packsign verify --installed PATH --json`'s result. */
static napi_value
installed_done(napi_env env, struct nb_call *c, int *reject)
{
	struct verify_call *x = (struct verify_call *)c;
	const ps_installed_check *k = x->check;
	napi_value o;

	if ((*reject = x->trust_failed))
		return nb_error(env, &c->err, NULL);
	o = nb_object(env);
	nb_set(env, o, "path", nb_text(env, x->path));
	nb_set(env, o, "receipt", k != NULL && k->receipt != NULL ?
	    nb_installed(env, k->receipt) : nb_null(env));
	nb_set(env, o, "check", k != NULL ? nb_check(env, k) : nb_null(env));
	nb_error_fields(env, o, c->rc, &c->err);
	return o;
}

static const struct nb_ops verify_ops = { "packsign.verify", 0, verify_run,
    verify_done, verify_release, NULL };
static const struct nb_ops installed_ops = { "packsign.verifyInstalled", 0,
    installed_run, installed_done, verify_release, NULL };

static napi_value
verify_start(napi_env env, napi_callback_info info, const struct nb_ops *ops,
    int trust_required)
{
	struct verify_call *x;
	struct nb_args a;
	napi_value opts;

	if (nb_args(env, info, &a) != 0 ||
	    (x = nb_call_new(env, ops, sizeof(*x))) == NULL)
		return NULL;
	opts = a.count > 1 ? a.v[1] : NULL;
	ps_verify_options_init(&x->o);
	if (nb_arg_string(env, a.count > 0 ? a.v[0] : NULL, &x->base, "path",
	    &x->path) != 0 || nb_opt_trust(env, opts, &x->base, &x->trust_src,
	    trust_required) != 0 || nb_opt_verify(env, opts, &x->base,
	    &x->o) != 0 || nb_opt_string(env, opts, "trustedRoot", &x->base,
	    &x->sigstore_root_path) != 0) {
		nb_call_discard(&x->base);
		return NULL;
	}
	return nb_call_start(env, &x->base, NULL);
}

napi_value
nb_verify_js(napi_env env, napi_callback_info info)
{
	return verify_start(env, info, &verify_ops, 1);
}

napi_value
nb_verify_installed_js(napi_env env, napi_callback_info info)
{
	return verify_start(env, info, &installed_ops, 0);
}

/* ----------------------------------------------------------------- diff */

/* One side: a path (an archive or a pack directory), an installed id
 * (data directory, format, id, version) or an installed tree's path. */
struct diff_side_spec {
	const char *path;
	const char *installed_id, *installed_version, *installed_path;
	ps_format format;
};

struct diff_call {
	struct nb_call base;
	struct diff_side_spec spec[2];
	const char *data_dir;
	struct nb_trust_source trust_src;
	ps_trust *trust;
	ps_diff_options o;
	ps_diff_side *side[2];
	ps_diff *diff;
};

static int
side_open(struct diff_call *x, int i)
{
	const struct diff_side_spec *s = &x->spec[i];
	ps_error *err = &x->base.err;

	if (s->installed_id != NULL)
		return ps_diff_side_installed(x->data_dir, s->format,
		    s->installed_id, s->installed_version, x->trust,
		    &x->side[i], err);
	if (s->installed_path != NULL)
		return ps_diff_side_installed_path(s->installed_path, x->trust,
		    &x->side[i], err);
	return ps_diff_side_open(s->path, &x->o, &x->side[i], err);
}

static void
diff_run(struct nb_call *c)
{
	struct diff_call *x = (struct diff_call *)c;

	c->rc = -1;
	if (nb_trust_load(&x->trust_src, &x->trust, &c->err) != 0)
		return;
	x->o.verify.trust = x->trust;
	if (side_open(x, 0) != 0 || side_open(x, 1) != 0)
		return;
	c->rc = ps_diff_compare(x->side[0], x->side[1], &x->o, &x->diff,
	    &c->err);
}

static napi_value
diff_done(napi_env env, struct nb_call *c, int *reject)
{
	struct diff_call *x = (struct diff_call *)c;

	if ((*reject = c->rc != 0))
		return nb_error(env, &c->err, NULL);
	return nb_diff(env, x->diff);
}

static void
diff_release(struct nb_call *c)
{
	struct diff_call *x = (struct diff_call *)c;

	ps_diff_free(x->diff);
	ps_diff_side_free(x->side[0]);
	ps_diff_side_free(x->side[1]);
	ps_trust_free(x->trust);
}

static const struct nb_ops diff_ops = { "packsign.diff", 0, diff_run,
    diff_done, diff_release, NULL };

/* {path} | {installed: id, version, format} | {installedPath}. */
static int
side_read(napi_env env, napi_value v, struct diff_call *x, int i)
{
	struct diff_side_spec *s = &x->spec[i];

	if (nb_opt_string(env, v, "path", &x->base, &s->path) != 0 ||
	    nb_opt_string(env, v, "installed", &x->base, &s->installed_id) !=
	    0 || nb_opt_string(env, v, "version", &x->base,
	    &s->installed_version) != 0 || nb_opt_string(env, v,
	    "installedPath", &x->base, &s->installed_path) != 0 ||
	    nb_opt_format(env, v, "format", &s->format) != 0)
		return -1;
	if (s->path == NULL && s->installed_id == NULL &&
	    s->installed_path == NULL) {
		napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "packsign: "
		    "a diff side is a path, {installed: id, version} or "
		    "{installedPath}");
		return -1;
	}
	return 0;
}

/* (old, new, options {trust, publicKey, dataDir, lines, at}). */
napi_value
nb_diff_js(napi_env env, napi_callback_info info)
{
	struct diff_call *x;
	struct nb_args a;
	napi_value opts;
	uint64_t lines = 0;

	if (nb_args(env, info, &a) != 0 || a.count < 3 ||
	    (x = nb_call_new(env, &diff_ops, sizeof(*x))) == NULL)
		return NULL;
	opts = a.v[2];
	ps_diff_options_init(&x->o);
	if (side_read(env, a.v[0], x, 0) != 0 ||
	    side_read(env, a.v[1], x, 1) != 0 ||
	    nb_opt_trust(env, opts, &x->base, &x->trust_src, 0) != 0 ||
	    nb_opt_string(env, opts, "dataDir", &x->base, &x->data_dir) != 0 ||
	    nb_opt_uint64(env, opts, "lines", &lines) != 0 ||
	    nb_opt_time(env, opts, "at", &x->o.verify.at) != 0) {
		nb_call_discard(&x->base);
		return NULL;
	}
	if (lines > 0)
		x->o.text_lines_max = (size_t)lines;
	return nb_call_start(env, &x->base, NULL);
}
