/*
 * Calls off the main thread.  A call that only reads and writes files runs
 * on libuv's pool (napi_async_work), as fs does.  A call that can wait (for
 * a consent, confirm or waiting callback, for the data directory's lock,
 * for the network) runs on a thread of its own, so that four pending
 * consents cannot take the four threads fs.promises needs; it reaches
 * JavaScript only through a thread-safe function, and waits for an answer
 * on its condition variable.
 *
 * The main thread keeps the calls in flight in addon->live, so that
 * answer() and abort() from JavaScript name a call by its id and a late
 * answer to a finished call finds nothing.  A threaded call is freed when
 * both its thread and the thread-safe function's finaliser are done with
 * it; if the environment is torn down first (a worker thread terminated),
 * a cleanup hook marks it gone and the thread stops touching JavaScript.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

static void
call_destroy(struct nb_call *c)
{
	size_t i;

	if (c->ops->release != NULL)
		c->ops->release(c);
	for (i = 0; i < c->strings.count; i++)
		free(c->strings.items[i]);
	free(c->strings.items);
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->cv);
	free(c);
}

void *
nb_call_new(napi_env env, const struct nb_ops *ops, size_t size)
{
	struct nb_call *c = calloc(1, size);
	struct nb_addon *addon = NULL;

	napi_get_instance_data(env, (void **)&addon);
	if (c == NULL || addon == NULL) {
		free(c);
		napi_throw_error(env, "ERR_PACKSIGN_MEMORY",
		    "packsign: out of memory");
		return NULL;
	}
	c->ops = ops;
	c->env = env;
	c->addon = addon;
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cv, NULL);
	return c;
}

void
nb_call_discard(struct nb_call *c)
{
	if (c != NULL)
		call_destroy(c);
}

void *
nb_call_alloc(struct nb_call *c, size_t size)
{
	struct nb_strings *l = &c->strings;
	char **grown, *p;

	if (l->count == l->capacity) {
		size_t cap = l->capacity == 0 ? 8 : l->capacity * 2;

		if ((grown = realloc(l->items, cap * sizeof(*grown))) == NULL)
			return NULL;
		l->items = grown;
		l->capacity = cap;
	}
	if ((p = calloc(1, size)) == NULL)
		return NULL;
	l->items[l->count++] = p;
	return p;
}

const char *
nb_call_keep(struct nb_call *c, const char *s, size_t len)
{
	char *copy = nb_call_alloc(c, len + 1);

	if (copy != NULL)
		memcpy(copy, s, len);
	return copy;
}

/* Builds the result and settles the promise (main thread). */
static void
call_settle(napi_env env, struct nb_call *c)
{
	napi_value value = NULL, pending;
	int reject = 0;
	bool thrown = false;

	c->settled = 1;
	value = c->ops->done(env, c, &reject);
	if (napi_is_exception_pending(env, &thrown) == napi_ok && thrown) {
		napi_get_and_clear_last_exception(env, &pending);
		value = pending;
		reject = 1;
	}
	if (value == NULL) {
		napi_get_undefined(env, &value);
		reject = 1;
	}
	if (reject)
		napi_reject_deferred(env, c->deferred, value);
	else
		napi_resolve_deferred(env, c->deferred, value);
}

/* ------------------------------------------------------------ pool calls */

static void
pool_execute(napi_env env, void *data)
{
	struct nb_call *c = data;

	(void)env;
	c->ops->run(c);
}

static void
pool_complete(napi_env env, napi_status status, void *data)
{
	struct nb_call *c = data;

	if (status != napi_ok)
		nb_error_set(&c->err, "internal_error", c->ops->name,
		    "the call did not run");
	if (status != napi_ok)
		c->rc = -1;
	call_settle(env, c);
	napi_delete_async_work(env, c->work);
	call_destroy(c);
}

static napi_value
pool_start(napi_env env, struct nb_call *c, napi_value promise)
{
	napi_value name;

	if (napi_create_string_utf8(env, c->ops->name, NAPI_AUTO_LENGTH,
	    &name) != napi_ok || napi_create_async_work(env, NULL, name,
	    pool_execute, pool_complete, c, &c->work) != napi_ok ||
	    napi_queue_async_work(env, c->work) != napi_ok) {
		/* The promise is dropped with the call; nothing else refers
		 * to it. */
		call_destroy(c);
		napi_throw_error(env, NULL, "packsign: cannot queue the call");
		return NULL;
	}
	return promise;
}

/* ------------------------------------------------------- threaded calls */

static void
live_remove(struct nb_call *c)
{
	struct nb_call **p;

	for (p = &c->addon->live; *p != NULL; p = &(*p)->next) {
		if (*p == c) {
			*p = c->next;
			return;
		}
	}
}

