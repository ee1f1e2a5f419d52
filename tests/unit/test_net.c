/*
 * Unit tests against the loopback HTTPS server of the CLI tests
 * (tests/cli/net_server.py, with a CA this test makes and passes
 * explicitly; nothing leaves 127.0.0.1, the server is stopped at the end):
 *
 * - the two https-only guards of net/fetch.c.  CURLOPT_PROTOCOLS_STR and
 *   CURLOPT_REDIR_PROTOCOLS_STR each refuse a redirect to http on its own,
 *   so removing either one leaves every end-to-end test passing; here
 *   libcurl's setopt is wrapped (-Wl,--wrap=dynlib_curl_open) to drop one
 *   option at a time, and the redirect chain must still be refused by the
 *   other;
 * - ps_index_diff_side() (outdated): the entry's size and digest are
 *   compared before a byte of the archive is parsed, which is verified
 *   once (the archive reader and the signature check wrapped and counted).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dynlib/curl.h"
#include "net/fetch.h"
#include "pack/archive.h"

extern char **environ;

#define PACK "examples/packs/research.top-journal-reviewer"

/* ---------------------------------------------------------------- wraps */

int __real_dynlib_curl_open(dynlib_curl *curl, const char *purpose,
    ps_error *err);
int __real_pack_files_archive_open_with(const char *path,
    const pack_archive_open_options *o, ps_pack_files *files,
    ps_digest **digest_out, ps_error *err);
int __real_ps_key_verify_signature(const ps_pubkey *key, const void *msg,
    size_t len, const unsigned char *sig, size_t sig_len);

static CURLoption dropped[2];     /* 0: none */
static __typeof__(curl_easy_setopt) *real_setopt;
static int parses, checks;

/* curl_easy_setopt without the dropped option: every other passes with
 * the type its number says (curl.h's CURLOPTTYPE_* ranges). */
static CURLcode
filtered_setopt(CURL *c, CURLoption option, ...)
{
	va_list ap;
	CURLcode rc;

	va_start(ap, option);
	if (option == dropped[0] || option == dropped[1])
		rc = CURLE_OK;
	else if (option < CURLOPTTYPE_OBJECTPOINT)
		rc = real_setopt(c, option, va_arg(ap, long));
	else if (option < CURLOPTTYPE_OFF_T)
		rc = real_setopt(c, option, va_arg(ap, void *));
	else if (option < CURLOPTTYPE_BLOB)
		rc = real_setopt(c, option, va_arg(ap, curl_off_t));
	else
		rc = real_setopt(c, option, va_arg(ap, void *));
	va_end(ap);
	return rc;
}

int
__wrap_dynlib_curl_open(dynlib_curl *curl, const char *purpose,
    ps_error *err)
{
	int rc = __real_dynlib_curl_open(curl, purpose, err);

	if (rc == 0 && (dropped[0] != 0 || dropped[1] != 0)) {
		real_setopt = curl->easy_setopt;
		curl->easy_setopt = filtered_setopt;
	}
	return rc;
}

int
__wrap_pack_files_archive_open_with(const char *path,
    const pack_archive_open_options *o, ps_pack_files *files,
    ps_digest **digest_out, ps_error *err)
{
	parses++;
	return __real_pack_files_archive_open_with(path, o, files, digest_out,
	    err);
}

int
__wrap_ps_key_verify_signature(const ps_pubkey *key, const void *msg,
    size_t len, const unsigned char *sig, size_t sig_len)
{
	checks++;
	return __real_ps_key_verify_signature(key, msg, len, sig, sig_len);
}

/* --------------------------------------------------------------- server */

struct world {
	char dir[64];
	char path[256];
	char ca[160];
	char base[256];            /* https://127.0.0.1:PORT/files/ */
	char url[192];             /* PORT: the server's origin */
	pid_t server;
	ps_seckey *packer, *indexer;
	ps_trust *policy;
};

static void
run(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("failed: %s", cmd);
}

/* The CA and the server's certificate for IP:127.0.0.1
 * (tests/cli/net_helpers.bash makes the same). */
