/* Unit tests: index/ (the signed pack index: payload, URLs, resolving,
 * publishing, signing) and install/indexstate.c (DIR/index-state.json). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "index/index.h"
#include "util/sha256.h"

#define FP_A "SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
#define FP_B "SHA256:BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"
#define HEX64 "0123456789abcdef0123456789abcdef" \
    "0123456789abcdef0123456789abcdef"
#define ISSUED "2026-01-01T00:00:00Z"
#define T2026 1767225600LL              /* ISSUED */
#define BASE ",\"base_url\":\"https://e.org/r/\""

static char tmpdir[] = "/tmp/ps-test-index.XXXXXX";

static int
setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* ------------------------------------------------------------ builders */

/* One entry as JSON; `signers` NULL: [FP_A]; `more` appended fields.  A
 * `url` without an archive suffix gets ".tar" (every archive URL names
 * one, index.md section 3); one starting with '=' is taken as it is. */
static char *
entry_json(const char *format, const char *id, const char *version,
    const char *url, const char *signers, const char *more)
{
	size_t n = strlen(url);
	int named = url[0] == '=' || (n > 4 && (strcmp(url + n - 4, ".tar") ==
	    0 || strcmp(url + n - 4, ".zip") == 0)) || strstr(url, ".tar.") !=
	    NULL;
	char *out = NULL;

	assert_true(asprintf(&out, "{\"archive_digest\":\"sha256:" HEX64 "\","
	    "\"format\":\"%s\",\"id\":\"%s\",\"published\":\"" ISSUED "\","
	    "\"signers\":%s,\"size\":10,\"tree_digest\":\"sha256:" HEX64 "\","
	    "\"url\":\"%s%s\",\"version\":\"%s\"%s}", format, id,
	    signers != NULL ? signers : "[\"" FP_A "\"]", url + (url[0] == '='), named ? "" :
	    ".tar", version, more != NULL ? more : "") > 0);
	return out;
}

static char *
entry_simple(const char *id, const char *version, const char *url)
{
	return entry_json("agentpack", id, version, url, NULL, NULL);
}

/* A whole payload; `extra` top-level fields; `packs` frees. */
static char *
index_json(const char *version, const char *extra, char *packs)
{
	char *out = NULL;

	assert_true(asprintf(&out, "{\"packsign_index\":1,\"version\":%s,"
	    "\"publisher\":\"alice\",\"issued\":\"" ISSUED "\",\"expires\":"
	    "\"2027-01-01T00:00:00Z\"%s,\"packs\":[%s]}", version,
	    extra != NULL ? extra : "", packs != NULL ? packs : "") > 0);
	free(packs);
	return out;
}

/* "a,b" of two entries, freeing both. */
static char *
join(char *a, char *b)
{
	char *out = NULL;

	assert_true(asprintf(&out, "%s,%s", a, b) > 0);
	free(a);
	free(b);
	return out;
}

/* `text` with its first `from` replaced by `to` (text freed). */
static char *
subst(char *text, const char *from, const char *to)
{
	char *at = strstr(text, from), *out = NULL;

	assert_non_null(at);
	assert_true(asprintf(&out, "%.*s%s%s", (int)(at - text), text, to,
	    at + strlen(from)) > 0);
	free(text);
	return out;
}

static ps_index *
parse_ok(char *json)
{
	ps_index *ix = NULL;
	ps_error err;

	ps_error_clear(&err);
	if (index_payload_parse((const unsigned char *)json, strlen(json), "t",
	    &ix, &err) != 0)
		fail_msg("refused: %s: %s", err.code, err.message);
	free(json);
	return ix;
}

static void
parse_refused(char *json, const char *code)
{
	ps_index *ix = (ps_index *)&ix;
	ps_error err;

	ps_error_clear(&err);
	if (index_payload_parse((const unsigned char *)json, strlen(json), "t",
	    &ix, &err) == 0)
		fail_msg("accepted: %s", json);
	assert_null(ix);
	assert_string_equal(err.code, code);
	assert_int_equal(err.status, PS_STATUS_REFUSED);
	free(json);
}

/* acme.tool 1.0.0, 1.1.0 (yanked), 1.2.0, 2.0.0-rc.1; acme.two as an
 * agentpack and a holon. */
static ps_index *
sample(void)
{
	char *packs = join(join(entry_simple("acme.tool", "1.2.0", "t-1.2.0"),
	    entry_json("agentpack", "acme.tool", "1.1.0", "t-1.1.0", NULL,
	    ",\"yanked\":\"broken\"")), join(entry_simple("acme.tool",
	    "2.0.0-rc.1", "t-2rc"), entry_simple("acme.tool", "1.0.0",
	    "t-1.0.0")));

	packs = join(packs, join(entry_simple("acme.two", "1.0.0", "a"),
	    entry_json("holon", "acme.two", "1.0.0", "h", NULL, NULL)));
	return parse_ok(index_json("3", BASE, packs));
}

/* ------------------------------------------------------------- payload */

