/* Internal header of cli/: the key files keygen and key write, and what
 * is printed about them.
 */
#ifndef CLI_KEY_FILES_H
#define CLI_KEY_FILES_H

#include <stddef.h>

#include "packsign.h"

/* Refuses (unless `force`) when either file exists, before writing any. */
int cli_check_new_files(const char *first, const char *second, int force);
/* Atomic write, refusing to replace unless `force`; exit code. */
int cli_write_output(const char *path, const void *data, size_t len,
    unsigned mode, int force);
/* keygen, key import: the key id and the files written (`sec_path` NULL
 * for a public key alone), as text or (`json`) one JSON object with the
 * fingerprint and identity too; never any secret.  Exit code. */
int cli_print_key_files(const ps_pubkey *pub, const char *pub_path,
    const char *sec_path, int encrypted, int json);

#endif
