#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "packsign.h"

void
ps_diags_init(ps_diags *diags)
{
	memset(diags, 0, sizeof(*diags));
}

void
ps_diags_free(ps_diags *diags)
{
	size_t i;

	if (diags == NULL)
		return;
	for (i = 0; i < diags->count; i++) {
		free(diags->items[i].file);
		free(diags->items[i].message);
	}
	free(diags->items);
	ps_diags_init(diags);
}

static int
diags_grow(ps_diags *diags)
{
	size_t capacity = diags->capacity == 0 ? 16 : diags->capacity * 2;
	ps_diag *items;

	items = realloc(diags->items, capacity * sizeof(*items));
	if (items == NULL)
		return -1;
	diags->items = items;
	diags->capacity = capacity;
	return 0;
}

int
ps_diags_add(ps_diags *diags, ps_severity severity, const char *code,
    const char *file, unsigned line, unsigned column, const char *fmt, ...)
{
	ps_diag *d;
	va_list ap;
	int rc;

	if (diags->count == diags->capacity && diags_grow(diags) != 0)
		return -1;
	d = &diags->items[diags->count];
	memset(d, 0, sizeof(*d));
	d->severity = severity;
	d->line = line;
	d->column = column;
	snprintf(d->code, sizeof(d->code), "%s", code);
	d->file = strdup(file != NULL ? file : "");
	va_start(ap, fmt);
	rc = vasprintf(&d->message, fmt, ap);
	va_end(ap);
	if (d->file == NULL || rc < 0) {
		free(d->file);
		if (rc >= 0)
			free(d->message);
		return -1;
	}
	diags->count++;
	return 0;
}

size_t
ps_diags_count(const ps_diags *diags, ps_severity severity)
{
	size_t i, n = 0;

	for (i = 0; i < diags->count; i++) {
		if (diags->items[i].severity == severity)
			n++;
	}
	return n;
}

static int
diag_before(const ps_diag *a, const ps_diag *b)
{
	int c = strcmp(a->file, b->file);

	if (c != 0)
		return c < 0;
	if (a->line != b->line)
		return a->line < b->line;
	return a->column < b->column;
}

void
ps_diags_sort(ps_diags *diags)
{
	size_t i, j;
	ps_diag key;

	/* Insertion sort: stable, and diagnostic lists are short. */
	for (i = 1; i < diags->count; i++) {
		key = diags->items[i];
		for (j = i; j > 0 && diag_before(&key, &diags->items[j - 1]); j--)
			diags->items[j] = diags->items[j - 1];
		diags->items[j] = key;
	}
}

char *
ps_diag_format(const ps_diag *d, char *buf, size_t size)
{
	const char *sev = d->severity == PS_SEVERITY_ERROR ? "error" : "warning";

	if (d->line > 0 && d->column > 0)
		snprintf(buf, size, "%s:%u:%u: %s: %s [%s]", d->file, d->line,
		    d->column, sev, d->message, d->code);
	else if (d->line > 0)
		snprintf(buf, size, "%s:%u: %s: %s [%s]", d->file, d->line, sev,
		    d->message, d->code);
	else
		snprintf(buf, size, "%s: %s: %s [%s]", d->file, sev, d->message,
		    d->code);
	return buf;
}
