/* libgit2 by the soname the build linked against (Makefile). */
#include <stddef.h>
#include <string.h>

#include "dynlib/git.h"
#include "dynlib/load.h"
#include "util/error.h"

#ifndef DYNLIB_LIBGIT2_SONAME
#error "the Makefile passes DYNLIB_LIBGIT2_SONAME (scripts/soname-of libgit2)"
#endif

#define DYNLIB_GIT_SYMBOL(name) { "git_" #name, offsetof(dynlib_git, name) },
static const dynlib_symbol git_symbols[] = {
	DYNLIB_GIT_FUNCTIONS(DYNLIB_GIT_SYMBOL)
};
#undef DYNLIB_GIT_SYMBOL

int
dynlib_git_open(dynlib_git *git, const char *purpose, ps_error *err)
{
	memset(git, 0, sizeof(*git));
	if (dynlib_load(DYNLIB_LIBGIT2_SONAME, purpose, git_symbols,
	    sizeof(git_symbols) / sizeof(git_symbols[0]), git, &git->handle,
	    err) != 0) {
		memset(git, 0, sizeof(*git));
		return -1;
	}
	if (git->libgit2_init() < 0) {
		dynlib_close(git->handle);
		memset(git, 0, sizeof(*git));
		return util_fail(err, "git_error", DYNLIB_LIBGIT2_SONAME,
		    "libgit2 failed to start");
	}
	return 0;
}

void
dynlib_git_close(dynlib_git *git)
{
	if (git->handle == NULL)
		return;
	git->libgit2_shutdown();
	dynlib_close(git->handle);
	memset(git, 0, sizeof(*git));
}

const char *
dynlib_git_message(const dynlib_git *git)
{
	const git_error *e = git->error_last();

	return e != NULL && e->message != NULL ? e->message : "?";
}
