/*
 * Fault injection through the library (issue 7): ps_install and ps_sign
 * run in a child process under a file size limit (RLIMIT_FSIZE, SIGXFSZ
 * ignored, as the CLI does) fail with exit class 2 and leave the data
 * directory, or the previous OUT and OUT.sig, exactly as they were.  The
 * CLI cases (tmpfs, kill -9) are in tests/cli/faults.bats.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "packsign.h"

#define PACK "examples/packs/research.top-journal-reviewer"

struct fixture {
	char dir[64];
	char data[96];
	ps_seckey *key;
	ps_trust *trust;
};

static void __attribute__((format(printf, 1, 2)))
run(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

/* Every path under `dir` but .lock and .tmp, with its type, mode and
 * content digest, as one string (caller frees). */
static char *
snapshot(const char *dir)
{
	char cmd[512], *buf = calloc(1, 1 << 16);
	size_t len;
	FILE *p;

	assert_non_null(buf);
	snprintf(cmd, sizeof(cmd), "cd '%s' && find . -path ./.lock -prune -o "
	    "-path ./.tmp -prune -o -type f -printf '%%y %%m %%p ' -exec "
	    "sha256sum {} \\; -o -printf '%%y %%m %%p\\n' | LC_ALL=C sort", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	len = fread(buf, 1, (1 << 16) - 1, p);
	assert_int_equal(pclose(p), 0);
	assert_true(len > 0 && len < (1 << 16) - 1);
	return buf;
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	ps_pubkey *pub;
	ps_error err;

	assert_non_null(f);
	strcpy(f->dir, "/tmp/ps-faults-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->data, sizeof(f->data), "%s/data", f->dir);
	assert_int_equal(ps_seckey_generate(&f->key, &err), 0);
	assert_int_equal(ps_seckey_public(f->key, &pub, &err), 0);
	assert_int_equal(ps_trust_from_pubkey(pub, "k.pub", &f->trust, &err), 0);
	ps_pubkey_free(pub);
	run("cp -R " PACK " '%s/pack'", f->dir);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	run("rm -rf '%s'", f->dir);
	ps_seckey_free(f->key);
	ps_trust_free(f->trust);
	free(f);
	return 0;
}

/* Signs the pack as `version` into dir/p-VERSION.tar.gz, mtime `mtime`. */
static void
sign_version(const struct fixture *f, const char *version, int64_t mtime,
    char *archive, size_t size)
{
	char pack[96];
	ps_sign_options o;
	ps_sign_result *r = NULL;
	ps_error err;

	run("sed -i 's/^version: .*/version: %s/' '%s/pack/manifest.yml'",
	    version, f->dir);
	snprintf(pack, sizeof(pack), "%s/pack", f->dir);
	snprintf(archive, size, "%s/p-%s.tar.gz", f->dir, version);
	ps_sign_options_init(&o);
	o.output = archive;
	o.force = 1;
	o.pack.mtime = mtime;
	if (ps_sign(pack, f->key, &o, &r, &err) != 0)
		fail_msg("ps_sign: %s: %s", err.code, err.message);
	ps_sign_result_free(r);
}

static int
install(const struct fixture *f, const char *archive, ps_error *err)
{
	ps_install_options o;
	ps_install_result *r = NULL;
	int rc;

	ps_install_options_init(&o);
	o.verify.trust = f->trust;
	o.data_dir = f->data;
	rc = ps_install(archive, &o, &r, err);
	ps_install_result_free(r);
	return rc;
}

/* The child's exit status: 0, or the ps_status of the failure. */
static int
in_child_limited(rlim_t bytes, int (*job)(const struct fixture *,
    const char *), const struct fixture *f, const char *arg)
{
	struct rlimit lim = { bytes, bytes };
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
			_exit(99);
		_exit(job(f, arg));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* Ascending: each run fails at a later write, until one fits. */
static const rlim_t limits[] = { 0, 256, 512, 768, 1024, 1280, 1536, 1792,
    2048, 3072, 4096, 8192, 65536 };
#define N_LIMITS (sizeof(limits) / sizeof(limits[0]))

/* Runs `job` under each limit in turn until it succeeds; every failure
 * must be exit class 2 and leave `dir` as it was.  Returns the failures. */
static size_t
fail_until_it_fits(const struct fixture *f, const char *dir,
    int (*job)(const struct fixture *, const char *), const char *arg,
    const char *what)
{
	char *before = snapshot(dir), *after;
	size_t i;
	int rc;

	for (i = 0; i < N_LIMITS; i++) {
		rc = in_child_limited(limits[i], job, f, arg);
		if (rc == 0)
			break;
		assert_int_equal(rc, PS_STATUS_FAILED);
		after = snapshot(dir);
		assert_string_equal(before, after);
		free(after);
	}
	free(before);
	assert_true(i < N_LIMITS);
	print_message("%s: %zu limits failed cleanly, %lu bytes fit\n", what,
	    i, (unsigned long)limits[i]);
	return i;
}

static int
install_job(const struct fixture *f, const char *archive)
{
	ps_error err;

	if (install(f, archive, &err) == 0)
		return 0;
	fprintf(stderr, "child: %s: %s: %s\n", err.code, err.subject,
	    err.message);
	return (int)err.status;
}

static void
install_over_the_limit_keeps_the_data_dir(void **state)
{
	struct fixture *f = *state;
	char v1[128], v2[128];
	ps_error err;

	sign_version(f, "0.1.0", 0, v1, sizeof(v1));
	sign_version(f, "0.2.0", 0, v2, sizeof(v2));
	if (install(f, v1, &err) != 0)
		fail_msg("install: %s: %s", err.code, err.message);
	/* The copy of the archive, the extracted files, the receipt: each
	 * limit stops a later write. */
	assert_true(fail_until_it_fits(f, f->data, install_job, v2,
	    "install") >= 3);
}

static int
sign_job(const struct fixture *f, const char *archive)
{
	char pack[96];
	ps_sign_options o;
	ps_sign_result *r = NULL;
	ps_error err;
	int rc;

	snprintf(pack, sizeof(pack), "%s/pack", f->dir);
	ps_sign_options_init(&o);
	o.output = archive;
	o.force = 1;
	o.minisig = 1;
	o.pack.mtime = 99;
	rc = ps_sign(pack, f->key, &o, &r, &err);
	ps_sign_result_free(r);
	return rc == 0 ? 0 : (int)err.status;
}

static void
sign_over_the_limit_keeps_the_previous_outputs(void **state)
{
	struct fixture *f = *state;
	char v1[128];

	sign_version(f, "0.1.0", 1, v1, sizeof(v1));
	run("cd '%s' && printf 'x' >'p-0.1.0.tar.gz.minisig'", f->dir);
	assert_true(fail_until_it_fits(f, f->dir, sign_job, v1, "sign") >= 3);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    install_over_the_limit_keeps_the_data_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    sign_over_the_limit_keeps_the_previous_outputs, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