static const char canonical[] = "{\"base_url\":\"https://e.org/r/\","
    "\"expires\":\"2027-01-01T00:00:00Z\",\"issued\":\"" ISSUED "\","
    "\"packs\":[{\"archive_digest\":\"sha256:" HEX64 "\",\"format\":"
    "\"agentpack\",\"id\":\"acme.a\",\"published\":\"" ISSUED "\","
    "\"signers\":[\"" FP_A "\",\"" FP_B "\"],\"size\":10,\"tree_digest\":"
    "\"sha256:" HEX64 "\",\"url\":\"x/a-1.tar\",\"version\":\"1.0.0\","
    "\"yanked\":\"bad build\"}],\"packsign_index\":1,\"publisher\":"
    "\"alice\",\"version\":7}";

static void
payload_round_trip_is_canonical(void **state)
{
	char *in, *out = NULL;
	ps_index *ix;
	size_t len = 0;
	ps_error err;

	(void)state;
	/* Another member order and whitespace: the same canonical bytes. */
	in = index_json("7", " , \"base_url\" : \"https://e.org/r/\"",
	    entry_json("agentpack", "acme.a", "1.0.0", "x/a-1.tar",
	    "[ \"" FP_A "\" , \"" FP_B "\" ]", ",\"yanked\":\"bad build\""));
	ix = parse_ok(in);
	assert_int_equal(ix->version, 7);
	assert_int_equal(ix->issued, T2026);
	assert_string_equal(ix->entries[0].archive_url,
	    "https://e.org/r/x/a-1.tar");
	assert_int_equal(ix->entries[0].signer_count, 2);
	assert_int_equal(index_payload_write(ix, &out, &len, &err), 0);
	assert_string_equal(out, canonical);
	assert_int_equal(len, strlen(canonical));
	ps_index_free(ix);
	ix = NULL;
	assert_int_equal(index_payload_parse((const unsigned char *)out, len,
	    "t", &ix, &err), 0);
	free(out);
	assert_int_equal(index_payload_write(ix, &out, &len, &err), 0);
	assert_string_equal(out, canonical);
	free(out);
	ps_index_free(ix);
}

static void
payload_entries_are_sorted(void **state)
{
	ps_index *ix;

	(void)state;
	ix = sample();
	assert_int_equal(ix->entry_count, 6);
	assert_string_equal(ix->entries[0].version, "1.0.0");
	assert_string_equal(ix->entries[1].version, "1.1.0");
	assert_string_equal(ix->entries[2].version, "1.2.0");
	assert_string_equal(ix->entries[3].version, "2.0.0-rc.1");
	assert_int_equal(ix->entries[4].format, PS_FORMAT_AGENTPACK);
	assert_int_equal(ix->entries[5].format, PS_FORMAT_HOLON);
	ps_index_free(ix);
}

static char *
many_signers(size_t n)
{
	char *out = malloc(n * 54 + 3), *p = out;
	size_t i;

	assert_non_null(out);
	*p++ = '[';
	for (i = 0; i < n; i++)
		p += sprintf(p, "%s\"SHA256:%.41s%c%c\"", i > 0 ? "," : "",
		    FP_A + 7, (char)('A' + i / 26), (char)('A' + i % 26));
	strcpy(p, "]");
	return out;
}

static void
payload_refusals(void **state)
{
	char *sixty_four = many_signers(64), *sixty_five = many_signers(65);

	(void)state;
	ps_index_free(parse_ok(index_json("1", NULL, entry_json("agentpack",
	    "acme.a", "1.0.0", "https://e.org/a", sixty_four, NULL))));
	parse_refused(index_json("1", NULL, entry_json("agentpack", "acme.a",
	    "1.0.0", "https://e.org/a", sixty_five, NULL)), "index_invalid");
	free(sixty_four);
	free(sixty_five);
	parse_refused(index_json("1", ",\"x\":1", NULL), "index_invalid");
	parse_refused(index_json("1", NULL, entry_json("agentpack", "acme.a",
	    "1.0.0", "https://e.org/a", NULL, ",\"x\":1")), "index_invalid");
	parse_refused(index_json("1", ",\"version\":2", NULL),
	    "index_invalid");
	parse_refused(subst(index_json("1", NULL, entry_simple("acme.a",
	    "1.0.0", "https://e.org/a")), "0123456789abcdef",
	    "0123456789ABCDEF"), "index_invalid");
	parse_refused(subst(index_json("1", NULL, NULL), "01T00", "01t00"),
	    "index_invalid");
	parse_refused(subst(index_json("1", NULL, NULL), "00Z\",\"exp",
	    "00+00:00\",\"exp"), "index_invalid");
	parse_refused(index_json("1", NULL, join(entry_simple("acme.a",
	    "1.0.0", "https://e.org/a"), entry_simple("acme.a", "1.0.0+b",
	    "https://e.org/b"))), "index_invalid");
	parse_refused(index_json("1", NULL, entry_json("agentpack", "acme.a",
	    "1.0.0", "https://e.org/a", "[\"" FP_B "\",\"" FP_A "\"]", NULL)),
	    "index_invalid");
	parse_refused(index_json("1", NULL, entry_json("agentpack", "acme.a",
	    "1.0.0", "https://e.org/a", "[\"" FP_A "\",\"" FP_A "\"]", NULL)),
	    "index_invalid");
	parse_refused(index_json("1", NULL, entry_json("agentpack", "acme.a",
	    "1.0.0", "https://e.org/a", "[]", NULL)), "index_invalid");
	parse_refused(subst(index_json("1", NULL, entry_simple("acme.a",
	    "1.0.0", "https://e.org/a")), "\"size\":10", "\"size\":0"),
	    "index_invalid");
	parse_refused(index_json("0", NULL, NULL), "index_invalid");
	parse_refused(index_json("9007199254740992", NULL, NULL),
	    "index_invalid");
	parse_refused(subst(index_json("1", NULL, NULL), "\"packsign_index\":1",
	    "\"packsign_index\":2"), "index_invalid");
	parse_refused(subst(index_json("1", NULL, NULL), "2027-01-01",
	    "2026-01-01"), "index_invalid");
	parse_refused(index_json("1", NULL, entry_simple("acme.a", "1.0",
	    "https://e.org/a")), "index_invalid");
	parse_refused(index_json("1", NULL, entry_json("tarball", "acme.a",
	    "1.0.0", "https://e.org/a", NULL, NULL)), "index_invalid");
	parse_refused(index_json("1", NULL, entry_json("agentpack", "acme.a",
	    "1.0.0", "https://e.org/a", NULL, ",\"yanked\":\"\"")),
	    "index_invalid");
	parse_refused(strdup("[1]"), "index_invalid");
	parse_refused(strdup("{"), "index_invalid");
}

