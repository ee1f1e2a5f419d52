/* Internal header of verify/: the steps of verification.
 *
 * The steps of ps_verify() (docs/formats/signature.md, section 3) share
 * one context.  The public interface is the "verification" section of
 * include/packsign.h.
 */
#ifndef VERIFY_VERIFY_H
#define VERIFY_VERIFY_H

#include "packsign.h"
#include "pack/archive.h"
#include "sign/dsse.h"
#include "sign/statement.h"

typedef struct verify_vctx {
	const char *path;
	const ps_verify_options *o;
	ps_verify_result *res;
	sign_dsse_envelope *env;
	/* A verification under a key that counts (payload points into env). */
	sign_dsse_verification verified;
	const ps_pubkey **entry_key;   /* per entry: the policy key verifying it */
	sign_statement *st;
	ps_manifest *manifest;
	/* install's single pass (may be NULL): see verify_extract. */
	struct verify_extract *extract;
} verify_vctx;

/* Step 1: reads the envelope, finds which policy key verifies each entry
 * and drops revoked, untrusted and out-of-window keys.  Refuses when no
 * entry is left; nothing of the payload is parsed here. */
int verify_signatures(verify_vctx *v, ps_error *err);
/* Step 1, end (the pack id is known from the verified statement): scope,
 * then the threshold of distinct identities. */
int verify_scope(verify_vctx *v, ps_error *err);
/* Step 6: signed_by of the manifest and --signed-by, threshold again. */
int verify_signed_by(verify_vctx *v, ps_error *err);
/* Step 7: provenance. */
int verify_source(verify_vctx *v, ps_error *err);

/*
 * install reads the archive once: the reader that verifies it also
 * extracts it into `dest_fd`, an empty directory of a private work
 * directory, and the validators read the manifest back from there.  The
 * archive's SHA-256 is compared with the signed subject over the very bytes
 * that were extracted, so nothing can change between the check and the use
 * (docs/formats/install.md, "Install").
 */
typedef struct verify_extract {
	int dest_fd;
	const char *dest_path;             /* the same directory, by name */
	const ps_extract_limits *limits;
	/* Asked once the statement is verified: 0 verifies without
	 * extracting (install's no-op reinstall), 1 extracts. */
	int (*wanted)(void *ctx, const sign_statement *st);
	void *ctx;
	int extracted;                     /* out: the tree is in dest_fd */
	ps_digest *digest;                 /* out: digests of what was read */
} verify_extract;

/* ps_verify() that hands over, on success, the validated manifest and
 * the signed statement (each may be NULL when not wanted); `extract` (may
 * be NULL) extracts the archive in the same pass. */
int verify_keep(const char *path, const ps_verify_options *options,
    verify_extract *extract, ps_verify_result **out,
    ps_manifest **manifest, sign_statement **st, ps_error *err);

/* Refuses with `code`: `what` was checked, expected `want`, found `got`
 * (both as sha256:HEX); returns -1. */
int verify_refuse_digest(ps_error *err, const char *code,
    const char *subject, const char *what,
    const unsigned char want[PS_SHA256_LEN],
    const unsigned char got[PS_SHA256_LEN]);
/* *out = a copy of `s`, or NULL when `s` is NULL; 0 / -1 (memory). */
int verify_dup(char **out, const char *s, ps_error *err);

/* 1 for a full commit id: 40 or 64 hex digits (either case). */
int verify_commit_hex(const char *s);
/* Writes the items joined by ", " into `out` (cut at `size`). */
void verify_join(char *out, size_t size, const char *const *items,
    size_t count);

#endif
