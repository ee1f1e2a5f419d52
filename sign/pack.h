/*
 * Packing in two steps: walk and check the directory, then write the
 * archive.  Callers that must look at the pack before writing it (sign
 * validates the manifest first) hold the packer in between.
 */
#ifndef PS_SIGN_PACK_H
#define PS_SIGN_PACK_H

#include "packsign.h"
#include "sign/tarwrite.h"

typedef struct ps_packer ps_packer;

/*
 * Walks `dir`, sorts and checks the entries, finds the manifest.  The file
 * open on `output_fd` (when >= 0) is left out, so an archive written
 * inside the pack never packs itself.
 */
int ps_packer_open(const char *dir, int output_fd, ps_packer **out,
    ps_error *err);
/* Writes the canonical archive once (see ps_pack). */
int ps_packer_write(ps_packer *p, int out_fd, const ps_pack_options *options,
    ps_digest **digest_out, ps_error *err);
void ps_packer_free(ps_packer *p);
/* The manifest's format, found by ps_packer_open. */
ps_format ps_packer_format(const ps_packer *p);
/* Every output byte of the next ps_packer_write goes through `tap` too. */
void ps_packer_set_tap(ps_packer *p, const ps_output_tap *tap);

#endif
