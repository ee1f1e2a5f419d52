/* Unit tests: ps_install, ps_installed_*, ps_uninstall (install/). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "packsign.h"
#include "install/receipt.h"

#define PACK "examples/packs/research.top-journal-reviewer"
#define ID "research.top-journal-reviewer"

struct fixture {
	char dir[64];
	char data[96];
	char archive[128];
	ps_seckey *key;
	ps_trust *trust;
};

static void __attribute__((format(printf, 1, 2)))
run(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("failed: %s", cmd);
}

/* Signs dir/pack (after `edit`, a shell command run in it) as VERSION. */
static void
sign_version(struct fixture *f, const char *version, const char *edit)
{
	char pack[96], cmd[512];
	ps_sign_options o;
	ps_sign_result *r = NULL;
	ps_error err;

	snprintf(pack, sizeof(pack), "%s/pack", f->dir);
	run("rm -rf '%s' && cp -R " PACK " '%s'", pack, pack);
	snprintf(cmd, sizeof(cmd), "cd '%s' && sed -i 's/^version: .*/version: "
	    "%s/' manifest.yml && %s", pack, version, edit);
	assert_int_equal(system(cmd), 0);
	snprintf(f->archive, sizeof(f->archive), "%s/pack-%s.tar.gz", f->dir,
	    version);
	ps_sign_options_init(&o);
	o.output = f->archive;
	o.identity = "alice";
	o.force = 1;
	if (ps_sign(pack, f->key, &o, &r, &err) != 0)
		fail_msg("ps_sign: %s: %s", err.code, err.message);
	ps_sign_result_free(r);
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	ps_pubkey *pub;
	ps_error err;

	assert_non_null(f);
	strcpy(f->dir, "/tmp/ps-install-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->data, sizeof(f->data), "%s/data", f->dir);
	assert_int_equal(ps_seckey_generate(&f->key, &err), 0);
	assert_int_equal(ps_seckey_public(f->key, &pub, &err), 0);
	assert_int_equal(ps_pubkey_set_identity(pub, "alice", &err), 0);
	assert_int_equal(ps_trust_from_pubkey(pub, "-p alice.pub", &f->trust,
	    &err), 0);
	ps_pubkey_free(pub);
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

static int
install(struct fixture *f, int allow_downgrade, ps_install_result **r,
    ps_error *err)
{
	ps_install_options o;

	ps_install_options_init(&o);
	o.verify.trust = f->trust;
	o.data_dir = f->data;
	o.allow_downgrade = allow_downgrade;
	return ps_install(f->archive, &o, r, err);
}

static void
install_ok(struct fixture *f)
{
	ps_install_result *r = NULL;
	ps_error err;

	if (install(f, 0, &r, &err) != 0)
		fail_msg("install: %s: %s: %s", err.code, err.subject, err.message);
	assert_true(r->installed || r->already_installed);
	ps_install_result_free(r);
}

static size_t
installed_count(const struct fixture *f)
{
	ps_installed_list *list = NULL;
	ps_error err;
	size_t n;

	assert_int_equal(ps_installed_list_load(f->data, &list, &err), 0);
	n = list->count;
	ps_installed_list_free(list);
	return n;
}

static void
installs_lists_checks_uninstalls(void **state)
{
	struct fixture *f = *state;
	ps_installed_list *list = NULL, *removed = NULL;
	ps_installed_check *c = NULL;
	char path[256];
	struct stat st;
	ps_error err;

	sign_version(f, "1.0.0", "true");
	install_ok(f);
	snprintf(path, sizeof(path), "%s/agentpacks/" ID "/1.0.0/manifest.yml",
	    f->data);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(ps_installed_list_load(f->data, &list, &err), 0);
	assert_int_equal(list->count, 1);
	assert_true(list->items[0].newest);
	assert_string_equal(list->items[0].signer, "alice");
	assert_string_equal(list->items[0].domain, "research");
	assert_true(list->items[0].entry_count > 5);
	ps_installed_list_free(list);

	snprintf(path, sizeof(path), "%s/agentpacks/" ID "/1.0.0", f->data);
	assert_int_equal(ps_installed_verify(path, f->trust, (int64_t)time(NULL), &c,
	    &err), 0);
	assert_true(c->tree_computed);
	assert_true(c->signature_checked);
	ps_installed_check_free(c);

	install_ok(f);                           /* same version: no-op */
	assert_int_equal(ps_uninstall(f->data, PS_FORMAT_UNKNOWN, ID, NULL,
	    &removed, &err), 0);
	assert_int_equal(removed->count, 1);
	ps_installed_list_free(removed);
	assert_int_equal(installed_count(f), 0);
	assert_int_equal(ps_uninstall(f->data, PS_FORMAT_UNKNOWN, ID, NULL,
	    NULL, &err), -1);
	assert_string_equal(err.code, "not_installed");
	assert_int_equal(err.status, PS_STATUS_REFUSED);
}

static void
tampering_after_install_is_named(void **state)
{
	struct fixture *f = *state;
	ps_installed_check *c = NULL;
	char path[256];
	ps_error err;

	sign_version(f, "1.0.0", "true");
	install_ok(f);
	snprintf(path, sizeof(path), "%s/agentpacks/" ID "/1.0.0", f->data);
	run("cd '%s' && echo evil >> prompts/review.md && echo x > added.txt && "
	    "rm README.md && ln -s /etc/passwd link", path);
	assert_int_equal(ps_installed_verify(path, NULL, 0, &c, &err), -1);
	assert_string_equal(err.code, "installed_modified");
	assert_int_equal(c->modified.count, 1);
	assert_string_equal(c->modified.items[0], "prompts/review.md");
	assert_int_equal(c->added.count, 2);
	assert_int_equal(c->missing.count, 1);
	assert_string_equal(c->missing.items[0], "README.md");
	ps_installed_check_free(c);
}

static void
downgrade_and_conflicts(void **state)
{
	struct fixture *f = *state;
	ps_install_result *r = NULL;
	ps_error err;

	sign_version(f, "2.0.0", "true");
	install_ok(f);
	sign_version(f, "1.0.0", "true");
	assert_int_equal(install(f, 0, &r, &err), -1);
	assert_string_equal(err.code, "downgrade_refused");
	assert_string_equal(err.expected, "2.0.0");
	ps_install_result_free(r);
	assert_int_equal(install(f, 1, &r, &err), 0);
	ps_install_result_free(r);
	assert_int_equal(installed_count(f), 2);

	sign_version(f, "2.0.0", "echo changed >> README.md");
	assert_int_equal(install(f, 0, &r, &err), -1);
	assert_string_equal(err.code, "version_conflict");
	ps_install_result_free(r);
	assert_int_equal(installed_count(f), 2);
}

/* Regression: the second version was compared with a zeroed first one
 * and taken for another format (install_ambiguous). */
static void
uninstall_removes_every_version(void **state)
{
	struct fixture *f = *state;
	ps_installed_list *removed = NULL;
	ps_error err;

	sign_version(f, "1.0.0", "true");
	install_ok(f);
	sign_version(f, "2.0.0", "true");
	install_ok(f);
	if (ps_uninstall(f->data, PS_FORMAT_UNKNOWN, ID, NULL, &removed,
	    &err) != 0)
		fail_msg("uninstall: %s: %s", err.code, err.message);
	assert_int_equal(removed->count, 2);
	ps_installed_list_free(removed);
	assert_int_equal(installed_count(f), 0);
}

/* Review finding: a symlink planted in the data directory must not lead
 * uninstall (or list) outside it. */
static void
symlinks_in_the_data_dir_are_not_followed(void **state)
{
	struct fixture *f = *state;
	char outside[128], keep[192];
	struct stat st;
	ps_error err;

	sign_version(f, "1.0.0", "true");
	install_ok(f);
	snprintf(outside, sizeof(outside), "%s/outside", f->dir);
	run("mv '%s/agentpacks' '%s' && ln -s '%s' '%s/agentpacks'", f->data,
	    outside, outside, f->data);
	assert_int_equal(installed_count(f), 0);
	assert_int_equal(ps_uninstall(f->data, PS_FORMAT_UNKNOWN, ID, NULL,
	    NULL, &err), -1);
	assert_string_equal(err.code, "not_installed");
	snprintf(keep, sizeof(keep), "%s/" ID "/1.0.0/manifest.yml", outside);
	assert_int_equal(stat(keep, &st), 0);
}

/* Review finding: a read-only directory inside an installed tree must
 * neither fail uninstall nor block later runs. */
static void
read_only_directories_are_removed(void **state)
{
	struct fixture *f = *state;
	char path[256];

	sign_version(f, "1.0.0", "true");
	install_ok(f);
	snprintf(path, sizeof(path), "%s/agentpacks/" ID "/1.0.0", f->data);
	run("chmod 0555 '%s/prompts'", path);
	assert_int_equal(ps_uninstall(f->data, PS_FORMAT_UNKNOWN, ID, NULL,
	    NULL, &(ps_error){ 0 }), 0);
	assert_int_equal(installed_count(f), 0);
	install_ok(f);
	run("test -z \"$(ls -A '%s/.tmp')\"", f->data);
}

/* Review finding: "a" with "a/c" below it is not an empty directory even
 * though "a-b" sorts between them. */
static void
receipt_lists_only_empty_directories(void **state)
{
	struct fixture *f = *state;
	ps_installed_list *list = NULL;
	ps_error err;
	size_t i;
	int empty = 0;

	sign_version(f, "1.0.0", "mkdir -p knowledge/a knowledge/e && "
	    "echo c > knowledge/a/c && echo b > knowledge/a-b");
	install_ok(f);
	assert_int_equal(ps_installed_list_load(f->data, &list, &err), 0);
	for (i = 0; i < list->items[0].entry_count; i++) {
		if (list->items[0].entries[i].type != PS_ENTRY_DIR)
			continue;
		assert_string_equal(list->items[0].entries[i].path, "knowledge/e");
		empty++;
	}
	assert_int_equal(empty, 1);
	ps_installed_list_free(list);
}

/* Review finding: renaming a file to its NFD form is a change. */
static void
renamed_to_nfd_is_noticed(void **state)
{
	struct fixture *f = *state;
	ps_installed_check *c = NULL;
	char path[256];
	ps_error err;

	sign_version(f, "1.0.0", "printf x > knowledge/caf\303\251.txt");
	install_ok(f);
	snprintf(path, sizeof(path), "%s/agentpacks/" ID "/1.0.0", f->data);
	assert_int_equal(ps_installed_verify(path, NULL, 0, &c, &err), 0);
	ps_installed_check_free(c);
	run("cd '%s/knowledge' && mv \"$(printf 'caf\303\251.txt')\" "
	    "\"$(printf 'cafe\314\201.txt')\"", path);
	assert_int_equal(ps_installed_verify(path, NULL, 0, &c, &err), -1);
	assert_string_equal(err.code, "installed_modified");
	assert_int_equal(c->added.count, 1);
	assert_int_equal(c->missing.count, 1);
	ps_installed_check_free(c);
}

/* Review finding: another user's .lock could block every install. */
static void
another_users_lock_is_refused(void **state)
{
	struct fixture *f = *state;
	ps_install_result *r = NULL;
	ps_error err;

	if (geteuid() != 0)
		skip();             /* only root can give a file away */
	sign_version(f, "1.0.0", "true");
	run("mkdir -p '%s' && touch '%s/.lock' && chown 65534 '%s/.lock'",
	    f->data, f->data, f->data);
	assert_int_equal(install(f, 0, &r, &err), -1);
	assert_string_equal(err.code, "data_dir_invalid");
	ps_install_result_free(r);
}

static int
say_no(void *ctx, const ps_install_plan *plan)
{
	*(int *)ctx = plan->summary != NULL && strstr(plan->summary, ID) != NULL;
	return 0;
}

static void
declined_and_dry_run_leave_nothing(void **state)
{
	struct fixture *f = *state;
	ps_install_result *r = NULL;
	ps_install_options o;
	int asked = 0;
	ps_error err;

	sign_version(f, "1.0.0", "true");
	ps_install_options_init(&o);
	o.verify.trust = f->trust;
	o.data_dir = f->data;
	o.confirm = say_no;
	o.confirm_ctx = &asked;
	assert_int_equal(ps_install(f->archive, &o, &r, &err), -1);
	assert_string_equal(err.code, "install_declined");
	assert_true(asked);
	ps_install_result_free(r);
	o.dry_run = 1;
	assert_int_equal(ps_install(f->archive, &o, &r, &err), 0);
	assert_true(r->dry_run);
	assert_false(r->installed);
	ps_install_result_free(r);
	assert_int_equal(installed_count(f), 0);
}

/* ps_install_options.cancelled: says stop at its Nth poll. */
struct cancel_at {
	unsigned polls;
	unsigned stop_at;
};

static int
cancel_at_poll(void *ctx)
{
	struct cancel_at *c = ctx;

	return ++c->polls > c->stop_at;
}

/* Options whose `cancelled` is `c`; `tmp` gets DIR/.tmp. */
static void
cancelling_options(const struct fixture *f, ps_install_options *o,
    struct cancel_at *c, char *tmp, size_t tmp_len)
{
	snprintf(tmp, tmp_len, "%s/.tmp", f->data);
	ps_install_options_init(o);
	o->verify.trust = f->trust;
	o->data_dir = f->data;
	o->cancelled = cancel_at_poll;
	o->cancelled_ctx = c;
}

/* Installs, told to stop after `n` polls: 0 when it installed; -1 when
 * it stopped, checked to be install_cancelled with nothing installed and
 * DIR/.tmp (`tmp`) empty. */
static int
install_stopping_at(struct fixture *f, const ps_install_options *o,
    struct cancel_at *c, unsigned n, const char *tmp)
{
	ps_install_result *r = NULL;
	ps_error err;
	int rc;

	c->polls = 0;
	c->stop_at = n;
	rc = ps_install(f->archive, o, &r, &err);
	ps_install_result_free(r);
	if (rc == 0)
		return 0;
	if (strcmp(err.code, "install_cancelled") != 0)
		fail_msg("stopped at poll %u: %s: %s", n, err.code, err.message);
	assert_int_equal(err.status, PS_STATUS_FAILED);
	assert_int_equal(installed_count(f), 0);
	run("test -z \"$(ls -A '%s' 2>/dev/null)\"", tmp);
	return -1;
}

/* Issue 26: an interrupted install left DIR/.tmp/install.* behind.  Stopped
 * at every point it polls (the copy, each entry and block extracted, before
 * the receipt, after the sync), it is install_cancelled, installs nothing
 * and leaves DIR/.tmp empty; polled once more than it asks, it installs. */
static void
cancelled_install_leaves_nothing(void **state)
{
	struct fixture *f = *state;
	struct cancel_at c;
	ps_install_options o;
	char tmp[160];
	unsigned n;

	sign_version(f, "1.0.0", "true");
	cancelling_options(f, &o, &c, tmp, sizeof(tmp));
	for (n = 0; n < 100000; n++) {
		if (install_stopping_at(f, &o, &c, n, tmp) == 0)
			break;
	}
	print_message("# installed at stop_at %u\n", n);
	/* it polled (so each stop above was a different point), then
	 * installed once nothing said stop */
	assert_true(n >= 3 && n < 100000);
	assert_int_equal(c.polls, n);
	assert_int_equal(installed_count(f), 1);
	run("test -z \"$(ls -A '%s' 2>/dev/null)\"", tmp);
}

/* Past its first 64 entries the extraction writes on a thread of its own
 * (install/extract.c): stopped while that thread runs, the install is
 * still install_cancelled, installs nothing and leaves DIR/.tmp empty
 * (the thread is stopped before the tree is removed); not stopped, it
 * installs all 200 files. */
static void
cancelled_while_the_writer_runs(void **state)
{
	struct fixture *f = *state;
	ps_install_result *r = NULL;
	struct cancel_at c;
	ps_install_options o;
	char tmp[160];
	unsigned n;
	ps_error err;

	sign_version(f, "1.0.0", "mkdir knowledge/many && for i in $(seq 200); "
	    "do echo $i > knowledge/many/f$i.txt; done");
	cancelling_options(f, &o, &c, tmp, sizeof(tmp));
	for (n = 200; n <= 380; n += 30)        /* entries 100 to 190 */
		assert_int_equal(install_stopping_at(f, &o, &c, n, tmp), -1);
	o.cancelled = NULL;
	assert_int_equal(ps_install(f->archive, &o, &r, &err), 0);
	run("test \"$(ls '%s'/knowledge/many | wc -l)\" = 200", r->path);
	ps_install_result_free(r);
	assert_int_equal(installed_count(f), 1);
}

static void
tampered_archive_is_refused_before_anything(void **state)
{
	struct fixture *f = *state;
	ps_install_result *r = NULL;
	ps_error err;
	char cmd[512];

	sign_version(f, "1.0.0", "true");
	snprintf(cmd, sizeof(cmd), "printf x | dd of='%s' bs=1 seek=100 "
	    "conv=notrunc status=none", f->archive);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(install(f, 0, &r, &err), -1);
	assert_string_equal(err.code, "subject_mismatch");
	/* errors name the caller's file, not the private copy */
	assert_string_equal(err.subject, f->archive);
	ps_install_result_free(r);
	assert_int_equal(installed_count(f), 0);
}

/* An upgrade signed by a key the pins do not hold, under a one-key
 * policy (whose identity is the key file's own claim): signer_changed,
 * expected the pins, found the new signer, nothing installed; with
 * allow_signer_change the check passes and the new key is pinned. */
static void
unpinned_signer_is_signer_changed(void **state)
{
	struct fixture *f = *state;
	ps_install_result *r = NULL;
	ps_install_options o;
	ps_seckey *alice = f->key;
	ps_trust *alice_trust = f->trust;
	ps_pubkey *pub;
	char alice_fp[PS_FINGERPRINT_MAX], other_fp[PS_FINGERPRINT_MAX];
	char want[160];
	ps_error err;

	sign_version(f, "1.0.0", "true");
	install_ok(f);
	assert_int_equal(ps_seckey_public(alice, &pub, &err), 0);
	assert_int_equal(ps_pubkey_fingerprint(pub, alice_fp), 0);
	ps_pubkey_free(pub);
	/* Another key whose file says "alice". */
	assert_int_equal(ps_seckey_generate(&f->key, &err), 0);
	assert_int_equal(ps_seckey_public(f->key, &pub, &err), 0);
	assert_int_equal(ps_pubkey_set_identity(pub, "alice", &err), 0);
	assert_int_equal(ps_pubkey_fingerprint(pub, other_fp), 0);
	assert_int_equal(ps_trust_from_pubkey(pub, "-p other.pub", &f->trust,
	    &err), 0);
	ps_pubkey_free(pub);
	sign_version(f, "2.0.0", "true");
	assert_int_equal(install(f, 0, &r, &err), -1);
	assert_string_equal(err.code, "signer_changed");
	assert_int_equal(err.status, PS_STATUS_REFUSED);
	assert_string_equal(err.subject, f->archive);
	snprintf(want, sizeof(want), "alice (%s)", alice_fp);
	assert_string_equal(err.expected, want);
	snprintf(want, sizeof(want), "alice (%s)", other_fp);
	assert_string_equal(err.found, want);
	ps_install_result_free(r);
	assert_int_equal(installed_count(f), 1);
	ps_install_options_init(&o);
	o.verify.trust = f->trust;
	o.data_dir = f->data;
	o.allow_signer_change = 1;
	o.accept = PS_CONSENT_TRUST | PS_CONSENT_PERMISSIONS;
	if (ps_install(f->archive, &o, &r, &err) != 0)
		fail_msg("install: %s: %s", err.code, err.message);
	assert_true(r->installed && r->pinned);
	ps_install_result_free(r);
	assert_int_equal(installed_count(f), 2);
	ps_seckey_free(alice);
	ps_trust_free(alice_trust);
}

static void
receipt_round_trips(void **state)
{
	struct fixture *f = *state;
	ps_installed_list *list = NULL;
	ps_installed *back = NULL;
	char *text = NULL, *again = NULL;
	ps_error err;

	sign_version(f, "1.0.0", "true");
	install_ok(f);
	assert_int_equal(ps_installed_list_load(f->data, &list, &err), 0);
	assert_int_equal(install_receipt_format(&list->items[0], &text, &err), 0);
	assert_int_equal(install_receipt_parse(text, strlen(text), "r", &back, &err),
	    0);
	assert_int_equal(install_receipt_format(back, &again, &err), 0);
	assert_string_equal(text, again);
	install_receipt_free(back);
	assert_int_equal(install_receipt_parse("{\"packsignReceipt\": 2}", 21, "r",
	    &back, &err), -1);
	assert_string_equal(err.code, "receipt_invalid");
	free(text);
	free(again);
	ps_installed_list_free(list);
}

/*
 * An installed tree's large files are handed to writeback as they are
 * extracted (every 8 MiB, the rest when the file is closed), in order and
 * without a gap, so the syncfs before the commit finds little left; small
 * files are left to the syncfs, and a dry run starts none.  Writeback is
 * advisory: its failure is not the install's (the syncfs reports a real
 * one).
 */
static struct {
	int calls, out_of_order, fail;
	int fd;
	uint64_t end;
} writeback;

int __real_sync_file_range(int fd, off_t offset, off_t len, unsigned flags);
int __wrap_sync_file_range(int fd, off_t offset, off_t len, unsigned flags);

int
__wrap_sync_file_range(int fd, off_t offset, off_t len, unsigned flags)
{
	if (writeback.calls++ == 0)
		writeback.fd = fd;
	if (fd != writeback.fd || (uint64_t)offset != writeback.end ||
	    len <= 0 || flags != SYNC_FILE_RANGE_WRITE)
		writeback.out_of_order++;
	writeback.end = (uint64_t)offset + (uint64_t)len;
	if (writeback.fail) {
		errno = EIO;
		return -1;
	}
	return __real_sync_file_range(fd, offset, len, flags);
}

static void
large_files_handed_to_writeback(void **state)
{
	struct fixture *f = *state;
	const uint64_t big = 20 * 1024 * 1024 + 5;
	ps_install_result *r = NULL;
	ps_install_options o;
	ps_error err;
	int fail;

	sign_version(f, "1.0.0", "head -c 20971525 /dev/zero >big.bin && "
	    "head -c 7340032 /dev/zero >small.bin");
	ps_install_options_init(&o);
	o.verify.trust = f->trust;
	o.data_dir = f->data;
	o.dry_run = 1;
	memset(&writeback, 0, sizeof(writeback));
	assert_int_equal(ps_install(f->archive, &o, &r, &err), 0);
	assert_true(r->dry_run);
	assert_int_equal(writeback.calls, 0);
	ps_install_result_free(r);
	o.dry_run = 0;
	for (fail = 0; fail <= 1; fail++) {
		memset(&writeback, 0, sizeof(writeback));
		writeback.fail = fail;
		o.reinstall = fail;
		if (ps_install(f->archive, &o, &r, &err) != 0)
			fail_msg("install: %s: %s", err.code, err.message);
		assert_true(r->installed);
		assert_int_equal(writeback.calls, 3);   /* 8, 16, 20 MiB + 5 */
		assert_int_equal(writeback.out_of_order, 0);
		assert_true(writeback.end == big);
		ps_install_result_free(r);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(installs_lists_checks_uninstalls,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(tampering_after_install_is_named,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(downgrade_and_conflicts, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(uninstall_removes_every_version,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(declined_and_dry_run_leave_nothing,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(cancelled_install_leaves_nothing,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(cancelled_while_the_writer_runs,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    tampered_archive_is_refused_before_anything, setup, teardown),
		cmocka_unit_test_setup_teardown(receipt_round_trips, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(unpinned_signer_is_signer_changed,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    symlinks_in_the_data_dir_are_not_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(read_only_directories_are_removed,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    receipt_lists_only_empty_directories, setup, teardown),
		cmocka_unit_test_setup_teardown(renamed_to_nfd_is_noticed, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(another_users_lock_is_refused,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(large_files_handed_to_writeback,
		    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
