/*
 * Sigstore bundles read once, their signatures verified as a .sig's, and
 * their transparency-log entries and timestamps verified from the same
 * bytes (signature.md, section 9.2).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sign/bundle.h"
#include "sigstore/sigstore.h"
#include "util/error.h"
#include "util/fdio.h"
#include "verify/bundles.h"

static int
read_bytes(const char *path, verify_bundle *b, ps_error *err)
{
	ssize_t n = -1;
	int fd;

	b->bytes = malloc(SIGN_DSSE_MAX_BYTES + 1);
	if (b->bytes == NULL)
		return util_fail_oom(err, path);
	fd = util_open_file(path, err);
	if (fd < 0)
		return -1;
	n = util_read_full(fd, b->bytes, SIGN_DSSE_MAX_BYTES + 1);
	close(fd);
	if (n < 0)
		return util_fail_errno(err, "io_error", path, "read", errno);
	if (n > SIGN_DSSE_MAX_BYTES)
		return util_refuse(err, "envelope_too_large", path,
		    "the bundle is over %d bytes", SIGN_DSSE_MAX_BYTES);
	b->len = (size_t)n;
	return 0;
}

int
verify_bundles_read(verify_vctx *v, ps_error *err)
{
	const char *path;
	sign_dsse_envelope *env;
	size_t k, first = 0;

	v->bundles = calloc(v->o->bundle_count, sizeof(*v->bundles));
	if (v->bundles == NULL)
		return util_fail_oom(err, NULL);
	v->bundle_count = v->o->bundle_count;
	for (k = 0; k < v->bundle_count; k++) {
		path = v->o->bundle_paths[k];
		if (read_bytes(path, &v->bundles[k], err) != 0 ||
		    sign_bundle_parse_any(v->bundles[k].bytes, v->bundles[k].len,
		    path, &env, &v->bundles[k].keyless, err) != 0)
			return -1;
		v->bundles[k].first = first;
		v->bundles[k].count = sign_dsse_signature_count(env);
		first += v->bundles[k].count;
		if (k == 0) {
			v->env = env;
		} else if (sign_dsse_merge(v->env, env, path, err) != 0) {
			sign_dsse_free(env);
			return -1;
		}
		if (k > 0)
			sign_dsse_free(env);
	}
	return 0;
}

static const ps_sigstore_root *
trusted_root(verify_vctx *v, ps_error *err)
{
	if (v->o->sigstore_root != NULL)
		return v->o->sigstore_root;
	if (v->own_root == NULL &&
	    ps_sigstore_root_public_good(&v->own_root, err) != 0)
		return NULL;
	return v->own_root;
}

/* The verified signing times into the signature's result. */
static int
keep_evidence(ps_verify_signature *s, const ps_sigstore_result *r,
    ps_error *err)
{
	size_t i;

	s->log_entry_count = r->log_entry_count;
	for (i = 0; i < r->timestamp_count; i++)
		s->timestamp_count += r->timestamps[i].verified != 0;
	if (r->signing_time_count == 0)
		return 0;
	s->signing_times = calloc(r->signing_time_count,
	    sizeof(*s->signing_times));
	if (s->signing_times == NULL)
		return util_fail_oom(err, NULL);
	memcpy(s->signing_times, r->signing_times, r->signing_time_count *
	    sizeof(*s->signing_times));
	s->signing_time_count = r->signing_time_count;
	return 0;
}

/* The entry of bundle `b` a policy key verified and that still counts:
 * the key the bundle's evidence is verified with (a Sigstore bundle has
 * one signature; one with several is refused by the checks). */
static size_t
verified_entry(const verify_vctx *v, const verify_bundle *b)
{
	size_t j;

	for (j = b->first; j < b->first + b->count; j++) {
		if (v->entry_key[j] != NULL && v->res->signatures[j].code[0] == '\0')
			return j;
	}
	return SIZE_MAX;
}

int
verify_bundle_evidence(verify_vctx *v, size_t k, ps_error *refusal,
    ps_error *err)
{
	const verify_bundle *b = &v->bundles[k];
	const char *path = v->o->bundle_paths[k];
	const ps_sigstore_root *root;
	ps_sigstore_result *r = NULL;
	size_t count = 0, j = verified_entry(v, b);
	int rc;

	ps_error_clear(refusal);
	if (j == SIZE_MAX)
		return 0;                   /* nothing of it counts anyway */
	if (sigstore_evidence_count(b->bytes, b->len, path, &count, err) != 0)
		return -1;
	if (count == 0)
		return 0;
	if ((root = trusted_root(v, err)) == NULL)
		return -1;
	rc = sigstore_verify_key_bundle(root, path, b->bytes, b->len,
	    v->entry_key[j], v->o->at, &r, refusal);
	if (rc == 0)
		rc = keep_evidence(&v->res->signatures[j], r, err);
	else if (refusal->status == PS_STATUS_FAILED) {
		*err = *refusal;
		rc = -1;
	} else
		rc = 1;
	ps_sigstore_result_free(r);
	return rc;
}

void
verify_bundles_free(verify_vctx *v)
{
	size_t k;

	for (k = 0; k < v->bundle_count; k++)
		free(v->bundles[k].bytes);
	free(v->bundles);
	ps_sigstore_root_free(v->own_root);
}
