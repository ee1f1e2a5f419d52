/* Internal header of util/: background flushes.
 *
 * Making an output durable while it is still being written (issue 8).
 * packsign fsyncs every output before publishing it.  On a VM whose disk
 * has a volatile write cache, that fsync waited 0.25-0.65 s at the end of
 * a 1 GiB pack for the host to flush: starting the guest's writeback early
 * (sync_file_range) did not shorten it, and neither did O_DIRECT writes,
 * since the device flush is what costs.  Here a thread of its own calls
 * fdatasync(2) every FLUSH_EVERY bytes while the writer goes on, so the
 * final fsync has only the last stretch left.  Each stretch it has made
 * durable it then drops from the page cache (posix_fadvise DONTNEED), so
 * a large output occupies at most about two stretches of it (stop 42).
 */
#ifndef UTIL_FLUSHER_H
#define UTIL_FLUSHER_H

#include <stdint.h>

#include "packsign.h"

typedef struct util_flusher util_flusher;

/* Large enough that the journal commit each flush costs stays rare, small
 * enough that the last stretch is a short wait (64 MiB: ~0.05 s here). */
#define UTIL_FLUSH_EVERY (64ULL * 1024 * 1024)

/* Starts flushing `fd` (a regular file; anything else gets *out NULL and
 * 0); -1 with `err` when the thread cannot start.  `label` names the
 * output in errors. */
int util_flusher_new(int fd, const char *label, util_flusher **out,
    ps_error *err);
/* Tells the flusher `total` bytes have been written so far; it wakes once
 * a whole stretch is waiting.  -1 once a flush has failed (its error in
 * `err`): the final fsync could no longer report it. */
int util_flusher_wrote(util_flusher *f, uint64_t total, ps_error *err);
/* Waits for a flush in progress and stops the thread; its error, if any.
 * Nothing is flushed here: the caller's fsync does the rest. */
int util_flusher_finish(util_flusher *f, ps_error *err);
void util_flusher_free(util_flusher *f);

#endif
