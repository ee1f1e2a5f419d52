/* Internal header of pack/: what an archive's file name says.
 *
 * The one table of the names packsign reads and writes: the suffix picks
 * the container and the compression, for the reader, for `pack -o` and
 * `sign`'s default output.
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

/* pack_archive_name_of(), or NULL after refusing the name as
 * unsupported_archive (`label` names it). */
const pack_archive_name *pack_archive_name_readable(const char *path,
    const char *label, ps_error *err);

/*
 * -1 after refusing `path` as archive_is_signature (exit 2) when its name
 * ends in .sig or .minisig and it is not a directory: a signature given
 * where its archive belongs (`verify r.tar.gz.sig`, as a shell glob gives
 * it), said at once instead of looking for r.tar.gz.sig.sig; else 0.
 */
int pack_archive_name_not_signature(const char *path, const char *label,
    ps_error *err);

#endif
