/* Internal header of cli/: verify --files-from, a pool of threads that
 * verify the archives of a list while the calling thread reports them in
 * the list's order.
 */
#ifndef CLI_VERIFY_BATCH_H
#define CLI_VERIFY_BATCH_H

#include <stdint.h>

#include "packsign.h"
#include "cli/file_list.h"

#define CLI_BATCH_MAX_JOBS 64
/* Results verified or being verified but not yet reported, per job. */
#define CLI_BATCH_WINDOW 4

/*
 * Reports one entry of the list, on the calling thread, in the list's
 * order: the path (or "LIST:LINE" for a line that names no path), the
 * result (NULL when none) and ps_verify()'s return with its error.
 * Returns the entry's exit code.
 */
typedef int cli_batch_report_fn(void *ctx, const char *path,
    const ps_verify_result *result, int rc, const ps_error *err);

struct cli_batch {
	struct cli_list *list;
	int jobs;                          /* 1 .. CLI_BATCH_MAX_JOBS */
	const ps_verify_options *options;  /* shared, read-only: its trust
	                                    * is read by every job at once */
	cli_batch_report_fn *report;
	void *ctx;
};

struct cli_batch_count {
	uint64_t good, total;              /* entries reported EXIT_OK; all */
	int worst;                         /* the highest entry exit code */
};

/* The default --jobs: the online CPUs, from 1 to CLI_BATCH_MAX_JOBS. */
int cli_batch_default_jobs(void);

/*
 * Verifies every path of the list, at most `jobs` at a time and at most
 * jobs * CLI_BATCH_WINDOW held, reporting each as soon as it and all
 * before it are done.  Returns EXIT_OK, or EXIT_FAILED after reporting
 * why the list could not be read to its end (what was read is reported
 * first) or the threads could not start.
 */
int cli_verify_batch(const struct cli_batch *batch,
    struct cli_batch_count *count);

#endif
