/*
 * Which entry an install by name means (docs/formats/index.md,
 * "Resolving"): the newest version of the id that satisfies the version
 * or range asked for and is not yanked.  A yanked version is installed
 * only when asked for exactly and allowed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/semver.h"
#include "index/index.h"
#include "util/error.h"

/* The entries of `id`, which lie next to each other (index_sort). */
static int
id_span(const ps_index *ix, const char *id, size_t *first, size_t *count,
    ps_error *err)
{
	size_t i;

	*count = 0;
	for (i = 0; i < ix->entry_count; i++) {
		if (strcmp(ix->entries[i].id, id) != 0)
			continue;
		if (*count == 0)
			*first = i;
		else if (ix->entries[i].format != ix->entries[*first].format) {
			util_refuse(err, "index_ambiguous", id, "the index lists "
			    "it as a %s and as a %s pack",
			    ps_format_name(ix->entries[*first].format),
			    ps_format_name(ix->entries[i].format));
			return util_error_expect(err, "one format per id",
			    "two");
		}
		(*count)++;
	}
	if (*count > 0)
		return 0;
	util_refuse(err, "index_not_listed", id, "the index of '%s' (version "
	    "%llu) does not list it", ix->publisher,
	    (unsigned long long)ix->version);
	return util_error_expect(err, "an entry of this id", "none");
}

/* "1.0.0, 1.1.0 (yanked), 2.0.0-rc.1": what there is, for a refusal. */
static void
listed(const ps_index *ix, size_t first, size_t count, char *out,
    size_t size)
{
	size_t i, used = 0;
	int n;

	out[0] = '\0';
	for (i = first; i < first + count && used < size; i++) {
		n = snprintf(out + used, size - used, "%s%s%s", i > first ?
		    ", " : "", ix->entries[i].version, ix->entries[i].yanked !=
		    NULL ? " (yanked)" : "");
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

static int
exact(const ps_index *ix, size_t first, size_t count, const char *version,
    int allow_yanked, const ps_index_entry **out, ps_error *err)
{
	const ps_index_entry *e = NULL;
	char have[PS_ERROR_VALUE_MAX];
	size_t i;

	/* By precedence: 0.2.0 names 0.2.0+b1 (one entry per precedence). */
	for (i = first; i < first + count; i++) {
		if (ps_version_compare(ix->entries[i].version, version) == 0)
			e = &ix->entries[i];
	}
	if (e != NULL && (e->yanked == NULL || allow_yanked)) {
		*out = e;
		return 0;
	}
	if (e != NULL) {
		util_refuse(err, "version_yanked", e->id, "%s was yanked by its "
		    "publisher: %s (--allow-yanked installs it anyway)",
		    e->version, e->yanked);
		return util_error_expect(err, "a version that is not yanked",
		    e->version);
	}
	listed(ix, first, count, have, sizeof(have));
	util_refuse(err, "index_no_match", ix->entries[first].id, "the index "
	    "does not list version %s", version);
	return util_error_expect(err, version, have);
}

static int
newest(const ps_index *ix, size_t first, size_t count,
    const formats_semver_range *range, const char *spec,
    const ps_index_entry **out, ps_error *err)
{
	char have[PS_ERROR_VALUE_MAX];
	formats_semver v;
	size_t i;

	*out = NULL;
	/* Sorted by precedence: the last one that qualifies is the newest. */
	for (i = first; i < first + count; i++) {
		if (ix->entries[i].yanked != NULL ||
		    formats_semver_parse(ix->entries[i].version, &v) != 0)
			continue;
		if (formats_semver_range_satisfies(range, &v))
			*out = &ix->entries[i];
	}
	if (*out != NULL)
		return 0;
	listed(ix, first, count, have, sizeof(have));
	util_refuse(err, "index_no_match", ix->entries[first].id, "no version "
	    "the index lists satisfies '%s' and is not yanked", spec);
	return util_error_expect(err, spec, have);
}

int
ps_index_resolve(const ps_index *ix, const char *id, const char *spec,
    int allow_yanked, const ps_index_entry **out, ps_error *err)
{
	formats_semver_range *range = NULL;
	formats_semver version;
	char why[256];
	size_t first = 0, count;
	int rc;

	*out = NULL;
	if (spec == NULL || spec[0] == '\0')
		spec = "*";
	if (id_span(ix, id, &first, &count, err) != 0)
		return -1;
	if (formats_semver_parse(spec, &version) == 0)
		return exact(ix, first, count, spec, allow_yanked, out, err);
	if (formats_semver_range_parse(spec, &range, why, sizeof(why)) != 0) {
		util_refuse(err, "index_range_invalid", id, "'%s' is neither a "
		    "version nor a range: %s", spec, why);
		return util_error_expect(err, "1.2.3, ^1.2, >=1 <2, ...", spec);
	}
	rc = newest(ix, first, count, range, spec, out, err);
	formats_semver_range_free(range);
	return rc;
}

const ps_index_entry *
ps_index_newest(const ps_index *ix, ps_format format, const char *id)
{
	const ps_index_entry *best = NULL;
	formats_semver v;
	size_t i;

	for (i = 0; i < ix->entry_count; i++) {
		const ps_index_entry *e = &ix->entries[i];

		if (e->format != format || strcmp(e->id, id) != 0 ||
		    e->yanked != NULL ||
		    formats_semver_parse(e->version, &v) != 0 ||
		    v.prerelease[0] != '\0')
			continue;
		best = e;            /* sorted: later is newer */
	}
	return best;
}

int
ps_version_compare(const char *a, const char *b)
{
	formats_semver va, vb;
	int ok_a = formats_semver_parse(a, &va) == 0;
	int ok_b = formats_semver_parse(b, &vb) == 0;

	if (ok_a && ok_b)
		return formats_semver_compare(&va, &vb);
	if (ok_a != ok_b)
		return ok_a ? -1 : 1;
	return strcmp(a, b);
}
