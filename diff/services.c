/*
 * autograph's compose services and Taskfile tasks in an upgrade's diff
 * (docs/formats/diff.md, "Services and tasks"): services by name, each
 * attribute compared as what it lets the container reach on the host;
 * tasks by name, each command compared as text.  Bounded by the model's
 * own limits (PS_COMPOSE_MAX_*, PS_TASKFILE_MAX_*): quadratic in at most
 * 256 services of 128 entries each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"
#include "util/error.h"

#define ITEM_MAX (PS_COMPOSE_MAX_VALUE + 64)

/* One list attribute of a service, as strings. */
typedef struct item_list {
	char **items;
	size_t count;
} item_list;

static void
items_free(item_list *l)
{
	size_t i;

	for (i = 0; i < l->count; i++)
		free(l->items[i]);
	free(l->items);
	memset(l, 0, sizeof(*l));
}

static int
items_add(item_list *l, const char *text, ps_error *err)
{
	char **grown = realloc(l->items, (l->count + 1) * sizeof(*grown));

	if (grown == NULL || (grown[l->count] = strdup(text)) == NULL) {
		if (grown != NULL)
			l->items = grown;
		return util_fail_oom(err, text);
	}
	l->items = grown;
	l->count++;
	return 0;
}

static int
items_has(const item_list *l, const char *text)
{
	size_t i;

	for (i = 0; i < l->count; i++) {
		if (strcmp(l->items[i], text) == 0)
			return 1;
	}
	return 0;
}

/* "source:target" and ":ro": a mount's text. */
static int
mounts_items(const ps_mount *m, size_t n, item_list *out, ps_error *err)
{
	char text[ITEM_MAX];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(text, sizeof(text), "%s:%s%s", m[i].source != NULL ?
		    m[i].source : "", m[i].target != NULL ? m[i].target : "",
		    m[i].read_only ? ":ro" : "");
		if (items_add(out, text, err) != 0)
			return -1;
	}
	return 0;
}

static int
ports_items(const ps_port *p, size_t n, item_list *out, ps_error *err)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (items_add(out, p[i].text != NULL ? p[i].text : "?", err) != 0)
			return -1;
	}
	return 0;
}

static int
strings_items(const ps_strings *s, item_list *out, ps_error *err)
{
	size_t i;

	for (i = 0; i < s->count; i++) {
		if (items_add(out, s->items[i], err) != 0)
			return -1;
	}
	return 0;
}

/* New items widen when `widens`; gone ones never do.  The subject is
 * "SERVICE ITEM". */
static int
compare_items(ps_diff *d, const char *field, const char *service,
    const item_list *o, const item_list *n, int widens, ps_error *err)
{
	char subject[ITEM_MAX + 300];
	size_t i;

	for (i = 0; i < n->count; i++) {
		if (items_has(o, n->items[i]))
			continue;
		snprintf(subject, sizeof(subject), "%s %s", service, n->items[i]);
		if (diff_add(d, field, subject, PS_DIFF_ADDED, NULL, n->items[i],
		    widens, err) != 0)
			return -1;
	}
	for (i = 0; i < o->count; i++) {
		if (items_has(n, o->items[i]))
			continue;
		snprintf(subject, sizeof(subject), "%s %s", service, o->items[i]);
		if (diff_add(d, field, subject, PS_DIFF_REMOVED, o->items[i], NULL,
		    0, err) != 0)
			return -1;
	}
	return 0;
}

/* The lists of one attribute of both services, compared. */
enum list_attr { PORTS, HOST_MOUNTS, VOLUMES, CAP_ADD, DEVICES,
    SECURITY_OPT };

static const struct {
	const char *field;
	int widens;
} list_attrs[] = {
	[PORTS] = { "service.ports", 1 },
	[HOST_MOUNTS] = { "service.host_mounts", 1 },
	[VOLUMES] = { "service.volumes", 0 },   /* container-managed */
	[CAP_ADD] = { "service.cap_add", 1 },
	[DEVICES] = { "service.devices", 1 },
	[SECURITY_OPT] = { "service.security_opt", 1 },
};

static int
attr_items(const ps_service *s, enum list_attr a, item_list *out,
    ps_error *err)
{
	switch (a) {
	case PORTS:
		return ports_items(s->ports, s->port_count, out, err);
	case HOST_MOUNTS:
		return mounts_items(s->host_mounts, s->host_mount_count, out, err);
	case VOLUMES:
		return mounts_items(s->volumes, s->volume_count, out, err);
	case CAP_ADD:
		return strings_items(&s->cap_add, out, err);
	case DEVICES:
		return strings_items(&s->devices, out, err);
	default:
		return strings_items(&s->security_opt, out, err);
	}
}

