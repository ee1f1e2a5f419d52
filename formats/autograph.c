/* autograph packages: augr.pkg.yml, pointers to standard files. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/check.h"
#include "formats/compose.h"
#include "formats/descriptor.h"
#include "formats/paths.h"
#include "formats/text.h"
#include "formats/semver.h"
#include "formats/taskfile.h"
#include "util/strings.h"

static const char *const top_fields[] = { "name", "version", "description",
    "contract", "compose", "taskfile", "skills", "attitudes", "signed_by",
    NULL };

#define NAME_PREFIX "autograph.pkg."

static void
check_name(formats_check *ck, const util_yaml_node *root)
{
	const char *name = formats_check_string(ck, root, "name", 1);
	const char *rest;
	size_t plen = strlen(NAME_PREFIX);

	if (name == NULL)
		return;
	rest = name + plen;
	if (strncmp(name, NAME_PREFIX, plen) != 0 ||
	    isalnum((unsigned char)rest[0]) == 0 || isupper((unsigned char)
	    rest[0]) != 0 || strspn(rest, "abcdefghijklmnopqrstuvwxyz"
	    "0123456789._-") != strlen(rest)) {
		formats_check_error(ck, util_yaml_get(root, "name"), "autograph_name",
		    "name '%s' must be autograph.pkg.<name>, <name> in lowercase "
		    "letters, digits, '.', '-', '_'", name);
		return;
	}
	ck->m->id = formats_check_strdup(ck, name);
	ck->m->name = formats_check_strdup(ck, name);
}

static void
check_contract(formats_check *ck, const util_yaml_node *root)
{
	const util_yaml_node *contract = formats_check_mapping(ck, root, "contract", 1);
	const char *text = formats_check_string(ck, contract, "engine_version", 1);
	formats_semver_range *range = NULL;
	formats_semver engine;
	char why[256] = "";

	if (text == NULL)
		return;
	if (formats_semver_range_parse(text, &range, why, sizeof(why)) != 0) {
		formats_check_error(ck, util_yaml_get(contract, "engine_version"),
		    "autograph_engine_range", "contract.engine_version '%s' is "
		    "not a node-semver range: %s", text, why);
		return;
	}
	ck->m->engine_range = formats_check_strdup(ck, text);
	if (ck->opt->engine_version != NULL &&
	    formats_semver_parse(ck->opt->engine_version, &engine) == 0 &&
	    formats_semver_range_satisfies(range, &engine) != 1)
		formats_check_error(ck, util_yaml_get(contract, "engine_version"),
		    "autograph_engine_unsatisfied", "engine %s does not satisfy "
		    "contract.engine_version '%s'", ck->opt->engine_version, text);
	formats_semver_range_free(range);
}

/* The standard compose file, active for the engine when it exists. */
#define STANDARD_COMPOSE "infra/compose.yaml"

/* The compose files read so far. */
typedef struct compose_files {
	ps_strings seen;
	int full;                /* PS_COMPOSE_MAX_FILES reached, said */
} compose_files;

/* 0 when `path` is to be read: not read before, within the bound. */
static int
compose_file_new(formats_check *ck, const util_yaml_node *at,
    const char *path, compose_files *files)
{
	size_t i;

	for (i = 0; i < files->seen.count; i++) {
		if (strcmp(files->seen.items[i], path) == 0)
			return -1;
	}
	if (files->seen.count < PS_COMPOSE_MAX_FILES) {
		formats_check_strings_add(ck, &files->seen, path);
		return 0;
	}
	if (files->full == 0)
		formats_check_report_later(ck, ck->m->manifest_path, at,
		    "autograph_compose_limit", "more than %d compose files; "
		    "packsign reads at most %d", PS_COMPOSE_MAX_FILES,
		    PS_COMPOSE_MAX_FILES);
	files->full = 1;
	return -1;
}

/*
 * Parses the compose file `path` and reads its services into the model.
 * `at` is the manifest's declaration, NULL for the standard file read
 * undeclared: its problems are then in that file and, a rule newer than
 * signed packs, warnings for a pack already signed.  A file listed twice
 * is read once: Compose merging a file with itself changes nothing.
 */