static void
payload_url_refusals(void **state)
{
	(void)state;
	parse_refused(index_json("1", NULL, entry_simple("acme.a", "1.0.0",
	    "a.tar")), "index_url_invalid");
	parse_refused(index_json("1", BASE, entry_simple("acme.a", "1.0.0",
	    "x/../a.tar")), "index_url_invalid");
	parse_refused(index_json("1", BASE, entry_simple("acme.a", "1.0.0",
	    "../a.tar")), "index_url_invalid");
	parse_refused(index_json("1", BASE, entry_simple("acme.a", "1.0.0",
	    "%2e%2E/a.tar")), "index_url_invalid");
	parse_refused(index_json("1", BASE, entry_simple("acme.a", "1.0.0",
	    "a%2Fb.tar")), "index_url_invalid");
	parse_refused(index_json("1", BASE, entry_simple("acme.a", "1.0.0",
	    "=a.txt.gz")), "index_url_invalid");
	parse_refused(index_json("1", BASE, entry_simple("acme.a", "1.0.0",
	    "a%zz.tar")), "index_url_invalid");
	parse_refused(index_json("1", BASE, entry_simple("acme.a", "1.0.0",
	    "a%2")), "index_url_invalid");
	parse_refused(index_json("1", ",\"base_url\":\"https://e.org/r\"",
	    NULL), "index_url_invalid");
	parse_refused(index_json("1", ",\"base_url\":\"http://e.org/r/\"",
	    NULL), "index_url_invalid");
	parse_refused(index_json("1", NULL, entry_simple("acme.a", "1.0.0",
	    "https://e.org/a?x=1")), "index_url_invalid");
	parse_refused(index_json("1", NULL, entry_simple("acme.a", "1.0.0",
	    "=https://e.org/d/")), "index_url_invalid");
}

/* ---------------------------------------------------------------- URLs */

static int
compose(const char *url, const char *base, char **archive_url)
{
	ps_index_entry e;
	ps_error err;
	int rc;

	memset(&e, 0, sizeof(e));
	e.url = strdup(url);
	ps_error_clear(&err);
	rc = index_entry_compose_url(&e, base, "t", &err);
	if (rc != 0)
		assert_string_equal(err.code, "index_url_invalid");
	*archive_url = rc == 0 ? strdup(e.archive_url) : NULL;
	index_entry_clear(&e);
	return rc;
}

