/* AgentPack v0.1: manifest.yml, agents, prompts, permissions, no pickles. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "formats/check.h"
#include "formats/descriptor.h"
#include "formats/paths.h"
#include "formats/text.h"

static const char *const top_fields[] = { "id", "name", "version", "domain",
    "entrypoint", "audience", "description", "permissions", "model",
    "author", "homepage", "license", "signed_by", NULL };

static const char *const permission_fields[] = { "network", "shell",
    "file_write", "read_knowledge", "read_filesystem", NULL };

/* ^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$ */
static int
id_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789.-") != n)
		return -1;
	if (s[0] == '.' || s[0] == '-' || s[n - 1] == '.' || s[n - 1] == '-')
		return -1;
	return 0;
}

static void
check_identity(formats_check *ck, const util_yaml_node *root)
{
	const char *id = formats_check_string(ck, root, "id", 1);
	const util_yaml_node *desc = util_yaml_get(root, "description");

	if (id != NULL && id_valid(id) != 0)
		formats_check_error(ck, util_yaml_get(root, "id"), "agentpack_id",
		    "id '%s' must match ^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$ "
		    "(reverse-dotted, e.g. research.top-journal-reviewer)", id);
	else
		ck->m->id = formats_check_strdup(ck, id);
	if (ck->m->id != NULL && strchr(ck->m->id, '.') == NULL)
		formats_check_warn(ck, util_yaml_get(root, "id"), "agentpack_id_not_dotted",
		    "id '%s' is not reverse-dotted (domain.name), as the "
		    "specification recommends", id);
	ck->m->name = formats_check_strdup(ck, formats_check_string(ck, root, "name", 1));
	ck->m->domain = formats_check_strdup(ck, formats_check_string(ck, root, "domain",
	    1));
	formats_check_semver(ck, root, 0);
	if (desc != NULL)
		ck->m->description = formats_check_strdup(ck,
		    formats_check_node_string(ck, desc, "'description'"));
	formats_check_string(ck, root, "author", 0);
	formats_check_string(ck, root, "homepage", 0);
	ck->m->license = formats_check_strdup(ck,
	    formats_check_string(ck, root, "license", 0));
}

static void
check_string_list(formats_check *ck, const util_yaml_node *list, const char *what,
    int provider_model)
{
	const char *s, *slash;
	size_t i;

	for (i = 0; list != NULL && i < list->count; i++) {
		s = formats_check_node_string(ck, list->items[i], what);
		if (s == NULL || provider_model == 0)
			continue;
		slash = strchr(s, '/');
		if (slash == NULL || slash == s || slash[1] == '\0' ||
		    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789._-") != (size_t)(slash - s) ||
		    strpbrk(slash + 1, " \t") != NULL)
			formats_check_error(ck, list->items[i], "agentpack_model",
			    "model.recommended entry '%s' must be provider/model, "
			    "e.g. anthropic/claude-sonnet", s);
	}
}

static void
check_informational(formats_check *ck, const util_yaml_node *root)
{
	const util_yaml_node *model;

	check_string_list(ck, formats_check_sequence(ck, root, "audience", 0),
	    "an audience entry", 0);
	model = formats_check_mapping(ck, root, "model", 0);
	check_string_list(ck, formats_check_sequence(ck, model, "recommended", 0),
	    "a model.recommended entry", 1);
}

static void
check_permissions(formats_check *ck, const util_yaml_node *root)
{
	const util_yaml_node *perms = formats_check_mapping(ck, root, "permissions", 1);
	ps_permissions *p = &ck->m->permissions;
	const char *fw;

	if (perms == NULL)
		return;
	p->declared = 1;
	formats_check_known(ck, perms, permission_fields, "permissions");
	/* A permission not declared is denied: the fields stay 0. */
	if (formats_check_bool(ck, perms, "network", &p->network) < 0)
		p->network = 0;
	if (formats_check_bool(ck, perms, "shell", &p->shell) < 0)
		p->shell = 0;
	if (formats_check_bool(ck, perms, "read_knowledge", &p->read_knowledge) < 0)
		p->read_knowledge = 0;
	if (formats_check_bool(ck, perms, "read_filesystem", &p->read_filesystem) < 0)
		p->read_filesystem = 0;
	if (p->shell == 1)
		formats_check_warn(ck, util_yaml_get(perms, "shell"), "agentpack_shell",
		    "shell: true; installers refuse a third-party pack that "
		    "runs shell commands unless the user passes --allow-shell");
	fw = formats_check_string(ck, perms, "file_write", 0);
	if (fw != NULL && strcmp(fw, "none") != 0 &&
	    strcmp(fw, "workspace") != 0 && strcmp(fw, "knowledge") != 0) {
		formats_check_error(ck, util_yaml_get(perms, "file_write"),
		    "agentpack_file_write", "permissions.file_write must be none, "
		    "workspace or knowledge, found '%s'", fw);
		fw = NULL;
	}
	p->file_write = formats_check_strdup(ck, fw != NULL ? fw : "none");
}

