/*
 * Chunks read and checked ahead on a second thread (util/chunkread.h).
 *
 * A pipe's read can block for as long as its writer likes, so the reading
 * thread never sleeps in read(2) on one: it polls the pipe together with
 * an eventfd that util_chunkread_free() signals, and reads only what is
 * there.  A regular file's read returns at once and is read directly.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/chunkread.h"
#include "util/error.h"
#include "util/fdio.h"

struct util_chunkread {
	int fd, wake_fd, is_file;
	size_t chunk, slots;
	unsigned char **buf;
	size_t *len;
	util_chunkread_ops ops;
	void *ctx;
	const char *label;
	/* produced: chunks read and checked; consumed: given back by the
	 * caller; absorbed: taken by ops.absorb.  A slot is free again once
	 * its chunk is both consumed and absorbed. */
	uint64_t produced, consumed, absorbed;
	int held;                   /* the caller holds chunk `consumed` */
	int absorbing;              /* a thread runs ops.absorb */
	int ended, failed, stopping, running;
	ps_error error;             /* the reading thread's, once failed */
	pthread_mutex_t lock;
	pthread_cond_t ready, freed;
	pthread_t thread;
};

enum { READ_STOPPED = -2 };

/* Chunks read and not yet handed over, counting the one the caller
 * holds, from which the reading thread absorbs before reading on. */
#define ABSORB_WHEN_AHEAD 2

/* Waits until the pipe has bytes or the thread is told to stop. */
static int
wait_readable(util_chunkread *c)
{
	struct pollfd p[2] = { { c->fd, POLLIN, 0 }, { c->wake_fd, POLLIN, 0 } };

	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (p[1].revents != 0)
			return READ_STOPPED;
		if (p[0].revents != 0)
			return 0;
	}
}

/* One whole chunk (fewer bytes only at the end); -1 with errno, or
 * READ_STOPPED. */
