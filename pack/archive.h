/* Internal header of pack/: reading archives.
 *
 * Reading an archive once: every entry is checked and hashed (the digests
 * of digests.md) and, for callers that need the bytes, handed to a visitor
 * as it streams by.
 */
#ifndef PACK_ARCHIVE_H
#define PACK_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "packsign.h"

typedef struct pack_archive_visitor {
	void *ctx;
	/* A regular file starts: its canonical path, declared size and
	 * executable bit (sha256 not yet set). */
	int (*file)(void *ctx, const ps_entry *entry, ps_error *err);
	/* The next bytes of that file. */
	int (*data)(void *ctx, const void *buf, size_t len, ps_error *err);
	/* Optional: a directory entry (its canonical path). */
	int (*dir)(void *ctx, const char *path, ps_error *err);
	/* Optional: 0 when a file's content need not be hashed (its bytes are
	 * covered otherwise, e.g. by a signed archive digest); the digest is
	 * then `partial`.  NULL hashes every file. */
	int (*want_hash)(void *ctx, const char *path);
	/* Optional: bytes of the archive file read, entries seen. */
	const ps_progress_sink *progress;
} pack_archive_visitor;

/* How pack_files_archive_open_with() reads, beyond
 * ps_pack_files_archive_open(); a zeroed struct is that function. */
/* The signed chunk digests of an archive (signature.md, section 4.4):
 * `count` digests of the 1 MiB chunks of `size` bytes (not owned). */
typedef struct pack_chunk_list {
	const unsigned char (*digests)[PS_SHA256_LEN];
	size_t count;
	uint64_t size;
} pack_chunk_list;

typedef struct pack_archive_open_options {
	/* Also handed every entry as it streams by (e.g. an extraction,
	 * which sees each one before the view does); NULL: none. */
	const pack_archive_visitor *also;
	/* Where `read` and `head` of a file not kept in memory go (e.g. the
	 * extracted tree); owned by the view from then on, even on failure.
	 * close NULL: none. */
	ps_pack_files fallback;
	/* Bytes of the archive file read, entries seen; NULL: none. */
	const ps_progress_sink *progress;
	/* Hashes only the files it names (1); NULL hashes all. */
	int (*want_hash)(void *ctx, const char *path);
	void *want_ctx;
	/* The reading limits; NULL: the defaults. */
	const ps_extract_limits *limits;
	/* 1: read the file open on `fd` (not closed, read from its start), the
	 * path naming its kind and the errors; 0: open the path. */
	int has_fd;
	int fd;
	int fd_private;             /* as pack_archive_read_fd() */
	/* The archive's SHA-256, when the caller hashed the private copy it
	 * reads (fd_private 1): its bytes are then not hashed again; NULL:
	 * they are. */
	const unsigned char *known_digest;
	/* A tar's chunk digests (a v2 statement's; NULL: none): each 1 MiB
	 * chunk of the file is read whole and its SHA-256 compared before
	 * the decoder sees a byte of it (subject_mismatch otherwise). */
	const pack_chunk_list *chunks;
} pack_archive_open_options;

int pack_files_archive_open_with(const char *path,
    const pack_archive_open_options *options, ps_pack_files *files,
    ps_digest **digest_out, ps_error *err);

/* The same for the archive open on `fd` (not closed; read from its start
 * through a descriptor of its own), whose kind and compression `name`'s
 * suffix gives; `label` names it in errors.  `fd_private`: no other
 * process can write the file (a zip is then read in place, not from a
 * copy in memory).  `known_digest` (only with fd_private): the file's
 * SHA-256 as its maker hashed it; the bytes are not hashed again. */
/* What `fd_private` says of the file: anyone may write it (0), no one
 * else can (1: a private copy), or it holds a read lease (2, a tar only:
 * util/lease.h; after every read the lease must still be held, else the
 * read is refused with subject_changed; a zip is read from a copy). */
#define PACK_FD_SHARED 0
#define PACK_FD_PRIVATE 1
#define PACK_FD_LEASED 2

int pack_archive_read_fd(int fd, int fd_private,
    const unsigned char *known_digest, const char *name, const char *label,
    const pack_archive_visitor *visitor, const ps_extract_limits *limits,
    ps_digest **out, ps_error *err);
/* The same, a tar's chunks authenticated as they are read (`chunks` NULL:
 * pack_archive_read_fd; a zip ignores them). */
int pack_archive_read_fd_chunked(int fd, int fd_private,
    const unsigned char *known_digest, const pack_chunk_list *chunks,
    const char *name, const char *label, const pack_archive_visitor *visitor,
    const ps_extract_limits *limits, ps_digest **out, ps_error *err);

/* Digests of the archive at `path`, with `visitor` (may be NULL), under
 * `limits` (NULL: the defaults; pack/limits.h). */
int pack_archive_read(const char *path, const pack_archive_visitor *visitor,
    const ps_extract_limits *limits, ps_digest **out, ps_error *err);

#endif