/* Resolves a `config:` reference of an agent file against the pack root. */
/* Agent configs reached through config: references, at most. */
#define MAX_CONFIG_FILES 1024

static void
check_config_ref(formats_check *ck, const char *file, const util_yaml_node *at,
    ps_strings *referenced)
{
	const char *text = util_yaml_string(at);
	char path[UTIL_PATH_MAX];
	ps_entry_type type;
	int rc;

	if (text == NULL) {
		formats_check_report_in(ck, PS_SEVERITY_ERROR, file, at->line,
		    at->column, "field_type", "config must be a path string, "
		    "found %s", util_yaml_describe(at));
		return;
	}
	switch (formats_path_normalize(text, path, sizeof(path))) {
	case FORMATS_PATH_OK:
		break;
	case FORMATS_PATH_ABSOLUTE:
		formats_check_report_in(ck, PS_SEVERITY_ERROR, file, at->line,
		    at->column, "path_absolute", "config '%s' is absolute; it "
		    "is resolved relative to the pack root", text);
		return;
	case FORMATS_PATH_ESCAPES:
		formats_check_report_in(ck, PS_SEVERITY_ERROR, file, at->line,
		    at->column, "path_escapes", "config '%s' escapes the pack "
		    "root", text);
		return;
	default:
		formats_check_report_in(ck, PS_SEVERITY_ERROR, file, at->line,
		    at->column, "path_invalid", "config '%s' is not a usable "
		    "path", text);
		return;
	}
	rc = formats_check_stat(ck, path, &type);
	if (rc > 0 || (rc == 0 && type != PS_ENTRY_FILE))
		formats_check_report_in(ck, PS_SEVERITY_ERROR, file, at->line,
		    at->column, "path_missing", "config '%s' does not name a "
		    "file in the pack (references resolve from the pack root)",
		    text);
	else if (rc == 0)
		formats_check_strings_add(ck, referenced, path);
}

/*
 * Agent-config keys whose values the runtime opens as files or
 * directories: system_prompt, prompt, and any key ending in _file, _path
 * or _dir (or their plurals, which hold lists).
 */
static int
path_key(const char *key)
{
	static const char *const suffixes[] = { "_file", "_files", "_path",
	    "_paths", "_dir", "_dirs", NULL };
	size_t i, n = strlen(key), k;

	if (strcmp(key, "system_prompt") == 0 || strcmp(key, "prompt") == 0)
		return 1;
	for (i = 0; suffixes[i] != NULL; i++) {
		k = strlen(suffixes[i]);
		if (n >= k && strcmp(key + n - k, suffixes[i]) == 0)
			return 1;
	}
	return 0;
}

/*
 * A path value that leaves the pack.  A rule added after packs could have
 * been signed: refused when validating or signing, a warning when the
 * pack is verified or installed (already_signed), so that what an older
 * packsign signed still installs, with the finding shown.
 */
static void
config_path_report(formats_check *ck, const char *file, const char *key,
    const util_yaml_node *at, const char *found)
{
	int signed_pack = ck->opt->already_signed != 0;

	formats_check_report_in(ck, signed_pack ? PS_SEVERITY_WARNING :
	    PS_SEVERITY_ERROR, file, at->line, at->column,
	    "agentpack_config_path", "%s is a path: expected a relative "
	    "path inside the pack, found %s%s", key, found, signed_pack ?
	    "; a warning as the pack is already signed (packsign sign "
	    "refuses it)" : "");
}

