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
	/* read: chunks read into the ring; checked: of those, checked, in
	 * order; consumed: given back by the caller; absorbed: taken by
	 * ops.absorb.  A slot is free again once its chunk is both consumed
	 * and absorbed. */
	uint64_t read, checked, consumed, absorbed;
	int held;                   /* the caller holds chunk `consumed` */
	int checking, absorbing;    /* a thread runs ops.check / ops.absorb */
	int read_all;               /* the last chunk is read, or a read failed */
	int read_failed;            /* reported once the chunks before are checked */
	ps_error read_error;
	int ended;                  /* the last chunk checked, or failed */
	int failed, stopping, running;
	ps_error error;             /* the first failure, once failed */
	pthread_mutex_t lock;
	pthread_cond_t ready, freed;
	pthread_t thread;
};

enum { READ_STOPPED = -2 };

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

typedef int (*chunk_op)(void *ctx, const unsigned char *buf, size_t len,
    ps_error *err);

/* With the lock held: runs `op` on the chunk at `index` with the lock
 * released, `*running` set meanwhile (one thread per queue); then wakes
 * every waiter, whose wait may have ended.  What `op` returned. */
static int
run_unlocked(util_chunkread *c, chunk_op op, uint64_t index, int *running,
    ps_error *err)
{
	size_t k = (size_t)(index % c->slots), n = c->len[k];
	int rc;

	*running = 1;
	pthread_mutex_unlock(&c->lock);
	ps_error_clear(err);
	rc = op(c->ctx, c->buf[k], n, err);
	pthread_mutex_lock(&c->lock);
	*running = 0;
	pthread_cond_broadcast(&c->ready);
	pthread_cond_broadcast(&c->freed);
	return rc;
}

/* With the lock held: checks the oldest chunk read and not yet checked;
 * 1 when it did, 0 when there is none or the other thread is at it.  A
 * failed read is reported once every chunk read before it is checked. */
static int
check_one(util_chunkread *c)
{
	size_t n;
	ps_error err;

	if (c->checking || c->checked == c->read || c->ended || c->stopping)
		return 0;
	n = c->len[c->checked % c->slots];
	if (run_unlocked(c, c->ops.check, c->checked, &c->checking,
	    &err) != 0) {
		fail_locked(c, &err);
	} else {
		c->checked++;
		if (n < c->chunk)
			c->ended = 1;
		else if (c->read_failed && c->checked == c->read)
			fail_locked(c, &c->read_error);
	}
	return 1;
}

/* With the lock held: absorbs the oldest checked chunk not yet absorbed;
 * 1 when it did, 0 when there is none or the other thread is at it. */
static int
absorb_one(util_chunkread *c)
{
	ps_error err;

	if (c->absorbing || c->absorbed == c->checked || c->failed ||
	    c->stopping)
		return 0;
	if (run_unlocked(c, c->ops.absorb, c->absorbed, &c->absorbing,
	    &err) != 0)
		fail_locked(c, &err);
	else
		c->absorbed++;
	return 1;
}

/* A check first (the caller waits for checked chunks), else an absorb. */
static int
help_one(util_chunkread *c)
{
	return check_one(c) || absorb_one(c);
}

static uint64_t
oldest_in_use(const util_chunkread *c)
{
	return c->consumed < c->absorbed ? c->consumed : c->absorbed;
}

static int
stopped(const util_chunkread *c)
{
	return c->stopping || c->failed;
}

/* While the caller has a chunk checked and waiting beyond the one it
 * parses (the one it holds counts), reading further ahead helps nobody:
 * the reading thread checks and absorbs instead, so that a busy caller
 * (100,000 small files) is left to parse. */
#define HELP_WHEN_AHEAD 2

/* The slot for the next chunk, once its last chunk was given back and
 * absorbed, checking and absorbing meanwhile; NULL when the input is
 * read, or told to stop, or failed. */
static unsigned char *
free_slot(util_chunkread *c)
{
	unsigned char *b = NULL;

	pthread_mutex_lock(&c->lock);
	while (!stopped(c) && !c->read_all) {
		if (c->checked - c->consumed >= HELP_WHEN_AHEAD &&
		    help_one(c) != 0)
			continue;
		if (c->read - oldest_in_use(c) < c->slots)
			break;
		if (help_one(c) == 0)
			pthread_cond_wait(&c->freed, &c->lock);
	}
	if (!stopped(c) && !c->read_all)
		b = c->buf[c->read % c->slots];
	pthread_mutex_unlock(&c->lock);
	return b;
}

static void
mark_read(util_chunkread *c, size_t len)
{
	pthread_mutex_lock(&c->lock);
	c->len[c->read % c->slots] = len;
	c->read++;
	c->read_all = len < c->chunk;
	pthread_cond_broadcast(&c->ready);
	pthread_mutex_unlock(&c->lock);
}

static void
mark_read_failed(util_chunkread *c, const ps_error *failure)
{
	pthread_mutex_lock(&c->lock);
	c->read_all = 1;
	c->read_failed = 1;
	c->read_error = *failure;
	if (c->checked == c->read && !c->checking)
		fail_locked(c, failure);
	pthread_cond_broadcast(&c->ready);
	pthread_mutex_unlock(&c->lock);
}

/* Once nothing is left to read: checks and absorbs beside the caller
 * until no chunk is left for either, waiting while the caller is at the
 * one there is. */
static void
help_to_the_end(util_chunkread *c)
{
	pthread_mutex_lock(&c->lock);
	while (!stopped(c) && (c->checked < c->read || c->absorbed < c->checked)) {
		if (help_one(c) == 0)
			pthread_cond_wait(&c->freed, &c->lock);
	}
	pthread_mutex_unlock(&c->lock);
}

/* Reads while the ring has room; when it is full, and once the input is
 * read, checks and absorbs: whichever thread is free does the work that
 * is there, so neither waits while the other has two jobs. */
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
			return NULL;
		if (n < 0) {
			util_fail_errno(&err, "io_error", c->label, "read", errno);
			mark_read_failed(c, &err);
			break;
		}
		mark_read(c, (size_t)n);
	}
	help_to_the_end(c);
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
	while (c->checked == c->consumed && !c->ended && !c->stopping) {
		if (help_one(c) == 0)
			pthread_cond_wait(&c->ready, &c->lock);
	}
	if (c->checked > c->consumed) {
		*buf = c->buf[c->consumed % c->slots];
		*len = c->len[c->consumed % c->slots];
		c->held = 1;
	} else if (c->failed) {
		*err = c->error;
		rc = -1;
	} else if (!c->ended) {
		rc = util_fail(err, "internal_error", c->label, "a chunk asked "
		    "for after the reading was finished");
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int
util_chunkread_finish(util_chunkread *c, ps_error *err)
{
	int rc = 0;

	pthread_mutex_lock(&c->lock);
	while (!c->failed && c->absorbed < c->checked) {
		if (absorb_one(c) == 0)
			pthread_cond_wait(&c->ready, &c->lock);
	}
	if (c->failed) {
		*err = c->error;
		rc = -1;
	} else if (!c->ended || c->consumed + (uint64_t)c->held !=
	    c->checked) {
		rc = util_fail(err, "internal_error", c->label, "finished "
		    "before the last chunk was read");
	}
	/* Whatever the outcome, no callback runs once this returns: a
	 * failure on one thread can end the run while the other still
	 * checks or absorbs. */
	c->stopping = 1;
	pthread_cond_broadcast(&c->freed);
	while (c->checking || c->absorbing)
		pthread_cond_wait(&c->ready, &c->lock);
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
		pthread_cond_broadcast(&c->freed);
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
