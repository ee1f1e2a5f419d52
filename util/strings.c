#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
