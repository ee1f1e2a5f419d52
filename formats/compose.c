/* What an autograph pack's compose files let it do (formats/compose.h). */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "formats/compose.h"
#include "util/strings.h"

/* Reading one compose file. */
typedef struct compose_read {
	formats_check *ck;
	const char *path;              /* the compose file */
	const util_yaml_node *volumes; /* its top-level volumes, or NULL */
	ps_service *s;                 /* the service being read */
	const char *name;              /* its name (the YAML key's text) */
} compose_read;

/* A piece of a short-syntax value. */
typedef struct compose_span {
	const char *p;
	size_t n;
} compose_span;

/* A value Compose refuses: an error (a rule newer than signed packs). */
static void
invalid(compose_read *r, const util_yaml_node *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
invalid(compose_read *r, const util_yaml_node *at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	formats_check_vreport_later(r->ck, r->path, at,
	    "autograph_compose_invalid", fmt, ap);
	va_end(ap);
}

/* More than packsign reads: an error too, so that no cut goes unseen. */
static void
limit(compose_read *r, const util_yaml_node *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
limit(compose_read *r, const util_yaml_node *at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	formats_check_vreport_later(r->ck, r->path, at,
	    "autograph_compose_limit", fmt, ap);
	va_end(ap);
}

/* A value packsign cannot know: a warning, the model assumes the worst. */
static void
unresolved(compose_read *r, const util_yaml_node *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
unresolved(compose_read *r, const util_yaml_node *at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	formats_check_vreport_in(r->ck, PS_SEVERITY_WARNING, r->path, at->line,
	    at->column, "autograph_compose_unresolved", fmt, ap);
	va_end(ap);
}

static int
is_null(const util_yaml_node *node)
{
	return node->kind == UTIL_YAML_SCALAR && node->type == UTIL_YAML_NULL;
}

/* The value at `key`, NULL when absent or null (Compose's "not set"). */
static const util_yaml_node *
value_at(const util_yaml_node *map, const char *key)
{
	const util_yaml_node *v = util_yaml_get(map, key);

	return v == NULL || is_null(v) ? NULL : v;
}

/* Compose replaces $VAR and ${VAR...} from the environment ("$$" is one
 * '$'; a '$' before anything else Compose refuses): any other '$' makes
 * the value unknown here. */
static int
interpolated(const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s != '$')
			continue;
		if (s[1] != '$')
			return 1;
		s++;
	}
	return 0;
}

/* What a message says was found: "string 'x'", "integer '5'", "list". */
static const char *
found(const util_yaml_node *v, char *buf, size_t size)
{
	size_t n = v->length < 64 ? v->length : 64;

	if (v->kind != UTIL_YAML_SCALAR || v->type == UTIL_YAML_NULL)
		return util_yaml_describe(v);
	/* Cut on a character boundary: messages stay UTF-8. */
	while (n > 0 && n < v->length &&
	    ((unsigned char)v->value[n] & 0xc0) == 0x80)
		n--;
	snprintf(buf, size, "%s '%.*s%s'", util_yaml_describe(v), (int)n,
	    v->value, n < v->length ? "..." : "");
	return buf;
}

/* 0 when `text` is short enough to keep, else -1 after a diagnostic. */
static int
fits(compose_read *r, const util_yaml_node *at, const char *text)
{
	size_t n = strlen(text);

	if (n <= PS_COMPOSE_MAX_VALUE)
		return 0;
	limit(r, at, "service '%s': a value of %zu bytes; packsign reads at "
	    "most %d", r->name, n, PS_COMPOSE_MAX_VALUE);
	return -1;
}

/* A copy of `text` for the model; NULL when too long (reported). */
static char *
keep(compose_read *r, const util_yaml_node *at, const char *text)
{
	return fits(r, at, text) == 0 ? formats_check_strdup(r->ck, text) :
	    NULL;
}

/* The string at `key`; another type is refused as Compose refuses it. */
static char *
read_string(compose_read *r, const util_yaml_node *svc, const char *key)
{
	const util_yaml_node *v = value_at(svc, key);

	if (v == NULL)
		return NULL;
	if (util_yaml_string(v) == NULL) {
		invalid(r, v, "service '%s': '%s' must be a string, found %s",
		    r->name, key, util_yaml_describe(v));
		return NULL;
	}
	return keep(r, v, v->value);
}

/* How compose-go casts a boolean string: 1, 0, or -1 for neither. */
static int
bool_word(const char *s)
{
	static const char *const words[] = { "y", "yes", "true", "on", "n",
	    "no", "false", "off" };
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (strcasecmp(s, words[i]) == 0)
			return i < 4 ? 1 : 0;
	}
	return -1;
}

/*
 * A boolean that grants something (privileged): true or false, or a
 * string Compose casts (yes, on, ...).  A value from the environment, or
 * one Compose refuses, counts as true: the summary must not say less than
 * the service may get.
 */
