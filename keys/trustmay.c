/*
 * A signer's `may:` and the policy's `consent:` (trust-policy.md,
 * "Permission ceilings", "Consent").  What a block leaves out is denied,
 * so the parser writes the denial down (booleans false, lists empty,
 * ordered values their lowest) and `trust check` can show a ceiling whole.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys/trustmay.h"
#include "util/duration.h"
#include "util/hostname.h"
#include "util/strings.h"

/* "*." + a host name + ":65535" + "/" + a protocol, and the NUL. */
#define HOST_PATTERN_MAX (2 + UTIL_HOSTNAME_MAX + 6 + 1 + 32 + 1)
#define PATH_MAX_BYTES 4096

const char *const keys_may_file_write[] = { "none", "workspace",
    "knowledge", NULL };
const char *const keys_may_tiers[] = { "read-only", "side-effect",
    "unrestricted", NULL };
const char *const keys_may_consent[] = { "permissions", "trust", "prompts",
    "code", NULL };

int
keys_may_rank(const char *const *order, const char *value)
{
	int i;

	for (i = 0; value != NULL && order[i] != NULL; i++) {
		if (strcmp(order[i], value) == 0)
			return i;
	}
	return -1;
}

unsigned
ps_consent_class_by_name(const char *name)
{
	int rank = keys_may_rank(keys_may_consent, name);

	return rank < 0 ? 0 : 1u << rank;
}

const char *
ps_consent_class_name(unsigned consent)
{
	int i;

	for (i = 0; keys_may_consent[i] != NULL; i++) {
		if (consent == 1u << i)
			return keys_may_consent[i];
	}
	return NULL;
}

void
ps_consent_class_list(unsigned classes, char *out, size_t size)
{
	size_t used;
	int i;

	if (size == 0)
		return;
	out[0] = '\0';
	for (i = 0; keys_may_consent[i] != NULL; i++) {
		if ((classes & (1u << i)) == 0)
			continue;
		used = strlen(out);
		snprintf(out + used, size - used, "%s%s", used > 0 ? ", " : "",
		    keys_may_consent[i]);
	}
}

static void
free_hosts(ps_egress *hosts, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++) {
		free(hosts[i].host);
		free(hosts[i].protocol);
	}
	free(hosts);
}

void
keys_may_free(ps_ceiling *c)
{
	if (c == NULL)
		return;
	free(c->agentpack.file_write);
	free_hosts(c->soyapack.egress, c->soyapack.egress_count);
	util_strings_clear(&c->soyapack.fs_read);
	util_strings_clear(&c->soyapack.fs_write);
	util_strings_clear(&c->soyapack.determinism_tiers);
	util_strings_clear(&c->holon.capabilities);
	free_hosts(c->holon.data_egress, c->holon.data_egress_count);
	free_hosts(c->holon.endpoint, c->holon.endpoint_count);
	free(c->holon.retention);
	free(c->holon.price_currency);
	util_strings_clear(&c->autograph.services);
	util_strings_clear(&c->autograph.tasks);
	free(c);
}

/* ------------------------------------------------------------ hosts */

/* "*", "*.NAME" or a NAME of the one host-name rule. */
static int
host_valid(const char *host)
{
	if (strcmp(host, "*") == 0)
		return 1;
	if (strncmp(host, "*.", 2) == 0)
		host += 2;
	return util_hostname_valid(host, strlen(host));
}

/* A protocol as SoyaPack writes one: [a-z][a-z0-9+.-]*. */
static int
protocol_valid(const char *p)
{
	if (*p < 'a' || *p > 'z')
		return 0;
	for (p++; *p != '\0'; p++) {
		if ((*p < 'a' || *p > 'z') && (*p < '0' || *p > '9') &&
		    strchr("+.-", *p) == NULL)
			return 0;
	}
	return 1;
}

static int
port_parse(const char *p, unsigned *out)
{
	unsigned long v = 0;

	if (*p == '\0')
		return -1;
	for (; *p != '\0'; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (unsigned long)(*p - '0');
		if (v > 65535)
			return -1;
	}
	if (v == 0)
		return -1;
	*out = (unsigned)v;
	return 0;
}

/* ASCII only: a host program's locale must not change a host name. */
static void
lower_copy(char *out, const char *in, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		out[i] = in[i] >= 'A' && in[i] <= 'Z' ? (char)(in[i] + 32) :
		    in[i];
	out[len] = '\0';
}

