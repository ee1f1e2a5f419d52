/* Internal header of cli/: the progress line of long work on a terminal.
 */
#ifndef CLI_PROGRESS_H
#define CLI_PROGRESS_H

#include "packsign.h"

struct cli_progress {
	long long started, last;    /* monotonic ns */
	long long interval;         /* ns between redraws */
	int width, drawn, plain;
};

/* A sink for the library's progress, or an empty one when `quiet` or
 * stderr is not a terminal. */
ps_progress_sink cli_progress_start(struct cli_progress *p, int quiet);
/* Erases the line if one is shown (also after a failure). */
void cli_progress_end(struct cli_progress *p);

#endif
