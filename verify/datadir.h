/*
 * The data directory of installed packs (docs/formats/install.md): its
 * layout, its lock, and its private work area DIR/.tmp, whose leftovers
 * from killed runs the next locked run removes.
 */
#ifndef PS_VERIFY_DATADIR_H
#define PS_VERIFY_DATADIR_H

#include "packsign.h"

#define PS_DATADIR_LOCK ".lock"
#define PS_DATADIR_TMP ".tmp"
#define PS_DATADIR_RECEIPTS "receipts"

typedef struct ps_datadir {
	char *path;
	int fd;         /* the data directory */
	int lock_fd;    /* DIR/.lock, flock()ed; -1 before locking */
	int tmp_fd;     /* DIR/.tmp; -1 until opened by ps_datadir_clean() */
} ps_datadir;

/*
 * Opens `path` (created with its parents when `create` and missing).
 * Fails with data_dir_invalid when it is not a directory, not_found when
 * it is missing and not `create`.
 */
int ps_datadir_open(const char *path, int create, ps_datadir *dd,
    ps_error *err);
void ps_datadir_close(ps_datadir *dd);

/* Takes DIR/.lock exclusively, calling `waiting` once if it must wait. */
int ps_datadir_lock(ps_datadir *dd, void (*waiting)(void *, const char *),
    void *ctx, ps_error *err);

/* Under the lock: empties DIR/.tmp and removes receipts without a tree. */
int ps_datadir_clean(ps_datadir *dd, ps_error *err);

/* A new private directory DIR/.tmp/<prefix>.<random> (mode 0700); its
 * name (relative to DIR/.tmp) in *name, caller frees; fd in *fd. */
int ps_datadir_workdir(ps_datadir *dd, const char *prefix, char **name,
    int *fd, ps_error *err);

/* "agentpacks", "soyapacks", "holons", "augr"; NULL for unknown. */
const char *ps_layout_dir(ps_format format);
/* The format whose layout directory is `name`; PS_FORMAT_UNKNOWN. */
ps_format ps_layout_format(const char *name);
/*
 * "<layout dir>/<id>/<version>" after checking every component: the name
 * rules, no leading '.', the id's '/' only where the format has one
 * (soyapack owner/name, holon handle/name).  install_name_invalid.
 */
int ps_layout_path(ps_format format, const char *id, const char *version,
    char **out, ps_error *err);

#endif
