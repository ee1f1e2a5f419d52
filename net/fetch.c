/*
 * https transfers through libcurl (docs/security.md, "Downloads"): every
 * option that matters is set explicitly rather than left to libcurl's
 * defaults or the environment: https only, for the first request and
 * every redirect; TLS verification; no netrc, cookie, alt-svc or HSTS
 * files; no proxy but the one given; timeouts.  The limits are enforced
 * in the write callback, where the bytes arrive.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "dynlib/curl.h"
#include "net/fetch.h"
#include "net/httpsurl.h"
#include "util/error.h"
#include "util/fdio.h"
#include "util/strings.h"

#define RESOLVE_MAX_BODY (64 * 1024)

void
ps_fetch_options_init(ps_fetch_options *o)
{
	memset(o, 0, sizeof(*o));
	o->max_download = PS_EXTRACT_DEFAULT_MAX_SIZE;
	o->connect_timeout = PS_FETCH_DEFAULT_CONNECT_TIMEOUT;
	o->low_speed_time = PS_FETCH_DEFAULT_LOW_SPEED_TIME;
}

struct transfer {
	const ps_fetch_options *o;
	dynlib_curl lib;
	CURL *curl;
	net_sink *sink;
	const net_body *body;        /* a POST's; NULL: GET */
	struct curl_slist *headers;  /* of the POST */
	const char *label;           /* the URL without credentials, query */
	ps_error *err;
	int failed;                  /* a callback filled err */
	char message[CURL_ERROR_SIZE];
};

/* A status other than 2xx (a 3xx without a Location included). */
static int
status_error(struct transfer *t, long status)
{
	char found[32];

	snprintf(found, sizeof(found), "%ld", status);
	if (status == 404 && t->sink->missing != NULL)
		util_fail(t->err, "fetch_http_status", t->label, "%s",
		    t->sink->missing);
	else
		util_fail(t->err, "fetch_http_status", t->label, "requested the "
		    "URL: the server answered HTTP status %ld", status);
	return util_error_expect(t->err, "2xx", found);
}

static int
over_limit(struct transfer *t, uint64_t got)
{
	char expected[64], found[64];

	if (t->sink->max_envelope)
		(void)util_refuse(t->err, "envelope_too_large", t->label,
		    "counted the bytes as they arrived: more than %s; the "
		    "transfer was cut off", t->sink->max_why);
	if (!t->sink->max_envelope)
		(void)util_fail(t->err, "fetch_too_large", t->label, "counted "
		    "the bytes as they arrived: more than %s; the transfer was "
		    "cut off", t->sink->max_why);
	snprintf(expected, sizeof(expected), "at most %llu bytes",
	    (unsigned long long)t->sink->max);
	snprintf(found, sizeof(found), "%llu bytes or more",
	    (unsigned long long)got);
	return util_error_expect(t->err, expected, found);
}

/* The bytes of this call that belong to the body: past an announced
 * Content-Length nothing is kept (the digest decides). */
static size_t
within_length(struct transfer *t, size_t len)
{
	curl_off_t announced = -1;
	uint64_t room;

	if (t->lib.easy_getinfo(t->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T,
	    &announced) != CURLE_OK || announced < 0)
		return len;
	room = (uint64_t)announced > t->sink->received ?
	    (uint64_t)announced - t->sink->received : 0;
	return room < len ? (size_t)room : len;
}

/* A memory sink grows to what arrived, one NUL past it. */
static int
keep_in_memory(struct transfer *t, const char *data, size_t len)
{
	net_sink *s = t->sink;
	unsigned char *grown;

	grown = realloc(s->memory, (size_t)s->received + len + 1);
	if (grown == NULL) {
		t->failed = 1;
		return util_fail_oom(t->err, t->label);
	}
	memcpy(grown + s->received, data, len);
	grown[s->received + len] = '\0';
	s->memory = grown;
	return 0;
}

static size_t
write_body(char *data, size_t size, size_t count, void *ctx)
{
	struct transfer *t = ctx;
	net_sink *s = t->sink;
	size_t len = size * count, keep;
	long status = 0;

	if (s->received == 0 && t->lib.easy_getinfo(t->curl,
	    CURLINFO_RESPONSE_CODE, &status) == CURLE_OK &&
	    (s->fd >= 0 || s->to_memory) && (status < 200 || status > 299)) {
		t->failed = 1;
		(void)status_error(t, status);
		return 0;
	}
	if (s->max != 0 && s->received + len > s->max) {
		t->failed = 1;
		(void)over_limit(t, s->received + len);
		return 0;
	}
	keep = within_length(t, len);
	if (s->hash != NULL && util_sha256_update(s->hash, data, keep) != 0) {
		t->failed = 1;
		(void)util_fail(t->err, "internal_error", t->label, "SHA-256 "
		    "failed");
		return 0;
	}
	if (s->fd >= 0 && keep > 0 && util_write_all(s->fd, data, keep,
	    t->label, t->err) != 0) {
		t->failed = 1;
		return 0;
	}
	if (s->to_memory && keep_in_memory(t, data, keep) != 0)
		return 0;
	s->received += keep;
	return len;
}