static void
url_composition(void **state)
{
	static const char *const bad[] = { "/a.tar", "a//b", "./a", "a/.",
	    "a b", "a?x", "https://E.org/a", "https://e.org", "https:///a",
	    "https://u@e.org/a", "http://e.org/a", "", NULL };
	char *url, *longer = malloc(PS_INDEX_MAX_URL + 1);
	ps_error err;
	size_t i;

	(void)state;
	assert_int_equal(compose("x/a%2B1.tar", "https://e.org/r/", &url), 0);
	assert_string_equal(url, "https://e.org/r/x/a%2B1.tar");
	free(url);
	assert_int_equal(compose("https://cdn.e.org:8443/a/b.zip",
	    "https://e.org/r/", &url), 0);
	assert_string_equal(url, "https://cdn.e.org:8443/a/b.zip");
	free(url);
	assert_int_equal(compose("https://[::1]/a.tar", NULL, &url), 0);
	free(url);
	assert_int_equal(compose("a.tar", NULL, &url), -1);
	for (i = 0; bad[i] != NULL; i++) {
		if (compose(bad[i], "https://e.org/r/", &url) == 0)
			fail_msg("accepted %s", bad[i]);
	}
	/* base_url (16 bytes) + url: at most 2048 bytes */
	memset(longer, 'a', PS_INDEX_MAX_URL);
	memcpy(longer + PS_INDEX_MAX_URL - 4, ".tar", 4);
	longer[PS_INDEX_MAX_URL] = '\0';
	assert_int_equal(compose(longer + 16, "https://e.org/r/", &url), 0);
	assert_int_equal(strlen(url), PS_INDEX_MAX_URL);
	free(url);
	assert_int_equal(compose(longer + 15, "https://e.org/r/", &url), -1);
	free(longer);
	ps_error_clear(&err);
	/* A host's root is a base URL (index.md section 3: PATH may be
	 * empty): its archives are https://e.org/NAME. */
	assert_int_equal(index_base_url_check("https://e.org/", "t", &err), 0);
	assert_int_equal(index_base_url_check("https://e.org:8443/", "t", &err),
	    0);
	assert_int_equal(compose("a.tar", "https://e.org/", &url), 0);
	assert_string_equal(url, "https://e.org/a.tar");
	free(url);
	assert_int_equal(index_base_url_check("https://e.org", "t", &err), -1);
	assert_int_equal(index_base_url_check("https://e.org//", "t", &err), -1);
	assert_int_equal(index_base_url_check("https:///", "t", &err), -1);
	assert_int_equal(index_base_url_check("https://e.org/a%20b/", "t",
	    &err), 0);
	assert_int_equal(index_base_url_check("https://e.org/a#/", "t", &err),
	    -1);
	assert_string_equal(err.code, "index_url_invalid");
}

/* ----------------------------------------------------------- resolving */

static void
resolve_ok(const ps_index *ix, const char *spec, int allow_yanked,
    const char *want)
{
	const ps_index_entry *e = NULL;
	ps_error err;

	ps_error_clear(&err);
	if (ps_index_resolve(ix, "acme.tool", spec, allow_yanked, &e,
	    &err) != 0)
		fail_msg("%s: %s: %s", spec != NULL ? spec : "(null)", err.code,
		    err.message);
	assert_string_equal(e->version, want);
}

static void
resolve_refused(const ps_index *ix, const char *id, const char *spec,
    int allow_yanked, const char *code)
{
	const ps_index_entry *e = (const ps_index_entry *)&e;
	ps_error err;

	ps_error_clear(&err);
	assert_int_equal(ps_index_resolve(ix, id, spec, allow_yanked, &e,
	    &err), -1);
	assert_null(e);
	assert_string_equal(err.code, code);
	assert_int_equal(err.status, PS_STATUS_REFUSED);
}

static void
resolve(void **state)
{
	ps_index *ix = sample();

	(void)state;
	resolve_ok(ix, "1.0.0", 0, "1.0.0");
	resolve_ok(ix, "2.0.0-rc.1", 0, "2.0.0-rc.1");
	resolve_ok(ix, "^1.0.0", 0, "1.2.0");
	resolve_ok(ix, ">=1.0.0 <1.2.0", 0, "1.0.0");   /* 1.1.0 yanked */
	resolve_ok(ix, "*", 0, "1.2.0");                /* no prerelease */
	resolve_ok(ix, NULL, 0, "1.2.0");
	resolve_ok(ix, "", 0, "1.2.0");
	resolve_ok(ix, "1.1.0", 1, "1.1.0");
	resolve_refused(ix, "acme.tool", "1.1.0", 0, "version_yanked");
	/* --allow-yanked is for an exact version only */
	resolve_refused(ix, "acme.tool", "~1.1.0", 1, "index_no_match");
	resolve_refused(ix, "acme.tool", "3.0.0", 0, "index_no_match");
	resolve_refused(ix, "acme.tool", "^3", 0, "index_no_match");
	resolve_refused(ix, "acme.tool", "not a range", 0,
	    "index_range_invalid");
	resolve_refused(ix, "acme.none", "*", 0, "index_not_listed");
	resolve_refused(ix, "acme.two", "1.0.0", 0, "index_ambiguous");
	resolve_refused(ix, "acme.two", "*", 0, "index_ambiguous");
	ps_index_free(ix);
}

static void
newest(void **state)
{
	ps_index *ix = sample();
	ps_error err;

	(void)state;
	assert_string_equal(ps_index_newest(ix, PS_FORMAT_AGENTPACK,
	    "acme.tool")->version, "1.2.0");
	assert_null(ps_index_newest(ix, PS_FORMAT_HOLON, "acme.tool"));
	assert_null(ps_index_newest(ix, PS_FORMAT_AGENTPACK, "acme.none"));
	assert_string_equal(ps_index_newest(ix, PS_FORMAT_HOLON,
	    "acme.two")->url, "h.tar");
	ps_error_clear(&err);
	assert_int_equal(ps_index_yank(ix, "acme.tool", "1.2.0", "oops",
	    &err), 0);
	assert_string_equal(ps_index_newest(ix, PS_FORMAT_AGENTPACK,
	    "acme.tool")->version, "1.0.0");
	ps_index_free(ix);
}