static int
read_grant(compose_read *r, const util_yaml_node *svc, const char *key)
{
	const util_yaml_node *v = value_at(svc, key);
	const char *text;
	char buf[96];
	int b;

	if (v == NULL)
		return 0;
	if (util_yaml_bool(v, &b) == 0)
		return b != 0;
	if ((text = util_yaml_string(v)) != NULL && interpolated(text) != 0) {
		unresolved(r, v, "service '%s': '%s: %s' depends on the "
		    "environment; counted as true", r->name, key, text);
		return 1;
	}
	if (text != NULL && (b = bool_word(text)) >= 0)
		return b;
	invalid(r, v, "service '%s': '%s' must be true or false, found %s; "
	    "counted as true", r->name, key, found(v, buf, sizeof(buf)));
	return 1;
}

/* network_mode, pid, ipc: kept as written; "host", or a value from the
 * environment (which may be host), sets *host. */
static void
read_namespace(compose_read *r, const util_yaml_node *svc, const char *key,
    char **out, int *host)
{
	const util_yaml_node *v = value_at(svc, key);

	if (v == NULL)
		return;
	if (util_yaml_string(v) == NULL) {
		invalid(r, v, "service '%s': '%s' must be a string, found %s",
		    r->name, key, util_yaml_describe(v));
		*host = 1;
		return;
	}
	*out = keep(r, v, v->value);
	if (strcmp(v->value, "host") == 0) {
		*host = 1;
	} else if (interpolated(v->value) != 0) {
		unresolved(r, v, "service '%s': '%s: %s' depends on the "
		    "environment; counted as host", r->name, key, v->value);
		*host = 1;
	}
}

/* The list at `key` (NULL when not set or refused); past
 * PS_COMPOSE_MAX_ENTRIES entries a limit diagnostic, callers read that
 * many. */
static const util_yaml_node *
list_at(compose_read *r, const util_yaml_node *svc, const char *key)
{
	const util_yaml_node *v = value_at(svc, key);

	if (v == NULL)
		return NULL;
	if (v->kind != UTIL_YAML_SEQUENCE) {
		invalid(r, v, "service '%s': '%s' must be a list, found %s",
		    r->name, key, util_yaml_describe(v));
		return NULL;
	}
	if (v->count > PS_COMPOSE_MAX_ENTRIES)
		limit(r, v, "service '%s': '%s' lists %zu entries; packsign "
		    "reads at most %d", r->name, key, v->count,
		    PS_COMPOSE_MAX_ENTRIES);
	return v;
}

static size_t
entries(const util_yaml_node *list)
{
	return list->count < PS_COMPOSE_MAX_ENTRIES ? list->count :
	    PS_COMPOSE_MAX_ENTRIES;
}

/* cap_add, security_opt: lists of strings, kept as written. */
static void
read_strings(compose_read *r, const util_yaml_node *svc, const char *key,
    ps_strings *out)
{
	const util_yaml_node *list = list_at(r, svc, key), *item;
	size_t i;

	for (i = 0; list != NULL && i < entries(list); i++) {
		item = list->items[i];
		if (util_yaml_string(item) == NULL)
			invalid(r, item, "service '%s': '%s' entries must be "
			    "strings, found %s", r->name, key,
			    util_yaml_describe(item));
		else if (fits(r, item, item->value) == 0)
			formats_check_strings_add(r->ck, out, item->value);
	}
}

/* An optional string of a long-syntax entry: 0 (set or absent), -1
 * refused. */
static int
entry_string(compose_read *r, const util_yaml_node *entry, const char *key,
    const char *what, const char **out)
{
	const util_yaml_node *v = value_at(entry, key);

	*out = NULL;
	if (v == NULL)
		return 0;
	if ((*out = util_yaml_string(v)) != NULL)
		return 0;
	invalid(r, v, "service '%s': '%s' of %s must be a string, found %s",
	    r->name, key, what, util_yaml_describe(v));
	return -1;
}

/* A device in the long syntax, written source[:target[:permissions]]. */
static void
device_long(compose_read *r, const util_yaml_node *d)
{
	const char *src, *dst, *perm;
	char *text = NULL;

	if (entry_string(r, d, "source", "a device", &src) != 0 ||
	    entry_string(r, d, "target", "a device", &dst) != 0 ||
	    entry_string(r, d, "permissions", "a device", &perm) != 0)
		return;
	if (src == NULL) {
		invalid(r, d, "service '%s': a device in the long syntax needs "
		    "'source'", r->name);
		return;
	}
	if (dst == NULL && perm != NULL)
		dst = src;
	if (asprintf(&text, "%s%s%s%s%s", src, dst != NULL ? ":" : "",
	    dst != NULL ? dst : "", perm != NULL ? ":" : "",
	    perm != NULL ? perm : "") < 0) {
		formats_check_oom(r->ck);
		return;
	}
	if (fits(r, d, text) == 0)
		formats_check_strings_add(r->ck, &r->s->devices, text);
	free(text);
}