static void
read_compose_file(formats_check *ck, const util_yaml_node *at,
    const char *path, compose_files *files)
{
	const util_yaml_node *services;
	util_yaml_doc *doc;

	if (compose_file_new(ck, at, path, files) != 0)
		return;
	/* What the engine runs: a change to it is a code change. */
	formats_check_strings_add(ck, &ck->m->code_files, path);
	doc = at != NULL ? formats_check_load_yaml(ck, path) :
	    formats_check_load_yaml_later(ck, path);
	if (doc == NULL) {
		if (at != NULL)
			formats_check_error(ck, at, "autograph_compose", "compose "
			    "file '%s' does not parse (see the error in that "
			    "file)", path);
		return;
	}
	services = util_yaml_get(util_yaml_root(doc), "services");
	if (services != NULL && services->kind == UTIL_YAML_MAPPING) {
		formats_compose_read(ck, path, util_yaml_root(doc));
	} else if (at != NULL) {
		formats_check_error(ck, at, "autograph_compose", "compose file "
		    "'%s' has no 'services' mapping", path);
	} else {
		formats_check_report_later(ck, path, NULL, "autograph_compose",
		    "compose file '%s', active at its standard path, has no "
		    "'services' mapping", path);
	}
	util_yaml_free(doc);
}

static void
check_compose_file(formats_check *ck, const util_yaml_node *at,
    compose_files *files)
{
	const char *text = formats_check_node_string(ck, at, "a compose path");
	char path[UTIL_PATH_MAX];

	if (text == NULL || formats_check_path(ck, at, text, FORMATS_WANT_FILE,
	    "compose file", path, sizeof(path)) != 0)
		return;
	read_compose_file(ck, at, path, files);
}

/* The declared compose files; undeclared, the standard one if it is a
 * file (the engine uses it: check_undeclared says so). */
static void
check_compose(formats_check *ck, const util_yaml_node *root)
{
	const util_yaml_node *compose = formats_check_field(ck, root, "compose", 0);
	compose_files files = { { NULL, 0 }, 0 };
	ps_entry_type type;
	size_t i;

	if (compose == NULL) {
		if (formats_check_stat(ck, STANDARD_COMPOSE, &type) == 0 &&
		    type == PS_ENTRY_FILE)
			read_compose_file(ck, NULL, STANDARD_COMPOSE, &files);
	} else if (compose->kind == UTIL_YAML_SEQUENCE) {
		if (compose->count == 0)
			formats_check_error(ck, compose, "autograph_compose",
			    "compose is an empty list");
		for (i = 0; i < compose->count && ck->failed == 0; i++)
			check_compose_file(ck, compose->items[i], &files);
	} else {
		check_compose_file(ck, compose, &files);
	}
	util_strings_clear(&files.seen);
}

static void
check_taskfile(formats_check *ck, const util_yaml_node *root)
{
	const util_yaml_node *at = formats_check_field(ck, root, "taskfile", 0);
	const char *text = "Taskfile.yaml";
	char path[UTIL_PATH_MAX];
	util_yaml_doc *doc;

	if (at != NULL && ((text = formats_check_node_string(ck, at,
	    "'taskfile'")) == NULL || formats_check_path(ck, at, text, FORMATS_WANT_FILE,
	    "taskfile", path, sizeof(path)) != 0))
		return;
	if (at == NULL) {
		if (formats_check_stat(ck, text, &(ps_entry_type){ 0 }) != 0)
			return;	/* reported as autograph_layout */
		snprintf(path, sizeof(path), "%s", text);
	}
	formats_check_strings_add(ck, &ck->m->code_files, path);
	if ((doc = formats_check_load_yaml(ck, path)) == NULL) {
		formats_check_error(ck, at, "autograph_taskfile", "taskfile '%s' does "
		    "not parse (see the error in that file)", path);
		return;
	}
	if (util_yaml_root(doc) == NULL ||
	    util_yaml_root(doc)->kind != UTIL_YAML_MAPPING)
		formats_check_error(ck, at, "autograph_taskfile", "taskfile '%s' is "
		    "not a mapping", path);
	else
		formats_taskfile_read(ck, path, util_yaml_root(doc));
	util_yaml_free(doc);
}

