/* Opening a library by soname and resolving its functions. */
#include <dlfcn.h>
#include <string.h>

#include "dynlib/load.h"
#include "util/error.h"

void *
dynlib_open(const char *soname, const char *purpose, ps_error *err)
{
	void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	const char *why;

	if (handle != NULL)
		return handle;
	why = dlerror();
	util_fail(err, "library_missing", soname, "cannot load %s, which %s "
	    "needs: %s; install it (README, \"Packaging\")", soname, purpose,
	    why != NULL ? why : "no reason given");
	util_error_record_expect(err, soname, "not loadable");
	return NULL;
}

int
dynlib_resolve(void *handle, const char *soname, const char *symbol,
    void *slot, size_t size, ps_error *err)
{
	void *address;

	(void)dlerror();
	address = dlsym(handle, symbol);
	if (address == NULL || size != sizeof(address)) {
		util_fail(err, "library_incompatible", soname, "%s has no "
		    "function %s: it is not the version packsign was built "
		    "against", soname, symbol);
		return util_error_expect(err, symbol, "missing");
	}
	/* POSIX: a function's address converts through void * (dlsym). */
	memcpy(slot, &address, sizeof(address));
	return 0;
}

int
dynlib_load(const char *soname, const char *purpose,
    const dynlib_symbol *symbols, size_t count, void *table, void **handle,
    ps_error *err)
{
	size_t i;

	*handle = dynlib_open(soname, purpose, err);
	if (*handle == NULL)
		return -1;
	for (i = 0; i < count; i++) {
		if (dynlib_resolve(*handle, soname, symbols[i].name,
		    (char *)table + symbols[i].offset, sizeof(void *), err) != 0) {
			dynlib_close(*handle);
			*handle = NULL;
			return -1;
		}
	}
	return 0;
}

void
dynlib_close(void *handle)
{
	if (handle != NULL)
		(void)dlclose(handle);
}
