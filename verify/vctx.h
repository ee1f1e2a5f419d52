/* Internal header of verify/: the context the steps share.
 *
 * The steps of ps_verify() (docs/formats/signature.md, section 3) run in
 * verify.c, signatures.c, ceiling.c and source.c over one context: types
 * only, so that verify.c uses the other three and none of them uses it.
 */
#ifndef VERIFY_VCTX_H
#define VERIFY_VCTX_H

#include "packsign.h"
#include "pack/archive.h"
#include "sign/dsse.h"
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
	 * while copying; or, *sha256 NULL, the caller's own file open
	 * read-only, which verify reads once chunk by chunk when `st` is v2
	 * (a tar; the descriptor may then be a pipe), else under a read lease
	 * the caller took (util/lease.h), hashed and checked as its own; 0,
	 * or -1 on failure.  NULL:
	 * verify opens the path and hashes it first. */
	int (*acquire)(void *ctx, const sign_statement *st, int *fd,
	    const unsigned char **sha256, ps_error *err);
	/* The signature's bytes on a descriptor the caller holds (read from
	 * its start; a download kept in a private copy), instead of the
	 * options' sig_path; 0: none (a zeroed stream reads the path). */
	int has_sig_fd;
	int sig_fd;
	int streamed;                      /* out: start returned 1 */
	ps_digest *digest;                 /* out: digests of what was read */
} verify_stream;

/* A Sigstore bundle as read (verify/bundles.c): its bytes, and which
 * entries of the envelope its signatures became. */
typedef struct verify_bundle {
	char *bytes;
	size_t len;
	size_t first;
	size_t count;
	int keyless;                   /* a certificate bundle */
} verify_bundle;

/* Keyless bundles as verified (verify/certsigners.c). */
struct verify_keyless;

typedef struct verify_vctx {
	const char *path;
	int is_dir;                    /* PATH is a directory (verify DIR --sig) */
	const ps_verify_options *o;
	ps_verify_result *res;
	sign_dsse_envelope *env;
	/* A verification under a key that counts (payload points into env). */
	sign_dsse_verification verified;
	const ps_pubkey **entry_key;   /* per entry: the policy key verifying it */
	sign_statement *st;
	ps_manifest *manifest;
	/* install's single pass (may be NULL): see verify_stream. */
	verify_stream *stream;
	verify_bundle *bundles;        /* --bundle files, as read */
	size_t bundle_count;
	ps_sigstore_root *own_root;    /* the compiled-in root, when loaded */
	struct verify_keyless *keyless;/* NULL until a keyless bundle is read */

	/* a v2 statement's chunk digests of a tar (NULL otherwise): pass 2
	 * authenticates each chunk before the parser sees it */
	const pack_chunk_list *chunks;
	pack_chunk_list chunk_list;
} verify_vctx;

#endif