/*
 * Checks one string under a path key with formats_path_normalize: absolute
 * or with a ".." component is a finding.  Text with a line break is an
 * inline prompt, not a path.  A target need not exist (an output_file or
 * a data_dir may be made at run time), and naming one does not make it a
 * prompt file: those under prompts/ and agents/ are by convention, and a
 * new one would be unsigned in packs signed before.
 */
static void
check_config_path(formats_check *ck, const char *file, const char *key,
    const util_yaml_node *at)
{
	const char *text = util_yaml_string(at);
	char path[UTIL_PATH_MAX], found[UTIL_PATH_MAX + 96];

	if (text == NULL || strpbrk(text, "\r\n") != NULL)
		return;
	switch (formats_path_normalize(text, path, sizeof(path))) {
	case FORMATS_PATH_ABSOLUTE:
		snprintf(found, sizeof(found), "the absolute path '%.*s'",
		    UTIL_PATH_MAX, text);
		break;
	case FORMATS_PATH_ESCAPES:
		snprintf(found, sizeof(found), "'%.*s' (a '..' component can "
		    "lead out of it)", UTIL_PATH_MAX, text);
		break;
	default:
		return;          /* inside the pack, or no usable path at all */
	}
	config_path_report(ck, file, key, at, found);
}

static void find_references(formats_check *ck, const char *file,
    const util_yaml_node *node, ps_strings *referenced);

/* The value of a path key: a string, or strings in (nested) sequences; a
 * mapping is walked for keys of its own. */
static void
check_path_value(formats_check *ck, const char *file, const char *key,
    const util_yaml_node *node, ps_strings *referenced)
{
	size_t i;

	if (node->kind == UTIL_YAML_SCALAR) {
		check_config_path(ck, file, key, node);
		return;
	}
	if (node->kind == UTIL_YAML_MAPPING) {
		find_references(ck, file, node, referenced);
		return;
	}
	for (i = 0; i < node->count; i++)
		check_path_value(ck, file, key, node->items[i], referenced);
}

/* Every `config:` key and every path key anywhere in an agent file's tree. */
static void
find_references(formats_check *ck, const char *file, const util_yaml_node *node,
    ps_strings *referenced)
{
	const char *key;
	size_t i;

	if (node == NULL || node->kind == UTIL_YAML_SCALAR)
		return;
	for (i = 0; i < node->count; i++) {
		key = node->kind == UTIL_YAML_MAPPING ? node->keys[i]->value : NULL;
		if (key != NULL && strcmp(key, "config") == 0)
			check_config_ref(ck, file, node->items[i], referenced);
		else if (key != NULL && path_key(key) != 0)
			check_path_value(ck, file, key, node->items[i], referenced);
		else
			find_references(ck, file, node->items[i], referenced);
	}
}

static void
check_agent_file(formats_check *ck, const char *path, ps_strings *referenced)
{
	util_yaml_doc *doc = formats_check_load_yaml(ck, path);

	if (doc == NULL)
		return;
	find_references(ck, path, util_yaml_root(doc), referenced);
	util_yaml_free(doc);
}

static int
listed(const ps_strings *list, size_t n, const char *path)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(list->items[i], path) == 0)
			return 1;
	}
	return 0;
}

/*
 * Sub-agent configs named by `config:` are agent configs too: follow the
 * references transitively (each file once, at most MAX_CONFIG_FILES), so
 * none reached from the entrypoint can point outside the pack.
 */
static void
check_agent_files(formats_check *ck, ps_strings *files)
{
	size_t i;

	for (i = 0; i < files->count && ck->failed == 0; i++) {
		if (listed(files, i, files->items[i]))
			continue;            /* reached twice: checked already */
		if (i >= MAX_CONFIG_FILES) {
			formats_check_report_in(ck, PS_SEVERITY_ERROR, files->items[i], 0,
			    0, "agentpack_config_limit", "more than %d agent configs "
			    "are reached through config: references",
			    MAX_CONFIG_FILES);
			return;
		}
		check_agent_file(ck, files->items[i], files);
	}
}

