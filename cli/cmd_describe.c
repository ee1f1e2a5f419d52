/* packsign describe: what a pack may do, in plain words or JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/json.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/pack_manifest.h"

const struct cli_usage cmd_describe_usage = {
	.name = "describe",
	.text =
    "usage: packsign describe PATH [--lang en|zh] [--json] [-q]\n"
    "\n"
    "Validates the pack directory or archive PATH, then summarises in plain language\n"
    "what it may do, as an installer shows it before install: AgentPack\n"
    "permissions, SoyaPack egress hosts, file paths and determinism tier,\n"
    "holon data retention, training use, egress, worst-case price and\n"
    "endpoint, autograph services (host mounts, privileged, host\n"
    "namespaces, capabilities, devices) and tasks; and its prompt files.\n"
    "Problems go to standard error; an invalid pack is not described.\n"
    "\n"
    "  --lang en|zh    language of the summary (default: from LC_ALL,\n"
    "                  LC_MESSAGES or LANG, zh* Chinese, else en)\n"
    "  --json          print the model and the summary as JSON\n"
    "  -q, --quiet     print nothing on success: the exit status says\n"
    "                  whether the pack is valid\n"
    "\n"
    "Exit status: 0 described, 1 the pack is invalid, 2 it could not be\n"
    "read.\n",
};

struct describe_args {
	const char *path;
	const char *lang;
	int json, quiet;
};

static int
parse_describe(int argc, char **argv, struct describe_args *a)
{
	const struct cli_option options[] = {
		/* validate's, refused by name as describe always did */
		CLI_REFUSED("format", CLI_OPTION_STRING),
		CLI_REFUSED("strict", CLI_OPTION_FLAG),
		CLI_REFUSED("engine-version", CLI_OPTION_STRING),
		CLI_FLAG(0, "json", &a->json),
		CLI_FLAG('q', "quiet", &a->quiet),
		CLI_STRING(0, "lang", &a->lang),
		CLI_END
	};
	struct cli_operands rest;
	int rc;

	memset(a, 0, sizeof(*a));
	a->lang = cli_lang_default();
	rc = cli_parse_options(&cmd_describe_usage, options, argc, argv, &rest);
	if (rc != EXIT_OK)
		return rc;
	if (rest.count != 1)
		return cli_usage_error(&cmd_describe_usage,
		    "expected exactly one PATH");
	a->path = rest.argv[0];
	if (strcmp(a->lang, "en") != 0 && strcmp(a->lang, "zh") != 0)
		return cli_usage_error(&cmd_describe_usage,
		    "--lang must be en or zh, found '%s'", a->lang);
	return EXIT_OK;
}

static json_t *
strings_json(const ps_strings *list)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < list->count; i++)
		json_array_append_new(a, json_string(list->items[i]));
	return a;
}

static json_t *
prompts_json(const ps_manifest *m)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < m->prompt_count; i++)
		json_array_append_new(a, json_pack("{s:s, s:I, s:I}", "path",
		    m->prompts[i].path, "line", (json_int_t)m->prompts[i].line,
		    "column", (json_int_t)m->prompts[i].column));
	return a;
}

static json_t *
egress_json(const ps_manifest *m)
{
	json_t *a = json_array(), *e;
	size_t i;

	for (i = 0; a != NULL && i < m->egress_count; i++) {
		e = json_pack("{s:s}", "host", m->egress[i].host != NULL ?
		    m->egress[i].host : "");
		if (e != NULL && m->egress[i].port != 0)
			json_object_set_new(e, "port",
			    json_integer(m->egress[i].port));
		if (e != NULL && m->egress[i].protocol != NULL)
			json_object_set_new(e, "protocol",
			    json_string(m->egress[i].protocol));
		json_array_append_new(a, e);
	}
	return a;
}