static int
report_progress(void *ctx, curl_off_t dltotal, curl_off_t dlnow,
    curl_off_t ultotal, curl_off_t ulnow)
{
	struct transfer *t = ctx;
	ps_progress p = { "downloading", 0, 0, 0, 0, 0 };

	(void)ultotal;
	(void)ulnow;
	if (t->o->cancelled != NULL && t->o->cancelled(t->o->cancelled_ctx)) {
		t->failed = 1;
		(void)util_fail(t->err, "fetch_cancelled", t->label, "the "
		    "transfer was interrupted (a signal): nothing was kept");
		return 1;
	}
	if (!t->sink->progress || t->o->progress.fn == NULL || dlnow <= 0)
		return 0;
	p.bytes = (uint64_t)dlnow;
	p.bytes_total = dltotal > 0 ? (uint64_t)dltotal : 0;
	t->o->progress.fn(t->o->progress.ctx, &p);
	return 0;
}

/* Where each option is set, and why: docs/security.md, "Downloads". */
static int
set_security(const dynlib_curl *lib, CURL *c, const ps_fetch_options *o)
{
	int bad = 0;

	/* https only, twice over: PROTOCOLS limits every transfer of the
	 * handle, redirects included, and REDIR_PROTOCOLS limits redirects
	 * (libcurl's default for them includes http), and the first URL is
	 * checked by net_url_check() before either.  Each one alone refuses a
	 * redirect to http, so removing one passes every end-to-end test:
	 * tests/unit/test_net.c drops each in turn and checks the other
	 * still refuses (and that without both the redirect is followed). */
	bad |= lib->easy_setopt(c, CURLOPT_PROTOCOLS_STR, "https") != CURLE_OK;
	bad |= lib->easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "https") !=
	    CURLE_OK;
	bad |= lib->easy_setopt(c, CURLOPT_MAXREDIRS,
	    (long)PS_FETCH_MAX_REDIRECTS) != CURLE_OK;
	bad |= lib->easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L) != CURLE_OK;
	bad |= lib->easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L) != CURLE_OK;
	bad |= lib->easy_setopt(c, CURLOPT_SSLVERSION,
	    (long)CURL_SSLVERSION_TLSv1_2) != CURLE_OK;
	if (o->ca_file != NULL) {
		bad |= lib->easy_setopt(c, CURLOPT_CAINFO, o->ca_file) != CURLE_OK;
		bad |= lib->easy_setopt(c, CURLOPT_CAPATH, (char *)NULL) != CURLE_OK;
	}
	/* "" is no proxy, whatever the environment says. */
	bad |= lib->easy_setopt(c, CURLOPT_PROXY, o->proxy != NULL ? o->proxy :
	    "") != CURLE_OK;
	/* NULL would let libcurl read NO_PROXY itself. */
	bad |= lib->easy_setopt(c, CURLOPT_NOPROXY, o->no_proxy != NULL ?
	    o->no_proxy : "") != CURLE_OK;
	bad |= lib->easy_setopt(c, CURLOPT_NETRC, (long)CURL_NETRC_IGNORED) !=
	    CURLE_OK;
	bad |= lib->easy_setopt(c, CURLOPT_UNRESTRICTED_AUTH, 0L) != CURLE_OK;
	bad |= lib->easy_setopt(c, CURLOPT_NOSIGNAL, 1L) != CURLE_OK;
	return bad ? -1 : 0;
}

/* One header line "NAME: VALUE" onto the POST's list; the line is
 * wiped, for it may hold a token. */
static int
add_header(struct transfer *t, const char *name, const char *value)
{
	struct curl_slist *grown;
	char *line = NULL;
	int n;

	n = asprintf(&line, "%s%s %s", name, strchr(name, ':') ? "" : ":",
	    value);
	if (n < 0)
		return -1;
	grown = t->lib.slist_append(t->headers, line);
	sodium_memzero(line, (size_t)n);
	free(line);
	if (grown == NULL)
		return -1;
	t->headers = grown;
	return 0;
}

