/* SoyaPack v0 (and v1 additions): soyapack.yaml. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/jsonschema.h"
#include "formats/check.h"
#include "formats/descriptor.h"
#include "formats/paths.h"
#include "formats/licenses.h"
#include "formats/text.h"
#include "util/hostname.h"
#include "formats/semver.h"

static const char *const top_fields[] = { "apiVersion", "kind", "name",
    "version", "virtual_model_id", "description", "owner", "license",
    "capabilities", "inputs", "outputs", "prompts", "tools", "templates",
    "examples", "secrets", "sla", "signed_by", "compat", NULL };

/* Reports a --strict lint finding; silent otherwise. */
#define strict_finding(ck, at, code, ...) do { \
	if ((ck)->opt->strict != 0) \
		formats_check_error((ck), (at), (code), __VA_ARGS__); \
} while (0)

/* GitHub handle: alphanumerics and single inner hyphens, at most 39. */
static int
github_handle(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > 39 || s[0] == '-' || s[n - 1] == '-')
		return -1;
	for (i = 0; i < n; i++) {
		if (isalnum((unsigned char)s[i]) == 0 && s[i] != '-')
			return -1;
		if (s[i] == '-' && s[i + 1] == '-')
			return -1;
	}
	return 0;
}

static void
check_identity(formats_check *ck, const util_yaml_node *root)
{
	const char *api = formats_check_string(ck, root, "apiVersion", 1);
	const char *kind = formats_check_string(ck, root, "kind", 1);
	const char *name = formats_check_string(ck, root, "name", 1);
	const char *owner = formats_check_string(ck, root, "owner", 1);
	char *id = NULL;

	if (api != NULL && strcmp(api, "soyaos.ai/v0") != 0 &&
	    strcmp(api, "soyaos.ai/v1") != 0)
		formats_check_error(ck, util_yaml_get(root, "apiVersion"),
		    "soyapack_api_version", "apiVersion must be soyaos.ai/v0 "
		    "(or soyaos.ai/v1), found '%s'", api);
	if (kind != NULL && strcmp(kind, "Agent") != 0 &&
	    strcmp(kind, "Tool") != 0 && strcmp(kind, "Skill") != 0 &&
	    strcmp(kind, "Model") != 0) {
		formats_check_error(ck, util_yaml_get(root, "kind"), "soyapack_kind",
		    "kind must be one of Agent, Tool, Skill, Model, found '%s'",
		    kind);
		kind = NULL;
	}
	ck->m->kind = formats_check_strdup(ck, kind);
	if (name != NULL && formats_label_valid(name, strlen(name), 63) != 0) {
		formats_check_error(ck, util_yaml_get(root, "name"), "soyapack_name",
		    "name '%s' is not a DNS label (RFC 1123: lowercase letters, "
		    "digits and inner hyphens, at most 63)", name);
		name = NULL;
	}
	if (owner != NULL && github_handle(owner) != 0) {
		formats_check_error(ck, util_yaml_get(root, "owner"), "soyapack_owner",
		    "owner '%s' is not a GitHub handle or organisation "
		    "(letters, digits, single inner hyphens, at most 39)", owner);
		owner = NULL;
	}
	ck->m->name = formats_check_strdup(ck, name);
	if (name != NULL && owner != NULL) {
		if (asprintf(&id, "%s/%s", owner, name) < 0)
			formats_check_oom(ck);
		else
			ck->m->id = id;
	}
}

/* soya:<id>, the id made of [a-z0-9._-] starting with a letter or digit. */
static int
virtual_model_id_valid(const char *s)
{
	size_t i;

	if (strncmp(s, "soya:", 5) != 0 || isalnum((unsigned char)s[5]) == 0)
		return -1;
	for (i = 5; s[i] != '\0'; i++) {
		if (islower((unsigned char)s[i]) == 0 &&
		    isdigit((unsigned char)s[i]) == 0 && s[i] != '.' &&
		    s[i] != '-' && s[i] != '_')
			return -1;
	}
	return 0;
}

