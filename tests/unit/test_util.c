/* Unit tests: util/ (errors, hex, SHA-256, atomic output). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <unicase.h>
#include <uninorm.h>

#include "util/atomic.h"
#include "util/error.h"
#include "util/fdio.h"
#include "util/flusher.h"
#include "util/pathname.h"
#include "util/sha256.h"
#include "util/worker.h"

static void
strerror_says_what_strerror_says(void **state)
{
	char buf[UTIL_STRERROR_MAX];
	ps_error err;

	(void)state;
	assert_string_equal(util_strerror(ENOENT, buf, sizeof(buf)),
	    "No such file or directory");
	assert_string_equal(util_strerror(4321, buf, sizeof(buf)),
	    "Unknown error 4321");
	ps_error_clear(&err);
	assert_int_equal(util_fail_errno(&err, "io_error", "f", "read", EIO),
	    -1);
	assert_string_equal(err.message, "read: Input/output error");
}

/* Each thread asks for the message of its own unknown number (the case
 * strerror() writes into a buffer) and must always get its own. */
static void *
strerror_thread(void *arg)
{
	int num = *(int *)arg, i;
	char buf[UTIL_STRERROR_MAX], want[64];
	const char *got;

	snprintf(want, sizeof(want), "Unknown error %d", num);
	for (i = 0; i < 20000; i++) {
		got = util_strerror(num, buf, sizeof(buf));
		if (strcmp(got, want) != 0)
			return (void *)1;
	}
	return NULL;
}

static void
strerror_is_safe_from_many_threads(void **state)
{
	pthread_t threads[8];
	int nums[8], i;
	void *bad;

	(void)state;
	for (i = 0; i < 8; i++) {
		nums[i] = 5000 + i;
		assert_int_equal(pthread_create(&threads[i], NULL,
		    strerror_thread, &nums[i]), 0);
	}
	for (i = 0; i < 8; i++) {
		assert_int_equal(pthread_join(threads[i], &bad), 0);
		assert_null(bad);
	}
}

static void
error_line_names_expected_found_and_code(void **state)
{
	ps_error err;
	char line[4096];

	(void)state;
	assert_int_equal(util_refuse(&err, "digest_mismatch", "a.tar",
	    "checked the archive digest"), -1);
	util_error_expect(&err, "sha256:aa", "sha256:bb");
	assert_int_equal(err.status, PS_STATUS_REFUSED);
	assert_string_equal(ps_error_format(&err, line, sizeof(line)),
	    "a.tar: checked the archive digest: expected sha256:aa, "
	    "found sha256:bb [digest_mismatch]");
}

static void
error_line_without_values(void **state)
{
	ps_error err;
	char line[4096];

	(void)state;
	util_fail(&err, "io_error", "", "cannot read");
	assert_int_equal(err.status, PS_STATUS_FAILED);
	assert_string_equal(ps_error_format(&err, line, sizeof(line)),
	    "cannot read [io_error]");
}

