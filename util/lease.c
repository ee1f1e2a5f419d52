/*
 * Read leases (util/lease.h; docs/security.md, section 5): taken only on
 * an allowlist of file systems, never signalling the host on a break.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "util/lease.h"

#ifndef F2FS_SUPER_MAGIC
#define F2FS_SUPER_MAGIC 0xF2F52010
#endif
#ifndef FUSE_SUPER_MAGIC
#define FUSE_SUPER_MAGIC 0x65735546
#endif
#ifndef CIFS_SUPER_MAGIC
#define CIFS_SUPER_MAGIC 0xFF534D42
#endif
#ifndef SMB2_SUPER_MAGIC
#define SMB2_SUPER_MAGIC 0xFE534D42
#endif
#ifndef V9FS_MAGIC
#define V9FS_MAGIC 0x01021997
#endif

static const struct fs_name {
	unsigned long type;
	const char *name;
	int allowed;
} fs_names[] = {
	{ EXT4_SUPER_MAGIC, "ext2/ext3/ext4", 1 },
	{ XFS_SUPER_MAGIC, "xfs", 1 },
	{ BTRFS_SUPER_MAGIC, "btrfs", 1 },
	{ TMPFS_MAGIC, "tmpfs", 1 },
	{ F2FS_SUPER_MAGIC, "f2fs", 1 },
	{ NFS_SUPER_MAGIC, "nfs", 0 },
	{ FUSE_SUPER_MAGIC, "fuse", 0 },
	{ CIFS_SUPER_MAGIC, "cifs", 0 },
	{ SMB2_SUPER_MAGIC, "smb2", 0 },
	{ V9FS_MAGIC, "9p", 0 },
	{ OVERLAYFS_SUPER_MAGIC, "overlay", 0 },
};

int
util_lease_fs_allowed(unsigned long fs_type, char name[UTIL_LEASE_FS_MAX])
{
	size_t i;

	for (i = 0; i < sizeof(fs_names) / sizeof(fs_names[0]); i++) {
		if (fs_names[i].type == fs_type) {
			snprintf(name, UTIL_LEASE_FS_MAX, "%s", fs_names[i].name);
			return fs_names[i].allowed;
		}
	}
	snprintf(name, UTIL_LEASE_FS_MAX, "0x%lx", fs_type);
	return 0;
}

/* A signal whose disposition is to be ignored (its default, or SIG_IGN):
 * one the kernel drops rather than delivers.  0: none. */
static int
quiet_signal(void)
{
	static const int candidates[] = { SIGURG, SIGWINCH };
	struct sigaction sa;
	size_t i;

	for (i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
		if (sigaction(candidates[i], NULL, &sa) == 0 &&
		    !(sa.sa_flags & SA_SIGINFO) &&
		    (sa.sa_handler == SIG_DFL || sa.sa_handler == SIG_IGN))
			return candidates[i];
	}
	return 0;
}

static int
declined(char *why, const char *what)
{
	snprintf(why, UTIL_LEASE_WHY_MAX, "%s", what);
	return 0;
}

static const char *
refusal(int e)
{
	switch (e) {
	case EAGAIN:
		return "a process has the file open for writing (EAGAIN)";
	case EACCES:
	case EPERM:
		return "not the file's owner, and no CAP_LEASE (EACCES)";
	case EINVAL:
		return "the file system or the kernel refuses leases (EINVAL)";
	default:
		return "the kernel refused the lease";
	}
}

/* The lease, its signal quietened and its owner cleared. */
static int
take(int fd, char *why)
{
	int sig = quiet_signal(), e;

	if (sig == 0)
		return declined(why, "SIGURG and SIGWINCH both have "
		    "handlers: a lease break's signal could reach the host");
	if (fcntl(fd, F_SETSIG, sig) != 0)
		return declined(why, "F_SETSIG failed");
	if (fcntl(fd, F_SETLEASE, F_RDLCK) != 0) {
		e = errno;
		(void)fcntl(fd, F_SETSIG, 0);
		return declined(why, refusal(e));
	}
	/* The kernel made this process the descriptor's owner: no one. */
	if (fcntl(fd, F_SETOWN, 0) != 0) {
		util_lease_drop(fd);
		return declined(why, "F_SETOWN 0 failed");
	}
	if (!util_lease_held(fd)) {
		util_lease_drop(fd);
		return declined(why, "the lease was broken as it was "
		    "taken");
	}
	why[0] = '\0';
	return 1;
}

int
util_lease_take_on(int fd, unsigned long fs_type, char *why)
{
	char name[UTIL_LEASE_FS_MAX];
	struct stat st;
	int flags, saved = errno, rc;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		rc = declined(why, "not a regular file");
	else if ((flags = fcntl(fd, F_GETFL)) < 0 ||
	    (flags & O_ACCMODE) != O_RDONLY)
		rc = declined(why, "not open read-only");
	else if (!util_lease_fs_allowed(fs_type, name)) {
		snprintf(why, UTIL_LEASE_WHY_MAX, "the file system is %s, whose "
		    "page cache may not be the truth", name);
		rc = 0;
	}
	else
		rc = take(fd, why);
	errno = saved;
	return rc;
}

int
util_lease_take(int fd, char *why)
{
	struct statfs fs;

	if (fstatfs(fd, &fs) != 0)
		return declined(why, "fstatfs failed");
	return util_lease_take_on(fd, (unsigned long)fs.f_type, why);
}

int
util_lease_held(int fd)
{
	int saved = errno, rc = fcntl(fd, F_GETLEASE);

	errno = saved;
	return rc == F_RDLCK;
}

void
util_lease_drop(int fd)
{
	int saved = errno;

	(void)fcntl(fd, F_SETLEASE, F_UNLCK);
	(void)fcntl(fd, F_SETSIG, 0);
	errno = saved;
}
