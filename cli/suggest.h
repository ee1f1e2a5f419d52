/* Internal header of cli/: "did you mean" for a mistyped command, subcommand
 * or option.
 */
#ifndef CLI_SUGGEST_H
#define CLI_SUGGEST_H

#include <stddef.h>

/* The most candidates one suggestion names ("'a', 'b' or 'c'"). */
#define CLI_SUGGEST_MAX 3

struct cli_suggestion {
	const char *names[CLI_SUGGEST_MAX];
	size_t count;
	size_t more;                /* as close, beyond CLI_SUGGEST_MAX */
};

/*
 * The candidates closest to `word` (optimal string alignment distance:
 * insertions, deletions, substitutions and swaps of two neighbours, each
 * 1), when that distance is small for the word's length (1 up to 4 bytes,
 * 2 up to 8, 3 beyond), or the candidates `word` is a prefix of (at least
 * 3 bytes).  NULL entries of `names` are skipped.  Fills `out`; count 0:
 * nothing is close.
 */
void cli_suggest(const char *word, const char *const *names, size_t count,
    struct cli_suggestion *out);

/*
 * Writes "; did you mean 'X'?" (or "'X' or 'Y'", "'X', 'Y', 'Z' or 2
 * more") with `prefix` before each name ("--" for options) into buf; an
 * empty string when there is none.
 */
void cli_suggestion_text(const struct cli_suggestion *s, const char *prefix,
    char *buf, size_t size);

#endif
