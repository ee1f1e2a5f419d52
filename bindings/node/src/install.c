/*
 * install, installUrl, fetch, list, uninstall.  Every call that can wait
 * (for a callback, the data directory's lock or the network) runs on a
 * thread of its own (call.c).  Consent is never a terminal prompt: an
 * upgrade's widening is accepted by `accept`, `acceptDiff` or the consent
 * callback, or refused (consent_required).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "addon.h"

/* The library's callbacks, on the call's thread.  confirm is always set:
 * without a JavaScript confirm it installs (as NULL would), unless the
 * call was aborted, which is how an AbortSignal stops a local install
 * before its tree is renamed into place. */
static int
on_confirm(void *ctx, const ps_install_plan *plan)
{
	struct nb_install *in = ctx;

	if (nb_call_aborted(&in->base))
		return 0;
	if (!in->has_confirm)
		return 1;
	return nb_call_ask(&in->base, NB_EVENT_CONFIRM, plan);
}

static int
on_consent(void *ctx, const ps_install_plan *plan)
{
	return nb_call_ask(ctx, NB_EVENT_CONSENT, plan);
}

static void
on_waiting(void *ctx, const char *lock_path)
{
	nb_call_ask(ctx, NB_EVENT_WAITING, lock_path);
}

napi_value
nb_install_event(napi_env env, struct nb_call *c, const struct nb_event *ev)
{
	(void)c;
	if (ev->kind == NB_EVENT_WAITING)
		return nb_text(env, ev->arg);
	return nb_plan(env, ev->arg);
}

static int
read_flags(napi_env env, napi_value opts, struct nb_install *in)
{
	ps_install_options *o = &in->o;
	int64_t fd = -1;
	int zh = 0;

	if (nb_opt_bool(env, opts, "allowShell", &o->allow_shell) != 0 ||
	    nb_opt_bool(env, opts, "allowDowngrade", &o->allow_downgrade) !=
	    0 || nb_opt_bool(env, opts, "dryRun", &o->dry_run) != 0 ||
	    nb_opt_bool(env, opts, "zh", &zh) != 0 ||
	    nb_opt_classes(env, opts, "accept", &o->accept) != 0 ||
	    nb_opt_bool(env, opts, "allowSignerChange",
	    &o->allow_signer_change) != 0 || nb_opt_bool(env, opts,
	    "allowSourceChange", &o->allow_source_change) != 0 ||
	    nb_opt_int64(env, opts, "now", &o->now) != 0 ||
	    nb_opt_bool(env, opts, "hasConfirm", &in->has_confirm) != 0 ||
	    nb_opt_bool(env, opts, "hasConsent", &in->has_consent) != 0 ||
	    nb_opt_bool(env, opts, "hasWaiting", &in->has_waiting) != 0 ||
	    nb_opt_int64(env, opts, "archiveFd", &fd) != 0)
		return -1;
	if (fd > INT32_MAX) {
		napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE",
		    "packsign: archiveFd must be a file descriptor");
		return -1;
	}
	/* The caller's descriptor (install - --sig F): read, never closed. */
	o->has_archive_fd = fd >= 0;
	o->archive_fd = fd >= 0 ? (int)fd : -1;
	o->lang = zh ? PS_LANG_ZH : PS_LANG_EN;
	return 0;
}

int
nb_install_read(napi_env env, napi_value opts, struct nb_install *in)
{
	ps_install_options *o = &in->o;
	struct nb_call *c = &in->base;

	ps_install_options_init(o);
	ps_fetch_options_init(&in->fetch);
	if (nb_opt_trust(env, opts, c, &in->trust_src, 1) != 0 ||
	    nb_opt_verify(env, opts, c, &o->verify) != 0 ||
	    nb_opt_string(env, opts, "dataDir", c, &o->data_dir) != 0 ||
	    nb_opt_string(env, opts, "acceptDiff", c, &o->accept_diff) != 0 ||
	    nb_opt_string(env, opts, "consentBy", c, &o->consent_by) != 0 ||
	    read_flags(env, opts, in) != 0 ||
	    nb_opt_fetch(env, opts, c, &in->fetch) != 0)
		return -1;
	if (o->data_dir == NULL) {
		napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE",
		    "packsign: dataDir must be given");
		return -1;
	}
	o->confirm = on_confirm;
	o->confirm_ctx = in;
	o->consent = in->has_consent ? on_consent : NULL;
	o->consent_ctx = in;
	o->waiting = in->has_waiting ? on_waiting : NULL;
	o->waiting_ctx = in;
	return 0;
}