/* SPDX "LicenseRef-" followed by letters, digits, '.' and '-'. */
static int
license_ref_valid(const char *s)
{
	const char *rest = s + 11;

	if (strncmp(s, "LicenseRef-", 11) != 0 || *rest == '\0')
		return -1;
	return strspn(rest, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789.-") == strlen(rest) ? 0 : -1;
}

static void
check_description(formats_check *ck, const util_yaml_node *root, int agent)
{
	const char *vmid = formats_check_string(ck, root, "virtual_model_id", agent);
	const char *license = formats_check_string(ck, root, "license", 1);
	const char *canonical;
	int listed;

	ck->m->description = formats_check_strdup(ck,
	    formats_check_string(ck, root, "description", 1));
	if (vmid != NULL && virtual_model_id_valid(vmid) != 0)
		formats_check_error(ck, util_yaml_get(root, "virtual_model_id"),
		    "soyapack_virtual_model_id", "virtual_model_id must be "
		    "soya:<id> (lowercase letters, digits, '.', '-', '_'), found "
		    "'%s'", vmid);
	if (license == NULL)
		return;
	ck->m->license = formats_check_strdup(ck, license);
	listed = formats_license_spdx(license, &canonical);
	if (listed == 0 && license_ref_valid(license) != 0)
		formats_check_error(ck, util_yaml_get(root, "license"),
		    "license_not_spdx", "license '%s' is not an SPDX license "
		    "identifier (e.g. MIT, Apache-2.0; expressions with AND/OR/"
		    "WITH are not single identifiers)", license);
	else if (listed != 0 && strcmp(canonical, license) != 0)
		formats_check_warn(ck, util_yaml_get(root, "license"),
		    "license_case", "license '%s' is listed by SPDX as '%s'",
		    license, canonical);
	else if (listed == 2)
		formats_check_warn(ck, util_yaml_get(root, "license"),
		    "license_deprecated", "license '%s' is a deprecated SPDX "
		    "identifier", license);
}

/* The egress port, 1-65535; 0 after reporting a problem. */
static unsigned
egress_port(formats_check *ck, const util_yaml_node *e)
{
	const util_yaml_node *pn = formats_check_field(ck, e, "port", 1);
	long long port = 0;

	if (pn == NULL)
		return 0;
	if (util_yaml_int(pn, &port) != 0 || port < 1 || port > 65535) {
		formats_check_error(ck, pn, "soyapack_egress_port", "egress port "
		    "must be an integer from 1 to 65535, found %s '%s'",
		    util_yaml_describe(pn), pn->kind == UTIL_YAML_SCALAR ?
		    pn->value : "");
		return 0;
	}
	return (unsigned)port;
}

static const char *
egress_protocol(formats_check *ck, const util_yaml_node *e)
{
	const char *proto = formats_check_string(ck, e, "protocol", 1);

	if (proto != NULL && (islower((unsigned char)proto[0]) == 0 ||
	    strspn(proto, "abcdefghijklmnopqrstuvwxyz0123456789+.-") !=
	    strlen(proto))) {
		formats_check_error(ck, util_yaml_get(e, "protocol"),
		    "soyapack_egress_protocol", "egress protocol '%s' is not a "
		    "protocol name like https, http, grpc or tcp", proto);
		return NULL;
	}
	return proto;
}

static const char *
egress_host(formats_check *ck, const util_yaml_node *e)
{
	const char *host = formats_check_string(ck, e, "host", 1);
	const util_yaml_node *at = util_yaml_get(e, "host");
	int wildcard;

	if (host == NULL)
		return NULL;
	wildcard = strcmp(host, "*") == 0 || strncmp(host, "*.", 2) == 0;
	if (wildcard != 0)
		strict_finding(ck, at, "soyapack_egress_wildcard", "wildcard "
		    "egress host '%s' (--strict: list the exact hosts)", host);
	if (strcmp(host, "*") == 0 ||
	    util_hostname_valid(wildcard != 0 ? host + 2 : host,
	    strlen(wildcard != 0 ? host + 2 : host)))
		return host;
	formats_check_error(ck, at, "soyapack_egress_host", "egress host '%s' is "
	    "not a host name (letters, digits, hyphens and dots; no scheme, "
	    "path or port)", host);
	return NULL;
}

static void
check_egress_entry(formats_check *ck, const util_yaml_node *e)
{
	const char *host, *proto;
	unsigned port;

	if (e->kind != UTIL_YAML_MAPPING) {
		formats_check_error(ck, e, "field_type", "egress entries must be "
		    "mappings with host, port and protocol, found %s",
		    util_yaml_describe(e));
		return;
	}
	host = egress_host(ck, e);
	port = egress_port(ck, e);
	proto = egress_protocol(ck, e);
	if (host != NULL)
		formats_check_egress_add(ck, host, port, proto);
}

/* An absolute sandbox path without "." or ".." components. */
static int
sandbox_path_valid(const char *p)
{
	const char *c;

	if (p[0] != '/')
		return -1;
	for (c = p; (c = strstr(c, "/.")) != NULL; c++) {
		if (c[2] == '\0' || c[2] == '/' || (c[2] == '.' &&
		    (c[3] == '\0' || c[3] == '/')))
			return -1;
	}
	return 0;
}

static void
check_fs_list(formats_check *ck, const util_yaml_node *fs, const char *key,
    ps_strings *out)
{
	const util_yaml_node *list = formats_check_sequence(ck, fs, key, 0);
	const char *p;
	size_t i;
	char what[32];

	if (list == NULL)
		return;
	snprintf(what, sizeof(what), "fs.%s entry", key);
	for (i = 0; i < list->count; i++) {
		p = formats_check_node_string(ck, list->items[i], what);
		if (p == NULL)
			continue;
		if (sandbox_path_valid(p) != 0) {
			formats_check_error(ck, list->items[i], "soyapack_fs_path",
			    "fs.%s path '%s' must be absolute inside the sandbox "
			    "(start with '/', no '.' or '..' components)", key, p);
			continue;
		}
		formats_check_strings_add(ck, out, p);
	}
}

static void
check_capabilities(formats_check *ck, const util_yaml_node *root)
{
	static const char *const known[] = { "egress", "fs",
	    "determinism_tier", NULL };
	static const char *const fs_known[] = { "read", "write", NULL };
	const util_yaml_node *caps = formats_check_mapping(ck, root, "capabilities", 1);
	const util_yaml_node *egress, *fs;
	const char *tier;
	size_t i;

	if (caps == NULL)
		return;
	formats_check_known(ck, caps, known, "capabilities");
	if ((egress = formats_check_sequence(ck, caps, "egress", 0)) != NULL) {
		for (i = 0; i < egress->count; i++)
			check_egress_entry(ck, egress->items[i]);
	}
	if ((fs = formats_check_mapping(ck, caps, "fs", 0)) != NULL) {
		formats_check_known(ck, fs, fs_known, "capabilities.fs");
		check_fs_list(ck, fs, "read", &ck->m->fs_read);
		check_fs_list(ck, fs, "write", &ck->m->fs_write);
	}
	tier = formats_check_string(ck, caps, "determinism_tier", 1);
	if (tier == NULL)
		return;
	if (strcmp(tier, "read-only") != 0 && strcmp(tier, "side-effect") != 0 &&
	    strcmp(tier, "unrestricted") != 0) {
		formats_check_error(ck, util_yaml_get(caps, "determinism_tier"),
		    "soyapack_determinism_tier", "determinism_tier must be "
		    "read-only, side-effect or unrestricted, found '%s'", tier);
		return;
	}
	if (strcmp(tier, "unrestricted") == 0)
		strict_finding(ck, util_yaml_get(caps, "determinism_tier"),
		    "soyapack_unrestricted_tier", "determinism_tier "
		    "'unrestricted' is the escape hatch (--strict)");
	ck->m->determinism_tier = formats_check_strdup(ck, tier);
}

/* name.vN: a lowercase name (dots, hyphens, underscores), ".v", a number. */
static int
schema_id_valid(const char *s)
{
	const char *v = strrchr(s, '.');
	const char *p;

	if (v == NULL || v == s || v[1] != 'v' || isdigit((unsigned char)v[2])
	    == 0 || (v[2] == '0' && v[3] != '\0'))
		return -1;
	for (p = v + 2; *p != '\0'; p++) {
		if (isdigit((unsigned char)*p) == 0)
			return -1;
	}
	if (isalnum((unsigned char)s[0]) == 0)
		return -1;
	for (p = s; p < v; p++) {
		if (islower((unsigned char)*p) == 0 &&
		    isdigit((unsigned char)*p) == 0 && strchr("._-", *p) == NULL)
			return -1;
	}
	return 0;
}

static void
check_outputs(formats_check *ck, const util_yaml_node *root)
{
	const util_yaml_node *outputs = formats_check_mapping(ck, root, "outputs", 1);
	const char *id;
	size_t i;

	if (outputs == NULL)
		return;
	for (i = 0; i < outputs->count; i++) {
		id = formats_check_node_string(ck, outputs->items[i],
		    "an output schema id");
		if (id != NULL && schema_id_valid(id) != 0)
			formats_check_error(ck, outputs->items[i],
			    "soyapack_output_schema", "output '%s' names schema "
			    "'%s'; a schema id is name.vN (e.g. summary.v1)",
			    outputs->keys[i]->value, id);
	}
}

/* A map of name to file path: every file must exist; each is a prompt. */
static void
check_file_map(formats_check *ck, const util_yaml_node *root, const char *key,
    int required)
{
	const util_yaml_node *map = formats_check_mapping(ck, root, key, required);
	char what[160], path[UTIL_PATH_MAX];
	const char *text;
	size_t i;

	if (map == NULL)
		return;
	for (i = 0; i < map->count; i++) {
		snprintf(what, sizeof(what), "%s.%.100s", key,
		    map->keys[i]->value);
		text = formats_check_node_string(ck, map->items[i], what);
		if (text != NULL && formats_check_path(ck, map->items[i], text,
		    FORMATS_WANT_FILE, what, path, sizeof(path)) == 0)
			formats_check_prompt(ck, path, map->items[i]);
	}
}

/* builtin.<name> ([a-z][a-z0-9_]*) or an external kind ([a-z][a-z0-9_.-]*). */
static int
tool_kind_valid(const char *kind)
{
	const char *body = kind;
	const char *chars = "abcdefghijklmnopqrstuvwxyz0123456789_.-";

	if (strncmp(kind, "builtin.", 8) == 0) {
		body = kind + 8;
		chars = "abcdefghijklmnopqrstuvwxyz0123456789_";
	}
	if (islower((unsigned char)body[0]) == 0)
		return -1;
	return strspn(body, chars) == strlen(body) ? 0 : -1;
}

/* "name: kind", what an upgrade compares. */
static void
add_tool(formats_check *ck, const char *name, const char *kind)
{
	char *text = NULL;

	if (asprintf(&text, "%s: %s", name, kind) < 0) {
		formats_check_oom(ck);
		return;
	}
	formats_check_strings_add(ck, &ck->m->tools, text);
	free(text);
}

static void
check_tools(formats_check *ck, const util_yaml_node *root)
{
	const util_yaml_node *tools = formats_check_mapping(ck, root, "tools", 0);
	const util_yaml_node *decl;
	const char *kind;
	size_t i;

	if (tools == NULL)
		return;
	for (i = 0; i < tools->count; i++) {
		decl = tools->items[i];
		if (decl->kind != UTIL_YAML_MAPPING) {
			formats_check_error(ck, decl, "soyapack_tool_kind", "tool '%s' "
			    "must be a mapping with a kind, found %s",
			    tools->keys[i]->value, util_yaml_describe(decl));
			continue;
		}
		kind = formats_check_string(ck, decl, "kind", 1);
		if (kind != NULL && tool_kind_valid(kind) != 0)
			formats_check_error(ck, util_yaml_get(decl, "kind"),
			    "soyapack_tool_kind", "tool '%s' kind '%s' is neither "
			    "builtin.<name> nor an external kind (a lowercase "
			    "name of letters, digits, '.', '-', '_')",
			    tools->keys[i]->value, kind);
		else if (kind != NULL)
			add_tool(ck, tools->keys[i]->value, kind);
	}
}

/* The input of an example: inline `input`, or a fixture file. */
static void
check_fixture(formats_check *ck, const util_yaml_node *inputs, const char *name,
    const util_yaml_node *at, const char *text, ps_severity sev)
{
	char path[UTIL_PATH_MAX], label[160];
	const util_yaml_node *root, *input;
	util_yaml_doc *doc;

	if (formats_check_path(ck, at, text, FORMATS_WANT_FILE, "example fixture", path,
	    sizeof(path)) != 0 || (doc = formats_check_load_yaml(ck, path)) == NULL)
		return;
	root = util_yaml_root(doc);
	input = util_yaml_get(root, "input") != NULL ? util_yaml_get(root, "input")
	    : root;
	snprintf(label, sizeof(label), "example %.100s input", name);
	if (inputs != NULL && input != NULL) {
		char *file = NULL;

		if (asprintf(&file, "%s%s", ck->prefix, path) < 0)
			formats_check_oom(ck);
		else
			formats_jsonschema_validate(inputs, input, file, label, sev,
			    ck->diags);
		free(file);
	}
	util_yaml_free(doc);
}

static void
check_examples(formats_check *ck, const util_yaml_node *root,
    const util_yaml_node *inputs)
{
	const util_yaml_node *examples = formats_check_mapping(ck, root, "examples", 0);
	const util_yaml_node *ex, *input;
	ps_severity sev = ck->opt->strict != 0 ? PS_SEVERITY_ERROR :
	    PS_SEVERITY_WARNING;
	char label[160];
	size_t i;

	if (examples == NULL)
		return;
	for (i = 0; i < examples->count; i++) {
		ex = examples->items[i];
		if (ex->kind == UTIL_YAML_SCALAR && util_yaml_string(ex) != NULL) {
			check_fixture(ck, inputs, examples->keys[i]->value, ex,
			    ex->value, sev);
			continue;
		}
		if (ex->kind != UTIL_YAML_MAPPING ||
		    (input = util_yaml_get(ex, "input")) == NULL) {
			formats_check_error(ck, ex, "soyapack_example", "example '%s' "
			    "must be a fixture file path or a mapping with "
			    "'input'", examples->keys[i]->value);
			continue;
		}
		snprintf(label, sizeof(label), "example %.100s input",
		    examples->keys[i]->value);
		if (inputs != NULL)
			formats_jsonschema_validate(inputs, input, ck->file, label, sev,
			    ck->diags);
	}
}

static void
validate(formats_check *ck, const util_yaml_node *root)
{
	const util_yaml_node *inputs;
	const char *version;
	formats_semver v;
	int agent;

	formats_check_known(ck, root, top_fields, "");
	check_identity(ck, root);
	agent = ck->m->kind != NULL && strcmp(ck->m->kind, "Agent") == 0;
	version = formats_check_semver(ck, root, 1);
	if (version != NULL && formats_semver_parse(version, &v) == 0 &&
	    v.prerelease[0] != '\0')
		strict_finding(ck, util_yaml_get(root, "version"),
		    "soyapack_prerelease", "pre-release version '%s' "
		    "(--strict: promote it before release)", version);
	check_description(ck, root, agent);
	check_capabilities(ck, root);
	inputs = formats_check_mapping(ck, root, "inputs", 1);
	if (inputs != NULL && formats_jsonschema_check(inputs, ck->file,
	    ck->diags) > 0)
		inputs = NULL;
	check_outputs(ck, root);
	check_file_map(ck, root, "prompts", agent);
	check_file_map(ck, root, "templates", 0);
	check_tools(ck, root);
	check_examples(ck, root, inputs);
}

/* ------------------------------------------------------------ describing */

static const char *
tier_text(formats_text *t, const char *tier)
{
	if (tier == NULL)
		return FORMATS_TR(t, "undeclared", "未声明");
	if (strcmp(tier, "read-only") == 0)
		return FORMATS_TR(t, "read-only: the same input gives the same output, "
		    "results may be cached", "read-only：相同输入得到相同输出，"
		    "结果可缓存");
	if (strcmp(tier, "side-effect") == 0)
		return FORMATS_TR(t, "side-effect: runs have effects outside, never "
		    "cached", "side-effect：运行会产生外部副作用，从不缓存");
	return FORMATS_TR(t, "unrestricted: no reproducibility promise",
	    "unrestricted：不承诺可复现");
}

static void
describe(formats_text *t, const ps_manifest *m)
{
	if (m->egress_count > 0) {
		fprintf(t->f, "%s", FORMATS_TR(t, "It may connect to: ", "可访问的网络地址："));
		formats_text_egress(t, m);
		fprintf(t->f, "%s\n", FORMATS_TR(t, ".", "。"));
	} else {
		fprintf(t->f, "%s\n", FORMATS_TR(t, "It makes no network connections.",
		    "不访问网络。"));
	}
	fprintf(t->f, "%s", FORMATS_TR(t, "It may read: ", "可读取的路径："));
	if (m->fs_read.count == 0)
		fprintf(t->f, "%s", FORMATS_TR(t, "nothing declared", "未声明"));
	formats_text_join(t, &m->fs_read);
	fprintf(t->f, "%s", FORMATS_TR(t, ". It may write: ", "。可写入的路径："));
	if (m->fs_write.count == 0)
		fprintf(t->f, "%s", FORMATS_TR(t, "nothing", "无"));
	formats_text_join(t, &m->fs_write);
	fprintf(t->f, "%s\n%s%s%s\n", FORMATS_TR(t, ".", "。"),
	    FORMATS_TR(t, "Determinism tier: ", "确定性等级："),
	    tier_text(t, m->determinism_tier), FORMATS_TR(t, ".", "。"));
}

static const char *const tiers[] = { "read-only", "side-effect",
    "unrestricted", NULL };

static const formats_permission permissions[] = {
	FORMATS_PERM("egress", FORMATS_PERM_EGRESS, egress),
	FORMATS_PERM("fs.read", FORMATS_PERM_PATHS, fs_read),
	FORMATS_PERM("fs.write", FORMATS_PERM_PATHS, fs_write),
	FORMATS_PERM_LEVELS("determinism_tier", FORMATS_PERM_LEVEL,
	    determinism_tier, tiers),
	FORMATS_PERM("tools", FORMATS_PERM_SET, tools),
};

const formats_descriptor formats_soyapack = {
	PS_FORMAT_SOYAPACK, "soyapack", "soyapack.yaml", "soyapacks", 2,
	validate, NULL, describe,
	permissions, sizeof(permissions) / sizeof(permissions[0]),
	NULL,
};
