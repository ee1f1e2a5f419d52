/*
 * The tamper matrix (issue 7): a small pack is signed through the library
 * as .tar.gz, .tar and .zip; then every byte of each .sig (outside the
 * unauthenticated keyid member) and the archive bytes are flipped one at a
 * time with several masks, and ps_verify must refuse every time, with a
 * well-formed error, and never crash.  One process, no CLI runs.
 *
 * PS_TAMPER_STRIDE=N (environment) tries only every Nth position: for a
 * quick run under valgrind, e.g.
 *   PS_TAMPER_STRIDE=29 valgrind -q --error-exitcode=99 \
 *       --leak-check=full --errors-for-leak-kinds=definite \
 *       build/tests/test_tamper
 */
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
#include <time.h>
#include <unistd.h>

#include "keys/keys.h"

#define PACK "examples/packs/soyapack-research-summarizer"
/* At least this many archive positions; all of them when the archive is
 * no larger. */
#define ARCHIVE_SAMPLE 1500
/* Under AddressSanitizer a verification costs ~50 times more: the unit-asan
 * run tries every 31st position (a prime, so the sample drifts across the
 * JSON and tar structure); the plain run tries them all. */
#if defined(__SANITIZE_ADDRESS__)
#define DEFAULT_STRIDE 31
#else
#define DEFAULT_STRIDE 1
#endif

static const unsigned char masks[] = { 0x01, 0x20, 0x80 };

struct fixture {
	char dir[64];
	ps_seckey *key;
	ps_trust *trust;
	size_t stride;
};

#define MAX_CODES 32

/* What the flips of one file gave. */
struct counts {
	size_t tried, refused, keyid_tried, keyid_accepted;
	size_t ncodes;
	char codes[MAX_CODES][PS_ERROR_CODE_MAX];
	size_t code_count[MAX_CODES];
	ps_status code_status[MAX_CODES];
};

static double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
run(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	ps_pubkey *pub = NULL;
	const char *stride = getenv("PS_TAMPER_STRIDE");
	ps_error err;

	assert_non_null(f);
	strcpy(f->dir, "/tmp/ps-tamper-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	run("cp -R '%s' '%s/pack'", PACK, f->dir);
	/* A zip made by another tool, signed as it is. */
	run("cd '%s/pack' && zip -qrX ../p.zip .", f->dir);
	assert_int_equal(ps_seckey_generate(&f->key, &err), 0);
	assert_int_equal(ps_seckey_public(f->key, &pub, &err), 0);
	assert_int_equal(ps_trust_from_pubkey(pub, "tamper.pub", &f->trust,
	    &err), 0);
	ps_pubkey_free(pub);
	f->stride = stride != NULL && atoi(stride) > 0 ? (size_t)atoi(stride) :
	    DEFAULT_STRIDE;
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

/* Signs the fixture's pack into `name` (a directory run), or signs the
 * existing archive `name` as it is; fills `archive`. */
static void
sign_one(struct fixture *f, const char *name, int from_dir, char *archive,
    size_t size)
{
	char pack[128];
	ps_sign_options o;
	ps_sign_result *r = NULL;
	ps_error err;

	snprintf(archive, size, "%s/%s", f->dir, name);
	snprintf(pack, sizeof(pack), "%s/pack", f->dir);
	ps_sign_options_init(&o);
	if (from_dir) {
		o.output = archive;
		if (ps_compression_from_name(name, &o.pack.compression) != 0)
			fail_msg("no compression for %s", name);
	}
	if (ps_sign(from_dir ? pack : archive, f->key, &o, &r, &err) != 0)
		fail_msg("ps_sign %s: %s %s", name, err.code, err.message);
	ps_sign_result_free(r);
}

static unsigned char *
slurp(const char *path, size_t *len)
{
	struct stat sb;
	unsigned char *buf;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &sb), 0);
	buf = malloc((size_t)sb.st_size + 1);
	assert_non_null(buf);
	assert_int_equal(read(fd, buf, (size_t)sb.st_size), sb.st_size);
	close(fd);
	*len = (size_t)sb.st_size;
	return buf;
}