static ssize_t
read_chunk(util_chunkread *c, unsigned char *buf)
{
	size_t done = 0;
	ssize_t n;
	int w;

	if (c->is_file)
		return util_read_full(c->fd, buf, c->chunk);
	while (done < c->chunk) {
		if ((w = wait_readable(c)) != 0)
			return w;
		n = read(c->fd, buf + done, c->chunk - done);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static void
fail_locked(util_chunkread *c, const ps_error *failure)
{
	if (!c->failed) {
		c->failed = 1;
		c->error = *failure;
	}
	c->ended = 1;
}

/* With the lock held: absorbs the oldest checked chunk not yet absorbed,
 * unlocking while ops.absorb runs; 1 when it did, 0 when there is none
 * or the other thread is at it. */
static int
absorb_one(util_chunkread *c)
{
	size_t k;
	ps_error err;
	int rc;

	if (c->absorbing || c->absorbed == c->produced || c->failed)
		return 0;
	k = (size_t)(c->absorbed % c->slots);
	c->absorbing = 1;
	pthread_mutex_unlock(&c->lock);
	ps_error_clear(&err);
	rc = c->ops.absorb(c->ctx, c->buf[k], c->len[k], &err);
	pthread_mutex_lock(&c->lock);
	c->absorbing = 0;
	if (rc == 0)
		c->absorbed++;
	else
		fail_locked(c, &err);
	pthread_cond_broadcast(&c->ready);
	pthread_cond_broadcast(&c->freed);
	return 1;
}

static uint64_t
oldest_in_use(const util_chunkread *c)
{
	return c->consumed < c->absorbed ? c->consumed : c->absorbed;
}

/* The slot for the next chunk, once its last chunk was given back and
 * absorbed (absorbing meanwhile); NULL when told to stop or failed. */
static unsigned char *
free_slot(util_chunkread *c)
{
	unsigned char *b = NULL;

	pthread_mutex_lock(&c->lock);
	while (c->produced - oldest_in_use(c) == c->slots && !c->stopping &&
	    !c->failed) {
		if (absorb_one(c) == 0)
			pthread_cond_wait(&c->freed, &c->lock);
	}
	if (!c->stopping && !c->failed)
		b = c->buf[c->produced % c->slots];
	pthread_mutex_unlock(&c->lock);
	return b;
}

static void
publish(util_chunkread *c, size_t len, int last, const ps_error *failure)
{
	pthread_mutex_lock(&c->lock);
	if (failure != NULL) {
		fail_locked(c, failure);
	} else {
		c->len[c->produced % c->slots] = len;
		c->produced++;
		c->ended = last;
	}
	pthread_cond_broadcast(&c->ready);
	pthread_mutex_unlock(&c->lock);
}

/* While the caller has a chunk waiting beyond the one it parses, reading
 * further ahead helps nobody: the reading thread takes the digest's
 * share instead, so that a parse too light to wait at a full ring but
 * too heavy to leave the caller idle does not put every absorb on the
 * caller while this thread sleeps. */
static void
absorb_while_ahead(util_chunkread *c, uint64_t ahead)
{
	pthread_mutex_lock(&c->lock);
	while (c->produced - c->consumed >= ahead && !c->stopping &&
	    absorb_one(c) != 0)
		;
	pthread_mutex_unlock(&c->lock);
}

static void *
read_ahead(void *arg)
{
	util_chunkread *c = arg;
	unsigned char *b;
	ssize_t n;
	ps_error err;

	ps_error_clear(&err);
	while ((b = free_slot(c)) != NULL) {
		n = read_chunk(c, b);
		if (n == READ_STOPPED)
			break;
		if (n < 0) {
			util_fail_errno(&err, "io_error", c->label, "read", errno);
			publish(c, 0, 1, &err);
			break;
		}
		if (c->ops.check(c->ctx, b, (size_t)n, &err) != 0) {
			publish(c, 0, 1, &err);
			break;
		}
		publish(c, (size_t)n, (size_t)n < c->chunk, NULL);
		if ((size_t)n < c->chunk) {
			absorb_while_ahead(c, 0);   /* nothing left to read */
			break;
		}
		absorb_while_ahead(c, ABSORB_WHEN_AHEAD);
	}
	return NULL;
}

static int
alloc_ring(util_chunkread *c)
{
	size_t i;

	c->buf = calloc(c->slots, sizeof(*c->buf));
	c->len = calloc(c->slots, sizeof(*c->len));
	if (c->buf == NULL || c->len == NULL)
		return -1;
	for (i = 0; i < c->slots; i++)
		if ((c->buf[i] = malloc(c->chunk)) == NULL)
			return -1;
	return 0;
}

int
util_chunkread_new(int fd, size_t chunk, size_t slots,
    const util_chunkread_ops *ops, void *ctx, const char *label,
    util_chunkread **out, ps_error *err)
{
	util_chunkread *c = calloc(1, sizeof(*c));
	struct stat st;

	*out = NULL;
	if (c == NULL)
		return util_fail_oom(err, label);
	c->fd = fd;
	c->wake_fd = -1;
	c->chunk = chunk;
	c->slots = slots < 2 ? 2 : slots;
	c->ops = *ops;
	c->ctx = ctx;
	c->label = label;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->ready, NULL);
	pthread_cond_init(&c->freed, NULL);
	if (fstat(fd, &st) != 0) {
		util_chunkread_free(c);
		return util_fail_errno(err, "io_error", label, "fstat", errno);
	}
	c->is_file = S_ISREG(st.st_mode);
	if (alloc_ring(c) != 0) {
		util_chunkread_free(c);
		return util_fail_oom(err, label);
	}
	if ((c->wake_fd = eventfd(0, EFD_CLOEXEC)) < 0 ||
	    pthread_create(&c->thread, NULL, read_ahead, c) != 0) {
		util_chunkread_free(c);
		return util_fail(err, "internal_error", label,
		    "could not start the thread that reads ahead");
	}
	c->running = 1;
	*out = c;
	return 0;
}

int
util_chunkread_next(util_chunkread *c, const unsigned char **buf,
    size_t *len, ps_error *err)
{
	int rc = 0;

	*len = 0;
	pthread_mutex_lock(&c->lock);
	*buf = c->buf[c->consumed % c->slots];     /* never NULL: memcpy */
	if (c->held) {
		c->consumed++;
		c->held = 0;
		pthread_cond_signal(&c->freed);
	}
	while (c->produced == c->consumed && !c->ended) {
		if (absorb_one(c) == 0)
			pthread_cond_wait(&c->ready, &c->lock);
	}
	if (c->produced > c->consumed) {
		*buf = c->buf[c->consumed % c->slots];
		*len = c->len[c->consumed % c->slots];
		c->held = 1;
	} else if (c->failed) {
		*err = c->error;
		rc = -1;
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int
util_chunkread_finish(util_chunkread *c, ps_error *err)
{
	int rc = 0;

	pthread_mutex_lock(&c->lock);
	while (!c->failed && c->absorbed < c->produced) {
		if (absorb_one(c) == 0)
			pthread_cond_wait(&c->ready, &c->lock);
	}
	if (c->failed) {
		*err = c->error;
		rc = -1;
	} else if (!c->ended || c->consumed + (uint64_t)c->held !=
	    c->produced) {
		rc = util_fail(err, "internal_error", c->label, "finished "
		    "before the last chunk was read");
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

void
util_chunkread_free(util_chunkread *c)
{
	uint64_t one = 1;
	size_t i;

	if (c == NULL)
		return;
	if (c->running) {
		pthread_mutex_lock(&c->lock);
		c->stopping = 1;
		pthread_cond_signal(&c->freed);
		pthread_mutex_unlock(&c->lock);
		/* wakes a reading thread polling a pipe */
		while (write(c->wake_fd, &one, sizeof(one)) < 0 && errno == EINTR)
			;
		pthread_join(c->thread, NULL);
	}
	if (c->wake_fd >= 0)
		close(c->wake_fd);
	for (i = 0; c->buf != NULL && i < c->slots; i++)
		free(c->buf[i]);
	free(c->buf);
	free(c->len);
	pthread_cond_destroy(&c->ready);
	pthread_cond_destroy(&c->freed);
	pthread_mutex_destroy(&c->lock);
	free(c);
}