static void
sha256_known_vector(void **state)
{
	unsigned char d[PS_SHA256_LEN];
	char hex[PS_SHA256_HEX_LEN + 1];

	(void)state;
	assert_int_equal(util_sha256_buffer("abc", 3, d), 0);
	ps_hex_encode(d, sizeof(d), hex);
	assert_string_equal(hex,
	    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void
hex_decode_rejects_bad_digits_and_lengths(void **state)
{
	unsigned char b[2];

	(void)state;
	assert_int_equal(util_hex_decode("0aFf", b, 2), 0);
	assert_int_equal(b[0], 0x0a);
	assert_int_equal(b[1], 0xff);
	assert_int_equal(util_hex_decode("0g00", b, 2), -1);
	assert_int_equal(util_hex_decode("000", b, 2), -1);
	assert_int_equal(util_hex_decode("000000", b, 2), -1);
}

static void
atomic_abort_leaves_nothing(void **state)
{
	char dir[] = "/tmp/ps-atomic-XXXXXX", path[256];
	ps_atomic_file *f = NULL;
	ps_error err;
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out.tar", dir);
	assert_int_equal(ps_atomic_open(path, 0644, 0, &f, &err), 0);
	assert_int_equal(write(ps_atomic_fd(f), "x", 1), 1);
	ps_atomic_abort(f);
	assert_int_equal(stat(path, &st), -1);
	assert_int_equal(rmdir(dir), 0);   /* fails if a temp file is left */
}

static void
atomic_commit_and_no_replace(void **state)
{
	char dir[] = "/tmp/ps-atomic-XXXXXX", path[256];
	ps_atomic_file *f = NULL;
	ps_error err;
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/k.key", dir);
	assert_int_equal(ps_atomic_open(path, 0600, PS_ATOMIC_NO_REPLACE, &f,
	    &err), 0);
	assert_int_equal(ps_atomic_commit(f, &err), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(ps_atomic_open(path, 0600, PS_ATOMIC_NO_REPLACE, &f,
	    &err), -1);
	assert_string_equal(err.code, "output_exists");
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
}

/* A process that dies before commit (here: _exit, as after SIGKILL)
 * leaves nothing beside the target: the data had no name yet (O_TMPFILE).
 * On a file system without O_TMPFILE a ".NAME.XXXXXX" file would stay. */
static void
atomic_uncommitted_output_has_no_name(void **state)
{
	char dir[] = "/tmp/ps-atomic-XXXXXX", path[256];
	ps_atomic_file *f = NULL;
	ps_error err;
	pid_t pid;
	int status;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out.tar", dir);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (ps_atomic_open(path, 0644, 0, &f, &err) != 0 ||
		    write(ps_atomic_fd(f), "partial", 7) != 7)
			_exit(1);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(rmdir(dir), 0);   /* fails if anything was left */
}

/* ------------------------------------------------------------ worker */

struct stream {
	util_sha256 *hash;
	size_t seen, fail_after, bad_tags;
};

static int
consume_stream(void *ctx, uint64_t tag, const void *buf, size_t len,
    ps_error *err)
{
	struct stream *s = ctx;

	/* No cmocka assertion here: this runs on the worker thread. */
	if (tag > 2)
		s->bad_tags++;
	s->seen += len;
	if (s->fail_after != 0 && s->seen > s->fail_after)
		return util_fail(err, "disk_full", "out", "no space left");
	return util_sha256_update(s->hash, buf, len);
}

static const util_worker_ops stream_ops = { consume_stream, NULL, NULL };

/* Odd sizes across small slots: every byte consumed once, in order. */
static void
worker_consumes_in_order(void **state)
{
	static unsigned char data[1000003];
	unsigned char want[PS_SHA256_LEN], got[PS_SHA256_LEN];
	struct stream s = { util_sha256_new(), 0, 0, 0 };
	util_worker *w = NULL;
	ps_error err;
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 131 + i / 7);
	assert_int_equal(util_sha256_buffer(data, sizeof(data), want), 0);
	assert_int_equal(util_worker_new(&stream_ops, &s, 4096, 3, &w, &err), 0);
	for (i = 0; i < sizeof(data); i += n) {
		n = (i % 9973) + 1;
		if (n > sizeof(data) - i)
			n = sizeof(data) - i;
		assert_int_equal(util_worker_push(w, n % 3, data + i, n, &err), 0);
	}
	assert_int_equal(util_worker_finish(w, &err), 0);
	util_worker_free(w);
	assert_int_equal(s.seen, sizeof(data));
	assert_int_equal(s.bad_tags, 0);
	assert_int_equal(util_sha256_final(s.hash, got), 0);
	assert_memory_equal(got, want, sizeof(want));
	util_sha256_free(s.hash);
}

/* The consumer's error reaches the producer, which stops pushing. */
static void
worker_failure_reaches_the_producer(void **state)
{
	static unsigned char block[65536];
	struct stream s = { util_sha256_new(), 0, 100000, 0 };
	util_worker *w = NULL;
	ps_error err;
	int i, rc = 0;

	(void)state;
	assert_int_equal(util_worker_new(&stream_ops, &s, 65536, 2, &w, &err), 0);
	for (i = 0; rc == 0 && i < 1000; i++)
		rc = util_worker_push(w, sizeof(block) % 3, block, sizeof(block), &err);
	assert_int_equal(rc, -1);
	assert_string_equal(err.code, "disk_full");
	assert_true(i < 1000);
	ps_error_clear(&err);
	assert_int_equal(util_worker_finish(w, &err), -1);
	assert_string_equal(err.code, "disk_full");
	util_worker_free(w);
	/* A worker freed without finish drops what is pending. */
	assert_int_equal(util_worker_new(&stream_ops, &s, 65536, 4, &w, &err), 0);
	assert_int_equal(util_worker_push(w, 1000 % 3, block, 1000, &err), 0);
	util_worker_free(w);
	util_sha256_free(s.hash);
}

/* Without a thread (slots 0): the same stream, consumed on the caller's
 * thread; a consumer's failure stops the pushes; begin/end refused. */
static int
begin_nothing(void *ctx, ps_error *err)
{
	(void)ctx;
	(void)err;
	return 0;
}

static void
worker_without_a_thread_behaves_the_same(void **state)
{
	static unsigned char data[300007];
	static const util_worker_ops with_begin = { consume_stream,
	    begin_nothing, NULL };
	unsigned char want[PS_SHA256_LEN], got[PS_SHA256_LEN];
	struct stream s = { util_sha256_new(), 0, 0, 0 };
	util_worker *w = NULL;
	ps_error err;
	size_t i, n;
	int rc = 0;

	(void)state;
	for (i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7 + i / 13);
	assert_int_equal(util_sha256_buffer(data, sizeof(data), want), 0);
	assert_int_equal(util_worker_new(&stream_ops, &s, 4096, 0, &w, &err), 0);
	for (i = 0; i < sizeof(data); i += n) {
		n = (i % 5003) + 1;
		if (n > sizeof(data) - i)
			n = sizeof(data) - i;
		assert_int_equal(util_worker_push(w, n % 3, data + i, n, &err), 0);
	}
	assert_int_equal(util_worker_finish(w, &err), 0);
	util_worker_free(w);
	assert_int_equal(s.seen, sizeof(data));
	assert_int_equal(s.bad_tags, 0);
	assert_int_equal(util_sha256_final(s.hash, got), 0);
	assert_memory_equal(got, want, sizeof(want));
	s.seen = 0;
	s.fail_after = 10000;
	assert_int_equal(util_worker_new(&stream_ops, &s, 4096, 0, &w, &err), 0);
	for (i = 0; rc == 0 && i < 100; i++)
		rc = util_worker_push(w, 1, data, 4096, &err);
	assert_int_equal(rc, -1);
	assert_string_equal(err.code, "disk_full");
	assert_true(i < 10);
	assert_int_equal(util_worker_finish(w, &err), -1);
	util_worker_free(w);
	assert_int_equal(util_worker_new(&with_begin, &s, 4096, 0, &w, &err), -1);
	assert_string_equal(err.code, "internal_error");
	assert_null(w);
	util_sha256_free(s.hash);
}

/* Records keep their tags and boundaries, even when many share a slot
 * (a pushed record may be split, never merged with another), whether
 * pushed or written in place (reserved with a byte to spare, as pack's
 * reads do, and committed shorter). */
struct records {
	size_t count, bytes, misplaced;
};

static int
check_record(void *ctx, uint64_t tag, const void *buf, size_t len,
    ps_error *err)
{
	struct records *r = ctx;
	const unsigned char *p = buf;
	size_t i;

	(void)err;
	/* Record n holds n % 50 bytes, each equal to n & 0xff. */
	if (len != tag % 50)
		r->misplaced++;
	for (i = 0; i < len; i++) {
		if (p[i] != (unsigned char)(tag & 0xff))
			r->misplaced++;
	}
	r->count++;
	r->bytes += len;
	return 0;
}

static const util_worker_ops record_ops = { check_record, NULL, NULL };

static void
worker_keeps_record_boundaries(void **state)
{
	unsigned char buf[64], *room;
	struct records r = { 0, 0, 0 };
	util_worker *w = NULL;
	ps_error err;
	size_t n, want = 0;

	(void)state;
	assert_int_equal(util_worker_new(&record_ops, &r, 4096, 3, &w, &err), 0);
	for (n = 0; n < 20000; n++) {
		memset(buf, (int)(n & 0xff), sizeof(buf));
		if (n % 2 == 0) {
			assert_int_equal(util_worker_push(w, n, buf, n % 50, &err),
			    0);
		} else {
			room = util_worker_reserve(w, n % 50 + 1, &err);
			assert_non_null(room);
			memcpy(room, buf, n % 50);
			room[n % 50] = 0xee;  /* the spare byte: not committed */
			util_worker_commit(w, n, n % 50);
		}
		want += n % 50;
	}
	assert_int_equal(util_worker_finish(w, &err), 0);
	util_worker_free(w);
	assert_int_equal(r.count, 20000);
	assert_int_equal(r.bytes, want);
	assert_int_equal(r.misplaced, 0);
}

/* The parent of the last path stays open; links are never followed. */
static void
parent_cache_reuses_and_refuses_links(void **state)
{
	char root[] = "/tmp/ps-parent-XXXXXX", path[128];
	util_parent_cache cache = { NULL, -1 };
	const char *leaf;
	int rootfd, a, again, b;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/a", root);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/b", root);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/link", root);
	assert_int_equal(symlink("a", path), 0);
	rootfd = open(root, O_RDONLY | O_DIRECTORY);
	assert_true(rootfd >= 0);
	assert_int_equal(util_open_parent_cached(&cache, rootfd, "top", &leaf),
	    rootfd);
	assert_string_equal(leaf, "top");
	a = util_open_parent_cached(&cache, rootfd, "a/x", &leaf);
	assert_true(a >= 0 && a != rootfd);
	assert_string_equal(leaf, "x");
	again = util_open_parent_cached(&cache, rootfd, "a/y", &leaf);
	assert_int_equal(again, a);
	b = util_open_parent_cached(&cache, rootfd, "b/x", &leaf);
	assert_true(b >= 0);
	assert_int_equal(util_open_parent_cached(&cache, rootfd, "ab/x", &leaf),
	    -1);                        /* "a" is cached, "ab" is not it */
	assert_int_equal(util_open_parent_cached(&cache, rootfd, "link/x",
	    &leaf), -1);
	assert_true(errno == ELOOP || errno == ENOTDIR);
	util_parent_cache_clear(&cache);
	assert_null(cache.dir);
	close(rootfd);
	unlink(path);
	snprintf(path, sizeof(path), "%s/a", root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/b", root);
	rmdir(path);
	assert_int_equal(rmdir(root), 0);
}

/* The ASCII shortcut gives exactly what libunistring gives. */
static void
path_fold_and_nfc_of_ascii_match_libunistring(void **state)
{
	char text[96], *ours;
	uint8_t *theirs;
	size_t i, len;

	(void)state;
	for (i = 0; i < 95; i++)
		text[i] = (char)(0x20 + i);
	text[95] = '\0';
	ours = util_path_fold(text);
	len = 0;
	theirs = u8_casefold((const uint8_t *)text, 95, NULL, UNINORM_NFC,
	    NULL, &len);
	assert_non_null(ours);
	assert_non_null(theirs);
	assert_int_equal(len, strlen(ours));
	assert_memory_equal(ours, theirs, len);
	free(ours);
	free(theirs);
	ours = util_path_nfc(text, 95);
	assert_string_equal(ours, text);
	free(ours);
	/* Not ASCII: still libunistring's (K: Kelvin sign folds to 'k'). */
	ours = util_path_fold("\xe2\x84\xaa" "B");
	assert_string_equal(ours, "kb");
	free(ours);
	ours = util_path_nfc("e\xcc\x81", 3);
	assert_string_equal(ours, "\xc3\xa9");
	free(ours);
}

/* util_read_last: the tail, and whether the file ends where expected. */
static void
read_last_reports_growth_and_shrinking(void **state)
{
	char path[] = "/tmp/ps-readlast-XXXXXX", buf[16];
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "0123456789", 10), 10);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(util_read_last(fd, buf, 10), 10);
	assert_memory_equal(buf, "0123456789", 10);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(util_read_last(fd, buf, 8), 9);    /* goes on */
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(util_read_last(fd, buf, 12), 10);  /* ended early */
	assert_int_equal(lseek(fd, 10, SEEK_SET), 10);
	assert_int_equal(util_read_last(fd, buf, 0), 0);    /* empty tail */
	assert_int_equal(lseek(fd, 9, SEEK_SET), 9);
	assert_int_equal(util_read_last(fd, buf, 0), 1);
	close(fd);
	unlink(path);
}

