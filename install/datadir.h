/* Internal header of install/: the data directory.
 *
 * The data directory of installed packs (docs/formats/install.md): its
 * layout, its lock, and its private work area DIR/.tmp, whose leftovers
 * from killed runs the next locked run removes.
 */
#ifndef INSTALL_DATADIR_H
#define INSTALL_DATADIR_H

#include "packsign.h"

#define INSTALL_DATADIR_LOCK ".lock"
#define INSTALL_DATADIR_TMP ".tmp"
#define INSTALL_DATADIR_RECEIPTS "receipts"

typedef struct install_datadir {
	char *path;
	int fd;         /* the data directory */
	int lock_fd;    /* DIR/.lock, flock()ed; -1 before locking */
	int tmp_fd;     /* DIR/.tmp; -1 until opened by install_datadir_clean() */
} install_datadir;

/*
 * Opens `path` (created with its parents when `create` and missing).
 * Fails with data_dir_invalid when it is not a directory, not_found when
 * it is missing and not `create`.
 */
int install_datadir_open(const char *path, int create, install_datadir *dd,
    ps_error *err);
void install_datadir_close(install_datadir *dd);

/* Takes DIR/.lock exclusively, calling `waiting` once if it must wait. */
int install_datadir_lock(install_datadir *dd, void (*waiting)(void *, const char *),
    void *ctx, ps_error *err);

/* Under the lock: empties DIR/.tmp and removes receipts without a tree. */
int install_datadir_clean(install_datadir *dd, ps_error *err);

/* A new private directory DIR/.tmp/<prefix>.<random> (mode 0700); its
 * name (relative to DIR/.tmp) in *name, caller frees; fd in *fd. */
int install_datadir_workdir(install_datadir *dd, const char *prefix, char **name,
    int *fd, ps_error *err);

/* "agentpacks", "soyapacks", "holons", "augr"; NULL for unknown. */
const char *install_layout_dir(ps_format format);
/* The format whose layout directory is `name`; PS_FORMAT_UNKNOWN. */
ps_format install_layout_format(const char *name);
/* Components of a format's ids (its descriptor's id_depth): 2 for
 * SoyaPack owner/name and holon handle/name, else 1. */
int install_layout_id_depth(ps_format format);
/*
 * "<layout dir>/<id>/<version>" after checking every component: the name
 * rules, no leading '.', the id's '/' only where the format has one
 * (soyapack owner/name, holon handle/name).  install_name_invalid.
 */
int install_layout_path(ps_format format, const char *id, const char *version,
    char **out, ps_error *err);

#endif
