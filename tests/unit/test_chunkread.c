/*
 * Unit tests: chunks read and checked ahead (util/chunkread.c): every
 * chunk handed over in order, whole, the last one short (or empty on a
 * boundary), each checked and absorbed exactly once and in order
 * whichever thread takes it; the reading thread absorbing some while a
 * busy caller has chunks waiting, a waiting caller checking some itself;
 * a check or read that fails stops the reading after the chunks before it
 * were handed over; no callback runs once finish returns; a reader freed
 * while the thread waits on a pipe nobody writes returns at once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "util/chunkread.h"
#include "util/sha256.h"

#define CHUNK 4096

struct seen {
	size_t checked;             /* chunks checked */
	const unsigned char *want;  /* the input, when checks compare it */
	int misplaced;              /* a check saw other bytes than its chunk's */
	int slow_check;             /* each check sleeps */
	int slow_absorb;            /* each absorb sleeps */
	atomic_int running;         /* callbacks running now */
	size_t checked_by_caller;   /* chunks checked on the caller's thread */
	size_t fail_at;             /* refuse this chunk (SIZE_MAX: none) */
	util_sha256 *absorbed;      /* what absorb saw, in order */
	size_t absorbed_bytes;
	int slow_parse;             /* the caller sleeps per chunk */
	pthread_t caller;
	size_t by_reader;           /* chunks absorbed on the reading thread */
};

static void nap(void);

static int
check(void *ctx, const unsigned char *buf, size_t len, ps_error *err)
{
	struct seen *s = ctx;
	int on_caller = pthread_equal(pthread_self(), s->caller);
	size_t i = s->checked++;

	if (s->want != NULL && memcmp(buf, s->want + i * CHUNK, len) != 0)
		s->misplaced = 1;
	atomic_fetch_add(&s->running, 1);
	if (on_caller)
		s->checked_by_caller++;
	if (s->slow_check)
		nap();
	atomic_fetch_sub(&s->running, 1);
	if (i == s->fail_at) {
		ps_error_clear(err);
		err->status = PS_STATUS_REFUSED;
		strcpy(err->code, "subject_mismatch");
		return -1;
	}
	return 0;
}

static int
absorb(void *ctx, const unsigned char *buf, size_t len, ps_error *err)
{
	struct seen *s = ctx;
	int rc;

	(void)err;
	atomic_fetch_add(&s->running, 1);
	if (!pthread_equal(pthread_self(), s->caller))
		s->by_reader++;
	if (s->slow_absorb)
		nap();
	s->absorbed_bytes += len;
	rc = util_sha256_update(s->absorbed, buf, len);
	atomic_fetch_sub(&s->running, 1);
	return rc;
}

static const util_chunkread_ops ops = { check, absorb };