static int
set_post(struct transfer *t)
{
	const net_body *b = t->body;
	CURL *c = t->curl;
	int bad = 0;

	if (b->content_type != NULL)
		bad |= add_header(t, "Content-Type", b->content_type) != 0;
	if (b->accept != NULL)
		bad |= add_header(t, "Accept", b->accept) != 0;
	if (b->bearer != NULL)
		bad |= add_header(t, "Authorization: Bearer", b->bearer) != 0;
	/* No "Expect: 100-continue" round trip. */
	bad |= add_header(t, "Expect", "") != 0;
	if (b->content_type != NULL) {
		bad |= t->lib.easy_setopt(c, CURLOPT_POST, 1L) != CURLE_OK;
		bad |= t->lib.easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)b->len) != CURLE_OK;
		bad |= t->lib.easy_setopt(c, CURLOPT_POSTFIELDS, b->bytes) !=
		    CURLE_OK;
	}
	bad |= t->lib.easy_setopt(c, CURLOPT_HTTPHEADER, t->headers) != CURLE_OK;
	return bad ? -1 : 0;
}

static int
set_transfer(struct transfer *t, const char *url, int follow)
{
	CURL *c = t->curl;
	const ps_fetch_options *o = t->o;
	int bad = 0;

	bad |= t->lib.easy_setopt(c, CURLOPT_URL, url) != CURLE_OK;
	bad |= t->lib.easy_setopt(c, CURLOPT_FOLLOWLOCATION, (long)follow) !=
	    CURLE_OK;
	bad |= t->lib.easy_setopt(c, CURLOPT_FAILONERROR, 1L) != CURLE_OK;
	bad |= t->lib.easy_setopt(c, CURLOPT_USERAGENT, "packsign/" PS_VERSION) !=
	    CURLE_OK;
	bad |= t->lib.easy_setopt(c, CURLOPT_CONNECTTIMEOUT, o->connect_timeout) !=
	    CURLE_OK;
	bad |= t->lib.easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L) != CURLE_OK;
	bad |= t->lib.easy_setopt(c, CURLOPT_LOW_SPEED_TIME, o->low_speed_time) !=
	    CURLE_OK;
	bad |= t->lib.easy_setopt(c, CURLOPT_TIMEOUT, o->timeout) != CURLE_OK;
	if (t->sink->max != 0)
		bad |= t->lib.easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE,
		    (curl_off_t)t->sink->max) != CURLE_OK;
	bad |= t->lib.easy_setopt(c, CURLOPT_ERRORBUFFER, t->message) != CURLE_OK;
	bad |= t->lib.easy_setopt(c, CURLOPT_WRITEFUNCTION, write_body) !=
	    CURLE_OK;
	bad |= t->lib.easy_setopt(c, CURLOPT_WRITEDATA, t) != CURLE_OK;
	bad |= t->lib.easy_setopt(c, CURLOPT_XFERINFOFUNCTION, report_progress) !=
	    CURLE_OK;
	bad |= t->lib.easy_setopt(c, CURLOPT_XFERINFODATA, t) != CURLE_OK;
	bad |= t->lib.easy_setopt(c, CURLOPT_NOPROGRESS, 0L) != CURLE_OK;
	if (t->body != NULL)
		bad |= set_post(t) != 0;
	return bad || set_security(&t->lib, c, o) != 0 ? -1 : 0;
}

/* The code of a failed transfer, and what it checked. */
static const char *
transport_code(CURLcode rc, const char **what)
{
	switch (rc) {
	case CURLE_UNSUPPORTED_PROTOCOL:
		*what = "followed a redirect: packsign downloads over https only";
		return "url_scheme_refused";
	case CURLE_TOO_MANY_REDIRECTS:
		*what = "followed redirects: more than 5 (a loop?)";
		return "fetch_redirect";
	case CURLE_PEER_FAILED_VERIFICATION: case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CACERT_BADFILE: case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_ISSUER_ERROR: case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
		*what = "verified the server's TLS certificate and connection";
		return "fetch_tls";
	case CURLE_OPERATION_TIMEDOUT:
		*what = "waited for the server: the transfer timed out";
		return "fetch_timeout";
	case CURLE_PARTIAL_FILE: case CURLE_RECV_ERROR: case CURLE_GOT_NOTHING:
		*what = "read the body: the connection ended before it did";
		return "fetch_truncated";
	case CURLE_COULDNT_RESOLVE_HOST: case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_CONNECT:
		*what = "connected to the server";
		return "fetch_connect";
	default:
		*what = "made the request";
		return "fetch_failed";
	}
}

