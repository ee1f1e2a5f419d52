/* Internal header of bindings/: the Node-API addon's calls (call.c), the
 * JavaScript values it builds (values.c, results.c) and the options it
 * reads (options.c).  The addon sees libpacksign through packsign.h only.
 */
#ifndef NB_ADDON_H
#define NB_ADDON_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <node_api.h>

#include "packsign.h"

/* What the addon keeps per Node environment (napi_set_instance_data): it
 * has no global state, so it loads into worker threads as well. */
struct nb_addon {
	napi_ref error_class;       /* PacksignError, handed in by index.js */
	napi_ref diff_text;         /* the symbol a diff keeps its JSON under */
	struct nb_call *live;       /* thread calls in flight (main thread) */
	uint64_t next_id;
};

/* One of the values index.js hands the addon at setup: 0 with *out set,
 * -1 before setup. */
enum nb_ref { NB_REF_ERROR_CLASS, NB_REF_DIFF_TEXT };
int nb_addon_value(napi_env env, enum nb_ref which, napi_value *out);

/* Strings copied out of a call's JavaScript arguments, freed with it. */
struct nb_strings {
	char **items;
	size_t count, capacity;
};

/* What a call asks JavaScript while its thread waits (call.c). */
enum nb_event_kind {
	NB_EVENT_CONFIRM = 0,
	NB_EVENT_CONSENT = 1,
	NB_EVENT_WAITING = 2
};

struct nb_event {
	enum nb_event_kind kind;
	const void *arg;            /* the plan or the lock path; NULL once the
	                             * thread stopped waiting */
	uint64_t seq;
	int answered, answer;
};

struct nb_call;

/*
 * One kind of call.  `run` does the work off the main thread and may not
 * touch JavaScript; `done` builds the result on the main thread and sets
 * *reject when it is an error to reject with; `release` frees what `run`
 * made (once, when the call is destroyed).  `threaded` calls run on a
 * thread of the addon's own (they may wait for a callback, a lock or the
 * network); the others on libuv's pool.  `event` turns what a waiting
 * thread asks into the value handed to JavaScript.
 */
struct nb_ops {
	const char *name;
	int threaded;
	void (*run)(struct nb_call *c);
	napi_value (*done)(napi_env env, struct nb_call *c, int *reject);
	void (*release)(struct nb_call *c);
	napi_value (*event)(napi_env env, struct nb_call *c,
	    const struct nb_event *ev);
};

/*
 * A call in flight.  A pool call belongs to the main thread except while
 * libuv runs it.  A threaded call is shared by its thread and the main
 * thread: two references (the thread's, and the thread-safe function's,
 * dropped by its finaliser), `mu` guarding what both read.
 */
struct nb_call {
	const struct nb_ops *ops;
	napi_env env;
	struct nb_addon *addon;
	napi_deferred deferred;
	napi_async_work work;
	napi_threadsafe_function tsfn;
	napi_ref on_event;          /* JS function(kind, arg, seq) or NULL */
	uint64_t id;
	struct nb_call *next;       /* in addon->live */
	struct nb_strings strings;
	ps_error err;
	int rc;
	int settled;                /* main thread: the promise is settled */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int refs;
	int aborted;                /* AbortSignal, a throwing callback, or the
	                             * environment going away */
	int gone;                   /* the environment is being torn down: the
	                             * thread-safe function may not be used */
	int hook_ran;               /* the cleanup hook ran (main thread) */
	int listening;              /* on_event was given (set before the
	                             * thread starts, never changed) */
	struct nb_event ev;
};

/* call.c */
/* A zeroed call of `size` bytes (a struct whose first member is the
 * nb_call), NULL with an Error thrown when memory runs out. */
void *nb_call_new(napi_env env, const struct nb_ops *ops, size_t size);
/* Starts `c`: returns the promise (pool calls) or {promise, id} (threaded
 * calls), `on_event` (may be NULL or undefined) receiving what the thread
 * asks.  On failure the call is freed and an exception is pending. */
napi_value nb_call_start(napi_env env, struct nb_call *c, napi_value on_event);
/* Frees a call that was never started. */
void nb_call_discard(struct nb_call *c);
/* From a call's thread: asks JavaScript and waits for the answer; 0 when
 * the call was aborted or nobody listens. */
