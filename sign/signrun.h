/* Internal header of sign/: one signing run.
 *
 * The state of one ps_sign run, which sign.c, signprep.c and outputs.c
 * share: types only, so that the three depend on each other one way
 * (sign -> signprep -> outputs).
 */
#ifndef SIGN_SIGNRUN_H
#define SIGN_SIGNRUN_H

#include "packsign.h"
#include "pack/pack.h"
#include "sign/dsse.h"
#include "sign/provenance.h"
#include "sign/signpack.h"
#include "sign/statement.h"
#include "util/chunks.h"

/* One OUT.N.sigstore.json of --bundle; its path is in r->bundle_paths. */
typedef struct sign_bundle_out {
	ps_atomic_file *tmp;            /* written in full before any rename */
	char *backup;                   /* second name of the file replaced */
	int created, replaced;
	int kept;                       /* --append: the file already holds
	                                 * this signature's bundle */
} sign_bundle_out;

typedef struct sign_run {
	const char *path;
	const ps_seckey *key;
	const ps_sign_options *o;
	const sign_hooks *hooks;        /* NULL: none */
	ps_sign_result *r;
	ps_pubkey *pub;                 /* the secret key's public half */
	int is_dir;
	pack_packer *packer;            /* directories: the one walk */
	ps_manifest *manifest;
	ps_digest *digest;              /* of what the archive holds */
	sign_git_source *git;             /* NULL outside git */
	sign_statement *st;
	unsigned char *payload;
	size_t payload_len;
	sign_dsse_envelope *existing;     /* OUT.sig read for --append */
	sign_dsse_envelope *env;
	unsigned char blake2b[PS_BLAKE2B512_LEN]; /* of OUT, for .minisig */
	ps_atomic_file *archive_tmp;    /* the archive until committed */
	int archive_existed;            /* OUT was there before this run */
	int archive_created;            /* this run put OUT in place */
	int archive_replaced;           /* this run replaced an existing OUT */
	int minisig_created;
	ps_atomic_file *minisig_tmp;    /* written in full before any rename */
	ps_atomic_file *sig_tmp;
	char *archive_backup;           /* second names for the OUT and
	                                 * OUT.minisig being replaced, until
	                                 * OUT.sig is in place */
	char *minisig_backup;
	int minisig_replaced;
	sign_bundle_out *bundles;       /* --bundle: r->bundle_count of them */
	int keyless;                    /* hooks->keyless signs; key NULL */
	int cosign;                     /* the key signs OUT.sig and
	                                 * hooks->keyless its own bundle */
	char *keyless_bundle;           /* its bundle (keyless, cosign),
	                                 * until staged */
	size_t keyless_bundle_len;

	/* v2's chunk digests of OUT (has_chunks; chunks.over: more than
	 * SIGN_CHUNKS_MAX, so the statement is v1) */
	util_chunks chunks;
	int has_chunks;
} sign_run;

#endif