static void
read_devices(compose_read *r, const util_yaml_node *svc)
{
	const util_yaml_node *list = list_at(r, svc, "devices"), *item;
	size_t i;

	for (i = 0; list != NULL && i < entries(list); i++) {
		item = list->items[i];
		if (item->kind == UTIL_YAML_MAPPING)
			device_long(r, item);
		else if (util_yaml_string(item) == NULL)
			invalid(r, item, "service '%s': a device must be a string "
			    "or a mapping, found %s", r->name,
			    util_yaml_describe(item));
		else if (fits(r, item, item->value) == 0)
			formats_check_strings_add(r->ck, &r->s->devices,
			    item->value);
	}
}

/* ------------------------------------------------------------------ ports */

/* A port or a range "LO-HI" of at most 5 digits each, LO <= HI <= 65535. */
static int
port_range(compose_span s, unsigned *lo, unsigned *hi)
{
	const char *dash = memchr(s.p, '-', s.n);
	unsigned *out[2] = { lo, hi };
	compose_span part[2];
	size_t i, j;

	part[0] = (compose_span){ s.p, dash != NULL ? (size_t)(dash - s.p) : s.n };
	part[1] = dash != NULL ? (compose_span){ dash + 1,
	    s.n - part[0].n - 1 } : part[0];
	for (i = 0; i < 2; i++) {
		if (part[i].n == 0 || part[i].n > 5)
			return -1;
		*out[i] = 0;
		for (j = 0; j < part[i].n; j++) {
			if (isdigit((unsigned char)part[i].p[j]) == 0)
				return -1;
			*out[i] = *out[i] * 10 + (unsigned)(part[i].p[j] - '0');
		}
	}
	return *lo <= *hi && *hi <= 65535 ? 0 : -1;
}

/* An IP address, bare or in brackets; empty means every interface. */
static int
port_ip(compose_span s, char *out, size_t size)
{
	unsigned char addr[16];

	if (s.n >= 2 && s.p[0] == '[' && s.p[s.n - 1] == ']') {
		s.p++;
		s.n -= 2;
	}
	if (s.n >= size)
		return -1;
	memcpy(out, s.p, s.n);
	out[s.n] = '\0';
	if (s.n == 0)
		return 0;
	return inet_pton(AF_INET, out, addr) == 1 ||
	    inet_pton(AF_INET6, out, addr) == 1 ? 0 : -1;
}

/* What a port spec says. */
typedef struct compose_port {
	char ip[64];
	compose_span proto;
	unsigned published, published_last, target, target_last;
} compose_port;

/* Docker's protocols, in any case. */
static int
port_protocol(compose_span s)
{
	static const char *const known[] = { "tcp", "udp", "sctp" };
	size_t i;

	for (i = 0; i < 3; i++) {
		if (s.n == strlen(known[i]) &&
		    strncasecmp(s.p, known[i], s.n) == 0)
			return 0;
	}
	return -1;
}

/*
 * [[IP:]HOST:]CONTAINER[/PROTOCOL], split as Docker splits it: the last
 * ':'-separated part is the container's, the one before it the host's,
 * everything before that the IP (an IPv6 address holds colons).
 */
static const char *
port_parse(const char *text, compose_port *p)
{
	const char *slash = strrchr(text, '/'), *end, *c2, *c1;

	memset(p, 0, sizeof(*p));
	end = slash != NULL ? slash : text + strlen(text);
	if (slash != NULL && port_protocol((compose_span){ slash + 1,
	    strlen(slash + 1) }) != 0)
		return "the protocol is not tcp, udp or sctp";
	if (slash != NULL)
		p->proto = (compose_span){ slash + 1, strlen(slash + 1) };
	c2 = memrchr(text, ':', (size_t)(end - text));
	if (port_range((compose_span){ c2 != NULL ? c2 + 1 : text,
	    (size_t)(end - (c2 != NULL ? c2 + 1 : text)) }, &p->target,
	    &p->target_last) != 0)
		return "the container port is not a port or a range";
	if (c2 == NULL)
		return NULL;
	c1 = memrchr(text, ':', (size_t)(c2 - text));
	if (c2 > (c1 != NULL ? c1 + 1 : text) && port_range((compose_span){
	    c1 != NULL ? c1 + 1 : text, (size_t)(c2 - (c1 != NULL ? c1 + 1 :
	    text)) }, &p->published, &p->published_last) != 0)
		return "the host port is not a port or a range";
	if (c1 != NULL && port_ip((compose_span){ text, (size_t)(c1 - text) },
	    p->ip, sizeof(p->ip)) != 0)
		return "the host address is not an IP address";
	return NULL;
}

/* Appends a port; takes `text` (NULL after memory ran out: nothing). */
static void
push_port(compose_read *r, char *text, const compose_port *p,
    const char *host_ip, const char *protocol)
{
	ps_port *grown, *port;

	if (text == NULL)
		return;
	grown = realloc(r->s->ports, (r->s->port_count + 1) * sizeof(*grown));
	if (grown == NULL) {
		free(text);
		formats_check_oom(r->ck);
		return;
	}
	r->s->ports = grown;
	port = &grown[r->s->port_count++];
	memset(port, 0, sizeof(*port));
	port->text = text;
	port->published = p->published;
	port->published_last = p->published_last;
	port->target = p->target;
	port->host_ip = host_ip != NULL && host_ip[0] != '\0' ?
	    formats_check_strdup(r->ck, host_ip) : NULL;
	port->protocol = protocol != NULL ? formats_check_strdup(r->ck,
	    protocol) : NULL;
}