static void
version_compare(void **state)
{
	(void)state;
	assert_true(ps_version_compare("1.0.0", "1.0.1") < 0);
	assert_true(ps_version_compare("1.10.0", "1.9.0") > 0);
	assert_true(ps_version_compare("1.0.0-rc.1", "1.0.0") < 0);
	assert_true(ps_version_compare("1.0.0-alpha", "1.0.0-alpha.1") < 0);
	assert_true(ps_version_compare("1.0.0-2", "1.0.0-10") < 0);
	assert_true(ps_version_compare("1.0.0-beta", "1.0.0-2") > 0);
	assert_int_equal(ps_version_compare("1.0.0+a", "1.0.0+b"), 0);
	assert_int_equal(ps_version_compare("1.0.0", "1.0.0"), 0);
	/* not SemVer: after every version, then by bytes */
	assert_true(ps_version_compare("1.0", "9.9.9") > 0);
	assert_true(ps_version_compare("9.9.9", "x") < 0);
	assert_true(ps_version_compare("a", "b") < 0);
}

/* ---------------------------------------------------------- publishing */

static void
build_options(ps_index_build_options *o, const ps_index *previous,
    const char *publisher)
{
	ps_index_build_options_init(o);
	o->previous = previous;
	o->publisher = publisher;
	o->now = T2026 + 86400;
	o->expires_in = 86400;
}

static void
new_index(void **state)
{
	static const char empty[] = "{\"expires\":\"2026-01-03T00:00:00Z\","
	    "\"issued\":\"2026-01-02T00:00:00Z\",\"packs\":[],"
	    "\"packsign_index\":1,\"publisher\":\"alice\",\"version\":1}";
	ps_index_build_options o;
	ps_index *ix = NULL;
	char *out = NULL;
	size_t len;
	ps_error err;

	(void)state;
	build_options(&o, NULL, "alice");
	ps_error_clear(&err);
	assert_int_equal(ps_index_new(&o, &ix, &err), 0);
	assert_int_equal(ix->version, 1);
	assert_null(ix->base_url);
	assert_int_equal(index_payload_write(ix, &out, &len, &err), 0);
	assert_string_equal(out, empty);
	free(out);
	ps_index_free(ix);
	build_options(&o, NULL, "not an identity");
	assert_int_equal(ps_index_new(&o, &ix, &err), -1);
	assert_null(ix);
	build_options(&o, NULL, "alice");
	o.expires_in = 0;
	assert_int_equal(ps_index_new(&o, &ix, &err), -1);
	assert_null(ix);
}

static void
new_index_carries_forward(void **state)
{
	ps_index *prev = sample(), *ix = NULL;
	ps_index_build_options o;
	ps_error err;
	size_t i;

	(void)state;
	build_options(&o, prev, "alice");
	ps_error_clear(&err);
	assert_int_equal(ps_index_new(&o, &ix, &err), 0);
	assert_int_equal(ix->version, prev->version + 1);
	assert_int_equal(ix->issued, o.now);
	assert_int_equal(ix->expires, o.now + 86400);
	assert_string_equal(ix->base_url, "https://e.org/r/");
	assert_int_equal(ix->entry_count, prev->entry_count);
	for (i = 0; i < ix->entry_count; i++) {
		assert_int_equal(ix->entries[i].published, T2026);
		assert_string_equal(ix->entries[i].archive_url,
		    prev->entries[i].archive_url);
	}
	assert_string_equal(ix->entries[1].yanked, "broken");
	ps_index_free(ix);
	/* A new base URL: the relative URLs compose with it. */
	o.base_url = "https://mirror.e.org/x/";
	assert_int_equal(ps_index_new(&o, &ix, &err), 0);
	assert_string_equal(ix->entries[0].archive_url,
	    "https://mirror.e.org/x/t-1.0.0.tar");
	ps_index_free(ix);
	o.base_url = "https://mirror.e.org/x";
	assert_int_equal(ps_index_new(&o, &ix, &err), -1);
	assert_string_equal(err.code, "index_url_invalid");
	build_options(&o, prev, "bob");
	assert_int_equal(ps_index_new(&o, &ix, &err), -1);
	assert_null(ix);
	assert_string_equal(err.code, "index_publisher_mismatch");
	prev->version = PS_INDEX_VERSION_MAX;
	build_options(&o, prev, "alice");
	assert_int_equal(ps_index_new(&o, &ix, &err), -1);
	assert_string_equal(err.code, "index_version_exhausted");
	ps_index_free(prev);
}

