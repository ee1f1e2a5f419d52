/* holon: holon.yaml, an agent others pay to call over MCP. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/jsonschema.h"
#include "formats/check.h"
#include "formats/descriptor.h"
#include "formats/paths.h"
#include "formats/url.h"
#include "formats/licenses.h"
#include "formats/text.h"
#include "util/duration.h"
#include "util/hostname.h"
#include "util/strings.h"

static const char *const top_fields[] = { "id", "version", "name",
    "summary", "license", "authors", "source", "interface", "capabilities",
    "pricing", "runtime", "data", "examples", "signed_by", NULL };

/* ^[a-z][a-z0-9_]*$ */
static int
code_valid(const char *s)
{
	if (islower((unsigned char)s[0]) == 0)
		return -1;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") ==
	    strlen(s) ? 0 : -1;
}

static void
check_identity(formats_check *ck, const util_yaml_node *root)
{
	const char *id = formats_check_string(ck, root, "id", 1);
	const char *license = formats_check_string(ck, root, "license", 1);
	const char *slash = id != NULL ? strchr(id, '/') : NULL;

	if (id != NULL && (slash == NULL || formats_label_valid(id, (size_t)(slash - id),
	    39) != 0 || formats_label_valid(slash + 1, strlen(slash + 1), 63) != 0))
		formats_check_error(ck, util_yaml_get(root, "id"), "holon_id",
		    "id '%s' must be yourhandle/name (lowercase letters, digits "
		    "and inner hyphens on each side of one '/')", id);
	else
		ck->m->id = formats_check_strdup(ck, id);
	formats_check_semver(ck, root, 1);
	ck->m->name = formats_check_strdup(ck, formats_check_string(ck, root, "name", 1));
	ck->m->description = formats_check_strdup(ck,
	    formats_check_string(ck, root, "summary", 1));
	if (license == NULL)
		return;
	ck->m->license = formats_check_strdup(ck, license);
	if (formats_license_is_osi(license) == 0)
		formats_check_error(ck, util_yaml_get(root, "license"),
		    "license_not_osi", "license '%s' is not an OSI-approved "
		    "license (write its SPDX id, e.g. Apache-2.0, MIT)", license);
}

static void
check_authors(formats_check *ck, const util_yaml_node *root)
{
	const util_yaml_node *authors = formats_check_sequence(ck, root, "authors", 1);
	const util_yaml_node *a;
	size_t i;

	if (authors == NULL)
		return;
	if (authors->count == 0)
		formats_check_error(ck, authors, "holon_authors",
		    "authors must name at least one author");
	for (i = 0; i < authors->count; i++) {
		a = authors->items[i];
		if (a->kind == UTIL_YAML_MAPPING)
			formats_check_string(ck, a, "name", 1);
		else
			formats_check_node_string(ck, a, "an author");
	}
}

static void
check_source(formats_check *ck, const util_yaml_node *root)
{
	const util_yaml_node *source = formats_check_mapping(ck, root, "source", 1);
	const char *repo = formats_check_string(ck, source, "repository", 1);
	const char *ref = formats_check_string(ck, source, "ref", 1);
	char why[256];
	size_t n;

	if (repo != NULL && formats_url_check(repo, 0, why, sizeof(why)) != 0)
		formats_check_error(ck, util_yaml_get(source, "repository"),
		    "holon_source_repository", "source.repository '%s' must be "
		    "an https URL: %s", repo, why);
	else
		ck->m->source_repository = formats_check_strdup(ck, repo);
	if (ref == NULL)
		return;
	n = strlen(ref);
	if (util_commit_id_valid(ref, 0)) {
		ck->m->source_commit = formats_check_strdup(ck, ref);
		return;
	}
	if (util_commit_id_valid(ref, 1))
		formats_check_error(ck, util_yaml_get(source, "ref"), "holon_source_ref",
		    "source.ref '%s' must be written in lowercase hex", ref);
	else if (n >= 4 && n < 40 && strspn(ref, "0123456789abcdef") == n)
		formats_check_error(ck, util_yaml_get(source, "ref"), "holon_source_ref",
		    "source.ref '%s' is an abbreviated commit hash; write all "
		    "40 (SHA-1) or 64 (SHA-256) hex digits", ref);
	else
		formats_check_error(ck, util_yaml_get(source, "ref"), "holon_source_ref",
		    "source.ref '%s' is not a commit hash: a branch or tag moves, "
		    "so callers could not know which code runs; write the full "
		    "40 or 64 hex digit commit", ref);
}

