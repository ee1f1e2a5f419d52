/*
 * The permissions group (docs/formats/diff.md, "Permissions"): each
 * permission of the format's list is compared by its kind, which alone
 * says when the new value widens what the pack may do.  Host and path
 * coverage are formats/cover.c's, the reading verify's ceilings use.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"
#include "formats/cover.h"
#include "formats/permission.h"
#include "util/duration.h"
#include "util/error.h"
#include "util/strings.h"

typedef struct perm_pair {
	ps_diff *d;
	const formats_permission *p;
	const void *old_value, *new_value;
} perm_pair;

static const char *
str_value(const void *v)
{
	return *(char *const *)v;
}

static int
int_value(const void *v)
{
	return *(const int *)v;
}

static int
same_text(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

/* A change of the whole value (subject NULL). */
static int
add_value(perm_pair *pp, const char *o, const char *n, int widening,
    ps_error *err)
{
	ps_diff_kind kind = o == NULL ? PS_DIFF_ADDED : n == NULL ?
	    PS_DIFF_REMOVED : PS_DIFF_CHANGED;

	return diff_add(pp->d, pp->p->field, NULL, kind, o, n, widening, err);
}

static const char *
bool_text(int v)
{
	return v > 0 ? "true" : v == 0 ? "false" : "undeclared";
}

static int
compare_bool(perm_pair *pp, ps_error *err)
{
	int o = int_value(pp->old_value) > 0, n = int_value(pp->new_value) > 0;

	if (o == n)
		return 0;
	return diff_add(pp->d, pp->p->field, NULL, PS_DIFF_CHANGED,
	    bool_text(o), bool_text(n), n, err);
}

static int
compare_tristate(perm_pair *pp, ps_error *err)
{
	int o = int_value(pp->old_value), n = int_value(pp->new_value);

	if (o == n)
		return 0;
	return diff_add(pp->d, pp->p->field, NULL, PS_DIFF_CHANGED,
	    bool_text(o), bool_text(n), n > 0, err);
}

/* The rank of `v` in the NULL-terminated `levels`; -1 for another. */
static int
level_rank(const char *const *levels, const char *v)
{
	int i;

	for (i = 0; levels[i] != NULL; i++) {
		if (strcmp(levels[i], v) == 0)
			return i;
	}
	return -1;
}

/* A missing value is the first level (the narrowest, or denial). */
static int
compare_level(perm_pair *pp, ps_error *err)
{
	const char *const *levels = pp->p->levels;
	const char *o = str_value(pp->old_value), *n = str_value(pp->new_value);
	const char *os = o != NULL ? o : levels[0], *ns = n != NULL ? n :
	    levels[0];
	int ro = level_rank(levels, os), rn = level_rank(levels, ns), widening;

	if (strcmp(os, ns) == 0)
		return 0;
	if (pp->p->kind == FORMATS_PERM_CHOICE)
		widening = rn != 0;   /* any other place than denial */
	else
		widening = rn < 0 || ro < 0 || rn > ro;
	return diff_add(pp->d, pp->p->field, NULL, PS_DIFF_CHANGED, os, ns,
	    widening, err);
}

/* "none" (or missing) keeps nothing; text that is no duration is
 * longer than any. */
static double
retention_seconds(const char *v)
{
	double s = 0;

	if (v == NULL || strcmp(v, "none") == 0)
		return 0;
	return util_duration_parse(v, &s) == 0 ? s : 1e300;
}

static int
compare_duration(perm_pair *pp, ps_error *err)
{
	const char *o = str_value(pp->old_value), *n = str_value(pp->new_value);
	const char *os = o != NULL ? o : "none", *ns = n != NULL ? n : "none";

	if (strcmp(os, ns) == 0)
		return 0;
	return diff_add(pp->d, pp->p->field, NULL, PS_DIFF_CHANGED, os, ns,
	    retention_seconds(ns) > retention_seconds(os), err);
}

/* 0 is undeclared: a limit that appears or disappears widens, as a
 * larger one does (no limit is the widest). */
