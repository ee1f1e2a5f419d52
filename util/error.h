/* Filling a ps_error: every helper returns -1 so callers can `return` it. */
#ifndef PS_UTIL_ERROR_H
#define PS_UTIL_ERROR_H

#include "packsign.h"

/* Sets status, code, subject and a printf-style message; returns -1. */
int ps_error_set(ps_error *err, ps_status status, const char *code,
    const char *subject, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* The input was examined and refused (exit 1). */
#define ps_refuse(err, code, subject, ...) \
	ps_error_set((err), PS_STATUS_REFUSED, (code), (subject), __VA_ARGS__)

/* The job could not be done (exit 2). */
#define ps_fail(err, code, subject, ...) \
	ps_error_set((err), PS_STATUS_FAILED, (code), (subject), __VA_ARGS__)

/* A failed system call: message "WHAT: strerror(errnum)", exit 2. */
int ps_fail_errno(ps_error *err, const char *code, const char *subject,
    const char *what, int errnum);

/* Memory ran out (exit 2); returns -1. */
int ps_fail_oom(ps_error *err, const char *subject);

/* Records what was expected and what was found; returns -1. */
int ps_error_expect(ps_error *err, const char *expected, const char *found);

#endif