/* The flusher runs for regular files only, and is quiet when all is well. */
static void
flusher_only_for_regular_files(void **state)
{
	char path[] = "/tmp/ps-flusher-XXXXXX";
	int fd = mkstemp(path), pipefd[2];
	util_flusher *f = NULL;
	ps_error err;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(pipe(pipefd), 0);
	assert_int_equal(util_flusher_new(pipefd[1], "pipe", &f, &err), 0);
	assert_null(f);
	assert_int_equal(util_flusher_new(fd, "file", &f, &err), 0);
	assert_non_null(f);
	assert_int_equal(write(fd, "data", 4), 4);
	assert_int_equal(util_flusher_wrote(f, 4, &err), 0);
	assert_int_equal(util_flusher_wrote(f, UTIL_FLUSH_EVERY, &err), 0);
	assert_int_equal(util_flusher_finish(f, &err), 0);
	util_flusher_free(f);
	close(pipefd[0]);
	close(pipefd[1]);
	close(fd);
	unlink(path);
}

/* Pages of the file [0, len) still in the page cache. */
static size_t
resident_pages(int fd, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = len / page, i, in = 0;
	unsigned char *vec = malloc(n);
	void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);

	assert_non_null(vec);
	assert_true(map != MAP_FAILED);
	assert_int_equal(mincore(map, len, vec), 0);
	for (i = 0; i < n; i++)
		in += vec[i] & 1;
	munmap(map, len);
	free(vec);
	return in;
}

