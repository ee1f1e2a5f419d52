/* Internal header of dynlib/: libgit2, opened when a command needs it.
 *
 * The functions packsign calls, as pointers of their declared types
 * (git2.h), without the "git_" prefix: git->repository_open(...).
 * sign/ (provenance, rebuild) and diff/ (text diffs) open it.
 */
#ifndef DYNLIB_GIT_H
#define DYNLIB_GIT_H

#include <git2.h>

#include "packsign.h"

#define DYNLIB_GIT_FUNCTIONS(X) \
	X(attr_get_many_ext) X(attr_value) X(blob_free) X(blob_lookup) \
	X(blob_rawcontent) X(blob_rawsize) X(buf_dispose) X(commit_free) \
	X(commit_lookup) X(commit_tree) X(config_free) X(config_get_string) \
	X(diff_buffers) X(diff_foreach) X(diff_free) X(diff_options_init) \
	X(diff_tree_to_tree) X(error_last) X(graph_descendant_of) \
	X(libgit2_init) X(libgit2_shutdown) X(odb_free) X(odb_read_header) \
	X(oid_cpy) X(oid_equal) X(oid_fromstr) X(oid_tostr) \
	X(reference_name_to_id) X(repository_config_snapshot) \
	X(repository_discover) X(repository_free) X(repository_head_unborn) \
	X(repository_is_bare) X(repository_odb) X(repository_open) \
	X(repository_workdir) X(status_byindex) X(status_list_entrycount) \
	X(status_list_free) X(status_list_new) X(status_options_init) \
	X(tree_entry_byindex) X(tree_entry_byname) X(tree_entry_bypath) \
	X(tree_entry_filemode) X(tree_entry_free) X(tree_entry_id) \
	X(tree_entry_name) X(tree_entry_type) X(tree_entrycount) \
	X(tree_free) X(tree_lookup)

typedef struct dynlib_git {
	void *handle;
#define DYNLIB_GIT_SLOT(name) __typeof__(git_##name) *name;
	DYNLIB_GIT_FUNCTIONS(DYNLIB_GIT_SLOT)
#undef DYNLIB_GIT_SLOT
} dynlib_git;

/* Opens libgit2 and starts it (git_libgit2_init); `purpose` names what
 * needs it for the error (library_missing, library_incompatible,
 * git_error; exit 2).  On failure `git` holds nothing to close. */
int dynlib_git_open(dynlib_git *git, const char *purpose, ps_error *err);

/* Stops libgit2 (git_libgit2_shutdown) and drops the handle. */
void dynlib_git_close(dynlib_git *git);

/* The message of libgit2's last error on this thread, or "?". */
const char *dynlib_git_message(const dynlib_git *git);

#endif