static void
yank_and_remove(void **state)
{
	ps_index *ix = sample();
	const ps_index_entry *e;
	ps_error err;

	(void)state;
	ps_error_clear(&err);
	assert_int_equal(ps_index_yank(ix, "acme.tool", "1.0.0", "CVE-1 fixed "
	    "in 1.2.0", &err), 0);
	e = ps_index_find(ix, PS_FORMAT_AGENTPACK, "acme.tool", "1.0.0");
	assert_string_equal(e->yanked, "CVE-1 fixed in 1.2.0");
	assert_int_equal(ps_index_yank(ix, "acme.tool", "1.0.0", "again",
	    &err), 0);
	assert_string_equal(e->yanked, "again");
	assert_int_equal(ps_index_yank(ix, "acme.tool", "9.0.0", "x", &err), -1);
	assert_string_equal(err.code, "index_not_listed");
	assert_int_equal(ps_index_yank(ix, "acme.tool", "1.0.0", "", &err), -1);
	assert_string_equal(err.code, "index_reason_invalid");
	assert_int_equal(ps_index_yank(ix, "acme.tool", "1.0.0", "a\nb",
	    &err), -1);
	assert_string_equal(err.code, "index_reason_invalid");
	assert_int_equal(ps_index_yank(ix, "acme.two", "1.0.0", "x", &err), -1);
	assert_string_equal(err.code, "index_ambiguous");
	assert_int_equal(ps_index_remove(ix, "acme.tool", "1.1.0", &err), 0);
	assert_int_equal(ix->entry_count, 5);
	assert_null(ps_index_find(ix, PS_FORMAT_AGENTPACK, "acme.tool",
	    "1.1.0"));
	assert_string_equal(ix->entries[1].version, "1.2.0");
	assert_int_equal(ps_index_remove(ix, "acme.tool", "1.1.0", &err), -1);
	assert_string_equal(err.code, "index_not_listed");
	ps_index_free(ix);
}

/* Signed by a key of the index role, verified; the same bytes twice. */
static void
sign_and_verify(void **state)
{
	ps_index_verify_options vo;
	ps_index *ix = sample(), *got = NULL;
	ps_seckey *sk = NULL;
	ps_pubkey *pk = NULL;
	ps_trust *trust = NULL;
	char *line = NULL, *policy = NULL, *env = NULL, *env2 = NULL;
	char *payload = NULL;
	unsigned char sha[PS_SHA256_LEN];
	size_t len, len2, plen;
	ps_error err;

	(void)state;
	ps_error_clear(&err);
	assert_int_equal(ps_seckey_generate(&sk, &err), 0);
	assert_int_equal(ps_seckey_public(sk, &pk, &err), 0);
	assert_int_equal(ps_pubkey_format_base64(pk, &line, &err), 0);
	assert_true(asprintf(&policy, "version: 1\nsigners:\n  - identity: "
	    "alice\n    keys:\n      - key: %s\n    packs: [\"acme.*\"]\n"
	    "    roles: [index]\n", line) > 0);
	assert_int_equal(ps_trust_load(policy, strlen(policy), "p", &trust,
	    &err), 0);
	assert_int_equal(ps_index_sign(ix, sk, &env, &len, &err), 0);
	assert_int_equal(ps_index_sign(ix, sk, &env2, &len2, &err), 0);
	assert_int_equal(len, len2);
	assert_memory_equal(env, env2, len);
	ps_index_verify_options_init(&vo);
	vo.trust = trust;
	vo.at = T2026 + 60;
	assert_int_equal(ps_index_verify(env, len, "i", &vo, &got, &err), 0);
	assert_int_equal(got->entry_count, ix->entry_count);
	assert_int_equal(index_payload_write(ix, &payload, &plen, &err), 0);
	assert_int_equal(util_sha256_buffer(payload, plen, sha), 0);
	assert_memory_equal(got->payload_sha256, sha, PS_SHA256_LEN);
	ps_index_free(got);
	vo.at = T2026 + 400 * 86400;
	assert_int_equal(ps_index_verify(env, len, "i", &vo, &got, &err), -1);
	assert_string_equal(err.code, "index_expired");
	vo.allow_expired = 1;
	assert_int_equal(ps_index_verify(env, len, "i", &vo, &got, &err), 0);
	/* --require-index-state: refused on first use without a floor */
	assert_int_equal(ps_index_state_require(trust, got, &err), -1);
	assert_string_equal(err.code, "index_state_missing");
	assert_int_equal(err.status, PS_STATUS_REFUSED);
	ps_index_free(got);
	ps_trust_free(trust);
	free(policy);
	assert_true(asprintf(&policy, "version: 1\nsigners:\n  - identity: "
	    "alice\n    keys:\n      - key: %s\n    packs: [\"acme.*\"]\n"
	    "    roles: [index]\n    min_index_version: 3\n", line) > 0);
	assert_int_equal(ps_trust_load(policy, strlen(policy), "p", &trust,
	    &err), 0);
	vo.trust = trust;
	assert_int_equal(ps_index_verify(env, len, "i", &vo, &got, &err), 0);
	assert_int_equal(ps_index_state_require(trust, got, &err), 0);
	ps_index_free(got);
	free(payload);
	free(env);
	free(env2);
	free(line);
	free(policy);
	ps_trust_free(trust);
	ps_pubkey_free(pk);
	ps_seckey_free(sk);
	ps_index_free(ix);
}

