/* The directory of a command's file copies: the first that takes them. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/copies.h"
#include "cli/options.h"
#include "cli/output.h"

/* 1 when `dir` holds the copies (a directory on disk). */
static int
try_dir(const char *dir, ps_copies **out)
{
	ps_error err;

	if (dir == NULL || dir[0] != '/')
		return 0;
	return ps_copies_new(0, dir, out, &err) == 0;
}

int
cli_copies_open(const char *data_dir_option, ps_copies **out)
{
	static const char *const fallbacks[] = { "/var/tmp", "/tmp" };
	char *data_dir = NULL;
	ps_error err;
	size_t i;
	int found;

	*out = NULL;
	if (data_dir_option != NULL)
		data_dir = strdup(data_dir_option);
	else if (ps_data_dir_default(&data_dir, &err) != 0)
		data_dir = NULL;
	found = try_dir(data_dir, out) || try_dir(getenv("TMPDIR"), out);
	free(data_dir);
	for (i = 0; !found && i < sizeof(fallbacks) / sizeof(fallbacks[0]); i++)
		found = try_dir(fallbacks[i], out);
	if (!found && ps_copies_new(0, NULL, out, &err) != 0)
		return cli_report(&err);
	return EXIT_OK;
}
