/* The artifact: its digests, and its place among a statement's subjects. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "sigstore/artifact.h"
#include "sigstore/protojson.h"
#include "util/error.h"
#include "util/fdio.h"

#define ARTIFACT_BUFFER (256 * 1024)

/* Reads `fd` to its end into both digest contexts (the second NULL when
 * the message signature's hash is SHA-256 too, or there is none). */
static int
hash_fd(int fd, EVP_MD_CTX *sha256, EVP_MD_CTX *other)
{
	unsigned char *buf = malloc(ARTIFACT_BUFFER);
	ssize_t n;
	int rc = 0;

	if (buf == NULL)
		return -1;
	while ((n = read(fd, buf, ARTIFACT_BUFFER)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || EVP_DigestUpdate(sha256, buf, (size_t)n) != 1 ||
		    (other != NULL && EVP_DigestUpdate(other, buf, (size_t)n) != 1)) {
			rc = n < 0 ? -2 : -1;
			break;
		}
	}
	free(buf);
	return rc;
}

static EVP_MD_CTX *
digest_ctx(const char *name)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	EVP_MD *md = EVP_MD_fetch(NULL, name, NULL);

	if (ctx == NULL || md == NULL || EVP_DigestInit_ex(ctx, md, NULL) != 1) {
		EVP_MD_CTX_free(ctx);
		ctx = NULL;
	}
	EVP_MD_free(md);
	return ctx;
}

static int
hash_file(const char *path, sigstore_content *c, ps_error *err)
{
	const char *hash = c->hash != NULL ? c->hash->md : NULL;
	int same = hash == NULL || strcmp(hash, "SHA2-256") == 0;
	EVP_MD_CTX *sha256 = digest_ctx("SHA2-256");
	EVP_MD_CTX *other = same ? NULL : digest_ctx(hash);
	unsigned int n = 0, m = 0;
	int fd, rc = -1;

	fd = util_open_file(path, err);
	if (fd < 0) {
		EVP_MD_CTX_free(sha256);
		EVP_MD_CTX_free(other);
		return -1;
	}
	rc = sha256 == NULL || (!same && other == NULL) ? -1 :
	    hash_fd(fd, sha256, other);
	if (rc == -2)
		util_fail_errno(err, "io_error", path, "read", errno);
	else if (rc != 0 || EVP_DigestFinal_ex(sha256, c->sha256, &n) != 1 ||
	    (other != NULL && EVP_DigestFinal_ex(other, c->msg_digest, &m) != 1))
		rc = util_fail(err, "crypto_error", path, "hashing failed");
	close(fd);
	EVP_MD_CTX_free(sha256);
	EVP_MD_CTX_free(other);
	if (rc != 0)
		return -1;
	if (same && hash != NULL)
		memcpy(c->msg_digest, c->sha256, (m = 32));
	c->msg_digest_len = m;
	return 0;
}

int
sigstore_artifact_hash(const ps_sigstore_artifact *a, sigstore_content *c,
    ps_error *err)
{
	c->msg_digest_len = 0;
	if (a->path != NULL)
		return hash_file(a->path, c, err);
	memcpy(c->sha256, a->sha256, 32);
	if (c->hash != NULL && strcmp(c->hash->md, "SHA2-256") == 0) {
		memcpy(c->msg_digest, a->sha256, 32);
		c->msg_digest_len = 32;
	}
	return 0;
}

/* ------------------------------------- the hash a message signature is over */

static const sigstore_hash message_hashes[] = {
	{ "SHA2_256", "SHA2-256", "sha256", 32 },
	{ "SHA2_384", "SHA2-384", "sha384", 48 },
	{ "SHA2_512", "SHA2-512", "sha512", 64 },
};

static const sigstore_hash *
hash_by_proto(const char *proto)
{
	size_t i;

	for (i = 0; i < sizeof(message_hashes) / sizeof(message_hashes[0]); i++) {
		if (strcmp(message_hashes[i].proto, proto) == 0)
			return &message_hashes[i];
	}
	return NULL;
}

