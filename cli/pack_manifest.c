/* A pack's manifest loaded for validate and describe. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/copies.h"
#include "cli/output.h"
#include "cli/pack_manifest.h"

/* PATH with a '/' appended unless it already ends with one. */
static char *
diag_prefix(const char *path)
{
	size_t n = strlen(path);
	char *prefix = NULL;

	if (asprintf(&prefix, "%s%s", path, n > 0 && path[n - 1] == '/' ?
	    "" : "/") < 0)
		return NULL;
	return prefix;
}

int
cli_load_pack(const char *path, ps_validate_options *options,
    ps_manifest **manifest, ps_diags *diags)
{
	ps_pack_files files;
	ps_extract_limits limits;
	ps_error err;
	struct stat st;
	char *prefix;
	int rc;

	ps_error_clear(&err);
	ps_extract_limits_init(&limits);
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		if (cli_copies_open(NULL, &limits.copies) != EXIT_OK)
			return EXIT_FAILED;
		rc = ps_pack_files_archive_open_limited(path, &limits, &files,
		    NULL, &err);
		ps_copies_free(limits.copies);
	} else
		rc = ps_pack_files_dir_open(path, &files, &err);
	if (rc != 0)
		return cli_report(&err);
	if ((prefix = diag_prefix(path)) == NULL) {
		ps_pack_files_close(&files);
		return cli_fail_oom();
	}
	options->prefix = prefix;
	rc = ps_manifest_load(&files, options, manifest, diags, &err);
	options->prefix = NULL;
	free(prefix);
	ps_pack_files_close(&files);
	if (rc != 0)
		return cli_report(&err);
	ps_diags_sort(diags);
	return EXIT_OK;
}