/* The policy's floor (min_index_version) on its own: below it is
 * index_rollback naming the floor, at it and above it is accepted, and a
 * policy without one accepts version 1 (a mutant comparing with > or
 * dropping the check fails here, not only in tests/cli/index.bats). */
static void
min_index_version_floor(void **state)
{
	static const struct { uint64_t version; const char *code; } cases[] = {
		{ 1, "index_rollback" }, { 4, "index_rollback" }, { 5, "" },
		{ 6, "" },
	};
	ps_index_verify_options vo;
	ps_index *ix = sample(), *got = NULL;
	ps_seckey *sk = NULL;
	ps_pubkey *pk = NULL;
	ps_trust *floor5 = NULL, *none = NULL;
	char *line = NULL, *policy = NULL, *env = NULL;
	size_t i, len;
	ps_error err;

	(void)state;
	assert_int_equal(ps_seckey_generate(&sk, &err), 0);
	assert_int_equal(ps_seckey_public(sk, &pk, &err), 0);
	assert_int_equal(ps_pubkey_format_base64(pk, &line, &err), 0);
	assert_true(asprintf(&policy, "version: 1\nsigners:\n  - identity: "
	    "alice\n    keys:\n      - key: %s\n    packs: [\"acme.*\"]\n"
	    "    roles: [index]\n    min_index_version: 5\n", line) > 0);
	assert_int_equal(ps_trust_load(policy, strlen(policy), "p", &floor5,
	    &err), 0);
	*strstr(policy, "    min_index_version") = '\0';
	assert_int_equal(ps_trust_load(policy, strlen(policy), "p", &none,
	    &err), 0);
	ps_index_verify_options_init(&vo);
	vo.at = T2026 + 60;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ix->version = cases[i].version;
		assert_int_equal(ps_index_sign(ix, sk, &env, &len, &err), 0);
		vo.trust = floor5;
		ps_error_clear(&err);
		if (cases[i].code[0] == '\0')
			assert_int_equal(ps_index_verify(env, len, "i", &vo, &got,
			    &err), 0);
		else {
			assert_int_equal(ps_index_verify(env, len, "i", &vo, &got,
			    &err), -1);
			assert_string_equal(err.code, cases[i].code);
			assert_int_equal(err.status, PS_STATUS_REFUSED);
			assert_string_equal(err.expected, "5");
			assert_int_equal(strtoull(err.found, NULL, 10),
			    cases[i].version);
			assert_non_null(strstr(err.message, "min_index_version 5"));
			assert_null(got);
		}
		ps_index_free(got);
		got = NULL;
		vo.trust = none;
		assert_int_equal(ps_index_verify(env, len, "i", &vo, &got, &err),
		    0);
		ps_index_free(got);
		got = NULL;
		free(env);
	}
	free(line);
	free(policy);
	ps_trust_free(floor5);
	ps_trust_free(none);
	ps_pubkey_free(pk);
	ps_seckey_free(sk);
	ps_index_free(ix);
}

/* --------------------------------------------------------- client state */

static void
state_check(void **state)
{
	ps_index_seen seen;
	ps_index ix;
	ps_error err;

	(void)state;
	memset(&seen, 0, sizeof(seen));
	memset(&ix, 0, sizeof(ix));
	seen.version = 3;
	memset(seen.payload_sha256, 0x11, PS_SHA256_LEN);
	ix.publisher = (char *)"alice";
	ix.version = 3;
	memset(ix.payload_sha256, 0x11, PS_SHA256_LEN);
	ps_error_clear(&err);
	assert_int_equal(ps_index_state_check(&seen, &ix, &err), 0);
	assert_int_equal(ps_index_state_check(NULL, &ix, &err), 0);
	ix.version = 4;
	ix.payload_sha256[0] = 0x22;
	assert_int_equal(ps_index_state_check(&seen, &ix, &err), 0);
	ix.version = 3;
	assert_int_equal(ps_index_state_check(&seen, &ix, &err), -1);
	assert_string_equal(err.code, "index_equivocation");
	assert_int_equal(err.status, PS_STATUS_REFUSED);
	ix.version = 2;
	memset(ix.payload_sha256, 0x11, PS_SHA256_LEN);
	assert_int_equal(ps_index_state_check(&seen, &ix, &err), -1);
	assert_string_equal(err.code, "index_rollback");
	assert_int_equal(err.status, PS_STATUS_REFUSED);
}

static void
record(const char *dir, uint64_t version, unsigned char digest,
    int64_t now, int want_recorded)
{
	ps_index ix;
	ps_error err;
	int recorded = -1;

	memset(&ix, 0, sizeof(ix));
	ix.publisher = (char *)"alice";
	ix.version = version;
	memset(ix.payload_sha256, digest, PS_SHA256_LEN);
	ps_error_clear(&err);
	if (ps_index_state_record(dir, &ix, now, &recorded, &err) != 0)
		fail_msg("%s: %s", err.code, err.message);
	assert_int_equal(recorded, want_recorded);
}

