/*
 * autograph's compose services and Taskfile tasks in an upgrade's diff
 * (docs/formats/diff.md, "Services and tasks").  A service defined in
 * several compose files is compared as Compose runs it, merged: a later
 * file's value wins, lists add up, and privileged is granted when any
 * definition grants it; the order of the files defining it is compared
 * too, since an override decides what wins.  A new service or task is
 * shown with everything it is granted, never by its name alone.
 * Bounded by the model's limits (PS_COMPOSE_MAX_*, PS_TASKFILE_MAX_*):
 * at most 256 services of 128 entries a list.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"
#include "util/error.h"
#include "util/strings.h"

/* The list attributes of a service, as strings. */
enum list_attr { PORTS, HOST_MOUNTS, VOLUMES, CAP_ADD, DEVICES,
    SECURITY_OPT, LIST_ATTRS };

static const struct {
	const char *field;
	int widens;
} list_attrs[LIST_ATTRS] = {
	[PORTS] = { "service.ports", 1 },
	[HOST_MOUNTS] = { "service.host_mounts", 1 },
	[VOLUMES] = { "service.volumes", 0 },   /* container-managed */
	[CAP_ADD] = { "service.cap_add", 1 },
	[DEVICES] = { "service.devices", 1 },
	[SECURITY_OPT] = { "service.security_opt", 1 },
};

/* A service as Compose merges its definitions. */
typedef struct merged {
	const char *name;
	ps_strings files;            /* defining it, in merge order */
	const char *image, *network_mode, *pid, *ipc, *user;
	int privileged;
	ps_strings lists[LIST_ATTRS];
} merged;

typedef struct merged_set {
	merged *items;
	size_t count;
} merged_set;

static void
set_free(merged_set *s)
{
	size_t i, a;

	for (i = 0; i < s->count; i++) {
		util_strings_clear(&s->items[i].files);
		for (a = 0; a < LIST_ATTRS; a++)
			util_strings_clear(&s->items[i].lists[a]);
	}
	free(s->items);
	memset(s, 0, sizeof(*s));
}

static int
add_unique(ps_strings *l, const char *text, ps_error *err)
{
	if (util_strings_has(l, text))
		return 0;
	return util_strings_add(l, text) == 0 ? 0 : util_fail_oom(err, text);
}

/* "source:target" and ":ro": a mount's text. */
static int
add_mounts(ps_strings *l, const ps_mount *m, size_t n, ps_error *err)
{
	char *text;
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < n; i++) {
		if (asprintf(&text, "%s:%s%s", m[i].source != NULL ? m[i].source :
		    "", m[i].target != NULL ? m[i].target : "", m[i].read_only ?
		    ":ro" : "") < 0)
			return util_fail_oom(err, NULL);
		rc = add_unique(l, text, err);
		free(text);
	}
	return rc;
}

static int
add_strings(ps_strings *l, const ps_strings *from, ps_error *err)
{
	size_t i;

	for (i = 0; i < from->count; i++) {
		if (add_unique(l, from->items[i], err) != 0)
			return -1;
	}
	return 0;
}

static int
fold_lists(merged *m, const ps_service *s, ps_error *err)
{
	size_t i;

	for (i = 0; i < s->port_count; i++) {
		if (add_unique(&m->lists[PORTS], s->ports[i].text != NULL ?
		    s->ports[i].text : "?", err) != 0)
			return -1;
	}
	if (add_mounts(&m->lists[HOST_MOUNTS], s->host_mounts,
	    s->host_mount_count, err) != 0 ||
	    add_mounts(&m->lists[VOLUMES], s->volumes, s->volume_count,
	    err) != 0)
		return -1;
	return add_strings(&m->lists[CAP_ADD], &s->cap_add, err) != 0 ||
	    add_strings(&m->lists[DEVICES], &s->devices, err) != 0 ||
	    add_strings(&m->lists[SECURITY_OPT], &s->security_opt, err) != 0 ?
	    -1 : 0;
}

/* A later definition's value wins where it sets one. */
static void
fold_values(merged *m, const ps_service *s)
{
	if (s->image != NULL)
		m->image = s->image;
	if (s->network_mode != NULL)
		m->network_mode = s->network_mode;
	if (s->pid != NULL)
		m->pid = s->pid;
	if (s->ipc != NULL)
		m->ipc = s->ipc;
	if (s->user != NULL)
		m->user = s->user;
	m->privileged |= s->privileged;
}

static merged *
find_merged(const merged_set *set, const char *name)
{
	size_t i;

	for (i = 0; i < set->count; i++) {
		if (strcmp(set->items[i].name, name) == 0)
			return &set->items[i];
	}
	return NULL;
}

