"""An RFC 6962 (RFC 9162 section 2.1) Merkle tree: leaf and node hashes, the
tree head of any size, inclusion proofs, and their verification (for the
self-tests; a verifier under test must not share this code)."""

import hashlib


def leaf_hash(data):
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left, right):
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n):
    """The largest power of two smaller than n (n >= 2)."""
    k = 1
    while k * 2 < n:
        k *= 2
    return k


class MerkleTree:
    """An append-only list of leaves and the hashes RFC 6962 defines over it."""

    def __init__(self):
        self.leaves = []

    def __len__(self):
        return len(self.leaves)

    def append(self, data):
        """Adds a leaf (the entry's bytes, hashed here); returns its index."""
        self.leaves.append(leaf_hash(data))
        return len(self.leaves) - 1

    def append_hash(self, digest):
        """Adds a leaf given its leaf hash (filler entries)."""
        self.leaves.append(digest)
        return len(self.leaves) - 1

    def root(self, size=None):
        size = len(self.leaves) if size is None else size
        if size > len(self.leaves):
            raise ValueError("tree has %d leaves, not %d" % (len(self.leaves), size))
        if size == 0:
            return hashlib.sha256(b"").digest()
        return self._mth(0, size)

    def _mth(self, start, end):
        if end - start == 1:
            return self.leaves[start]
        k = _split(end - start)
        return node_hash(self._mth(start, start + k), self._mth(start + k, end))

    def inclusion_proof(self, index, size=None):
        """PATH(index, D[size]) of RFC 6962 section 2.1.1, lowest level first."""
        size = len(self.leaves) if size is None else size
        if not 0 <= index < size <= len(self.leaves):
            raise ValueError("no leaf %d in a tree of size %d" % (index, size))
        return self._path(index, 0, size)

    def _path(self, m, start, end):
        n = end - start
        if n == 1:
            return []
        k = _split(n)
        if m < k:
            return self._path(m, start, start + k) + [self._mth(start + k, end)]
        return self._path(m - k, start + k, end) + [self._mth(start, start + k)]

    def consistency_proof(self, old, size=None):
        """PROOF(old, D[size]) of RFC 6962 section 2.1.2."""
        size = len(self.leaves) if size is None else size
        if not 0 < old <= size <= len(self.leaves):
            raise ValueError("no consistency proof from %d to %d" % (old, size))
        return self._subproof(old, 0, size, True)

    def _subproof(self, m, start, end, complete):
        n = end - start
        if m == n:
            return [] if complete else [self._mth(start, end)]
        k = _split(n)
        if m <= k:
            return self._subproof(m, start, start + k, complete) + [self._mth(start + k, end)]
        return self._subproof(m - k, start + k, end, False) + [self._mth(start, start + k)]


def root_from_inclusion_proof(index, size, leaf, proof):
    """The root an inclusion proof leads to (RFC 9162 section 2.1.3.2), or
    None when the proof has the wrong length for index and size."""
    if not 0 <= index < size:
        return None
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return None
        if fn % 2 == 1 or fn == sn:
            r = node_hash(p, r)
            if fn % 2 == 0:
                while fn % 2 == 0 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return r if sn == 0 else None
