/* Internal header of pack/: the canonical re-encoding of a tar being read.
 *
 * A tar is canonical exactly when packsign's own writer, given the entries
 * libarchive read from it, produces its stream byte for byte
 * (docs/formats/canonical-tar.md).  The reader feeds this the stream's
 * bytes as they are read and each entry's header and data as they are
 * parsed, in stream order; it keeps the input the re-encoding has not yet
 * matched and compares.  It only ever learns that the two differ: nothing
 * here refuses a read.  Pass 2 of two feeds it on the reader's hasher
 * thread (pack/archive.c), which is why an entry arrives as a copied
 * pack_rebuild_entry and a path, never as libarchive's entry.
 */
#ifndef PACK_REBUILD_H
#define PACK_REBUILD_H

#include <stddef.h>
#include <stdint.h>

#include "pack/tarwrite.h"

/* The re-encoding lags the input by what libarchive has read but not yet
 * reported: one read or decoder block (256 KiB; a signed chunk, 1 MiB)
 * and one entry's headers (the hash-only writer keeps no block).  More
 * copied input than this means the two differ, e.g. data after the end
 * of the archive; lent input, one block at most, is the caller's. */
#define PACK_REBUILD_LAG_MAX (8 * 1024 * 1024)

typedef struct pack_rebuild {
	pack_tar_writer *writer;    /* hash only, made at the first entry */
	unsigned char *pending;     /* input not yet matched, copied */
	size_t pending_head, pending_len, pending_cap;
	const unsigned char *lent;  /* the caller's input after pending */
	size_t lent_head, lent_len;
	int differs;
} pack_rebuild;

typedef struct pack_rebuild_entry {
	uint64_t size;
	int64_t mtime;              /* the first entry's is every entry's */
	int is_dir;
	int executable;
} pack_rebuild_entry;

/* Bytes of the input stream, in order: copied. */
void pack_rebuild_input(pack_rebuild *rb, const void *buf, size_t len);
/* The same, but the caller keeps the bytes unchanged until it calls
 * pack_rebuild_keep(): they are compared where they are, and the
 * re-encoded data that libarchive hands back from the same place (a tar's
 * data is read without a copy) is those bytes without a comparison. */
void pack_rebuild_lend(pack_rebuild *rb, const void *buf, size_t len);
/* The lent bytes are about to change: copies those not yet matched. */
void pack_rebuild_keep(pack_rebuild *rb);
/* An entry's header, once the input holding it has been fed. */
void pack_rebuild_add_entry(pack_rebuild *rb, const pack_rebuild_entry *entry,
    const char *path);
/* The current file entry's data, as libarchive delivers it. */
void pack_rebuild_data(pack_rebuild *rb, const void *buf, size_t len);
/* The two differ, whatever follows (a header that could not be read). */
void pack_rebuild_abandon(pack_rebuild *rb);
/* Ends the re-encoding: 1 when it is the input exactly, else 0. */
int pack_rebuild_finish(pack_rebuild *rb);
/* Frees what it holds and compares nothing more: the lent bytes may be
 * gone already (a zeroed pack_rebuild is a new one). */
void pack_rebuild_free(pack_rebuild *rb);

#endif
