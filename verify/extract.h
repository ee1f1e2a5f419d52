/*
 * verify/ internals: an extraction driven by someone else's archive read,
 * so that install verifies and extracts in one pass (verify.c).
 */
#ifndef PS_VERIFY_EXTRACT_H
#define PS_VERIFY_EXTRACT_H

#include "packsign.h"
#include "sign/archive.h"

typedef struct ps_extractor ps_extractor;

/* Extraction of the archive `path` (for its size: the ratio limit) into
 * `dest_fd`, with ps_extract_archive()'s checks and limits; 0 / -1. */
int ps_extractor_new(const char *path, int dest_fd,
    const ps_extract_limits *limits, ps_extractor **out, ps_error *err);
/* The visitor to hand to the archive reader. */
const ps_archive_visitor *ps_extractor_visitor(ps_extractor *e);
/* Closes what is still open once the read returned `rc`; a successful
 * read gets close(2)'s error.  Returns the outcome. */
int ps_extractor_end(ps_extractor *e, int rc, ps_error *err);
void ps_extractor_free(ps_extractor *e);

#endif
