#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/worker.h"

/*
 * A slot holds a batch of records, each a header and its bytes, so that
 * many small records (100,000 small files) cost one hand-over between
 * the threads instead of one each: on a 2-core VM every wake-up is a
 * context switch, and those were a third of pack's profile (issue 8).  For
 * the same reason a waiting side is woken only once half the ring is ready
 * for it (full slots for the consumer, free ones for the producer).
 */
struct record {
	uint64_t tag;
	size_t len;
};

#define HEADER sizeof(struct record)
/* Room beyond slot_size: a few headers fit next to a full record. */
#define HEADER_ROOM (64 * HEADER)

struct slot {
	unsigned char *data;
	size_t used;
};

struct util_worker {
	util_worker_ops ops;
	void *ctx;
	struct slot *ring;
	size_t slots, slot_size, capacity;
	size_t head, count;         /* next slot to consume, slots published */
	size_t batch;               /* slots per wake-up of a waiting side */
	struct slot *open;          /* the producer's, being filled */
	int closing, dropping, failed, running;
	int on_caller;              /* no thread: slots consumed by publish() */
	ps_error error;             /* fn's error, once failed */
	pthread_mutex_t lock;
	pthread_cond_t filled, drained;
	pthread_t thread;
};

/* The slot to consume next, or NULL when closing with nothing left;
 * *drop when the producer gave up and pending bytes are thrown away. */
static struct slot *
next_slot(util_worker *w, int *drop)
{
	struct slot *s = NULL;

	pthread_mutex_lock(&w->lock);
	while (w->count == 0 && !w->closing)
		pthread_cond_wait(&w->filled, &w->lock);
	if (w->count > 0)
		s = &w->ring[w->head];
	*drop = w->dropping;
	pthread_mutex_unlock(&w->lock);
	return s;
}

static void
release_slot(util_worker *w, int failed, const ps_error *err)
{
	pthread_mutex_lock(&w->lock);
	if (failed && !w->failed) {
		w->failed = 1;
		w->error = *err;
	}
	w->head = (w->head + 1) % w->slots;
	w->count--;
	if (w->count + w->batch <= w->slots)
		pthread_cond_signal(&w->drained);
	pthread_mutex_unlock(&w->lock);
}

/* A failure of `begin` with nothing pushed is recorded here too. */
static void
record_failure(util_worker *w, const ps_error *err)
{
	pthread_mutex_lock(&w->lock);
	if (!w->failed) {
		w->failed = 1;
		w->error = *err;
	}
	pthread_cond_signal(&w->drained);
	pthread_mutex_unlock(&w->lock);
}

/* One slot's records in order; 0, or -1 at the first that fails. */
static int
consume_slot(util_worker *w, const struct slot *s, ps_error *err)
{
	struct record r;
	size_t at = 0;

	while (at < s->used) {
		memcpy(&r, s->data + at, HEADER);
		at += HEADER;
		if (w->ops.consume(w->ctx, r.tag, s->data + at, r.len, err) != 0)
			return -1;
		at += r.len;
	}
	return 0;
}

static void *
consume(void *arg)
{
	util_worker *w = arg;
	struct slot *s;
	ps_error err;
	int failed = 0, drop;

	ps_error_clear(&err);
	if (w->ops.begin != NULL && w->ops.begin(w->ctx, &err) != 0)
		failed = 1;
	while ((s = next_slot(w, &drop)) != NULL) {
		/* After a failure the rest is only drained, never consumed. */
		if (!failed && !drop && consume_slot(w, s, &err) != 0)
			failed = 1;
		release_slot(w, failed, &err);
	}
	if (failed)
		record_failure(w, &err);
	if (w->ops.end != NULL)
		w->ops.end(w->ctx);
	return NULL;
}

static int
alloc_ring(util_worker *w, ps_error *err)
{
	size_t i;

	w->ring = calloc(w->slots, sizeof(*w->ring));
	if (w->ring == NULL)
		return util_fail_oom(err, NULL);
	for (i = 0; i < w->slots; i++) {
		if ((w->ring[i].data = malloc(w->capacity)) == NULL)
			return util_fail_oom(err, NULL);
	}
	return 0;
}