static int
merge_services(const ps_manifest *m, merged_set *set, ps_error *err)
{
	const ps_service *s;
	merged *t;
	size_t i;

	memset(set, 0, sizeof(*set));
	if (m->compose_service_count > 0 && (set->items = calloc(
	    m->compose_service_count, sizeof(*set->items))) == NULL)
		return util_fail_oom(err, m->id);
	for (i = 0; i < m->compose_service_count; i++) {
		s = &m->compose_services[i];
		if ((t = find_merged(set, s->name)) == NULL) {
			t = &set->items[set->count++];
			t->name = s->name;
		}
		fold_values(t, s);
		if (util_strings_add(&t->files, s->file != NULL ? s->file :
		    "?") != 0)
			return util_fail_oom(err, s->name);
		if (fold_lists(t, s, err) != 0)
			return -1;
	}
	return 0;
}

/* -------------------------------------------------------- comparing them */

/* New items widen when `widens`; gone ones never do.  The subject is
 * "SERVICE ITEM". */
static int
compare_items(ps_diff *d, const char *field, const char *owner,
    const ps_strings *o, const ps_strings *n, int widens, ps_error *err)
{
	const ps_strings *lists[2] = { n, o };
	char *subject;
	size_t side, i;
	int rc = 0;

	for (side = 0; rc == 0 && side < 2; side++) {
		for (i = 0; rc == 0 && i < lists[side]->count; i++) {
			const char *item = lists[side]->items[i];

			if (util_strings_has(lists[1 - side], item))
				continue;
			if (asprintf(&subject, "%s %s", owner, item) < 0)
				return util_fail_oom(err, owner);
			rc = diff_add(d, field, subject, side == 0 ? PS_DIFF_ADDED :
			    PS_DIFF_REMOVED, side == 0 ? NULL : item, side == 0 ?
			    item : NULL, side == 0 && widens, err);
			free(subject);
		}
	}
	return rc;
}

