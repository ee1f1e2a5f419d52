/*
 * The stable signer id of a keyless signature (trust-policy.md, "The
 * keyless signer id"), ps_keyless_signer_id() in packsign.h.
 */
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "packsign.h"
#include "util/sha256.h"

#define ID_DOMAIN "packsign-keyless-signer-v1\n"

static size_t
put(char *buf, size_t used, size_t size, const char *s, size_t n)
{
	if (used + n < size)
		memcpy(buf + used, s, n);
	return used + n;
}

/* The hashed text into a buffer of its own size; NULL without memory. */
static char *
id_text(const ps_sigstore_certificate *c, size_t *len)
{
	size_t size = 64 + strlen(c->issuer) + strlen(c->san), used = 0;
	const char *repo = c->source_repository_identifier;
	char *buf;

	size += repo != NULL ? strlen(repo) : c->source_repository_uri != NULL ?
	    strlen(c->source_repository_uri) : 0;
	size += c->build_signer_uri != NULL ? strlen(c->build_signer_uri) : 0;
	if ((buf = malloc(size)) == NULL)
		return NULL;
	used = put(buf, used, size, ID_DOMAIN, strlen(ID_DOMAIN));
	used = put(buf, used, size, c->issuer, strlen(c->issuer));
	used = put(buf, used, size, "\n", 1);
	if (repo != NULL) {
		used = put(buf, used, size, "id:", 3);
		used = put(buf, used, size, repo, strlen(repo));
	} else if (c->source_repository_uri != NULL) {
		used = put(buf, used, size, "uri:", 4);
		used = put(buf, used, size, c->source_repository_uri,
		    strlen(c->source_repository_uri));
	}
	used = put(buf, used, size, "\n", 1);
	if (c->build_signer_uri != NULL)
		used = put(buf, used, size, c->build_signer_uri,
		    strcspn(c->build_signer_uri, "@"));
	else {
		used = put(buf, used, size, "san:", 4);
		used = put(buf, used, size, c->san, strlen(c->san));
	}
	*len = used;
	return buf;
}

int
ps_keyless_signer_id(const ps_sigstore_certificate *cert,
    char out[PS_FINGERPRINT_MAX])
{
	unsigned char digest[PS_SHA256_LEN];
	size_t len = 0;
	char *text;
	int rc;

	out[0] = '\0';
	if (cert == NULL || cert->issuer == NULL || cert->san == NULL ||
	    (text = id_text(cert, &len)) == NULL)
		return -1;
	rc = util_sha256_buffer(text, len, digest);
	free(text);
	if (rc != 0)
		return -1;
	memcpy(out, PS_KEYLESS_ID_PREFIX, 8);
	sodium_bin2base64(out + 8, PS_FINGERPRINT_MAX - 8, digest,
	    sizeof(digest), sodium_base64_VARIANT_ORIGINAL_NO_PADDING);
	return 0;
}
