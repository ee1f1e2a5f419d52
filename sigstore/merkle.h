/* Internal header of sigstore/: Merkle tree inclusion proofs.
 *
 * RFC 6962 section 2.1 hashing (leaf SHA-256(0x00 || data), node
 * SHA-256(0x01 || left || right)) and RFC 9162 section 2.1.3.2's
 * verification of an inclusion proof, which Rekor v1 and v2 share.
 */
#ifndef SIGSTORE_MERKLE_H
#define SIGSTORE_MERKLE_H

#include <stddef.h>
#include <stdint.h>

#define SIGSTORE_HASH_LEN 32

/* The leaf hash of `len` bytes; 0 / -1 (hashing failed). */
int sigstore_merkle_leaf(const void *data, size_t len,
    unsigned char out[SIGSTORE_HASH_LEN]);

/*
 * 0 when `proof` (`count` hashes, the leaf's side first) leads from
 * `leaf` at `index` in a tree of `size` leaves to `root`; -1 otherwise,
 * also for an index outside the tree or a proof of the wrong length.
 * The root computed is left in `computed` (zero when none).
 */
int sigstore_merkle_verify(uint64_t index, uint64_t size,
    const unsigned char leaf[SIGSTORE_HASH_LEN],
    const unsigned char (*proof)[SIGSTORE_HASH_LEN], size_t count,
    const unsigned char root[SIGSTORE_HASH_LEN],
    unsigned char computed[SIGSTORE_HASH_LEN]);

#endif
