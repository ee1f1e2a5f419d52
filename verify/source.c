/*
 * Step 8 of verification: provenance.  It runs whenever the statement
 * records a source, the manifest declares one, or the operator asks
 * (--source-repo, --source-commit, --require-source, --rebuild-from).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sign/provenance.h"
#include "util/error.h"
#include "util/strings.h"
#include "verify/source.h"

static const char *
why_source_needed(const verify_vctx *v)
{
	if (v->o->require_source)
		return "--require-source";
	if (v->o->source_commit != NULL)
		return "--source-commit";
	if (v->o->source_repo != NULL)
		return "--source-repo";
	if (v->o->rebuild_from != NULL)
		return "--rebuild-from";
	return "the manifest's source";
}

static int
check_commit(const verify_vctx *v, ps_error *err)
{
	const char *recorded = v->st->source_commit;

	if (!util_commit_id_valid(recorded, 0)) {
		util_refuse(err, "commit_invalid", v->res->sig_path, "the recorded "
		    "source commit must be a full lowercase commit id");
		return util_error_expect(err, "40 or 64 hex digits", recorded);
	}
	if (v->o->source_commit != NULL &&
	    strcasecmp(v->o->source_commit, recorded) != 0) {
		util_refuse(err, "source_commit_mismatch", v->path, "compared the "
		    "recorded source commit with --source-commit");
		return util_error_expect(err, v->o->source_commit, recorded);
	}
	return 0;
}

/* holon: source.ref names the recorded commit or its recorded
 * manifest-only ancestor (signature.md, section 6.3). */
static int
check_holon_ref(const verify_vctx *v, ps_error *err)
{
	const char *ref = v->manifest->source_commit;
	const char *ancestor = v->st->source_manifest_commit;
	char expected[2 * 65 + 8];

	if (ref == NULL || strcmp(ref, v->st->source_commit) == 0 ||
	    (ancestor != NULL && strcmp(ref, ancestor) == 0))
		return 0;
	snprintf(expected, sizeof(expected), "%s%s%s", v->st->source_commit,
	    ancestor != NULL ? " or " : "", ancestor != NULL ? ancestor : "");
	util_refuse(err, "source_ref_mismatch", v->path, "compared the manifest's "
	    "source.ref with the recorded commit");
	return util_error_expect(err, expected, ref);
}

static int
compare_repo(const verify_vctx *v, const char *what, const char *url,
    ps_error *err)
{
	const char *recorded = v->st->source_repository;
	char *normal = NULL;
	int rc = 0;

	if (sign_git_url_normalize(url, &normal, err) != 0)
		return -1;
	if (recorded == NULL || strcmp(normal, recorded) != 0) {
		util_refuse(err, "source_repo_mismatch", v->path, "compared the "
		    "recorded source repository with %s", what);
		rc = util_error_expect(err, normal, recorded != NULL ? recorded :
		    "no repository recorded");
	}
	free(normal);
	return rc;
}

static int
check_repo(const verify_vctx *v, ps_error *err)
{
	if (v->manifest->source_repository != NULL &&
	    compare_repo(v, "the manifest's source.repository",
	    v->manifest->source_repository, err) != 0)
		return -1;
	if (v->o->source_repo != NULL &&
	    compare_repo(v, "--source-repo", v->o->source_repo, err) != 0)
		return -1;
	return 0;
}

/* With the repository at hand, the recorded manifestRef is checked too:
 * an ancestor from which only the manifest changed in the pack. */
static int
check_manifest_ref(const verify_vctx *v, ps_error *err)
{
	sign_git_ref_relation relation;

	if (v->st->source_manifest_commit == NULL)
		return 0;
	return sign_git_check_holon_ref(v->o->rebuild_from, v->st->source_path,
	    v->st->source_manifest_commit, v->st->source_commit, &relation,
	    err);
}

static int
check_rebuild(verify_vctx *v, ps_error *err)
{
	char expected[PS_SHA256_STRING_LEN], found[PS_SHA256_STRING_LEN];
	ps_pack_options po;
	ps_digest *d = NULL;
	int rc = 0;

	if (check_manifest_ref(v, err) != 0)
		return -1;
	ps_pack_options_init(&po);
	po.mtime = v->st->mtime;
	po.compression = v->st->compression;
	if (sign_git_rebuild(v->o->rebuild_from, v->st->source_commit,
	    v->st->source_path, -1, &po, &d, err) != 0)
		return -1;
	if (memcmp(d->tar_digest, v->st->tar_digest, PS_SHA256_LEN) != 0) {
		util_refuse(err, "rebuild_mismatch", v->o->rebuild_from,
		    "rebuilt the canonical tar from commit %s at '%s' and compared "
		    "its tar digest with the signed one", v->st->source_commit,
		    v->st->source_path);
		rc = util_error_expect(err, ps_sha256_string(v->st->tar_digest,
		    expected), ps_sha256_string(d->tar_digest, found));
	}
	ps_digest_free(d);
	v->res->rebuild_checked = rc == 0;
	return rc;
}

static int
needed(const verify_vctx *v)
{
	return v->st->has_source || v->manifest->source_repository != NULL ||
	    v->manifest->source_commit != NULL || v->o->require_source ||
	    v->o->source_commit != NULL || v->o->source_repo != NULL ||
	    v->o->rebuild_from != NULL;
}

int
verify_source(verify_vctx *v, ps_error *err)
{
	if (!needed(v))
		return 0;
	v->res->source_checked = 1;
	if (!v->st->has_source) {
		util_refuse(err, "source_missing", v->res->sig_path, "%s asks for "
		    "the source the signature records", why_source_needed(v));
		return util_error_expect(err, "a recorded source (repository and "
		    "commit)", "no source recorded");
	}
	if (check_commit(v, err) != 0 || check_holon_ref(v, err) != 0 ||
	    check_repo(v, err) != 0)
		return -1;
	if (v->st->source_dirty && !v->o->allow_dirty) {
		util_refuse(err, "source_dirty", v->path, "the pack was signed from "
		    "a work tree that differed from the commit (--allow-dirty "
		    "accepts it)");
		return util_error_expect(err, "a clean source", "dirty: true");
	}
	if (v->o->rebuild_from != NULL)
		return check_rebuild(v, err);
	return 0;
}
