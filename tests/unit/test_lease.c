/*
 * Unit tests: read leases (util/lease.c, docs/security.md section 5).
 * Taken only on the file systems of the allowlist (fstatfs's type given
 * to util_lease_take_on stands in for a FUSE or network mount), only on
 * a read-only descriptor of a file no one has open for writing; a
 * writer's open or truncate breaks it at once, and the break signals no
 * one: this process keeps SIGIO at its default action (which would end
 * it) and counts SIGIO with a handler, and neither fires.  Waiting for a
 * child to reach its open is polling, not timing: the child blocks in
 * open() until the lease is let go.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/lease.h"

struct fixture {
	char dir[64];
	char file[96];
};

static volatile sig_atomic_t sigio_seen;

static void
count_sigio(int sig)
{
	(void)sig;
	sigio_seen++;
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	int fd;

	assert_non_null(f);
	strcpy(f->dir, "/tmp/ps-lease-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->file, sizeof(f->file), "%s/a.tar", f->dir);
	fd = open(f->file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "signed bytes", 12), 12);
	close(fd);
	signal(SIGIO, SIG_DFL);
	signal(SIGURG, SIG_DFL);
	signal(SIGWINCH, SIG_DFL);
	sigio_seen = 0;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	unlink(f->file);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* 1 when this machine grants leases on the test directory at all (a
 * file system outside the allowlist, or leases disabled: skipped). */
static int
leases_here(const struct fixture *f)
{
	char why[UTIL_LEASE_WHY_MAX];
	int fd = open(f->file, O_RDONLY), ok;

	assert_true(fd >= 0);
	ok = util_lease_take(fd, why);
	if (!ok)
		print_message("# no lease here (%s): skipped\n", why);
	close(fd);
	return ok;
}

/* The allowlist by fstatfs type: a FUSE, NFS, CIFS, 9p or overlay mount
 * takes the copy path whatever the kernel would grant. */
static void
file_system_allowlist(void **state)
{
	static const unsigned long refused[] = { 0x65735546 /* fuse */,
	    NFS_SUPER_MAGIC, 0xFF534D42 /* cifs */, 0x01021997 /* 9p */,
	    OVERLAYFS_SUPER_MAGIC, 0x12345678 };
	struct fixture *f = *state;
	char why[UTIL_LEASE_WHY_MAX], name[UTIL_LEASE_FS_MAX];
	size_t i;
	int fd = open(f->file, O_RDONLY);

	assert_true(fd >= 0);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		assert_int_equal(util_lease_take_on(fd, refused[i], why), 0);
		assert_non_null(strstr(why, "the file system is"));
		assert_int_equal(fcntl(fd, F_GETLEASE), F_UNLCK);
	}
	assert_int_equal(util_lease_fs_allowed(0x65735546, name), 0);
	assert_string_equal(name, "fuse");
	assert_int_equal(util_lease_fs_allowed(0x12345678, name), 0);
	assert_string_equal(name, "0x12345678");
	assert_int_equal(util_lease_fs_allowed(EXT4_SUPER_MAGIC, name), 1);
	assert_int_equal(util_lease_fs_allowed(XFS_SUPER_MAGIC, name), 1);
	assert_int_equal(util_lease_fs_allowed(BTRFS_SUPER_MAGIC, name), 1);
	assert_int_equal(util_lease_fs_allowed(TMPFS_MAGIC, name), 1);
	if (leases_here(f)) {
		assert_int_equal(util_lease_take_on(fd, XFS_SUPER_MAGIC, why), 1);
		assert_true(util_lease_held(fd));
		util_lease_drop(fd);
		assert_false(util_lease_held(fd));
	}
	close(fd);
}

/* Not read-only, not a regular file, or open for writing elsewhere:
 * no lease. */
