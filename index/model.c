/*
 * The index model: freeing, the one order of entries, and the rules of
 * URLs (docs/formats/index.md, "Entries" and "URLs").  An archive URL is
 * composed by concatenation, never resolved against the URL the index
 * came from, so that what the publisher signed is what is requested.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/index.h"
#include "pack/archivename.h"
#include "util/hostname.h"
#include "util/error.h"
#include "util/sha256.h"

void
index_entry_clear(ps_index_entry *e)
{
	size_t i;

	free(e->id);
	free(e->version);
	free(e->url);
	free(e->archive_url);
	for (i = 0; i < e->signer_count; i++)
		free(e->signers[i]);
	free(e->signers);
	free(e->yanked);
	for (i = 0; i < e->bundle_count; i++) {
		free(e->bundles[i]);
		free(e->bundle_urls[i]);
	}
	free(e->bundles);
	free(e->bundle_urls);
	memset(e, 0, sizeof(*e));
}

void
ps_index_free(ps_index *index)
{
	size_t i;

	if (index == NULL)
		return;
	for (i = 0; i < index->entry_count; i++)
		index_entry_clear(&index->entries[i]);
	free(index->entries);
	free(index->publisher);
	free(index->base_url);
	free(index);
}

int
index_text_valid(const char *s, size_t max, int allow_space)
{
	size_t len = strlen(s), i;

	if (len == 0 || len > max)
		return -1;
	for (i = 0; i < len; i++) {
		if ((unsigned char)s[i] < (allow_space ? 0x20 : 0x21) ||
		    (unsigned char)s[i] > 0x7e)
			return -1;
	}
	return 0;
}

int
index_entry_compare(const ps_index_entry *a, const ps_index_entry *b)
{
	int c = strcmp(a->id, b->id);

	if (c == 0)
		c = strcmp(ps_format_name(a->format), ps_format_name(b->format));
	if (c == 0)
		c = ps_version_compare(a->version, b->version);
	return c;
}

static int
compare_qsort(const void *a, const void *b)
{
	return index_entry_compare(a, b);
}

int
index_sort(ps_index *index, const char *label, ps_error *err)
{
	const ps_index_entry *a, *b;
	size_t i;

	qsort(index->entries, index->entry_count, sizeof(*index->entries),
	    compare_qsort);
	for (i = 1; i < index->entry_count; i++) {
		a = &index->entries[i - 1];
		b = &index->entries[i];
		if (index_entry_compare(a, b) != 0)
			continue;
		util_refuse(err, "index_invalid", label, "%s %s is listed twice "
		    "(versions of one precedence: %s and %s)",
		    ps_format_name(a->format), a->id, a->version, b->version);
		return util_error_expect(err, "one entry per format, id and "
		    "version", "two");
	}
	return 0;
}

const ps_index_entry *
ps_index_find(const ps_index *index, ps_format format, const char *id,
    const char *version)
{
	size_t i;

	for (i = 0; i < index->entry_count; i++) {
		if (index->entries[i].format == format &&
		    strcmp(index->entries[i].id, id) == 0 &&
		    strcmp(index->entries[i].version, version) == 0)
			return &index->entries[i];
	}
	return NULL;
}

/* ------------------------------------------------------------------ URLs */

static int
url_refused(ps_error *err, const char *label, const char *url,
    const char *why)
{
	util_refuse(err, "index_url_invalid", label, "%s", why);
	return util_error_expect(err, "https://HOST/PATH or a relative path",
	    url);
}

/* Every '%' starts a percent-encoded byte, two hex digits, and none is
 * NUL, '/' or '\\': an encoded separator would name another path to a
 * server that decodes it than to the signer who read it. */
static int
percent_ok(const char *s, size_t len)
{
	const char *p, *end = s + len;
	int v;

	for (p = memchr(s, '%', len); p != NULL; p = memchr(p + 1, '%',
	    (size_t)(end - p - 1))) {
		if (end - p < 3 || util_hex_value(p[1]) < 0 ||
		    util_hex_value(p[2]) < 0)
			return 0;
		v = util_hex_value(p[1]) * 16 + util_hex_value(p[2]);
		if (v == 0 || v == '/' || v == '\\')
			return 0;
		if (end - p == 3)
			break;
	}
	return 1;
}

/* A segment that is not empty and not "." or ".." (also spelled %2E). */
static int
segment_ok(const char *s, size_t len)
{
	size_t dots = 0, i = 0;

	if (len == 0)
		return 0;
	while (i < len) {
		if (s[i] == '.')
			i++;
		else if (len - i >= 3 && s[i] == '%' && s[i + 1] == '2' &&
		    (s[i + 2] == 'e' || s[i + 2] == 'E'))
			i += 3;
		else
			return 1;
		dots++;
	}
	return dots > 2;
}

/* PATH of segments separated by '/', of `allowed` bytes; `trailing`: it
 * ends in '/' (a base URL), whose last, empty segment is not one. */
static int
path_valid(const char *path, const char *allowed, int trailing)
{
	size_t len = strlen(path), n;
	const char *p = path, *slash;

	if (len == 0)
		return trailing;     /* "https://host/": the root */
	if (strspn(path, allowed) != len || !percent_ok(path, len) ||
	    (trailing != (len > 0 && path[len - 1] == '/')))
		return 0;
	for (;;) {
		slash = strchr(p, '/');
		n = slash != NULL ? (size_t)(slash - p) : strlen(p);
		if (slash == NULL && trailing && n == 0)
			return 1;
		if (!segment_ok(p, n))
			return 0;
		if (slash == NULL)
			return 1;
		p = slash + 1;
	}
}

