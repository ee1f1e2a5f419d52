/* Internal header of sigstore/: step 5, the signing certificate.
 *
 * The leaf certificate chains to a certificate authority of the trusted
 * root at every signing time (OpenSSL X509_verify_cert() with
 * X509_VERIFY_PARAM_set_time(), the authority's validFor too), is a leaf
 * with the digitalSignature key usage and the code-signing extended key
 * usage, and carries an SCT of a CT log of the root that verifies
 * (OpenSSL CT: SCT_LIST_validate() with a CT_POLICY_EVAL_CTX, the
 * precertificate rebuilt from the leaf and its issuer).  Certificates the
 * bundle carries besides the leaf are not used: the chain comes from the
 * trusted root alone.  docs/formats/sigstore.md, section 7.
 */
#ifndef SIGSTORE_CERTCHAIN_H
#define SIGSTORE_CERTCHAIN_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/x509.h>

#include "packsign.h"
#include "sigstore/trustroot.h"

/* What the chain and SCT checks found. */
typedef struct sigstore_chain_result {
	const sigstore_authority *ca;
	X509 *issuer;                  /* the leaf's issuer; owned */
	const sigstore_log *ct_log;    /* the CT log of the SCT that verified */
	uint64_t sct_time_ms;
	size_t sct_count;              /* SCTs in the certificate */
} sigstore_chain_result;

/*
 * The chain at each of `times` (at least one).  Codes (exit 1):
 * certificate_untrusted, certificate_not_valid (outside its or its
 * chain's validity, or its authority's validFor, at a signing time).
 */
int sigstore_chain_verify(const ps_sigstore_root *root, X509 *leaf,
    const sigstore_time *times, size_t count, const char *subject,
    sigstore_chain_result *out, ps_error *err);

/* The leaf's key usage and extended key usage.  Code certificate_usage. */
int sigstore_chain_usage(X509 *leaf, const char *subject, ps_error *err);

/*
 * An SCT of the leaf from a CT log of the root, verified over the
 * precertificate (issuer from the chain), within the log's validFor, not
 * after `now`.  Codes: sct_missing (the certificate has none), sct_invalid
 * (none verifies with a CT log of the root).  crypto_error (exit 2) when
 * OpenSSL's CT log store cannot be built.
 */
int sigstore_chain_sct(const ps_sigstore_root *root, X509 *leaf,
    sigstore_time now, const char *subject, sigstore_chain_result *out,
    ps_error *err);

void sigstore_chain_result_clear(sigstore_chain_result *r);

#endif
