/* Unit tests: util/ (errors, hex, SHA-256, atomic output). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/atomic.h"
#include "util/error.h"
#include "util/sha256.h"

static void
error_line_names_expected_found_and_code(void **state)
{
	ps_error err;
	char line[4096];

	(void)state;
	assert_int_equal(ps_refuse(&err, "digest_mismatch", "a.tar",
	    "checked the archive digest"), -1);
	ps_error_expect(&err, "sha256:aa", "sha256:bb");
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
	ps_fail(&err, "io_error", "", "cannot read");
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
	assert_int_equal(ps_sha256_buffer("abc", 3, d), 0);
	ps_hex_encode(d, sizeof(d), hex);
	assert_string_equal(hex,
	    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void
hex_decode_rejects_bad_digits_and_lengths(void **state)
{
	unsigned char b[2];

	(void)state;
	assert_int_equal(ps_hex_decode("0aFf", b, 2), 0);
	assert_int_equal(b[0], 0x0a);
	assert_int_equal(b[1], 0xff);
	assert_int_equal(ps_hex_decode("0g00", b, 2), -1);
	assert_int_equal(ps_hex_decode("000", b, 2), -1);
	assert_int_equal(ps_hex_decode("000000", b, 2), -1);
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(error_line_names_expected_found_and_code),
		cmocka_unit_test(error_line_without_values),
		cmocka_unit_test(sha256_known_vector),
		cmocka_unit_test(hex_decode_rejects_bad_digits_and_lengths),
		cmocka_unit_test(atomic_abort_leaves_nothing),
		cmocka_unit_test(atomic_commit_and_no_replace),
		cmocka_unit_test(atomic_uncommitted_output_has_no_name),
	};
	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