/* HOST[:PORT]: a lowercase DNS name or IPv4 address, or [IPv6]; a port of
 * 1 to 65535. */
static int
authority_valid(const char *host, size_t len)
{
	const char *colon = NULL, *end = host + len, *p;
	long port = 0;

	if (len > 0 && host[0] == '[') {
		p = memchr(host, ']', len);
		if (p == NULL || p == host + 1 || strspn(host + 1,
		    "0123456789abcdef:.") != (size_t)(p - host - 1))
			return 0;
		colon = p + 1 < end ? p + 1 : NULL;
		if (colon != NULL && *colon != ':')
			return 0;
	} else {
		colon = memchr(host, ':', len);
		if (!util_hostname_valid(host, colon != NULL ? (size_t)(colon -
		    host) : len) || strspn(host, "abcdefghijklmnopqrstuvwxyz"
		    "0123456789.-") < (colon != NULL ? (size_t)(colon - host) : len))
			return 0;
	}
	if (colon == NULL)
		return 1;
	for (p = colon + 1; p < end && *p >= '0' && *p <= '9' && port <= 65535; p++)
		port = port * 10 + (*p - '0');
	return p == end && p - colon > 1 && p - colon <= 6 && port >= 1 &&
	    port <= 65535;
}

#define PATH_BYTES "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" \
    "0123456789-._~%/!$&'()*+,;="
#define RELATIVE_BYTES "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" \
    "0123456789-._~%/"

/* "https://" AUTHORITY "/" PATH; no user, query or fragment. */
static int
absolute_valid(const char *url, int trailing)
{
	const char *host = url + 8, *path;

	if (strncmp(url, "https://", 8) != 0 || strlen(url) > PS_INDEX_MAX_URL)
		return 0;
	path = strchr(host, '/');
	return path != NULL && authority_valid(host, (size_t)(path - host)) &&
	    path_valid(path + 1, PATH_BYTES, trailing);
}

static int
relative_valid(const char *url)
{
	return strlen(url) <= PS_INDEX_MAX_URL && url[0] != '/' &&
	    path_valid(url, RELATIVE_BYTES, 0);
}

int
index_base_url_check(const char *url, const char *label, ps_error *err)
{
	if (!absolute_valid(url, 1))
		return url_refused(err, label, url, "a base URL is an absolute "
		    "https URL ending in '/', without user, query, fragment or "
		    "dot segments");
	return 0;
}

int
index_entry_compose_url(ps_index_entry *e, const char *base_url,
    const char *label, ps_error *err)
{
	int absolute = strncmp(e->url, "https://", 8) == 0;

	free(e->archive_url);
	e->archive_url = NULL;
	if (absolute && !absolute_valid(e->url, 0))
		return url_refused(err, label, e->url, "an archive URL is an "
		    "absolute https URL naming a file, without user, query, "
		    "fragment or dot segments");
	if (!absolute && !relative_valid(e->url))
		return url_refused(err, label, e->url, "a relative archive URL "
		    "is path segments of A-Z a-z 0-9 - . _ ~ %, none empty, "
		    "'.' or '..'");
	if (!absolute && base_url == NULL)
		return url_refused(err, label, e->url, "a relative archive URL "
		    "needs the index's base_url");
	if (!absolute && strlen(base_url) + strlen(e->url) > PS_INDEX_MAX_URL)
		return url_refused(err, label, e->url, "base_url and url "
		    "together are longer than 2048 bytes");
	if (pack_archive_name_of(e->url) == NULL)
		return url_refused(err, label, e->url, "an archive URL ends in "
		    PACK_ARCHIVE_NAMES);
	if (absolute ? (e->archive_url = strdup(e->url)) == NULL :
	    asprintf(&e->archive_url, "%s%s", base_url, e->url) < 0) {
		e->archive_url = NULL;
		return util_fail_oom(err, label);
	}
	return 0;
}

/* "https://AUTHORITY" of an absolute URL: its length up to the path. */
static size_t
authority_len(const char *url)
{
	const char *slash = strchr(url + 8, '/');

	return slash != NULL ? (size_t)(slash - url) : strlen(url);
}

int
index_entry_compose_bundle(ps_index_entry *e, size_t k, const char *base_url,
    const char *label, ps_error *err)
{
	const char *url = e->bundles[k];
	int absolute = strncmp(url, "https://", 8) == 0;
	size_t len = strlen(url), host = authority_len(e->archive_url);
	char **out = &e->bundle_urls[k];

	if (absolute ? !absolute_valid(url, 0) : !relative_valid(url))
		return url_refused(err, label, url, "a bundle URL is an absolute "
		    "https URL or a relative path under the archive URL's rules");
	if (len < 6 || strcmp(url + len - 5, ".json") != 0 ||
	    url[len - 6] == '/')
		return url_refused(err, label, url, "a bundle URL names a file "
		    "ending in .json");
	if (!absolute && base_url == NULL)
		return url_refused(err, label, url, "a relative bundle URL needs "
		    "the index's base_url");
	if (!absolute && strlen(base_url) + len > PS_INDEX_MAX_URL)
		return url_refused(err, label, url, "base_url and the bundle URL "
		    "together are longer than 2048 bytes");
	if (absolute ? (*out = strdup(url)) == NULL :
	    asprintf(out, "%s%s", base_url, url) < 0) {
		*out = NULL;
		return util_fail_oom(err, label);
	}
	if (authority_len(*out) == host &&
	    strncmp(*out, e->archive_url, host) == 0)
		return 0;
	url_refused(err, label, *out, "a bundle URL is on the archive URL's "
	    "host and port");
	return util_error_expect(err, e->archive_url, *out);
}
