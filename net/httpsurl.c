/*
 * https URLs (docs/formats/install.md, "From a URL"): checked before any
 * connection, shown without credentials or query, and split into the
 * parts install needs.  The parser is deliberately narrow: an absolute
 * https URL of printable ASCII; libcurl parses it again for the request.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "net/httpsurl.h"
#include "util/error.h"
#include "util/sha256.h"

#define SCHEME "https://"
#define SCHEME_LEN 8

/* Offsets into a checked URL. */
struct parts {
	size_t authority;            /* after "https://" */
	size_t host;                 /* after any user:password@ */
	size_t path;                 /* end of the authority */
	size_t path_end;             /* '?', '#' or the end */
	size_t len;
};

static void
split(const char *url, struct parts *p)
{
	const char *at;

	p->len = strlen(url);
	p->authority = SCHEME_LEN;
	p->path = p->authority + strcspn(url + p->authority, "/?#");
	p->host = p->authority;
	at = memchr(url + p->authority, '@', p->path - p->authority);
	while (at != NULL) {
		p->host = (size_t)(at - url) + 1;
		at = memchr(url + p->host, '@', p->path - p->host);
	}
	p->path_end = p->path + strcspn(url + p->path, "?#");
}

static int
scheme_refused(const char *url, ps_error *err)
{
	char scheme[32];
	size_t n = strcspn(url, ":/?#");

	snprintf(scheme, sizeof(scheme), "%.*s", (int)(n < 24 ? n : 24), url);
	util_fail(err, "url_scheme_refused", "URL", "checked the URL's scheme "
	    "before any connection: packsign downloads over https only");
	return util_error_expect(err, "https", url[n] == ':' ? scheme :
	    "no scheme");
}

int
net_url_check(const char *url, ps_error *err)
{
	struct parts p;
	size_t i;

	if (strncasecmp(url, SCHEME, SCHEME_LEN) != 0)
		return scheme_refused(url, err);
	for (i = 0; url[i] != '\0'; i++) {
		if ((unsigned char)url[i] <= 0x20 || (unsigned char)url[i] >= 0x7f)
			return util_fail(err, "url_invalid", "URL", "checked the "
			    "URL's bytes: byte %zu is a space, a control or not "
			    "ASCII (percent-encode it)", i);
	}
	if (i > NET_URL_MAX)
		return util_fail(err, "url_invalid", "URL", "checked the URL's "
		    "length: %zu bytes, the most is %d", i, NET_URL_MAX);
	split(url, &p);
	if (p.host == p.path || url[p.host] == ':')
		return util_fail(err, "url_invalid", "URL", "checked the URL's "
		    "host: it has none");
	return 0;
}

int
net_url_public(const char *url, char **out, ps_error *err)
{
	struct parts p;

	split(url, &p);
	if (asprintf(out, "%.*s%.*s", SCHEME_LEN, url,
	    (int)(p.path_end - p.host), url + p.host) < 0) {
		*out = NULL;
		return util_fail_oom(err, "URL");
	}
	return 0;
}

int
net_url_sig(const char *url, char **out, ps_error *err)
{
	struct parts p;

	split(url, &p);
	if (asprintf(out, "%.*s.sig%s", (int)p.path_end, url,
	    url + p.path_end) < 0) {
		*out = NULL;
		return util_fail_oom(err, "URL");
	}
	return 0;
}

void
net_url_last_segment(const char *url, const char **start, size_t *len)
{
	struct parts p;
	size_t i;

	split(url, &p);
	i = p.path_end;
	while (i > p.path && url[i - 1] != '/')
		i--;
	*start = url + i;
	*len = p.path_end - i;
}

/* Percent-decodes `len` bytes of `s` into `out` (len + 1 bytes); -1 on a
 * bad escape or a decoded NUL or '/'. */
static int
decode(const char *s, size_t len, char *out)
{
	size_t i, n = 0;
	int hi, lo;

	for (i = 0; i < len; i++) {
		if (s[i] != '%') {
			out[n++] = s[i];
			continue;
		}
		hi = i + 2 < len ? util_hex_value(s[i + 1]) : -1;
		lo = hi >= 0 ? util_hex_value(s[i + 2]) : -1;
		if (lo < 0 || (hi == 0 && lo == 0) || (hi == 2 && lo == 15))
			return -1;
		out[n++] = (char)(hi * 16 + lo);
		i += 2;
	}
	out[n] = '\0';
	return 0;
}

int
net_url_name(const char *url, char **out, ps_error *err)
{
	const char *seg;
	size_t len;
	char *name;

	*out = NULL;
	net_url_last_segment(url, &seg, &len);
	if ((name = malloc(len + 1)) == NULL)
		return util_fail_oom(err, "URL");
	if (len == 0 || decode(seg, len, name) != 0 || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0) {
		free(name);
		name = NULL;
		if (net_url_public(url, &name, err) != 0)
			return -1;
		util_refuse(err, "url_name_invalid", name, "took the archive's "
		    "file name from the URL's last path segment, percent-decoded");
		free(name);
		return util_error_expect(err, "a file name (no '/', no NUL)",
		    len == 0 ? "an empty segment" : "a bad segment");
	}
	*out = name;
	return 0;
}

/* The start of each of the last `n` segments of the path of `url`
 * (seg[0] the first of them); 0, or -1 when the path has fewer. */
static int
last_segments(const char *url, size_t n, size_t *seg, size_t *path_end)
{
	struct parts p;
	size_t i, k = n;

	split(url, &p);
	*path_end = p.path_end;
	i = p.path_end;
	while (k > 0) {
		while (i > p.path && url[i - 1] != '/')
			i--;
		if (i <= p.path)
			return -1;
		seg[--k] = i;
		i--;
	}
	return 0;
}

/* 1 when segment `s` (ending at '/' or `end`) of `url` is `word`. */
static int
segment_is(const char *url, size_t s, size_t end, const char *word)
{
	size_t n = strlen(word);

	return s + n <= end && strncmp(url + s, word, n) == 0 &&
	    (s + n == end || url[s + n] == '/');
}

int
net_url_is_latest(const char *url)
{
	size_t seg[6], end;

	if (last_segments(url, 6, seg, &end) != 0)
		return 0;
	return seg[1] - seg[0] > 1 && seg[2] - seg[1] > 1 &&
	    segment_is(url, seg[2], end, "releases") &&
	    segment_is(url, seg[3], end, "latest") &&
	    segment_is(url, seg[4], end, "download") && seg[5] < end;
}

int
net_url_is_release_asset(const char *url, const char *asset)
{
	size_t seg[4], end;

	if (last_segments(url, 4, seg, &end) != 0)
		return 0;
	return segment_is(url, seg[0], end, "releases") &&
	    segment_is(url, seg[1], end, "download") && seg[3] - seg[2] > 1 &&
	    end - seg[3] == strlen(asset) &&
	    strncmp(url + seg[3], asset, end - seg[3]) == 0;
}
