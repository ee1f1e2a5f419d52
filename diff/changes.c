/*
 * The fields of a diff, in the order docs/formats/diff.md lists them: the
 * one table that decides each change's group, order and consent class.
 */
#include <stdlib.h>
#include <string.h>

#include "diff/changes.h"
#include "util/error.h"
#include "util/strings.h"

struct field {
	const char *name;
	ps_diff_group group;
	unsigned consent;
};

#define T PS_DIFF_TRUST, PS_CONSENT_TRUST
#define P PS_DIFF_PERMISSIONS, PS_CONSENT_PERMISSIONS

static const struct field fields[] = {
	{ "signer", T },
	{ "signer.key", T },
	{ "first_party", T },
	{ "source.repository", T },
	{ "source.commit", T },
	/* AgentPack */
	{ "permissions.network", P },
	{ "permissions.shell", P },
	{ "permissions.file_write", P },
	{ "permissions.read_knowledge", P },
	{ "permissions.read_filesystem", P },
	/* SoyaPack (egress also holon's data.egress, as "data.egress") */
	{ "egress", P },
	{ "fs.read", P },
	{ "fs.write", P },
	{ "determinism_tier", P },
	{ "tools", P },
	/* holon */
	{ "capabilities", P },
	{ "data.egress", P },
	{ "data.retention", P },
	{ "data.training_use", P },
	{ "runtime.endpoint", P },
	{ "runtime.timeout_s", P },
	{ "pricing.worst_case", P },
	/* autograph */
	{ "contract.engine_version", P },
	{ "service", P },
	{ "service.image", P },
	{ "service.files", P },
	{ "service.ports", P },
	{ "service.host_mounts", P },
	{ "service.volumes", P },
	{ "service.privileged", P },
	{ "service.cap_add", P },
	{ "service.network_mode", P },
	{ "service.pid", P },
	{ "service.ipc", P },
	{ "service.devices", P },
	{ "service.security_opt", P },
	{ "service.user", P },
	{ "task", P },
	{ "task.command", P },
	{ "prompt", PS_DIFF_PROMPTS, PS_CONSENT_PROMPTS },
	{ "code", PS_DIFF_CODE, PS_CONSENT_CODE },
	{ "code.executable", PS_DIFF_CODE, PS_CONSENT_CODE },
	{ "license", PS_DIFF_OTHER, 0 },
	{ "file", PS_DIFF_OTHER, 0 },
};

#undef T
#undef P

#define FIELD_COUNT (sizeof(fields) / sizeof(fields[0]))

static const struct field *
find_field(const char *name, size_t *order)
{
	size_t i;

	for (i = 0; i < FIELD_COUNT; i++) {
		if (strcmp(fields[i].name, name) == 0) {
			*order = i;
			return &fields[i];
		}
	}
	return NULL;
}

static int
copy_or_null(char **dst, const char *src, ps_error *err)
{
	*dst = NULL;
	return src == NULL ? 0 : util_strdup(dst, src, NULL, err);
}

int
diff_add(ps_diff *d, const char *field, const char *subject,
    ps_diff_kind kind, const char *old_value, const char *new_value,
    int widening, ps_error *err)
{
	const struct field *f;
	ps_diff_change *grown, *c;
	size_t order;

	if ((f = find_field(field, &order)) == NULL)
		return util_fail(err, "internal_error", field, "not a field of "
		    "diff.md's table");
	grown = realloc(d->changes, (d->change_count + 1) * sizeof(*grown));
	if (grown == NULL)
		return util_fail_oom(err, field);
	d->changes = grown;
	c = &d->changes[d->change_count];
	memset(c, 0, sizeof(*c));
	c->group = f->group;
	c->field = f->name;
	c->kind = kind;
	c->widening = widening != 0;
	c->consent = f->consent;
	d->change_count++;
	if (copy_or_null(&c->subject, subject, err) != 0 ||
	    copy_or_null(&c->old_value, old_value, err) != 0 ||
	    copy_or_null(&c->new_value, new_value, err) != 0)
		return -1;
	return 0;
}

ps_diff_change *
diff_last(ps_diff *d)
{
	return d->change_count > 0 ? &d->changes[d->change_count - 1] : NULL;
}

static int
by_order(const void *a, const void *b)
{
	const ps_diff_change *x = a, *y = b;
	size_t ox = 0, oy = 0;

	if (x->group != y->group)
		return (int)x->group - (int)y->group;
	find_field(x->field, &ox);
	find_field(y->field, &oy);
	if (ox != oy)
		return ox < oy ? -1 : 1;
	if (x->subject == NULL || y->subject == NULL)
		return (x->subject != NULL) - (y->subject != NULL);
	return strcmp(x->subject, y->subject);
}

void
diff_finish(ps_diff *d)
{
	size_t i;

	if (d->change_count > 1)
		qsort(d->changes, d->change_count, sizeof(*d->changes), by_order);
	d->widening_classes = 0;
	d->files_added = d->files_removed = d->files_changed = 0;
	for (i = 0; i < d->change_count; i++) {
		if (d->changes[i].widening)
			d->widening_classes |= d->changes[i].consent;
		if (strcmp(d->changes[i].field, "file") != 0)
			continue;
		if (d->changes[i].kind == PS_DIFF_ADDED)
			d->files_added++;
		else if (d->changes[i].kind == PS_DIFF_REMOVED)
			d->files_removed++;
		else
			d->files_changed++;
	}
}
