/* Internal header of install/: extraction.
 *
 * An extraction driven by someone else's archive read, so that install
 * verifies and extracts in one pass (verify.c).
 */
#ifndef INSTALL_EXTRACT_H
#define INSTALL_EXTRACT_H

#include "packsign.h"
#include "pack/archive.h"

typedef struct install_extractor install_extractor;

/* Extraction of the archive `path` (for its size: the ratio limit) into
 * `dest_fd`, with ps_extract_archive()'s checks and limits; 0 / -1. */
int install_extractor_new(const char *path, int dest_fd,
    const ps_extract_limits *limits, install_extractor **out, ps_error *err);
/* Hands every file of 8 MiB or more to the kernel's writeback as it is
 * written (sync_file_range, without waiting): for a tree that will be
 * synced and kept. */
void install_extractor_writeback(install_extractor *e);
/* Polls `cancelled(ctx)` at every entry and every block of data it writes:
 * nonzero stops the extraction with install_cancelled. */
void install_extractor_cancel(install_extractor *e, int (*cancelled)(void *),
    void *ctx);
/* The visitor to hand to the archive reader. */
const pack_archive_visitor *install_extractor_visitor(install_extractor *e);
/* Closes what is still open once the read returned `rc`; a successful
 * read gets close(2)'s error.  Returns the outcome. */
int install_extractor_end(install_extractor *e, int rc, ps_error *err);
void install_extractor_free(install_extractor *e);

#endif
