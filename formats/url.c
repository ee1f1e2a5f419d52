/*
 * https URLs judged from their text alone (no DNS, no network): syntax,
 * and for "public" endpoints, no local, private or reserved host.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "formats/url.h"
#include "util/hostname.h"
#include "util/hostname.h"


static int
why(char *buf, size_t size, const char *text)
{
	snprintf(buf, size, "%s", text);
	return -1;
}

/* IPv4 address in network order is loopback, private or otherwise local. */
static const char *
ipv4_reserved(const unsigned char a[4])
{
	uint32_t v = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 |
	    (uint32_t)a[2] << 8 | a[3];
	static const struct { uint32_t net, mask; const char *what; } r[] = {
		{ 0x00000000, 0xff000000, "an unspecified (0.0.0.0/8) address" },
		{ 0x0a000000, 0xff000000, "a private (10/8) address" },
		{ 0x64400000, 0xffc00000, "a carrier-grade NAT (100.64/10) address" },
		{ 0x7f000000, 0xff000000, "a loopback (127/8) address" },
		{ 0xa9fe0000, 0xffff0000, "a link-local (169.254/16) address" },
		{ 0xac100000, 0xfff00000, "a private (172.16/12) address" },
		{ 0xc0000000, 0xffffff00, "an IETF protocol (192.0.0/24) address" },
		{ 0xc0000200, 0xffffff00, "a documentation (192.0.2/24) address" },
		{ 0xc0a80000, 0xffff0000, "a private (192.168/16) address" },
		{ 0xc6120000, 0xfffe0000, "a benchmarking (198.18/15) address" },
		{ 0xc0586300, 0xffffff00, "the 6to4 relay anycast (192.88.99/24) "
		    "prefix" },
		{ 0xc6336400, 0xffffff00, "a documentation (198.51.100/24) address" },
		{ 0xcb007100, 0xffffff00, "a documentation (203.0.113/24) address" },
		{ 0xe0000000, 0xf0000000, "a multicast (224/4) address" },
		{ 0xf0000000, 0xf0000000, "a reserved (240/4) or broadcast address" },
	};
	size_t i;

	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		if ((v & r[i].mask) == r[i].net)
			return r[i].what;
	}
	return NULL;
}

static const char *
ipv6_reserved(const unsigned char a[16])
{
	static const unsigned char zero[16];
	static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 0xff, 0xff };
	static const unsigned char nat64[12] = { 0, 0x64, 0xff, 0x9b };

	if (memcmp(a, zero, 15) == 0 && (a[15] == 0 || a[15] == 1))
		return a[15] == 0 ? "the unspecified address (::)" :
		    "the loopback address (::1)";
	if (memcmp(a, mapped, 12) == 0 || memcmp(a, zero, 12) == 0 ||
	    memcmp(a, nat64, 12) == 0)
		return ipv4_reserved(a + 12) != NULL ?
		    "an IPv6 address embedding a non-public IPv4 address" : NULL;
	/* Forms that carry an IPv4 address elsewhere: IPv4-translated
	 * (::ffff:0:a.b.c.d), 6to4 (2002:AABB:CCDD::), NAT64 local-use
	 * (64:ff9b:1::/48).  They reach whatever the IPv4 address reaches. */
	if (memcmp(a, zero, 8) == 0 && a[8] == 0xff && a[9] == 0xff &&
	    a[10] == 0 && a[11] == 0)
		return "an IPv4-translated address (::ffff:0:0/96)";
	if (a[0] == 0x20 && a[1] == 0x02)
		return "a 6to4 address (2002::/16), which embeds an IPv4 address";
	if (a[0] == 0 && a[1] == 0x64 && a[2] == 0xff && a[3] == 0x9b &&
	    a[4] == 0 && a[5] == 1)
		return "a local-use NAT64 address (64:ff9b:1::/48)";
	if ((a[0] & 0xfe) == 0xfc)
		return "a unique local (fc00::/7) address";
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		return "a link-local (fe80::/10) address";
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0)
		return "a site-local (fec0::/10) address";
	if (a[0] == 0xff)
		return "a multicast (ff00::/8) address";
	if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0d && a[3] == 0xb8)
		return "a documentation (2001:db8::/32) address";
	return NULL;
}

