/* Internal header of sign/: one signing run.
 *
 * The state of one ps_sign run, shared by sign/sign.c and sign/signprep.c.
 */
#ifndef SIGN_SIGNRUN_H
#define SIGN_SIGNRUN_H

#include "packsign.h"
#include "sign/dsse.h"
#include "sign/provenance.h"
#include "sign/statement.h"

typedef struct sign_run {
	const char *path;
	const ps_seckey *key;
	const ps_sign_options *o;
	ps_sign_result *r;
	ps_pubkey *pub;                 /* the secret key's public half */
	int is_dir;
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
} sign_run;

/* Directories: validate, check, provenance, write OUT's temporary file. */
int sign_prepare_dir(sign_run *run, ps_error *err);
/* Archives: read once (every entry checked), validate, check. */
int sign_prepare_archive(sign_run *run, ps_error *err);
/* Names OUT, OUT.sig, OUT.minisig and checks the signature targets. */
int sign_set_outputs(sign_run *run, const char *archive, ps_error *err);
/* Refuses an invalid manifest; records it; checks signed_by. */
int sign_record_manifest(sign_run *run, ps_error *err);
/* Git and --source-* provenance, and the holon source rule. */
int sign_provenance(sign_run *run, ps_error *err);

#endif
