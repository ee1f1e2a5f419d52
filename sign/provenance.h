/* Internal header of sign/: git provenance.
 *
 * Git provenance of a pack through libgit2 (docs/formats/signature.md,
 * "Provenance"): where the pack lives in its repository, whether its files
 * match the commit, the holon source.ref rule, and rebuilding the
 * canonical tar straight from a commit's tree objects.
 */
#ifndef SIGN_PROVENANCE_H
#define SIGN_PROVENANCE_H

#include "dynlib/git.h"
#include "packsign.h"

#define SIGN_GIT_URL_MAX 2048
#define SIGN_GIT_DIRTY_SHOWN 5     /* dirty paths named in the error */

typedef struct sign_git_source {
	char *workdir;           /* the work tree's root, absolute, no final '/' */
	char *pack_path;         /* the pack's path in the work tree; "" at root */
	char commit[65];         /* HEAD: 40 (or 64) lowercase hex */
	char *origin_url;        /* `origin` normalised to https; NULL: no origin */
} sign_git_source;

/*
 * Finds the git work tree containing the directory `dir`.  Sets `*out` to
 * NULL (and returns 0) when `dir` is in no work tree.  Refuses a
 * repository without a commit (source_no_commit), an origin URL that
 * cannot be normalised (source_url_invalid, naming --source-repo), and a
 * pack path breaking the name rules.  With `want_origin` 0 the origin is
 * not read at all (origin_url stays NULL): the caller names the
 * repository itself.
 */
int sign_git_discover(const char *dir, int want_origin, sign_git_source **out,
    ps_error *err);
void sign_git_source_free(sign_git_source *src);

/*
 * `url` in its https form: "https://" host [":" port] "/" path, host
 * lowercased, no user information (dropped: a token never reaches the
 * result), no trailing ".git" or '/'.  Accepts https://, ssh://, git://
 * and scp-like "[user@]host:path"; refuses other schemes, local paths,
 * queries and odd characters (source_url_invalid; the URL it shows has
 * its user information and query masked).  Pure: no I/O.  `*out` is
 * malloc'ed.
 */
int sign_git_url_normalize(const char *url, char **out, ps_error *err);

/*
 * Compares the files below the pack path with HEAD and the index:
 * modified, staged, deleted, renamed, untracked and git-ignored files
 * that `packsign pack` would pack count.  Returns 0 when clean; -1 with
 * *dirty = 1 and a source_dirty refusal naming the first paths; -1 with
 * *dirty = 0 when the check itself failed.
 */
int sign_git_check_clean(const sign_git_source *src, int *dirty, ps_error *err);

typedef enum sign_git_ref_relation {
	SIGN_GIT_REF_SAME = 0,      /* source.ref is the recorded commit */
	SIGN_GIT_REF_ANCESTOR = 1   /* an ancestor; only the manifest changed */
} sign_git_ref_relation;

/*
 * The holon rule: `ref` (the manifest's source.ref, a full commit id) must
 * equal `commit` or be an ancestor of it such that, inside `pack_path`,
 * only `<pack_path>/holon.yaml` differs between the two trees.  Refuses
 * with holon_ref_invalid, holon_ref_not_ancestor or holon_ref_changed.
 */
int sign_git_check_holon_ref(const char *repo_dir, const char *pack_path,
    const char *ref, const char *commit, sign_git_ref_relation *relation,
    ps_error *err);

/*
 * Writes to `out_fd` (or nowhere when -1) the canonical tar `packsign
 * pack` would write for the files of `pack_path` at `commit`, reading the
 * tree objects of the repository at `repo_dir` (no checkout).  Refuses
 * symbolic links, submodules and paths whose git attributes set a
 * filter, text/eol conversion, ident or working-tree-encoding
 * (git_attributes_refused).  `digest_out` receives the tar and tree
 * digests as ps_pack() gives them.
 */
int sign_git_rebuild(const char *repo_dir, const char *commit,
    const char *pack_path, int out_fd, const ps_pack_options *options,
    ps_digest **digest_out, ps_error *err);

/* A libgit2 call failed: "WHAT: <libgit2's message>", git_error, exit 2. */
int sign_git_failed(const dynlib_git *git, ps_error *err,
    const char *subject, const char *what);

#endif
