/* autograph packages: augr.pkg.yml, pointers to standard files. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/manifest.h"
#include "formats/semver.h"

static const char *const top_fields[] = { "name", "version", "description",
    "contract", "compose", "taskfile", "skills", "attitudes", "signed_by",
    NULL };

#define NAME_PREFIX "autograph.pkg."

static void
check_name(ps_check *ck, const ps_yaml_node *root)
{
	const char *name = ps_check_string(ck, root, "name", 1);
	const char *rest;
	size_t plen = strlen(NAME_PREFIX);

	if (name == NULL)
		return;
	rest = name + plen;
	if (strncmp(name, NAME_PREFIX, plen) != 0 ||
	    isalnum((unsigned char)rest[0]) == 0 || isupper((unsigned char)
	    rest[0]) != 0 || strspn(rest, "abcdefghijklmnopqrstuvwxyz"
	    "0123456789._-") != strlen(rest)) {
		ps_check_error(ck, ps_yaml_get(root, "name"), "autograph_name",
		    "name '%s' must be autograph.pkg.<name>, <name> in lowercase "
		    "letters, digits, '.', '-', '_'", name);
		return;
	}
	ck->m->id = ps_check_strdup(ck, name);
	ck->m->name = ps_check_strdup(ck, name);
}

static void
check_contract(ps_check *ck, const ps_yaml_node *root)
{
	const ps_yaml_node *contract = ps_check_mapping(ck, root, "contract", 1);
	const char *text = ps_check_string(ck, contract, "engine_version", 1);
	ps_semver_range *range = NULL;
	ps_semver engine;
	char why[256] = "";

	if (text == NULL)
		return;
	if (ps_semver_range_parse(text, &range, why, sizeof(why)) != 0) {
		ps_check_error(ck, ps_yaml_get(contract, "engine_version"),
		    "autograph_engine_range", "contract.engine_version '%s' is "
		    "not a node-semver range: %s", text, why);
		return;
	}
	ck->m->engine_range = ps_check_strdup(ck, text);
	if (ck->opt->engine_version != NULL &&
	    ps_semver_parse(ck->opt->engine_version, &engine) == 0 &&
	    ps_semver_range_satisfies(range, &engine) != 1)
		ps_check_error(ck, ps_yaml_get(contract, "engine_version"),
		    "autograph_engine_unsatisfied", "engine %s does not satisfy "
		    "contract.engine_version '%s'", ck->opt->engine_version, text);
	ps_semver_range_free(range);
}

static void
check_compose_file(ps_check *ck, const ps_yaml_node *at)
{
	const char *text = ps_check_node_string(ck, at, "a compose path");
	const ps_yaml_node *services;
	char path[PS_PATH_MAX];
	ps_yaml_doc *doc;
	size_t i;

	if (text == NULL || ps_check_path(ck, at, text, PS_WANT_FILE,
	    "compose file", path, sizeof(path)) != 0)
		return;
	if ((doc = ps_check_load_yaml(ck, path)) == NULL) {
		ps_check_error(ck, at, "autograph_compose", "compose file '%s' "
		    "does not parse (see the error in that file)", path);
		return;
	}
	services = ps_yaml_get(ps_yaml_root(doc), "services");
	if (services == NULL || services->kind != PS_YAML_MAPPING)
		ps_check_error(ck, at, "autograph_compose", "compose file '%s' "
		    "has no 'services' mapping", path);
	for (i = 0; services != NULL && services->kind == PS_YAML_MAPPING &&
	    i < services->count; i++)
		ps_check_strings_add(ck, &ck->m->services,
		    services->keys[i]->value);
	ps_yaml_free(doc);
}

static void
check_compose(ps_check *ck, const ps_yaml_node *root)
{
	const ps_yaml_node *compose = ps_check_field(ck, root, "compose", 0);
	size_t i;

	if (compose == NULL)
		return;
	if (compose->kind == PS_YAML_SEQUENCE) {
		if (compose->count == 0)
			ps_check_error(ck, compose, "autograph_compose",
			    "compose is an empty list");
		for (i = 0; i < compose->count; i++)
			check_compose_file(ck, compose->items[i]);
		return;
	}
	check_compose_file(ck, compose);
}

static void
check_taskfile(ps_check *ck, const ps_yaml_node *root)
{
	const ps_yaml_node *at = ps_check_field(ck, root, "taskfile", 0);
	const char *text = "Taskfile.yaml";
	const ps_yaml_node *tasks;
	char path[PS_PATH_MAX];
	ps_yaml_doc *doc;
	size_t i;

	if (at != NULL && ((text = ps_check_node_string(ck, at,
	    "'taskfile'")) == NULL || ps_check_path(ck, at, text, PS_WANT_FILE,
	    "taskfile", path, sizeof(path)) != 0))
		return;
	if (at == NULL) {
		if (ps_check_stat(ck, text, &(ps_entry_type){ 0 }) != 0)
			return;	/* reported as autograph_layout */
		snprintf(path, sizeof(path), "%s", text);
	}
	if ((doc = ps_check_load_yaml(ck, path)) == NULL) {
		ps_check_error(ck, at, "autograph_taskfile", "taskfile '%s' does "
		    "not parse (see the error in that file)", path);
		return;
	}
	if (ps_yaml_root(doc) == NULL ||
	    ps_yaml_root(doc)->kind != PS_YAML_MAPPING)
		ps_check_error(ck, at, "autograph_taskfile", "taskfile '%s' is "
		    "not a mapping", path);
	tasks = ps_yaml_get(ps_yaml_root(doc), "tasks");
	for (i = 0; tasks != NULL && tasks->kind == PS_YAML_MAPPING &&
	    i < tasks->count; i++)
		ps_check_strings_add(ck, &ck->m->tasks, tasks->keys[i]->value);
	ps_yaml_free(doc);
}

