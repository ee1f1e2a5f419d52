#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/error.h"

void
ps_error_clear(ps_error *err)
{
	if (err != NULL)
		memset(err, 0, sizeof(*err));
}

int
ps_error_is(const ps_error *err, const char *code)
{
	return err != NULL && code != NULL && strcmp(err->code, code) == 0;
}

void
util_error_record(ps_error *err, ps_status status, const char *code,
    const char *subject, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return;
	ps_error_clear(err);
	err->status = status;
	snprintf(err->code, sizeof(err->code), "%s", code);
	snprintf(err->subject, sizeof(err->subject), "%s",
	    subject != NULL ? subject : "");
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
}

const char *
util_strerror(int errnum, char *buf, size_t size)
{
	/* _GNU_SOURCE: glibc's strerror_r returns the message (a constant
	 * string, or `buf` for an unknown number). */
	return strerror_r(errnum, buf, size);
}

void
util_error_record_expect(ps_error *err, const char *expected, const char *found)
{
	if (err == NULL)
		return;
	snprintf(err->expected, sizeof(err->expected), "%s", expected);
	snprintf(err->found, sizeof(err->found), "%s", found);
}

char *
ps_error_format(const ps_error *err, char *buf, size_t size)
{
	size_t used = 0;
	int n;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	if (err->subject[0] != '\0') {
		n = snprintf(buf, size, "%s: ", err->subject);
		used = n > 0 ? (size_t)n : 0;
	}
	if (used < size) {
		n = snprintf(buf + used, size - used, "%s", err->message);
		used += n > 0 ? (size_t)n : 0;
	}
	if (used < size && (err->expected[0] != '\0' || err->found[0] != '\0')) {
		n = snprintf(buf + used, size - used, ": expected %s, found %s",
		    err->expected, err->found);
		used += n > 0 ? (size_t)n : 0;
	}
	if (used < size && err->code[0] != '\0')
		snprintf(buf + used, size - used, " [%s]", err->code);
	return buf;
}
