/*
 * RFC 3161 timestamps through OpenSSL's TS API.  The token's genTime is
 * read before its signature is verified: the authority's chain must be
 * checked as of that time.  Nothing else of it is used until the
 * signature verified.
 */
#include <stdio.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/ts.h>
#include <openssl/x509v3.h>

#include "sigstore/pkey.h"
#include "sigstore/rfc3161.h"
#include "util/error.h"

static int
malformed(ps_error *err, const char *subject, const char *what)
{
	return util_refuse(err, "timestamp_malformed", subject, "not an RFC 3161 "
	    "timestamp response: %s", what);
}

/* "YYYYMMDDHHMMSS[.F+]Z" (DER GeneralizedTime) to a time. */
static int
generalized_time(const ASN1_GENERALIZEDTIME *g, sigstore_time *out)
{
	char text[40];
	int len = ASN1_STRING_length(g);
	const unsigned char *d = ASN1_STRING_get0_data(g);

	if (len < 15 || len > 30 || d[len - 1] != 'Z')
		return -1;
	/* as RFC 3339, which sigstore_time_parse reads */
	snprintf(text, sizeof(text), "%.4s-%.2s-%.2sT%.2s:%.2s:%.2s%.*s", d,
	    d + 4, d + 6, d + 8, d + 10, d + 12, len - 14, d + 14);
	return sigstore_time_parse(text, out);
}

/* The response, granted, with its token and TSTInfo. */
static int
read_response(const unsigned char *der, size_t len, const char *subject,
    TS_RESP **out, ps_error *err)
{
	const unsigned char *p = der;
	TS_RESP *resp = d2i_TS_RESP(NULL, &p, (long)len);
	const ASN1_INTEGER *status;
	long s = -1;

	ERR_clear_error();
	*out = NULL;
	if (resp == NULL || p != der + len) {
		TS_RESP_free(resp);
		return malformed(err, subject, "not DER TimeStampResp");
	}
	status = TS_STATUS_INFO_get0_status(TS_RESP_get_status_info(resp));
	if (status != NULL)
		s = ASN1_INTEGER_get(status);
	if ((s != 0 && s != 1) || TS_RESP_get_token(resp) == NULL ||
	    TS_RESP_get_tst_info(resp) == NULL) {
		TS_RESP_free(resp);
		return malformed(err, subject, "its status is not granted, or it "
		    "carries no token");
	}
	*out = resp;
	return 0;
}

/* The store of `a`: its last certificate the trust anchor, checked as of
 * `at`; the others in *certs. */
static X509_STORE *
authority_store(const sigstore_authority *a, sigstore_time at,
    STACK_OF(X509) **certs)
{
	int i, n = sk_X509_num(a->chain);
	X509_STORE *store = X509_STORE_new();
	X509_VERIFY_PARAM *param = X509_VERIFY_PARAM_new();
	int ok = store != NULL && param != NULL &&
	    X509_STORE_add_cert(store, sk_X509_value(a->chain, n - 1)) == 1;

	*certs = sk_X509_new_null();
	for (i = 0; ok && i < n - 1; i++)
		ok = *certs != NULL && sk_X509_push(*certs,
		    sk_X509_value(a->chain, i)) > 0 &&
		    X509_up_ref(sk_X509_value(a->chain, i)) == 1;
	if (ok) {
		X509_VERIFY_PARAM_set_time(param, (time_t)at.sec);
		X509_VERIFY_PARAM_set_flags(param, X509_V_FLAG_PARTIAL_CHAIN);
		ok = X509_STORE_set1_param(store, param) == 1;
	}
	X509_VERIFY_PARAM_free(param);
	if (!ok) {
		X509_STORE_free(store);
		sk_X509_pop_free(*certs, X509_free);
		*certs = NULL;
		return NULL;
	}
	return store;
}

/* Why `signer`'s chain fails as of the store's time (X509_V_ERR_*). */
static int
chain_error(X509_STORE *store, STACK_OF(X509) *certs, X509 *signer)
{
	X509_STORE_CTX *ctx = X509_STORE_CTX_new();
	int e = X509_V_ERR_UNSPECIFIED;

	if (ctx != NULL && X509_STORE_CTX_init(ctx, store, signer, certs) == 1) {
		X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_TIMESTAMP_SIGN);
		e = X509_verify_cert(ctx) == 1 ? X509_V_OK :
		    X509_STORE_CTX_get_error(ctx);
	}
	X509_STORE_CTX_free(ctx);
	return e;
}

/* The outcome of one authority: 0 verified, else an X509_V_ERR_* of its
 * chain, TSA_NOT_SIGNER when no certificate of it is the token's signer,
 * TSA_BAD_SIGNATURE when the signature or the signing-certificate
 * attribute does not verify. */
#define TSA_NOT_SIGNER (-1)
#define TSA_BAD_SIGNATURE (-2)