/*
 * WHATWG URL parsers read a host whose last label is numeric (decimal,
 * 0x-hex, or octal with a leading 0) as an IPv4 address in any of the
 * forms inet_aton accepts (127.1, 2130706433, 0x7f.0.0.1, 0177.0.0.1).
 */
static int
ends_in_number(const char *host)
{
	const char *last = strrchr(host, '.');
	const char *p;

	last = last != NULL ? last + 1 : host;
	if (*last == '\0')
		return 0;
	if ((last[0] == '0') && (last[1] == 'x' || last[1] == 'X')) {
		for (p = last + 2; *p != '\0'; p++) {
			if (isxdigit((unsigned char)*p) == 0)
				return 0;
		}
		return 1;
	}
	for (p = last; *p != '\0'; p++) {
		if (isdigit((unsigned char)*p) == 0)
			return 0;
	}
	return 1;
}

/* Names under these suffixes never resolve on the public Internet. */
static const char *
local_name(const char *host)
{
	static const char *const suffixes[] = { "localhost", "local",
	    "internal", "localdomain", "lan", "home.arpa", "test", "invalid",
	    "example", "onion", "in-addr.arpa", "ip6.arpa", NULL };
	size_t hl = strlen(host), sl, i;

	for (i = 0; suffixes[i] != NULL; i++) {
		sl = strlen(suffixes[i]);
		if (hl == sl && strcasecmp(host, suffixes[i]) == 0)
			return suffixes[i];
		if (hl > sl && host[hl - sl - 1] == '.' &&
		    strcasecmp(host + hl - sl, suffixes[i]) == 0)
			return suffixes[i];
	}
	return NULL;
}

static int
check_public_name(const char *host, char *buf, size_t size)
{
	unsigned char a4[4];
	const char *what;

	if (inet_pton(AF_INET, host, a4) == 1) {
		what = ipv4_reserved(a4);
		if (what != NULL) {
			snprintf(buf, size, "host %s is %s", host, what);
			return -1;
		}
		return 0;
	}
	if (ends_in_number(host) != 0) {
		snprintf(buf, size, "host '%s' is a number in a non-canonical "
		    "IPv4 form (decimal, octal, hex or short); write the "
		    "dotted-quad address or a name", host);
		return -1;
	}
	if (!util_hostname_valid(host, strlen(host))) {
		snprintf(buf, size, "host '%s' is not a valid host name (letters, "
		    "digits, hyphens; write international names in punycode)",
		    host);
		return -1;
	}
	if ((what = local_name(host)) != NULL) {
		snprintf(buf, size, "host '%s' is a local or reserved name (.%s)",
		    host, what);
		return -1;
	}
	if (strchr(host, '.') == NULL) {
		snprintf(buf, size, "host '%s' is a single-label name, which "
		    "only resolves on a local network", host);
		return -1;
	}
	return 0;
}

static int
check_ipv6(const char *host, int public, char *buf, size_t size)
{
	unsigned char a6[16];
	const char *what;

	if (strchr(host, '%') != NULL)
		return why(buf, size, "an IPv6 zone identifier names a local "
		    "interface");
	if (inet_pton(AF_INET6, host, a6) != 1) {
		snprintf(buf, size, "'[%s]' is not an IPv6 address", host);
		return -1;
	}
	if (public != 0 && (what = ipv6_reserved(a6)) != NULL) {
		snprintf(buf, size, "host [%s] is %s", host, what);
		return -1;
	}
	return 0;
}

static int
check_port(const char *p, char *buf, size_t size)
{
	unsigned long port = 0;

	if (*p == '\0')
		return why(buf, size, "empty port after ':'");
	for (; *p != '\0'; p++) {
		if (isdigit((unsigned char)*p) == 0)
			return why(buf, size, "the port is not a number");
		port = port * 10 + (unsigned long)(*p - '0');
		if (port > 65535)
			return why(buf, size, "the port is over 65535");
	}
	return port == 0 ? why(buf, size, "port 0") : 0;
}

