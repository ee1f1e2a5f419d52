/* A pack read once for what signing and verifying need to know: its
 * digests (ps_digest_path), and its manifest too (ps_inspect). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pack/archive.h"
#include "pack/pack.h"
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

/* A directory: one walk, validated through it before it is packed (in
 * memory) for its digests. */
static int
inspect_dir(const char *path, const ps_pack_options *pack,
    const ps_validate_options *validate, ps_inspection *in, ps_error *err)
{
	pack_packer *p = NULL;
	ps_pack_files files;
	int rc;

	if (pack_packer_open(path, -1, &p, err) != 0)
		return -1;
	rc = pack_packer_files(p, &files, err);
	if (rc == 0) {
		rc = ps_manifest_load(&files, validate, &in->manifest, &in->diags,
		    err);
		ps_pack_files_close(&files);
	}
	if (rc == 0)
		rc = pack_packer_write(p, -1, pack, &in->digest, err);
	pack_packer_free(p);
	return rc;
}

/* An archive: one read for the digests and the files the checks need. */
static int
inspect_archive(const char *path, const ps_pack_options *pack,
    const ps_validate_options *validate, ps_inspection *in, ps_error *err)
{
	pack_archive_open_options o;
	ps_pack_files files;
	int rc;

	memset(&o, 0, sizeof(o));
	o.limits = &pack->limits;
	if (pack_files_archive_open_with(path, &o, &files, &in->digest,
	    err) != 0)
		return -1;
	rc = ps_manifest_load(&files, validate, &in->manifest, &in->diags, err);
	ps_pack_files_close(&files);
	return rc;
}

int
ps_inspect(const char *path, const ps_pack_options *pack,
    const ps_validate_options *validate, ps_inspection **out, ps_error *err)
{
	ps_inspection *in = calloc(1, sizeof(*in));
	ps_pack_options defaults;
	struct stat st;
	int rc;

	*out = NULL;
	if (in == NULL)
		return util_fail_oom(err, path);
	ps_diags_init(&in->diags);
	if (pack == NULL) {
		ps_pack_options_init(&defaults);
		pack = &defaults;
	}
	if (stat(path, &st) != 0)
		rc = util_fail_errno(err, errno == ENOENT ? "not_found" :
		    "io_error", path, "stat", errno);
	else if (S_ISDIR(st.st_mode))
		rc = inspect_dir(path, pack, validate, in, err);
	else
		rc = inspect_archive(path, pack, validate, in, err);
	if (rc != 0) {
		ps_inspection_free(in);
		return -1;
	}
	ps_diags_sort(&in->diags);
	*out = in;
	return 0;
}

int
ps_digest_path(const char *path, const ps_pack_options *options,
    ps_digest **out, ps_error *err)
{
	struct stat st;

	*out = NULL;
	if (stat(path, &st) != 0) {
		if (errno == ENOENT)
			return util_fail(err, "not_found", path,
			    "no such file or directory");
		return util_fail_errno(err, "io_error", path, "stat", errno);
	}
	if (S_ISDIR(st.st_mode))
		return ps_pack(path, -1, options, out, err);
	return pack_archive_read(path, NULL, options != NULL ? &options->limits :
	    NULL, out, err);
}
