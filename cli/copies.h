/* Internal header of cli/: where a command's readers keep the private
 * copies of the archives they parse (docs/security.md, section 5).
 */
#ifndef CLI_COPIES_H
#define CLI_COPIES_H

#include "packsign.h"

/*
 * *out for limits.copies: at most PS_COPIES_DEFAULT_MEMORY of copies in
 * memory over all the command's threads, a larger copy an unlinked file
 * in the first of the data directory (`data_dir_option`, else the
 * default; only when it exists), $TMPDIR (absolute), /var/tmp and /tmp
 * that is a directory not on tmpfs; none of them: memory only.  Exit
 * code; the caller frees *out with ps_copies_free().
 */
int cli_copies_open(const char *data_dir_option, ps_copies **out);

#endif