static void
certificates(const struct world *w)
{
	run("cd '%s' && . '%s/tests/cli/net_helpers.bash' && ca ca && "
	    "cert server IP:127.0.0.1 ca", w->dir, w->path);
}

static void
start_server(struct world *w)
{
	char www[128], pem[128], key[128], port[128], text[16] = "";
	char *argv[] = { "python3", NULL, www, pem, key, port, NULL };
	char script[320];
	FILE *f;
	int i;

	snprintf(script, sizeof(script), "%s/tests/cli/net_server.py", w->path);
	argv[1] = script;
	snprintf(www, sizeof(www), "%s/www", w->dir);
	snprintf(pem, sizeof(pem), "%s/server.pem", w->dir);
	snprintf(key, sizeof(key), "%s/server.key", w->dir);
	snprintf(port, sizeof(port), "%s/port", w->dir);
	assert_int_equal(posix_spawnp(&w->server, "python3", NULL, NULL, argv,
	    environ), 0);
	for (i = 0; i < 100 && text[0] == '\0'; i++) {
		usleep(100000);
		if ((f = fopen(port, "r")) != NULL) {
			if (fgets(text, sizeof(text), f) == NULL)
				text[0] = '\0';
			fclose(f);
		}
	}
	assert_true(text[0] != '\0');
	text[strcspn(text, "\n")] = '\0';
	snprintf(w->url, sizeof(w->url), "https://127.0.0.1:%s", text);
	snprintf(w->base, sizeof(w->base), "%s/files/", w->url);
}

static ps_seckey *
new_key(void)
{
	ps_seckey *k;
	ps_error err;

	assert_int_equal(ps_seckey_generate(&k, &err), 0);
	return k;
}

/* packer signs packs, indexer (role index) the index. */
static ps_trust *
policy_of(const struct world *w)
{
	ps_pubkey *p, *i;
	char *bp, *bi, text[1024];
	ps_trust *t;
	ps_error err;

	assert_int_equal(ps_seckey_public(w->packer, &p, &err), 0);
	assert_int_equal(ps_seckey_public(w->indexer, &i, &err), 0);
	assert_int_equal(ps_pubkey_format_base64(p, &bp, &err), 0);
	assert_int_equal(ps_pubkey_format_base64(i, &bi, &err), 0);
	snprintf(text, sizeof(text), "version: 1\nsigners:\n"
	    "  - identity: packer\n    keys:\n      - key: %s\n"
	    "    packs: [\"*\"]\n"
	    "  - identity: idx\n    roles: [index]\n    keys:\n"
	    "      - key: %s\n    packs: [\"*\"]\nthreshold: 1\n", bp, bi);
	assert_int_equal(ps_trust_load(text, strlen(text), "p.yaml", &t, &err),
	    0);
	free(bp);
	free(bi);
	ps_pubkey_free(p);
	ps_pubkey_free(i);
	return t;
}

/* www/ap-0.2.0.tar.gz and its .sig, signed by packer. */
static void
signed_archive(const struct world *w)
{
	ps_sign_options so;
	ps_sign_result *r = NULL;
	char pack[128], out[160];
	ps_error err;

	snprintf(pack, sizeof(pack), "%s/ap", w->dir);
	run("mkdir -p '%s/www/files' && cp -R '%s/%s' '%s' && chmod -R u+w '%s' "
	    "&& sed -i 's/^version: .*/version: 0.2.0/' '%s/manifest.yml'",
	    w->dir, w->path, PACK, pack, pack, pack);
	snprintf(out, sizeof(out), "%s/www/ap-0.2.0.tar.gz", w->dir);
	ps_sign_options_init(&so);
	so.output = out;
	if (ps_sign(pack, w->packer, &so, &r, &err) != 0)
		fail_msg("sign: %s [%s]", err.message, err.code);
	ps_sign_result_free(r);
}

