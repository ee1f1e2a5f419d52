/* Internal header of formats/: what a format lets a pack do, as data.
 *
 * Each format's descriptor lists its permissions: the field of the
 * manifest model holding each, and the kind of value it is, which says
 * when a change widens what the pack may do (docs/formats/diff.md) and how
 * a ceiling covers it.  The comparisons read the list; no switch on the
 * format anywhere else.
 */
#ifndef FORMATS_PERMISSION_H
#define FORMATS_PERMISSION_H

#include <stddef.h>

#include "packsign.h"

typedef enum formats_perm_kind {
	FORMATS_PERM_BOOL,      /* int: 1 allowed; missing is 0, denied */
	FORMATS_PERM_CHOICE,    /* char *: `levels[0]` denies; any other
	                         * value, or another one, widens */
	FORMATS_PERM_LEVEL,     /* char *: one of `levels`, narrowest first;
	                         * a later one widens */
	FORMATS_PERM_EGRESS,    /* the ps_egress list: a host:port/protocol
	                         * no old rule covers widens */
	FORMATS_PERM_PATHS,     /* ps_strings of absolute paths: one no old
	                         * path covers by component prefix widens */
	FORMATS_PERM_SET,       /* ps_strings: a new item widens */
	FORMATS_PERM_DURATION,  /* char *: "none" or an ISO 8601 duration;
	                         * longer widens */
	FORMATS_PERM_TRISTATE,  /* int: 1 yes, 0 no, -1 undeclared; yes
	                         * from either other widens */
	FORMATS_PERM_NUMBER,    /* long long: larger widens; 0 undeclared */
	FORMATS_PERM_PRICE,     /* char *: "AMOUNT CURRENCY"; more, or
	                         * another currency, widens */
	FORMATS_PERM_VALUE,     /* char *: another value, or one where
	                         * there was none, widens */
	FORMATS_PERM_SHOWN,     /* char *: a change is shown, never widens */
	FORMATS_PERM_SERVICES,  /* ps_service list (its count follows it): by
	                         * service, attribute by attribute */
	FORMATS_PERM_TASKS      /* ps_task list: by task, command by command */
} formats_perm_kind;

typedef struct formats_permission {
	const char *field;      /* docs/formats/diff.md's name */
	formats_perm_kind kind;
	size_t offset;          /* of the value in ps_manifest */
	const char *const *levels;  /* CHOICE, LEVEL: NULL-terminated */
} formats_permission;

#define FORMATS_PERM(field, kind, member) \
	{ (field), (kind), offsetof(ps_manifest, member), NULL }
#define FORMATS_PERM_LEVELS(field, kind, member, levels) \
	{ (field), (kind), offsetof(ps_manifest, member), (levels) }

/* The value a permission names in `m`. */
static inline const void *
formats_perm_value(const formats_permission *p, const ps_manifest *m)
{
	return (const char *)m + p->offset;
}

/* The permissions of `format`, *count of them; NULL for an unknown one. */
const formats_permission *formats_permissions(ps_format format,
    size_t *count);

#endif