int
nb_install_prepare(struct nb_install *in)
{
	if (nb_trust_load(&in->trust_src, &in->trust, &in->base.err) != 0)
		return -1;
	in->o.verify.trust = in->trust;
	return 0;
}

/* Resolves with the install's object, as `packsign install --json`
 * prints it; a refusal or failure rejects with a PacksignError whose
 * `result` is that object. */
napi_value
nb_install_done(napi_env env, struct nb_call *c, int *reject)
{
	struct nb_install *in = (struct nb_install *)c;
	napi_value result = NULL;

	if (in->result != NULL || c->rc == 0)
		result = nb_install_result(env, in->archive, in->o.data_dir,
		    in->result, c->rc, &c->err);
	if ((*reject = c->rc != 0))
		return nb_error(env, &c->err, result);
	return result;
}

void
nb_install_release(struct nb_call *c)
{
	struct nb_install *in = (struct nb_install *)c;

	ps_install_result_free(in->result);
	ps_trust_free(in->trust);
}

static void
install_run(struct nb_call *c)
{
	struct nb_install *in = (struct nb_install *)c;

	c->rc = -1;
	if (nb_install_prepare(in) == 0)
		c->rc = ps_install(in->archive, &in->o, &in->result, &c->err);
}

static void
install_url_run(struct nb_call *c)
{
	struct nb_install *in = (struct nb_install *)c;

	c->rc = -1;
	if (nb_install_prepare(in) == 0)
		c->rc = ps_install_url(in->archive, &in->o, &in->fetch,
		    &in->result, &c->err);
}

static const struct nb_ops install_ops = { "packsign.install", 1,
    install_run, nb_install_done, nb_install_release, nb_install_event };
static const struct nb_ops install_url_ops = { "packsign.installUrl", 1,
    install_url_run, nb_install_done, nb_install_release, nb_install_event };

/* (archive or URL, options, onEvent). */
static napi_value
install_start(napi_env env, napi_callback_info info, const struct nb_ops *ops)
{
	struct nb_install *in;
	struct nb_args a;

	if (nb_args(env, info, &a) != 0 || a.count < 2 ||
	    (in = nb_call_new(env, ops, sizeof(*in))) == NULL)
		return NULL;
	if (nb_arg_string(env, a.v[0], &in->base, "archive",
	    &in->archive) != 0 || nb_install_read(env, a.v[1], in) != 0) {
		nb_call_discard(&in->base);
		return NULL;
	}
	return nb_call_start(env, &in->base, a.count > 2 ? a.v[2] : NULL);
}

napi_value
nb_install_js(napi_env env, napi_callback_info info)
{
	return install_start(env, info, &install_ops);
}

napi_value
nb_install_url_js(napi_env env, napi_callback_info info)
{
	return install_start(env, info, &install_url_ops);
}

/* A pipe for install() of a stream: [read end, write end], both
 * close-on-exec; index.js writes the stream into the write end while
 * ps_install() reads the other (archiveFd) on the pool, and closes both. */
napi_value
nb_pipe_js(napi_env env, napi_callback_info info)
{
	napi_value a;
	int fds[2];

	(void)info;
	if (pipe(fds) != 0) {
		napi_throw_error(env, NULL, "packsign: pipe failed");
		return NULL;
	}
	(void)fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	(void)fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	a = nb_array(env);
	nb_push(env, a, nb_int(env, fds[0]));
	nb_push(env, a, nb_int(env, fds[1]));
	return a;
}

/* ---------------------------------------------------------------- fetch */

struct fetch_call {
	struct nb_call base;
	const char *url, *path;
	struct nb_trust_source trust_src;
	ps_trust *trust;
	int trust_failed;
	ps_verify_options o;
	ps_fetch_options fetch;
	ps_verify_result *r;
};

