/*
 * The packsign addon: libpacksign for Node.js through Node-API (version
 * NAPI_VERSION, binding.gyp).  index.js is the package's face; this file
 * registers the native functions it calls, refuses a library of another
 * ABI than the header it was compiled with, and keeps the few values of
 * one Node environment in its instance data (no global state).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

int
nb_args(napi_env env, napi_callback_info info, struct nb_args *a)
{
	a->count = NB_ARGS_MAX;
	if (napi_get_cb_info(env, info, &a->count, a->v, NULL, NULL) !=
	    napi_ok)
		return -1;
	if (a->count > NB_ARGS_MAX)
		a->count = NB_ARGS_MAX;
	return 0;
}

int
nb_addon_value(napi_env env, enum nb_ref which, napi_value *out)
{
	struct nb_addon *addon = NULL;
	napi_ref ref;

	*out = NULL;
	if (napi_get_instance_data(env, (void **)&addon) != napi_ok ||
	    addon == NULL)
		return -1;
	ref = which == NB_REF_ERROR_CLASS ? addon->error_class :
	    addon->diff_text;
	if (ref == NULL || napi_get_reference_value(env, ref, out) != napi_ok ||
	    *out == NULL)
		return -1;
	return 0;
}

static void
addon_free(napi_env env, void *data, void *hint)
{
	struct nb_addon *addon = data;

	(void)hint;
	if (addon->error_class != NULL)
		napi_delete_reference(env, addon->error_class);
	if (addon->diff_text != NULL)
		napi_delete_reference(env, addon->diff_text);
	free(addon);
}

/* setup(PacksignError, diffTextSymbol): once, from index.js. */
static napi_value
setup_js(napi_env env, napi_callback_info info)
{
	struct nb_addon *addon = NULL;
	struct nb_args a;

	if (nb_args(env, info, &a) != 0 || a.count < 2 ||
	    napi_get_instance_data(env, (void **)&addon) != napi_ok ||
	    addon == NULL)
		return NULL;
	if (addon->error_class != NULL || addon->diff_text != NULL) {
		napi_throw_error(env, NULL, "packsign: setup() runs once");
		return NULL;
	}
	napi_create_reference(env, a.v[0], 1, &addon->error_class);
	napi_create_reference(env, a.v[1], 1, &addon->diff_text);
	return NULL;
}

static napi_value
version_js(napi_env env, napi_callback_info info)
{
	napi_value o = nb_object(env);

	(void)info;
	nb_set(env, o, "library", nb_text(env, ps_version()));
	nb_set(env, o, "abi", nb_int(env, ps_abi_version()));
	nb_set(env, o, "header", nb_text(env, PS_VERSION));
	nb_set(env, o, "headerAbi", nb_int(env, PS_ABI_VERSION));
	nb_set(env, o, "napi", nb_int(env, NAPI_VERSION));
	return o;
}

/* A library of another ABI fills structs of another size: refused before
 * any other call, naming both. */
static int
abi_check(napi_env env)
{
	char text[256];

	if (ps_abi_version() == PS_ABI_VERSION)
		return 0;
	snprintf(text, sizeof(text), "packsign: the loaded libpacksign %s has "
	    "ABI %d, this addon was built for ABI %d (packsign.h %s): rebuild "
	    "the addon against the installed library (npm rebuild packsign)",
	    ps_version(), ps_abi_version(), PS_ABI_VERSION, PS_VERSION);
	napi_throw_error(env, "ERR_PACKSIGN_ABI", text);
	return -1;
}

/* Every native function index.js calls.  A call libpacksign grows later
 * is one more line here and its file's start function. */
static const struct {
	const char *name;
	napi_callback fn;
} exported[] = {
	{ "setup", setup_js },
	{ "version", version_js },
	{ "answer", nb_call_answer_js },
	{ "abort", nb_call_abort_js },
	{ "digest", nb_digest_js },
	{ "validate", nb_validate_js },
	{ "describe", nb_describe_js },
	{ "verify", nb_verify_js },
	{ "verifyInstalled", nb_verify_installed_js },
	{ "verifyBlob", nb_verify_blob_js },
	{ "diff", nb_diff_js },
	{ "install", nb_install_js },
	{ "installUrl", nb_install_url_js },
	{ "pipe", nb_pipe_js },
	{ "fetch", nb_fetch_js },
	{ "list", nb_list_js },
	{ "uninstall", nb_uninstall_js },
	{ "dataDirDefault", nb_data_dir_default_js },
	{ "readIndex", nb_read_index_js },
	{ "verifyIndex", nb_verify_index_js },
	{ "indexClose", nb_index_close_js },
	{ "resolve", nb_resolve_js },
	{ "indexStateLoad", nb_index_state_load_js },
	{ "indexStateCheck", nb_index_state_check_js },
	{ "indexStateRecord", nb_index_state_record_js },
	{ "installIndexed", nb_install_indexed_js },
	{ "sign", nb_sign_js },
};

static napi_value
addon_init(napi_env env, napi_value exports)
{
	struct nb_addon *addon;
	napi_value fn;
	size_t i;

	if (abi_check(env) != 0)
		return NULL;
	if ((addon = calloc(1, sizeof(*addon))) == NULL ||
	    napi_set_instance_data(env, addon, addon_free, NULL) != napi_ok) {
		free(addon);
		napi_throw_error(env, NULL, "packsign: out of memory");
		return NULL;
	}
	for (i = 0; i < sizeof(exported) / sizeof(exported[0]); i++) {
		if (napi_create_function(env, exported[i].name, NAPI_AUTO_LENGTH,
		    exported[i].fn, NULL, &fn) != napi_ok ||
		    napi_set_named_property(env, exports, exported[i].name,
		    fn) != napi_ok)
			return NULL;
	}
	return exports;
}

/* The macro defines this without a prototype (-Wmissing-prototypes). */
#ifdef NODE_API_MODULE_GET_API_VERSION
NAPI_MODULE_EXPORT int32_t NODE_API_MODULE_GET_API_VERSION(void);
#endif
NAPI_MODULE(NODE_GYP_MODULE_NAME, addon_init)