/* A port in the short syntax (a string); interpolated: kept as written,
 * its numbers unknown (0). */
static void
port_short(compose_read *r, const util_yaml_node *at)
{
	compose_port p;
	const char *why;
	char *proto;

	if (fits(r, at, at->value) != 0)
		return;
	if (interpolated(at->value) != 0) {
		memset(&p, 0, sizeof(p));
		push_port(r, formats_check_strdup(r->ck, at->value), &p, NULL,
		    NULL);
		return;
	}
	if ((why = port_parse(at->value, &p)) != NULL) {
		invalid(r, at, "service '%s': port '%s' is not "
		    "[[IP:]HOST:]CONTAINER[/PROTOCOL]: %s", r->name, at->value,
		    why);
		return;
	}
	proto = p.proto.p != NULL ? strndup(p.proto.p, p.proto.n) : NULL;
	if (p.proto.p != NULL && proto == NULL) {
		formats_check_oom(r->ck);
		return;
	}
	push_port(r, formats_check_strdup(r->ck, at->value), &p, p.ip, proto);
	free(proto);
}

/* A number of the long syntax (an integer, or a string holding a port or
 * a range); from the environment: 0.  0, or -1 refused. */
static int
port_number(compose_read *r, const util_yaml_node *v, const char *key,
    unsigned *lo, unsigned *hi)
{
	char buf[96];
	long long n;

	*lo = *hi = 0;
	if (v == NULL)
		return 0;
	if (util_yaml_int(v, &n) == 0 && n >= 0 && n <= 65535) {
		*lo = *hi = (unsigned)n;
		return 0;
	}
	if (util_yaml_string(v) != NULL && (interpolated(v->value) != 0 ||
	    port_range((compose_span){ v->value, v->length }, lo, hi) == 0))
		return 0;
	invalid(r, v, "service '%s': '%s' of a port must be a port number or "
	    "a range, found %s", r->name, key, found(v, buf, sizeof(buf)));
	return -1;
}

/* The long syntax written the short way: [IP:][PUBLISHED:]TARGET[/PROTO]. */
static char *
port_text(const char *ip, const util_yaml_node *published,
    const util_yaml_node *target, const char *proto)
{
	int v6 = ip != NULL && strchr(ip, ':') != NULL;
	char *text = NULL;

	if (asprintf(&text, "%s%s%s%s%s%s%s%s%s", v6 ? "[" : "",
	    ip != NULL ? ip : "", v6 ? "]" : "", ip != NULL ? ":" : "",
	    published != NULL ? published->value : "",
	    published != NULL || ip != NULL ? ":" : "",
	    target->value, proto != NULL ? "/" : "",
	    proto != NULL ? proto : "") < 0)
		return NULL;
	return text;
}

/* A port in the long syntax: target, published, host_ip, protocol. */
static void
port_long(compose_read *r, const util_yaml_node *entry)
{
	const util_yaml_node *target = value_at(entry, "target"),
	    *published = value_at(entry, "published");
	const char *ip, *proto;
	compose_port p;
	char *text;

	memset(&p, 0, sizeof(p));
	if (target == NULL) {
		invalid(r, entry, "service '%s': a port in the long syntax needs "
		    "'target'", r->name);
		return;
	}
	if (port_number(r, target, "target", &p.target, &p.target_last) != 0 ||
	    port_number(r, published, "published", &p.published,
	    &p.published_last) != 0 ||
	    entry_string(r, entry, "host_ip", "a port", &ip) != 0 ||
	    entry_string(r, entry, "protocol", "a port", &proto) != 0)
		return;
	if ((text = port_text(ip, published, target, proto)) == NULL) {
		formats_check_oom(r->ck);
		return;
	}
	if (fits(r, entry, text) != 0) {
		free(text);
		return;
	}
	push_port(r, text, &p, ip, proto);
}

static void
read_ports(compose_read *r, const util_yaml_node *svc)
{
	const util_yaml_node *list = list_at(r, svc, "ports"), *item;
	compose_port p;
	long long n;
	size_t i;

	for (i = 0; list != NULL && i < entries(list); i++) {
		item = list->items[i];
		memset(&p, 0, sizeof(p));
		if (item->kind == UTIL_YAML_MAPPING)
			port_long(r, item);
		else if (util_yaml_string(item) != NULL)
			port_short(r, item);
		else if (util_yaml_int(item, &n) == 0 && n >= 0 && n <= 65535) {
			p.target = p.target_last = (unsigned)n;
			push_port(r, formats_check_strdup(r->ck, item->value), &p,
			    NULL, NULL);
		} else if (item->kind == UTIL_YAML_SCALAR &&
		    item->type == UTIL_YAML_INT)
			invalid(r, item, "service '%s': port %s is not between 0 "
			    "and 65535", r->name, item->value);
		else
			invalid(r, item, "service '%s': a port must be a number, a "
			    "string or a mapping, found %s", r->name,
			    util_yaml_describe(item));
	}
}

