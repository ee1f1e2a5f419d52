/* Internal header of util/: chunk digests (docs/formats/signature.md,
 * section 4.4).
 *
 * The SHA-256 of each UTIL_CHUNK_SIZE-byte chunk of a byte stream, the
 * last one short: a list of at most `max` digests is kept (sign), or
 * each chunk is compared, as it completes, with the list a signed
 * statement gives (verify).
 */
#ifndef UTIL_CHUNKS_H
#define UTIL_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

#include "packsign.h"
#include "util/sha256.h"

#define UTIL_CHUNK_SIZE (1024 * 1024)     /* 1 MiB */

typedef struct util_chunks {
	util_sha256 *h;
	uint64_t size;               /* bytes seen */
	size_t in_chunk;             /* of the current chunk */
	/* keeping (expect NULL): the digests, at most max of them; over:
	 * there were more (nothing kept past max) */
	unsigned char (*digests)[PS_SHA256_LEN];
	size_t count, cap, max;
	int over;
	/* comparing: the signed list; the first chunk that differs (or is
	 * past the list's end), when bad */
	const unsigned char (*expect)[PS_SHA256_LEN];
	size_t expect_count;
	int bad;
	size_t bad_index;
	unsigned char bad_digest[PS_SHA256_LEN];
} util_chunks;

/* Keeping at most `max` digests: 0, or -1 (out of memory). */
int util_chunks_keep(util_chunks *c, size_t max);
/* Comparing with `expect` (count digests, not copied). */
int util_chunks_compare(util_chunks *c,
    const unsigned char (*expect)[PS_SHA256_LEN], size_t count);
/* Feeds bytes; 0, or -1 (out of memory, SHA-256 failed).  A mismatch is
 * not a failure: c->bad says it. */
int util_chunks_update(util_chunks *c, const void *buf, size_t len);
/* Ends the last (short) chunk: 0 / -1.  Comparing, a list longer than
 * the chunks seen sets bad with bad_index the first chunk not seen. */
int util_chunks_finish(util_chunks *c);
void util_chunks_free(util_chunks *c);
/* The number of chunks of `size` bytes. */
uint64_t util_chunks_count(uint64_t size);

#endif
