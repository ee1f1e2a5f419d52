/* Internal header of sign/: preparing a signing run.
 *
 * Before anything is signed: the pack is read once (a directory is
 * validated and packed into OUT's temporary file, an archive read with
 * every entry checked), its manifest validated and recorded, and its
 * provenance found.
 */
#ifndef SIGN_SIGNPREP_H
#define SIGN_SIGNPREP_H

#include "packsign.h"
#include "sign/signrun.h"

/* Directories: validate, check, provenance, write OUT's temporary file. */
int sign_prepare_dir(sign_run *run, ps_error *err);
/* Archives: read once (every entry checked), validate, check. */
int sign_prepare_archive(sign_run *run, ps_error *err);

#endif