int
util_worker_new(const util_worker_ops *ops, void *ctx, size_t slot_size,
    size_t slots, util_worker **out, ps_error *err)
{
	util_worker *w = calloc(1, sizeof(*w));

	*out = NULL;
	if (w == NULL)
		return util_fail_oom(err, NULL);
	if (slots == 0 && (ops->begin != NULL || ops->end != NULL)) {
		free(w);
		return util_fail(err, "internal_error", NULL, "a worker without "
		    "a thread has no thread state to begin or end");
	}
	w->ops = *ops;
	w->ctx = ctx;
	w->on_caller = slots == 0;
	if (w->on_caller)
		slots = 1;
	w->slots = slots;
	w->slot_size = slot_size;
	w->capacity = slot_size + HEADER_ROOM;
	w->batch = slots > 1 ? slots / 2 : 1;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->filled, NULL);
	pthread_cond_init(&w->drained, NULL);
	if (alloc_ring(w, err) != 0) {
		util_worker_free(w);
		return -1;
	}
	if (w->on_caller) {
		*out = w;
		return 0;
	}
	if (pthread_create(&w->thread, NULL, consume, w) != 0) {
		util_worker_free(w);
		return util_fail(err, "out_of_memory", NULL, "cannot start a thread");
	}
	w->running = 1;
	*out = w;
	return 0;
}

/* Waits for a free slot to fill; NULL (err filled) once the consumer
 * failed. */
static struct slot *
free_slot(util_worker *w, ps_error *err)
{
	struct slot *s = NULL;

	if (w->on_caller) {
		if (w->failed) {
			*err = w->error;
			return NULL;
		}
		w->ring[0].used = 0;
		return &w->ring[0];
	}

	pthread_mutex_lock(&w->lock);
	while (w->count == w->slots && !w->failed)
		pthread_cond_wait(&w->drained, &w->lock);
	if (w->failed)
		*err = w->error;
	else
		s = &w->ring[(w->head + w->count) % w->slots];
	pthread_mutex_unlock(&w->lock);
	if (s != NULL)
		s->used = 0;
	return s;
}

/* Without a thread: the open slot's records, consumed on the producer's
 * thread; a failure is kept for the next push and finish. */
static void
consume_on_caller(util_worker *w)
{
	ps_error err;

	ps_error_clear(&err);
	if (!w->failed && consume_slot(w, w->open, &err) != 0) {
		w->failed = 1;
		w->error = err;
	}
	w->open->used = 0;
	w->open = NULL;
}

/* Hands the open slot, if it holds anything, to the consumer. */
static void
publish(util_worker *w)
{
	if (w->open == NULL || w->open->used == 0)
		return;
	if (w->on_caller) {
		consume_on_caller(w);
		return;
	}
	pthread_mutex_lock(&w->lock);
	w->count++;
	if (w->count >= w->batch)
		pthread_cond_signal(&w->filled);
	pthread_mutex_unlock(&w->lock);
	w->open = NULL;
}

/* An open slot with room for a header and `len` bytes (at most
 * slot_size of them); a record is split only when no slot holds it. */
static struct slot *
room_for(util_worker *w, size_t len, ps_error *err)
{
	size_t want = HEADER + (len < w->slot_size ? len : w->slot_size);

	if (w->open != NULL && w->capacity - w->open->used < want)
		publish(w);
	if (w->open == NULL)
		w->open = free_slot(w, err);
	return w->open;
}

void *
util_worker_reserve(util_worker *w, size_t len, ps_error *err)
{
	struct slot *s = room_for(w, len, err);

	return s != NULL ? s->data + s->used + HEADER : NULL;
}

void
util_worker_commit(util_worker *w, uint64_t tag, size_t len)
{
	struct record r = { tag, len };

	memcpy(w->open->data + w->open->used, &r, HEADER);
	w->open->used += HEADER + len;
}

int
util_worker_push(util_worker *w, uint64_t tag, const void *buf, size_t len,
    ps_error *err)
{
	const unsigned char *p = buf;
	unsigned char *room;
	size_t n;

	do {
		n = len < w->slot_size ? len : w->slot_size;
		if ((room = util_worker_reserve(w, n, err)) == NULL)
			return -1;
		if (n > 0)
			memcpy(room, p, n);
		util_worker_commit(w, tag, n);
		p += n;
		len -= n;
	} while (len > 0);
	return 0;
}

static void
stop(util_worker *w, int drop)
{
	if (!w->running)
		return;
	pthread_mutex_lock(&w->lock);
	w->closing = 1;
	w->dropping = drop;
	pthread_cond_signal(&w->filled);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	w->running = 0;
}

int
util_worker_finish(util_worker *w, ps_error *err)
{
	publish(w);
	stop(w, 0);
	if (!w->failed)
		return 0;
	*err = w->error;
	return -1;
}

void
util_worker_free(util_worker *w)
{
	size_t i;

	if (w == NULL)
		return;
	stop(w, 1);
	for (i = 0; w->ring != NULL && i < w->slots; i++)
		free(w->ring[i].data);
	free(w->ring);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->filled);
	pthread_cond_destroy(&w->drained);
	free(w);
}