/* ---------------------------------------------------------------- volumes */

/* `opt` is one of the comma-separated options of `list`. */
static int
has_option(const char *list, size_t len, const char *opt)
{
	size_t n = strlen(opt), i = 0, e;

	while (i <= len) {
		for (e = i; e < len && list[e] != ','; e++)
			;
		if (e - i == n && strncmp(list + i, opt, n) == 0)
			return 1;
		i = e + 1;
	}
	return 0;
}

/* A source Compose takes for a host path (compose-go's isFilePath): it
 * starts with '.', '/', '~', "\\\\", or a drive letter and ':'. */
static int
is_host_path(const char *s)
{
	if (s[0] == '.' || s[0] == '/' || s[0] == '~')
		return 1;
	if (s[0] == '\\' && s[1] == '\\')
		return 1;
	return isalpha((unsigned char)s[0]) != 0 && s[1] == ':';
}

/* The host path a named volume (used at `at`) binds, when the top-level
 * `volumes` defines it with the local driver's bind option (driver_opts:
 * o: bind, device: PATH); else NULL.  Options from the environment may
 * bind: counted as binding, and said. */
static const char *
volume_device(compose_read *r, const util_yaml_node *at, const char *name)
{
	const util_yaml_node *opts = util_yaml_get(util_yaml_get(r->volumes,
	    name), "driver_opts");
	const char *o = util_yaml_string(util_yaml_get(opts, "o")),
	    *device = util_yaml_string(util_yaml_get(opts, "device"));

	if (o == NULL || device == NULL)
		return NULL;
	if (has_option(o, strlen(o), "bind") != 0 ||
	    has_option(o, strlen(o), "rbind") != 0)
		return device;
	if (interpolated(o) == 0)
		return NULL;
	unresolved(r, at, "service '%s': the options of volume '%s' ('o: %s') "
	    "depend on the environment; counted as a bind mount of '%s'",
	    r->name, name, o, device);
	return device;
}

/* Appends a mount to the host mounts or the named volumes. */
static void
push_mount(compose_read *r, int host, const char *source,
    const char *target, int read_only)
{
	ps_mount **list = host != 0 ? &r->s->host_mounts : &r->s->volumes;
	size_t *count = host != 0 ? &r->s->host_mount_count :
	    &r->s->volume_count;
	ps_mount *grown;

	grown = realloc(*list, (*count + 1) * sizeof(*grown));
	if (grown == NULL) {
		formats_check_oom(r->ck);
		return;
	}
	*list = grown;
	grown += (*count)++;
	grown->source = formats_check_strdup(r->ck, source);
	grown->target = formats_check_strdup(r->ck, target);
	grown->read_only = read_only;
}

/* A named volume (used at `at`): a host mount when its definition binds
 * a host path, or when its name comes from the environment. */
static void
push_named(compose_read *r, const util_yaml_node *at, const char *name,
    const char *target, int read_only)
{
	const char *device;

	if (interpolated(name) != 0) {
		unresolved(r, at, "service '%s': volume '%s' takes its name from "
		    "the environment; counted as a host path", r->name, name);
		push_mount(r, 1, name, target, read_only);
		return;
	}
	device = volume_device(r, at, name);
	if (device != NULL && fits(r, at, device) != 0)
		return;
	push_mount(r, device != NULL, device != NULL ? device : name, target,
	    read_only);
}

/* The end of the ${...} that starts at `p` (nested ones included), so
 * that its colons (${VAR:-default}) split nothing: Compose interpolates
 * before it splits.  Unterminated: the end of the string. */
static const char *
braced_end(const char *p)
{
	size_t depth = 0;

	for (; *p != '\0'; p++) {
		if (p[0] == '$' && p[1] == '{') {
			depth++;
			p++;
		} else if (*p == '}' && --depth == 0) {
			return p;
		}
	}
	return p - 1;
}

/*
 * Splits a short volume at ':' as compose-go does: a one-letter part
 * followed by ':' is a Windows drive and stays whole; parts are not empty
 * and at most three.  Returns the number of parts, or 0 with *why set.
 */
static size_t
volume_split(const char *spec, compose_span part[3], const char **why)
{
	const char *start = spec, *p;
	size_t n = 0;

	for (p = spec;; p++) {
		if (p[0] == '$' && p[1] == '{')
			p = braced_end(p);
		else if (p[0] == '$' && p[1] == '$')
			p++;
		if (*p == ':' && p - start == 1 &&
		    isalpha((unsigned char)*start) != 0)
			continue;
		if (*p != ':' && *p != '\0')
			continue;
		if (p == start) {
			*why = "an empty part between colons";
			return 0;
		}
		if (n == 3) {
			*why = "too many colons";
			return 0;
		}
		part[n++] = (compose_span){ start, (size_t)(p - start) };
		if (*p == '\0')
			return n;
		start = p + 1;
	}
}

