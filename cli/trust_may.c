/*
 * Ceilings and consent classes for `trust check`.  Every key of a block is
 * printed, the ones the policy left out with their denial, so that what a
 * signer's packs may do is read off the output, not inferred from the
 * rules (docs/formats/trust-policy.md, "Permission ceilings").
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli/json.h"
#include "cli/trust_may.h"

static const char *const formats[] = { "agentpack", "soyapack", "holon",
    "autograph" };

/* Each format's keys in the documented order. */
static const char *const agentpack_keys[] = { "network", "shell",
    "file_write", "read_knowledge", "read_filesystem", NULL };
static const char *const soyapack_keys[] = { "egress", "fs_read",
    "fs_write", "determinism_tier", NULL };
static const char *const holon_keys[] = { "capabilities", "data_egress",
    "retention", "training_use", "endpoint", "timeout_s", "price", NULL };
static const char *const autograph_keys[] = { "services", "tasks", NULL };
static const char *const *const format_keys[] = { agentpack_keys,
    soyapack_keys, holon_keys, autograph_keys };

/* "host[:port][/protocol]" */
static json_t *
hosts_json(const ps_egress *hosts, size_t count)
{
	json_t *list = json_array();
	char text[512], port[16];
	size_t i;

	for (i = 0; i < count; i++) {
		port[0] = '\0';
		if (hosts[i].port != 0)
			snprintf(port, sizeof(port), ":%u", hosts[i].port);
		snprintf(text, sizeof(text), "%s%s%s%s", hosts[i].host, port,
		    hosts[i].protocol != NULL ? "/" : "",
		    hosts[i].protocol != NULL ? hosts[i].protocol : "");
		json_array_append_new(list, json_string(text));
	}
	return list;
}

static json_t *
agentpack_json(const ps_permissions *a)
{
	if (!a->declared)
		return json_null();
	return json_pack("{s:b,s:b,s:o,s:b,s:b}", "network", a->network,
	    "shell", a->shell, "file_write", cli_json_text(a->file_write !=
	    NULL ? a->file_write : "none"), "read_knowledge",
	    a->read_knowledge, "read_filesystem", a->read_filesystem);
}

static json_t *
soyapack_json(const ps_ceiling_soyapack *s)
{
	if (!s->declared)
		return json_null();
	return json_pack("{s:o,s:o,s:o,s:o}", "egress", hosts_json(s->egress,
	    s->egress_count), "fs_read", cli_json_strings(&s->fs_read),
	    "fs_write", cli_json_strings(&s->fs_write), "determinism_tier",
	    cli_json_strings(&s->determinism_tiers));
}

static json_t *
price_json(const ps_ceiling_holon *h)
{
	char text[64];

	if (h->price_currency == NULL)
		return json_null();
	snprintf(text, sizeof(text), "%g %s", h->price_max, h->price_currency);
	return json_string(text);
}

static json_t *
holon_json(const ps_ceiling_holon *h)
{
	if (!h->declared)
		return json_null();
	return json_pack("{s:o,s:o,s:o,s:b,s:o,s:I,s:o}", "capabilities",
	    cli_json_strings(&h->capabilities), "data_egress",
	    hosts_json(h->data_egress, h->data_egress_count), "retention",
	    cli_json_text(h->retention != NULL ? h->retention : "none"),
	    "training_use", h->training_use, "endpoint",
	    hosts_json(h->endpoint, h->endpoint_count), "timeout_s",
	    (json_int_t)h->timeout_s, "price", price_json(h));
}

static json_t *
autograph_json(const ps_ceiling_autograph *g)
{
	if (!g->declared)
		return json_null();
	return json_pack("{s:o,s:o}", "services",
	    cli_json_strings(&g->services), "tasks",
	    cli_json_strings(&g->tasks));
}

json_t *
cli_may_json(const ps_ceiling *may)
{
	if (may == NULL)
		return json_null();
	return json_pack("{s:o,s:o,s:o,s:o}", "agentpack",
	    agentpack_json(&may->agentpack), "soyapack",
	    soyapack_json(&may->soyapack), "holon", holon_json(&may->holon),
	    "autograph", autograph_json(&may->autograph));
}

json_t *
cli_consent_json(unsigned consent)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; i < 32; i++) {
		if ((consent & (1u << i)) != 0 &&
		    ps_consent_class_name(1u << i) != NULL)
			json_array_append_new(list,
			    json_string(ps_consent_class_name(1u << i)));
	}
	return list;
}

/* One value: a list joined by ", " ("none" when empty), a boolean, a
 * number, a string, or null ("none"). */
static void
print_value(const json_t *v)
{
	size_t i;
	json_t *item;

	if (json_is_array(v) && json_array_size(v) == 0)
		printf("none");
	json_array_foreach(v, i, item)
		printf("%s%s", i > 0 ? ", " : "", json_string_value(item));
	if (json_is_boolean(v))
		printf("%s", json_is_true(v) ? "true" : "false");
	else if (json_is_integer(v))
		printf("%lld", (long long)json_integer_value(v));
	else if (json_is_string(v))
		printf("%s", json_string_value(v));
	else if (json_is_null(v))
		printf("none");
}

static void
print_block(const char *format, const json_t *block,
    const char *const *keys)
{
	size_t i;

	printf("    %s: ", format);
	if (json_is_null(block))
		printf("refused (no block)");
	for (i = 0; !json_is_null(block) && keys[i] != NULL; i++) {
		printf("%s%s ", i > 0 ? "; " : "", keys[i]);
		if (strcmp(keys[i], "price") == 0 &&
		    json_is_null(json_object_get(block, keys[i])))
			printf("0 (free packs only)");
		else
			print_value(json_object_get(block, keys[i]));
	}
	printf("\n");
}

void
cli_print_may(const json_t *may)
{
	size_t i;

	if (json_is_null(may)) {
		printf("  may: no ceiling (any permission)\n");
		return;
	}
	printf("  may:\n");
	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		print_block(formats[i], json_object_get(may, formats[i]),
		    format_keys[i]);
}
