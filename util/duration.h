/* Internal header of util/: ISO 8601 durations and plain decimals.
 *
 * One reading of holon's data.retention (formats/holon.c) and of the trust
 * policy's retention ceiling (keys/, verify/), so that a ceiling and a
 * manifest can never disagree on what a duration is.
 */
#ifndef UTIL_DURATION_H
#define UTIL_DURATION_H

#include <stddef.h>

/* Seconds per designator when durations are compared (trust-policy.md,
 * "Ordered values"): calendar units have no fixed length, so a year
 * counts 365 days and a month 30. */
#define UTIL_DURATION_DAY 86400.0
#define UTIL_DURATION_MONTH (30 * UTIL_DURATION_DAY)
#define UTIL_DURATION_YEAR (365 * UTIL_DURATION_DAY)

/*
 * An ISO 8601 duration as holon writes retention: "P", then nY nM nD in
 * that order (or nW alone), optionally "T" then nH nM nS in order, at
 * least one part; a number is digits with an optional '.' or ',' fraction.
 * Returns 0 with the length in seconds in *seconds (may be NULL), or -1.
 */
int util_duration_parse(const char *text, double *seconds);

/*
 * A plain decimal: digits, optionally '.' and digits ("0.05", "12"), no
 * sign, exponent or blank, read in the "C" locale whatever the host
 * program's.  Reads the `len` bytes at `text`; 0 with *out set, or -1.
 */
int util_decimal_parse(const char *text, size_t len, double *out);

#endif
