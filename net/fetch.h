/* Internal header of net/: https transfers.
 *
 * One https GET into a file descriptor the caller gives, bounded and
 * hashed in libcurl's write callback (docs/security.md, "Downloads").  It
 * knows nothing of packs: install/ decides what is fetched and where.
 */
#ifndef NET_FETCH_H
#define NET_FETCH_H

#include <stdint.h>

#include "packsign.h"
#include "util/sha256.h"

/* Where a body goes and how much of it may come. */
typedef struct net_sink {
	int fd;                      /* written from its current offset */
	util_sha256 *hash;           /* updated with every byte kept; may be
	                              * NULL */
	uint64_t max;                /* most bytes; 0: no limit */
	int max_envelope;            /* past `max`: 1 envelope_too_large
	                              * (exit 1, the limit of a signature
	                              * file), 0 fetch_too_large (exit 2) */
	const char *max_why;         /* what `max` is, for the message */
	const char *missing;         /* message of a 404, or NULL */
	int progress;                /* 1: report to options->progress */
	uint64_t received;           /* out: bytes written */
	int to_memory;               /* fd -1: the body kept in `memory` */
	unsigned char *memory;       /* out, malloc'ed (caller frees): the
	                              * body, NUL-terminated after
	                              * `received` bytes */
} net_sink;

/* What a POST sends: `len` bytes of `content_type` (NULL: a GET with
 * these headers and no body); `accept` the type asked for; `bearer`,
 * when not NULL, an OAuth token sent as "Authorization: Bearer ..."
 * (never logged, never in an error, its header line wiped). */
typedef struct net_body {
	const char *content_type;
	const char *accept;
	const void *bytes;
	size_t len;
	const char *bearer;
} net_body;

/*
 * GET `url` (checked with net_url_check()) into `sink`, following at most
 * PS_FETCH_MAX_REDIRECTS redirects, all https.  Errors name the URL
 * without user:password or query.  Codes (exit 2 unless the sink says
 * otherwise): url_scheme_refused, url_invalid, fetch_http_status,
 * fetch_tls, fetch_timeout, fetch_too_large (envelope_too_large),
 * fetch_redirect, fetch_truncated, fetch_connect, fetch_cancelled,
 * fetch_failed, io_error,
 * disk_full.
 */
int net_fetch(const ps_fetch_options *options, const char *url,
    net_sink *sink, ps_error *err);

/*
 * A HEAD-less resolution of `url`: GET without following redirects; the
 * absolute https URL of its redirect in *location (caller frees).
 * fetch_redirect when it answers without one.
 */
int net_resolve(const ps_fetch_options *options, const char *url,
    char **location, ps_error *err);

/*
 * POST `body` to `url` (checked as for net_fetch) and the answer into
 * `sink` (a GET when body->content_type is NULL); redirects are never
 * followed (a 3xx is fetch_http_status), so neither the body nor a
 * bearer token goes anywhere but `url`'s host.  The codes of net_fetch().
 */
int net_post(const ps_fetch_options *options, const char *url,
    const net_body *body, net_sink *sink, ps_error *err);

#endif
