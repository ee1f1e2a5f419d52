/* Internal header of diff/: the text diff of a prompt file.
 *
 * A unified diff of two texts by libgit2 (git_diff_buffers), bounded in
 * lines, for the prompts group of an upgrade's diff.
 */
#ifndef DIFF_TEXTDIFF_H
#define DIFF_TEXTDIFF_H

#include <stddef.h>

#include "packsign.h"

typedef struct diff_textdiff {
	char *text;                 /* hunks and lines, '\n'-terminated;
	                             * NULL when the texts are binary */
	size_t added, removed;      /* every line, kept or not */
	int truncated;              /* more lines than max_lines */
	int binary;                 /* a NUL byte or bytes that are not
	                             * UTF-8 on either side */
} diff_textdiff;

/* The diff of `old` (NULL: empty) and `new` (NULL: empty), keeping at
 * most `max_lines` lines of it (hunk headers included).  The caller frees
 * out->text. */
int diff_text_compare(const char *old, size_t old_len, const char *new_text,
    size_t new_len, size_t max_lines, diff_textdiff *out, ps_error *err);

#endif
