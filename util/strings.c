#include <stdlib.h>
#include <string.h>

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
