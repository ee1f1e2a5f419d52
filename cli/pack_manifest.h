/* Internal header of cli/: a pack's manifest loaded for validate and
 * describe.
 */
#ifndef CLI_PACK_MANIFEST_H
#define CLI_PACK_MANIFEST_H

#include "packsign.h"

/* Opens the pack directory (or archive) PATH and loads its manifest;
 * diagnostics are sorted.  Returns EXIT_OK or the exit code of a reported
 * failure. */
int cli_load_pack(const char *path, ps_validate_options *options,
    ps_manifest **manifest, ps_diags *diags);

#endif
