/*
 * Extraction: byte 0 picks the name (.tar, .tar.gz, .tar.zst, .zip), the
 * rest is written to a temporary file and extracted with
 * ps_extract_archive() into a fresh directory DEST inside a fresh parent
 * directory, both removed after each run.  Invariants: nothing appears
 * in the parent beside DEST; DEST holds only regular files (no set-id
 * bits) and directories; when extraction succeeds, what it reports equals
 * what is on disk and what ps_digest_path() says of the archive; when it
 * refuses (beyond its size limits), ps_digest_path() refuses too.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

/* Tight limits: a bomb is refused quickly instead of filling /tmp. */
#define FUZZ_MAX_SIZE (8ULL * 1024 * 1024)
#define FUZZ_MAX_ENTRIES 4096ULL
#define FUZZ_RATIO_FLOOR (1024ULL * 1024)

static uint64_t walk_files, walk_bytes;

static int
check_entry(const char *path, const struct stat *st, int flag,
    struct FTW *ftw)
{
	(void)ftw;
	if (flag == FTW_SL || flag == FTW_SLN ||
	    (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode)))
		fuzz_fail("extract", "a link or special file was created");
	if ((st->st_mode & (S_ISUID | S_ISGID)) != 0)
		fuzz_fail("extract", "a set-id bit was set");
	if (S_ISREG(st->st_mode)) {
		walk_files++;
		walk_bytes += (uint64_t)st->st_size;
	}
	(void)path;
	return 0;
}

/* The parent holds exactly "dest". */
static void
check_parent(const char *parent)
{
	struct dirent *de;
	DIR *d = opendir(parent);

	if (d == NULL)
		fuzz_fail("opendir", parent);
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0 &&
		    strcmp(de->d_name, "dest") != 0)
			fuzz_fail("extract", "an entry escaped the destination");
	closedir(d);
}

static void
check_extracted(const char *archive, const char *dest, const ps_digest *x)
{
	ps_pack_options po;
	ps_digest *d = NULL;
	ps_error err;
	size_t i, files = 0;

	for (i = 0; i < x->entry_count; i++)
		files += x->entries[i].type == PS_ENTRY_FILE;
	if (walk_files != files || walk_bytes != x->total_size)
		fuzz_fail("extract", "disk and reported digest disagree");
	ps_pack_options_init(&po);
	ps_error_clear(&err);
	if (ps_digest_path(archive, &po, &d, &err) != 0)
		fuzz_fail("ps_digest_path of an extracted archive", err.code);
	if (d->entry_count != x->entry_count ||
	    memcmp(d->tree_digest, x->tree_digest, PS_SHA256_LEN) != 0 ||
	    memcmp(d->archive_digest, x->archive_digest, PS_SHA256_LEN) != 0)
		fuzz_fail("extract", "digest differs from ps_digest_path");
	ps_digest_free(d);
	(void)dest;
}

/* A refusal other than a limit: the archive reader refuses it too, or
 * verify would pass an archive that install cannot extract. */
static void
check_refused(const char *archive, const ps_error *xerr)
{
	static const char *const limits[] = { "extract_too_large",
	    "extract_too_many_entries", "extract_ratio_exceeded", NULL };
	ps_pack_options po;
	ps_digest *d = NULL;
	ps_error err;
	size_t i;

	for (i = 0; limits[i] != NULL; i++)
		if (strcmp(xerr->code, limits[i]) == 0)
			return;
	ps_pack_options_init(&po);
	ps_error_clear(&err);
	if (ps_digest_path(archive, &po, &d, &err) == 0)
		fuzz_fail("extract refused what ps_digest_path accepts",
		    xerr->code);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ps_extract_limits limits;
	ps_digest *x = NULL;
	ps_error err;
	char archive[128], parent[128], dest[160];
	int fd = -1, rc;

	if (size < 1)
		return 0;
	snprintf(archive, sizeof(archive), "%s/in%s", fuzz_tmpdir(),
	    fuzz_archive_suffix(data[0]));
	fuzz_write_file(archive, data + 1, size - 1);
	snprintf(parent, sizeof(parent), "%s/x.XXXXXX", fuzz_tmpdir());
	if (mkdtemp(parent) == NULL)
		fuzz_fail("mkdtemp", parent);
	snprintf(dest, sizeof(dest), "%s/dest", parent);
	if (mkdir(dest, 0700) != 0 ||
	    (fd = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		fuzz_fail("mkdir", dest);
	ps_extract_limits_init(&limits);
	limits.max_total_size = FUZZ_MAX_SIZE;
	limits.max_entries = FUZZ_MAX_ENTRIES;
	limits.ratio_floor = FUZZ_RATIO_FLOOR;
	ps_error_clear(&err);
	rc = ps_extract_archive(archive, fd, &limits, &x, &err);
	close(fd);
	check_parent(parent);
	walk_files = walk_bytes = 0;
	if (nftw(dest, check_entry, 16, FTW_PHYS) != 0)
		fuzz_fail("nftw", dest);
	if (rc != 0) {
		fuzz_check_error(&err, "ps_extract_archive");
		if (x != NULL)
			fuzz_fail("ps_extract_archive", "digest set on failure");
		check_refused(archive, &err);
	} else {
		fuzz_note("ps_extract_archive", "ok");
		check_extracted(archive, dest, x);
		ps_digest_free(x);
	}
	fuzz_rm_tree(parent);
	remove(archive);
	return 0;
}
