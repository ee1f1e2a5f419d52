/* Internal header of util/: atomic output files.
 *
 * The public half is in packsign.h; this is what util/ adds for callers
 * inside the library.
 */
#ifndef UTIL_ATOMIC_H
#define UTIL_ATOMIC_H

#include "packsign.h"

/*
 * For a caller that commits several files of one directory together
 * (sign: archive, .minisig, .sig): ps_atomic_commit without the fsync of
 * the directory, so that the renames follow each other at once; the
 * caller then syncs the directory once with util_atomic_sync_parent().
 */
int util_atomic_commit_unsynced(ps_atomic_file *file, ps_error *err);
/* fsync(2) of the directory holding `path`; 0 / -1. */
int util_atomic_sync_parent(const char *path);

#endif
