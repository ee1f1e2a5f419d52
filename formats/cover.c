/*
 * When one permission covers another: a ceiling's host or path and a
 * pack's (verify's step 7), an old version's and a new one's (an
 * upgrade's diff, where what no old rule covers widens).  One reading
 * for both, so that a diff never calls narrow what a ceiling calls wide.
 */
#include <stdio.h>
#include <string.h>

#include "formats/cover.h"

/* ASCII case-insensitive equality: a host program's locale must not
 * decide whether two host names are one. */
static int
same_ascii(const char *a, const char *b)
{
	unsigned char x, y;

	for (;; a++, b++) {
		x = (unsigned char)(*a >= 'A' && *a <= 'Z' ? *a + 32 : *a);
		y = (unsigned char)(*b >= 'A' && *b <= 'Z' ? *b + 32 : *b);
		if (x != y)
			return 0;
		if (x == '\0')
			return 1;
	}
}

/* `name` ends in "." + `suffix` (so is a name below it, not it). */
static int
below(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);

	return n > k + 1 && name[n - k - 1] == '.' &&
	    same_ascii(name + n - k, suffix);
}

int
formats_host_covers(const char *c, const char *p)
{
	if (strcmp(c, "*") == 0)
		return 1;
	if (strcmp(p, "*") == 0)
		return 0;
	if (strncmp(c, "*.", 2) == 0 && strncmp(p, "*.", 2) == 0)
		return same_ascii(p + 2, c + 2) || below(p + 2, c + 2);
	if (strncmp(c, "*.", 2) == 0)
		return below(p, c + 2);
	return strncmp(p, "*.", 2) != 0 && same_ascii(c, p);
}

int
formats_egress_covers(const ps_egress *c, const ps_egress *p)
{
	return formats_host_covers(c->host, p->host) &&
	    (c->port == 0 || c->port == p->port) &&
	    (c->protocol == NULL ||
	    (p->protocol != NULL && same_ascii(c->protocol, p->protocol)));
}

static const char *
component(const char *s, size_t *n)
{
	while (*s == '/')
		s++;
	*n = strcspn(s, "/");
	return s;
}

int
formats_path_covers(const char *c, const char *p)
{
	size_t cn, pn;

	for (;;) {
		c = component(c, &cn);
		if (cn == 0)
			return 1;
		p = component(p, &pn);
		if (pn != cn || strncmp(c, p, cn) != 0)
			return 0;
		c += cn;
		p += pn;
	}
}

void
formats_egress_text(const ps_egress *e, char *out, size_t size)
{
	char port[16] = "";

	if (e->port != 0)
		snprintf(port, sizeof(port), ":%u", e->port);
	snprintf(out, size, "%s%s%s%s", e->host, port,
	    e->protocol != NULL ? "/" : "", e->protocol != NULL ?
	    e->protocol : "");
}