/* A stretch made durable leaves the page cache (it was dirty there, and
 * stayed after the fdatasync); what was written after it stays. */
static void
flusher_hands_back_the_pages_it_made_durable(void **state)
{
	char path[] = "/var/tmp/ps-flusher-XXXXXX";
	size_t chunk = 1024 * 1024, i, page = (size_t)sysconf(_SC_PAGESIZE);
	size_t stretch = (size_t)UTIL_FLUSH_EVERY, tries;
	int fd = mkstemp(path);
	util_flusher *f = NULL;
	struct statfs fs;
	ps_error err;
	char *buf;

	(void)state;
	assert_true(fd >= 0);
	unlink(path);
	if (fstatfs(fd, &fs) != 0 || fs.f_type == TMPFS_MAGIC) {
		close(fd);     /* shared memory has no disk to drop pages for */
		skip();
	}
	buf = malloc(chunk);
	assert_non_null(buf);
	memset(buf, 'x', chunk);
	assert_int_equal(util_flusher_new(fd, "out.tar", &f, &err), 0);
	for (i = 0; i < stretch / chunk + 1; i++)
		assert_int_equal(write(fd, buf, chunk), (ssize_t)chunk);
	assert_in_range(resident_pages(fd, stretch), stretch / page / 2,
	    stretch / page);
	assert_int_equal(util_flusher_wrote(f, stretch, &err), 0);
	/* 30 s at most: a journal commit can wait for others' dirty data. */
	for (tries = 0; tries < 3000; tries++) {
		if (resident_pages(fd, stretch) < stretch / page / 8)
			break;
		usleep(10000);
	}
	assert_in_range(resident_pages(fd, stretch), 0, stretch / page / 8);
	assert_int_equal(resident_pages(fd, stretch + chunk) -
	    resident_pages(fd, stretch), chunk / page);
	assert_int_equal(util_flusher_finish(f, &err), 0);
	util_flusher_free(f);
	close(fd);
	free(buf);
}

