/*
 * Unit tests: chunks read and checked ahead (util/chunkread.c): every
 * chunk handed over in order, whole, the last one short (or empty on a
 * boundary), each absorbed exactly once and in order whichever thread
 * takes it, the reading thread taking some while a busy caller has
 * chunks waiting; a check that fails stops the reading after the chunks before
 * it were handed over; a reader freed while the thread waits on a pipe
 * nobody writes returns at once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
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
	size_t fail_at;             /* refuse this chunk (SIZE_MAX: none) */
	util_sha256 *absorbed;      /* what absorb saw, in order */
	size_t absorbed_bytes;
	int slow_parse;             /* the caller sleeps per chunk */
	pthread_t caller;
	size_t by_reader;           /* chunks absorbed on the reading thread */
};

static int
check(void *ctx, const unsigned char *buf, size_t len, ps_error *err)
{
	struct seen *s = ctx;

	(void)buf;
	(void)len;
	if (s->checked++ == s->fail_at) {
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

	(void)err;
	if (!pthread_equal(pthread_self(), s->caller))
		s->by_reader++;
	s->absorbed_bytes += len;
	return util_sha256_update(s->absorbed, buf, len);
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
reads_in_order(size_t len, size_t slots, int slow_parse, size_t *by_reader)
{
	unsigned char *want, *got = malloc(len + CHUNK), d1[32], d2[32];
	struct seen s = { .fail_at = SIZE_MAX, .absorbed = util_sha256_new(),
	    .slow_parse = slow_parse };
	util_chunkread *c;
	const unsigned char *buf;
	size_t n, at = 0;
	ps_error err;
	int fd = input(len, &want);

	assert_non_null(got);
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
	*by_reader = s.by_reader;
	util_chunkread_free(c);
	util_sha256_free(s.absorbed);
	close(fd);
	free(want);
	free(got);
}

static void
hands_over_every_chunk_in_order(void **state)
{
	size_t by_reader;

	(void)state;
	reads_in_order(37 * CHUNK + 123, 4, 0, &by_reader); /* last short */
	reads_in_order(16 * CHUNK, 2, 0, &by_reader);  /* ends on a boundary */
	reads_in_order(10, 8, 0, &by_reader);          /* one short chunk */
	reads_in_order(0, 3, 0, &by_reader);           /* empty input */
	reads_in_order(20 * CHUNK + 1, 3, 1, &by_reader); /* caller slower */
}

/* A caller parsing slower than the input is read, with a ring that never
 * fills: the reading thread, chunks ahead, takes the digest instead of
 * leaving all of it to the busy caller. */
static void
a_busy_caller_leaves_the_digest_to_the_reading_thread(void **state)
{
	size_t by_reader;

	(void)state;
	reads_in_order(20 * CHUNK + 1, 64, 1, &by_reader);
	assert_true(by_reader > 0);
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
		cmocka_unit_test(a_failed_check_stops_after_the_chunks_before_it),
		cmocka_unit_test(free_stops_a_thread_waiting_on_a_pipe),
		cmocka_unit_test(finish_before_the_end_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