/*
 * Splits "host[:port][/protocol]", lowercased into `buf` (the host
 * stays there; *protocol points into it), and checks every part.
 * Returns 0, or -1 with the reason in *why.
 */
static int
host_pattern_split(const char *text, int hosts_only, char *buf,
    unsigned *port, const char **protocol, const char **why)
{
	size_t len = strlen(text);
	char *slash, *colon;

	*port = 0;
	*protocol = NULL;
	*why = "it is empty or too long";
	if (len == 0 || len >= HOST_PATTERN_MAX)
		return -1;
	lower_copy(buf, text, len);
	if ((slash = strchr(buf, '/')) != NULL) {
		*slash = '\0';
		*protocol = slash + 1;
		*why = "the protocol after '/' must be a name such as https";
		if (!protocol_valid(*protocol))
			return -1;
	}
	if ((colon = strchr(buf, ':')) != NULL) {
		*colon = '\0';
		*why = "the port after ':' must be a number from 1 to 65535";
		if (port_parse(colon + 1, port) != 0)
			return -1;
	}
	*why = "holon's data.egress names hosts only: no port or protocol";
	if (hosts_only && (slash != NULL || colon != NULL))
		return -1;
	*why = "the host must be '*', '*.NAME' or a host name";
	return host_valid(buf) ? 0 : -1;
}

static int
add_host(keys_trust_ctx *ctx, const util_yaml_node *item, int hosts_only,
    ps_egress **hosts, size_t *count)
{
	char buf[HOST_PATTERN_MAX];
	const char *protocol, *why;
	ps_egress *e;
	unsigned port;

	if (keys_trust_expect_kind(ctx, item, UTIL_YAML_SCALAR,
	    "a host pattern") != 0)
		return -1;
	if (host_pattern_split(item->value, hosts_only, buf, &port, &protocol,
	    &why) != 0)
		return keys_trust_at(ctx, item, "trust_pattern", "host pattern "
		    "'%.64s' must be HOST[:PORT][/PROTOCOL]: %s", item->value,
		    why);
	e = keys_trust_grow(ctx, (void **)hosts, count, sizeof(*e));
	if (e == NULL)
		return -1;
	e->port = port;
	e->host = strdup(buf);
	e->protocol = protocol != NULL ? strdup(protocol) : NULL;
	if (e->host == NULL || (protocol != NULL && e->protocol == NULL))
		return keys_trust_oom(ctx);
	return 0;
}

/* A list of host patterns under `key` (absent: none allowed). */
static int
parse_hosts(keys_trust_ctx *ctx, const util_yaml_node *block,
    const char *key, int hosts_only, ps_egress **hosts, size_t *count)
{
	const util_yaml_node *list = util_yaml_get(block, key);
	char what[64];
	size_t i;

	if (list == NULL)
		return 0;
	snprintf(what, sizeof(what), "'%s'", key);
	if (keys_trust_expect_kind(ctx, list, UTIL_YAML_SEQUENCE, what) != 0)
		return -1;
	for (i = 0; i < list->count; i++) {
		if (add_host(ctx, list->items[i], hosts_only, hosts,
		    count) != 0)
			return -1;
	}
	return 0;
}

/* ----------------------------------------------------- paths, globs */

/* An absolute path without '.' or '..' components or control
 * characters, written back with single slashes and no trailing one, so
 * that prefixes compare by component. */
static int
path_normalize(const char *in, char *out)
{
	const char *p = in, *end;
	size_t o = 1, n, i;

	if (in[0] != '/' || strlen(in) >= PATH_MAX_BYTES)
		return -1;
	out[0] = '/';
	while (*p != '\0') {
		for (; *p == '/'; p++)
			;
		end = p + strcspn(p, "/");
		n = (size_t)(end - p);
		if (n == 0)
			break;
		if ((n == 1 && p[0] == '.') ||
		    (n == 2 && strncmp(p, "..", 2) == 0))
			return -1;
		for (i = 0; i < n; i++) {
			if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
				return -1;
		}
		if (o > 1)
			out[o++] = '/';
		memcpy(out + o, p, n);
		o += n;
		p = end;
	}
	out[o] = '\0';
	return 0;
}

/* Checks each string of the list under `key` as a glob pattern (`glob`)
 * or a path and adds it to `out` (absent: none allowed). */
