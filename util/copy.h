/* Internal header of util/: the private copies readers parse.
 *
 * One place decides where the private copy of an archive lives
 * (docs/security.md, section 5): in memory (a memfd) while the budget of
 * the ps_copies a command's readers share allows, else an unlinked file
 * in its directory (not on tmpfs), else nowhere.  The budget is taken
 * under a lock, so that verify --files-from's threads together stay
 * within it.  A file that can be read under a read lease (util/lease.h)
 * needs no copy at all.
 */
#ifndef UTIL_COPY_H
#define UTIL_COPY_H

#include <stdint.h>

#include "packsign.h"

typedef enum util_copy_kind {
	UTIL_COPY_NONE = 0,          /* no copy: fd is -1 */
	UTIL_COPY_MEMORY = 1,        /* a memfd within the budget */
	UTIL_COPY_FILE = 2           /* an unlinked file in the directory */
} util_copy_kind;

typedef struct util_copy {
	int fd;
	util_copy_kind kind;
	uint64_t capacity;           /* the bytes it was made for: a writer
	                              * stops there */
	uint64_t reserved;           /* of the shared budget, until closed */
	ps_copies *copies;           /* NULL: the call's own budget */
} util_copy;

/*
 * A copy for `size` bytes in `copies` (NULL: at most
 * PS_COPIES_DEFAULT_MEMORY in memory, no files): 0 with c->kind NONE when
 * neither memory nor a directory can take it, -1 when making it failed
 * (memfd_create, open: io_error, disk_full).  `label` names the archive.
 */
int util_copy_open(ps_copies *copies, uint64_t size, const char *label,
    util_copy *c, ps_error *err);
/* Closes the copy and gives its memory back to the budget; a NONE copy
 * is a no-op. */
void util_copy_close(util_copy *c);
/* copy_unavailable (exit 2) for a copy of `size` bytes that must be made
 * when util_copy_open() found no place for it; `why` says why it must
 * ("a zip is parsed from a private copy (its bytes are read with
 * seeks)"). */
int util_copy_refuse(const ps_copies *copies, uint64_t size,
    const char *label, const char *why, ps_error *err);

#endif
