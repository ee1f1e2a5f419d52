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

#endif