/* File name suffixes of pickle-based formats, compared case-insensitively. */
static const char *
pickle_extension(const char *path)
{
	static const char *const ext[] = { "pkl", "pickle", "pk", "joblib",
	    "pt", "pth", "ckpt", NULL };
	const char *base = strrchr(path, '/');
	const char *dot;
	size_t i, n;

	base = base != NULL ? base + 1 : path;
	/* Any dotted suffix counts, so model.pkl.gz is caught too. */
	for (dot = strchr(base + 1, '.'); dot != NULL; dot = strchr(dot + 1,
	    '.')) {
		n = strcspn(dot + 1, ".");
		for (i = 0; ext[i] != NULL; i++) {
			if (strlen(ext[i]) == n &&
			    strncasecmp(dot + 1, ext[i], n) == 0)
				return ext[i];
		}
	}
	return NULL;
}

struct pack_walk {
	formats_check *ck;
	ps_strings agents;
};

static void
check_pickle(formats_check *ck, const char *path, uint64_t size)
{
	unsigned char head[2];
	const char *ext = pickle_extension(path);
	size_t got = 0;
	ps_error err;

	if (ext != NULL) {
		formats_check_report_in(ck, PS_SEVERITY_ERROR, path, 0, 0,
		    "agentpack_pickle", "pickle files are forbidden in packs "
		    "(the .%s extension names a pickle-based format)", ext);
		return;
	}
	if (size < 2)
		return;
	ps_error_clear(&err);
	if (ck->files->head(ck->files->ctx, path, head, 2, &got, &err) != 0) {
		formats_check_pack_error(ck, &err);
		return;
	}
	if (got == 2 && head[0] == 0x80 && head[1] >= 2 && head[1] <= 5)
		formats_check_report_in(ck, PS_SEVERITY_ERROR, path, 0, 0,
		    "agentpack_pickle", "pickle files are forbidden in packs "
		    "(content starts with pickle protocol %u)", head[1]);
}

static int
is_agent_yaml(const char *path)
{
	size_t n = strlen(path);

	if (strncmp(path, "agents/", 7) != 0 || strchr(path + 7, '/') != NULL)
		return 0;
	return (n > 11 && strcmp(path + n - 4, ".yml") == 0) ||
	    (n > 12 && strcmp(path + n - 5, ".yaml") == 0);
}

static int
pack_visit(void *arg, const char *path, ps_entry_type type, uint64_t size,
    ps_error *err)
{
	struct pack_walk *w = arg;

	(void)err;
	if (type != PS_ENTRY_FILE)
		return 0;
	check_pickle(w->ck, path, size);
	if (is_agent_yaml(path) != 0)
		formats_check_strings_add(w->ck, &w->agents, path);
	return w->ck->failed != 0 ? -1 : 0;
}

/* The entrypoint first, then the agents/ configs, then what they name. */
static void
walk_pack(formats_check *ck, const char *entrypoint)
{
	struct pack_walk w = { ck, { NULL, 0 } };
	ps_error err;
	size_t i;

	if (entrypoint != NULL)
		formats_check_strings_add(ck, &w.agents, entrypoint);
	ps_error_clear(&err);
	if (ck->files->list(ck->files->ctx, pack_visit, &w, &err) != 0 &&
	    ck->failed == 0)
		formats_check_pack_error(ck, &err);
	check_agent_files(ck, &w.agents);
	for (i = 0; i < w.agents.count; i++) {
		if (!listed(&w.agents, i, w.agents.items[i]))
			formats_check_strings_add(ck, &ck->m->code_files,
			    w.agents.items[i]);
	}
	for (i = 0; i < w.agents.count; i++)
		free(w.agents.items[i]);
	free(w.agents.items);
}

static void
validate(formats_check *ck, const util_yaml_node *root)
{
	const util_yaml_node *at;
	const char *entry;
	char path[UTIL_PATH_MAX];
	ps_entry_type type;
	int rc, have_entry = 0;

	formats_check_known(ck, root, top_fields, "");
	check_identity(ck, root);
	check_informational(ck, root);
	check_permissions(ck, root);
	rc = formats_check_stat(ck, "agents", &type);
	if (rc > 0 || (rc == 0 && type != PS_ENTRY_DIR))
		formats_check_error(ck, root, "agentpack_agents_dir", "the pack must "
		    "have an agents/ directory holding its agent configs");
	entry = formats_check_string(ck, root, "entrypoint", 1);
	at = util_yaml_get(root, "entrypoint");
	if (entry != NULL && formats_check_path(ck, at, entry, FORMATS_WANT_FILE,
	    "entrypoint", path, sizeof(path)) == 0) {
		formats_check_prompt(ck, path, at);
		have_entry = 1;
	}
	walk_pack(ck, have_entry != 0 ? path : NULL);
}

