/*
 * verify/ internals: the steps of ps_verify() (docs/formats/signature.md,
 * section 3) share one context.  The public interface is the
 * "verification" section of include/packsign.h.
 */
#ifndef PS_VERIFY_VERIFY_H
#define PS_VERIFY_VERIFY_H

#include "packsign.h"
#include "sign/archive.h"
#include "sign/dsse.h"
#include "sign/statement.h"

typedef struct ps_vctx {
	const char *path;
	const ps_verify_options *o;
	ps_verify_result *res;
	ps_dsse_envelope *env;
	/* A verification under a key that counts (payload points into env). */
	ps_dsse_verification verified;
	const ps_pubkey **entry_key;   /* per entry: the policy key verifying it */
	ps_statement *st;
	ps_manifest *manifest;
	/* install's single pass (may be NULL): see ps_verify_extract. */
	struct ps_verify_extract *extract;
} ps_vctx;

/* Step 1: reads the envelope, finds which policy key verifies each entry
 * and drops revoked, untrusted and out-of-window keys.  Refuses when no
 * entry is left; nothing of the payload is parsed here. */
int ps_verify_signatures(ps_vctx *v, ps_error *err);
/* Step 1, end (the pack id is known from the verified statement): scope,
 * then the threshold of distinct identities. */
int ps_verify_scope(ps_vctx *v, ps_error *err);
/* Step 6: signed_by of the manifest and --signed-by, threshold again. */
int ps_verify_signed_by(ps_vctx *v, ps_error *err);
/* Step 7: provenance. */
int ps_verify_source(ps_vctx *v, ps_error *err);

/*
 * install reads the archive once: the reader that verifies it also
 * extracts it into `dest_fd`, an empty directory of a private work
 * directory, and the validators read the manifest back from there.  The
 * archive's SHA-256 is compared with the signed subject over the very bytes
 * that were extracted, so nothing can change between the check and the use
 * (docs/formats/install.md, "Install").
 */
typedef struct ps_verify_extract {
	int dest_fd;
	const char *dest_path;             /* the same directory, by name */
	const ps_extract_limits *limits;
	/* Asked once the statement is verified: 0 verifies without
	 * extracting (install's no-op reinstall), 1 extracts. */
	int (*wanted)(void *ctx, const ps_statement *st);
	void *ctx;
	int extracted;                     /* out: the tree is in dest_fd */
	ps_digest *digest;                 /* out: digests of what was read */
} ps_verify_extract;

/* ps_verify() that hands over, on success, the validated manifest and
 * the signed statement (each may be NULL when not wanted); `extract` (may
 * be NULL) extracts the archive in the same pass. */
int ps_verify_keep(const char *path, const ps_verify_options *options,
    ps_verify_extract *extract, ps_verify_result **out,
    ps_manifest **manifest, ps_statement **st, ps_error *err);

/* Refuses with `code`: `what` was checked, expected `want`, found `got`
 * (both as sha256:HEX); returns -1. */
int ps_verify_refuse_digest(ps_error *err, const char *code,
    const char *subject, const char *what,
    const unsigned char want[PS_SHA256_LEN],
    const unsigned char got[PS_SHA256_LEN]);
/* *out = a copy of `s`, or NULL when `s` is NULL; 0 / -1 (memory). */
int ps_verify_dup(char **out, const char *s, ps_error *err);

/* 1 for a full commit id: 40 or 64 hex digits (either case). */
int ps_verify_commit_hex(const char *s);
/* Writes the items joined by ", " into `out` (cut at `size`). */
void ps_verify_join(char *out, size_t size, const char *const *items,
    size_t count);

#endif
