/*
 * Atomic output files: data goes to a temporary file beside the target,
 * which is renamed over it only once complete, so readers see either the
 * old file or the whole new one, and a failure leaves nothing behind.
 */
#ifndef PS_UTIL_ATOMIC_H
#define PS_UTIL_ATOMIC_H

#include <sys/types.h>

#include "packsign.h"

typedef struct ps_atomic_file ps_atomic_file;

/* Refuse to replace an existing target (checked again at commit). */
#define PS_ATOMIC_NO_REPLACE 0x1

int ps_atomic_open(const char *path, mode_t mode, int flags,
    ps_atomic_file **out, ps_error *err);
int ps_atomic_fd(const ps_atomic_file *file);
/* The temporary file's path, for callers that clean up on signals. */
const char *ps_atomic_temp_path(const ps_atomic_file *file);
/* Flushes, renames into place and frees `file`, whatever the outcome. */
int ps_atomic_commit(ps_atomic_file *file, ps_error *err);
/* Removes the temporary file and frees `file`. */
void ps_atomic_abort(ps_atomic_file *file);

#endif
