/* Internal header of util/: read leases (docs/security.md, section 5).
 *
 * A read lease (fcntl F_SETLEASE F_RDLCK) on a read-only descriptor is
 * the kernel's promise that no one has the file open for writing: a
 * later open for writing or a truncate breaks it, and the writer waits
 * (up to /proc/sys/fs/lease-break-time) until the holder lets go.  Bytes
 * read under a lease count only if F_GETLEASE still says F_RDLCK after
 * the read: a break reports F_UNLCK from its start.  Leases are taken
 * only where the page cache is the truth (an fstatfs allowlist), and so
 * that a break never signals the host: the descriptor's signal is set to
 * one whose disposition is the default "ignore" (SIGURG, else SIGWINCH;
 * neither when both have handlers: no lease) before the lease is taken,
 * and its owner is cleared right after, so that the kernel signals no
 * one (tests/unit/test_lease.c breaks a lease with SIGIO at its default
 * action, which would end the process).
 */
#ifndef UTIL_LEASE_H
#define UTIL_LEASE_H

#include <stddef.h>

/* Room for a reason a lease was not taken. */
#define UTIL_LEASE_WHY_MAX 160

/* Room for a file system's name. */
#define UTIL_LEASE_FS_MAX 24

/* 1: `fs_type` (statfs f_type) keeps a file's bytes in its page cache
 * and honours leases (ext2/3/4, xfs, btrfs, tmpfs, f2fs); `name` names
 * it either way ("nfs", "fuse", or "0x..."). */
int util_lease_fs_allowed(unsigned long fs_type, char name[UTIL_LEASE_FS_MAX]);

/* Takes a read lease on the regular file open read-only on `fd`: 1 when
 * granted and still held, 0 when not, `why` (UTIL_LEASE_WHY_MAX) saying
 * why: not a regular file, not read-only, the file system, another
 * process has it open for writing, not the owner without CAP_LEASE, the
 * signals.  Never fails otherwise; errno is kept. */
int util_lease_take(int fd, char *why);
/* The same with the file system type given (the unit tests' stand-in
 * for fstatfs). */
int util_lease_take_on(int fd, unsigned long fs_type, char *why);
/* 1 while the lease on `fd` (or a descriptor sharing its open file) is
 * held: no break pending or done. */
int util_lease_held(int fd);
/* Lets go of the lease (a waiting writer goes on); closing the last
 * descriptor of the open file does the same. */
void util_lease_drop(int fd);

#endif