/* The declared error codes, sorted by text then line. */
struct codes {
	const util_yaml_node **items;
	size_t count;
};

static int
code_compare(const void *a, const void *b)
{
	const util_yaml_node *x = *(const util_yaml_node *const *)a;
	const util_yaml_node *y = *(const util_yaml_node *const *)b;
	int c = strcmp(x->value, y->value);

	if (c != 0)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* One interface.errors entry: its code node when well formed, else NULL. */
static const util_yaml_node *
error_entry(formats_check *ck, const util_yaml_node *e)
{
	const char *code;

	if (e->kind != UTIL_YAML_MAPPING) {
		formats_check_error(ck, e, "field_type", "interface.errors entries "
		    "must be mappings with a code, found %s", util_yaml_describe(e));
		return NULL;
	}
	if ((code = formats_check_string(ck, e, "code", 1)) == NULL)
		return NULL;
	if (code_valid(code) != 0) {
		formats_check_error(ck, util_yaml_get(e, "code"), "holon_error_code",
		    "error code '%s' must match ^[a-z][a-z0-9_]*$", code);
		return NULL;
	}
	return util_yaml_get(e, "code");
}

/* Sorting finds duplicates in n log n, whatever the manifest's size. */
static void
check_errors(formats_check *ck, const util_yaml_node *iface, struct codes *codes)
{
	const util_yaml_node *errors = formats_check_sequence(ck, iface, "errors", 0);
	const util_yaml_node *code;
	size_t i, first = 0;

	if (errors == NULL || errors->count == 0)
		return;
	codes->items = calloc(errors->count, sizeof(*codes->items));
	if (codes->items == NULL) {
		formats_check_oom(ck);
		return;
	}
	for (i = 0; i < errors->count; i++) {
		if ((code = error_entry(ck, errors->items[i])) != NULL)
			codes->items[codes->count++] = code;
	}
	qsort(codes->items, codes->count, sizeof(*codes->items), code_compare);
	for (i = 1; i < codes->count; i++) {
		if (strcmp(codes->items[i]->value, codes->items[first]->value) != 0) {
			first = i;
			continue;
		}
		formats_check_error(ck, codes->items[i], "holon_error_code_duplicate",
		    "error code '%s' is declared twice (first at line %u)",
		    codes->items[i]->value, codes->items[first]->line);
	}
}

/* Returns the schema at `key` when it is a well-formed schema, else NULL. */
static const util_yaml_node *
check_schema(formats_check *ck, const util_yaml_node *iface, const char *key)
{
	const util_yaml_node *schema = formats_check_mapping(ck, iface, key, 1);

	if (schema == NULL)
		return NULL;
	return formats_jsonschema_check(schema, ck->file, ck->diags) == 0 ? schema :
	    NULL;
}

static void
check_capabilities(formats_check *ck, const util_yaml_node *root)
{
	const util_yaml_node *caps = formats_check_sequence(ck, root, "capabilities", 1);
	const char *cls;
	size_t i;

	if (caps == NULL)
		return;
	if (caps->count == 0)
		formats_check_error(ck, caps, "holon_capability_class",
		    "capabilities must declare at least one class");
	for (i = 0; i < caps->count; i++) {
		if (caps->items[i]->kind != UTIL_YAML_MAPPING) {
			formats_check_error(ck, caps->items[i], "field_type",
			    "capabilities entries must be mappings with a class");
			continue;
		}
		cls = formats_check_string(ck, caps->items[i], "class", 1);
		if (cls == NULL)
			continue;
		if (islower((unsigned char)cls[0]) == 0 || strspn(cls,
		    "abcdefghijklmnopqrstuvwxyz0123456789_.") != strlen(cls) ||
		    strstr(cls, "..") != NULL || cls[strlen(cls) - 1] == '.') {
			formats_check_error(ck, util_yaml_get(caps->items[i], "class"),
			    "holon_capability_class", "capability class '%s' must "
			    "be dotted lowercase words, e.g. data.profile", cls);
			continue;
		}
		formats_check_strings_add(ck, &ck->m->capabilities, cls);
	}
	if (ck->m->capabilities.count > 0)
		ck->m->kind = formats_check_strdup(ck, ck->m->capabilities.items[0]);
}

/* A non-negative finite number at `key`; 1 present, 0 absent, -1 bad. */
static int
price_number(formats_check *ck, const util_yaml_node *pricing, const char *key,
    double *out)
{
	const util_yaml_node *n = formats_check_field(ck, pricing, key, 0);

	if (n == NULL)
		return 0;
	if (util_yaml_number(n, out) != 0 || isfinite(*out) == 0 || *out < 0) {
		formats_check_error(ck, n, "holon_pricing_amount", "pricing.%s must "
		    "be a non-negative number, found %s", key,
		    util_yaml_describe(n));
		return -1;
	}
	return 1;
}

static void
price_summary(formats_check *ck, const char *model, double worst,
    const char *currency, const char *charge_on)
{
	char *text = NULL;

	if (asprintf(&text, "%g %s", worst, currency) < 0) {
		formats_check_oom(ck);
		return;
	}
	ck->m->price_worst_case = text;
	ck->m->price_worst_amount = worst;
	ck->m->price_currency = formats_check_strdup(ck, currency);
	ck->m->pricing_model = formats_check_strdup(ck, model);
	ck->m->charge_on = formats_check_strdup(ck, charge_on);
}

/* Decides the worst case from the amounts read; reports when it cannot. */
static int
worst_case(formats_check *ck, const util_yaml_node *pricing, const char *model,
    int has_amount, double amount, int has_max, double max, double *worst)
{
	if (has_amount == 0 && has_max == 0) {
		formats_check_error(ck, pricing, "holon_pricing_worst_case",
		    "pricing needs 'amount' or 'max' so callers can compute the "
		    "worst case");
		return -1;
	}
	if (strcmp(model, "per_call") != 0 && has_max == 0) {
		formats_check_error(ck, pricing, "holon_pricing_worst_case",
		    "pricing model '%s' is not a fixed price per call: declare "
		    "'max', the most one call can cost", model);
		return -1;
	}
	if (has_amount == 1 && has_max == 1 && amount > max) {
		formats_check_error(ck, util_yaml_get(pricing, "amount"),
		    "holon_pricing_worst_case", "pricing amount %g exceeds max %g",
		    amount, max);
		return -1;
	}
	*worst = has_max == 1 ? max : amount;
	return 0;
}

static void
check_pricing(formats_check *ck, const util_yaml_node *root)
{
	const util_yaml_node *pricing = formats_check_mapping(ck, root, "pricing", 1);
	const char *model = formats_check_string(ck, pricing, "model", 1);
	const char *currency = formats_check_string(ck, pricing, "currency", 1);
	const char *charge_on = formats_check_string(ck, pricing, "charge_on", 1);
	double amount = 0, max = 0, worst;
	int has_amount, has_max;

	if (pricing == NULL)
		return;
	has_amount = price_number(ck, pricing, "amount", &amount);
	has_max = price_number(ck, pricing, "max", &max);
	if (currency != NULL && (strlen(currency) != 3 ||
	    strspn(currency, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != 3)) {
		formats_check_error(ck, util_yaml_get(pricing, "currency"),
		    "holon_pricing_currency", "currency '%s' must be an ISO 4217 "
		    "code such as USD or EUR", currency);
		currency = NULL;
	}
	if (model == NULL || has_amount < 0 || has_max < 0 ||
	    worst_case(ck, pricing, model, has_amount, amount, has_max, max,
	    &worst) != 0 || currency == NULL)
		return;
	price_summary(ck, model, worst, currency, charge_on);
}

static void
check_tool(formats_check *ck, const util_yaml_node *rt)
{
	const util_yaml_node *tool = formats_check_field(ck, rt, "tool", 1);

	if (tool != NULL && tool->kind == UTIL_YAML_SEQUENCE)
		formats_check_error(ck, tool, "holon_one_tool", "runtime.tool lists "
		    "%zu tools; an agent version exposes exactly one tool",
		    tool->count);
	else if (tool != NULL)
		ck->m->tool = formats_check_strdup(ck,
		    formats_check_node_string(ck, tool, "'tool'"));
	if (formats_check_field(ck, rt, "tools", 0) != NULL)
		formats_check_error(ck, util_yaml_get_key(rt, "tools"), "holon_one_tool",
		    "runtime.tools: an agent version exposes exactly one tool, "
		    "named by runtime.tool");
}

static void
check_timeout(formats_check *ck, const util_yaml_node *rt)
{
	const util_yaml_node *limits = formats_check_mapping(ck, rt, "limits", 1);
	const util_yaml_node *t = formats_check_field(ck, limits, "timeout_s", 1);
	long long timeout;

	if (t == NULL)
		return;
	if (util_yaml_int(t, &timeout) != 0 || timeout < 1 || timeout > 300) {
		formats_check_error(ck, t, "holon_timeout", "limits.timeout_s must be "
		    "an integer from 1 to 300 seconds, found %s '%s'",
		    util_yaml_describe(t), t->kind == UTIL_YAML_SCALAR ? t->value : "");
		return;
	}
	ck->m->timeout_s = timeout;
}

static void
check_runtime(formats_check *ck, const util_yaml_node *root)
{
	const util_yaml_node *rt = formats_check_mapping(ck, root, "runtime", 1);
	const char *kind = formats_check_string(ck, rt, "kind", 1);
	const char *endpoint = formats_check_string(ck, rt, "endpoint", 1);
	char why[256];

	if (kind != NULL && strcmp(kind, "mcp") != 0)
		formats_check_error(ck, util_yaml_get(rt, "kind"), "holon_runtime_kind",
		    "runtime.kind must be mcp, found '%s'", kind);
	if (endpoint != NULL && formats_url_check(endpoint, 1, why, sizeof(why)) != 0)
		formats_check_error(ck, util_yaml_get(rt, "endpoint"), "holon_endpoint",
		    "runtime.endpoint '%s' must be a public https URL: %s",
		    endpoint, why);
	else
		ck->m->endpoint = formats_check_strdup(ck, endpoint);
	check_tool(ck, rt);
	check_timeout(ck, rt);
}

static void
check_data_egress(formats_check *ck, const util_yaml_node *data)
{
	const util_yaml_node *egress = formats_check_sequence(ck, data, "egress", 1);
	const char *host;
	size_t i;

	for (i = 0; egress != NULL && i < egress->count; i++) {
		host = formats_check_node_string(ck, egress->items[i],
		    "a data.egress host");
		if (host == NULL)
			continue;
		if (!util_hostname_valid(host, strlen(host)))
			formats_check_error(ck, egress->items[i], "holon_data_egress",
			    "data.egress entry '%s' is not a host name", host);
		else
			formats_check_egress_add(ck, host, 0, NULL);
	}
}

static void
check_data(formats_check *ck, const util_yaml_node *root)
{
	const util_yaml_node *data = formats_check_mapping(ck, root, "data", 1);
	const char *retention = formats_check_string(ck, data, "retention", 1);
	int training;

	if (retention != NULL && strcmp(retention, "none") != 0 &&
	    util_duration_parse(retention, NULL) != 0)
		formats_check_error(ck, util_yaml_get(data, "retention"),
		    "holon_data_retention", "data.retention must be 'none' or an "
		    "ISO 8601 duration such as P7D or PT12H, found '%s'", retention);
	else
		ck->m->retention = formats_check_strdup(ck, retention);
	if (data != NULL && formats_check_field(ck, data, "training_use", 1) != NULL &&
	    formats_check_bool(ck, data, "training_use", &training) == 1)
		ck->m->training_use = training;
	check_data_egress(ck, data);
}

static int
code_key_compare(const void *key, const void *item)
{
	return strcmp(key, (*(const util_yaml_node *const *)item)->value);
}

static void
check_error_example(formats_check *ck, const struct codes *codes,
    const util_yaml_node *error, const char *name)
{
	const util_yaml_node *at = error;
	const char *code = util_yaml_string(error);

	if (error->kind == UTIL_YAML_MAPPING) {
		at = util_yaml_get(error, "code");
		code = formats_check_string(ck, error, "code", 1);
		if (code == NULL)
			return;
	}
	if (code == NULL) {
		formats_check_error(ck, error, "holon_example", "example '%s': error "
		    "must be a code or a mapping with a code", name);
		return;
	}
	if (codes != NULL && (codes->count == 0 || bsearch(code, codes->items,
	    codes->count, sizeof(*codes->items), code_key_compare) == NULL))
		formats_check_error(ck, at, "holon_example_error_code", "example '%s' "
		    "returns error '%s', which interface.errors does not declare",
		    name, code);
}

static void
check_example(formats_check *ck, const util_yaml_node *ex, size_t index,
    const struct codes *codes, const util_yaml_node *in,
    const util_yaml_node *out, int *successes)
{
	const util_yaml_node *input, *output, *error;
	const char *name = util_yaml_string(util_yaml_get(ex, "name"));
	char label[160], fallback[32];

	snprintf(fallback, sizeof(fallback), "#%zu", index + 1);
	name = name != NULL ? name : fallback;
	input = formats_check_field(ck, ex, "input", 1);
	output = util_yaml_get(ex, "output");
	error = util_yaml_get(ex, "error");
	if ((output == NULL) == (error == NULL)) {
		formats_check_error(ck, ex, "holon_example", "example '%s' must have "
		    "exactly one of 'output' (a success) or 'error'", name);
		return;
	}
	snprintf(label, sizeof(label), "example %.100s input", name);
	if (input != NULL && in != NULL)
		formats_jsonschema_validate(in, input, ck->file, label,
		    PS_SEVERITY_ERROR, ck->diags);
	if (error != NULL) {
		check_error_example(ck, codes, error, name);
		return;
	}
	(*successes)++;
	snprintf(label, sizeof(label), "example %.100s output", name);
	if (out != NULL)
		formats_jsonschema_validate(out, output, ck->file, label,
		    PS_SEVERITY_ERROR, ck->diags);
}

static void
check_examples(formats_check *ck, const util_yaml_node *root,
    const struct codes *codes, const util_yaml_node *in,
    const util_yaml_node *out)
{
	const util_yaml_node *examples = formats_check_sequence(ck, root, "examples", 1);
	size_t i;
	int successes = 0;

	if (examples == NULL)
		return;
	for (i = 0; i < examples->count; i++) {
		if (examples->items[i]->kind != UTIL_YAML_MAPPING) {
			formats_check_error(ck, examples->items[i], "holon_example",
			    "examples entries must be mappings with input and "
			    "output or error");
			continue;
		}
		check_example(ck, examples->items[i], i, codes, in, out,
		    &successes);
	}
	if (successes == 0)
		formats_check_error(ck, examples, "holon_example_success",
		    "at least one example must be a success (with 'output')");
}

static void
validate(formats_check *ck, const util_yaml_node *root)
{
	const util_yaml_node *iface, *in = NULL, *out = NULL;
	struct codes codes = { NULL, 0 };

	formats_check_known(ck, root, top_fields, "");
	check_identity(ck, root);
	check_authors(ck, root);
	check_source(ck, root);
	iface = formats_check_mapping(ck, root, "interface", 1);
	if (iface != NULL) {
		in = check_schema(ck, iface, "input");
		out = check_schema(ck, iface, "output");
		check_errors(ck, iface, &codes);
	}
	check_capabilities(ck, root);
	check_pricing(ck, root);
	check_runtime(ck, root);
	check_data(ck, root);
	check_examples(ck, root, iface != NULL ? &codes : NULL, in, out);
	free(codes.items);
}

/* ------------------------------------------------------------ describing */

static void
holon_data(formats_text *t, const ps_manifest *m)
{
	if (m->retention != NULL && strcmp(m->retention, "none") == 0)
		fprintf(t->f, "%s", FORMATS_TR(t, "It keeps none of your data",
		    "不保留你的数据"));
	else
		fprintf(t->f, FORMATS_TR(t, "It keeps your data for %s",
		    "保留你的数据 %s"), formats_text_value(t, m->retention));
	fprintf(t->f, "%s%s", FORMATS_TR(t, ", ", "，"), m->training_use == 1 ?
	    FORMATS_TR(t, "uses it for training", "会用于训练") :
	    FORMATS_TR(t, "does not use it for training", "不用于训练"));
	if (m->egress_count == 0) {
		fprintf(t->f, "%s\n", FORMATS_TR(t, " and sends it nowhere else.",
		    "，不发送到其他地方。"));
		return;
	}
	fprintf(t->f, "%s", FORMATS_TR(t, " and sends it to: ", "，会发送到："));
	formats_text_egress(t, m);
	fprintf(t->f, "%s\n", FORMATS_TR(t, ".", "。"));
}

static void
describe(formats_text *t, const ps_manifest *m)
{
	holon_data(t, m);
	fprintf(t->f, FORMATS_TR(t, "Worst-case price: %s per call (model %s), "
	    "charged on %s.\n", "每次调用最高价格：%s（计价模式 %s），收费条件："
	    "%s。\n"), formats_text_value(t, m->price_worst_case), formats_text_value(t, m->pricing_model),
	    formats_text_value(t, m->charge_on));
	fprintf(t->f, FORMATS_TR(t, "It runs at %s (MCP tool %s, timeout %lld s).\n",
	    "运行于 %s（MCP 工具 %s，超时 %lld 秒）。\n"),
	    formats_text_value(t, m->endpoint), formats_text_value(t, m->tool), m->timeout_s);
}

static const formats_permission permissions[] = {
	FORMATS_PERM("capabilities", FORMATS_PERM_SET, capabilities),
	FORMATS_PERM("data.egress", FORMATS_PERM_EGRESS, egress),
	FORMATS_PERM("data.retention", FORMATS_PERM_DURATION, retention),
	FORMATS_PERM("data.training_use", FORMATS_PERM_TRISTATE, training_use),
	FORMATS_PERM("runtime.endpoint", FORMATS_PERM_VALUE, endpoint),
	FORMATS_PERM("runtime.timeout_s", FORMATS_PERM_NUMBER, timeout_s),
	FORMATS_PERM("pricing.worst_case", FORMATS_PERM_PRICE,
	    price_worst_case),
};

const formats_descriptor formats_holon = {
	PS_FORMAT_HOLON, "holon", "holon.yaml", "holons", 2,
	validate, NULL, describe,
	permissions, sizeof(permissions) / sizeof(permissions[0]),
	NULL,
};
