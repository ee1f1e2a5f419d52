/* Internal header of cli/: a list of paths, one a line (verify
 * --files-from), read one line at a time so a list of any length costs
 * one line of memory; or the operands of the command line (verify A B C),
 * taken through the same calls.
 */
#ifndef CLI_FILE_LIST_H
#define CLI_FILE_LIST_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "packsign.h"

struct cli_list {
	FILE *in;
	const char *name;          /* as given; "-" is standard input */
	uint64_t line;             /* number of the line last read */
	char **args;               /* cli_list_args(): the operands */
	int arg_count;
};

enum cli_list_status {
	CLI_LIST_PATH,             /* a path: the buffer holds it */
	CLI_LIST_BAD,              /* a line that names no path: the error
	                            * says why; the next call reads on */
	CLI_LIST_END,              /* the end of the list */
	CLI_LIST_ERROR,            /* reading failed: the error says why */
};

/* Opens FILE, or takes standard input for "-"; 0, or -1 and `err`. */
int cli_list_open(struct cli_list *list, const char *name, ps_error *err);
/* A list of the `count` operands `args`, each a path as it is given (an
 * empty one too); one longer than PATH_MAX - 1 bytes is CLI_LIST_BAD
 * (io_error "File name too long", as opening it would be; subject the
 * operand cut short). */
void cli_list_args(struct cli_list *list, char **args, int count);

/*
 * The next line into `path`.  Lines end in LF (the last one may lack it);
 * empty lines are skipped.  A line longer than PATH_MAX - 1 bytes is
 * files_from_line_too_long, one ending in CR files_from_crlf, one holding
 * a NUL byte files_from_nul: each is CLI_LIST_BAD for that line only, with
 * "LIST:LINE" as the error's subject.
 */
enum cli_list_status cli_list_next(struct cli_list *list,
    char path[PATH_MAX], ps_error *err);

/* "stdin" for "-", else the name. */
const char *cli_list_label(const struct cli_list *list);

void cli_list_close(struct cli_list *list);

#endif