static void
fetch_run(struct nb_call *c)
{
	struct fetch_call *x = (struct fetch_call *)c;

	if (nb_trust_load(&x->trust_src, &x->trust, &c->err) != 0) {
		x->trust_failed = 1;
		c->rc = -1;
		return;
	}
	x->o.trust = x->trust;
	c->rc = ps_fetch(x->url, x->path, &x->o, &x->fetch, &x->r, &c->err);
}

/* As verify: the result, ok false on a refusal or a failed download. */
static napi_value
fetch_done(napi_env env, struct nb_call *c, int *reject)
{
	struct fetch_call *x = (struct fetch_call *)c;
	napi_value o;

	if ((*reject = x->trust_failed))
		return nb_error(env, &c->err, NULL);
	o = nb_verify_result(env, x->path, x->r, c->rc, &c->err);
	nb_set(env, o, "url", nb_text(env, x->url));
	return o;
}

static void
fetch_release(struct nb_call *c)
{
	struct fetch_call *x = (struct fetch_call *)c;

	ps_verify_result_free(x->r);
	ps_trust_free(x->trust);
}

static const struct nb_ops fetch_ops = { "packsign.fetch", 1, fetch_run,
    fetch_done, fetch_release, NULL };

/* (url, path, options). */
napi_value
nb_fetch_js(napi_env env, napi_callback_info info)
{
	struct fetch_call *x;
	struct nb_args a;

	if (nb_args(env, info, &a) != 0 || a.count < 3 ||
	    (x = nb_call_new(env, &fetch_ops, sizeof(*x))) == NULL)
		return NULL;
	ps_verify_options_init(&x->o);
	ps_fetch_options_init(&x->fetch);
	if (nb_arg_string(env, a.v[0], &x->base, "url", &x->url) != 0 ||
	    nb_arg_string(env, a.v[1], &x->base, "path", &x->path) != 0 ||
	    nb_opt_trust(env, a.v[2], &x->base, &x->trust_src, 1) != 0 ||
	    nb_opt_verify(env, a.v[2], &x->base, &x->o) != 0 ||
	    nb_opt_fetch(env, a.v[2], &x->base, &x->fetch) != 0) {
		nb_call_discard(&x->base);
		return NULL;
	}
	return nb_call_start(env, &x->base, NULL);
}

/* ------------------------------------------------------ list, uninstall */

struct list_call {
	struct nb_call base;
	const char *data_dir, *id, *version;
	ps_format format;
	int forget, forgot;
	ps_installed_list *list;
	ps_pins **pins;             /* list: the newest version's pins */
};

static void
list_run(struct nb_call *c)
{
	struct list_call *x = (struct list_call *)c;
	size_t i;

	c->rc = ps_installed_list_load(x->data_dir, &x->list, &c->err);
	if (c->rc != 0 || x->list->count == 0)
		return;
	if ((x->pins = calloc(x->list->count, sizeof(*x->pins))) == NULL) {
		nb_error_set(&c->err, "out_of_memory", x->data_dir,
		    "cannot list the installed packs");
		c->rc = -1;
		return;
	}
	for (i = 0; i < x->list->count && c->rc == 0; i++) {
		if (x->list->items[i].newest)
			c->rc = ps_pins_load(x->data_dir,
			    x->list->items[i].format, x->list->items[i].id,
			    &x->pins[i], &c->err);
	}
}

/* The `packs` of `packsign list --json`: each installed pack and, for the
 * newest version of an id, its pins. */
static napi_value
list_done(napi_env env, struct nb_call *c, int *reject)
{
	struct list_call *x = (struct list_call *)c;
	napi_value packs, o;
	size_t i;

	if ((*reject = c->rc != 0))
		return nb_error(env, &c->err, NULL);
	packs = nb_array(env);
	for (i = 0; i < x->list->count; i++) {
		o = nb_installed(env, &x->list->items[i]);
		nb_set(env, o, "pins", nb_pins(env, x->pins != NULL ?
		    x->pins[i] : NULL));
		nb_push(env, packs, o);
	}
	return packs;
}