static int
parse_names(keys_trust_ctx *ctx, const util_yaml_node *block,
    const char *key, int glob, ps_strings *out)
{
	const util_yaml_node *list = util_yaml_get(block, key), *item;
	char what[64], path[PATH_MAX_BYTES];
	size_t i;

	if (list == NULL)
		return 0;
	snprintf(what, sizeof(what), "'%s'", key);
	if (keys_trust_expect_kind(ctx, list, UTIL_YAML_SEQUENCE, what) != 0)
		return -1;
	for (i = 0; i < list->count; i++) {
		item = list->items[i];
		if (keys_trust_expect_kind(ctx, item, UTIL_YAML_SCALAR,
		    glob ? "a name pattern" : "a path") != 0)
			return -1;
		if (glob && !keys_trust_pattern_valid(item->value))
			return keys_trust_at(ctx, item, "trust_pattern",
			    "pattern '%.64s' in %s must be 1 to %d printable "
			    "ASCII characters without spaces, '[', ']' or '\\'",
			    item->value, what, KEYS_TRUST_PATTERN_MAX);
		if (!glob && path_normalize(item->value, path) != 0)
			return keys_trust_at(ctx, item, "trust_pattern",
			    "path '%.64s' in %s must be absolute, without '.' "
			    "or '..' components or control characters",
			    item->value, what);
		if (util_strings_add(out, glob ? item->value : path) != 0)
			return keys_trust_oom(ctx);
	}
	return 0;
}

/* --------------------------------------------------- single values */

static int
parse_bool(keys_trust_ctx *ctx, const util_yaml_node *block,
    const char *key, int *out)
{
	const util_yaml_node *node = util_yaml_get(block, key);

	*out = 0;
	if (node != NULL && util_yaml_bool(node, out) != 0)
		return keys_trust_at(ctx, node, "trust_type", "'%s' must be "
		    "true or false, found %s", key, util_yaml_describe(node));
	return 0;
}

/* One value of `order` (absent: the lowest), copied to *out. */
static int
parse_choice(keys_trust_ctx *ctx, const util_yaml_node *block,
    const char *key, const char *const *order, char **out)
{
	const util_yaml_node *node = util_yaml_get(block, key);
	const char *value = order[0];
	char what[64];

	snprintf(what, sizeof(what), "'%s'", key);
	if (node != NULL) {
		if (keys_trust_expect_kind(ctx, node, UTIL_YAML_SCALAR,
		    what) != 0)
			return -1;
		if (keys_may_rank(order, node->value) < 0)
			return keys_trust_at(ctx, node, "trust_ceiling", "'%s' "
			    "must be one of %s, %s, %s, found '%.64s'", key,
			    order[0], order[1], order[2], node->value);
		value = node->value;
	}
	*out = strdup(value);
	return *out == NULL ? keys_trust_oom(ctx) : 0;
}

static int
tier_rank(keys_trust_ctx *ctx, const util_yaml_node *node)
{
	int r;

	if (keys_trust_expect_kind(ctx, node, UTIL_YAML_SCALAR,
	    "a determinism tier") != 0)
		return -1;
	r = keys_may_rank(keys_may_tiers, node->value);
	if (r < 0)
		return keys_trust_at(ctx, node, "trust_ceiling", "determinism "
		    "tier '%.64s' must be read-only, side-effect or "
		    "unrestricted", node->value);
	return r;
}

/* One tier: that tier and those below it; a list: exactly those listed;
 * absent: read-only, the lowest. */
static int
parse_tiers(keys_trust_ctx *ctx, const util_yaml_node *block,
    ps_strings *out)
{
	const util_yaml_node *node = util_yaml_get(block, "determinism_tier");
	int allowed[3] = { node == NULL, 0, 0 }, r, i;
	size_t j;

	if (node != NULL && node->kind == UTIL_YAML_SEQUENCE) {
		for (j = 0; j < node->count; j++) {
			if ((r = tier_rank(ctx, node->items[j])) < 0)
				return -1;
			allowed[r] = 1;
		}
	} else if (node != NULL) {
		if ((r = tier_rank(ctx, node)) < 0)
			return -1;
		for (i = 0; i <= r; i++)
			allowed[i] = 1;
	}
	for (i = 0; i < 3; i++) {
		if (allowed[i] && util_strings_add(out, keys_may_tiers[i]) != 0)
			return keys_trust_oom(ctx);
	}
	return 0;
}

