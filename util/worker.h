/* Internal header of util/: the ordered worker thread.
 *
 * A second thread that consumes a byte stream in order: the producer's
 * buffers are copied into a small ring and handed to `fn` on the worker,
 * so hashing, compressing and writing an output overlap with reading the
 * input (issue 8).  One producer, one consumer; `fn` never runs on the
 * producer's thread (unless there is no thread: `slots` 0), and nothing
 * it touches may be used by the producer until util_worker_finish()
 * returns.
 */
#ifndef UTIL_WORKER_H
#define UTIL_WORKER_H

#include <stddef.h>
#include <stdint.h>

#include "packsign.h"

typedef struct util_worker util_worker;

typedef struct util_worker_ops {
	/* Consumes one record: `tag` as pushed, `len` bytes (0 for a bare
	 * tag); 0, or -1 with `err` filled (the stream stops). */
	int (*consume)(void *ctx, uint64_t tag, const void *buf, size_t len,
	    ps_error *err);
	/* On the worker thread before the first record, and after the last
	 * (each may be NULL): per-thread state such as the locale. */
	int (*begin)(void *ctx, ps_error *err);
	void (*end)(void *ctx);
} util_worker_ops;

/* A worker with `slots` buffers of `slot_size` bytes; 0 / -1.  With
 * `slots` 0 there is no thread: one buffer, consumed on the producer's
 * thread whenever it fills and at util_worker_finish() (for inputs too
 * small to repay starting a thread; `begin` and `end` must be NULL). */
int util_worker_new(const util_worker_ops *ops, void *ctx, size_t slot_size,
    size_t slots, util_worker **out, ps_error *err);
/* Copies `buf` into the ring as records of at most `slot_size` bytes,
 * each with `tag` (one empty record when len is 0), waiting while the
 * ring is full.  Records are handed over a slot at a time: one may wait
 * for later pushes or util_worker_finish() before it is consumed, so the
 * producer never waits on the consumer's result mid-stream.  -1 once the
 * consumer has failed (seen when a slot is handed over): `err` then
 * holds its error. */
int util_worker_push(util_worker *w, uint64_t tag, const void *buf, size_t len,
    ps_error *err);
/* Room to write one record of up to `len` bytes (len <= slot_size) in
 * place; NULL (err filled) once the consumer failed. */
void *util_worker_reserve(util_worker *w, size_t len, ps_error *err);
/* Queues the record last reserved: `tag` and its first `len` bytes. */
void util_worker_commit(util_worker *w, uint64_t tag, size_t len);
/* Waits until every byte pushed is consumed and stops the thread; returns
 * `fn`'s result (its error in `err`).  Called once. */
int util_worker_finish(util_worker *w, ps_error *err);
/* Stops the thread if it still runs (dropping what is pending), frees. */
void util_worker_free(util_worker *w);

#endif