static int
code_well_formed(const char *code)
{
	size_t i;

	if (code[0] < 'a' || code[0] > 'z')
		return 0;
	for (i = 1; code[i] != '\0'; i++) {
		if (!((code[i] >= 'a' && code[i] <= 'z') ||
		    (code[i] >= '0' && code[i] <= '9') || code[i] == '_'))
			return 0;
	}
	return 1;
}

/* ps_verify of `archive` against the fixture's key: 0 or -1; a failure
 * must come with a well-formed code and message. */
static int
verify(const struct fixture *f, const char *archive, const char *what,
    size_t pos, unsigned mask, ps_error *out)
{
	ps_verify_options o;
	ps_verify_result *r = NULL;
	ps_error err;
	int rc;

	ps_verify_options_init(&o);
	o.trust = f->trust;
	ps_error_clear(&err);
	rc = ps_verify(archive, &o, &r, &err);
	ps_verify_result_free(r);
	if (rc == 0)
		return 0;
	if (rc != -1 || !code_well_formed(err.code) || err.message[0] == '\0' ||
	    err.status == PS_STATUS_OK)
		fail_msg("%s byte %zu ^ 0x%02x: rc %d, malformed error '%s' '%s'",
		    what, pos, mask, rc, err.code, err.message);
	if (out != NULL)
		*out = err;
	return -1;
}

static void
put_byte(int fd, size_t pos, unsigned char c)
{
	assert_int_equal(pwrite(fd, &c, 1, (off_t)pos), 1);
}

/*
 * Where the "keyid":"..." member of the (single-signature) envelope lies:
 * [*start, *end).  DSSE does not sign it, so flipping its name (the
 * member becomes unknown and is ignored) or its value changes nothing a
 * verifier relies on.
 */
static void
keyid_member(const unsigned char *sig, size_t len, size_t *start,
    size_t *end)
{
	const char *name = "\"keyid\":\"";
	const unsigned char *p = memmem(sig, len, name, strlen(name)), *q;

	assert_non_null(p);
	assert_null(memmem(p + 1, len - (size_t)(p + 1 - sig), name,
	    strlen(name)));
	q = memchr(p + strlen(name), '"', len - (size_t)(p + strlen(name) - sig));
	assert_non_null(q);
	*start = (size_t)(p - sig);
	*end = (size_t)(q + 1 - sig);
}

static void
tally(struct counts *c, const ps_error *err)
{
	size_t i;

	for (i = 0; i < c->ncodes; i++) {
		if (strcmp(c->codes[i], err->code) == 0 &&
		    c->code_status[i] == err->status) {
			c->code_count[i]++;
			return;
		}
	}
	assert_true(c->ncodes < MAX_CODES);
	snprintf(c->codes[c->ncodes], PS_ERROR_CODE_MAX, "%s", err->code);
	c->code_status[c->ncodes] = err->status;
	c->code_count[c->ncodes++] = 1;
}

static void
print_tally(const struct counts *c)
{
	size_t i;

	for (i = 0; i < c->ncodes; i++)
		print_message("    %-28s exit %d  x%zu\n", c->codes[i],
		    (int)c->code_status[i], c->code_count[i]);
}

