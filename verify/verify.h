/* Internal header of verify/: verification for install.
 *
 * What install/ asks of verification beyond ps_verify(): the validated
 * manifest and the signed statement back, and the archive's entries in the
 * verifying pass (verify_stream, in verify/vctx.h).  The public interface is the "verification" section of
 * include/packsign.h.
 */
#ifndef VERIFY_VERIFY_H
#define VERIFY_VERIFY_H

#include "packsign.h"
#include "pack/archive.h"
#include "sign/statement.h"
#include "verify/vctx.h"

/* ps_verify() that hands over, on success, the validated manifest and
 * the signed statement (each may be NULL when not wanted); `stream` (may
 * be NULL) sees the archive's entries in the same pass. */
int verify_keep(const char *path, const ps_verify_options *options,
    verify_stream *stream, ps_verify_result **out,
    ps_manifest **manifest, sign_statement **st, ps_error *err);

#endif