/* SOURCE:TARGET[:MODE]; TARGET alone (an anonymous volume) grants
 * nothing of the host and is not kept. */
static void
volume_short(compose_read *r, const util_yaml_node *at)
{
	compose_span part[3];
	const char *why = NULL;
	char *source, *target;
	size_t n;
	int ro;

	if (at->length == 0) {
		invalid(r, at, "service '%s': a volume is an empty string",
		    r->name);
		return;
	}
	if (fits(r, at, at->value) != 0 || at->length <= 2)
		return;	/* one or two bytes: a target (compose-go) */
	if ((n = volume_split(at->value, part, &why)) == 0) {
		invalid(r, at, "service '%s': volume '%s' is not "
		    "SOURCE:TARGET[:MODE]: %s", r->name, at->value, why);
		return;
	}
	if (n == 1)
		return;
	source = strndup(part[0].p, part[0].n);
	target = strndup(part[1].p, part[1].n);
	ro = n == 3 && has_option(part[2].p, part[2].n, "ro") != 0;
	if (source == NULL || target == NULL)
		formats_check_oom(r->ck);
	else if (interpolated(source) != 0) {
		unresolved(r, at, "service '%s': volume '%s' takes its source "
		    "from the environment; counted as a host path", r->name,
		    at->value);
		push_mount(r, 1, source, target, ro);
	} else if (is_host_path(source) != 0)
		push_mount(r, 1, source, target, ro);
	else
		push_named(r, at, source, target, ro);
	free(source);
	free(target);
}

/* The long syntax's read_only: a boolean or a string Compose casts. */
static int
volume_read_only(compose_read *r, const util_yaml_node *entry)
{
	const util_yaml_node *v = value_at(entry, "read_only");
	const char *text;
	char buf[96];
	int b;

	if (v == NULL || util_yaml_bool(v, &b) == 0)
		return v != NULL && b != 0;
	if ((text = util_yaml_string(v)) != NULL && (b = bool_word(text)) >= 0)
		return b;
	if (text == NULL || interpolated(text) == 0)
		invalid(r, v, "service '%s': 'read_only' of a volume must be "
		    "true or false, found %s", r->name, found(v, buf,
		    sizeof(buf)));
	return 0;
}

/* What a long-syntax type mounts: 1 a host path, 0 a named volume, -1
 * nothing of the host (tmpfs, an image), -2 refused. */
static int
volume_kind(compose_read *r, const util_yaml_node *type)
{
	static const char *const kinds[] = { "bind", "npipe", "volume",
	    "cluster", "tmpfs", "image" };
	static const int grants[] = { 1, 1, 0, 0, -1, -1 };
	char buf[96];
	size_t i;

	if (util_yaml_string(type) != NULL && interpolated(type->value) != 0) {
		unresolved(r, type, "service '%s': volume type '%s' depends on "
		    "the environment; counted as a bind mount", r->name,
		    type->value);
		return 1;
	}
	for (i = 0; util_yaml_string(type) != NULL && i < 6; i++) {
		if (strcmp(type->value, kinds[i]) == 0)
			return grants[i];
	}
	invalid(r, type, "service '%s': a volume's 'type' must be bind, volume, "
	    "tmpfs, cluster, npipe or image, found %s", r->name,
	    found(type, buf, sizeof(buf)));
	return -2;
}

/* A volume in the long syntax: type (required), source, target,
 * read_only.  Without a source nothing of the host is mounted. */
static void
volume_long(compose_read *r, const util_yaml_node *entry)
{
	const util_yaml_node *type = value_at(entry, "type");
	const char *source, *target;
	int kind, ro;

	if (type == NULL) {
		invalid(r, entry, "service '%s': a volume in the long syntax "
		    "needs 'type'", r->name);
		return;
	}
	kind = volume_kind(r, type);
	if (entry_string(r, entry, "source", "a volume", &source) != 0 ||
	    entry_string(r, entry, "target", "a volume", &target) != 0)
		return;
	ro = volume_read_only(r, entry);
	if (kind < 0 || source == NULL || fits(r, entry, source) != 0 ||
	    (target != NULL && fits(r, entry, target) != 0))
		return;
	if (kind == 1)
		push_mount(r, 1, source, target, ro);
	else
		push_named(r, entry, source, target, ro);
}

static void
read_volumes(compose_read *r, const util_yaml_node *svc)
{
	const util_yaml_node *list = list_at(r, svc, "volumes"), *item;
	size_t i;

	for (i = 0; list != NULL && i < entries(list); i++) {
		item = list->items[i];
		if (item->kind == UTIL_YAML_MAPPING)
			volume_long(r, item);
		else if (util_yaml_string(item) != NULL)
			volume_short(r, item);
		else
			invalid(r, item, "service '%s': a volume must be a string "
			    "or a mapping, found %s", r->name,
			    util_yaml_describe(item));
	}
}

/* --------------------------------------------------------------- services */