static struct nb_call *
live_find(struct nb_addon *addon, uint64_t id)
{
	struct nb_call *c;

	for (c = addon->live; c != NULL; c = c->next) {
		if (c->id == id)
			return c;
	}
	return NULL;
}

static void
call_unref(struct nb_call *c)
{
	int last;

	pthread_mutex_lock(&c->mu);
	last = --c->refs == 0;
	pthread_mutex_unlock(&c->mu);
	if (last)
		call_destroy(c);
}

/* The environment is going away: the thread must not use the thread-safe
 * function any more, and stops waiting. */
static void
env_gone(void *arg)
{
	struct nb_call *c = arg;

	c->hook_ran = 1;
	pthread_mutex_lock(&c->mu);
	c->gone = 1;
	c->aborted = 1;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
}

static void
tsfn_finalize(napi_env env, void *data, void *hint)
{
	struct nb_call *c = data;

	(void)hint;
	if (!c->hook_ran)
		napi_remove_env_cleanup_hook(env, env_gone, c);
	if (!c->settled)
		live_remove(c);
	if (c->on_event != NULL)
		napi_delete_reference(env, c->on_event);
	c->on_event = NULL;
	call_unref(c);
}

/* An event the thread is waiting on, as JavaScript sees it: built while
 * the thread cannot stop waiting (mu held), handed over after. */
static void
dispatch_event(napi_env env, struct nb_call *c)
{
	static const char *const kinds[] = { "confirm", "consent", "waiting" };
	napi_value fn, argv[3] = { NULL, NULL, NULL }, ignored, global;
	struct nb_event ev;

	pthread_mutex_lock(&c->mu);
	ev = c->ev;
	if (ev.arg != NULL && !ev.answered)
		argv[1] = c->ops->event(env, c, &ev);
	pthread_mutex_unlock(&c->mu);
	if (ev.arg == NULL || ev.answered)
		return;                 /* aborted while it was queued */
	if (c->on_event == NULL || napi_get_reference_value(env, c->on_event,
	    &fn) != napi_ok || argv[1] == NULL ||
	    napi_create_string_utf8(env, kinds[ev.kind], NAPI_AUTO_LENGTH,
	    &argv[0]) != napi_ok ||
	    napi_create_int64(env, (int64_t)ev.seq, &argv[2]) != napi_ok ||
	    napi_get_global(env, &global) != napi_ok) {
		napi_get_and_clear_last_exception(env, &ignored);
		pthread_mutex_lock(&c->mu);
		c->ev.answered = 1;
		c->ev.answer = 0;
		pthread_cond_broadcast(&c->cv);
		pthread_mutex_unlock(&c->mu);
		return;
	}
	if (napi_call_function(env, global, fn, 3, argv, &ignored) != napi_ok)
		napi_get_and_clear_last_exception(env, &ignored);
}

static void
tsfn_call_js(napi_env env, napi_value js_cb, void *context, void *data)
{
	struct nb_call *c = context;

	(void)js_cb;
	if (env == NULL) {
		/* Torn down with the message queued: whoever waits, stops. */
		pthread_mutex_lock(&c->mu);
		c->gone = 1;
		c->aborted = 1;
		pthread_cond_broadcast(&c->cv);
		pthread_mutex_unlock(&c->mu);
		return;
	}
	if (data == c) {
		live_remove(c);
		call_settle(env, c);
		if (c->on_event != NULL)
			napi_delete_reference(env, c->on_event);
		c->on_event = NULL;
	} else {
		dispatch_event(env, c);
	}
}

static void *
thread_main(void *arg)
{
	struct nb_call *c = arg;

	c->ops->run(c);
	pthread_mutex_lock(&c->mu);
	if (!c->gone) {
		napi_call_threadsafe_function(c->tsfn, c, napi_tsfn_nonblocking);
		napi_release_threadsafe_function(c->tsfn, napi_tsfn_release);
	}
	pthread_mutex_unlock(&c->mu);
	call_unref(c);
	return NULL;
}

static int
thread_spawn(struct nb_call *c)
{
	pthread_attr_t attr;
	pthread_t thread;
	int rc;

	if (pthread_attr_init(&attr) != 0)
		return -1;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&thread, &attr, thread_main, c);
	pthread_attr_destroy(&attr);
	return rc == 0 ? 0 : -1;
}

static napi_value
threaded_result(napi_env env, struct nb_call *c, napi_value promise)
{
	napi_value o = nb_object(env);

	nb_set(env, o, "promise", promise);
	nb_set(env, o, "id", nb_int(env, (int64_t)c->id));
	return o;
}

