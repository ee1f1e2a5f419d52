/* Reading a trust policy's YAML tree: errors at NAME:LINE:COL and typed
 * access (keys/trustyaml.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys/trustyaml.h"
#include "util/error.h"

int
keys_trust_at(keys_trust_ctx *ctx, const util_yaml_node *node,
    const char *code, const char *fmt, ...)
{
	char subject[PS_ERROR_TEXT_MAX], msg[PS_ERROR_TEXT_MAX];
	va_list ap;

	snprintf(subject, sizeof(subject), "%s:%u:%u", ctx->name,
	    node != NULL ? node->line : 1, node != NULL ? node->column : 1);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return util_fail(ctx->err, code, subject, "%s", msg);
}

int
keys_trust_oom(keys_trust_ctx *ctx)
{
	return util_fail_oom(ctx->err, ctx->name);
}

int
keys_trust_only_fields(keys_trust_ctx *ctx, const util_yaml_node *map,
    const char *what, const char *const *allowed)
{
	size_t i, j;

	for (i = 0; i < map->count; i++) {
		for (j = 0; allowed[j] != NULL; j++) {
			if (strcmp(map->keys[i]->value, allowed[j]) == 0)
				break;
		}
		if (allowed[j] == NULL)
			return keys_trust_at(ctx, map->keys[i],
			    "trust_unknown_field", "unknown field '%.64s' in "
			    "%s", map->keys[i]->value, what);
	}
	return 0;
}

int
keys_trust_expect_kind(keys_trust_ctx *ctx, const util_yaml_node *node,
    util_yaml_kind kind, const char *what)
{
	static const char *const names[] = { "a string", "a list",
	    "a mapping" };

	if (node->kind == kind && (kind != UTIL_YAML_SCALAR ||
	    node->type == UTIL_YAML_STRING))
		return 0;
	return keys_trust_at(ctx, node, "trust_type", "%s must be %s, found %s",
	    what, names[kind], util_yaml_describe(node));
}

const util_yaml_node *
keys_trust_field(keys_trust_ctx *ctx, const util_yaml_node *map,
    const char *key, const char *what)
{
	const util_yaml_node *node = util_yaml_get(map, key);

	if (node == NULL)
		keys_trust_at(ctx, map, "trust_missing_field",
		    "%s needs the field '%s'", what, key);
	return node;
}

void *
keys_trust_grow(keys_trust_ctx *ctx, void **items, size_t *count,
    size_t size)
{
	char *bigger = realloc(*items, (*count + 1) * size);

	if (bigger == NULL) {
		keys_trust_oom(ctx);
		return NULL;
	}
	*items = bigger;
	memset(bigger + *count * size, 0, size);
	return bigger + (*count)++ * size;
}

int
keys_trust_pattern_valid(const char *p)
{
	size_t len = strlen(p), i;

	if (len == 0 || len > KEYS_TRUST_PATTERN_MAX)
		return 0;
	for (i = 0; i < len; i++) {
		/* Other glob dialects' brackets and escapes are refused. */
		if ((unsigned char)p[i] <= ' ' || (unsigned char)p[i] >= 0x7f ||
		    strchr("[]\\", p[i]) != NULL)
			return 0;
	}
	return 1;
}

int
keys_trust_time(keys_trust_ctx *ctx, const util_yaml_node *map,
    const char *key, int64_t *out)
{
	const util_yaml_node *node = util_yaml_get(map, key);

	if (node == NULL)
		return 0;
	if (node->kind != UTIL_YAML_SCALAR || node->type != UTIL_YAML_STRING ||
	    ps_time_parse(node->value, out) != 0)
		return keys_trust_at(ctx, node, "trust_date", "'%s' must be "
		    "an RFC 3339 UTC time YYYY-MM-DDTHH:MM:SSZ, found '%.64s'",
		    key, node->kind == UTIL_YAML_SCALAR ? node->value :
		    util_yaml_describe(node));
	return 0;
}

int
keys_trust_window(keys_trust_ctx *ctx, const util_yaml_node *map,
    const char *what, int64_t *not_before, int64_t *not_after)
{
	*not_before = PS_TIME_NONE_BEFORE;
	*not_after = PS_TIME_NONE_AFTER;
	if (keys_trust_time(ctx, map, "not_before", not_before) != 0 ||
	    keys_trust_time(ctx, map, "not_after", not_after) != 0)
		return -1;
	if (*not_before > *not_after)
		return keys_trust_at(ctx, util_yaml_get(map, "not_after"),
		    "trust_window", "not_after is before not_before: the %s "
		    "would never be valid", what);
	return 0;
}