static int
compare_lists(ps_diff *d, const ps_service *o, const ps_service *n,
    ps_error *err)
{
	item_list ol, nl;
	size_t a;
	int rc = 0;

	for (a = 0; rc == 0 && a < sizeof(list_attrs) / sizeof(list_attrs[0]);
	    a++) {
		memset(&ol, 0, sizeof(ol));
		memset(&nl, 0, sizeof(nl));
		rc = attr_items(o, (enum list_attr)a, &ol, err);
		if (rc == 0)
			rc = attr_items(n, (enum list_attr)a, &nl, err);
		if (rc == 0)
			rc = compare_items(d, list_attrs[a].field, n->name, &ol, &nl,
			    list_attrs[a].widens, err);
		items_free(&ol);
		items_free(&nl);
	}
	return rc;
}

static int
same_text(const char *a, const char *b)
{
	return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

/* A value of a service: any change widens (another image runs, another
 * namespace is joined, another user runs it), but a removal of
 * network_mode, pid or ipc goes back to Compose's own default. */
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
compare_service(ps_diff *d, const ps_service *o, const ps_service *n,
    ps_error *err)
{
	if (compare_value(d, "service.image", n->name, o->image, n->image, 1,
	    err) != 0 ||
	    compare_lists(d, o, n, err) != 0)
		return -1;
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

static const ps_service *
find_service(const ps_manifest *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->compose_service_count; i++) {
		if (strcmp(m->compose_services[i].name, name) == 0)
			return &m->compose_services[i];
	}
	return NULL;
}

int
diff_compare_services(ps_diff *d, const ps_manifest *om,
    const ps_manifest *nm, ps_error *err)
{
	const ps_service *n, *o;
	size_t i;

	for (i = 0; i < nm->compose_service_count; i++) {
		n = &nm->compose_services[i];
		o = find_service(om, n->name);
		if (o == NULL ? diff_add(d, "service", n->name, PS_DIFF_ADDED,
		    NULL, n->image != NULL ? n->image : "(built in the pack)", 1,
		    err) : compare_service(d, o, n, err))
			return -1;
	}
	for (i = 0; i < om->compose_service_count; i++) {
		o = &om->compose_services[i];
		if (find_service(nm, o->name) == NULL &&
		    diff_add(d, "service", o->name, PS_DIFF_REMOVED, o->image !=
		    NULL ? o->image : "(built in the pack)", NULL, 0, err) != 0)
			return -1;
	}
	return 0;
}

/* ----------------------------------------------------------------- tasks */

static const char *const cmd_kinds[] = { "cmd", "task", "check" };

static int
task_items(const ps_task *t, item_list *out, ps_error *err)
{
	char text[PS_TASKFILE_MAX_COMMAND + 16];
	size_t i;

	for (i = 0; i < t->cmd_count; i++) {
		snprintf(text, sizeof(text), "%s: %s",
		    cmd_kinds[t->cmds[i].kind <= PS_TASK_CMD_CHECK ?
		    t->cmds[i].kind : 0], t->cmds[i].text);
		if (items_add(out, text, err) != 0)
			return -1;
	}
	return 0;
}

static int
compare_task(ps_diff *d, const ps_task *o, const ps_task *n, ps_error *err)
{
	item_list ol, nl;
	int rc;

	memset(&ol, 0, sizeof(ol));
	memset(&nl, 0, sizeof(nl));
	rc = task_items(o, &ol, err);
	if (rc == 0)
		rc = task_items(n, &nl, err);
	if (rc == 0)
		rc = compare_items(d, "task.command", n->name, &ol, &nl, 1, err);
	items_free(&ol);
	items_free(&nl);
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
	const ps_task *n, *o;
	size_t i;

	for (i = 0; i < nm->taskfile_task_count; i++) {
		n = &nm->taskfile_tasks[i];
		o = find_task(om, n->name);
		if (o == NULL ? diff_add(d, "task", n->name, PS_DIFF_ADDED, NULL,
		    n->name, 1, err) : compare_task(d, o, n, err))
			return -1;
	}
	for (i = 0; i < om->taskfile_task_count; i++) {
		o = &om->taskfile_tasks[i];
		if (find_task(nm, o->name) == NULL &&
		    diff_add(d, "task", o->name, PS_DIFF_REMOVED, o->name, NULL, 0,
		    err) != 0)
			return -1;
	}
	return 0;
}