static json_t *
ports_json(const ps_service *s)
{
	json_t *a = json_array();
	const ps_port *p;
	size_t i;

	for (i = 0; a != NULL && i < s->port_count; i++) {
		p = &s->ports[i];
		json_array_append_new(a, json_pack("{s:s?, s:s?, s:I, s:I, s:I, "
		    "s:s?}", "text", p->text, "host_ip", p->host_ip, "published",
		    (json_int_t)p->published, "published_last",
		    (json_int_t)p->published_last, "target", (json_int_t)p->target,
		    "protocol", p->protocol));
	}
	return a;
}

static json_t *
mounts_json(const ps_mount *list, size_t count)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < count; i++)
		json_array_append_new(a, json_pack("{s:s?, s:s?, s:b}", "source",
		    list[i].source, "target", list[i].target, "read_only",
		    list[i].read_only));
	return a;
}

/* One autograph compose service, every field of ps_service. */
static json_t *
service_json(const ps_service *s)
{
	return json_pack("{s:s?, s:s?, s:I, s:s?, s:o, s:o, s:o, s:b, s:s?, "
	    "s:s?, s:s?, s:b, s:b, s:b, s:o, s:o, s:o, s:s?}", "name", s->name,
	    "file", s->file, "line", (json_int_t)s->line, "image", s->image,
	    "ports", ports_json(s), "volumes", mounts_json(s->volumes,
	    s->volume_count), "host_mounts", mounts_json(s->host_mounts,
	    s->host_mount_count), "privileged", s->privileged, "network_mode",
	    s->network_mode, "pid", s->pid, "ipc", s->ipc, "host_network",
	    s->host_network, "host_pid", s->host_pid, "host_ipc", s->host_ipc,
	    "cap_add", strings_json(&s->cap_add), "devices",
	    strings_json(&s->devices), "security_opt",
	    strings_json(&s->security_opt), "user", s->user);
}

static json_t *
services_json(const ps_manifest *m)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < m->compose_service_count; i++)
		json_array_append_new(a, service_json(&m->compose_services[i]));
	return a;
}

/* One autograph task: its commands with their kind. */
static json_t *
task_json(const ps_task *t)
{
	static const char *const kinds[] = { "shell", "call", "check" };
	json_t *cmds = json_array();
	size_t i;

	for (i = 0; cmds != NULL && i < t->cmd_count; i++)
		json_array_append_new(cmds, json_pack("{s:s, s:s?, s:I}", "kind",
		    kinds[t->cmds[i].kind], "text", t->cmds[i].text, "line",
		    (json_int_t)t->cmds[i].line));
	return json_pack("{s:s?, s:I, s:o}", "name", t->name, "line",
	    (json_int_t)t->line, "commands", cmds);
}

static json_t *
tasks_json(const ps_manifest *m)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < m->taskfile_task_count; i++)
		json_array_append_new(a, task_json(&m->taskfile_tasks[i]));
	return a;
}

/* The fields of what the pack may do, per format. */
static json_t *
may_json(const ps_manifest *m)
{
	const ps_permissions *p = &m->permissions;

	switch (m->format) {
	case PS_FORMAT_AGENTPACK:
		return json_pack("{s:{s:b, s:b, s:s?, s:b, s:b}}",
		    "permissions", "network", p->network, "shell", p->shell,
		    "file_write", p->file_write, "read_knowledge",
		    p->read_knowledge, "read_filesystem", p->read_filesystem);
	case PS_FORMAT_SOYAPACK:
		return json_pack("{s:s?, s:o, s:{s:o, s:o}, s:s?}", "kind",
		    m->kind, "egress", egress_json(m), "fs", "read",
		    strings_json(&m->fs_read), "write", strings_json(&m->fs_write),
		    "determinism_tier", m->determinism_tier);
	case PS_FORMAT_HOLON:
		return json_pack("{s:o, s:{s:s?, s:o, s:o}, s:{s:s?, s:s?, s:s?}, "
		    "s:s?, s:s?, s:I}", "capabilities",
		    strings_json(&m->capabilities), "data", "retention",
		    m->retention, "training_use", m->training_use < 0 ?
		    json_null() : json_boolean(m->training_use), "egress",
		    egress_json(m), "pricing", "worst_case", m->price_worst_case,
		    "model", m->pricing_model, "charge_on", m->charge_on,
		    "endpoint", m->endpoint, "tool", m->tool, "timeout_s",
		    (json_int_t)m->timeout_s);
	default:
		return json_pack("{s:s?, s:o, s:o, s:o, s:o}", "engine_version",
		    m->engine_range, "services", strings_json(&m->services),
		    "tasks", strings_json(&m->tasks), "compose_services",
		    services_json(m), "taskfile_tasks", tasks_json(m));
	}
}

