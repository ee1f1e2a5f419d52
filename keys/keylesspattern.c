/*
 * Keyless patterns (docs/formats/trust-policy.md, "Keyless patterns"):
 * whole-string, '*' one or more characters other than '/', every other
 * character itself.  Matching and the overlap of two patterns are one
 * question: does some string match both (a text is a pattern without
 * '*')?  It is answered over the product of the two patterns, row by row
 * in linear memory and O(|a| x |b|) time, both bounded by the policy's
 * and the certificate's limits.
 */
#include <stdlib.h>
#include <string.h>

#include "keys/keylesspattern.h"

/* A pattern's tokens: a literal byte, ANY (one character other than '/')
 * and REST (zero or more of them); '*' is ANY then REST. */
#define TOK_ANY 0x100
#define TOK_REST 0x101

static int *
tokens(const char *s, int pattern, size_t *n)
{
	size_t len = strlen(s), i, k = 0;
	int *t = malloc((2 * len + 1) * sizeof(*t));

	if (t == NULL)
		return NULL;
	for (i = 0; i < len; i++) {
		if (pattern && s[i] == '*') {
			t[k++] = TOK_ANY;
			t[k++] = TOK_REST;
		} else {
			t[k++] = (unsigned char)s[i];
		}
	}
	*n = k;
	return t;
}

/* Whether token `x` can consume a character that token `y` also can. */
static int
both_take(int x, int y)
{
	if (x < TOK_ANY && y < TOK_ANY)
		return x == y;
	if (x < TOK_ANY)
		return x != '/';
	if (y < TOK_ANY)
		return y != '/';
	return 1;
}

/* Row i of the product: the states (i, j) reachable, `cur`, extended
 * along the row; the next row's into `nxt`. */
static void
step_row(const int *a, size_t i, size_t na, const int *b, size_t nb,
    unsigned char *cur, unsigned char *nxt)
{
	size_t j;

	memset(nxt, 0, nb + 1);
	for (j = 0; j <= nb; j++) {
		if (!cur[j])
			continue;
		if (j < nb && (b[j] == TOK_REST || (i < na && a[i] == TOK_REST &&
		    b[j] != TOK_REST && both_take(a[i], b[j]))))
			cur[j + 1] = 1;
		if (i >= na)
			continue;
		if (a[i] == TOK_REST || (j < nb && b[j] == TOK_REST &&
		    a[i] != TOK_REST && both_take(a[i], b[j])))
			nxt[j] = 1;
		if (j < nb && a[i] != TOK_REST && b[j] != TOK_REST &&
		    both_take(a[i], b[j]))
			nxt[j + 1] = 1;
	}
}

static int
meet(const char *sa, int pa, const char *sb, int pb)
{
	size_t na = 0, nb = 0, i;
	int *a = tokens(sa, pa, &na), *b = tokens(sb, pb, &nb);
	unsigned char *cur = NULL, *nxt = NULL, *swap;
	int rc = -1;

	if (a != NULL && b != NULL && (cur = calloc(nb + 1, 1)) != NULL &&
	    (nxt = calloc(nb + 1, 1)) != NULL) {
		cur[0] = 1;
		for (i = 0; i <= na; i++) {
			step_row(a, i, na, b, nb, cur, nxt);
			if (i == na)
				break;
			swap = cur;
			cur = nxt;
			nxt = swap;
		}
		rc = cur[nb];
	}
	free(a);
	free(b);
	free(cur);
	free(nxt);
	return rc;
}

int
keys_keyless_match(const char *pattern, const char *text)
{
	return meet(pattern, 1, text, 0) == 1;
}

int
keys_keyless_meet(const char *a, const char *b)
{
	return meet(a, 1, b, 1) != 0;
}

int
keys_keyless_pattern_valid(const char *pattern)
{
	size_t i, len = strlen(pattern);

	if (len == 0 || len > KEYS_KEYLESS_VALUE_MAX ||
	    strstr(pattern, "**") != NULL)
		return 0;
	for (i = 0; i < len; i++) {
		if ((unsigned char)pattern[i] < 0x21 ||
		    (unsigned char)pattern[i] > 0x7e)
			return 0;
	}
	return 1;
}
