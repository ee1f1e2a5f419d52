/* Internal header of dynlib/: libraries loaded when a command needs them.
 *
 * libgit2 and libcurl, with the 30-odd libraries they bring, are opened
 * by the first call that needs them, not by the dynamic loader at start:
 * a verify of a small pack would otherwise spend most of its time binding
 * symbols it never calls (docs/performance.md, "Start-up").  A library is
 * opened by the soname the build linked against, RTLD_NOW (every symbol
 * bound at once, as -z now does for what is linked) and RTLD_NODELETE
 * (closing a handle never unmaps code a thread or an atexit handler of
 * the library may still run).  There is no process-wide table: each
 * caller owns the handle and the function pointers it resolved.
 */
#ifndef DYNLIB_LOAD_H
#define DYNLIB_LOAD_H

#include <stddef.h>

#include "packsign.h"

/* Opens `soname`; `purpose` says what needs it, for the error
 * (library_missing, exit 2).  Returns the handle or NULL. */
void *dynlib_open(const char *soname, const char *purpose, ps_error *err);

/* Stores the address of `symbol` into the function pointer at `slot`
 * (`size` bytes, the size of a pointer); library_incompatible when the
 * library lacks it. */
int dynlib_resolve(void *handle, const char *soname, const char *symbol,
    void *slot, size_t size, ps_error *err);

/* One function of a table: its name and where its pointer goes. */
typedef struct dynlib_symbol {
	const char *name;
	size_t offset;               /* in the caller's table struct */
} dynlib_symbol;

/* Opens `soname` and resolves every symbol into `table`; 0, or -1 with
 * nothing left open.  The handle is returned in *handle. */
int dynlib_load(const char *soname, const char *purpose,
    const dynlib_symbol *symbols, size_t count, void *table, void **handle,
    ps_error *err);

/* Drops the handle (the code stays mapped: RTLD_NODELETE). */
void dynlib_close(void *handle);

#endif
