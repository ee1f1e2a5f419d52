/* Internal header of pack/: what an archive's file name says.
 *
 * The one table of the names packsign reads and writes: the suffix picks
 * the container and the compression, for the reader, for `pack -o` and
 * `sign`'s default output, and for verification's hash-first rule.
 */
#ifndef PACK_ARCHIVENAME_H
#define PACK_ARCHIVENAME_H

#include "packsign.h"

typedef struct pack_archive_name {
	const char *suffix;          /* ".tar.gz" */
	ps_source_kind kind;         /* PS_SOURCE_TAR or PS_SOURCE_ZIP */
	ps_compression compression;  /* tars; PS_COMPRESS_NONE for zips */
} pack_archive_name;

/* What every refusal of an unknown name expects. */
#define PACK_ARCHIVE_NAMES ".tar, .tar.gz, .tgz, .tar.zst or .zip"

/* The entry whose suffix ends `path`; NULL for a name packsign does not
 * read. */
const pack_archive_name *pack_archive_name_of(const char *path);

/* The suffix packsign writes for `compression` (".tar", ".tar.gz",
 * ".tar.zst"); NULL for another value. */
const char *pack_archive_suffix(ps_compression compression);

/* 1 when the bytes of the archive `path` are not its tar stream: a
 * compressed tar or a zip (verification hashes those before parsing). */
int pack_archive_name_compressed(const char *path);

#endif