/* A declared directory (may end with '/'); writes its canonical path. */
static void
check_dir(formats_check *ck, const util_yaml_node *root, const char *key,
    const char *standard, char *out, size_t size)
{
	const util_yaml_node *at = formats_check_field(ck, root, key, 0);
	const char *text;

	snprintf(out, size, "%s", standard);
	if (at == NULL)
		return;
	text = formats_check_node_string(ck, at, key);
	if (text != NULL && formats_check_path(ck, at, text, FORMATS_WANT_DIR, key, out,
	    size) != 0)
		snprintf(out, size, "%s", standard);
}

static void
check_layout(formats_check *ck, const util_yaml_node *root)
{
	static const char *const required[] = { "Taskfile.yaml", "README.md" };
	ps_entry_type type;
	size_t i;
	int rc;

	for (i = 0; i < 2; i++) {
		rc = formats_check_stat(ck, required[i], &type);
		if (rc > 0 || (rc == 0 && type != PS_ENTRY_FILE))
			formats_check_error(ck, root, "autograph_layout", "the package "
			    "root must hold %s (the standard layout requires it)",
			    required[i]);
	}
}

/*
 * The engine treats a standard path that exists as active even when the
 * manifest does not declare it; say so, since renaming breaks silently.
 */
static void
check_undeclared(formats_check *ck, const util_yaml_node *root)
{
	static const struct { const char *key, *path; } standard[] = {
		{ "compose", STANDARD_COMPOSE },
		{ "skills", "agent/skills" },
		{ "attitudes", "agent/attitudes" },
	};
	ps_entry_type type;
	size_t i;

	for (i = 0; i < sizeof(standard) / sizeof(standard[0]); i++) {
		if (util_yaml_get(root, standard[i].key) != NULL ||
		    formats_check_stat(ck, standard[i].path, &type) != 0)
			continue;
		formats_check_warn(ck, root, "autograph_undeclared", "%s exists at its "
		    "standard path, so the engine uses it, but '%s' does not "
		    "declare it", standard[i].path, standard[i].key);
	}
}

struct prompt_walk {
	formats_check *ck;
	const char *skills, *attitudes;
	const util_yaml_node *skills_at, *attitudes_at;
};

/* PATH is DIR/<one component>/LEAF. */
static int
one_level_under(const char *path, const char *dir, const char *leaf)
{
	size_t dl = strlen(dir), ll = strlen(leaf), pl = strlen(path);
	const char *mid;

	if (pl <= dl + ll + 2 || strncmp(path, dir, dl) != 0 ||
	    path[dl] != '/' || strcmp(path + pl - ll, leaf) != 0 ||
	    path[pl - ll - 1] != '/')
		return 0;
	mid = path + dl + 1;
	return (const char *)memchr(mid, '/', (size_t)(path + pl - ll - 1 -
	    mid)) == NULL;
}

static int
prompt_visit(void *arg, const char *path, ps_entry_type type, uint64_t size,
    ps_error *err)
{
	struct prompt_walk *w = arg;

	(void)size;
	(void)err;
	if (type != PS_ENTRY_FILE)
		return 0;
	if (one_level_under(path, w->skills, "SKILL.md") != 0)
		formats_check_prompt(w->ck, path, w->skills_at);
	else if (one_level_under(path, w->attitudes, "ATTITUDE.md") != 0)
		formats_check_prompt(w->ck, path, w->attitudes_at);
	else if (strncmp(path, "agent/prompts/", 14) == 0 ||
	    strcmp(path, "agent/AGENTS.md") == 0 ||
	    strcmp(path, "agent/opencode.json.template") == 0)
		formats_check_prompt(w->ck, path, NULL);
	return w->ck->failed != 0 ? -1 : 0;
}

