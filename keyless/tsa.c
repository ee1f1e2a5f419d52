/*
 * An RFC 3161 client through OpenSSL's TS API: the request is built here,
 * sent by net/, and the answer checked against the request before it is
 * handed back (keyless/tsa.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pkcs7.h>
#include <openssl/rand.h>
#include <openssl/ts.h>
#include <openssl/x509_vfy.h>

#include "keyless/tsa.h"
#include "net/fetch.h"
#include "util/error.h"

#define TSA_NONCE_BYTES 8

static int
failed(ps_error *err, const char *url, const char *what)
{
	return util_fail(err, "timestamp_failed", url, "asked the timestamp "
	    "authority for a timestamp over the signature: %s", what);
}

/* A positive 64-bit nonce from the system's random source. */
static ASN1_INTEGER *
new_nonce(void)
{
	unsigned char bytes[TSA_NONCE_BYTES];
	ASN1_INTEGER *nonce = NULL;
	BIGNUM *bn;

	if (RAND_bytes(bytes, sizeof(bytes)) != 1)
		return NULL;
	bytes[0] = (unsigned char)((bytes[0] & 0x7f) | 0x40);
	bn = BN_bin2bn(bytes, sizeof(bytes), NULL);
	if (bn != NULL)
		nonce = BN_to_ASN1_INTEGER(bn, NULL);
	BN_free(bn);
	return nonce;
}

static TS_MSG_IMPRINT *
new_imprint(const unsigned char digest[32])
{
	TS_MSG_IMPRINT *imprint = TS_MSG_IMPRINT_new();
	X509_ALGOR *alg = X509_ALGOR_new();
	int ok = imprint != NULL && alg != NULL &&
	    X509_ALGOR_set0(alg, OBJ_nid2obj(NID_sha256), V_ASN1_NULL, NULL) &&
	    TS_MSG_IMPRINT_set_algo(imprint, alg) &&
	    TS_MSG_IMPRINT_set_msg(imprint, (unsigned char *)digest, 32);

	X509_ALGOR_free(alg);
	if (!ok) {
		TS_MSG_IMPRINT_free(imprint);
		return NULL;
	}
	return imprint;
}

/* The DER TimeStampReq; *nonce is the caller's. */
static int
build_request(const unsigned char digest[32], ASN1_INTEGER **nonce,
    unsigned char **req, int *req_len)
{
	TS_REQ *r = TS_REQ_new();
	TS_MSG_IMPRINT *imprint = new_imprint(digest);
	int ok;

	*req = NULL;
	*nonce = new_nonce();
	ok = r != NULL && imprint != NULL && *nonce != NULL &&
	    TS_REQ_set_version(r, 1) && TS_REQ_set_msg_imprint(r, imprint) &&
	    TS_REQ_set_nonce(r, *nonce) && TS_REQ_set_cert_req(r, 1);
	if (ok)
		*req_len = i2d_TS_REQ(r, req);
	ok = ok && *req_len > 0;
	TS_MSG_IMPRINT_free(imprint);
	TS_REQ_free(r);
	return ok ? 0 : -1;
}

/* net/'s error as the cause of a timestamp_failed. */
static int
transfer_failed(ps_error *err, const char *url)
{
	char what[PS_ERROR_TEXT_MAX];

	snprintf(what, sizeof(what), "the request failed [%s]: %.400s",
	    err->code, err->message);
	return failed(err, url, what);
}

static int
post_request(const ps_fetch_options *fetch, const char *url,
    const unsigned char *req, int req_len, net_sink *sink, ps_error *err)
{
	net_body body = { "application/timestamp-query",
	    "application/timestamp-reply", req, (size_t)req_len, NULL };

	memset(sink, 0, sizeof(*sink));
	sink->fd = -1;
	sink->to_memory = 1;
	sink->max = KEYLESS_TSA_MAX_RESPONSE;
	sink->max_why = "a timestamp response may hold (64 KiB)";
	if (net_post(fetch, url, &body, sink, err) != 0)
		return transfer_failed(err, url);
	if (sink->received == 0)
		return failed(err, url, "the authority answered with an empty body");
	return 0;
}

/* The token's signature over its TSTInfo, with the signer certificate
 * the token carries (certReq), taken as trusted by itself
 * (X509_V_FLAG_PARTIAL_CHAIN): OpenSSL's TS checks then also ask for
 * the timeStamping key usage and the ESS signing-certificate attribute.
 * Whether that authority is trusted is the verifier's question. */
