#include <string.h>

#include "packsign.h"

static const struct {
	ps_format format;
	const char *name;
	const char *manifest;
} formats[] = {
	{ PS_FORMAT_SOYAPACK, "soyapack", "soyapack.yaml" },
	{ PS_FORMAT_HOLON, "holon", "holon.yaml" },
	{ PS_FORMAT_AUTOGRAPH, "autograph", "augr.pkg.yml" },
	{ PS_FORMAT_AGENTPACK, "agentpack", "manifest.yml" },
};

#define N_FORMATS (sizeof(formats) / sizeof(formats[0]))

const char *
ps_format_name(ps_format format)
{
	size_t i;

	for (i = 0; i < N_FORMATS; i++) {
		if (formats[i].format == format)
			return formats[i].name;
	}
	return "unknown";
}

const char *
ps_format_manifest(ps_format format)
{
	size_t i;

	for (i = 0; i < N_FORMATS; i++) {
		if (formats[i].format == format)
			return formats[i].manifest;
	}
	return NULL;
}

ps_format
ps_format_by_manifest(const char *path)
{
	size_t i;

	for (i = 0; i < N_FORMATS; i++) {
		if (strcmp(formats[i].manifest, path) == 0)
			return formats[i].format;
	}
	return PS_FORMAT_UNKNOWN;
}