/* The Compose Specification's service names: ^[a-zA-Z0-9._-]+$. */
static int
name_valid(const util_yaml_node *key)
{
	return key->length > 0 && strspn(key->value, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == key->length;
}

/* Appends a service named by `key`; NULL after memory ran out. */
static ps_service *
add_service(compose_read *r, const util_yaml_node *key)
{
	ps_manifest *m = r->ck->m;
	ps_service *grown;

	grown = realloc(m->compose_services, (m->compose_service_count + 1) *
	    sizeof(*grown));
	if (grown == NULL) {
		formats_check_oom(r->ck);
		return NULL;
	}
	m->compose_services = grown;
	grown += m->compose_service_count++;
	memset(grown, 0, sizeof(*grown));
	grown->name = formats_check_strdup(r->ck, key->value);
	grown->file = formats_check_strdup(r->ck, r->path);
	grown->line = key->line;
	grown->column = key->column;
	formats_check_strings_add(r->ck, &m->services, key->value);
	return grown;
}

/* Every key the model holds, read from the service mapping `svc`. */
static void
read_keys(compose_read *r, const util_yaml_node *svc)
{
	ps_service *s = r->s;

	if (util_yaml_get(svc, "extends") != NULL)
		unresolved(r, util_yaml_get_key(svc, "extends"), "service '%s' "
		    "extends another service; what it inherits is not read",
		    r->name);
	s->image = read_string(r, svc, "image");
	s->user = read_string(r, svc, "user");
	s->privileged = read_grant(r, svc, "privileged");
	read_namespace(r, svc, "network_mode", &s->network_mode,
	    &s->host_network);
	read_namespace(r, svc, "pid", &s->pid, &s->host_pid);
	read_namespace(r, svc, "ipc", &s->ipc, &s->host_ipc);
	read_strings(r, svc, "cap_add", &s->cap_add);
	read_strings(r, svc, "security_opt", &s->security_opt);
	read_devices(r, svc);
	read_ports(r, svc);
	read_volumes(r, svc);
}

static void
read_service(compose_read *r, const util_yaml_node *key,
    const util_yaml_node *svc)
{
	r->name = key->value;
	if (name_valid(key) == 0)
		invalid(r, key, "service name '%s' must match ^[a-zA-Z0-9._-]+$",
		    key->value);
	if ((r->s = add_service(r, key)) == NULL || is_null(svc))
		return;
	if (svc->kind != UTIL_YAML_MAPPING) {
		invalid(r, svc, "service '%s' must be a mapping, found %s",
		    r->name, util_yaml_describe(svc));
		return;
	}
	read_keys(r, svc);
}

/* Refusals and warnings about the file as a whole. */
static void
check_file(compose_read *r, const util_yaml_node *root)
{
	const util_yaml_node *merge = formats_check_merge_key(root);

	if (merge != NULL)
		formats_check_report_later(r->ck, r->path, merge,
		    "autograph_compose_invalid", "YAML merge keys ('<<') are "
		    "refused, as anchors are: Compose would merge in values "
		    "packsign does not read");
	if (util_yaml_get(root, "include") != NULL)
		formats_check_report_in(r->ck, PS_SEVERITY_WARNING, r->path,
		    util_yaml_get_key(root, "include")->line,
		    util_yaml_get_key(root, "include")->column,
		    "autograph_compose_unresolved", "'include' adds the "
		    "services of other compose files, which are not read");
}

void
formats_compose_read(formats_check *ck, const char *path,
    const util_yaml_node *root)
{
	const util_yaml_node *services = util_yaml_get(root, "services");
	compose_read r;
	size_t i;

	memset(&r, 0, sizeof(r));
	r.ck = ck;
	r.path = path;
	r.volumes = util_yaml_get(root, "volumes");
	check_file(&r, root);
	for (i = 0; services != NULL && services->kind == UTIL_YAML_MAPPING &&
	    i < services->count && ck->failed == 0; i++) {
		if (ck->m->compose_service_count == PS_COMPOSE_MAX_SERVICES) {
			r.name = services->keys[i]->value;
			limit(&r, services->keys[i], "more than %d services in "
			    "the compose files; packsign reads at most %d",
			    PS_COMPOSE_MAX_SERVICES, PS_COMPOSE_MAX_SERVICES);
			return;
		}
		read_service(&r, services->keys[i], services->items[i]);
	}
}

/* ---------------------------------------------------------------- freeing */

static void
free_mounts(ps_mount *list, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++) {
		free(list[i].source);
		free(list[i].target);
	}
	free(list);
}

static void
free_service(ps_service *s)
{
	size_t i;

	for (i = 0; i < s->port_count; i++) {
		free(s->ports[i].text);
		free(s->ports[i].host_ip);
		free(s->ports[i].protocol);
	}
	free(s->ports);
	free_mounts(s->volumes, s->volume_count);
	free_mounts(s->host_mounts, s->host_mount_count);
	util_strings_clear(&s->cap_add);
	util_strings_clear(&s->devices);
	util_strings_clear(&s->security_opt);
	free(s->name);
	free(s->file);
	free(s->image);
	free(s->network_mode);
	free(s->pid);
	free(s->ipc);
	free(s->user);
}

