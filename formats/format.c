#include <stdio.h>
#include <string.h>

#include "formats/format.h"

static const formats_descriptor *const table[] = {
	&formats_soyapack,
	&formats_holon,
	&formats_autograph,
	&formats_agentpack,
};

#define FORMAT_COUNT (sizeof(table) / sizeof(table[0]))

_Static_assert(FORMAT_COUNT <= FORMATS_MAX, "FORMATS_MAX is too small");

size_t
formats_count(void)
{
	return FORMAT_COUNT;
}

const formats_descriptor *
formats_at(size_t i)
{
	return i < FORMAT_COUNT ? table[i] : NULL;
}

const formats_descriptor *
formats_of(ps_format format)
{
	size_t i;

	for (i = 0; i < FORMAT_COUNT; i++) {
		if (table[i]->format == format)
			return table[i];
	}
	return NULL;
}

const formats_descriptor *
formats_by_install_dir(const char *dir)
{
	size_t i;

	for (i = 0; i < FORMAT_COUNT; i++) {
		if (strcmp(table[i]->install_dir, dir) == 0)
			return table[i];
	}
	return NULL;
}

char *
formats_manifest_names(char *out, size_t size, const char *prefix)
{
	size_t i, used;

	snprintf(out, size, "%s", prefix);
	for (i = 0; i < FORMAT_COUNT; i++) {
		used = strlen(out);
		snprintf(out + used, size - used, "%s%s", i > 0 ? ", " : "",
		    table[i]->manifest);
	}
	return out;
}

const char *
ps_format_name(ps_format format)
{
	const formats_descriptor *d = formats_of(format);

	return d != NULL ? d->name : "unknown";
}

const char *
ps_format_manifest_name(ps_format format)
{
	const formats_descriptor *d = formats_of(format);

	return d != NULL ? d->manifest : NULL;
}

ps_format
ps_format_by_manifest(const char *path)
{
	size_t i;

	for (i = 0; i < FORMAT_COUNT; i++) {
		if (strcmp(table[i]->manifest, path) == 0)
			return table[i]->format;
	}
	return PS_FORMAT_UNKNOWN;
}

int
ps_format_parse(const char *name, ps_format *out)
{
	size_t i;

	for (i = 0; i < FORMAT_COUNT; i++) {
		if (strcmp(table[i]->name, name) == 0) {
			*out = table[i]->format;
			return 0;
		}
	}
	return -1;
}

const formats_permission *
formats_permissions(ps_format format, size_t *count)
{
	const formats_descriptor *d = formats_of(format);

	*count = d != NULL ? d->permission_count : 0;
	return d != NULL ? d->permissions : NULL;
}