int nb_call_ask(struct nb_call *c, enum nb_event_kind kind, const void *arg);
/* 1 once the call was aborted (a download polls it). */
int nb_call_aborted(struct nb_call *c);
/* The exported answer(id, seq, value) and abort(id). */
napi_value nb_call_answer_js(napi_env env, napi_callback_info info);
napi_value nb_call_abort_js(napi_env env, napi_callback_info info);
/* Zeroed memory owned by the call, freed with it; NULL when out of
 * memory. */
void *nb_call_alloc(struct nb_call *c, size_t size);
/* A copy of `s` owned by the call; NULL when out of memory. */
const char *nb_call_keep(struct nb_call *c, const char *s, size_t len);

/* values.c: JSON-shaped values, as cli/json.c writes them.  Text that is
 * not UTF-8 has its bytes above 0x7F replaced by '?', as the CLI does. */
napi_value nb_null(napi_env env);
napi_value nb_text(napi_env env, const char *s);
napi_value nb_bool(napi_env env, int b);
napi_value nb_int(napi_env env, int64_t n);
napi_value nb_digest(napi_env env, int has,
    const unsigned char digest[PS_SHA256_LEN]);
napi_value nb_time(napi_env env, int64_t t);
napi_value nb_lines(napi_env env, const char *text);
napi_value nb_strings_array(napi_env env, const ps_strings *list);
napi_value nb_diags(napi_env env, const ps_diags *diags);
napi_value nb_consent(napi_env env, unsigned classes);
napi_value nb_object(napi_env env);
napi_value nb_array(napi_env env);
void nb_set(napi_env env, napi_value obj, const char *key, napi_value v);
void nb_push(napi_env env, napi_value array, napi_value v);
/* JSON.parse(text), null when that fails. */
napi_value nb_parse_json(napi_env env, const char *text);
/* A diff: ps_diff_to_json()'s object, its exact text kept under the diff
 * symbol (not enumerable) for acceptDiff; null for NULL. */
napi_value nb_diff(napi_env env, const ps_diff *diff);
/* Sets ok, exit, code, subject, message, expected, found as
 * cli_json_error() does. */
void nb_error_fields(napi_env env, napi_value obj, int rc, const ps_error *err);
/* A PacksignError of `err` (its `result` set when not NULL). */
napi_value nb_error(napi_env env, const ps_error *err, napi_value result);
/* Throws nb_error(); returns NULL for a callback to return. */
napi_value nb_throw(napi_env env, const ps_error *err);
/* Fills `err` (exit 2) for a failure of the addon itself. */
void nb_error_set(ps_error *err, const char *code, const char *subject,
    const char *message);

/* options.c: JavaScript arguments into C.  Each returns 0, or -1 with a
 * TypeError thrown; an undefined or null property leaves *out as it was
 * (strings: NULL). */
int nb_arg_string(napi_env env, napi_value v, struct nb_call *c,
    const char *what, const char **out);
/* A string that fits `buf` whole (no NUL inside); -1, nothing thrown,
 * otherwise. */
int nb_small_string(napi_env env, napi_value v, char *buf, size_t size);
int nb_opt_string(napi_env env, napi_value obj, const char *name,
    struct nb_call *c, const char **out);
int nb_opt_bool(napi_env env, napi_value obj, const char *name, int *out);
int nb_opt_int64(napi_env env, napi_value obj, const char *name,
    int64_t *out);
int nb_opt_uint64(napi_env env, napi_value obj, const char *name,
    uint64_t *out);
/* `at`: seconds since the epoch, or RFC 3339 UTC text as --at takes. */
int nb_opt_time(napi_env env, napi_value obj, const char *name, int64_t *out);
/* A format name ("agentpack", ...); absent: PS_FORMAT_UNKNOWN. */
int nb_opt_format(napi_env env, napi_value obj, const char *name,
    ps_format *out);
/* An array of consent class names into PS_CONSENT_* bits. */
int nb_opt_classes(napi_env env, napi_value obj, const char *name,
    unsigned *out);
/* An array of strings, kept by the call. */
int nb_opt_string_list(napi_env env, napi_value obj, const char *name,
    struct nb_call *c, const char ***out, size_t *count);

/* Where a call's trust comes from: a policy file or one public key (as
 * --trust and -p), loaded on the call's thread. */
struct nb_trust_source {
	const char *policy;
	const char *public_key;
};
int nb_opt_trust(napi_env env, napi_value obj, struct nb_call *c,
    struct nb_trust_source *src, int required);