void
formats_compose_free(ps_manifest *m)
{
	size_t i;

	for (i = 0; i < m->compose_service_count; i++)
		free_service(&m->compose_services[i]);
	free(m->compose_services);
	m->compose_services = NULL;
	m->compose_service_count = 0;
}

/* ------------------------------------------------------------- describing */

/* Opens the sentence with `lead` or separates the next item. */
static void
item_start(formats_text *t, size_t *n, const char *lead)
{
	fprintf(t->f, "%s", *n == 0 ? lead : FORMATS_TR(t, ", ", "、"));
	(*n)++;
}

static void
sentence_end(formats_text *t, size_t n)
{
	if (n > 0)
		fprintf(t->f, "%s\n", FORMATS_TR(t, ".", "。"));
}

/* "ITEM (SERVICE)" or "ITEM (SERVICE, NOTE)". */
static void
describe_item(formats_text *t, size_t *n, const char *lead, const char *text,
    const char *service, const char *note)
{
	item_start(t, n, lead);
	fprintf(t->f, "%s%s%s", formats_text_value(t, text),
	    FORMATS_TR(t, " (", "（"), formats_text_value(t, service));
	if (note != NULL)
		fprintf(t->f, "%s%s", FORMATS_TR(t, ", ", "，"), note);
	fprintf(t->f, "%s", FORMATS_TR(t, ")", "）"));
}

static void
host_mounts(formats_text *t, const ps_manifest *m)
{
	const ps_service *s;
	size_t i, j, n = 0;

	for (i = 0; i < m->compose_service_count; i++) {
		s = &m->compose_services[i];
		for (j = 0; j < s->host_mount_count; j++)
			describe_item(t, &n, FORMATS_TR(t, "It mounts host paths into "
			    "services: ", "将主机路径挂载进服务："),
			    s->host_mounts[j].source, s->name,
			    s->host_mounts[j].read_only != 0 ?
			    FORMATS_TR(t, "read-only", "只读") : NULL);
	}
	sentence_end(t, n);
}

static int
privileged(const ps_service *s)
{
	return s->privileged;
}

static int
host_network(const ps_service *s)
{
	return s->host_network;
}

static int
host_pid(const ps_service *s)
{
	return s->host_pid;
}

static int
host_ipc(const ps_service *s)
{
	return s->host_ipc;
}

/* The services `has` holds for, each name once (an override file may
 * name a service of the base file again). */
static void
flagged(formats_text *t, const ps_manifest *m,
    int (*has)(const ps_service *), const char *lead)
{
	const ps_service *s = m->compose_services;
	size_t i, j, n = 0;

	for (i = 0; i < m->compose_service_count; i++) {
		if (has(&s[i]) == 0)
			continue;
		for (j = 0; j < i; j++) {
			if (has(&s[j]) != 0 && s[i].name != NULL &&
			    s[j].name != NULL && strcmp(s[i].name, s[j].name) == 0)
				break;
		}
		if (j < i)
			continue;
		item_start(t, &n, lead);
		fprintf(t->f, "%s", formats_text_value(t, s[i].name));
	}
	sentence_end(t, n);
}

static const ps_strings *
cap_add(const ps_service *s)
{
	return &s->cap_add;
}

static const ps_strings *
devices(const ps_service *s)
{
	return &s->devices;
}

/* Every entry of the list `of` gives, with its service. */
static void
listed(formats_text *t, const ps_manifest *m,
    const ps_strings *(*of)(const ps_service *), const char *lead)
{
	const ps_service *s;
	const ps_strings *l;
	size_t i, j, n = 0;

	for (i = 0; i < m->compose_service_count; i++) {
		s = &m->compose_services[i];
		l = of(s);
		for (j = 0; j < l->count; j++)
			describe_item(t, &n, lead, l->items[j], s->name, NULL);
	}
	sentence_end(t, n);
}

void
formats_compose_describe(formats_text *t, const ps_manifest *m)
{
	host_mounts(t, m);
	flagged(t, m, privileged, FORMATS_TR(t,
	    "Services that run privileged, with full access to the host: ",
	    "以特权模式运行、可完全访问主机的服务："));
	flagged(t, m, host_network, FORMATS_TR(t,
	    "Services that use the host's network: ", "使用主机网络的服务："));
	flagged(t, m, host_pid, FORMATS_TR(t,
	    "Services that share the host's process namespace: ",
	    "共享主机进程命名空间的服务："));
	flagged(t, m, host_ipc, FORMATS_TR(t,
	    "Services that share the host's IPC namespace: ",
	    "共享主机 IPC 命名空间的服务："));
	listed(t, m, cap_add, FORMATS_TR(t,
	    "It adds Linux capabilities: ", "新增 Linux 能力："));
	listed(t, m, devices, FORMATS_TR(t,
	    "It gives services host devices: ", "交给服务的主机设备："));
}