static int
compare_number(perm_pair *pp, ps_error *err)
{
	long long o = *(const long long *)pp->old_value;
	long long n = *(const long long *)pp->new_value;
	char os[32] = "undeclared", ns[32] = "undeclared";

	if (o == n)
		return 0;
	if (o != 0)
		snprintf(os, sizeof(os), "%lld", o);
	if (n != 0)
		snprintf(ns, sizeof(ns), "%lld", n);
	return diff_add(pp->d, pp->p->field, NULL, PS_DIFF_CHANGED, os, ns,
	    o == 0 || n == 0 || n > o, err);
}

/* The worst case of one call: more, or another currency, widens; a
 * free version (0 or undeclared) is the narrowest. */
static int
compare_price(perm_pair *pp, const ps_manifest *om, const ps_manifest *nm,
    ps_error *err)
{
	int o_free = om->price_currency == NULL || om->price_worst_amount <= 0;
	int n_free = nm->price_currency == NULL || nm->price_worst_amount <= 0;
	int widening;

	/* The amounts, not their text (printed with 6 digits). */
	if (om->price_worst_amount == nm->price_worst_amount &&
	    same_text(om->price_currency, nm->price_currency))
		return 0;
	if (n_free)
		widening = 0;
	else if (o_free)
		widening = 1;
	else
		widening = strcmp(om->price_currency, nm->price_currency) != 0 ||
		    nm->price_worst_amount > om->price_worst_amount;
	return add_value(pp, om->price_worst_case, nm->price_worst_case,
	    widening, err);
}

/* Another value, or one where there was none, widens; removing one
 * does not. */
static int
compare_value(perm_pair *pp, ps_error *err)
{
	const char *o = str_value(pp->old_value), *n = str_value(pp->new_value);

	if (same_text(o, n))
		return 0;
	return add_value(pp, o, n, pp->p->kind == FORMATS_PERM_VALUE &&
	    n != NULL, err);
}

/* ------------------------------------------------------------ lists */

/*
 * Coverage is checked pair by pair, which a manifest of 70,000 paths a
 * side would turn into minutes.  Past this many pairs a list is compared
 * by exact value only, sorted (n log n), and every new value widens: the
 * conservative answer, never a narrower one.
 */
#define DIFF_PAIRS_MAX (1u << 20)

typedef struct keyed {
	char *key;                  /* exact value, hosts in lowercase */
	char *shown;                /* as the manifest writes it */
} keyed;

static int
by_key(const void *a, const void *b)
{
	return strcmp(((const keyed *)a)->key, ((const keyed *)b)->key);
}

static void
keys_free(keyed *k, size_t n)
{
	size_t i;

	for (i = 0; k != NULL && i < n; i++) {
		free(k[i].key);
		free(k[i].shown);
	}
	free(k);
}

/* Sorts `k` and drops repeated keys: past the pairs bound a value listed
 * twice is one value (the pairwise path compares each occurrence,
 * diff.md "A value listed twice"); the freed slots are left empty. */
static size_t
sort_unique(keyed *k, size_t n)
{
	size_t i, kept = 0;

	qsort(k, n, sizeof(*k), by_key);
	for (i = 0; i < n; i++) {
		if (kept > 0 && strcmp(k[kept - 1].key, k[i].key) == 0) {
			free(k[i].key);
			free(k[i].shown);
		} else {
			k[kept++] = k[i];
		}
	}
	for (i = kept; i < n; i++)
		k[i].key = k[i].shown = NULL;
	return kept;
}

/* One merge walk of two sorted key lists. */
static int
compare_sorted(perm_pair *pp, keyed *o, size_t on, keyed *n, size_t nn,
    ps_error *err)
{
	size_t i = 0, j = 0;
	int c, rc = 0;

	on = sort_unique(o, on);
	nn = sort_unique(n, nn);
	while (rc == 0 && (i < on || j < nn)) {
		c = i == on ? 1 : j == nn ? -1 : strcmp(o[i].key, n[j].key);
		if (c < 0)
			rc = diff_add(pp->d, pp->p->field, o[i].shown,
			    PS_DIFF_REMOVED, o[i].shown, NULL, 0, err);
		else if (c > 0)
			rc = diff_add(pp->d, pp->p->field, n[j].shown, PS_DIFF_ADDED,
			    NULL, n[j].shown, 1, err);
		i += c <= 0;
		j += c >= 0;
	}
	return rc;
}