/* A failed flush is the writer's error: the caller's final fsync on the
 * same open file would no longer report it. */
static void
flusher_failure_reaches_the_writer(void **state)
{
	char path[] = "/tmp/ps-flusher-XXXXXX";
	int fd = mkstemp(path), rc = 0, tries;
	uint64_t total = 0;
	util_flusher *f = NULL;
	ps_error err;

	(void)state;
	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(util_flusher_new(fd, "out.tar", &f, &err), 0);
	assert_non_null(f);
	close(fd);  /* the flush now fails with EBADF */
	/* The flush happens on the flusher's thread: wait for it (5 s at
	 * most), telling it of another stretch each time. */
	for (tries = 0; tries < 500 && rc == 0; tries++) {
		total += UTIL_FLUSH_EVERY;
		rc = util_flusher_wrote(f, total, &err);
		if (rc == 0)
			usleep(10000);
	}
	assert_int_equal(rc, -1);
	assert_string_equal(err.code, "io_error");
	assert_string_equal(err.subject, "out.tar");
	assert_non_null(strstr(err.message, "fdatasync"));
	memset(&err, 0, sizeof(err));
	assert_int_equal(util_flusher_finish(f, &err), -1);
	assert_string_equal(err.code, "io_error");
	util_flusher_free(f);
}

