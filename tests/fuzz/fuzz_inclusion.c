/*
 * Inclusion proofs (sigstore/merkle.c).  The input is read twice.  As an
 * arbitrary proof: index (8 bytes), size (8), leaf hash (32), root (32),
 * then 32-byte hashes; a proof that verifies computed the root it was
 * given, and one that is longer than 64 hashes never verifies.  As a tree:
 * byte 0 mod 64 + 1 leaves (the input's bytes, one each), whose RFC 6962 root and
 * audit paths are computed here from the RFC's recursive definitions:
 * every leaf's path verifies, and with any one bit of it flipped it does
 * not.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "sigstore/merkle.h"
#include "util/sha256.h"

static uint64_t
be64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static void
arbitrary(const uint8_t *data, size_t size)
{
	unsigned char got[32];
	size_t n;

	if (size < 80)
		return;
	n = (size - 80) / 32;
	if (sigstore_merkle_verify(be64(data), be64(data + 8), data + 16,
	    (const unsigned char (*)[32])(data + 80), n, data + 48, got) == 0) {
		fuzz_note("sigstore_merkle_verify", "ok");
		if (memcmp(got, data + 48, 32) != 0 || n > 64)
			fuzz_fail("sigstore_merkle_verify", "verified another root");
	}
}

static void
mth(unsigned char (*l)[32], size_t lo, size_t n, unsigned char out[32])
{
	unsigned char buf[65];
	size_t k = 1;

	if (n == 1) {
		memcpy(out, l[lo], 32);
		return;
	}
	while (k * 2 < n)
		k *= 2;
	buf[0] = 1;
	mth(l, lo, k, buf + 1);
	mth(l, lo + k, n - k, buf + 33);
	if (util_sha256_buffer(buf, sizeof(buf), out) != 0)
		fuzz_fail("sha256", NULL);
}

static size_t
path(unsigned char (*l)[32], size_t m, size_t lo, size_t n,
    unsigned char (*out)[32])
{
	size_t k = 1, len;

	if (n == 1)
		return 0;
	while (k * 2 < n)
		k *= 2;
	if (m < k) {
		len = path(l, m, lo, k, out);
		mth(l, lo + k, n - k, out[len]);
	} else {
		len = path(l, m - k, lo + k, n - k, out);
		mth(l, lo, k, out[len]);
	}
	return len + 1;
}

static void
tree(const uint8_t *data, size_t size)
{
	unsigned char leaves[64][32], root[32], proof[8][32], got[32];
	size_t n = (size_t)data[0] % 64 + 1, m, len, bit;

	if (size < 2)
		return;
	for (m = 0; m < n; m++)
		if (sigstore_merkle_leaf(&data[1 + m % (size - 1)], 1,
		    leaves[m]) != 0)
			fuzz_fail("sigstore_merkle_leaf", NULL);
	mth(leaves, 0, n, root);
	for (m = 0; m < n; m += 1 + data[1] % 7) {
		len = path(leaves, m, 0, n, proof);
		if (sigstore_merkle_verify(m, n, leaves[m],
		    (const unsigned char (*)[32])proof, len, root, got) != 0)
			fuzz_fail("sigstore_merkle_verify", "a true path refused");
		if (len == 0)
			continue;
		bit = (m * 131 + size) % (len * 256);
		proof[bit / 256][(bit % 256) / 8] ^= (unsigned char)(1 << (bit % 8));
		if (sigstore_merkle_verify(m, n, leaves[m],
		    (const unsigned char (*)[32])proof, len, root, got) == 0)
			fuzz_fail("sigstore_merkle_verify", "a changed path verified");
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	arbitrary(data, size);
	tree(data, size);
	return 0;
}
