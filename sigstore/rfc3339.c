/* RFC 3339 times with fractions and offsets (protobuf Timestamp JSON). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sigstore/rfc3339.h"

/* `n` decimal digits at `s` as a number; -1 when one is not a digit. */
static int
digits(const char *s, int n)
{
	int v = 0, i;

	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* ".F{1,9}" at *s into nanoseconds, moving *s past it; -1 when malformed. */
static int
fraction(const char **s, int32_t *nsec)
{
	int n = 0;

	*nsec = 0;
	if (**s != '.')
		return 0;
	for ((*s)++; **s >= '0' && **s <= '9'; (*s)++) {
		if (++n > 9)
			return -1;
		*nsec = *nsec * 10 + (**s - '0');
	}
	if (n == 0)
		return -1;
	for (; n < 9; n++)
		*nsec *= 10;
	return 0;
}

/* "Z", "+HH:MM" or "-HH:MM" at `s`, the whole rest: seconds east of UTC. */
static int
offset(const char *s, int64_t *east)
{
	int h, m;

	if ((s[0] == 'Z' || s[0] == 'z') && s[1] == '\0') {
		*east = 0;
		return 0;
	}
	if ((s[0] != '+' && s[0] != '-') || strlen(s) != 6 || s[3] != ':')
		return -1;
	h = digits(s + 1, 2);
	m = digits(s + 4, 2);
	if (h < 0 || h > 23 || m < 0 || m > 59)
		return -1;
	*east = (s[0] == '-' ? -1 : 1) * (int64_t)(h * 3600 + m * 60);
	return 0;
}

int
sigstore_time_parse(const char *text, sigstore_time *out)
{
	struct tm tm, back;
	const char *rest;
	int64_t east;
	time_t t;

	memset(&tm, 0, sizeof(tm));
	if (strlen(text) < 20 || text[4] != '-' || text[7] != '-' ||
	    (text[10] != 'T' && text[10] != 't') || text[13] != ':' ||
	    text[16] != ':')
		return -1;
	tm.tm_year = digits(text, 4) - 1900;
	tm.tm_mon = digits(text + 5, 2) - 1;
	tm.tm_mday = digits(text + 8, 2);
	tm.tm_hour = digits(text + 11, 2);
	tm.tm_min = digits(text + 14, 2);
	tm.tm_sec = digits(text + 17, 2);
	if (tm.tm_year < 70 || tm.tm_mon < 0 || tm.tm_mon > 11 ||
	    tm.tm_mday < 1 || tm.tm_hour < 0 || tm.tm_hour > 23 ||
	    tm.tm_min < 0 || tm.tm_min > 59 || tm.tm_sec < 0 || tm.tm_sec > 59)
		return -1;
	rest = text + 19;
	if (fraction(&rest, &out->nsec) != 0 || offset(rest, &east) != 0)
		return -1;
	back = tm;
	t = timegm(&back);
	if (t == (time_t)-1 || back.tm_mday != tm.tm_mday ||
	    back.tm_mon != tm.tm_mon)
		return -1;                  /* 31 April, 29 February 2023 */
	out->sec = (int64_t)t - east;
	return 0;
}

int
sigstore_time_cmp(sigstore_time a, sigstore_time b)
{
	if (a.sec != b.sec)
		return a.sec < b.sec ? -1 : 1;
	if (a.nsec != b.nsec)
		return a.nsec < b.nsec ? -1 : 1;
	return 0;
}

void
sigstore_time_format(sigstore_time t, char out[40])
{
	struct tm tm;
	time_t s = (time_t)t.sec;
	size_t n;

	if (gmtime_r(&s, &tm) == NULL) {
		snprintf(out, 40, "@%lld", (long long)t.sec);
		return;
	}
	n = strftime(out, 40, "%Y-%m-%dT%H:%M:%S", &tm);
	if (t.nsec != 0)
		n += (size_t)snprintf(out + n, 40 - n, ".%09d", (int)t.nsec);
	snprintf(out + n, 40 - n, "Z");
}
