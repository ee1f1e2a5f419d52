#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistr.h>

#include "util/error.h"
#include "util/strings.h"

int
util_strings_add(ps_strings *list, const char *s)
{
	char **items, *copy = strdup(s);

	if (copy == NULL)
		return -1;
	items = realloc(list->items, (list->count + 1) * sizeof(*items));
	if (items == NULL) {
		free(copy);
		return -1;
	}
	items[list->count++] = copy;
	list->items = items;
	return 0;
}

void
util_strings_clear(ps_strings *list)
{
	size_t i;

	for (i = 0; i < list->count; i++)
		free(list->items[i]);
	free(list->items);
	list->items = NULL;
	list->count = 0;
}

int
util_strdup(char **out, const char *s, const char *subject, ps_error *err)
{
	*out = NULL;
	if (s != NULL && (*out = strdup(s)) == NULL)
		return util_fail_oom(err, subject);
	return 0;
}

int
util_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

void
util_join(char *out, size_t size, const char *const *items, size_t count)
{
	size_t i, used;

	out[0] = '\0';
	for (i = 0; i < count; i++) {
		used = strlen(out);
		if (used + 1 >= size)
			return;
		snprintf(out + used, size - used, "%s%s", i > 0 ? ", " : "",
		    items[i]);
	}
}

int
util_commit_id_valid(const char *s, int any_case)
{
	size_t n = s != NULL ? strlen(s) : 0;

	return (n == 40 || n == 64) && strspn(s, any_case ?
	    "0123456789abcdefABCDEF" : "0123456789abcdef") == n;
}

int
util_strings_has(const ps_strings *list, const char *s)
{
	size_t i;

	for (i = 0; i < list->count; i++) {
		if (strcmp(list->items[i], s) == 0)
			return 1;
	}
	return 0;
}

char *
util_strings_join(const ps_strings *list, const char *sep)
{
	size_t i, n, len = 1, at = 0, k = strlen(sep);
	char *out;

	for (i = 0; i < list->count; i++)
		len += strlen(list->items[i]) + k;
	if ((out = malloc(len)) == NULL)
		return NULL;
	for (i = 0; i < list->count; i++) {
		if (i > 0) {
			memcpy(out + at, sep, k);
			at += k;
		}
		n = strlen(list->items[i]);
		memcpy(out + at, list->items[i], n);
		at += n;
	}
	out[at] = '\0';
	return out;
}

size_t
ps_text_hidden(const char *s, unsigned *code_point)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned c = 0;
	size_t n = 0;

	if (p[0] == 0xd8 && p[1] == 0x9c) {
		c = 0x061c;
		n = 2;
	} else if (p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf) {
		c = 0xfeff;
		n = 3;
	} else if (p[0] == 0xe2 && (p[1] == 0x80 || p[1] == 0x81) &&
	    p[2] >= 0x80 && p[2] <= 0xbf) {
		c = 0x2000 | ((unsigned)(p[1] & 0x3f) << 6) | (p[2] & 0x3f);
		n = (c >= 0x200b && c <= 0x200f) || (c >= 0x2028 && c <= 0x202e) ||
		    (c >= 0x2066 && c <= 0x2069) ? 3 : 0;
	}
	if (n > 0 && code_point != NULL)
		*code_point = c;
	return n;
}

size_t
ps_text_char_length(const char *s)
{
	const uint8_t *p = (const uint8_t *)s;
	ucs4_t c;
	size_t n;
	int len;

	if (p[0] == '\0')
		return 0;
	/* At most 4 bytes, never past the terminating NUL. */
	for (n = 1; n < 4 && p[n] != '\0'; n++)
		;
	len = u8_mbtoucr(&c, p, n);
	return len > 0 ? (size_t)len : 0;
}
