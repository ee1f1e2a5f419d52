/* Atomic output files: declared in packsign.h (public). */
#ifndef PS_UTIL_ATOMIC_H
#define PS_UTIL_ATOMIC_H

#include "packsign.h"

/*
 * For a caller that commits several files of one directory together
 * (sign: archive, .minisig, .sig): ps_atomic_commit without the fsync of
 * the directory, so that the renames follow each other at once; the
 * caller then syncs the directory once with ps_atomic_sync_parent().
 */
int ps_atomic_commit_unsynced(ps_atomic_file *file, ps_error *err);
/* fsync(2) of the directory holding `path`; 0 / -1. */
int ps_atomic_sync_parent(const char *path);

#endif