static void
collect_prompts(formats_check *ck, const util_yaml_node *root, const char *skills,
    const char *attitudes)
{
	struct prompt_walk w = { ck, skills, attitudes,
	    util_yaml_get(root, "skills"), util_yaml_get(root, "attitudes") };
	ps_error err;

	ps_error_clear(&err);
	if (ck->files->list(ck->files->ctx, prompt_visit, &w, &err) != 0 &&
	    ck->failed == 0)
		formats_check_pack_error(ck, &err);
}

static void
validate(formats_check *ck, const util_yaml_node *root)
{
	char skills[UTIL_PATH_MAX], attitudes[UTIL_PATH_MAX];

	formats_check_known(ck, root, top_fields, "");
	check_name(ck, root);
	formats_check_semver(ck, root, 1);
	ck->m->description = formats_check_strdup(ck,
	    formats_check_string(ck, root, "description", 1));
	check_contract(ck, root);
	check_compose(ck, root);
	check_layout(ck, root);
	check_taskfile(ck, root);
	check_dir(ck, root, "skills", "agent/skills", skills, sizeof(skills));
	check_dir(ck, root, "attitudes", "agent/attitudes", attitudes,
	    sizeof(attitudes));
	check_undeclared(ck, root);
}

/* check_dir's outcome without its diagnostics (validate gave them). */
static void
declared_dir(formats_check *ck, const util_yaml_node *root, const char *key,
    const char *standard, char *out, size_t size)
{
	const char *text = util_yaml_string(util_yaml_get(root, key));
	ps_entry_type type;

	if (text == NULL ||
	    formats_path_normalize(text, out, size) != FORMATS_PATH_OK ||
	    formats_check_stat(ck, out, &type) != 0 || type != PS_ENTRY_DIR)
		snprintf(out, size, "%s", standard);
}

/* SKILL.md one level below the skills directory, ATTITUDE.md below the
 * attitudes directory, and what the engine reads from agent/. */
static void
conventional_prompts(formats_check *ck, const util_yaml_node *root)
{
	char skills[UTIL_PATH_MAX], attitudes[UTIL_PATH_MAX];

	declared_dir(ck, root, "skills", "agent/skills", skills, sizeof(skills));
	declared_dir(ck, root, "attitudes", "agent/attitudes", attitudes,
	    sizeof(attitudes));
	collect_prompts(ck, root, skills, attitudes);
}

/* ------------------------------------------------------------ describing */

static void
describe(formats_text *t, const ps_manifest *m)
{
	fprintf(t->f, "%s", FORMATS_TR(t, "It adds services: ", "新增服务："));
	if (m->services.count == 0)
		fprintf(t->f, "%s", FORMATS_TR(t, "none", "无"));
	formats_text_join(t, &m->services);
	fprintf(t->f, "%s", FORMATS_TR(t, ". Tasks: ", "。任务："));
	if (m->tasks.count == 0)
		fprintf(t->f, "%s", FORMATS_TR(t, "none", "无"));
	formats_text_join(t, &m->tasks);
	fprintf(t->f, "%s\n", FORMATS_TR(t, ".", "。"));
	formats_compose_describe(t, m);
	if (m->engine_range != NULL)
		fprintf(t->f, FORMATS_TR(t, "It needs an engine version %s.\n",
		    "需要引擎版本 %s。\n"), formats_text_value(t, m->engine_range));
}

static const formats_permission permissions[] = {
	FORMATS_PERM("contract.engine_version", FORMATS_PERM_SHOWN,
	    engine_range),
	FORMATS_PERM("service", FORMATS_PERM_SERVICES, compose_services),
	FORMATS_PERM("task", FORMATS_PERM_TASKS, taskfile_tasks),
};

/* OpenCode plugins, which the entrypoint aggregates and runs. */
static const char *const autograph_code[] = { "agent/plugins/", NULL };

const formats_descriptor formats_autograph = {
	PS_FORMAT_AUTOGRAPH, "autograph", "augr.pkg.yml", "augr", 1,
	validate, conventional_prompts, describe,
	permissions, sizeof(permissions) / sizeof(permissions[0]),
	autograph_code,
};