static int
try_authority(const sigstore_authority *a, PKCS7 *token, sigstore_time at)
{
	STACK_OF(X509) *certs = NULL, *signers;
	X509_STORE *store = authority_store(a, at, &certs);
	X509 *signer = NULL, *leaf = sk_X509_value(a->chain, 0);
	int rc = TSA_NOT_SIGNER;

	if (store == NULL)
		return TSA_NOT_SIGNER;
	if (TS_RESP_verify_signature(token, certs, store, &signer) == 1)
		rc = X509_check_ca(leaf) == 0 && X509_cmp(signer, leaf) != 0 ?
		    TSA_NOT_SIGNER : 0;
	else if ((signers = PKCS7_get0_signers(token, certs, 0)) != NULL) {
		rc = chain_error(store, certs, sk_X509_value(signers, 0));
		rc = rc == X509_V_OK ? TSA_BAD_SIGNATURE : rc;
		sk_X509_free(signers);
	}
	X509_free(signer);
	X509_STORE_free(store);
	sk_X509_pop_free(certs, X509_free);
	ERR_clear_error();
	return rc;
}

static int
check_imprint(TS_TST_INFO *tst, const unsigned char *sig, size_t sig_len,
    const char *subject, ps_error *err)
{
	TS_MSG_IMPRINT *mi = TS_TST_INFO_get_msg_imprint(tst);
	ASN1_OCTET_STRING *h = TS_MSG_IMPRINT_get_msg(mi);
	int nid = OBJ_obj2nid(TS_MSG_IMPRINT_get_algo(mi)->algorithm);
	const char *md = nid == NID_sha256 ? "SHA2-256" : nid == NID_sha384 ?
	    "SHA2-384" : nid == NID_sha512 ? "SHA2-512" : NULL;
	unsigned char digest[64];
	size_t n;

	if (md == NULL)
		return util_refuse(err, "timestamp_imprint_mismatch", subject, "the "
		    "timestamp's message imprint uses %s, not SHA-256, SHA-384 or "
		    "SHA-512", OBJ_nid2sn(nid));
	n = sigstore_digest(md, sig, sig_len, digest);
	if (n == 0 || (size_t)ASN1_STRING_length(h) != n ||
	    memcmp(ASN1_STRING_get0_data(h), digest, n) != 0)
		return util_refuse(err, "timestamp_imprint_mismatch", subject, "the "
		    "timestamp's message imprint is not the %s of the bundle's "
		    "signature: it timestamps other bytes", OBJ_nid2sn(nid));
	return 0;
}

static int
time_error(int e)
{
	return e == X509_V_ERR_CERT_HAS_EXPIRED ||
	    e == X509_V_ERR_CERT_NOT_YET_VALID;
}

/* Every authority in turn; the first that signed the token wins. */
static int
find_authority(const ps_sigstore_root *root, PKCS7 *token, sigstore_time at,
    const char *subject, const sigstore_authority **tsa, ps_error *err)
{
	char when[40];
	int rc, why = TSA_NOT_SIGNER;
	size_t i;

	for (i = 0; i < root->tsa_count; i++) {
		rc = try_authority(&root->tsas[i], token, at);
		if (rc == 0) {
			*tsa = &root->tsas[i];
			return 0;
		}
		if (why == TSA_NOT_SIGNER || time_error(rc))
			why = rc;
	}
	sigstore_time_format(at, when);
	if (time_error(why))
		return util_refuse(err, "timestamp_outside_validity", subject, "the "
		    "timestamp authority's certificate was not valid at the "
		    "timestamp's time %s (%s)", when,
		    X509_verify_cert_error_string(why));
	return util_refuse(err, "timestamp_untrusted", subject, "no timestamp "
	    "authority of the trusted root signed this timestamp (%zu tried): "
	    "%s", root->tsa_count, why == TSA_NOT_SIGNER ? "its signer is none "
	    "of their certificates" : why == TSA_BAD_SIGNATURE ? "its signature "
	    "does not verify" : X509_verify_cert_error_string(why));
}

int
sigstore_timestamp_verify(const ps_sigstore_root *root,
    const unsigned char *der, size_t len, const unsigned char *sig,
    size_t sig_len, const char *subject, sigstore_time *time,
    const sigstore_authority **tsa, ps_error *err)
{
	TS_RESP *resp = NULL;
	TS_TST_INFO *tst;
	char when[40];
	int rc = -1;

	*tsa = NULL;
	if (read_response(der, len, subject, &resp, err) != 0)
		return -1;
	tst = TS_RESP_get_tst_info(resp);
	if (generalized_time(TS_TST_INFO_get_time(tst), time) != 0)
		malformed(err, subject, "its genTime is not a GeneralizedTime");
	else if (TS_TST_INFO_get_version(tst) != 1)
		malformed(err, subject, "its TSTInfo is not version 1");
	else if (find_authority(root, TS_RESP_get_token(resp), *time, subject,
	    tsa, err) == 0 &&
	    check_imprint(tst, sig, sig_len, subject, err) == 0)
		rc = 0;
	if (rc == 0 && !sigstore_validity_contains(&(*tsa)->valid, *time)) {
		sigstore_time_format(*time, when);
		rc = util_refuse(err, "timestamp_outside_validity", subject, "the "
		    "timestamp's time %s is outside the validity of its authority "
		    "%s in the trusted root", when, (*tsa)->uri != NULL ?
		    (*tsa)->uri : "(no uri)");
	}
	TS_RESP_free(resp);
	return rc;
}