static void
state_record_and_load(void **state)
{
	char dir[256], nothing[256], file[256];
	ps_index_seen seen;
	ps_index ix;
	ps_error err;
	int found = -1, recorded;
	FILE *f;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/data", tmpdir);
	snprintf(nothing, sizeof(nothing), "%s/none", tmpdir);
	ps_error_clear(&err);
	/* No data directory: nothing seen (and nothing leaked). */
	assert_int_equal(ps_index_state_load(nothing, "alice", &seen, &found,
	    &err), 0);
	assert_int_equal(found, 0);
	snprintf(file, sizeof(file), "%s/afile", tmpdir);
	f = fopen(file, "w");
	assert_non_null(f);
	assert_int_equal(fclose(f), 0);
	strcat(file, "/data");
	memset(&ix, 0, sizeof(ix));
	ix.publisher = (char *)"alice";
	ix.version = 1;
	assert_int_equal(ps_index_state_record(file, &ix, T2026, &recorded,
	    &err), -1);
	assert_int_equal(err.status, PS_STATUS_FAILED);
	assert_int_equal(ps_index_state_load(file, "alice", &seen, &found,
	    &err), -1);
	ps_error_clear(&err);
	record(dir, 3, 0x11, T2026, 1);
	assert_int_equal(ps_index_state_load(dir, "alice", &seen, &found,
	    &err), 0);
	assert_int_equal(found, 1);
	assert_int_equal(seen.version, 3);
	assert_int_equal(seen.first_seen, T2026);
	assert_int_equal(seen.payload_sha256[31], 0x11);
	assert_int_equal(ps_index_state_load(dir, "bob", &seen, &found, &err),
	    0);
	assert_int_equal(found, 0);
	record(dir, 3, 0x11, T2026 + 5, 0);          /* seen: nothing new */
	record(dir, 5, 0x22, T2026 + 9, 1);
	assert_int_equal(ps_index_state_load(dir, "alice", &seen, &found,
	    &err), 0);
	assert_int_equal(seen.version, 5);
	assert_int_equal(seen.first_seen, T2026 + 9);
	ix.version = 4;
	assert_int_equal(ps_index_state_record(dir, &ix, T2026, &recorded,
	    &err), -1);
	assert_string_equal(err.code, "index_rollback");
	assert_int_equal(recorded, 0);
}

static void
damaged_state_is_kept(void **state)
{
	static const char *const damaged[] = { "{", "[]",
	    "{\"packsign_index_state\":2,\"publishers\":{}}",
	    "{\"packsign_index_state\":1,\"publishers\":{},\"x\":1}",
	    "{\"packsign_index_state\":1,\"publishers\":{\"alice\":{"
	    "\"first_seen\":\"" ISSUED "\",\"index_sha256\":\"sha256:00\","
	    "\"version\":1}}}", NULL };
	char dir[256], path[300], back[128];
	ps_index_seen seen;
	ps_index ix;
	ps_error err;
	int found, recorded;
	size_t i, n;
	FILE *f;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/damaged", tmpdir);
	snprintf(path, sizeof(path), "%s/index-state.json", dir);
	assert_int_equal(mkdir(dir, 0700), 0);
	memset(&ix, 0, sizeof(ix));
	ix.publisher = (char *)"alice";
	ix.version = 9;
	for (i = 0; damaged[i] != NULL; i++) {
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(damaged[i], f);
		assert_int_equal(fclose(f), 0);
		ps_error_clear(&err);
		assert_int_equal(ps_index_state_load(dir, "alice", &seen, &found,
		    &err), -1);
		assert_string_equal(err.code, "index_state_invalid");
		assert_int_equal(err.status, PS_STATUS_FAILED);
		assert_int_equal(ps_index_state_record(dir, &ix, T2026,
		    &recorded, &err), -1);
		assert_string_equal(err.code, "index_state_invalid");
		assert_int_equal(recorded, 0);
		f = fopen(path, "r");
		assert_non_null(f);
		n = fread(back, 1, sizeof(back) - 1, f);
		fclose(f);
		back[n] = '\0';
		assert_string_equal(back, damaged[i]);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(payload_round_trip_is_canonical),
		cmocka_unit_test(payload_entries_are_sorted),
		cmocka_unit_test(payload_refusals),
		cmocka_unit_test(payload_url_refusals),
		cmocka_unit_test(url_composition),
		cmocka_unit_test(resolve),
		cmocka_unit_test(newest),
		cmocka_unit_test(version_compare),
		cmocka_unit_test(new_index),
		cmocka_unit_test(new_index_carries_forward),
		cmocka_unit_test(yank_and_remove),
		cmocka_unit_test(sign_and_verify),
		cmocka_unit_test(min_index_version_floor),
		cmocka_unit_test(state_check),
		cmocka_unit_test(state_record_and_load),
		cmocka_unit_test(damaged_state_is_kept),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
