/* The state of one ps_sign run, shared by sign/sign.c and sign/signprep.c. */
#ifndef PS_SIGN_SIGNRUN_H
#define PS_SIGN_SIGNRUN_H

#include "packsign.h"
#include "sign/dsse.h"
#include "sign/provenance.h"
#include "sign/statement.h"

typedef struct ps_sign_run {
	const char *path;
	const ps_seckey *key;
	const ps_sign_options *o;
	ps_sign_result *r;
	ps_pubkey *pub;                 /* the secret key's public half */
	int is_dir;
	ps_manifest *manifest;
	ps_digest *digest;              /* of what the archive holds */
	ps_git_source *git;             /* NULL outside git */
	ps_statement *st;
	unsigned char *payload;
	size_t payload_len;
	ps_dsse_envelope *existing;     /* OUT.sig read for --append */
	ps_dsse_envelope *env;
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
} ps_sign_run;

/* Directories: validate, check, provenance, write OUT's temporary file. */
int ps_sign_prepare_dir(ps_sign_run *run, ps_error *err);
/* Archives: read once (every entry checked), validate, check. */
int ps_sign_prepare_archive(ps_sign_run *run, ps_error *err);
/* Names OUT, OUT.sig, OUT.minisig and checks the signature targets. */
int ps_sign_set_outputs(ps_sign_run *run, const char *archive, ps_error *err);
/* Refuses an invalid manifest; records it; checks signed_by. */
int ps_sign_record_manifest(ps_sign_run *run, ps_error *err);
/* Git and --source-* provenance, and the holon source rule. */
int ps_sign_provenance(ps_sign_run *run, ps_error *err);

#endif
