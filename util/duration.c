/* ISO 8601 durations and plain decimals (util/duration.h). */
#include <ctype.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "util/duration.h"

/*
 * Digits, then optionally a fraction: '.' and digits for a decimal; in a
 * duration '.' or ',' and any digits, none included ("P1.D"), as holon's
 * validator has always read them.  Returns the first byte after the
 * number, or NULL when there is none.
 */
static const char *
scan_number(const char *p, const char *end, int duration)
{
	const char *q = p;

	while (q < end && isdigit((unsigned char)*q) != 0)
		q++;
	if (q == p)
		return NULL;
	if (q < end && (*q == '.' || (duration != 0 && *q == ','))) {
		q++;
		if (duration == 0 &&
		    (q == end || isdigit((unsigned char)*q) == 0))
			return NULL;
		while (q < end && isdigit((unsigned char)*q) != 0)
			q++;
	}
	return q;
}

/* strtod in the "C" locale over a copy with ',' read as '.'. */
static int
strtod_c(const char *text, size_t len, double *out)
{
	char *buf = malloc(len + 1), *end = NULL;
	locale_t c;
	size_t i;
	int rc = -1;

	if (buf == NULL)
		return -1;
	for (i = 0; i < len; i++)
		buf[i] = text[i] == ',' ? '.' : text[i];
	buf[len] = '\0';
	c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (c != (locale_t)0) {
		*out = strtod_l(buf, &end, c);
		rc = len > 0 && end == buf + len ? 0 : -1;
		freelocale(c);
	}
	free(buf);
	return rc;
}

int
util_decimal_parse(const char *text, size_t len, double *out)
{
	if (scan_number(text, text + len, 0) != text + len)
		return -1;
	return strtod_c(text, len, out);
}

static double
unit_seconds(char designator, int in_time)
{
	if (in_time != 0)
		return designator == 'H' ? 3600.0 :
		    designator == 'M' ? 60.0 : 1.0;
	switch (designator) {
	case 'Y':
		return UTIL_DURATION_YEAR;
	case 'M':
		return UTIL_DURATION_MONTH;
	case 'W':
		return 7 * UTIL_DURATION_DAY;
	default:
		return UTIL_DURATION_DAY;
	}
}

/* Numbers each followed by one designator of `set`, in the set's order;
 * adds their seconds to *seconds unless it is NULL (validating needs no
 * arithmetic); returns the rest, or NULL. */
static const char *
duration_parts(const char *p, const char *set, int in_time, int *count,
    double *seconds)
{
	const char *order = set, *d;
	double n;

	while (isdigit((unsigned char)*p) != 0) {
		d = scan_number(p, p + strlen(p), 1);
		if (d == NULL || *d == '\0' ||
		    (order = strchr(order, *d)) == NULL)
			return NULL;
		if (seconds != NULL) {
			if (strtod_c(p, (size_t)(d - p), &n) != 0)
				return NULL;
			*seconds += n * unit_seconds(*d, in_time);
		}
		order++;
		(*count)++;
		p = d + 1;
	}
	return p;
}

int
util_duration_parse(const char *text, double *seconds)
{
	int date = 0, time = 0;
	double total = 0, *sum = seconds != NULL ? &total : NULL;
	const char *p;

	if (text[0] != 'P')
		return -1;
	p = duration_parts(text + 1, "YMWD", 0, &date, sum);
	if (p == NULL)
		return -1;
	/* A week stands alone: "P2W", never "P1W3D". */
	if (strchr(text, 'W') != NULL && (date != 1 || *p != '\0'))
		return -1;
	if (*p == 'T') {
		p = duration_parts(p + 1, "HMS", 1, &time, sum);
		if (p == NULL || time == 0)
			return -1;
	}
	if (*p != '\0' || date + time == 0)
		return -1;
	if (seconds != NULL)
		*seconds = total;
	return 0;
}
