/* libgit2 by the soname the build linked against (Makefile). */
#include <string.h>

#include "dynlib/git.h"
#include "dynlib/load.h"
#include "util/error.h"

#ifndef DYNLIB_LIBGIT2_SONAME
#error "the Makefile passes DYNLIB_LIBGIT2_SONAME (scripts/soname-of libgit2)"
#endif

static int
resolve_all(dynlib_git *git, ps_error *err)
{
	int rc = 0;

#define DYNLIB_GIT_RESOLVE(name) \
	if (rc == 0) \
		rc = dynlib_resolve(git->handle, DYNLIB_LIBGIT2_SONAME, \
		    "git_" #name, &git->name, sizeof(git->name), err);
	DYNLIB_GIT_FUNCTIONS(DYNLIB_GIT_RESOLVE)
#undef DYNLIB_GIT_RESOLVE
	return rc;
}

int
dynlib_git_open(dynlib_git *git, const char *purpose, ps_error *err)
{
	memset(git, 0, sizeof(*git));
	git->handle = dynlib_open(DYNLIB_LIBGIT2_SONAME, purpose, err);
	if (git->handle == NULL)
		return -1;
	if (resolve_all(git, err) != 0) {
		dynlib_close(git->handle);
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