/* A memfd holding `len` bytes of a pattern; the pattern in *copy. */
static int
input(size_t len, unsigned char **copy)
{
	int fd = memfd_create("chunkread", MFD_CLOEXEC);
	size_t i;

	assert_true(fd >= 0);
	*copy = malloc(len + 1);
	assert_non_null(*copy);
	for (i = 0; i < len; i++)
		(*copy)[i] = (unsigned char)(i * 7 + i / 1031);
	assert_int_equal(write(fd, *copy, len), (ssize_t)len);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

static void
nap(void)
{
	struct timespec t = { 0, 200000 };

	nanosleep(&t, NULL);
}

/* Reads `len` bytes through a reader of `slots` slots: the bytes handed
 * over are the input, and so are the bytes absorbed; the chunks absorbed
 * on the reading thread counted in *by_reader. */
static void
reads_in_order(size_t len, size_t slots, int slow_parse, int slow_check,
    struct seen *out)
{
	unsigned char *want, *got = malloc(len + CHUNK), d1[32], d2[32];
	struct seen s = { .fail_at = SIZE_MAX, .absorbed = util_sha256_new(),
	    .slow_parse = slow_parse, .slow_check = slow_check };
	util_chunkread *c;
	const unsigned char *buf;
	size_t n, at = 0;
	ps_error err;
	int fd = input(len, &want);

	assert_non_null(got);
	s.want = want;
	s.caller = pthread_self();
	assert_int_equal(util_chunkread_new(fd, CHUNK, slots, &ops, &s, "in",
	    &c, &err), 0);
	do {
		assert_int_equal(util_chunkread_next(c, &buf, &n, &err), 0);
		assert_true(at + n <= len);
		memcpy(got + at, buf, n);
		at += n;
		if (s.slow_parse)
			nap();
	} while (n == CHUNK);
	assert_int_equal(util_chunkread_next(c, &buf, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_non_null(buf);      /* memcpy(dst, buf, 0) is defined */
	assert_int_equal(util_chunkread_finish(c, &err), 0);
	assert_int_equal(at, len);
	assert_memory_equal(got, want, len);
	assert_int_equal(s.absorbed_bytes, len);
	assert_int_equal(util_sha256_final(s.absorbed, d1), 0);
	assert_int_equal(util_sha256_buffer(want, len, d2), 0);
	assert_memory_equal(d1, d2, sizeof(d1));
	assert_int_equal(s.checked, len / CHUNK + 1);   /* the last, maybe 0 */
	assert_false(s.misplaced);
	util_chunkread_free(c);
	*out = s;
	util_sha256_free(s.absorbed);
	close(fd);
	free(want);
	free(got);
}

static void
hands_over_every_chunk_in_order(void **state)
{
	struct seen s;

	(void)state;
	reads_in_order(37 * CHUNK + 123, 4, 0, 0, &s); /* last short */
	reads_in_order(16 * CHUNK, 2, 0, 0, &s);       /* ends on a boundary */
	reads_in_order(10, 8, 0, 0, &s);               /* one short chunk */
	reads_in_order(0, 3, 0, 0, &s);                /* empty input */
	reads_in_order(20 * CHUNK + 1, 3, 1, 0, &s);   /* caller slower */
	reads_in_order(20 * CHUNK + 1, 3, 0, 1, &s);   /* checks slower */
	reads_in_order(20 * CHUNK + 1, 2, 1, 1, &s);   /* both */
}

/* A caller parsing slower than the input is read, with a ring that never
 * fills: the reading thread, chunks ahead, takes the digest instead of
 * leaving all of it to the busy caller. */
static void
a_busy_caller_leaves_the_digest_to_the_reading_thread(void **state)
{
	struct seen s;

	(void)state;
	reads_in_order(20 * CHUNK + 1, 64, 1, 0, &s);
	assert_true(s.by_reader > 0);
}

/* Checks slower than the caller's parse: the caller, waiting for the
 * next chunk, checks it itself rather than leave every check on the
 * reading thread (the issue-30 verify of a large archive: the reading
 * thread read and checked every chunk, the caller idled a third of the
 * time).  Still each chunk once, in order. */
static void
a_waiting_caller_checks_chunks_too(void **state)
{
	struct seen s = { 0 };
	int tries;

	(void)state;
	/* Which thread gets a check is up to the scheduler: before this
	 * existed, none ever ran on the caller's. */
	for (tries = 0; tries < 20 && s.checked_by_caller == 0; tries++)
		reads_in_order(40 * CHUNK + 1, 4, 0, 1, &s);
	assert_true(s.checked_by_caller > 0);
}

/* A read that fails (a directory) is the error, after the chunks read
 * before it. */
static void
a_failed_read_is_the_error(void **state)
{
	struct seen s = { .fail_at = SIZE_MAX, .absorbed = util_sha256_new() };
	util_chunkread *c;
	const unsigned char *buf;
	size_t n;
	ps_error err;
	int fd = open(".", O_RDONLY | O_DIRECTORY);

	(void)state;
	assert_true(fd >= 0);
	s.caller = pthread_self();
	assert_int_equal(util_chunkread_new(fd, CHUNK, 4, &ops, &s, "in", &c,
	    &err), 0);
	assert_int_equal(util_chunkread_next(c, &buf, &n, &err), -1);
	assert_string_equal(err.code, "io_error");
	assert_int_equal(s.checked, 0);
	util_chunkread_free(c);
	util_sha256_free(s.absorbed);
	close(fd);
}

static void
a_failed_check_stops_after_the_chunks_before_it(void **state)
{
	unsigned char *want;
	struct seen s = { .fail_at = 5, .absorbed = util_sha256_new() };
	util_chunkread *c;
	const unsigned char *buf;
	size_t n, handed = 0;
	ps_error err;
	int fd = input(12 * CHUNK, &want);

	(void)state;
	assert_int_equal(util_chunkread_new(fd, CHUNK, 4, &ops, &s, "in", &c,
	    &err), 0);
	while (util_chunkread_next(c, &buf, &n, &err) == 0) {
		assert_memory_equal(buf, want + handed * CHUNK, CHUNK);
		handed++;
	}
	assert_int_equal(handed, 5);
	assert_string_equal(err.code, "subject_mismatch");
	assert_int_equal(util_chunkread_finish(c, &err), -1);
	assert_true(s.absorbed_bytes <= 5 * CHUNK);
	util_chunkread_free(c);
	util_sha256_free(s.absorbed);
	close(fd);
	free(want);
}

/* Once finish returns, refused or not, no callback runs (the caller then
 * frees what they touch): finished early, while the reading thread still
 * checks and absorbs slowly, it stops that thread's callbacks and waits
 * for the one running. */
static void
finish_stops_the_callbacks(void **state)
{
	unsigned char *want;
	struct seen s = { .fail_at = SIZE_MAX, .absorbed = util_sha256_new(),
	    .slow_check = 1, .slow_absorb = 1 };
	util_chunkread *c;
	const unsigned char *buf;
	size_t n, checked;
	ps_error err;
	int i, fd = input(40 * CHUNK, &want);

	(void)state;
	s.caller = pthread_self();
	assert_int_equal(util_chunkread_new(fd, CHUNK, 8, &ops, &s, "in", &c,
	    &err), 0);
	assert_int_equal(util_chunkread_next(c, &buf, &n, &err), 0);
	assert_int_equal(util_chunkread_finish(c, &err), -1);
	assert_string_equal(err.code, "internal_error");
	assert_int_equal(atomic_load(&s.running), 0);
	checked = s.checked;
	for (i = 0; i < 10; i++)
		nap();
	assert_int_equal(atomic_load(&s.running), 0);
	assert_int_equal(s.checked, checked);
	/* Asked for more after all: the chunks already handed over, then an
	 * error, no check, and no wait for one that cannot come (review). */
	while (util_chunkread_next(c, &buf, &n, &err) == 0)
		assert_true(n > 0);
	assert_string_equal(err.code, "internal_error");
	assert_int_equal(s.checked, checked);
	util_chunkread_free(c);
	util_sha256_free(s.absorbed);
	close(fd);
	free(want);
}

/* A pipe with a chunk and a half written and its writer still open: the
 * thread waits for more, and freeing the reader stops it. */
static void
free_stops_a_thread_waiting_on_a_pipe(void **state)
{
	unsigned char block[CHUNK + CHUNK / 2];
	struct seen s = { .fail_at = SIZE_MAX, .absorbed = util_sha256_new() };
	util_chunkread *c;
	const unsigned char *buf;
	size_t n;
	ps_error err;
	int p[2];

	(void)state;
	memset(block, 'p', sizeof(block));
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], block, sizeof(block)), sizeof(block));
	assert_int_equal(util_chunkread_new(p[0], CHUNK, 2, &ops, &s, "in", &c,
	    &err), 0);
	assert_int_equal(util_chunkread_next(c, &buf, &n, &err), 0);
	assert_int_equal(n, CHUNK);
	util_chunkread_free(c);         /* would hang if it did not stop */
	util_sha256_free(s.absorbed);
	close(p[0]);
	close(p[1]);
}