/* "none" (also when absent) or an ISO 8601 duration. */
static int
parse_retention(keys_trust_ctx *ctx, const util_yaml_node *block,
    char **out)
{
	const util_yaml_node *node = util_yaml_get(block, "retention");
	const char *value = "none";

	if (node != NULL) {
		if (keys_trust_expect_kind(ctx, node, UTIL_YAML_SCALAR,
		    "'retention'") != 0)
			return -1;
		if (strcmp(node->value, "none") != 0 &&
		    util_duration_parse(node->value, NULL) != 0)
			return keys_trust_at(ctx, node, "trust_ceiling",
			    "'retention' must be none or an ISO 8601 duration "
			    "such as P7D, found '%.64s'", node->value);
		value = node->value;
	}
	*out = strdup(value);
	return *out == NULL ? keys_trust_oom(ctx) : 0;
}

static int
parse_timeout(keys_trust_ctx *ctx, const util_yaml_node *block,
    long long *out)
{
	const util_yaml_node *node = util_yaml_get(block, "timeout_s");

	*out = 0;
	if (node == NULL)
		return 0;
	if (util_yaml_int(node, out) != 0)
		return keys_trust_at(ctx, node, "trust_type", "'timeout_s' "
		    "must be a whole number of seconds, found %s",
		    util_yaml_describe(node));
	if (*out < 0)
		return keys_trust_at(ctx, node, "trust_ceiling", "'timeout_s' "
		    "must not be negative, found %lld", *out);
	return 0;
}

