/* Internal header of util/: filling a ps_error.
 *
 * Filling a ps_error: every helper evaluates to -1 so callers can `return`
 * it.  They are macros and static inline functions, not calls into another
 * file, so that the compiler and the static analyzer see the -1 where it
 * is returned and know an error return never comes with the output it
 * guards.
 */
#ifndef UTIL_ERROR_H
#define UTIL_ERROR_H

#include <string.h>

#include "packsign.h"

/* Records status, code, subject and a printf-style message. */
void util_error_record(ps_error *err, ps_status status, const char *code,
    const char *subject, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* The bytes a util_strerror() buffer needs. */
#define UTIL_STRERROR_MAX 128

/*
 * The system's message for errnum, in `buf` (or a constant string): what
 * strerror() says, but safe from several threads at once (strerror() need
 * not be, and verify --files-from runs the library on many).
 */
const char *util_strerror(int errnum, char *buf, size_t size);

/* Records what was expected and what was found. */
void util_error_record_expect(ps_error *err, const char *expected,
    const char *found);

/* The input was examined and refused (exit 1); evaluates to -1. */
#define util_refuse(err, code, subject, ...) ({ \
	util_error_record((err), PS_STATUS_REFUSED, (code), (subject), \
	    __VA_ARGS__); \
	-1; \
})

/* The job could not be done (exit 2); evaluates to -1. */
#define util_fail(err, code, subject, ...) ({ \
	util_error_record((err), PS_STATUS_FAILED, (code), (subject), \
	    __VA_ARGS__); \
	-1; \
})

/* A failed system call: message "WHAT: strerror(errnum)", exit 2. */
static inline int
util_fail_errno(ps_error *err, const char *code, const char *subject,
    const char *what, int errnum)
{
	char reason[UTIL_STRERROR_MAX];

	util_error_record(err, PS_STATUS_FAILED, code, subject, "%s: %s", what,
	    util_strerror(errnum, reason, sizeof(reason)));
	return -1;
}

/* Memory ran out (exit 2); returns -1. */
static inline int
util_fail_oom(ps_error *err, const char *subject)
{
	util_error_record(err, PS_STATUS_FAILED, "out_of_memory", subject,
	    "out of memory");
	return -1;
}

/* Records what was expected and what was found; returns -1. */
static inline int
util_error_expect(ps_error *err, const char *expected, const char *found)
{
	util_error_record_expect(err, expected, found);
	return -1;
}

#endif
