/*
 * Chunk digests (util/chunks.h): the SHA-256 of each 1 MiB chunk of a
 * stream, kept or compared as each chunk completes.
 */
#include <stdlib.h>
#include <string.h>

#include "util/chunks.h"

uint64_t
util_chunks_count(uint64_t size)
{
	return size / UTIL_CHUNK_SIZE + (size % UTIL_CHUNK_SIZE != 0);
}

static int
start(util_chunks *c)
{
	memset(c, 0, sizeof(*c));
	c->h = util_sha256_new();
	return c->h != NULL ? 0 : -1;
}

int
util_chunks_keep(util_chunks *c, size_t max)
{
	if (start(c) != 0)
		return -1;
	c->max = max;
	return 0;
}

int
util_chunks_compare(util_chunks *c,
    const unsigned char (*expect)[PS_SHA256_LEN], size_t count)
{
	if (start(c) != 0)
		return -1;
	c->expect = expect;
	c->expect_count = count;
	return 0;
}

static int
keep(util_chunks *c, const unsigned char d[PS_SHA256_LEN])
{
	void *grown;
	size_t cap;

	if (c->count == c->max) {
		c->over = 1;
		return 0;
	}
	if (c->count == c->cap) {
		cap = c->cap == 0 ? 64 : c->cap * 2;
		if (cap > c->max)
			cap = c->max;
		if ((grown = realloc(c->digests, cap * sizeof(*c->digests))) ==
		    NULL)
			return -1;
		c->digests = grown;
		c->cap = cap;
	}
	memcpy(c->digests[c->count++], d, PS_SHA256_LEN);
	return 0;
}

/* A chunk is complete: kept, or compared with the list. */
static int
chunk_done(util_chunks *c)
{
	unsigned char d[PS_SHA256_LEN];
	size_t i = c->count;

	if (util_sha256_final(c->h, d) != 0 || util_sha256_reset(c->h) != 0)
		return -1;
	c->in_chunk = 0;
	if (c->expect == NULL)
		return keep(c, d);
	c->count++;
	if (!c->bad && (i >= c->expect_count ||
	    memcmp(c->expect[i], d, PS_SHA256_LEN) != 0)) {
		c->bad = 1;
		c->bad_index = i;
		memcpy(c->bad_digest, d, PS_SHA256_LEN);
	}
	return 0;
}

int
util_chunks_update(util_chunks *c, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t n;

	while (len > 0) {
		n = UTIL_CHUNK_SIZE - c->in_chunk;
		if (n > len)
			n = len;
		if (util_sha256_update(c->h, p, n) != 0)
			return -1;
		c->in_chunk += n;
		c->size += n;
		p += n;
		len -= n;
		if (c->in_chunk == UTIL_CHUNK_SIZE && chunk_done(c) != 0)
			return -1;
	}
	return 0;
}

int
util_chunks_finish(util_chunks *c)
{
	if (c->in_chunk > 0 && chunk_done(c) != 0)
		return -1;
	if (c->expect != NULL && !c->bad && c->count < c->expect_count) {
		c->bad = 1;
		c->bad_index = c->count;
		memset(c->bad_digest, 0, PS_SHA256_LEN);
	}
	return 0;
}

void
util_chunks_free(util_chunks *c)
{
	util_sha256_free(c->h);
	free(c->digests);
	c->h = NULL;
	c->digests = NULL;
}
