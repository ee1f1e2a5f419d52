/*
 * The two small languages of the trust policy: RFC 3339 UTC times and
 * whole-string glob patterns (docs/formats/trust-policy.md).
 */
#include <stdio.h>
#include <string.h>

#include "packsign.h"

/* Days since 1970-01-01 of a proleptic Gregorian date (Hinnant). */
static int64_t
days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static unsigned
days_in_month(unsigned y, unsigned m)
{
	static const unsigned days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30,
	    31, 30, 31 };
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return m == 2 && leap ? 29 : days[m - 1];
}

/* `n` decimal digits at `s`; -1 when one is not a digit. */
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

int
ps_time_parse(const char *s, int64_t *out)
{
	int y, mo, d, h, mi, se;

	if (strlen(s) != 20 || s[4] != '-' || s[7] != '-' ||
	    (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':' ||
	    (s[19] != 'Z' && s[19] != 'z'))
		return -1;
	y = digits(s, 4);
	mo = digits(s + 5, 2);
	d = digits(s + 8, 2);
	h = digits(s + 11, 2);
	mi = digits(s + 14, 2);
	se = digits(s + 17, 2);
	if (y < 0 || mo < 1 || mo > 12 || d < 1 ||
	    (unsigned)d > days_in_month((unsigned)y, (unsigned)mo) ||
	    h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 59)
		return -1;
	*out = days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 +
	    h * 3600 + mi * 60 + se;
	return 0;
}

int
ps_time_format(int64_t t, char out[PS_TIME_TEXT_LEN])
{
	int64_t days, secs, z, era, y;
	unsigned doe, yoe, doy, mp, d, m;
	char buf[96];

	if (t < -62167219200LL || t > 253402300799LL)   /* 0000..9999 */
		return -1;
	days = t >= 0 ? t / 86400 : -((-t + 86399) / 86400);
	secs = t - days * 86400;
	z = days + 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = (unsigned)(z - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	y = (int64_t)yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	d = doy - (153 * mp + 2) / 5 + 1;
	m = mp < 10 ? mp + 3 : mp - 9;
	y += m <= 2;
	/* The range check above keeps this at 20 characters. */
	snprintf(buf, sizeof(buf), "%04d-%02u-%02uT%02d:%02d:%02dZ", (int)y, m,
	    d, (int)(secs / 3600), (int)(secs / 60 % 60), (int)(secs % 60));
	memcpy(out, buf, PS_TIME_TEXT_LEN);
	out[PS_TIME_TEXT_LEN - 1] = '\0';
	return 0;
}

int
ps_glob_match(const char *p, const char *t)
{
	const char *star = NULL, *resume = NULL;

	/* Anchored at both ends; '*' backtracks to its latest position. */
	while (*t != '\0') {
		if (*p == '?' || (*p != '*' && *p == *t)) {
			p++;
			t++;
		} else if (*p == '*') {
			star = p++;
			resume = t;
		} else if (star != NULL) {
			p = star + 1;
			t = ++resume;
		} else {
			return 0;
		}
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}
