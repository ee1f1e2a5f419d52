/* RFC 9162 2.1.3.2: an inclusion proof, verified. */
#include <string.h>

#include "sigstore/merkle.h"
#include "util/sha256.h"

int
sigstore_merkle_leaf(const void *data, size_t len,
    unsigned char out[SIGSTORE_HASH_LEN])
{
	static const unsigned char prefix = 0x00;
	util_sha256 *ctx = util_sha256_new();
	int rc = ctx != NULL && util_sha256_update(ctx, &prefix, 1) == 0 &&
	    util_sha256_update(ctx, data, len) == 0 &&
	    util_sha256_final(ctx, out) == 0 ? 0 : -1;

	util_sha256_free(ctx);
	return rc;
}

/* SHA-256(0x01 || left || right) into `out` (which may be either). */
static int
node(const unsigned char *left, const unsigned char *right,
    unsigned char out[SIGSTORE_HASH_LEN])
{
	unsigned char buf[1 + 2 * SIGSTORE_HASH_LEN];

	buf[0] = 0x01;
	memcpy(buf + 1, left, SIGSTORE_HASH_LEN);
	memcpy(buf + 1 + SIGSTORE_HASH_LEN, right, SIGSTORE_HASH_LEN);
	return util_sha256_buffer(buf, sizeof(buf), out);
}

int
sigstore_merkle_verify(uint64_t index, uint64_t size,
    const unsigned char leaf[SIGSTORE_HASH_LEN],
    const unsigned char (*proof)[SIGSTORE_HASH_LEN], size_t count,
    const unsigned char root[SIGSTORE_HASH_LEN],
    unsigned char computed[SIGSTORE_HASH_LEN])
{
	uint64_t fn = index, sn = size - 1;
	unsigned char r[SIGSTORE_HASH_LEN];
	size_t i;

	memset(computed, 0, SIGSTORE_HASH_LEN);
	if (index >= size)
		return -1;
	memcpy(r, leaf, SIGSTORE_HASH_LEN);
	for (i = 0; i < count; i++) {
		if (sn == 0)
			return -1;                  /* a proof too long */
		if ((fn & 1) != 0 || fn == sn) {
			if (node(proof[i], r, r) != 0)
				return -1;
			while ((fn & 1) == 0 && fn != 0) {
				fn >>= 1;
				sn >>= 1;
			}
		} else if (node(r, proof[i], r) != 0) {
			return -1;
		}
		fn >>= 1;
		sn >>= 1;
	}
	memcpy(computed, r, SIGSTORE_HASH_LEN);
	return sn == 0 && memcmp(r, root, SIGSTORE_HASH_LEN) == 0 ? 0 : -1;
}
