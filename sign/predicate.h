/* Internal header of sign/: the predicate written for other tools.
 *
 * `sign --predicate-out FILE`: the statement's predicate (packsign's,
 * signature.md 4.1) as a JSON file another tool signs into its own
 * statement about the archive (signature.md 8.7).
 */
#ifndef SIGN_PREDICATE_H
#define SIGN_PREDICATE_H

#include <stddef.h>

#include "packsign.h"

/* The predicate of the statement `payload` (the bytes just signed) into
 * `path`, whole or not at all: sorted keys, two-space indentation, one
 * LF at the end. */
int sign_write_predicate(const char *path, const unsigned char *payload,
    size_t len, ps_error *err);

#endif