static void
writers_and_odd_files_get_none(void **state)
{
	struct fixture *f = *state;
	char why[UTIL_LEASE_WHY_MAX];
	int rw, ro, dir;

	rw = open(f->file, O_RDWR);
	assert_true(rw >= 0);
	assert_int_equal(util_lease_take(rw, why), 0);
	assert_string_equal(why, "not open read-only");
	ro = open(f->file, O_RDONLY);
	assert_true(ro >= 0);
	assert_int_equal(util_lease_take(ro, why), 0);   /* rw is open */
	assert_non_null(strstr(why, "open for writing"));
	close(rw);
	dir = open(f->dir, O_RDONLY | O_DIRECTORY);
	assert_true(dir >= 0);
	assert_int_equal(util_lease_take(dir, why), 0);
	assert_string_equal(why, "not a regular file");
	close(dir);
	close(ro);
}

/* A host with handlers for both quiet signals gets no lease: a break's
 * signal could reach them in the moment before the owner is cleared. */
static void
busy_signals_get_none(void **state)
{
	struct fixture *f = *state;
	char why[UTIL_LEASE_WHY_MAX];
	int fd;

	if (!leases_here(f))
		return;
	signal(SIGURG, count_sigio);
	signal(SIGWINCH, count_sigio);
	fd = open(f->file, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(util_lease_take(fd, why), 0);
	assert_non_null(strstr(why, "SIGURG and SIGWINCH"));
	signal(SIGURG, SIG_DFL);              /* SIGWINCH is taken instead */
	assert_int_equal(util_lease_take(fd, why), 1);
	signal(SIGWINCH, SIG_DFL);
	util_lease_drop(fd);
	close(fd);
}

/* This process breaks its own lease with a non-blocking open: the
 * break is pending at once (F_GETLEASE no longer F_RDLCK), and this
 * process, SIGIO at its default action, is still here. */
static void
own_break_signals_no_one(void **state)
{
	struct fixture *f = *state;
	char why[UTIL_LEASE_WHY_MAX];
	int fd, w;

	if (!leases_here(f))
		return;
	fd = open(f->file, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(util_lease_take(fd, why), 1);
	w = open(f->file, O_WRONLY | O_NONBLOCK);
	assert_int_equal(w, -1);
	assert_int_equal(errno, EWOULDBLOCK);
	assert_false(util_lease_held(fd));
	util_lease_drop(fd);
	close(fd);
	w = open(f->file, O_WRONLY | O_NONBLOCK);    /* no lease: opens */
	assert_true(w >= 0);
	close(w);
}

/* A child opens (or truncates) the file for writing: it waits in the
 * kernel while the lease is held; the holder sees the break, is not
 * signalled (SIGIO counted: 0; at its default action it would have
 * ended the test), lets go, and the child goes on. */
static void
child_writer_waits_and_signals_no_one(void **state)
{
	struct fixture *f = *state;
	char why[UTIL_LEASE_WHY_MAX];
	int fd, how, status, spins;
	pid_t pid;

	if (!leases_here(f))
		return;
	for (how = 0; how < 2; how++) {
		signal(SIGIO, how == 0 ? SIG_DFL : count_sigio);
		fd = open(f->file, O_RDONLY);
		assert_true(fd >= 0);
		assert_int_equal(util_lease_take(fd, why), 1);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			int w = how == 0 ? open(f->file, O_WRONLY) :
			    truncate(f->file, 3);
			_exit(w < 0 ? 2 : 0);
		}
		for (spins = 0; util_lease_held(fd) && spins < 100000; spins++)
			usleep(100);
		assert_false(util_lease_held(fd));
		assert_int_equal(waitpid(pid, &status, WNOHANG), 0); /* waits */
		util_lease_drop(fd);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
		assert_int_equal(sigio_seen, 0);
		close(fd);
	}
	signal(SIGIO, SIG_DFL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(file_system_allowlist, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(writers_and_odd_files_get_none,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(busy_signals_get_none, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(own_break_signals_no_one, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    child_writer_waits_and_signals_no_one, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