/* The policy, or NULL (0) when neither is given. */
int nb_trust_load(const struct nb_trust_source *src, ps_trust **out,
    ps_error *err);
/* The checks of ps_verify_options (sigPath, signedBy, sourceRepo,
 * sourceCommit, requireSource, allowDirty, rebuildFrom, deep, at,
 * bundles). */
int nb_opt_verify(napi_env env, napi_value obj, struct nb_call *c,
    ps_verify_options *o);
/* ps_fetch_options from {caFile, proxy, noProxy, sigUrl, maxDownload,
 * connectTimeout, lowSpeedTime, timeout}; the call's abort ends a
 * transfer (cancelled). */
int nb_opt_fetch(napi_env env, napi_value obj, struct nb_call *c,
    ps_fetch_options *o);

/* results.c: the CLI's --json objects. */
void nb_verify_fields(napi_env env, napi_value o, const ps_verify_result *r);
napi_value nb_verify_result(napi_env env, const char *path,
    const ps_verify_result *r, int rc, const ps_error *err);
napi_value nb_install_result(napi_env env, const char *archive,
    const char *data_dir, const ps_install_result *r, int rc,
    const ps_error *err);
napi_value nb_installed(napi_env env, const ps_installed *p);
napi_value nb_pins(napi_env env, const ps_pins *pins);
napi_value nb_check(napi_env env, const ps_installed_check *c);
napi_value nb_plan(napi_env env, const ps_install_plan *p);
napi_value nb_index_entry(napi_env env, const ps_index_entry *e);

/* The exported functions, one file each group. */
napi_value nb_digest_js(napi_env env, napi_callback_info info);
napi_value nb_validate_js(napi_env env, napi_callback_info info);
napi_value nb_describe_js(napi_env env, napi_callback_info info);
napi_value nb_verify_js(napi_env env, napi_callback_info info);
napi_value nb_verify_installed_js(napi_env env, napi_callback_info info);
napi_value nb_diff_js(napi_env env, napi_callback_info info);
napi_value nb_install_js(napi_env env, napi_callback_info info);
napi_value nb_install_url_js(napi_env env, napi_callback_info info);
napi_value nb_pipe_js(napi_env env, napi_callback_info info);
napi_value nb_fetch_js(napi_env env, napi_callback_info info);
napi_value nb_list_js(napi_env env, napi_callback_info info);
napi_value nb_uninstall_js(napi_env env, napi_callback_info info);
napi_value nb_data_dir_default_js(napi_env env, napi_callback_info info);
napi_value nb_read_index_js(napi_env env, napi_callback_info info);
napi_value nb_verify_index_js(napi_env env, napi_callback_info info);
napi_value nb_index_close_js(napi_env env, napi_callback_info info);
napi_value nb_resolve_js(napi_env env, napi_callback_info info);
napi_value nb_index_state_load_js(napi_env env, napi_callback_info info);
napi_value nb_index_state_check_js(napi_env env, napi_callback_info info);
napi_value nb_index_state_record_js(napi_env env, napi_callback_info info);
napi_value nb_install_indexed_js(napi_env env, napi_callback_info info);
napi_value nb_sign_js(napi_env env, napi_callback_info info);
napi_value nb_verify_blob_js(napi_env env, napi_callback_info info);

/* install.c, for index.c: an install's options from the JS object and the
 * plan/waiting events of its thread. */
struct nb_install {
	struct nb_call base;
	struct nb_trust_source trust_src;
	ps_trust *trust;
	ps_install_options o;
	ps_fetch_options fetch;
	int has_confirm, has_consent, has_waiting;
	const char *archive;        /* as given: a path or a URL */
	ps_install_result *result;
};
int nb_install_read(napi_env env, napi_value opts, struct nb_install *in);
/* Loads the trust and the data directory on the call's thread; 0 / -1. */
int nb_install_prepare(struct nb_install *in);
napi_value nb_install_done(napi_env env, struct nb_call *c, int *reject);
void nb_install_release(struct nb_call *c);
napi_value nb_install_event(napi_env env, struct nb_call *c,
    const struct nb_event *ev);

/* The argument vector of a call: at most NB_ARGS_MAX arguments. */
#define NB_ARGS_MAX 6
struct nb_args {
	size_t count;
	napi_value v[NB_ARGS_MAX];
};
int nb_args(napi_env env, napi_callback_info info, struct nb_args *a);

#endif