/* A declared directory (may end with '/'); writes its canonical path. */
static void
check_dir(ps_check *ck, const ps_yaml_node *root, const char *key,
    const char *standard, char *out, size_t size)
{
	const ps_yaml_node *at = ps_check_field(ck, root, key, 0);
	const char *text;

	snprintf(out, size, "%s", standard);
	if (at == NULL)
		return;
	text = ps_check_node_string(ck, at, key);
	if (text != NULL && ps_check_path(ck, at, text, PS_WANT_DIR, key, out,
	    size) != 0)
		snprintf(out, size, "%s", standard);
}

static void
check_layout(ps_check *ck, const ps_yaml_node *root)
{
	static const char *const required[] = { "Taskfile.yaml", "README.md" };
	ps_entry_type type;
	size_t i;
	int rc;

	for (i = 0; i < 2; i++) {
		rc = ps_check_stat(ck, required[i], &type);
		if (rc > 0 || (rc == 0 && type != PS_ENTRY_FILE))
			ps_check_error(ck, root, "autograph_layout", "the package "
			    "root must hold %s (the standard layout requires it)",
			    required[i]);
	}
}

/*
 * The engine treats a standard path that exists as active even when the
 * manifest does not declare it; say so, since renaming breaks silently.
 */
static void
check_undeclared(ps_check *ck, const ps_yaml_node *root)
{
	static const struct { const char *key, *path; } standard[] = {
		{ "compose", "infra/compose.yaml" },
		{ "skills", "agent/skills" },
		{ "attitudes", "agent/attitudes" },
	};
	ps_entry_type type;
	size_t i;

	for (i = 0; i < sizeof(standard) / sizeof(standard[0]); i++) {
		if (ps_yaml_get(root, standard[i].key) != NULL ||
		    ps_check_stat(ck, standard[i].path, &type) != 0)
			continue;
		ps_check_warn(ck, root, "autograph_undeclared", "%s exists at its "
		    "standard path, so the engine uses it, but '%s' does not "
		    "declare it", standard[i].path, standard[i].key);
	}
}

struct prompt_walk {
	ps_check *ck;
	const char *skills, *attitudes;
	const ps_yaml_node *skills_at, *attitudes_at;
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
		ps_check_prompt(w->ck, path, w->skills_at);
	else if (one_level_under(path, w->attitudes, "ATTITUDE.md") != 0)
		ps_check_prompt(w->ck, path, w->attitudes_at);
	else if (strncmp(path, "agent/prompts/", 14) == 0 ||
	    strcmp(path, "agent/AGENTS.md") == 0 ||
	    strcmp(path, "agent/opencode.json.template") == 0)
		ps_check_prompt(w->ck, path, NULL);
	return w->ck->failed != 0 ? -1 : 0;
}

static void
collect_prompts(ps_check *ck, const ps_yaml_node *root, const char *skills,
    const char *attitudes)
{
	struct prompt_walk w = { ck, skills, attitudes,
	    ps_yaml_get(root, "skills"), ps_yaml_get(root, "attitudes") };
	ps_error err;

	ps_error_clear(&err);
	if (ck->files->list(ck->files->ctx, prompt_visit, &w, &err) != 0 &&
	    ck->failed == 0)
		ps_check_pack_error(ck, &err);
}

void
ps_autograph_check(ps_check *ck, const ps_yaml_node *root)
{
	char skills[PS_PATH_MAX], attitudes[PS_PATH_MAX];

	ps_check_known(ck, root, top_fields, "");
	check_name(ck, root);
	ps_check_semver(ck, root, 1);
	ck->m->description = ps_check_strdup(ck,
	    ps_check_string(ck, root, "description", 1));
	check_contract(ck, root);
	check_compose(ck, root);
	check_layout(ck, root);
	check_taskfile(ck, root);
	check_dir(ck, root, "skills", "agent/skills", skills, sizeof(skills));
	check_dir(ck, root, "attitudes", "agent/attitudes", attitudes,
	    sizeof(attitudes));
	check_undeclared(ck, root);
	collect_prompts(ck, root, skills, attitudes);
}
