/*
 * Provenance a CI certified (signature.md 6.5): a counted keyless
 * signature whose certificate has a Source Repository URI (.12) and a
 * Source Repository Digest (.13) binds the statement's source to them; a
 * statement without a source takes them as its source.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sign/provenance.h"
#include "util/error.h"
#include "verify/certsigners.h"
#include "verify/certsource.h"

static int
mismatch(const verify_vctx *v, const char *what, const char *expected,
    const char *found, ps_error *err)
{
	util_refuse(err, "source_certificate_mismatch", v->path, "compared %s "
	    "with what the CI certified in the signing certificate", what);
	return util_error_expect(err, expected, found);
}

/* The statement's source against one certificate's. */
static int
compare(verify_vctx *v, const ps_sigstore_certificate *c, const char *repo,
    ps_error *err)
{
	const char *recorded = v->st->source_repository;

	if (recorded == NULL || strcmp(recorded, repo) != 0)
		return mismatch(v, "the statement's source repository and the "
		    "certificate's Source Repository URI (normalised, "
		    "1.3.6.1.4.1.57264.1.12)", repo, recorded != NULL ? recorded :
		    "no repository recorded", err);
	if (strcasecmp(v->st->source_commit, c->source_repository_digest) != 0)
		return mismatch(v, "the statement's source commit and the "
		    "certificate's Source Repository Digest "
		    "(1.3.6.1.4.1.57264.1.13)", c->source_repository_digest,
		    v->st->source_commit, err);
	v->res->source_certificate_checked = 1;
	return 0;
}

static int
set(char **slot, const char *value, ps_error *err)
{
	char *copy = strdup(value);

	if (copy == NULL)
		return util_fail_oom(err, NULL);
	free(*slot);
	*slot = copy;
	return 0;
}

/* A statement without a source: the certificate's becomes it. */
static int
adopt(verify_vctx *v, const ps_sigstore_certificate *c, const char *repo,
    ps_error *err)
{
	const char *ref = v->manifest->source_commit;
	char *p;

	if (ref != NULL && strcasecmp(ref, c->source_repository_digest) != 0)
		return mismatch(v, "the holon manifest's source.ref and the "
		    "certificate's Source Repository Digest (the statement "
		    "records no source)", c->source_repository_digest, ref, err);
	if (set(&v->st->source_repository, repo, err) != 0 ||
	    set(&v->st->source_commit, c->source_repository_digest, err) != 0 ||
	    set(&v->st->source_path, "", err) != 0 ||
	    set(&v->res->source_repository, repo, err) != 0 ||
	    set(&v->res->source_commit, c->source_repository_digest, err) != 0 ||
	    set(&v->res->source_path, "", err) != 0)
		return -1;
	for (p = v->st->source_commit; *p != '\0'; p++)
		*p = (char)(*p >= 'A' && *p <= 'F' ? *p - 'A' + 'a' : *p);
	memcpy(v->res->source_commit, v->st->source_commit,
	    strlen(v->st->source_commit));
	v->st->has_source = v->res->has_source = 1;
	v->st->source_dirty = v->res->source_dirty = 0;
	v->res->source_certified = 1;
	return 0;
}

int
verify_certified_source(verify_vctx *v, ps_error *err)
{
	const ps_sigstore_certificate *c;
	char *repo = NULL;
	size_t i;
	int rc = 0;

	for (i = 0; i < v->res->signature_count && rc == 0; i++) {
		c = verify_keyless_certificate(v, i);
		if (!v->res->signatures[i].counted || c == NULL ||
		    c->source_repository_uri == NULL ||
		    c->source_repository_digest == NULL)
			continue;
		if (sign_git_url_normalize(c->source_repository_uri, &repo,
		    err) != 0)
			return mismatch(v, "the certificate's Source Repository "
			    "URI with the repository URL rules (section 5)",
			    "a repository URL", c->source_repository_uri, err);
		rc = v->st->has_source ? compare(v, c, repo, err) :
		    adopt(v, c, repo, err);
		free(repo);
		repo = NULL;
	}
	return rc;
}