/* A batch closes all of its descriptors and nothing else, even a
 * descriptor whose number lies between two of its runs. */
static void
close_batch_closes_only_its_own(void **state)
{
	util_close_batch batch = { .count = 0 };
	int fds[UTIL_CLOSE_BATCH + 5], keep = -1, i, n = 0;

	(void)state;
	for (i = 0; i < UTIL_CLOSE_BATCH + 5; i++) {
		fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		assert_true(fds[i] >= 0);
	}
	keep = fds[7];  /* not given to the batch: a gap in the numbers */
	for (i = UTIL_CLOSE_BATCH + 4; i >= 0; i--) {
		if (fds[i] == keep)
			continue;
		util_close_later(&batch, fds[i]);  /* full at 32: closed then */
		n++;
	}
	assert_int_equal(batch.count, (size_t)(n - UTIL_CLOSE_BATCH));
	util_close_batch_flush(&batch);
	assert_int_equal(batch.count, 0);
	for (i = 0; i < UTIL_CLOSE_BATCH + 5; i++) {
		if (fds[i] == keep)
			assert_int_equal(fcntl(keep, F_GETFD), FD_CLOEXEC);
		else
			assert_int_equal(fcntl(fds[i], F_GETFD), -1);
	}
	close(keep);
}

/* Issue 22: the overlapped digest of a file (read on the caller's
 * thread, hashed on a second one) is the plain one, from the fd's offset,
 * at sizes around its 256 KiB records; a bad fd fails with errno. */