static int
transfer_error(struct transfer *t, CURLcode rc)
{
	const char *what = NULL, *code;
	char expected[64];
	long status = 0;

	if (t->failed)
		return -1;
	if (rc == CURLE_HTTP_RETURNED_ERROR && t->lib.easy_getinfo(t->curl,
	    CURLINFO_RESPONSE_CODE, &status) == CURLE_OK)
		return status_error(t, status);
	if (rc == CURLE_FILESIZE_EXCEEDED)
		return over_limit(t, t->sink->max + 1);
	code = transport_code(rc, &what);
	util_fail(t->err, code, t->label, "%s", what);
	snprintf(expected, sizeof(expected), "%s", rc == CURLE_UNSUPPORTED_PROTOCOL ?
	    "https" : "a complete transfer");
	return util_error_expect(t->err, expected, t->message[0] != '\0' ?
	    t->message : t->lib.easy_strerror(rc));
}

/* One request: set up, performed, its errors mapped; t->curl stays for
 * the caller to read and clean up. */
static int
perform(struct transfer *t, const char *url, int follow)
{
	CURLcode rc;

	if (dynlib_curl_open(&t->lib, "an https download", t->err) != 0)
		return -1;
	if ((t->curl = t->lib.easy_init()) == NULL)
		return util_fail_oom(t->err, t->label);
	if (set_transfer(t, url, follow) != 0)
		return util_fail(t->err, "fetch_failed", t->label, "libcurl "
		    "refused an option packsign needs (https only, TLS "
		    "verification)");
	rc = t->lib.easy_perform(t->curl);
	if (rc != CURLE_OK)
		return transfer_error(t, rc);
	if (t->failed)
		return -1;
	return 0;
}

/* The handle and the library, whatever perform() got to. */
static void
finish(struct transfer *t)
{
	if (t->curl != NULL)
		t->lib.easy_cleanup(t->curl);
	if (t->headers != NULL)
		t->lib.slist_free_all(t->headers);
	dynlib_curl_close(&t->lib);
}

/* The final status of a completed transfer: 2xx, else refused. */
static int
check_status(struct transfer *t)
{
	long status = 0;

	if (t->lib.easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &status) !=
	    CURLE_OK || status < 200 || status > 299)
		return status_error(t, status);
	return 0;
}

int
net_fetch(const ps_fetch_options *o, const char *url, net_sink *sink,
    ps_error *err)
{
	struct transfer t = { .o = o, .sink = sink, .err = err };
	char *label = NULL;
	int rc;

	sink->received = 0;
	if (net_url_check(url, err) != 0 || net_url_public(url, &label, err) != 0)
		return -1;
	t.label = label;
	rc = perform(&t, url, 1);
	if (rc == 0)
		rc = check_status(&t);
	finish(&t);
	free(label);
	return rc;
}

static int
take_location(struct transfer *t, char **location)
{
	char *to = NULL;
	long status = 0;

	if (t->lib.easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &status) !=
	    CURLE_OK || t->lib.easy_getinfo(t->curl, CURLINFO_REDIRECT_URL, &to) !=
	    CURLE_OK || to == NULL || status < 300 || status > 399) {
		util_fail(t->err, "fetch_redirect", t->label, "resolved the "
		    "latest release: the server answered without a redirect to "
		    "a release");
		return util_error_expect(t->err, "a 3xx redirect", "no redirect");
	}
	if (net_url_check(to, t->err) != 0)
		return -1;
	return util_strdup(location, to, t->label, t->err);
}

int
net_resolve(const ps_fetch_options *o, const char *url, char **location,
    ps_error *err)
{
	net_sink sink = { -1, NULL, RESOLVE_MAX_BODY, 0, "a redirect's body "
	    "may hold", NULL, 0, 0, 0, NULL };
	struct transfer t = { .o = o, .sink = &sink, .err = err };
	char *label = NULL;
	int rc;

	*location = NULL;
	if (net_url_check(url, err) != 0 || net_url_public(url, &label, err) != 0)
		return -1;
	t.label = label;
	rc = perform(&t, url, 0);
	if (rc == 0)
		rc = take_location(&t, location);
	finish(&t);
	free(label);
	return rc;
}

int
net_post(const ps_fetch_options *o, const char *url, const net_body *body,
    net_sink *sink, ps_error *err)
{
	struct transfer t = { .o = o, .sink = sink, .body = body, .err = err };
	char *label = NULL;
	int rc;

	sink->received = 0;
	if (net_url_check(url, err) != 0 || net_url_public(url, &label, err) != 0)
		return -1;
	t.label = label;
	rc = perform(&t, url, 0);
	if (rc == 0)
		rc = check_status(&t);
	finish(&t);
	free(label);
	if (rc != 0) {
		free(sink->memory);
		sink->memory = NULL;
	}
	return rc;
}
