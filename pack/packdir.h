/* Internal header of pack/: reading a pack directory.
 *
 * ps_pack_files_dir_open (packsign.h) walks the directory itself; a
 * command that has walked it already (pack, sign, digest, verify of a
 * directory) reads through the same walk instead, so that each command
 * walks once.
 */
#ifndef PACK_PACKDIR_H
#define PACK_PACKDIR_H

#include "packsign.h"
#include "pack/items.h"

/*
 * A ps_pack_files over the sorted, checked `items` a walk of `rootfd`
 * found.  Both are borrowed: they must outlive `files`, which the caller
 * closes with ps_pack_files_close().
 */
int pack_files_of_walk(int rootfd, const pack_items *items,
    ps_pack_files *files, ps_error *err);

/*
 * A ps_pack_files of a tree that is still being written (install's
 * extraction, whose reader reads files back from it once the archive is
 * read): walked on first use of stat or list, without ignore rules, since
 * an archive's files are all of the pack; read and head open the file
 * beneath the root without a walk (no link followed, a regular file).
 */
int pack_files_tree_open(const char *dir, ps_pack_files *files,
    ps_error *err);

#endif
