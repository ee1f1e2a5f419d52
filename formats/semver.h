/* SemVer 2.0.0 versions, precedence, and npm node-semver ranges. */
#ifndef PS_FORMATS_SEMVER_H
#define PS_FORMATS_SEMVER_H

#include <stddef.h>
#include <stdint.h>

typedef struct ps_semver {
	uint64_t major, minor, patch;
	char prerelease[128];   /* without the '-', empty when none */
	char build[128];        /* without the '+', empty when none */
} ps_semver;

/* Strict SemVer 2.0.0 (no 'v', no leading zeros); 0 / -1. */
int ps_semver_parse(const char *text, ps_semver *out);

/* Precedence per SemVer 2.0.0 section 11: <0, 0, >0; build ignored. */
int ps_semver_compare(const ps_semver *a, const ps_semver *b);

typedef struct ps_semver_range ps_semver_range;

/*
 * node-semver range syntax: comparators >=, <=, >, <, = and bare versions,
 * ^ and ~, x, X and * wildcards and partial versions, hyphen ranges, AND by
 * space, OR by ||.  On failure writes the reason to `why`.
 */
int ps_semver_range_parse(const char *text, ps_semver_range **out,
    char *why, size_t why_size);
/* 1 when `version` satisfies the range (node-semver's pre-release rule). */
int ps_semver_range_satisfies(const ps_semver_range *range,
    const ps_semver *version);
void ps_semver_range_free(ps_semver_range *range);

/*
 * The desugared range for messages and tests, node-semver style:
 * comparators joined by a space, alternatives by " || ", "*" for a
 * comparator set that every release satisfies (e.g. "^1.2" gives
 * ">=1.2.0 <2.0.0-0").  Truncated to `size`; returns `buf`.
 */
char *ps_semver_range_format(const ps_semver_range *range, char *buf,
    size_t size);

#endif