static void
sha256_fd_overlapped_matches_plain(void **state)
{
	static const size_t sizes[] = { 0, 1, 262143, 262144, 262145,
	    3 * 262144 + 7 };
	char path[] = "/tmp/ps-sha-XXXXXX";
	unsigned char *data, a[PS_SHA256_LEN], b[PS_SHA256_LEN];
	uint64_t na, nb;
	size_t i, k;
	int fd;

	(void)state;
	data = malloc(sizes[5]);
	assert_non_null(data);
	for (k = 0; k < sizes[5]; k++)
		data[k] = (unsigned char)(k * 131 + k / 977);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		fd = mkstemp(path);
		assert_true(fd >= 0);
		unlink(path);
		strcpy(path, "/tmp/ps-sha-XXXXXX");
		assert_int_equal(write(fd, data, sizes[i]), (ssize_t)sizes[i]);
		assert_int_equal(lseek(fd, i == 4 ? 5 : 0, SEEK_SET), i == 4 ? 5 : 0);
		assert_int_equal(util_sha256_fd(fd, a, &na), 0);
		assert_int_equal(lseek(fd, i == 4 ? 5 : 0, SEEK_SET), i == 4 ? 5 : 0);
		assert_int_equal(util_sha256_fd_overlapped(fd, b, &nb), 0);
		assert_int_equal(na, nb);
		assert_int_equal(nb, sizes[i] - (i == 4 ? 5 : 0));
		assert_memory_equal(a, b, PS_SHA256_LEN);
		close(fd);
	}
	errno = 0;
	assert_int_equal(util_sha256_fd_overlapped(-1, b, &nb), -1);
	assert_int_equal(errno, EBADF);
	free(data);
}

/* ps_text_char_length: well-formed UTF-8 characters only (issue 26). */
static void
char_length_takes_utf8_only(void **state)
{
	(void)state;
	assert_int_equal(ps_text_char_length("a"), 1);
	assert_int_equal(ps_text_char_length("\xc3\xa9x"), 2);          /* é */
	assert_int_equal(ps_text_char_length("\xe4\xb8\x96"), 3);      /* 世 */
	assert_int_equal(ps_text_char_length("\xf0\x9f\x98\x80"), 4);  /* U+1F600 */
	assert_int_equal(ps_text_char_length(""), 0);
	assert_int_equal(ps_text_char_length("\xff"), 0);
	assert_int_equal(ps_text_char_length("\x80"), 0);                /* continuation */
	assert_int_equal(ps_text_char_length("\xc3"), 0);                /* cut short */
	assert_int_equal(ps_text_char_length("\xc0\xaf"), 0);           /* overlong */
	assert_int_equal(ps_text_char_length("\xed\xa0\x80"), 0);      /* surrogate */
	assert_int_equal(ps_text_char_length("\xf4\x90\x80\x80"), 0);  /* > U+10FFFF */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(error_line_names_expected_found_and_code),
		cmocka_unit_test(strerror_says_what_strerror_says),
		cmocka_unit_test(strerror_is_safe_from_many_threads),
		cmocka_unit_test(error_line_without_values),
		cmocka_unit_test(sha256_known_vector),
		cmocka_unit_test(sha256_fd_overlapped_matches_plain),
		cmocka_unit_test(hex_decode_rejects_bad_digits_and_lengths),
		cmocka_unit_test(atomic_abort_leaves_nothing),
		cmocka_unit_test(atomic_commit_and_no_replace),
		cmocka_unit_test(atomic_uncommitted_output_has_no_name),
		cmocka_unit_test(worker_consumes_in_order),
		cmocka_unit_test(worker_failure_reaches_the_producer),
		cmocka_unit_test(worker_without_a_thread_behaves_the_same),
		cmocka_unit_test(worker_keeps_record_boundaries),
		cmocka_unit_test(path_fold_and_nfc_of_ascii_match_libunistring),
		cmocka_unit_test(read_last_reports_growth_and_shrinking),
		cmocka_unit_test(parent_cache_reuses_and_refuses_links),
		cmocka_unit_test(flusher_only_for_regular_files),
		cmocka_unit_test(flusher_hands_back_the_pages_it_made_durable),
		cmocka_unit_test(flusher_failure_reaches_the_writer),
		cmocka_unit_test(close_batch_closes_only_its_own),
		cmocka_unit_test(char_length_takes_utf8_only),
	};
	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
