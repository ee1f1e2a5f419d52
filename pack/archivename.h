/* Internal header of pack/: what an archive's names say.
 *
 * The one table of the names packsign reads and writes: the suffix picks
 * the container and the compression, for the reader, for `pack -o` and
 * `sign`'s default output.  And the one rule turning an entry's stored
 * name into a pack path, for tars and zips alike (digests.md, "Names").
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
 * The pack path in the `len` bytes of an entry's stored name `raw`: every
 * leading "./" removed ("././a" is "a"), then a directory's one trailing
 * '/'.  Returns the length left after *skip leading bytes.  *root is 1
 * for the pack root itself, which is not an entry: a directory named "./"
 * (any number of them) or "." once the "./" are removed.  An empty name
 * and "/" (".//" too) are left as they are, for the name rules to refuse
 * (name_empty_component, name_absolute): GNU tar would apply such an
 * entry to the directory it extracts into, bsdtar refuses it.
 */
size_t pack_entry_name_strip(const char *raw, size_t len, int is_dir,
    size_t *skip, int *root);

/*
 * -1 after refusing `path` as archive_is_signature (exit 2) when its name
 * ends in .sig or .minisig and it is not a directory: a signature given
 * where its archive belongs (`verify r.tar.gz.sig`, as a shell glob gives
 * it), said at once instead of looking for r.tar.gz.sig.sig; else 0.
 */
int pack_archive_name_not_signature(const char *path, const char *label,
    ps_error *err);

#endif