/* A key and what is shown, both copied; `lower` folds the key's case. */
static int
key_set(keyed *k, const char *text, int lower, ps_error *err)
{
	char *c;

	if ((k->key = strdup(text)) == NULL || (k->shown = strdup(text)) == NULL)
		return util_fail_oom(err, NULL);
	for (c = k->key; lower && *c != '\0'; c++)
		*c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
	return 0;
}

static keyed *
strings_keys(const ps_strings *l, ps_error *err)
{
	keyed *k = calloc(l->count + 1, sizeof(*k));
	size_t i;

	if (k == NULL) {
		util_fail_oom(err, NULL);
		return NULL;
	}
	for (i = 0; i < l->count; i++) {
		if (key_set(&k[i], l->items[i], 0, err) != 0) {
			keys_free(k, i + 1);
			return NULL;
		}
	}
	return k;
}

static int
compare_strings_sorted(perm_pair *pp, const ps_strings *o,
    const ps_strings *n, ps_error *err)
{
	keyed *ok = strings_keys(o, err), *nk = ok != NULL ?
	    strings_keys(n, err) : NULL;
	int rc = nk == NULL ? -1 : compare_sorted(pp, ok, o->count, nk,
	    n->count, err);

	keys_free(ok, o->count);
	keys_free(nk, n->count);
	return rc;
}

static int
strings_cover(const ps_strings *list, const char *s, int paths)
{
	size_t i;

	if (!paths)
		return util_strings_has(list, s);
	for (i = 0; i < list->count; i++) {
		if (formats_path_covers(list->items[i], s))
			return 1;
	}
	return 0;
}

/* Items only the new list holds widen unless an old one covers them;
 * items only the old list holds are removed. */
static int
compare_strings(perm_pair *pp, ps_error *err)
{
	const ps_strings *o = pp->old_value, *n = pp->new_value;
	int paths = pp->p->kind == FORMATS_PERM_PATHS;
	size_t i;

	if ((uint64_t)o->count * n->count > DIFF_PAIRS_MAX)
		return compare_strings_sorted(pp, o, n, err);
	for (i = 0; i < n->count; i++) {
		if (!util_strings_has(o, n->items[i]) && diff_add(pp->d, pp->p->field,
		    n->items[i], PS_DIFF_ADDED, NULL, n->items[i],
		    !strings_cover(o, n->items[i], paths), err) != 0)
			return -1;
	}
	for (i = 0; i < o->count; i++) {
		if (!util_strings_has(n, o->items[i]) && diff_add(pp->d, pp->p->field,
		    o->items[i], PS_DIFF_REMOVED, o->items[i], NULL, 0, err) != 0)
			return -1;
	}
	return 0;
}

static int
egress_find(const ps_egress *list, size_t n, const ps_egress *e, int cover)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (cover ? formats_egress_covers(&list[i], e) :
		    formats_egress_covers(&list[i], e) &&
		    formats_egress_covers(e, &list[i]))
			return 1;
	}
	return 0;
}

/* One rule's change; `a` the rules it is in, `b` the other side's. */
static int
egress_change(perm_pair *pp, const ps_egress *e, ps_diff_kind kind,
    const ps_egress *b, size_t nb, ps_error *err)
{
	char text[512];
	int added = kind == PS_DIFF_ADDED;

	formats_egress_text(e, text, sizeof(text));
	return diff_add(pp->d, pp->p->field, text, kind, added ? NULL : text,
	    added ? text : NULL, added && !egress_find(b, nb, e, 1), err);
}