/* "AMOUNT CUR": a plain decimal, one space, an ISO 4217 code. */
static int
price_split(const char *text, double *amount, char currency[4])
{
	const char *space = strchr(text, ' ');

	if (space == NULL || strlen(space + 1) != 3 ||
	    strspn(space + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != 3 ||
	    util_decimal_parse(text, (size_t)(space - text), amount) != 0)
		return -1;
	memcpy(currency, space + 1, 4);
	return 0;
}

static int
parse_price(keys_trust_ctx *ctx, const util_yaml_node *block,
    ps_ceiling_holon *h)
{
	const util_yaml_node *node = util_yaml_get(block, "price");
	char currency[4];

	h->price_max = 0;
	if (node == NULL)
		return 0;
	if (keys_trust_expect_kind(ctx, node, UTIL_YAML_SCALAR, "'price'") != 0)
		return -1;
	if (price_split(node->value, &h->price_max, currency) != 0)
		return keys_trust_at(ctx, node, "trust_ceiling", "'price' must "
		    "be AMOUNT CURRENCY, such as '0.05 USD', found '%.64s'",
		    node->value);
	h->price_currency = strdup(currency);
	return h->price_currency == NULL ? keys_trust_oom(ctx) : 0;
}

/* ---------------------------------------------------------- blocks */

static int
parse_agentpack(keys_trust_ctx *ctx, const util_yaml_node *block,
    ps_permissions *a)
{
	static const char *const fields[] = { "network", "shell", "file_write",
	    "read_knowledge", "read_filesystem", NULL };

	a->declared = 1;
	if (keys_trust_only_fields(ctx, block, "the agentpack ceiling",
	    fields) != 0 ||
	    parse_bool(ctx, block, "network", &a->network) != 0 ||
	    parse_bool(ctx, block, "shell", &a->shell) != 0 ||
	    parse_choice(ctx, block, "file_write", keys_may_file_write,
	    &a->file_write) != 0 ||
	    parse_bool(ctx, block, "read_knowledge", &a->read_knowledge) != 0)
		return -1;
	return parse_bool(ctx, block, "read_filesystem", &a->read_filesystem);
}

static int
parse_soyapack(keys_trust_ctx *ctx, const util_yaml_node *block,
    ps_ceiling_soyapack *s)
{
	static const char *const fields[] = { "egress", "fs_read", "fs_write",
	    "determinism_tier", NULL };

	s->declared = 1;
	if (keys_trust_only_fields(ctx, block, "the soyapack ceiling",
	    fields) != 0 ||
	    parse_hosts(ctx, block, "egress", 0, &s->egress,
	    &s->egress_count) != 0 ||
	    parse_names(ctx, block, "fs_read", 0, &s->fs_read) != 0 ||
	    parse_names(ctx, block, "fs_write", 0, &s->fs_write) != 0)
		return -1;
	return parse_tiers(ctx, block, &s->determinism_tiers);
}

static int
parse_holon(keys_trust_ctx *ctx, const util_yaml_node *block,
    ps_ceiling_holon *h)
{
	static const char *const fields[] = { "capabilities", "data_egress",
	    "retention", "training_use", "endpoint", "timeout_s", "price",
	    NULL };

	h->declared = 1;
	if (keys_trust_only_fields(ctx, block, "the holon ceiling",
	    fields) != 0 ||
	    parse_names(ctx, block, "capabilities", 1, &h->capabilities) != 0 ||
	    parse_hosts(ctx, block, "data_egress", 1, &h->data_egress,
	    &h->data_egress_count) != 0 ||
	    parse_retention(ctx, block, &h->retention) != 0 ||
	    parse_bool(ctx, block, "training_use", &h->training_use) != 0 ||
	    parse_hosts(ctx, block, "endpoint", 0, &h->endpoint,
	    &h->endpoint_count) != 0 ||
	    parse_timeout(ctx, block, &h->timeout_s) != 0)
		return -1;
	return parse_price(ctx, block, h);
}

static int
parse_autograph(keys_trust_ctx *ctx, const util_yaml_node *block,
    ps_ceiling_autograph *g)
{
	static const char *const fields[] = { "services", "tasks", NULL };

	g->declared = 1;
	if (keys_trust_only_fields(ctx, block, "the autograph ceiling",
	    fields) != 0 ||
	    parse_names(ctx, block, "services", 1, &g->services) != 0)
		return -1;
	return parse_names(ctx, block, "tasks", 1, &g->tasks);
}

/* The block of `format` under `may:`, when there is one. */
static int
parse_block(keys_trust_ctx *ctx, const util_yaml_node *may,
    const char *format, ps_ceiling *c)
{
	const util_yaml_node *block = util_yaml_get(may, format);
	char what[64];

	if (block == NULL)
		return 0;
	snprintf(what, sizeof(what), "'%s' under 'may'", format);
	if (keys_trust_expect_kind(ctx, block, UTIL_YAML_MAPPING, what) != 0)
		return -1;
	if (strcmp(format, "agentpack") == 0)
		return parse_agentpack(ctx, block, &c->agentpack);
	if (strcmp(format, "soyapack") == 0)
		return parse_soyapack(ctx, block, &c->soyapack);
	if (strcmp(format, "holon") == 0)
		return parse_holon(ctx, block, &c->holon);
	return parse_autograph(ctx, block, &c->autograph);
}

int
keys_may_parse(keys_trust_ctx *ctx, const util_yaml_node *node,
    ps_trust_signer *signer)
{
	static const char *const formats[] = { "agentpack", "soyapack",
	    "holon", "autograph", NULL };
	size_t i;

	if (keys_trust_expect_kind(ctx, node, UTIL_YAML_MAPPING,
	    "'may'") != 0 ||
	    keys_trust_only_fields(ctx, node, "'may' (a block per format: "
	    "agentpack, soyapack, holon, autograph)", formats) != 0)
		return -1;
	/* Owned by the signer at once, so that ps_trust_free() frees what a
	 * failure leaves half-filled. */
	signer->may = calloc(1, sizeof(*signer->may));
	if (signer->may == NULL)
		return keys_trust_oom(ctx);
	signer->may->line = node->line;
	signer->may->column = node->column;
	for (i = 0; formats[i] != NULL; i++) {
		if (parse_block(ctx, node, formats[i], signer->may) != 0)
			return -1;
	}
	return 0;
}

int
keys_may_parse_consent(keys_trust_ctx *ctx, const util_yaml_node *node)
{
	const util_yaml_node *item;
	size_t i;
	int r;

	ctx->policy->consent = PS_CONSENT_DEFAULT;
	if (node == NULL)
		return 0;
	if (keys_trust_expect_kind(ctx, node, UTIL_YAML_SEQUENCE,
	    "'consent'") != 0)
		return -1;
	/* A policy adds classes; permissions and trust are always asked:
	 * a list that leaves them out must not silently stop asking. */
	for (i = 0; i < node->count; i++) {
		item = node->items[i];
		if (keys_trust_expect_kind(ctx, item, UTIL_YAML_SCALAR,
		    "a consent class") != 0)
			return -1;
		r = keys_may_rank(keys_may_consent, item->value);
		if (r < 0)
			return keys_trust_at(ctx, item, "trust_consent",
			    "unknown consent class '%.64s': expected "
			    "permissions, trust, prompts or code", item->value);
		ctx->policy->consent |= 1u << r;
	}
	return 0;
}
