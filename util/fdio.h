/* Internal header of util/: file descriptor I/O.
 *
 * Whole reads and writes on file descriptors, retrying on EINTR.
 */
#ifndef UTIL_FDIO_H
#define UTIL_FDIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "packsign.h"

/* Writes all of `buf`; ENOSPC is reported as disk_full. */
int util_write_all(int fd, const void *buf, size_t len, const char *label,
    ps_error *err);

/* Opens the regular file `path` to read (never a terminal, never blocking
 * on a FIFO): an fd, or -1 with not_found, not_a_file or io_error. */
int util_open_file(const char *path, ps_error *err);

/* Reads up to `len` bytes, fewer only at end of file; -1 on error. */
ssize_t util_read_full(int fd, void *buf, size_t len);

/* Reads what should be the last `len` bytes of a regular file into `buf`
 * (room for len + 1): returns the bytes read, len + 1 when the file goes
 * on, fewer than len when it ended early; -1 on error. */
ssize_t util_read_last(int fd, void *buf, size_t len);

/*
 * Opens `relpath` below the directory `rootfd` without following any
 * symbolic link and without leaving the directory (openat2 with
 * RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH, or a component-by-component walk
 * with O_NOFOLLOW where openat2 is missing).  Returns an fd or -1 (errno).
 */
int util_open_beneath(int rootfd, const char *relpath, int flags);

/*
 * Opens the directory `reldir` ("a/b/c", no "." or ".." components) below
 * `rootfd`, creating each missing component with `mode`, never following
 * a symbolic link.  Adds the number of directories created to *created
 * (may be NULL).  Returns an fd, or -1 with errno (ENOTDIR or ELOOP when a
 * component exists and is not a directory).  "" opens `rootfd` again.
 */
int util_mkdir_beneath(int rootfd, const char *reldir, unsigned mode,
    uint64_t *created);

/*
 * Opens the directory holding `relpath` below `rootfd` as util_open_beneath()
 * would (no symbolic link anywhere on the way) and points *leaf at the
 * last component.  Returns an fd, or -1 with errno.
 */
int util_open_parent_beneath(int rootfd, const char *relpath,
    const char **leaf);

/*
 * util_open_parent_beneath() for paths visited in sorted order: the last
 * parent stays open and is reused while paths share it (a directory's
 * files sort together), so each file costs one openat of one component
 * instead of a walk from the root (issue 8).  The descriptor returned is
 * borrowed from the cache (`rootfd` itself for a top-level name); -1 with
 * errno.  Clear with util_parent_cache_clear().
 */
typedef struct util_parent_cache {
	char *dir;                  /* relative path of fd; NULL: none */
	int fd;
} util_parent_cache;

int util_open_parent_cached(util_parent_cache *cache, int rootfd,
    const char *relpath, const char **leaf);
void util_parent_cache_clear(util_parent_cache *cache);

/*
 * Descriptors closed a batch at a time (issue 8): packing 100,000 small
 * files spent 7 % of its samples in close(2) calls, each a full system
 * call on a VM.  Each run of consecutive numbers in a batch is closed by
 * one close_range(2): every number in such a run is one of ours and still
 * open, so no descriptor of another thread can be in it.  (The directory
 * being read sits among the files' numbers, hence runs, not one range.)
 * Initialise with { .count = 0 }.
 */
#define UTIL_CLOSE_BATCH 32

typedef struct util_close_batch {
	int fds[UTIL_CLOSE_BATCH];
	size_t count;
} util_close_batch;

/* Adds `fd`, closing the whole batch once it is full. */
void util_close_later(util_close_batch *batch, int fd);
/* Closes what the batch holds now. */
void util_close_batch_flush(util_close_batch *batch);

/* unlinkat(2) of `relpath` below `rootfd` through its parent opened as
 * above; `flags` 0 or AT_REMOVEDIR.  0 / -1 with errno. */
int util_unlink_beneath(int rootfd, const char *relpath, int flags);

/*
 * Removes `name` below `dirfd` and, when it is a directory, everything in
 * it, never following a symbolic link (links are removed, not their
 * targets).  A directory that cannot be read or written is made so
 * (its owner's bits) first.  A missing `name` is success.  0 / -1 with
 * errno.
 */
int util_remove_tree_at(int dirfd, const char *name);
#endif