static napi_value
threaded_start(napi_env env, struct nb_call *c, napi_value promise,
    napi_value on_event)
{
	napi_valuetype type = napi_undefined;
	napi_value name;

	if (on_event != NULL && napi_typeof(env, on_event, &type) == napi_ok &&
	    type == napi_function &&
	    napi_create_reference(env, on_event, 1, &c->on_event) != napi_ok)
		c->on_event = NULL;
	c->listening = c->on_event != NULL;
	if (napi_create_string_utf8(env, c->ops->name, NAPI_AUTO_LENGTH,
	    &name) != napi_ok || napi_create_threadsafe_function(env, NULL,
	    NULL, name, 0, 1, c, tsfn_finalize, c, tsfn_call_js,
	    &c->tsfn) != napi_ok) {
		if (c->on_event != NULL)
			napi_delete_reference(env, c->on_event);
		call_destroy(c);
		napi_throw_error(env, NULL, "packsign: cannot start the call");
		return NULL;
	}
	/* From here the finaliser owns one reference, the thread the other;
	 * the hook runs before the thread-safe function's own (hooks run in
	 * reverse order of registration). */
	c->refs = 2;
	c->id = ++c->addon->next_id;
	c->next = c->addon->live;
	c->addon->live = c;
	napi_add_env_cleanup_hook(env, env_gone, c);
	if (thread_spawn(c) != 0) {
		nb_error_set(&c->err, "thread_failed", c->ops->name,
		    "cannot start the call's thread");
		c->rc = -1;
		c->refs = 1;
		napi_call_threadsafe_function(c->tsfn, c, napi_tsfn_nonblocking);
		napi_release_threadsafe_function(c->tsfn, napi_tsfn_release);
	}
	return threaded_result(env, c, promise);
}

napi_value
nb_call_start(napi_env env, struct nb_call *c, napi_value on_event)
{
	napi_value promise;

	if (napi_create_promise(env, &c->deferred, &promise) != napi_ok) {
		call_destroy(c);
		return NULL;
	}
	if (!c->ops->threaded)
		return pool_start(env, c, promise);
	return threaded_start(env, c, promise, on_event);
}

/* ------------------------------------------------------ waiting threads */

int
nb_call_ask(struct nb_call *c, enum nb_event_kind kind, const void *arg)
{
	int answer = 0;

	pthread_mutex_lock(&c->mu);
	if (c->aborted || c->gone || !c->listening) {
		pthread_mutex_unlock(&c->mu);
		return 0;
	}
	c->ev.kind = kind;
	c->ev.arg = arg;
	c->ev.seq++;
	c->ev.answered = 0;
	c->ev.answer = 0;
	if (napi_call_threadsafe_function(c->tsfn, &c->ev,
	    napi_tsfn_nonblocking) == napi_ok) {
		while (!c->ev.answered && !c->aborted)
			pthread_cond_wait(&c->cv, &c->mu);
		answer = c->ev.answered && !c->aborted ? c->ev.answer : 0;
	}
	c->ev.arg = NULL;
	pthread_mutex_unlock(&c->mu);
	return answer;
}

int
nb_call_aborted(struct nb_call *c)
{
	int aborted;

	pthread_mutex_lock(&c->mu);
	aborted = c->aborted;
	pthread_mutex_unlock(&c->mu);
	return aborted;
}

static struct nb_call *
call_of(napi_env env, napi_value v)
{
	struct nb_addon *addon = NULL;
	int64_t id = 0;

	if (napi_get_instance_data(env, (void **)&addon) != napi_ok ||
	    addon == NULL || napi_get_value_int64(env, v, &id) != napi_ok ||
	    id <= 0)
		return NULL;
	return live_find(addon, (uint64_t)id);
}

napi_value
nb_call_answer_js(napi_env env, napi_callback_info info)
{
	struct nb_args a;
	struct nb_call *c;
	int64_t seq = 0;
	bool yes = false;

	if (nb_args(env, info, &a) != 0 || a.count < 3)
		return NULL;
	if ((c = call_of(env, a.v[0])) == NULL ||
	    napi_get_value_int64(env, a.v[1], &seq) != napi_ok ||
	    napi_get_value_bool(env, a.v[2], &yes) != napi_ok)
		return NULL;
	pthread_mutex_lock(&c->mu);
	if (c->ev.arg != NULL && !c->ev.answered && c->ev.seq == (uint64_t)seq) {
		c->ev.answered = 1;
		c->ev.answer = yes ? 1 : 0;
		pthread_cond_broadcast(&c->cv);
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

napi_value
nb_call_abort_js(napi_env env, napi_callback_info info)
{
	struct nb_args a;
	struct nb_call *c;

	if (nb_args(env, info, &a) != 0 || a.count < 1 ||
	    (c = call_of(env, a.v[0])) == NULL)
		return NULL;
	pthread_mutex_lock(&c->mu);
	c->aborted = 1;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
	return NULL;
}
