/* Internal header of verify/: verification for install.
 *
 * What install/ asks of verification beyond ps_verify(): the validated
 * manifest and the signed statement back, and the archive's entries in the
 * verifying pass.  The public interface is the "verification" section of
 * include/packsign.h.
 */
#ifndef VERIFY_VERIFY_H
#define VERIFY_VERIFY_H

#include "packsign.h"
#include "pack/archive.h"
#include "sign/statement.h"

/*
 * A caller that reads the archive's entries in the verifying pass: install
 * extracts them into its private work directory as the reader checks and
 * hashes them, so the bytes whose digest is compared with the signed
 * subject are the bytes extracted (docs/formats/install.md, "Install").
 * The hook keeps verify/ from knowing what the caller does with them.
 */
typedef struct verify_stream {
	void *ctx;
	/* Once the statement is verified, before the archive is read: 1 after
	 * setting *visitor (sees every entry; owned by ctx) and *fallback
	 * (where the reader reads back files it did not keep; given to the
	 * reader), 0 to verify without streaming (install's no-op
	 * reinstall), -1 on failure. */
	int (*start)(void *ctx, const sign_statement *st,
	    const pack_archive_visitor **visitor, ps_pack_files *fallback,
	    ps_error *err);
	/* After a streamed read that returned `rc`: the final outcome. */
	int (*end)(void *ctx, int rc, ps_error *err);
	/* Once the signatures and the statement are verified, before the
	 * archive is read (so that nothing unsigned costs a copy): the
	 * archive's private copy, open (owned by ctx), and its SHA-256 taken
	 * while copying; 0, or -1 on failure.  NULL: verify opens the path
	 * and hashes it first. */
	int (*acquire)(void *ctx, int *fd, const unsigned char **sha256,
	    ps_error *err);
	int streamed;                      /* out: start returned 1 */
	ps_digest *digest;                 /* out: digests of what was read */
} verify_stream;

/* ps_verify() that hands over, on success, the validated manifest and
 * the signed statement (each may be NULL when not wanted); `stream` (may
 * be NULL) sees the archive's entries in the same pass. */
int verify_keep(const char *path, const ps_verify_options *options,
    verify_stream *stream, ps_verify_result **out,
    ps_manifest **manifest, sign_statement **st, ps_error *err);

#endif