/* Flips byte `pos` of `target` with masks[first..last), verifying each. */
static void
flip_and_verify(const struct fixture *f, const char *archive,
    const char *target, size_t pos, const unsigned char *orig,
    size_t first, size_t last, struct counts *c, int in_keyid)
{
	int fd = open(target, O_RDWR);
	ps_error err;
	size_t m;
	int rc;

	assert_true(fd >= 0);
	for (m = first; m < last; m++) {
		put_byte(fd, pos, (unsigned char)(orig[pos] ^ masks[m]));
		rc = verify(f, archive, target, pos, masks[m], &err);
		if (in_keyid) {
			c->keyid_tried++;
			c->keyid_accepted += rc == 0;
			continue;
		}
		c->tried++;
		if (rc == 0)
			fail_msg("%s: flipping byte %zu (0x%02x) with 0x%02x "
			    "still verifies", target, pos, orig[pos], masks[m]);
		c->refused++;
		tally(c, &err);
		/* Tampered input is refused (exit 1), never "could not be
		 * done"; archive bytes changed are named as tampering. */
		if (err.status != PS_STATUS_REFUSED || (strcmp(target,
		    archive) == 0 && strcmp(err.code, "subject_mismatch") != 0))
			fail_msg("%s: byte %zu ^ 0x%02x: exit %d %s (%s)", target,
			    pos, masks[m], (int)err.status, err.code,
			    err.message);
	}
	put_byte(fd, pos, orig[pos]);
	close(fd);
}

static void
sig_matrix(const struct fixture *f, const char *archive)
{
	char sig_path[160];
	unsigned char *sig;
	size_t len, pos, ks, ke;
	struct counts c;
	double t0 = now_seconds();

	memset(&c, 0, sizeof(c));
	snprintf(sig_path, sizeof(sig_path), "%s.sig", archive);
	sig = slurp(sig_path, &len);
	keyid_member(sig, len, &ks, &ke);
	assert_int_equal(verify(f, archive, "untouched", 0, 0, NULL), 0);
	for (pos = 0; pos < len; pos += f->stride)
		flip_and_verify(f, archive, sig_path, pos, sig, 0,
		    sizeof(masks), &c, pos >= ks && pos < ke);
	assert_int_equal(verify(f, archive, "restored", 0, 0, NULL), 0);
	assert_int_equal(c.refused, c.tried);
	print_message("%s: %zu bytes, %zu flips refused, keyid member "
	    "[%zu,%zu): %zu flips, %zu accepted (unsigned hint), %.2f s\n",
	    sig_path, len, c.refused, ks, ke, c.keyid_tried, c.keyid_accepted,
	    now_seconds() - t0);
	print_tally(&c);
	free(sig);
}

/* Every position of a small archive, else an evenly spread sample that
 * always includes the first and last 512 bytes. */
static void
archive_matrix(const struct fixture *f, const char *archive)
{
	unsigned char *bytes;
	size_t len, pos, step;
	struct counts c;
	double t0 = now_seconds();

	memset(&c, 0, sizeof(c));
	bytes = slurp(archive, &len);
	step = (len <= ARCHIVE_SAMPLE ? 1 : len / ARCHIVE_SAMPLE) * f->stride;
	for (pos = 0; pos < len; pos++) {
		if (pos % step == 0 || (f->stride == 1 &&
		    (pos < 512 || pos + 512 >= len)))
			flip_and_verify(f, archive, archive, pos, bytes,
			    pos % sizeof(masks), pos % sizeof(masks) + 1, &c, 0);
	}
	assert_int_equal(verify(f, archive, "restored", 0, 0, NULL), 0);
	print_message("%s: %zu bytes, %zu positions, %zu flips refused, "
	    "%.2f s\n", archive, len, c.tried, c.refused, now_seconds() - t0);
	print_tally(&c);
	free(bytes);
}

static void
tamper_tar_gz(void **state)
{
	char archive[128];

	sign_one(*state, "p.tar.gz", 1, archive, sizeof(archive));
	sig_matrix(*state, archive);
	archive_matrix(*state, archive);
}

static void
tamper_tar(void **state)
{
	char archive[128];

	sign_one(*state, "p.tar", 1, archive, sizeof(archive));
	sig_matrix(*state, archive);
	archive_matrix(*state, archive);
}

static void
tamper_zip_signed_as_is(void **state)
{
	char archive[128];

	sign_one(*state, "p.zip", 0, archive, sizeof(archive));
	sig_matrix(*state, archive);
	archive_matrix(*state, archive);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(tamper_tar_gz, setup, teardown),
		cmocka_unit_test_setup_teardown(tamper_tar, setup, teardown),
		cmocka_unit_test_setup_teardown(tamper_zip_signed_as_is, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
