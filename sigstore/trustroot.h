/* Internal header of sigstore/: the trusted root.
 *
 * dev.sigstore.trustroot.v1.TrustedRoot (protobuf-specs) in its JSON form,
 * media types v0.1 and v0.2, or several of them in one file (JSON Lines,
 * as `gh attestation trusted-root` prints; any JSON values one after the
 * other): their certificate authorities, transparency logs, CT logs and
 * timestamp authorities together.  docs/formats/sigstore.md, section 2.
 */
#ifndef SIGSTORE_TRUSTROOT_H
#define SIGSTORE_TRUSTROOT_H

#include <stddef.h>

#include <openssl/x509.h>

#include "packsign.h"
#include "sigstore/pkey.h"
#include "sigstore/protojson.h"

#define SIGSTORE_ROOT_MAX_BYTES (1024 * 1024)
#define SIGSTORE_ROOT_MAX_DOCUMENTS 16
#define SIGSTORE_ROOT_MAX_ENTRIES 64     /* of each kind, all documents */
#define SIGSTORE_CHAIN_MAX 8             /* certificates of one chain */
#define SIGSTORE_CERT_MAX_BYTES 16384
#define SIGSTORE_LOG_ID_MAX 64

/* A validity window: the start is required, the end optional; both ends
 * are inclusive. */
typedef struct sigstore_validity {
	sigstore_time start;
	sigstore_time end;
	int has_end;
} sigstore_validity;

/* A transparency log or a CT log. */
typedef struct sigstore_log {
	char *base_url;
	char *origin;              /* base_url without its scheme and last / */
	unsigned char log_id[SIGSTORE_LOG_ID_MAX];
	size_t log_id_len;
	unsigned char checkpoint_key_id[SIGSTORE_LOG_ID_MAX];
	size_t checkpoint_key_id_len;   /* 0: none (v0.1) */
	char *key_details;
	sigstore_pkey *key;        /* NULL: an algorithm packsign cannot use */
	sigstore_validity valid;
	char *operator_name;
} sigstore_log;

/* A certificate authority (Fulcio) or a timestamp authority. */
typedef struct sigstore_authority {
	char *uri;
	char *organization;
	char *common_name;
	STACK_OF(X509) *chain;     /* as listed: the trust anchor last */
	sigstore_validity valid;
	char *operator_name;
} sigstore_authority;

struct ps_sigstore_root {
	char *label;
	size_t documents;
	sigstore_log *tlogs;
	size_t tlog_count;
	sigstore_log *ctlogs;
	size_t ctlog_count;
	sigstore_authority *cas;
	size_t ca_count;
	sigstore_authority *tsas;
	size_t tsa_count;
	int builtin;
};

/* 1 when `t` lies in the window, ends included. */
int sigstore_validity_contains(const sigstore_validity *v, sigstore_time t);

/* The log of `root->tlogs` whose log id (or checkpoint key id) is `id`,
 * NULL when none. */
const sigstore_log *sigstore_root_find_tlog(const ps_sigstore_root *root,
    const unsigned char *id, size_t len);

#endif
