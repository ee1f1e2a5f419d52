/* Internal header of verify/: the context the steps share.
 *
 * The steps of ps_verify() (docs/formats/signature.md, section 3) run in
 * verify.c, signatures.c, ceiling.c and source.c over one context: types
 * only, so that verify.c uses the other three and none of them uses it.
 */
#ifndef VERIFY_VCTX_H
#define VERIFY_VCTX_H

#include "packsign.h"
#include "sign/dsse.h"
#include "sign/statement.h"

struct verify_stream;

/* A Sigstore bundle as read (verify/bundles.c): its bytes, and which
 * entries of the envelope its signatures became. */
typedef struct verify_bundle {
	char *bytes;
	size_t len;
	size_t first;
	size_t count;
} verify_bundle;

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
	struct verify_stream *stream;
	verify_bundle *bundles;        /* --bundle files, as read */
	size_t bundle_count;
	ps_sigstore_root *own_root;    /* the compiled-in root, when loaded */
} verify_vctx;

#endif
