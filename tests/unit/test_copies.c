/*
 * Unit tests: the private copies readers parse (util/copy.c,
 * docs/security.md section 5): at most the budget in memory over every
 * reader sharing a ps_copies, threads included; above it an unlinked file
 * in a directory that is not on tmpfs; for a zip that fits nowhere a
 * refusal, never a parse in place.  The budgets are a few hundred bytes so
 * that the example pack is "large".
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "util/copy.h"

#define PACK "examples/packs/research.top-journal-reviewer"

struct fixture {
	char dir[64];
	char spill[96];              /* the directory of file copies */
	char tar[128], zip[128];
	uint64_t tar_size, zip_size;
	ps_seckey *key;
	ps_pubkey *pub;
	ps_trust *trust;
};

static uint64_t
file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return (uint64_t)st.st_size;
}

static void
sign_as_it_is(struct fixture *f, const char *archive)
{
	ps_sign_options so;
	ps_sign_result *r = NULL;
	ps_error err;

	ps_sign_options_init(&so);
	so.predicate_version = 1;     /* v2 tars are read once: no copies */
	if (ps_sign(archive, f->key, &so, &r, &err) != 0)
		fail_msg("sign %s: %s [%s]", archive, err.message, err.code);
	ps_sign_result_free(r);
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	ps_pack_options po;
	char cmd[512];
	ps_error err;
	int fd;

	assert_non_null(f);
	strcpy(f->dir, "/tmp/ps-copies-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->spill, sizeof(f->spill), "%s/spill", f->dir);
	assert_int_equal(mkdir(f->spill, 0700), 0);
	snprintf(f->tar, sizeof(f->tar), "%s/r.tar.gz", f->dir);
	snprintf(f->zip, sizeof(f->zip), "%s/r.zip", f->dir);
	ps_pack_options_init(&po);
	po.compression = PS_COMPRESS_GZIP;
	fd = open(f->tar, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ps_pack(PACK, fd, &po, NULL, &err), 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "cd '%s' && zip -qrX0 '%s' .", PACK, f->zip);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(ps_seckey_generate(&f->key, &err), 0);
	assert_int_equal(ps_seckey_public(f->key, &f->pub, &err), 0);
	assert_int_equal(ps_trust_from_pubkey(f->pub, "k.pub", &f->trust, &err),
	    0);
	sign_as_it_is(f, f->tar);
	sign_as_it_is(f, f->zip);
	f->tar_size = file_size(f->tar);
	f->zip_size = file_size(f->zip);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	ps_seckey_free(f->key);
	ps_pubkey_free(f->pub);
	ps_trust_free(f->trust);
	free(f);
	return 0;
}

/* Entries of `dir` besides . and ..: file copies leave none. */
static int
dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

static int
verify_with(const struct fixture *f, const char *archive, ps_copies *copies,
    ps_error *err)
{
	ps_verify_options o;
	ps_verify_result *r = NULL;
	int rc;

	ps_verify_options_init(&o);
	o.trust = f->trust;
	o.limits.copies = copies;
	rc = ps_verify(archive, &o, &r, err);
	ps_verify_result_free(r);
	return rc;
}

/* A directory on tmpfs (or missing, or a file) is refused up front. */
static void
directory_is_checked(void **state)
{
	struct fixture *f = *state;
	ps_copies *c = NULL;
	struct statfs fs;
	ps_error err;

	if (statfs("/dev/shm", &fs) == 0 && fs.f_type == TMPFS_MAGIC) {
		assert_int_equal(ps_copies_new(0, "/dev/shm", &c, &err), -1);
		assert_string_equal(err.code, "copy_dir_tmpfs");
		assert_int_equal(err.status, PS_STATUS_FAILED);
		assert_null(c);
	} else
		print_message("# /dev/shm is not tmpfs here: not checked\n");
	assert_int_equal(ps_copies_new(0, "/nonexistent/dir", &c, &err), -1);
	assert_string_equal(err.code, "not_found");
	assert_int_equal(ps_copies_new(0, f->tar, &c, &err), -1);
	assert_string_equal(err.code, "not_a_directory");
	assert_int_equal(ps_copies_new(0, f->spill, &c, &err), 0);
	ps_copies_free(c);
}

/* Memory while the budget allows, then a file, then memory again once
 * the first copy gave its bytes back; no directory: none. */
static void
budget_then_file(void **state)
{
	struct fixture *f = *state;
	util_copy a, b, c3;
	ps_copies *c, *mem;
	ps_error err;

	assert_int_equal(ps_copies_new(1000, f->spill, &c, &err), 0);
	assert_int_equal(util_copy_open(c, 600, "a", &a, &err), 0);
	assert_int_equal(a.kind, UTIL_COPY_MEMORY);
	assert_int_equal(util_copy_open(c, 600, "b", &b, &err), 0);
	assert_int_equal(b.kind, UTIL_COPY_FILE);
	assert_int_equal(dir_entries(f->spill), 0);     /* unlinked */
	util_copy_close(&a);
	assert_int_equal(util_copy_open(c, 600, "c", &c3, &err), 0);
	assert_int_equal(c3.kind, UTIL_COPY_MEMORY);
	assert_true(ps_copies_memory_peak(c) <= 1000);
	assert_int_equal(ps_copies_file_count(c), 1);
	util_copy_close(&b);
	util_copy_close(&c3);
	ps_copies_free(c);
	assert_int_equal(ps_copies_new(1000, NULL, &mem, &err), 0);
	assert_int_equal(util_copy_open(mem, 1001, "d", &a, &err), 0);
	assert_int_equal(a.kind, UTIL_COPY_NONE);
	assert_int_equal(a.fd, -1);
	util_copy_close(&a);
	ps_copies_free(mem);
}

/* verify's copy, when it cannot take a read lease (a descriptor open
 * for writing refuses it): in memory within the budget, else a file
 * (never both), else (a tar) none: read twice.  Under a lease: no copy
 * at all, in memory or on disk. */
static void
verify_copy_goes_where_the_budget_says(void **state)
{
	struct fixture *f = *state;
	ps_copies *c;
	ps_error err;
	int writer;

	assert_int_equal(ps_copies_new(1024 * 1024, f->spill, &c, &err), 0);
	assert_int_equal(verify_with(f, f->tar, c, &err), 0);
	assert_int_equal(ps_copies_file_count(c), 0);
	if (ps_copies_memory_peak(c) != 0)
		print_message("# no read lease here: copied\n");
	ps_copies_free(c);
	writer = open(f->tar, O_WRONLY | O_APPEND);
	assert_true(writer >= 0);
	assert_int_equal(ps_copies_new(1024 * 1024, f->spill, &c, &err), 0);
	assert_int_equal(verify_with(f, f->tar, c, &err), 0);
	assert_int_equal(ps_copies_memory_peak(c), f->tar_size);
	assert_int_equal(ps_copies_file_count(c), 0);
	ps_copies_free(c);
	assert_int_equal(ps_copies_new(f->tar_size - 1, f->spill, &c, &err), 0);
	assert_int_equal(verify_with(f, f->tar, c, &err), 0);
	assert_int_equal(ps_copies_memory_peak(c), 0);
	assert_int_equal(ps_copies_file_count(c), 1);
	assert_int_equal(dir_entries(f->spill), 0);
	ps_copies_free(c);
	assert_int_equal(ps_copies_new(f->tar_size - 1, NULL, &c, &err), 0);
	assert_int_equal(verify_with(f, f->tar, c, &err), 0);
	assert_int_equal(ps_copies_memory_peak(c), 0);
	ps_copies_free(c);
	close(writer);
}

/* A zip is read with seeks: parsed from a copy or not at all, in verify
 * and in every other reader (validate's). */
static void
zip_needs_a_place(void **state)
{
	struct fixture *f = *state;
	ps_extract_limits limits;
	ps_pack_files files;
	ps_copies *c;
	ps_error err;

	assert_int_equal(ps_copies_new(f->zip_size - 1, NULL, &c, &err), 0);
	assert_int_equal(verify_with(f, f->zip, c, &err), -1);
	assert_string_equal(err.code, "copy_unavailable");
	assert_int_equal(err.status, PS_STATUS_FAILED);
	assert_non_null(strstr(err.message, "TMPDIR"));
	ps_extract_limits_init(&limits);
	limits.copies = c;
	assert_int_equal(ps_pack_files_archive_open_limited(f->zip, &limits,
	    &files, NULL, &err), -1);
	assert_string_equal(err.code, "copy_unavailable");
	ps_copies_free(c);
	assert_int_equal(ps_copies_new(f->zip_size - 1, f->spill, &c, &err), 0);
	assert_int_equal(verify_with(f, f->zip, c, &err), 0);
	assert_int_equal(ps_copies_file_count(c), 1);
	limits.copies = c;
	assert_int_equal(ps_pack_files_archive_open_limited(f->zip, &limits,
	    &files, NULL, &err), 0);
	ps_pack_files_close(&files);
	assert_int_equal(ps_copies_file_count(c), 2);
	assert_int_equal(ps_copies_memory_peak(c), 0);
	ps_copies_free(c);
	/* no ps_copies: the default budget, in memory */
	assert_int_equal(verify_with(f, f->zip, NULL, &err), 0);
}

struct job {
	const struct fixture *f;
	ps_copies *copies;
	int failures;
};

static void *
verify_many(void *arg)
{
	struct job *j = arg;
	ps_error err;
	int i;

	for (i = 0; i < 20; i++) {
		j->failures += verify_with(j->f, i % 2 == 0 ? j->f->tar :
		    j->f->zip, j->copies, &err) != 0;
	}
	return NULL;
}

/* Four threads verifying at once hold at most the one budget. */
static void
threads_share_one_budget(void **state)
{
	struct fixture *f = *state;
	uint64_t budget = f->tar_size + f->zip_size / 2;
	struct job jobs[4];
	pthread_t t[4];
	ps_copies *c;
	ps_error err;
	int i;

	assert_int_equal(ps_copies_new(budget, f->spill, &c, &err), 0);
	for (i = 0; i < 4; i++) {
		jobs[i] = (struct job){ f, c, 0 };
		assert_int_equal(pthread_create(&t[i], NULL, verify_many,
		    &jobs[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(jobs[i].failures, 0);
	}
	print_message("# memory peak %llu of %llu, %llu file copies\n",
	    (unsigned long long)ps_copies_memory_peak(c),
	    (unsigned long long)budget,
	    (unsigned long long)ps_copies_file_count(c));
	assert_true(ps_copies_memory_peak(c) <= budget);
	assert_int_equal(dir_entries(f->spill), 0);
	ps_copies_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(directory_is_checked, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(budget_then_file, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    verify_copy_goes_where_the_budget_says, setup, teardown),
		cmocka_unit_test_setup_teardown(zip_needs_a_place, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(threads_share_one_budget, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
