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

#endif
