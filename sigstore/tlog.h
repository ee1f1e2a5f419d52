/* Internal header of sigstore/: step 2, the transparency-log entries.
 *
 * Each entry of a bundle: its log among the trusted root's, its inclusion
 * promise (the SET) and its inclusion proof against a signed checkpoint,
 * then its body against the bundle.  docs/formats/sigstore.md, section 4.
 */
#ifndef SIGSTORE_TLOG_H
#define SIGSTORE_TLOG_H

#include "packsign.h"
#include "sigstore/rekorbody.h"
#include "sigstore/signednote.h"
#include "sigstore/trustroot.h"

/* What one verified entry proved. */
typedef struct sigstore_tlog_proof {
	const sigstore_log *log;
	int rekor_version;               /* 1 or 2 */
	int set_verified;                /* the integrated time is the log's */
	int proof_verified;
	sigstore_checkpoint checkpoint;  /* when proof_verified */
} sigstore_tlog_proof;

/* Integrated times beyond 2^53 cannot be written in a SET's canonical
 * JSON (RFC 8785 numbers are IEEE doubles). */
#define SIGSTORE_JSON_INT_MAX ((int64_t)1 << 53)

/*
 * Verifies entry `i` of the bundle in `c`.  Codes (exit 1):
 * tlog_unknown_log, tlog_kind_unsupported, tlog_key_unsupported,
 * tlog_promise_missing, tlog_proof_missing, tlog_set_invalid,
 * tlog_log_not_valid, tlog_checkpoint_* (signednote.h),
 * tlog_checkpoint_mismatch, tlog_inclusion_invalid, tlog_body_* (rekorbody.h).
 */
int sigstore_tlog_verify(const ps_sigstore_root *root,
    const sigstore_content *c, size_t i, const char *subject,
    sigstore_tlog_proof *out, ps_error *err);

/* The canonical JSON the SET signs (malloc'd): {"body":B64,
 * "integratedTime":N,"logID":HEX,"logIndex":N}. */
char *sigstore_tlog_set_payload(const sigstore_entry *e);

#endif