/* Each rule's text, in lowercase as coverage reads hosts. */
static keyed *
egress_keys(const ps_egress *e, size_t count, ps_error *err)
{
	keyed *k = calloc(count + 1, sizeof(*k));
	char text[512];
	size_t i;

	if (k == NULL) {
		util_fail_oom(err, NULL);
		return NULL;
	}
	for (i = 0; i < count; i++) {
		formats_egress_text(&e[i], text, sizeof(text));
		if (key_set(&k[i], text, 1, err) != 0) {
			keys_free(k, i + 1);
			return NULL;
		}
	}
	return k;
}

static int
compare_egress_sorted(perm_pair *pp, const ps_manifest *om,
    const ps_manifest *nm, ps_error *err)
{
	keyed *ok = egress_keys(om->egress, om->egress_count, err);
	keyed *nk = ok != NULL ? egress_keys(nm->egress, nm->egress_count,
	    err) : NULL;
	int rc = nk == NULL ? -1 : compare_sorted(pp, ok, om->egress_count, nk,
	    nm->egress_count, err);

	keys_free(ok, om->egress_count);
	keys_free(nk, nm->egress_count);
	return rc;
}

static int
compare_egress(perm_pair *pp, const ps_manifest *om, const ps_manifest *nm,
    ps_error *err)
{
	size_t i;

	if ((uint64_t)om->egress_count * nm->egress_count > DIFF_PAIRS_MAX)
		return compare_egress_sorted(pp, om, nm, err);
	for (i = 0; i < nm->egress_count; i++) {
		if (!egress_find(om->egress, om->egress_count, &nm->egress[i], 0) &&
		    egress_change(pp, &nm->egress[i], PS_DIFF_ADDED, om->egress,
		    om->egress_count, err) != 0)
			return -1;
	}
	for (i = 0; i < om->egress_count; i++) {
		if (!egress_find(nm->egress, nm->egress_count, &om->egress[i], 0) &&
		    egress_change(pp, &om->egress[i], PS_DIFF_REMOVED, NULL, 0,
		    err) != 0)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ the list */

static int
compare_one(perm_pair *pp, const ps_manifest *om, const ps_manifest *nm,
    ps_error *err)
{
	switch (pp->p->kind) {
	case FORMATS_PERM_BOOL:
		return compare_bool(pp, err);
	case FORMATS_PERM_TRISTATE:
		return compare_tristate(pp, err);
	case FORMATS_PERM_CHOICE:
	case FORMATS_PERM_LEVEL:
		return compare_level(pp, err);
	case FORMATS_PERM_DURATION:
		return compare_duration(pp, err);
	case FORMATS_PERM_NUMBER:
		return compare_number(pp, err);
	case FORMATS_PERM_PRICE:
		return compare_price(pp, om, nm, err);
	case FORMATS_PERM_VALUE:
	case FORMATS_PERM_SHOWN:
		return compare_value(pp, err);
	case FORMATS_PERM_EGRESS:
		return compare_egress(pp, om, nm, err);
	case FORMATS_PERM_PATHS:
	case FORMATS_PERM_SET:
		return compare_strings(pp, err);
	case FORMATS_PERM_SERVICES:
		return diff_compare_services(pp->d, om, nm, err);
	case FORMATS_PERM_TASKS:
		return diff_compare_tasks(pp->d, om, nm, err);
	default:
		return util_fail(err, "internal_error", pp->p->field,
		    "no comparison for this kind of permission");
	}
}

int
diff_compare_permissions(ps_diff *d, const ps_manifest *om,
    const ps_manifest *nm, ps_error *err)
{
	const formats_permission *list;
	perm_pair pp;
	size_t i, count;

	list = formats_permissions(om->format, &count);
	for (i = 0; i < count; i++) {
		pp.d = d;
		pp.p = &list[i];
		pp.old_value = formats_perm_value(&list[i], om);
		pp.new_value = formats_perm_value(&list[i], nm);
		if (compare_one(&pp, om, nm, err) != 0)
			return -1;
	}
	return 0;
}
