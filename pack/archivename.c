#include <stddef.h>
#include <string.h>
#include <sys/stat.h>

#include "pack/archivename.h"
#include "util/error.h"
#include "util/strings.h"

/* The first entry of each compression is the suffix packsign writes. */
static const pack_archive_name names[] = {
	{ ".tar", PS_SOURCE_TAR, PS_COMPRESS_NONE },
	{ ".tar.gz", PS_SOURCE_TAR, PS_COMPRESS_GZIP },
	{ ".tgz", PS_SOURCE_TAR, PS_COMPRESS_GZIP },
	{ ".tar.zst", PS_SOURCE_TAR, PS_COMPRESS_ZSTD },
	{ ".zip", PS_SOURCE_ZIP, PS_COMPRESS_NONE },
};

#define NAME_COUNT (sizeof(names) / sizeof(names[0]))

const pack_archive_name *
pack_archive_name_of(const char *path)
{
	size_t i;

	for (i = 0; i < NAME_COUNT; i++) {
		if (util_ends_with(path, names[i].suffix))
			return &names[i];
	}
	return NULL;
}

const char *
pack_archive_suffix(ps_compression compression)
{
	size_t i;

	for (i = 0; i < NAME_COUNT; i++) {
		if (names[i].kind == PS_SOURCE_TAR &&
		    names[i].compression == compression)
			return names[i].suffix;
	}
	return NULL;
}

const pack_archive_name *
pack_archive_name_readable(const char *path, const char *label, ps_error *err)
{
	const pack_archive_name *n = pack_archive_name_of(path);

	if (n != NULL)
		return n;
	util_refuse(err, "unsupported_archive", label,
	    "is neither a pack directory nor a supported archive");
	util_error_expect(err, PACK_ARCHIVE_NAMES, "another name");
	return NULL;
}

int
pack_archive_name_not_signature(const char *path, const char *label,
    ps_error *err)
{
	static const char *const suffixes[] = { ".sig", ".minisig" };
	size_t i, n = strlen(path), m;
	struct stat st;

	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		m = strlen(suffixes[i]);
		if (n <= m || strcmp(path + n - m, suffixes[i]) != 0 ||
		    (stat(path, &st) == 0 && S_ISDIR(st.st_mode)))
			continue;
		util_fail(err, "archive_is_signature", label, "is a signature "
		    "file, not an archive: give the archive, not its %s (%.*s; "
		    "its .sig is read beside it)", suffixes[i], (int)(n - m),
		    path);
		return util_error_expect(err, "an archive (" PACK_ARCHIVE_NAMES
		    ") or a pack directory", "a signature file");
	}
	return 0;
}

int
ps_compression_from_name(const char *name, ps_compression *out)
{
	const pack_archive_name *n = pack_archive_name_of(name);

	if (n == NULL || n->kind != PS_SOURCE_TAR)
		return -1;
	*out = n->compression;
	return 0;
}

size_t
pack_entry_name_strip(const char *raw, size_t len, int is_dir, size_t *skip,
    int *root)
{
	*skip = 0;
	*root = 0;
	while (len >= 2 && raw[*skip] == '.' && raw[*skip + 1] == '/') {
		*skip += 2;
		len -= 2;
	}
	if (is_dir && ((len == 0 && *skip > 0) ||
	    (len == 1 && raw[*skip] == '.'))) {
		*root = 1;
		return 0;
	}
	if (is_dir && len > 1 && raw[*skip + len - 1] == '/')
		len--;
	return len;
}