static void
list_release(struct nb_call *c)
{
	struct list_call *x = (struct list_call *)c;
	size_t i;

	for (i = 0; x->pins != NULL && i < x->list->count; i++)
		ps_pins_free(x->pins[i]);
	free(x->pins);
	ps_installed_list_free(x->list);
}

static void
uninstall_run(struct nb_call *c)
{
	struct list_call *x = (struct list_call *)c;
	ps_error mine;

	c->rc = ps_uninstall(x->data_dir, x->format, x->id, x->version,
	    &x->list, &c->err);
	if (!x->forget || (c->rc != 0 &&
	    !ps_error_is(&c->err, PS_CODE_NOT_INSTALLED)))
		return;
	ps_error_clear(&mine);
	if (ps_pins_forget(x->data_dir, x->format, x->id, &x->forgot,
	    &mine) != 0) {
		c->err = mine;
		c->rc = -1;
	} else if (c->rc != 0 && x->forgot) {
		ps_error_clear(&c->err);
		c->rc = 0;
	}
}

/* As `packsign uninstall --json`. */
static napi_value
uninstall_done(napi_env env, struct nb_call *c, int *reject)
{
	struct list_call *x = (struct list_call *)c;
	napi_value o, removed;
	size_t i;

	if ((*reject = c->rc != 0))
		return nb_error(env, &c->err, NULL);
	o = nb_object(env);
	removed = nb_array(env);
	for (i = 0; x->list != NULL && i < x->list->count; i++)
		nb_push(env, removed, nb_installed(env, &x->list->items[i]));
	nb_set(env, o, "data_dir", nb_text(env, x->data_dir));
	nb_set(env, o, "removed", removed);
	nb_set(env, o, "pins_forgotten", nb_bool(env, x->forgot));
	nb_error_fields(env, o, c->rc, &c->err);
	return o;
}

static const struct nb_ops list_ops = { "packsign.list", 0, list_run,
    list_done, list_release, NULL };
static const struct nb_ops uninstall_ops = { "packsign.uninstall", 1,
    uninstall_run, uninstall_done, list_release, NULL };

/* (dataDir). */
napi_value
nb_list_js(napi_env env, napi_callback_info info)
{
	struct list_call *x;
	struct nb_args a;

	if (nb_args(env, info, &a) != 0 || a.count < 1 ||
	    (x = nb_call_new(env, &list_ops, sizeof(*x))) == NULL)
		return NULL;
	if (nb_arg_string(env, a.v[0], &x->base, "dataDir", &x->data_dir) !=
	    0) {
		nb_call_discard(&x->base);
		return NULL;
	}
	return nb_call_start(env, &x->base, NULL);
}

/* (id, options {version, dataDir, format, forget}). */
napi_value
nb_uninstall_js(napi_env env, napi_callback_info info)
{
	struct list_call *x;
	struct nb_args a;

	if (nb_args(env, info, &a) != 0 || a.count < 2 ||
	    (x = nb_call_new(env, &uninstall_ops, sizeof(*x))) == NULL)
		return NULL;
	if (nb_arg_string(env, a.v[0], &x->base, "id", &x->id) != 0 ||
	    nb_opt_string(env, a.v[1], "version", &x->base, &x->version) != 0 ||
	    nb_opt_string(env, a.v[1], "dataDir", &x->base, &x->data_dir) !=
	    0 || nb_opt_format(env, a.v[1], "format", &x->format) != 0 ||
	    nb_opt_bool(env, a.v[1], "forget", &x->forget) != 0) {
		nb_call_discard(&x->base);
		return NULL;
	}
	if (x->data_dir == NULL) {
		nb_call_discard(&x->base);
		napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE",
		    "packsign: dataDir must be given");
		return NULL;
	}
	return nb_call_start(env, &x->base, NULL);
}

/* dataDirDefault(): on the main thread, as it reads the environment
 * (process.env is changed on this thread too). */
napi_value
nb_data_dir_default_js(napi_env env, napi_callback_info info)
{
	napi_value v;
	char *dir = NULL;
	ps_error err;

	(void)info;
	if (ps_data_dir_default(&dir, &err) != 0)
		return nb_throw(env, &err);
	v = nb_text(env, dir);
	free(dir);
	return v;
}
