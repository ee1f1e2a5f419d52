/* What an autograph pack's Taskfile runs (formats/taskfile.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/taskfile.h"

/* Reading one Taskfile. */
typedef struct taskfile_read {
	formats_check *ck;
	const char *path;        /* the Taskfile */
	ps_task *task;           /* the task being read */
	const char *name;        /* its name (the YAML key's text) */
	int full;                /* its command bound was reported */
} taskfile_read;

/* One list of a task mapping and how to read each of its entries. */
typedef struct taskfile_list {
	const char *key;
	void (*entry)(taskfile_read *, const util_yaml_node *);
} taskfile_list;

/* A value Task refuses: an error (a rule newer than signed packs). */
static void
invalid(taskfile_read *r, const util_yaml_node *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
invalid(taskfile_read *r, const util_yaml_node *at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	formats_check_vreport_later(r->ck, r->path, at,
	    "autograph_taskfile_invalid", fmt, ap);
	va_end(ap);
}

/* More than packsign reads: an error too, so that no cut goes unseen. */
static void
limit(taskfile_read *r, const util_yaml_node *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
limit(taskfile_read *r, const util_yaml_node *at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	formats_check_vreport_later(r->ck, r->path, at,
	    "autograph_taskfile_limit", fmt, ap);
	va_end(ap);
}

static int
is_null(const util_yaml_node *node)
{
	return node->kind == UTIL_YAML_SCALAR && node->type == UTIL_YAML_NULL;
}

/* The scalar at `key` as Task decodes it into a string: NULL when absent,
 * null or empty (Task's "not set"); -1 in *bad when it is no scalar. */
static const char *
scalar_at(const util_yaml_node *map, const char *key, int *bad)
{
	const util_yaml_node *v = util_yaml_get(map, key);

	*bad = 0;
	if (v == NULL || is_null(v))
		return NULL;
	if (v->kind != UTIL_YAML_SCALAR) {
		*bad = -1;
		return NULL;
	}
	return v->length > 0 ? v->value : NULL;
}

/* Appends a command of the task; the bounds are checked here. */
static void
push(taskfile_read *r, ps_task_cmd_kind kind, const util_yaml_node *at,
    const char *text)
{
	ps_task *t = r->task;
	ps_task_cmd *grown;
	size_t n = strlen(text);

	if (t->cmd_count == PS_TASKFILE_MAX_COMMANDS) {
		if (r->full == 0)
			limit(r, at, "task '%s' runs more than %d commands; "
			    "packsign reads at most %d", r->name,
			    PS_TASKFILE_MAX_COMMANDS, PS_TASKFILE_MAX_COMMANDS);
		r->full = 1;
		return;
	}
	if (n > PS_TASKFILE_MAX_COMMAND) {
		limit(r, at, "a command of task '%s' is %zu bytes; packsign "
		    "reads at most %d", r->name, n, PS_TASKFILE_MAX_COMMAND);
		return;
	}
	grown = realloc(t->cmds, (t->cmd_count + 1) * sizeof(*grown));
	if (grown == NULL) {
		formats_check_oom(r->ck);
		return;
	}
	t->cmds = grown;
	grown += t->cmd_count++;
	grown->kind = kind;
	grown->text = formats_check_strdup(r->ck, text);
	grown->line = at->line;
	grown->column = at->column;
}

/* A mapping entry of cmds: defer, then task, then cmd, as Task tries
 * them; none of them is Task's "invalid keys in command". */
static void
cmd_mapping(taskfile_read *r, const util_yaml_node *cmd)
{
	const util_yaml_node *defer = util_yaml_get(cmd, "defer");
	const char *text;
	int bad;

	if (defer != NULL && is_null(defer) == 0) {
		if (defer->kind == UTIL_YAML_SCALAR && defer->length > 0)
			push(r, PS_TASK_CMD_SHELL, defer, defer->value);
		else if (defer->kind == UTIL_YAML_SCALAR)
			return;
		else if ((text = scalar_at(defer, "task", &bad)) != NULL)
			push(r, PS_TASK_CMD_CALL, defer, text);
		else if (defer->kind != UTIL_YAML_MAPPING || bad != 0)
			invalid(r, defer, "task '%s': 'defer' must be a command or "
			    "a mapping with 'task'", r->name);
		return;
	}
	if ((text = scalar_at(cmd, "task", &bad)) != NULL || bad != 0) {
		if (text != NULL)
			push(r, PS_TASK_CMD_CALL, cmd, text);
		else
			invalid(r, cmd, "task '%s': 'task' must name a task",
			    r->name);
		return;
	}
	if ((text = scalar_at(cmd, "cmd", &bad)) != NULL)
		push(r, PS_TASK_CMD_SHELL, cmd, text);
	else if (bad != 0)
		invalid(r, cmd, "task '%s': 'cmd' must be a command, found %s",
		    r->name, util_yaml_describe(util_yaml_get(cmd, "cmd")));
	else
		invalid(r, cmd, "task '%s': a command mapping needs 'cmd', "
		    "'task' or 'defer' (Task refuses it: invalid keys in "
		    "command)", r->name);
}

/* An entry of cmds (or the value of cmd, or a task's shorthand). */
static void
read_cmd(taskfile_read *r, const util_yaml_node *cmd)
{
	if (is_null(cmd))
		return;
	if (cmd->kind == UTIL_YAML_SCALAR) {
		if (cmd->length > 0)
			push(r, PS_TASK_CMD_SHELL, cmd, cmd->value);
	} else if (cmd->kind == UTIL_YAML_MAPPING)
		cmd_mapping(r, cmd);
	else
		invalid(r, cmd, "task '%s': a command must be a string or a "
		    "mapping, found a list", r->name);
}

/* An entry of deps: a task's name, or a mapping with `task`. */
static void
read_dep(taskfile_read *r, const util_yaml_node *dep)
{
	const char *text;
	int bad = 0;

	if (is_null(dep))
		return;
	if (dep->kind == UTIL_YAML_SCALAR && dep->length > 0)
		push(r, PS_TASK_CMD_CALL, dep, dep->value);
	else if (dep->kind == UTIL_YAML_SCALAR)
		return;
	else if (dep->kind == UTIL_YAML_MAPPING &&
	    (text = scalar_at(dep, "task", &bad)) != NULL)
		push(r, PS_TASK_CMD_CALL, dep, text);
	else if (dep->kind != UTIL_YAML_MAPPING || bad != 0)
		invalid(r, dep, "task '%s': a dependency must be a task's name "
		    "or a mapping with 'task'", r->name);
}

/* An entry of preconditions: a shell command, or a mapping with `sh`. */
static void
read_precondition(taskfile_read *r, const util_yaml_node *pre)
{
	const char *text;
	int bad = 0;

	if (is_null(pre))
		return;
	if (pre->kind == UTIL_YAML_SCALAR && pre->length > 0)
		push(r, PS_TASK_CMD_CHECK, pre, pre->value);
	else if (pre->kind == UTIL_YAML_SCALAR)
		return;
	else if (pre->kind == UTIL_YAML_MAPPING &&
	    (text = scalar_at(pre, "sh", &bad)) != NULL)
		push(r, PS_TASK_CMD_CHECK, pre, text);
	else if (pre->kind != UTIL_YAML_MAPPING || bad != 0)
		invalid(r, pre, "task '%s': a precondition must be a command or "
		    "a mapping with 'sh'", r->name);
}

/* An entry of status: a shell command. */
static void
read_status(taskfile_read *r, const util_yaml_node *status)
{
	if (is_null(status))
		return;
	if (status->kind == UTIL_YAML_SCALAR && status->length > 0)
		push(r, PS_TASK_CMD_CHECK, status, status->value);
	else if (status->kind == UTIL_YAML_SCALAR)
		return;
	else
		invalid(r, status, "task '%s': a status entry must be a command, "
		    "found %s", r->name, util_yaml_describe(status));
}

/* Reads the list at `list->key` of a task mapping. */
static void
read_list(taskfile_read *r, const util_yaml_node *task,
    const taskfile_list *list)
{
	const util_yaml_node *v = util_yaml_get(task, list->key);
	size_t i;

	if (v == NULL || is_null(v))
		return;
	if (v->kind != UTIL_YAML_SEQUENCE) {
		invalid(r, v, "task '%s': '%s' must be a list, found %s", r->name,
		    list->key, util_yaml_describe(v));
		return;
	}
	for (i = 0; i < v->count && r->full == 0 && r->ck->failed == 0; i++)
		list->entry(r, v->items[i]);
}

/* A task mapping, in the order Task runs it: deps, preconditions and
 * status (which decide whether it runs), then cmds (or cmd). */
static void
read_task_mapping(taskfile_read *r, const util_yaml_node *task)
{
	static const taskfile_list before[] = { { "deps", read_dep },
	    { "preconditions", read_precondition }, { "status", read_status } };
	static const taskfile_list cmds = { "cmds", read_cmd };
	const util_yaml_node *cmd = util_yaml_get(task, "cmd");
	size_t i;

	for (i = 0; i < sizeof(before) / sizeof(before[0]); i++)
		read_list(r, task, &before[i]);
	if (cmd != NULL && util_yaml_get(task, "cmds") != NULL)
		invalid(r, util_yaml_get_key(task, "cmd"), "task '%s' has both "
		    "'cmd' and 'cmds' (Task refuses it)", r->name);
	if (cmd != NULL)
		read_cmd(r, cmd);
	read_list(r, task, &cmds);
}

/* Appends a task named by `key`; -1 after memory ran out. */
static int
add_task(taskfile_read *r, const util_yaml_node *key)
{
	ps_manifest *m = r->ck->m;
	ps_task *grown;

	grown = realloc(m->taskfile_tasks, (m->taskfile_task_count + 1) *
	    sizeof(*grown));
	if (grown == NULL) {
		formats_check_oom(r->ck);
		return -1;
	}
	m->taskfile_tasks = grown;
	grown += m->taskfile_task_count++;
	memset(grown, 0, sizeof(*grown));
	grown->name = formats_check_strdup(r->ck, key->value);
	grown->line = key->line;
	grown->column = key->column;
	formats_check_strings_add(r->ck, &m->tasks, key->value);
	r->task = grown;
	r->name = key->value;
	r->full = 0;
	return 0;
}

/* A task: a command (shorthand), a list of commands, or a mapping. */
static void
read_task(taskfile_read *r, const util_yaml_node *key,
    const util_yaml_node *task)
{
	size_t i;

	if (add_task(r, key) != 0)
		return;
	if (task->kind == UTIL_YAML_MAPPING) {
		read_task_mapping(r, task);
		return;
	}
	if (task->kind == UTIL_YAML_SCALAR) {
		read_cmd(r, task);
		return;
	}
	for (i = 0; i < task->count && r->full == 0 && r->ck->failed == 0; i++)
		read_cmd(r, task->items[i]);
}

/* Refusals and warnings about the file as a whole. */
static void
check_file(taskfile_read *r, const util_yaml_node *root)
{
	const util_yaml_node *merge = formats_check_merge_key(root),
	    *includes = util_yaml_get_key(root, "includes");

	if (merge != NULL)
		invalid(r, merge, "YAML merge keys ('<<') are refused, as "
		    "anchors are: Task would merge in values packsign does not "
		    "read");
	if (includes != NULL)
		formats_check_report_in(r->ck, PS_SEVERITY_WARNING, r->path,
		    includes->line, includes->column,
		    "autograph_taskfile_unresolved", "'includes' adds the tasks "
		    "of other Taskfiles, which are not read");
}

void
formats_taskfile_read(formats_check *ck, const char *path,
    const util_yaml_node *root)
{
	const util_yaml_node *tasks = util_yaml_get(root, "tasks");
	taskfile_read r;
	size_t i;

	memset(&r, 0, sizeof(r));
	r.ck = ck;
	r.path = path;
	check_file(&r, root);
	if (tasks == NULL || is_null(tasks))
		return;
	if (tasks->kind != UTIL_YAML_MAPPING) {
		invalid(&r, tasks, "'tasks' must be a mapping of task names, "
		    "found %s", util_yaml_describe(tasks));
		return;
	}
	if (tasks->count > PS_TASKFILE_MAX_TASKS)
		limit(&r, util_yaml_get_key(root, "tasks"), "the Taskfile has "
		    "%zu tasks; packsign reads at most %d", tasks->count,
		    PS_TASKFILE_MAX_TASKS);
	for (i = 0; i < tasks->count && i < PS_TASKFILE_MAX_TASKS &&
	    ck->failed == 0; i++)
		read_task(&r, tasks->keys[i], tasks->items[i]);
}

void
formats_taskfile_free(ps_manifest *m)
{
	size_t i, j;

	for (i = 0; i < m->taskfile_task_count; i++) {
		for (j = 0; j < m->taskfile_tasks[i].cmd_count; j++)
			free(m->taskfile_tasks[i].cmds[j].text);
		free(m->taskfile_tasks[i].cmds);
		free(m->taskfile_tasks[i].name);
	}
	free(m->taskfile_tasks);
	m->taskfile_tasks = NULL;
	m->taskfile_task_count = 0;
}
