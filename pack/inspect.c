/* A pack read once for what signing and verifying need to know. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/error.h"

void
ps_inspection_free(ps_inspection *in)
{
	if (in == NULL)
		return;
	ps_digest_free(in->digest);
	ps_manifest_free(in->manifest);
	ps_diags_free(&in->diags);
	free(in);
}

static int
open_pack(const char *path, const ps_pack_options *pack, ps_pack_files *files,
    ps_digest **digest, ps_error *err)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return util_fail_errno(err, errno == ENOENT ? "not_found" :
		    "io_error", path, "stat", errno);
	if (S_ISDIR(st.st_mode))
		return ps_digest_path(path, pack, digest, err) != 0 ||
		    ps_pack_files_dir_open(path, files, err) != 0 ? -1 : 0;
	/* Archives: one read for the digests and the files the checks need. */
	return ps_pack_files_archive_open(path, files, digest, err);
}

int
ps_inspect(const char *path, const ps_pack_options *pack,
    const ps_validate_options *validate, ps_inspection **out, ps_error *err)
{
	ps_inspection *in = calloc(1, sizeof(*in));
	ps_pack_files files;
	int rc;

	*out = NULL;
	memset(&files, 0, sizeof(files));
	if (in == NULL)
		return util_fail_oom(err, path);
	ps_diags_init(&in->diags);
	rc = open_pack(path, pack, &files, &in->digest, err);
	if (rc == 0)
		rc = ps_manifest_load(&files, validate, &in->manifest, &in->diags,
		    err);
	ps_pack_files_close(&files);
	if (rc != 0) {
		ps_inspection_free(in);
		return -1;
	}
	ps_diags_sort(&in->diags);
	*out = in;
	return 0;
}