/* Agent configs (YAML files directly in agents/) and everything under
 * prompts/ steer the model, declared or not. */
static int
prompt_visit(void *arg, const char *path, ps_entry_type type, uint64_t size,
    ps_error *err)
{
	formats_check *ck = arg;

	(void)size;
	(void)err;
	if (type == PS_ENTRY_FILE && (is_agent_yaml(path) != 0 ||
	    strncmp(path, "prompts/", 8) == 0))
		formats_check_prompt(ck, path, NULL);
	return ck->failed != 0 ? -1 : 0;
}

/* The same listing as validate's walk: what stops it there (a link in
 * the pack) was reported there, once; only a failure of the job is new. */
static void
conventional_prompts(formats_check *ck, const util_yaml_node *root)
{
	ps_error err;

	(void)root;
	ps_error_clear(&err);
	if (ck->files->list(ck->files->ctx, prompt_visit, ck, &err) != 0 &&
	    ck->failed == 0 && err.status == PS_STATUS_FAILED)
		formats_check_pack_error(ck, &err);
}

/* ------------------------------------------------------------ describing */

static const char *
file_write_text(formats_text *t, const char *fw)
{
	if (fw != NULL && strcmp(fw, "knowledge") == 0)
		return FORMATS_TR(t, "writes to the workspace and the knowledge base",
		    "写入 workspace 和本地知识库");
	if (fw != NULL && strcmp(fw, "workspace") == 0)
		return FORMATS_TR(t, "writes to the workspace", "写入 workspace");
	return FORMATS_TR(t, "writes no files", "不写入任何文件");
}

static void
describe(formats_text *t, const ps_manifest *m)
{
	const ps_permissions *p = &m->permissions;

	fprintf(t->f, "%s", FORMATS_TR(t, "This agent pack ", "此智能体包将"));
	fprintf(t->f, "%s", p->read_knowledge != 0 ?
	    FORMATS_TR(t, "reads your knowledge base", "读取本地知识库") :
	    FORMATS_TR(t, "does not read your knowledge base", "不读取本地知识库"));
	if (p->read_filesystem != 0)
		fprintf(t->f, "%s", FORMATS_TR(t, ", reads files outside the knowledge "
		    "base and the workspace", "，读取知识库和 workspace 以外的文件"));
	fprintf(t->f, "%s%s", FORMATS_TR(t, ", ", "，"), file_write_text(t, p->file_write));
	fprintf(t->f, "%s%s", FORMATS_TR(t, ", ", "，"), p->shell != 0 ?
	    FORMATS_TR(t, "runs shell commands", "执行 shell 命令") :
	    FORMATS_TR(t, "runs no shell commands", "不执行 shell"));
	fprintf(t->f, "%s%s%s\n", FORMATS_TR(t, " and ", "，"), p->network != 0 ?
	    FORMATS_TR(t, "accesses the network", "访问网络") :
	    FORMATS_TR(t, "does not access the network", "不访问网络"),
	    FORMATS_TR(t, ".", "。"));
}

static const char *const file_write_levels[] = { "none", NULL };

static const formats_permission permissions[] = {
	FORMATS_PERM("permissions.network", FORMATS_PERM_BOOL,
	    permissions.network),
	FORMATS_PERM("permissions.shell", FORMATS_PERM_BOOL, permissions.shell),
	FORMATS_PERM_LEVELS("permissions.file_write", FORMATS_PERM_CHOICE,
	    permissions.file_write, file_write_levels),
	FORMATS_PERM("permissions.read_knowledge", FORMATS_PERM_BOOL,
	    permissions.read_knowledge),
	FORMATS_PERM("permissions.read_filesystem", FORMATS_PERM_BOOL,
	    permissions.read_filesystem),
};

const formats_descriptor formats_agentpack = {
	PS_FORMAT_AGENTPACK, "agentpack", "manifest.yml", "agentpacks", 1,
	validate, conventional_prompts, describe,
	permissions, sizeof(permissions) / sizeof(permissions[0]),
	NULL,
};
