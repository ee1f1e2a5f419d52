/*
 * verify --files-from: a reader thread takes the list's lines into a ring
 * of jobs * CLI_BATCH_WINDOW slots, `jobs` threads verify them through
 * ps_verify() with the one shared, read-only options (and trust policy),
 * and the calling thread reports each slot in the list's order as soon as
 * it and every one before it are done, then frees it for the next line.
 * So memory stays bounded whatever the list's length, and one slow
 * archive holds back the reports (never the verifications) of at most a
 * window of others.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/output.h"
#include "cli/verify_batch.h"

struct slot {
	char *path;                /* the archive, or "LIST:LINE" */
	int listed;                /* 1: a path to verify; 0: err says why
	                            * the line names none */
	int done;
	int rc;
	ps_verify_result *result;
	ps_error err;
};

struct batch {
	const struct cli_batch *b;
	struct slot *slots;
	uint64_t window;
	pthread_mutex_t lock;
	pthread_cond_t space;      /* the reader waits for a free slot */
	pthread_cond_t work;       /* the jobs wait for a slot to verify */
	pthread_cond_t done;       /* the caller waits for the next slot */
	uint64_t head;             /* slots filled by the reader */
	uint64_t take;             /* slots taken by a job */
	uint64_t next;             /* slots reported */
	int end;                   /* the reader is done */
	int abort;                 /* stop: the threads could not start */
	int failed;                /* the list could not be read: list_err */
	ps_error list_err;
};

int
cli_batch_default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return n > CLI_BATCH_MAX_JOBS ? CLI_BATCH_MAX_JOBS : (int)n;
}

/* The reader is done: at the list's end, or after `err` (NULL: none). */
static void
reader_end(struct batch *s, const ps_error *err)
{
	pthread_mutex_lock(&s->lock);
	s->end = 1;
	if (err != NULL) {
		s->failed = 1;
		s->list_err = *err;
	}
	pthread_cond_broadcast(&s->work);
	pthread_cond_broadcast(&s->done);
	pthread_mutex_unlock(&s->lock);
}

/* Waits for a free slot; 0, or -1 when the batch stops. */
static int
reader_wait(struct batch *s)
{
	int stop;

	pthread_mutex_lock(&s->lock);
	while (s->head - s->next >= s->window && !s->abort)
		pthread_cond_wait(&s->space, &s->lock);
	stop = s->abort;
	pthread_mutex_unlock(&s->lock);
	return stop ? -1 : 0;
}

/* Fills the free slot at head with `path`; 0, or -1 out of memory. */
static int
reader_put(struct batch *s, const char *path, int listed,
    const ps_error *err)
{
	struct slot *slot = &s->slots[s->head % s->window];
	char *copy = strdup(path);

	if (copy == NULL)
		return -1;
	/* Under the lock: the caller may be looking at this slot's done. */
	pthread_mutex_lock(&s->lock);
	memset(slot, 0, sizeof(*slot));
	slot->path = copy;
	slot->listed = listed;
	slot->rc = listed ? 0 : -1;
	if (!listed)
		slot->err = *err;
	s->head++;
	pthread_cond_signal(&s->work);
	pthread_mutex_unlock(&s->lock);
	return 0;
}

static void *
reader_main(void *arg)
{
	struct batch *s = arg;
	char line[PATH_MAX];
	enum cli_list_status st;
	ps_error err;
	int rc;

	for (;;) {
		if (reader_wait(s) != 0)
			break;
		ps_error_clear(&err);
		st = cli_list_next(s->b->list, line, &err);
		if (st == CLI_LIST_END || st == CLI_LIST_ERROR) {
			reader_end(s, st == CLI_LIST_ERROR ? &err : NULL);
			return NULL;
		}
		rc = st == CLI_LIST_PATH ? reader_put(s, line, 1, NULL) :
		    reader_put(s, err.subject, 0, &err);
		if (rc != 0) {
			cli_error_oom(&err);
			reader_end(s, &err);
			return NULL;
		}
	}
	reader_end(s, NULL);
	return NULL;
}

