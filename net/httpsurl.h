/* Internal header of net/: https URLs.
 *
 * What install and fetch need to know of a URL before and after a
 * request: that it is https and well-formed, the form errors and
 * receipts may show (no user:password, no query), the signature's URL,
 * the file name it names, and GitHub's release URL shapes.  Nothing here
 * touches the network.
 */
#ifndef NET_HTTPSURL_H
#define NET_HTTPSURL_H

#include <stddef.h>

#include "packsign.h"

#define NET_URL_MAX 4096

/*
 * Checks `url`: scheme https (any case; anything else url_scheme_refused),
 * then an authority with a host, no space, control or non-ASCII byte, at
 * most NET_URL_MAX bytes (url_invalid).  Both exit 2.
 */
int net_url_check(const char *url, ps_error *err);

/* `url` (checked) without user:password@, query and fragment; caller
 * frees.  out_of_memory. */
int net_url_public(const char *url, char **out, ps_error *err);

/* `url` (checked) with ".sig" appended to its path, before any query or
 * fragment; caller frees. */
int net_url_sig(const char *url, char **out, ps_error *err);

/* The last segment of the path of `url` (checked), percent-decoded: a
 * file name (no '/', no NUL, not empty, not "." or ".."); url_name_invalid
 * (exit 1) otherwise.  Caller frees. */
int net_url_name(const char *url, char **out, ps_error *err);

/* 1 when the path of `url` ends in /OWNER/REPO/releases/latest/download/
 * ASSET (GitHub's "latest release" asset URL), else 0. */
int net_url_is_latest(const char *url);

/* 1 when the path of `url` ends in /releases/download/TAG/ASSET and ASSET
 * is `asset` (raw, as in the URL), else 0. */
int net_url_is_release_asset(const char *url, const char *asset);

/* The raw last path segment of `url`: its start and length. */
void net_url_last_segment(const char *url, const char **start, size_t *len);

#endif
