/* The claims of an OIDC identity token, read to check it before use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sodium.h>

#include "keyless/token.h"
#include "util/error.h"
#include "util/strings.h"

#define TOKEN_SUBJECT "the identity token"

static int
invalid(ps_error *err, const char *what)
{
	return util_fail(err, "identity_token_invalid", TOKEN_SUBJECT,
	    "read the OIDC identity token's claims: %s", what);
}

/* The middle part of a JWT, base64url-decoded and parsed. */
static json_t *
claims_of(const char *jwt, ps_error *err)
{
	const char *dot1 = strchr(jwt, '.'), *dot2;
	unsigned char *bytes;
	size_t len, n = 0;
	json_t *claims;

	dot2 = dot1 != NULL ? strchr(dot1 + 1, '.') : NULL;
	if (dot2 == NULL || strchr(dot2 + 1, '.') != NULL) {
		invalid(err, "a JWT is three base64url parts separated by dots");
		return NULL;
	}
	len = (size_t)(dot2 - dot1 - 1);
	if ((bytes = malloc(len + 1)) == NULL) {
		util_fail_oom(err, TOKEN_SUBJECT);
		return NULL;
	}
	if (sodium_base642bin(bytes, len + 1, dot1 + 1, len, "=", &n, NULL,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0) {
		free(bytes);
		invalid(err, "its claims are not base64url");
		return NULL;
	}
	claims = json_loadb((const char *)bytes, n, JSON_REJECT_DUPLICATES, NULL);
	sodium_memzero(bytes, len + 1);
	free(bytes);
	if (!json_is_object(claims)) {
		json_decref(claims);
		invalid(err, "its claims are not a JSON object");
		return NULL;
	}
	return claims;
}

static const char *
claim(json_t *claims, const char *name)
{
	json_t *v = json_object_get(claims, name);

	return json_is_string(v) && json_string_length(v) > 0 &&
	    json_string_length(v) <= 1024 ? json_string_value(v) : NULL;
}

static int
names_sigstore(json_t *aud)
{
	size_t i;
	json_t *v;

	if (json_is_string(aud))
		return strcmp(json_string_value(aud), KEYLESS_AUDIENCE) == 0;
	json_array_foreach(aud, i, v) {
		if (json_is_string(v) &&
		    strcmp(json_string_value(v), KEYLESS_AUDIENCE) == 0)
			return 1;
	}
	return 0;
}

static int
check_times(json_t *claims, int64_t now, keyless_token *t, ps_error *err)
{
	json_t *exp = json_object_get(claims, "exp");
	json_t *nbf = json_object_get(claims, "nbf");
	char found[64];

	if (!json_is_integer(exp))
		return invalid(err, "it has no integer exp (expiry) claim");
	t->expires = (int64_t)json_integer_value(exp);
	if (t->expires <= now) {
		util_fail(err, "identity_token_expired", TOKEN_SUBJECT, "checked "
		    "the token's expiry: it expired %lld seconds ago (get a fresh "
		    "token)", (long long)(now - t->expires));
		snprintf(found, sizeof(found), "exp %lld", (long long)t->expires);
		return util_error_expect(err, "exp after now", found);
	}
	if (json_is_integer(nbf) && (int64_t)json_integer_value(nbf) > now)
		return invalid(err, "its nbf (not before) claim is in the future");
	return 0;
}

/* "https://HOST/" + claim, or NULL without the claim. */
static int
url_claim(char **out, const char *prefix, const char *value, ps_error *err)
{
	*out = NULL;
	if (value == NULL)
		return 0;
	if (asprintf(out, "%s%s", prefix, value) < 0) {
		*out = NULL;
		return util_fail_oom(err, TOKEN_SUBJECT);
	}
	return 0;
}

/* The SAN Fulcio certifies: GitHub's job workflow, GitLab's CI config,
 * else the email address. */
static int
set_identity(json_t *c, keyless_token *t, ps_error *err)
{
	int rc = 0;

	if (strcmp(t->issuer, KEYLESS_GITHUB_ISSUER) == 0) {
		rc = url_claim(&t->identity, "https://github.com/",
		    claim(c, "job_workflow_ref"), err) != 0 ||
		    url_claim(&t->repository, "https://github.com/",
		    claim(c, "repository"), err) != 0 ? -1 : 0;
	} else if (strcmp(t->issuer, KEYLESS_GITLAB_ISSUER) == 0) {
		rc = url_claim(&t->identity, "https://",
		    claim(c, "ci_config_ref_uri"), err) != 0 ||
		    url_claim(&t->repository, "https://gitlab.com/",
		    claim(c, "project_path"), err) != 0 ? -1 : 0;
	} else {
		rc = util_strdup(&t->identity, claim(c, "email"), TOKEN_SUBJECT,
		    err);
	}
	if (rc == 0 && t->repository != NULL)
		rc = util_strdup(&t->commit, claim(c, "sha"), TOKEN_SUBJECT, err);
	if (rc == 0 && t->identity == NULL)
		return invalid(err, "it names no identity Fulcio certifies (a "
		    "GitHub job_workflow_ref, a GitLab ci_config_ref_uri, or an "
		    "email)");
	return rc;
}

static int
read_claims(json_t *c, int64_t now, keyless_token *t, ps_error *err)
{
	const char *iss = claim(c, "iss"), *sub = claim(c, "sub");

	if (iss == NULL || strncmp(iss, "https://", 8) != 0)
		return invalid(err, "its iss (issuer) claim is not an https URL");
	if (!names_sigstore(json_object_get(c, "aud"))) {
		invalid(err, "its aud (audience) claim does not name sigstore: "
		    "the token was issued for another service");
		return util_error_expect(err, "aud sigstore", "another audience");
	}
	if (check_times(c, now, t, err) != 0)
		return -1;
	if (util_strdup(&t->issuer, iss, TOKEN_SUBJECT, err) != 0 ||
	    util_strdup(&t->challenge, sub != NULL ? sub : claim(c, "email"),
	    TOKEN_SUBJECT, err) != 0)
		return -1;
	if (t->challenge == NULL)
		return invalid(err, "it has neither a sub nor an email claim");
	return set_identity(c, t, err);
}

int
keyless_token_parse(const char *jwt, int64_t now, keyless_token **out,
    ps_error *err)
{
	keyless_token *t;
	json_t *claims;
	int rc;

	*out = NULL;
	if (jwt == NULL || jwt[0] == '\0')
		return util_fail(err, "identity_token_missing", TOKEN_SUBJECT,
		    "keyless signing needs an OIDC identity token "
		    "(--identity-token, SIGSTORE_ID_TOKEN, or GitHub Actions' "
		    "id-token: write)");
	if (strlen(jwt) > KEYLESS_TOKEN_MAX)
		return invalid(err, "it is longer than 16 KiB");
	if ((claims = claims_of(jwt, err)) == NULL)
		return -1;
	if ((t = calloc(1, sizeof(*t))) == NULL) {
		json_decref(claims);
		return util_fail_oom(err, TOKEN_SUBJECT);
	}
	rc = read_claims(claims, now, t, err);
	json_decref(claims);
	if (rc != 0) {
		keyless_token_free(t);
		return -1;
	}
	*out = t;
	return 0;
}

void
keyless_token_free(keyless_token *t)
{
	if (t == NULL)
		return;
	free(t->issuer);
	free(t->challenge);
	free(t->identity);
	free(t->repository);
	free(t->commit);
	free(t);
}
