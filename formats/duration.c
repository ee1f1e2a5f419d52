#include <ctype.h>
#include <string.h>

#include "formats/duration.h"

#define DAY (24.0 * 3600.0)

static double
unit_seconds(char designator, int in_time)
{
	switch (designator) {
	case 'Y':
		return 365 * DAY;
	case 'M':
		return in_time ? 60.0 : 30 * DAY;
	case 'W':
		return 7 * DAY;
	case 'D':
		return DAY;
	case 'H':
		return 3600.0;
	default:
		return 1.0;                 /* 'S' */
	}
}

/* Digits, optionally a '.' or ',' and more digits: ISO 8601's number. */
static const char *
number(const char *p, double *out)
{
	double n = 0, scale = 1;

	for (; isdigit((unsigned char)*p) != 0; p++)
		n = n * 10 + (*p - '0');
	if (*p == '.' || *p == ',') {
		for (p++; isdigit((unsigned char)*p) != 0; p++)
			n += (*p - '0') * (scale /= 10);
	}
	*out = n;
	return p;
}

/* Numbers each followed by one designator of `set`, in the set's order;
 * returns the rest of the text, or NULL. */
static const char *
parts(const char *p, const char *set, int in_time, int *count, double *total)
{
	const char *order = set;
	double n;

	while (isdigit((unsigned char)*p) != 0) {
		p = number(p, &n);
		if (*p == '\0' || (order = strchr(order, *p)) == NULL)
			return NULL;
		*total += n * unit_seconds(*p, in_time);
		order++;
		(*count)++;
		p++;
	}
	return p;
}

int
formats_duration_seconds(const char *text, double *seconds)
{
	int date = 0, time = 0;
	double total = 0;
	const char *p;

	if (text[0] != 'P')
		return -1;
	p = parts(text + 1, "YMWD", 0, &date, &total);
	if (p == NULL)
		return -1;
	if (strchr(text, 'W') != NULL && (date != 1 || *p != '\0'))
		return -1;
	if (*p == 'T') {
		p = parts(p + 1, "HMS", 1, &time, &total);
		if (p == NULL || time == 0)
			return -1;
	}
	if (*p != '\0' || date + time == 0)
		return -1;
	if (seconds != NULL)
		*seconds = total;
	return 0;
}