static int
token_signed(TS_RESP *resp)
{
	PKCS7 *token = TS_RESP_get_token(resp);
	STACK_OF(X509) *certs = NULL;
	X509_STORE *store = X509_STORE_new();
	int i, ok = store != NULL && PKCS7_type_is_signed(token);

	if (ok)
		certs = token->d.sign->cert;
	for (i = 0; ok && i < sk_X509_num(certs); i++)
		ok = X509_STORE_add_cert(store, sk_X509_value(certs, i)) == 1;
	ok = ok && sk_X509_num(certs) > 0 &&
	    X509_STORE_set_flags(store, X509_V_FLAG_PARTIAL_CHAIN) == 1 &&
	    TS_RESP_verify_signature(token, NULL, store, NULL) == 1;
	X509_STORE_free(store);
	return ok;
}

static int
check_tst(TS_RESP *resp, const unsigned char digest[32],
    const ASN1_INTEGER *nonce, const char *url, ps_error *err)
{
	TS_TST_INFO *tst = TS_RESP_get_tst_info(resp);
	TS_MSG_IMPRINT *imprint = TS_TST_INFO_get_msg_imprint(tst);
	const ASN1_INTEGER *got = TS_TST_INFO_get_nonce(tst);
	ASN1_OCTET_STRING *msg = TS_MSG_IMPRINT_get_msg(imprint);
	X509_ALGOR *alg = TS_MSG_IMPRINT_get_algo(imprint);

	if (got == NULL || ASN1_INTEGER_cmp(got, nonce) != 0) {
		failed(err, url, "the token's nonce is not the request's (a "
		    "replayed or misdirected answer)");
		return util_error_expect(err, "the request's nonce", got == NULL ?
		    "no nonce" : "another nonce");
	}
	if (OBJ_obj2nid(alg->algorithm) != NID_sha256 ||
	    ASN1_STRING_length(msg) != 32 ||
	    memcmp(ASN1_STRING_get0_data(msg), digest, 32) != 0) {
		failed(err, url, "the token's message imprint is not the SHA-256 "
		    "of the signature sent");
		return util_error_expect(err, "SHA-256 of the signature",
		    "another imprint");
	}
	return 0;
}

static int
check_response(const unsigned char *der, size_t len,
    const unsigned char digest[32], const ASN1_INTEGER *nonce,
    const char *url, ps_error *err)
{
	const unsigned char *p = der;
	TS_RESP *resp = d2i_TS_RESP(NULL, &p, (long)len);
	const ASN1_INTEGER *status = NULL;
	int rc = -1;

	if (resp != NULL)
		status = TS_STATUS_INFO_get0_status(TS_RESP_get_status_info(resp));
	if (resp == NULL || p != der + len)
		failed(err, url, "the answer is not a DER TimeStampResp");
	else if (status == NULL || ASN1_INTEGER_get(status) > 1 ||
	    TS_RESP_get_token(resp) == NULL || TS_RESP_get_tst_info(resp) == NULL)
		failed(err, url, "the authority did not grant a timestamp");
	else if (!token_signed(resp))
		failed(err, url, "the token's signature does not verify with the "
		    "signer certificate it carries");
	else
		rc = check_tst(resp, digest, nonce, url, err);
	TS_RESP_free(resp);
	ERR_clear_error();
	return rc;
}

int
keyless_tsa_timestamp(const ps_fetch_options *fetch, const char *url,
    const unsigned char *data, size_t len, unsigned char **der,
    size_t *der_len, ps_error *err)
{
	unsigned char digest[32], *req = NULL;
	ASN1_INTEGER *nonce = NULL;
	net_sink sink;
	int req_len = 0, rc;

	*der = NULL;
	*der_len = 0;
	if (EVP_Digest(data, len, digest, NULL, EVP_sha256(), NULL) != 1 ||
	    build_request(digest, &nonce, &req, &req_len) != 0) {
		ASN1_INTEGER_free(nonce);
		OPENSSL_free(req);
		return failed(err, url, "OpenSSL could not build the request");
	}
	rc = post_request(fetch, url, req, req_len, &sink, err);
	OPENSSL_free(req);
	if (rc == 0)
		rc = check_response(sink.memory, sink.received, digest, nonce, url,
		    err);
	ASN1_INTEGER_free(nonce);
	if (rc != 0) {
		free(sink.memory);
		return -1;
	}
	*der = sink.memory;
	*der_len = sink.received;
	return 0;
}
