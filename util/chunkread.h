/* Internal header of util/: chunks read and checked ahead (issue 30).
 *
 * A second thread reads a descriptor in whole chunks into a small ring;
 * each chunk is checked (its signed digest, a read lease) before the
 * caller is handed it, and absorbed (a digest of the whole input) after,
 * so that authenticating a chunk overlaps with parsing the one before
 * instead of preceding it on the same core.  Checking and absorbing are
 * two queues in input order that either thread works on, one thread per
 * queue at a time: the reading thread while its ring is full, while the
 * caller has a chunk waiting beyond the one it parses, and once the input
 * is read; the caller while it waits for its next chunk.  The first check
 * or read that fails stops the reading; every chunk before it is still
 * handed over, then the failure.
 *
 * One caller thread.  The callbacks and everything they touch belong to
 * the two threads until util_chunkread_finish() or util_chunkread_free()
 * returns.
 */
#ifndef UTIL_CHUNKREAD_H
#define UTIL_CHUNKREAD_H

#include <stddef.h>

#include "packsign.h"

typedef struct util_chunkread util_chunkread;

typedef struct util_chunkread_ops {
	/* Each chunk read, in order, once, never on both threads at once:
	 * `len` bytes, fewer than the chunk size only for the last (0 when the
	 * input ends on a chunk's boundary).  0 hands the chunk on; -1 (err
	 * filled) stops the reading. */
	int (*check)(void *ctx, const unsigned char *buf, size_t len,
	    ps_error *err);
	/* Each chunk that passed, in order, once (a digest of the whole
	 * input), never on both threads at once.  A big archive's parse is
	 * light and the caller takes most; 100,000 small files keep the
	 * caller busy and the reading thread takes most.  0, or -1 (err
	 * filled) stops the reading. */
	int (*absorb)(void *ctx, const unsigned char *buf, size_t len,
	    ps_error *err);
} util_chunkread_ops;

/* Starts reading `fd` (not owned, open until util_chunkread_free()) in
 * chunks of `chunk` bytes into `slots` buffers (at least 2); 0, or -1
 * with `err` filled (nothing started).  `label` names the input in
 * errors. */
int util_chunkread_new(int fd, size_t chunk, size_t slots,
    const util_chunkread_ops *ops, void *ctx, const char *label,
    util_chunkread **out, ps_error *err);

/* The next chunk, in order, waiting for it: *buf and *len, valid until
 * the next call (which gives the buffer back to the reading thread).
 * The last chunk is the first shorter than `chunk` bytes; calls after it
 * give 0 bytes (*buf still points at a buffer: never NULL on success).
 * -1 (err filled) where a read or a check failed, and for a chunk not
 * yet checked once util_chunkread_finish() was called (no check runs
 * then). */
int util_chunkread_next(util_chunkread *c, const unsigned char **buf,
    size_t *len, ps_error *err);

/* After the last chunk: waits until every chunk is absorbed (absorbing
 * them itself if need be); then, whatever it returns, neither callback
 * runs again.  0, or -1 (err filled) when a read or callback failed, or
 * the last chunk was not handed over yet. */
int util_chunkread_finish(util_chunkread *c, ps_error *err);

/* Stops the reading thread (also while it waits on a pipe), frees. */
void util_chunkread_free(util_chunkread *c);

#endif