/* Finishing before the last chunk is refused, never a digest of part. */
static void
finish_before_the_end_is_refused(void **state)
{
	unsigned char *want;
	struct seen s = { .fail_at = SIZE_MAX, .absorbed = util_sha256_new() };
	util_chunkread *c;
	const unsigned char *buf;
	size_t n;
	ps_error err;
	int fd = input(9 * CHUNK, &want);

	(void)state;
	assert_int_equal(util_chunkread_new(fd, CHUNK, 4, &ops, &s, "in", &c,
	    &err), 0);
	assert_int_equal(util_chunkread_next(c, &buf, &n, &err), 0);
	assert_int_equal(util_chunkread_finish(c, &err), -1);
	assert_string_equal(err.code, "internal_error");
	util_chunkread_free(c);
	util_sha256_free(s.absorbed);
	close(fd);
	free(want);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hands_over_every_chunk_in_order),
		cmocka_unit_test(a_busy_caller_leaves_the_digest_to_the_reading_thread),
		cmocka_unit_test(a_waiting_caller_checks_chunks_too),
		cmocka_unit_test(a_failed_check_stops_after_the_chunks_before_it),
		cmocka_unit_test(a_failed_read_is_the_error),
		cmocka_unit_test(finish_stops_the_callbacks),
		cmocka_unit_test(free_stops_a_thread_waiting_on_a_pipe),
		cmocka_unit_test(finish_before_the_end_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
