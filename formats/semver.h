/* Internal header of formats/: SemVer 2.0.0 versions and npm ranges.
 *
 * SemVer 2.0.0 versions, precedence, and npm node-semver ranges.
 */
#ifndef FORMATS_SEMVER_H
#define FORMATS_SEMVER_H

#include <stddef.h>
#include <stdint.h>

typedef struct formats_semver {
	uint64_t major, minor, patch;
	char prerelease[128];   /* without the '-', empty when none */
	char build[128];        /* without the '+', empty when none */
} formats_semver;

/* Strict SemVer 2.0.0 (no 'v', no leading zeros); 0 / -1. */
int formats_semver_parse(const char *text, formats_semver *out);

/* Precedence per SemVer 2.0.0 section 11: <0, 0, >0; build ignored. */
int formats_semver_compare(const formats_semver *a, const formats_semver *b);

typedef struct formats_semver_range formats_semver_range;

/*
 * node-semver range syntax: comparators >=, <=, >, <, = and bare versions,
 * ^ and ~, x, X and * wildcards and partial versions, hyphen ranges, AND by
 * space, OR by ||.  On failure writes the reason to `why`.
 */
int formats_semver_range_parse(const char *text, formats_semver_range **out,
    char *why, size_t why_size);
/* 1 when `version` satisfies the range (node-semver's pre-release rule). */
int formats_semver_range_satisfies(const formats_semver_range *range,
    const formats_semver *version);
void formats_semver_range_free(formats_semver_range *range);

/*
 * The desugared range for messages and tests, node-semver style:
 * comparators joined by a space, alternatives by " || ", "*" for a
 * comparator set that every release satisfies (e.g. "^1.2" gives
 * ">=1.2.0 <2.0.0-0").  Truncated to `size`; returns `buf`.
 */
char *formats_semver_range_format(const formats_semver_range *range, char *buf,
    size_t size);

#endif
