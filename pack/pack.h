/* Internal header of pack/: packing a directory.
 *
 * Packing in two steps: walk and check the directory, then write the
 * archive.  Callers that must look at the pack before writing it (sign
 * validates the manifest first) hold the packer in between.
 */
#ifndef PACK_PACK_H
#define PACK_PACK_H

#include "packsign.h"
#include "pack/tarwrite.h"

typedef struct pack_packer pack_packer;

/*
 * Walks `dir`, sorts and checks the entries, finds the manifest (a pack
 * without its one manifest is refused by pack_packer_write, so that a
 * reader of the walk can report it first).  The file open on `output_fd`
 * (when >= 0) is left out, so an archive written inside the pack never
 * packs itself.
 */
int pack_packer_open(const char *dir, int output_fd, pack_packer **out,
    ps_error *err);
/* As pack_packer_open, for a caller that validates the pack through its
 * walk before writing it (sign): a link, device, FIFO or socket is kept
 * as a special entry, which validation reports where it is named
 * (path_special), and pack_packer_write refuses. */
int pack_packer_open_reading(const char *dir, pack_packer **out,
    ps_error *err);
/* Writes the canonical archive once (see ps_pack). */
int pack_packer_write(pack_packer *p, int out_fd, const ps_pack_options *options,
    ps_digest **digest_out, ps_error *err);
void pack_packer_free(pack_packer *p);
/* The manifest's format, found by pack_packer_open; PS_FORMAT_UNKNOWN
 * when there is none or more than one. */
ps_format pack_packer_format(const pack_packer *p);
/*
 * The pack's files as the walk found them, for validation: the one walk of
 * the command.  `files` borrows from `p`: close it before
 * pack_packer_free(); pack_packer_write() then leaves the walk in place.
 */
int pack_packer_files(pack_packer *p, ps_pack_files *files, ps_error *err);
/* Every output byte of the next pack_packer_write goes through `tap` too. */
void pack_packer_set_tap(pack_packer *p, const pack_output_tap *tap);

#endif