static int
setup_world(void **state)
{
	struct world *w = calloc(1, sizeof(*w));

	assert_non_null(w);
	assert_non_null(getcwd(w->path, sizeof(w->path)));
	strcpy(w->dir, "/tmp/ps-net-XXXXXX");
	assert_non_null(mkdtemp(w->dir));
	snprintf(w->ca, sizeof(w->ca), "%s/ca.pem", w->dir);
	certificates(w);
	w->packer = new_key();
	w->indexer = new_key();
	w->policy = policy_of(w);
	signed_archive(w);
	start_server(w);
	*state = w;
	return 0;
}

static int
teardown_world(void **state)
{
	struct world *w = *state;
	int status;

	kill(w->server, SIGTERM);
	waitpid(w->server, &status, 0);
	run("rm -rf '%s'", w->dir);
	ps_seckey_free(w->packer);
	ps_seckey_free(w->indexer);
	ps_trust_free(w->policy);
	free(w);
	return 0;
}

/* ------------------------------------------------- https-only redirects */

/* GET `url` with the options `a` and `b` (0: none) dropped; the code. */
static void
fetch_without(const struct world *w, CURLoption a, CURLoption b,
    const char *url, char code[PS_ERROR_CODE_MAX])
{
	ps_fetch_options o;
	net_sink sink = { -1, NULL, 1024 * 1024, 0, "a test allows", NULL, 0,
	    0, 0, NULL };
	ps_error err;
	int rc;

	ps_fetch_options_init(&o);
	o.ca_file = w->ca;
	o.timeout = 20;
	dropped[0] = a;
	dropped[1] = b;
	ps_error_clear(&err);
	rc = net_fetch(&o, url, &sink, &err);
	dropped[0] = dropped[1] = 0;
	snprintf(code, PS_ERROR_CODE_MAX, "%s", rc == 0 ? "" : err.code);
	print_message("# without %d, %d: %s %s\n", (int)a, (int)b, code,
	    rc == 0 ? "" : err.found);
}

/* https -> http: each option alone refuses it; without both libcurl
 * follows it (its default redirect protocols include http), so each of
 * the first two checks tests one guard. */
static void
each_protocol_guard_refuses_a_redirect_to_http(void **state)
{
	struct world *w = *state;
	char url[256], code[PS_ERROR_CODE_MAX];

	snprintf(url, sizeof(url), "%s/tohttp/ap-0.2.0.tar.gz", w->url);
	fetch_without(w, 0, 0, url, code);
	assert_string_equal(code, "url_scheme_refused");
	/* Only CURLOPT_PROTOCOLS_STR left: it covers redirects too. */
	fetch_without(w, CURLOPT_REDIR_PROTOCOLS_STR, 0, url, code);
	assert_string_equal(code, "url_scheme_refused");
	/* Only CURLOPT_REDIR_PROTOCOLS_STR left (the first URL is checked
	 * by net_url_check() before libcurl sees it). */
	fetch_without(w, CURLOPT_PROTOCOLS_STR, 0, url, code);
	assert_string_equal(code, "url_scheme_refused");
	/* Control: with neither, the redirect is followed to http:// on the
	 * TLS port. */
	fetch_without(w, CURLOPT_PROTOCOLS_STR, CURLOPT_REDIR_PROTOCOLS_STR, url,
	    code);
	assert_string_not_equal(code, "url_scheme_refused");
}

/* --------------------------------------------------- outdated's side */

/* An index of www/ap-0.2.0.tar.gz at the server, its entry's size off by
 * `size_delta` and its digest's first byte by `digest_delta`, signed by
 * the index key, verified. */