static int
print_json(const ps_manifest *m, const char *lang, const char *summary)
{
	json_t *root, *may;
	char *text;

	root = json_pack("{s:s, s:s?, s:s?, s:s?, s:s?, s:s?, s:s?, s:s, s:o, "
	    "s:{s:s?, s:s?}, s:o}",
	    "format", ps_format_name(m->format), "id", m->id, "file_id",
	    m->file_id, "version", m->version, "name", m->name, "description",
	    m->description, "license", m->license, "manifest", m->manifest_path,
	    "signed_by", strings_json(&m->signed_by), "source", "repository",
	    m->source_repository, "commit", m->source_commit, "prompts",
	    prompts_json(m));
	may = may_json(m);
	if (root == NULL || may == NULL || json_object_update(root, may) != 0 ||
	    json_object_set_new(root, "lang", json_string(lang)) != 0 ||
	    json_object_set_new(root, "summary", cli_json_lines(summary)) != 0) {
		json_decref(root);
		json_decref(may);
		return -1;
	}
	json_decref(may);
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
	    JSON_ENSURE_ASCII);
	json_decref(root);
	if (text == NULL)
		return -1;
	printf("%s\n", text);
	free(text);
	return 0;
}

/* Prints the diagnostics to stderr; returns EXIT_REFUSED when invalid. */
static int
report_problems(const char *path, const ps_manifest *m,
    const ps_diags *diags)
{
	char line[8192];
	size_t i;

	for (i = 0; i < diags->count; i++)
		cli_put_line(stderr, "", ps_diag_format(&diags->items[i], line,
		    sizeof(line)));
	if (m != NULL && ps_manifest_valid(diags, 0) != 0)
		return EXIT_OK;
	fputs("packsign: ", stderr);
	cli_put_safe(stderr, path);
	fprintf(stderr, ": not described: the pack is invalid (%zu errors); "
	    "run packsign validate ", ps_diags_count(diags, PS_SEVERITY_ERROR));
	cli_put_safe(stderr, path);
	fputs(" [manifest_invalid]\n", stderr);
	return EXIT_REFUSED;
}

static int
run_describe(struct describe_args *a)
{
	ps_validate_options options;
	ps_manifest *m = NULL;
	ps_diags diags;
	char *summary = NULL;
	ps_error err;
	int rc;

	ps_validate_options_init(&options);
	ps_diags_init(&diags);
	rc = cli_load_pack(a->path, &options, &m, &diags);
	if (rc == EXIT_OK)
		rc = report_problems(a->path, m, &diags);
	if (rc == EXIT_OK && ps_manifest_describe(m, strcmp(a->lang, "zh") ==
	    0 ? PS_LANG_ZH : PS_LANG_EN, &summary, &err) != 0)
		rc = cli_report(&err);
	if (rc == EXIT_OK && a->json != 0 && print_json(m, a->lang,
	    summary) != 0) {
		fprintf(stderr, "packsign: cannot build the JSON output (out of "
		    "memory, or a path that is not UTF-8) [json_output]\n");
		rc = EXIT_FAILED;
	} else if (rc == EXIT_OK && a->json == 0 && !a->quiet) {
		fputs(summary, stdout);
	}
	free(summary);
	ps_manifest_free(m);
	ps_diags_free(&diags);
	return rc;
}

int
cmd_describe(int argc, char **argv)
{
	struct describe_args a;
	int rc;

	rc = parse_describe(argc, argv, &a);
	if (rc != EXIT_OK)
		return rc == CLI_HELP ? EXIT_OK : rc;
	return run_describe(&a);
}
