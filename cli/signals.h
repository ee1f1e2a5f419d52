/* Internal header of cli/: removing a temporary file when a signal ends
 * the run.
 */
#ifndef CLI_SIGNALS_H
#define CLI_SIGNALS_H

/*
 * Removes `path` if SIGINT, SIGTERM, SIGHUP or SIGPIPE arrives, so an
 * interrupted run leaves no temporary file; NULL disarms.
 */
void cli_remove_on_signal(const char *path);

/*
 * Downloads: SIGINT, SIGTERM and SIGHUP only ask the running transfer to
 * stop (cli_cancelled, polled by the library about once a second), so the
 * library removes what it wrote; a second signal, or 3 s without the run
 * ending, ends the process at once.  cli_cancel_end() restores the
 * default handlers and, when a signal was caught, re-raises it.
 */
void cli_cancel_on_signal(void);
int cli_cancelled(void *ctx);
void cli_cancel_end(void);
/* Readable once a signal was caught since cli_cancel_on_signal() (-1
 * outside it): poll it beside an input so that a signal arriving just
 * before the wait still ends the wait. */
int cli_cancel_fd(void);

#endif
