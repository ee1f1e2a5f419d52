/* Internal header of util/: the host-name rule.
 *
 * One rule for every host packsign reads (manifest egress hosts and URLs,
 * git remotes): RFC 1123 labels of letters, digits and '-', neither
 * starting nor ending with '-', 1..63 bytes each, dot-separated, at most
 * 253 bytes in all.  A trailing dot, an empty label, '_' and non-ASCII
 * bytes are refused.  Case is not changed here.
 */
#ifndef UTIL_HOSTNAME_H
#define UTIL_HOSTNAME_H

#include <stddef.h>

#define UTIL_HOSTNAME_MAX 253

/* 1 when the `len` bytes at `host` are a valid host name, else 0. */
int util_hostname_valid(const char *host, size_t len);

#endif
