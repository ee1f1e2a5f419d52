/* Internal header of formats/: https URLs in manifests.
 *
 * A URL judged from its text alone: https, a host that passes the
 * host-name rule or an address, no credentials, optionally no local,
 * private or reserved host.
 */
#ifndef FORMATS_URL_H
#define FORMATS_URL_H

#include <stddef.h>

/*
 * Judges an https URL from its text alone.  `public`: also refuse local,
 * private and reserved hosts.  Returns 0, or -1 with a reason in `why`.
 */
int formats_url_check(const char *url, int public, char *why, size_t why_size);

/*
 * The host and port of an https URL formats_url_check() accepted: the
 * host as written (an IPv6 address keeps its brackets, a trailing dot is
 * dropped), the port 443 when none is written.  `host` holds `size`
 * bytes.  Returns 0, or -1 when the URL is not of that form.
 */
int formats_url_host_port(const char *url, char *host, size_t size,
    unsigned *port);

#endif
