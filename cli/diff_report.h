/* Internal header of cli/: a diff as text, for `diff` and for the
 * question `install` asks before a widening upgrade. */
#ifndef CLI_DIFF_REPORT_H
#define CLI_DIFF_REPORT_H

#include <stdio.h>

#include "packsign.h"

struct cli_diff_style {
	ps_lang lang;
	int stat;                    /* counts, no text diffs */
	int files;                   /* every other file, not counts */
	unsigned asked;              /* the policy's consent classes */
};

/* The whole report; nothing for an empty diff. */
void cli_diff_print(FILE *out, const ps_diff *d, const struct cli_diff_style *s);

/* Only the widening changes in `classes`, one a line, for a question. */
void cli_diff_print_widening(FILE *out, const ps_diff *d, unsigned classes,
    ps_lang lang);


#endif