/* What a key's message signature may be over, as the expected text: its
 * own hash, and SHA-256 too for P-384 and P-521 (protobuf-specs'
 * deprecated PKIX_ECDSA_P384_SHA_256 and PKIX_ECDSA_P521_SHA_256, which
 * sigstore-python signs and verifies). */
static const char *
accepted_hashes(const sigstore_pkey *key)
{
	switch (key->kind) {
	case SIGSTORE_KEY_ECDSA_P384:
		return "SHA2_384 or SHA2_256";
	case SIGSTORE_KEY_ECDSA_P521:
		return "SHA2_512 or SHA2_256";
	default:
		return "SHA2_256";
	}
}

int
sigstore_artifact_message_hash(sigstore_content *c, const char *subject,
    ps_error *err)
{
	const sigstore_bundle *b = c->bundle;
	const char *own = sigstore_pkey_hash_proto(c->key);
	const char *named = b->digest_alg[0] != '\0' ? b->digest_alg : own;
	const sigstore_hash *h;

	c->hash = NULL;
	if (b->dsse || own == NULL)
		return 0;
	h = hash_by_proto(named);
	if (h == NULL || (strcmp(h->proto, own) != 0 &&
	    (strcmp(h->proto, "SHA2_256") != 0 ||
	    (c->key->kind != SIGSTORE_KEY_ECDSA_P384 &&
	    c->key->kind != SIGSTORE_KEY_ECDSA_P521)))) {
		util_refuse(err, "signature_algorithm_unsupported", subject, "the "
		    "hash the bundle's messageDigest names, which the message "
		    "signature by the %s key is over", sigstore_pkey_details(c->key));
		return util_error_expect(err, accepted_hashes(c->key),
		    strlen(named) < 16 ? named : "(long)");
	}
	c->hash = h;
	return 0;
}

static int
statement_invalid(ps_error *err, const char *subject, const char *what)
{
	return util_refuse(err, "intoto_statement_invalid", subject, "the "
	    "signed payload is not an in-toto statement: %s", what);
}

/* 1 when a subject's digest.sha256 is `want` (lowercase hex). */
static int
names_artifact(json_t *subjects, const char *want)
{
	json_t *s, *digest, *v;
	size_t i;

	json_array_foreach(subjects, i, s) {
		digest = json_object_get(s, "digest");
		v = json_is_object(digest) ? json_object_get(digest, "sha256") : NULL;
		if (json_is_string(v) && strcmp(json_string_value(v), want) == 0)
			return 1;
	}
	return 0;
}

int
sigstore_artifact_subject(const sigstore_bundle *b,
    const unsigned char sha256[32], const char *subject, ps_error *err)
{
	sigstore_doc d = { subject, "intoto_statement_invalid",
	    PS_STATUS_REFUSED };
	char want[65];
	json_t *st, *subjects, *type;
	ps_error ignored;
	size_t i;
	int rc;

	if (strcmp(b->payload_type, "application/vnd.in-toto+json") != 0) {
		util_refuse(err, "payload_type_unknown", subject, "the DSSE "
		    "payload type of a bundle over an artifact");
		return util_error_expect(err, "application/vnd.in-toto+json",
		    strlen(b->payload_type) < 128 ? b->payload_type : "(long)");
	}
	if (sigstore_json_load(&d, (const char *)b->payload, b->payload_len,
	    NULL, &st, &ignored) != 0)
		return statement_invalid(err, subject, "not JSON");
	type = json_object_get(st, "_type");
	subjects = json_object_get(st, "subject");
	for (i = 0; i < 32; i++)
		snprintf(want + 2 * i, 3, "%02x", sha256[i]);
	if (!json_is_string(type) || strncmp(json_string_value(type),
	    "https://in-toto.io/Statement/v", 30) != 0 ||
	    !json_is_array(subjects))
		rc = statement_invalid(err, subject, "no _type "
		    "https://in-toto.io/Statement/v* or no subject list");
	else if (!names_artifact(subjects, want)) {
		util_refuse(err, "artifact_not_subject", subject, "looked for the "
		    "artifact's SHA-256 among the statement's %zu subjects",
		    json_array_size(subjects));
		rc = util_error_expect(err, want, "no such subject");
	} else
		rc = 0;
	json_decref(st);
	return rc;
}