static int
same_text(const char *a, const char *b)
{
	return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

/* Any new value widens (another image runs, another namespace is
 * joined, another user runs it); a removed network_mode, pid or ipc goes
 * back to Compose's default and does not. */
static int
compare_value(ps_diff *d, const char *field, const char *service,
    const char *o, const char *n, int removal_widens, ps_error *err)
{
	if (same_text(o, n))
		return 0;
	return diff_add(d, field, service, o == NULL ? PS_DIFF_ADDED :
	    n == NULL ? PS_DIFF_REMOVED : PS_DIFF_CHANGED, o, n,
	    n != NULL || removal_widens, err);
}

static int
compare_files(ps_diff *d, const merged *o, const merged *n, ps_error *err)
{
	char *ot, *nt;
	int rc;

	if ((o->files.count <= 1 && n->files.count <= 1) ||
	    o->files.count == 0 || n->files.count == 0)
		return 0;           /* one definition, or one side: nothing
	                             * overrides anything */
	ot = util_strings_join(&o->files, ", ");
	nt = util_strings_join(&n->files, ", ");
	rc = ot == NULL || nt == NULL ? util_fail_oom(err, n->name) :
	    strcmp(ot, nt) == 0 ? 0 : diff_add(d, "service.files", n->name,
	    PS_DIFF_CHANGED, ot, nt, 1, err);
	free(ot);
	free(nt);
	return rc;
}

static int
compare_service(ps_diff *d, const merged *o, const merged *n, ps_error *err)
{
	size_t a;

	if (compare_value(d, "service.image", n->name, o->image, n->image, 1,
	    err) != 0 || compare_files(d, o, n, err) != 0)
		return -1;
	for (a = 0; a < LIST_ATTRS; a++) {
		if (compare_items(d, list_attrs[a].field, n->name, &o->lists[a],
		    &n->lists[a], list_attrs[a].widens, err) != 0)
			return -1;
	}
	if (o->privileged != n->privileged &&
	    diff_add(d, "service.privileged", n->name, PS_DIFF_CHANGED,
	    o->privileged ? "true" : "false", n->privileged ? "true" : "false",
	    n->privileged, err) != 0)
		return -1;
	if (compare_value(d, "service.network_mode", n->name, o->network_mode,
	    n->network_mode, 0, err) != 0 ||
	    compare_value(d, "service.pid", n->name, o->pid, n->pid, 0,
	    err) != 0 ||
	    compare_value(d, "service.ipc", n->name, o->ipc, n->ipc, 0,
	    err) != 0)
		return -1;
	/* No user: the image's, often root. */
	return compare_value(d, "service.user", n->name, o->user, n->user, 1,
	    err);
}

/* A service only one side has.  A new one is compared with an empty
 * one: every attribute it is granted is a change of its own.  A removed
 * one is one change, never widening. */
static int
one_sided(ps_diff *d, const merged *s, int added, ps_error *err)
{
	merged none;

	memset(&none, 0, sizeof(none));
	none.name = s->name;
	if (diff_add(d, "service", s->name, added ? PS_DIFF_ADDED :
	    PS_DIFF_REMOVED, added ? NULL : (s->image != NULL ? s->image :
	    "(built in the pack)"), added ? (s->image != NULL ? s->image :
	    "(built in the pack)") : NULL, added, err) != 0)
		return -1;
	return added ? compare_service(d, &none, s, err) : 0;
}

static int
compare_sets(ps_diff *d, const merged_set *o, const merged_set *n,
    ps_error *err)
{
	const merged *was;
	size_t i;

	for (i = 0; i < n->count; i++) {
		was = find_merged(o, n->items[i].name);
		if (was == NULL ? one_sided(d, &n->items[i], 1, err) :
		    compare_service(d, was, &n->items[i], err))
			return -1;
	}
	for (i = 0; i < o->count; i++) {
		if (find_merged(n, o->items[i].name) == NULL &&
		    one_sided(d, &o->items[i], 0, err) != 0)
			return -1;
	}
	return 0;
}

int
diff_compare_services(ps_diff *d, const ps_manifest *om,
    const ps_manifest *nm, ps_error *err)
{
	merged_set o = { NULL, 0 }, n = { NULL, 0 };
	int rc;

	rc = merge_services(om, &o, err);
	if (rc == 0)
		rc = merge_services(nm, &n, err);
	if (rc == 0)
		rc = compare_sets(d, &o, &n, err);
	set_free(&o);
	set_free(&n);
	return rc;
}

/* ----------------------------------------------------------------- tasks */

static const char *const cmd_kinds[] = { "cmd", "task", "check" };

/* "cmd: TEXT", "task: NAME", "check: TEXT". */
static int
task_items(const ps_task *t, ps_strings *out, ps_error *err)
{
	char *text;
	size_t i;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; t != NULL && rc == 0 && i < t->cmd_count; i++) {
		if (asprintf(&text, "%s: %s", cmd_kinds[t->cmds[i].kind <=
		    PS_TASK_CMD_CHECK ? t->cmds[i].kind : 0],
		    t->cmds[i].text) < 0)
			return util_fail_oom(err, t->name);
		rc = add_unique(out, text, err);
		free(text);
	}
	return rc;
}

/* The task `name` of each side; `o` or `n` is NULL for a task only one
 * side has. */
static int
compare_task(ps_diff *d, const char *name, const ps_task *o,
    const ps_task *n, ps_error *err)
{
	ps_strings ol, nl;
	int rc;

	rc = task_items(o, &ol, err);
	if (rc == 0)
		rc = task_items(n, &nl, err);
	if (rc == 0 && (o == NULL || n == NULL))
		rc = diff_add(d, "task", name, o == NULL ? PS_DIFF_ADDED :
		    PS_DIFF_REMOVED, o == NULL ? NULL : name, o == NULL ? name :
		    NULL, o == NULL, err);
	if (rc == 0)
		rc = compare_items(d, "task.command", name, &ol, &nl, 1, err);
	util_strings_clear(&ol);
	util_strings_clear(&nl);
	return rc;
}

static const ps_task *
find_task(const ps_manifest *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->taskfile_task_count; i++) {
		if (strcmp(m->taskfile_tasks[i].name, name) == 0)
			return &m->taskfile_tasks[i];
	}
	return NULL;
}

int
diff_compare_tasks(ps_diff *d, const ps_manifest *om, const ps_manifest *nm,
    ps_error *err)
{
	size_t i;

	for (i = 0; i < nm->taskfile_task_count; i++) {
		if (compare_task(d, nm->taskfile_tasks[i].name, find_task(om,
		    nm->taskfile_tasks[i].name), &nm->taskfile_tasks[i], err) != 0)
			return -1;
	}
	for (i = 0; i < om->taskfile_task_count; i++) {
		if (find_task(nm, om->taskfile_tasks[i].name) == NULL &&
		    compare_task(d, om->taskfile_tasks[i].name,
		    &om->taskfile_tasks[i], NULL, err) != 0)
			return -1;
	}
	return 0;
}
