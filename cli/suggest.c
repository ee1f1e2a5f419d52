/* "Did you mean": the names closest to a mistyped word, as git and cargo
 * suggest them. */
#include <stdio.h>
#include <string.h>

#include "cli/suggest.h"

/* Names are short (commands, options); longer words get no suggestion. */
#define WORD_MAX 64

static size_t
min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

/* Optimal string alignment distance of a and b, both under WORD_MAX. */
static size_t
distance(const char *a, size_t n, const char *b, size_t m)
{
	size_t rows[3][WORD_MAX + 1], i, j, cost;
	size_t *two = rows[0], *prev = rows[1], *cur = rows[2], *t;

	for (j = 0; j <= m; j++)
		prev[j] = j;
	for (i = 1; i <= n; i++) {
		cur[0] = i;
		for (j = 1; j <= m; j++) {
			cost = a[i - 1] == b[j - 1] ? 0 : 1;
			cur[j] = min3(prev[j] + 1, cur[j - 1] + 1,
			    prev[j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && two[j - 2] + 1 < cur[j])
				cur[j] = two[j - 2] + 1;
		}
		t = two;
		two = prev;
		prev = cur;
		cur = t;
	}
	return prev[m];
}

static size_t
allowed(size_t len)
{
	return len <= 4 ? 1 : len <= 8 ? 2 : 3;
}

static void
add(struct cli_suggestion *out, const char *name)
{
	if (out->count < CLI_SUGGEST_MAX)
		out->names[out->count++] = name;
	else
		out->more++;
}

void
cli_suggest(const char *word, const char *const *names, size_t count,
    struct cli_suggestion *out)
{
	size_t i, d, best = WORD_MAX, n = strlen(word), m;

	memset(out, 0, sizeof(*out));
	if (n == 0 || n >= WORD_MAX)
		return;
	for (i = 0; i < count; i++) {
		m = names[i] != NULL ? strlen(names[i]) : WORD_MAX;
		if (m >= WORD_MAX)
			continue;
		d = n >= 3 && m > n && strncmp(names[i], word, n) == 0 ? 1 :
		    distance(word, n, names[i], m);
		if (d > allowed(n) || d > best)
			continue;
		if (d < best)
			out->count = out->more = 0;
		best = d;
		add(out, names[i]);
	}
}

void
cli_suggestion_text(const struct cli_suggestion *s, const char *prefix,
    char *buf, size_t size)
{
	size_t i, used;

	buf[0] = '\0';
	if (s->count == 0)
		return;
	snprintf(buf, size, "; did you mean ");
	for (i = 0; i < s->count; i++) {
		used = strlen(buf);
		snprintf(buf + used, size - used, "%s'%s%s'", i == 0 ? "" :
		    i + 1 == s->count && s->more == 0 ? " or " : ", ", prefix,
		    s->names[i]);
	}
	used = strlen(buf);
	if (s->more > 0)
		snprintf(buf + used, size - used, " or %zu more?", s->more);
	else
		snprintf(buf + used, size - used, "?");
}
