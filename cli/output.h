/* Internal header of cli/: what the commands print besides their results:
 * escaped text, errors and usage errors.
 */
#ifndef CLI_OUTPUT_H
#define CLI_OUTPUT_H

#include <stdio.h>

#include "packsign.h"
#include "cli/cli.h"

/*
 * Prints text that may come from an input (names, messages), escaping
 * control characters so nothing reaches the terminal as a command.
 */
void cli_put_safe(FILE *out, const char *text);
/* `label`, then `text` escaped as cli_put_safe() does, then a newline. */
void cli_put_line(FILE *out, const char *label, const char *text);

/* Prints "packsign: <error line>" to stderr. */
void cli_print_error(const ps_error *err);

/* Prints the error; returns its exit code, never EXIT_OK.  Inline so that
 * the static analyzer sees a reported error is never success. */
static inline int
cli_report(const ps_error *err)
{
	cli_print_error(err);
	return err->status == PS_STATUS_REFUSED ? EXIT_REFUSED : EXIT_FAILED;
}

/* Fills an error from the CLI layer; returns -1. */
int cli_error_set(ps_error *err, ps_status status, const char *code,
    const char *subject, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Fills the error of an allocation that failed; returns -1. */
int cli_error_oom(ps_error *err);

/* Reports an exit-2 error built here; returns EXIT_FAILED. */
int cli_fail(const char *code, const char *subject, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Reports an allocation that failed; returns EXIT_FAILED. */
int cli_fail_oom(void);

/* Prints "packsign CMD: MESSAGE [usage]" and the command's synopsis to
 * stderr; returns EXIT_FAILED. */
int cli_usage_error(const struct cli_usage *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