/* Splits the authority "host[:port]" and checks both. */
static int
check_authority(const char *auth, int public, char *buf, size_t size)
{
	char host[UTIL_HOSTNAME_MAX + 2];
	const char *end, *port = NULL;
	unsigned char a4[4];
	size_t n;
	int bracketed = auth[0] == '[';

	if (strchr(auth, '@') != NULL)
		return why(buf, size, "credentials (user@) in the URL");
	if (bracketed != 0) {
		if ((end = strchr(auth, ']')) == NULL)
			return why(buf, size, "unclosed '[' in the host");
		port = end[1] == ':' ? end + 2 : NULL;
		if (end[1] != '\0' && end[1] != ':')
			return why(buf, size, "junk after ']'");
		n = (size_t)(end - auth - 1);
		auth++;
	} else {
		end = strchr(auth, ':');
		port = end != NULL ? end + 1 : NULL;
		n = end != NULL ? (size_t)(end - auth) : strlen(auth);
	}
	if (n == 0)
		return why(buf, size, "no host");
	if (n > UTIL_HOSTNAME_MAX)
		return why(buf, size, "the host is longer than 253 characters");
	memcpy(host, auth, n);
	host[n] = '\0';
	if (host[n - 1] == '.')
		host[n - 1] = '\0';
	if (port != NULL && check_port(port, buf, size) != 0)
		return -1;
	if (bracketed != 0)
		return check_ipv6(host, public, buf, size);
	if (public != 0)
		return check_public_name(host, buf, size);
	if (util_hostname_valid(host, strlen(host)) || inet_pton(AF_INET, host, a4) == 1)
		return 0;
	return why(buf, size, "not a valid host name");
}

int
formats_url_check(const char *url, int public, char *buf, size_t size)
{
	char auth[UTIL_HOSTNAME_MAX + 16];
	const char *p, *end;
	size_t n;

	for (p = url; *p != '\0'; p++) {
		if ((unsigned char)*p <= 0x20 || *p == 0x7f)
			return why(buf, size, "spaces or control characters in "
			    "the URL");
	}
	if (strncasecmp(url, "https://", 8) != 0) {
		if (strncasecmp(url, "http://", 7) == 0)
			return why(buf, size, "plain http: the URL must use https");
		return why(buf, size, "the URL must start with https://");
	}
	p = url + 8;
	end = p + strcspn(p, "/?#");
	n = (size_t)(end - p);
	if (n >= sizeof(auth))
		return why(buf, size, "the host part is too long");
	memcpy(auth, p, n);
	auth[n] = '\0';
	return check_authority(auth, public, buf, size);
}

/* The authority's port after `colon` (NULL: none, 443). */
static int
authority_port(const char *colon, unsigned *port)
{
	unsigned long v = 0;
	const char *p;

	*port = 443;
	if (colon == NULL)
		return 0;
	for (p = colon + 1; *p != '\0'; p++) {
		if (isdigit((unsigned char)*p) == 0 || (v = v * 10 +
		    (unsigned long)(*p - '0')) > 65535)
			return -1;
	}
	if (v == 0)
		return -1;
	*port = (unsigned)v;
	return 0;
}

int
formats_url_host_port(const char *url, char *host, size_t size,
    unsigned *port)
{
	char auth[UTIL_HOSTNAME_MAX + 16];
	const char *p = url + 8, *colon;
	size_t n;

	if (strncasecmp(url, "https://", 8) != 0)
		return -1;
	n = strcspn(p, "/?#");
	if (n == 0 || n >= sizeof(auth))
		return -1;
	memcpy(auth, p, n);
	auth[n] = '\0';
	/* An IPv6 host keeps its brackets; its colons are not the port's. */
	colon = auth[0] == '[' ? strchr(auth, ']') : auth;
	if (colon == NULL || strchr(auth, '@') != NULL)
		return -1;
	colon = strchr(colon, ':');
	n = colon != NULL ? (size_t)(colon - auth) : strlen(auth);
	if (n > 0 && auth[n - 1] == '.')
		n--;
	if (n == 0 || n >= size || authority_port(colon, port) != 0)
		return -1;
	memcpy(host, auth, n);
	host[n] = '\0';
	return 0;
}