/* Takes the next slot to verify; NULL when there is none left. */
static struct slot *
job_take(struct batch *s)
{
	struct slot *slot = NULL;

	pthread_mutex_lock(&s->lock);
	while (s->take == s->head && !s->end && !s->abort)
		pthread_cond_wait(&s->work, &s->lock);
	if (!s->abort && s->take < s->head)
		slot = &s->slots[s->take++ % s->window];
	pthread_mutex_unlock(&s->lock);
	return slot;
}

static void *
job_main(void *arg)
{
	struct batch *s = arg;
	struct slot *slot;

	while ((slot = job_take(s)) != NULL) {
		if (slot->listed) {
			ps_error_clear(&slot->err);
			slot->rc = ps_verify(slot->path, s->b->options,
			    &slot->result, &slot->err);
		}
		pthread_mutex_lock(&s->lock);
		slot->done = 1;
		if (slot == &s->slots[s->next % s->window])
			pthread_cond_signal(&s->done);
		pthread_mutex_unlock(&s->lock);
	}
	return NULL;
}

/* Waits for the next slot in order; NULL once every slot is reported. */
static struct slot *
next_done(struct batch *s)
{
	struct slot *slot;

	pthread_mutex_lock(&s->lock);
	slot = &s->slots[s->next % s->window];
	while (!(s->next < s->head && slot->done) &&
	    !(s->end && s->next == s->head))
		pthread_cond_wait(&s->done, &s->lock);
	if (s->next == s->head)
		slot = NULL;
	pthread_mutex_unlock(&s->lock);
	return slot;
}

/* Reports every slot in the list's order, freeing each for the reader. */
static void
report_all(struct batch *s, struct cli_batch_count *count)
{
	struct slot *slot;
	int code;

	while ((slot = next_done(s)) != NULL) {
		code = s->b->report(s->b->ctx, slot->path, slot->result,
		    slot->rc, &slot->err);
		count->total++;
		count->good += code == EXIT_OK;
		count->worst = code > count->worst ? code : count->worst;
		ps_verify_result_free(slot->result);
		free(slot->path);
		pthread_mutex_lock(&s->lock);
		memset(slot, 0, sizeof(*slot));
		s->next++;
		pthread_cond_signal(&s->space);
		pthread_mutex_unlock(&s->lock);
	}
}

/* Stops and joins the `started` threads after one failed to start. */
static void
abort_threads(struct batch *s, pthread_t *threads, int started)
{
	int i;

	pthread_mutex_lock(&s->lock);
	s->abort = 1;
	pthread_cond_broadcast(&s->space);
	pthread_cond_broadcast(&s->work);
	pthread_mutex_unlock(&s->lock);
	for (i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
}

/* Starts the jobs, then the reader (so that a failure never waits for a
 * reader blocked on its input), reports, joins; an exit code. */
static int
run_threads(struct batch *s, struct cli_batch_count *count)
{
	pthread_t threads[CLI_BATCH_MAX_JOBS + 1];
	int i, n = s->b->jobs + 1;

	for (i = 0; i < n; i++) {
		if (pthread_create(&threads[i], NULL, i == n - 1 ?
		    reader_main : job_main, s) != 0) {
			abort_threads(s, threads, i);
			return cli_fail("thread_failed", "verify",
			    "cannot start %d verifying threads (--jobs)",
			    s->b->jobs);
		}
	}
	report_all(s, count);
	for (i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	return s->failed ? cli_report(&s->list_err) : EXIT_OK;
}

int
cli_verify_batch(const struct cli_batch *batch, struct cli_batch_count *count)
{
	struct batch s;
	int rc;

	memset(count, 0, sizeof(*count));
	memset(&s, 0, sizeof(s));
	s.b = batch;
	s.window = (uint64_t)batch->jobs * CLI_BATCH_WINDOW;
	s.slots = calloc(s.window, sizeof(*s.slots));
	if (s.slots == NULL)
		return cli_fail_oom();
	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.space, NULL);
	pthread_cond_init(&s.work, NULL);
	pthread_cond_init(&s.done, NULL);
	rc = run_threads(&s, count);
	pthread_cond_destroy(&s.done);
	pthread_cond_destroy(&s.work);
	pthread_cond_destroy(&s.space);
	pthread_mutex_destroy(&s.lock);
	free(s.slots);
	return rc;
}
