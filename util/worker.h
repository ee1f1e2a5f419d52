/*
 * A second thread that consumes a byte stream in order: the producer's
 * buffers are copied into a small ring and handed to `fn` on the worker,
 * so hashing, compressing and writing an output overlap with reading the
 * input (issue 8).  One producer, one consumer; `fn` never runs on the
 * producer's thread, and nothing it touches may be used by the producer
 * until ps_worker_finish() returns.
 */
#ifndef PS_UTIL_WORKER_H
#define PS_UTIL_WORKER_H

#include <stddef.h>
#include <stdint.h>

#include "packsign.h"

typedef struct ps_worker ps_worker;

typedef struct ps_worker_ops {
	/* Consumes one record: `tag` as pushed, `len` bytes (0 for a bare
	 * tag); 0, or -1 with `err` filled (the stream stops). */
	int (*consume)(void *ctx, uint64_t tag, const void *buf, size_t len,
	    ps_error *err);
	/* On the worker thread before the first record, and after the last
	 * (each may be NULL): per-thread state such as the locale. */
	int (*begin)(void *ctx, ps_error *err);
	void (*end)(void *ctx);
} ps_worker_ops;

/* A worker with `slots` buffers of `slot_size` bytes; 0 / -1. */
int ps_worker_new(const ps_worker_ops *ops, void *ctx, size_t slot_size,
    size_t slots, ps_worker **out, ps_error *err);
/* Copies `buf` into the ring as records of at most `slot_size` bytes,
 * each with `tag` (one empty record when len is 0), waiting while the
 * ring is full.  Records are handed over a slot at a time: one may wait
 * for later pushes or ps_worker_finish() before it is consumed, so the
 * producer never waits on the consumer's result mid-stream.  -1 once the
 * consumer has failed (seen when a slot is handed over): `err` then
 * holds its error. */
int ps_worker_push(ps_worker *w, uint64_t tag, const void *buf, size_t len,
    ps_error *err);
/* Room to write one record of up to `len` bytes (len <= slot_size) in
 * place; NULL (err filled) once the consumer failed. */
void *ps_worker_reserve(ps_worker *w, size_t len, ps_error *err);
/* Queues the record last reserved: `tag` and its first `len` bytes. */
void ps_worker_commit(ps_worker *w, uint64_t tag, size_t len);
/* Waits until every byte pushed is consumed and stops the thread; returns
 * `fn`'s result (its error in `err`).  Called once. */
int ps_worker_finish(ps_worker *w, ps_error *err);
/* Stops the thread if it still runs (dropping what is pending), frees. */
void ps_worker_free(ps_worker *w);

#endif
