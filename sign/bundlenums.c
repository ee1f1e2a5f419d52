/*
 * The numbers of the bundles --append --bundle writes (sign/bundlenums.h):
 * each existing OUT.N.sigstore.json is read once and reduced to what it is
 * (absent, a keyless bundle, a key-based bundle with the SHA-256 of its
 * one-signature envelope, or no bundle), then every signature is placed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sign/bundle.h"
#include "sign/bundlenums.h"
#include "util/error.h"
#include "util/sha256.h"

enum { SLOT_ABSENT, SLOT_OTHER, SLOT_KEY, SLOT_KEYLESS };

typedef struct bundle_slot {
	int kind;
	int used;
	unsigned char sha256[PS_SHA256_LEN]; /* SLOT_KEY: of its envelope */
} bundle_slot;

/* The SHA-256 of an envelope's deterministic serialization. */
static int
envelope_hash(const sign_dsse_envelope *env, unsigned char out[PS_SHA256_LEN],
    ps_error *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc;

	if (sign_dsse_serialize(env, &text, &len, err) != 0)
		return -1;
	rc = util_sha256_buffer(text, len, out);
	free(text);
	return rc == 0 ? 0 : util_fail(err, "crypto_error", NULL, "SHA-256");
}

static void
read_slot(const char *path, bundle_slot *s)
{
	sign_dsse_envelope *env = NULL;
	unsigned char *bytes = NULL;
	size_t len = 0;
	ps_error quiet;
	struct stat sb;
	int fd, keyless = 0;

	memset(s, 0, sizeof(*s));
	if (lstat(path, &sb) != 0)
		return;
	s->kind = SLOT_OTHER;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	if (sign_dsse_read_bytes(fd, path, &bytes, &len, &quiet) == 0 &&
	    sign_bundle_parse_any(bytes, len, path, &env, &keyless,
	    &quiet) == 0) {
		if (keyless)
			s->kind = SLOT_KEYLESS;
		else if (envelope_hash(env, s->sha256, &quiet) == 0)
			s->kind = SLOT_KEY;
	}
	close(fd);
	free(bytes);
	sign_dsse_free(env);
}

static int
read_slots(const char *archive, bundle_slot *slots, size_t *next,
    ps_error *err)
{
	char *path;
	size_t i;

	for (i = 0; i < SIGN_BUNDLE_SCAN_MAX; i++) {
		path = sign_bundle_path(archive, i);
		if (path == NULL)
			return util_fail_oom(err, NULL);
		read_slot(path, &slots[i]);
		free(path);
		if (slots[i].kind != SLOT_ABSENT)
			*next = i + 1;
	}
	return 0;
}

/* The hashes of env's signatures, each alone with the payload. */
static int
signature_hashes(const sign_dsse_envelope *env, size_t n,
    unsigned char (*hashes)[PS_SHA256_LEN], ps_error *err)
{
	sign_dsse_envelope *one;
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		one = NULL;
		if (sign_dsse_single(env, i, &one, err) != 0)
			return -1;
		rc = envelope_hash(one, hashes[i], err);
		sign_dsse_free(one);
		if (rc != 0)
			return -1;
	}
	return 0;
}

static int
holds_any(const bundle_slot *s, unsigned char (*hashes)[PS_SHA256_LEN],
    size_t n)
{
	size_t j;

	for (j = 0; j < n; j++) {
		if (memcmp(s->sha256, hashes[j], PS_SHA256_LEN) == 0)
			return 1;
	}
	return 0;
}

/* A name signature i may be written to: free, or holding nothing kept. */
static int
writable(const bundle_slot *s, unsigned char (*hashes)[PS_SHA256_LEN],
    size_t n)
{
	if (s->used)
		return 0;
	return s->kind == SLOT_ABSENT || s->kind == SLOT_OTHER ||
	    (s->kind == SLOT_KEY && !holds_any(s, hashes, n));
}

static void
place(bundle_slot *slots, unsigned char (*hashes)[PS_SHA256_LEN], size_t n,
    size_t i, size_t *next, size_t *index, int *kept)
{
	size_t m;

	for (m = 0; m < SIGN_BUNDLE_SCAN_MAX; m++) {
		if (!slots[m].used && slots[m].kind == SLOT_KEY &&
		    memcmp(slots[m].sha256, hashes[i], PS_SHA256_LEN) == 0) {
			slots[m].used = 1;
			index[i] = m;
			kept[i] = 1;
			return;
		}
	}
	kept[i] = 0;
	if (i < SIGN_BUNDLE_SCAN_MAX && writable(&slots[i], hashes, n)) {
		slots[i].used = 1;
		index[i] = i;
		return;
	}
	while (*next < SIGN_BUNDLE_SCAN_MAX && slots[*next].used)
		(*next)++;
	if (*next < SIGN_BUNDLE_SCAN_MAX)
		slots[*next].used = 1;
	index[i] = (*next)++;
}

int
sign_bundle_numbers(const char *archive, const sign_dsse_envelope *env,
    size_t *index, int *kept, ps_error *err)
{
	size_t n = sign_dsse_signature_count(env), next = 0, i;
	unsigned char (*hashes)[PS_SHA256_LEN];
	bundle_slot *slots;
	int rc;

	slots = calloc(SIGN_BUNDLE_SCAN_MAX, sizeof(*slots));
	hashes = calloc(n > 0 ? n : 1, sizeof(*hashes));
	rc = slots != NULL && hashes != NULL ? 0 : util_fail_oom(err, NULL);
	if (rc == 0)
		rc = read_slots(archive, slots, &next, err);
	if (rc == 0)
		rc = signature_hashes(env, n, hashes, err);
	if (next < n)
		next = n;
	for (i = 0; rc == 0 && i < n; i++)
		place(slots, hashes, n, i, &next, index, kept);
	free(slots);
	free(hashes);
	return rc;
}