static ps_index *
index_of(const struct world *w, int size_delta, int digest_delta)
{
	ps_index_build_options bo;
	ps_index_verify_options vo;
	ps_index *ix = NULL, *verified = NULL;
	char archive[160], *text = NULL;
	size_t len;
	ps_error err;

	ps_index_build_options_init(&bo);
	bo.publisher = "idx";
	bo.base_url = w->base;
	bo.trust = w->policy;
	bo.now = (int64_t)time(NULL);
	bo.expires_in = 86400;
	snprintf(archive, sizeof(archive), "%s/www/ap-0.2.0.tar.gz", w->dir);
	assert_int_equal(ps_index_new(&bo, &ix, &err), 0);
	if (ps_index_add(ix, archive, &bo, &err) != 0)
		fail_msg("index add: %s [%s]", err.message, err.code);
	ix->entries[0].size = (uint64_t)((int64_t)ix->entries[0].size +
	    size_delta);
	ix->entries[0].sha256[0] = (unsigned char)(ix->entries[0].sha256[0] +
	    digest_delta);
	assert_int_equal(ps_index_sign(ix, w->indexer, &text, &len, &err), 0);
	ps_index_verify_options_init(&vo);
	vo.trust = w->policy;
	if (ps_index_verify(text, len, "index.json", &vo, &verified, &err) != 0)
		fail_msg("index verify: %s [%s]", err.message, err.code);
	ps_index_free(ix);
	free(text);
	return verified;
}

/* ps_index_diff_side() of the index's only entry: its code ("" when it
 * opened), the parses and signature checks it took. */
static void
open_side(const struct world *w, const ps_index *ix, char code[PS_ERROR_CODE_MAX])
{
	ps_diff_options o;
	ps_fetch_options fo;
	ps_diff_side *side = NULL;
	ps_error err;
	int rc;

	ps_diff_options_init(&o);
	o.verify.trust = w->policy;
	ps_fetch_options_init(&fo);
	fo.ca_file = w->ca;
	fo.timeout = 20;
	parses = checks = 0;
	rc = ps_index_diff_side(ix, &ix->entries[0], &o, &fo, &side, &err);
	snprintf(code, PS_ERROR_CODE_MAX, "%s", rc == 0 ? "" : err.code);
	if (rc == 0)
		assert_non_null(side);
	ps_diff_side_free(side);
}

/* ps_index_fetch_entry() of the index's only entry into the world's
 * directory: its code. */
static void
fetch_entry(const struct world *w, const ps_index *ix,
    char code[PS_ERROR_CODE_MAX])
{
	ps_verify_options vo;
	ps_fetch_options fo;
	ps_verify_result *r = NULL;
	char path[160];
	ps_error err;
	int rc;

	ps_verify_options_init(&vo);
	vo.trust = w->policy;
	ps_fetch_options_init(&fo);
	fo.ca_file = w->ca;
	fo.timeout = 20;
	snprintf(path, sizeof(path), "%s/fetched.tar.gz", w->dir);
	parses = 0;
	rc = ps_index_fetch_entry(ix, &ix->entries[0], path, &vo, &fo, &r, &err);
	snprintf(code, PS_ERROR_CODE_MAX, "%s", rc == 0 ? "" : err.code);
	ps_verify_result_free(r);
	(void)unlink(path);
}

/* outdated: verified once (one parse, one signature check), the side
 * built in that pass. */
static void
outdated_side_is_verified_once(void **state)
{
	struct world *w = *state;
	ps_index *ix = index_of(w, 0, 0);
	char code[PS_ERROR_CODE_MAX];

	open_side(w, ix, code);
	assert_string_equal(code, "");
	assert_int_equal(parses, 1);
	assert_int_equal(checks, 1);
	ps_index_free(ix);
}

/* Another size (longer or shorter body) or digest than the entry's:
 * index_mismatch before a byte of the archive is parsed. */
static void
outdated_compares_the_entry_before_parsing(void **state)
{
	struct world *w = *state;
	static const int cases[][2] = { { -1, 0 }, { 1, 0 }, { 0, 1 } };
	char code[PS_ERROR_CODE_MAX];
	ps_index *ix;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ix = index_of(w, cases[i][0], cases[i][1]);
		open_side(w, ix, code);
		assert_string_equal(code, "index_mismatch");
		assert_int_equal(parses, 0);
		fetch_entry(w, ix, code);
		assert_string_equal(code, "index_mismatch");
		assert_int_equal(parses, 0);
		ps_index_free(ix);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_protocol_guard_refuses_a_redirect_to_http),
		cmocka_unit_test(outdated_side_is_verified_once),
		cmocka_unit_test(outdated_compares_the_entry_before_parsing),
	};

	return cmocka_run_group_tests(tests, setup_world, teardown_world);
}
