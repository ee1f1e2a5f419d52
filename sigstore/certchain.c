/*
 * Step 5: the leaf certificate's chain at each signing time, its key
 * usages, its SCT.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <openssl/ct.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "sigstore/certchain.h"
#include "sigstore/protojson.h"
#include "util/error.h"
#include "util/fdio.h"
#include "util/sha256.h"

void
sigstore_chain_result_clear(sigstore_chain_result *r)
{
	X509_free(r->issuer);
	memset(r, 0, sizeof(*r));
}

/* The authority's chain as of `t`: 0 with the leaf's issuer, else the
 * X509_V_ERR_* OpenSSL gave. */
static int
verify_at(const sigstore_authority *ca, X509 *leaf, sigstore_time t,
    X509 **issuer)
{
	int i, n = sk_X509_num(ca->chain), e = X509_V_ERR_UNSPECIFIED;
	STACK_OF(X509) *untrusted = sk_X509_new_null(), *chain;
	X509_STORE *store = X509_STORE_new();
	X509_STORE_CTX *ctx = X509_STORE_CTX_new();
	X509_VERIFY_PARAM *param;

	*issuer = NULL;
	for (i = 0; untrusted != NULL && i < n - 1; i++)
		sk_X509_push(untrusted, sk_X509_value(ca->chain, i));
	if (untrusted != NULL && store != NULL && ctx != NULL &&
	    X509_STORE_add_cert(store, sk_X509_value(ca->chain, n - 1)) == 1 &&
	    X509_STORE_CTX_init(ctx, store, leaf, untrusted) == 1) {
		param = X509_STORE_CTX_get0_param(ctx);
		X509_VERIFY_PARAM_set_time(param, (time_t)t.sec);
		X509_VERIFY_PARAM_set_flags(param, X509_V_FLAG_PARTIAL_CHAIN |
		    X509_V_FLAG_X509_STRICT);
		e = X509_verify_cert(ctx) == 1 ? X509_V_OK :
		    X509_STORE_CTX_get_error(ctx);
		chain = e == X509_V_OK ? X509_STORE_CTX_get0_chain(ctx) : NULL;
		if (chain != NULL && sk_X509_num(chain) >= 2 &&
		    X509_up_ref(sk_X509_value(chain, 1)) == 1)
			*issuer = sk_X509_value(chain, 1);
		else if (e == X509_V_OK)
			e = X509_V_ERR_UNSPECIFIED;
	}
	X509_STORE_CTX_free(ctx);
	X509_STORE_free(store);
	sk_X509_free(untrusted);
	ERR_clear_error();
	return e;
}

static int
time_error(int e)
{
	return e == X509_V_ERR_CERT_HAS_EXPIRED ||
	    e == X509_V_ERR_CERT_NOT_YET_VALID;
}

/* `ca` at every time: 0, or the worst X509_V_ERR_* (validFor misses are
 * X509_V_ERR_CERT_HAS_EXPIRED). */
static int
verify_all(const sigstore_authority *ca, X509 *leaf, const sigstore_time *times,
    size_t count, X509 **issuer, size_t *failed_at)
{
	X509 *iss = NULL;
	size_t i;
	int e;

	*issuer = NULL;
	for (i = 0; i < count; i++) {
		*failed_at = i;
		if (!sigstore_validity_contains(&ca->valid, times[i])) {
			X509_free(iss);
			return X509_V_ERR_CERT_HAS_EXPIRED;
		}
		X509_free(iss);
		e = verify_at(ca, leaf, times[i], &iss);
		if (e != X509_V_OK)
			return e;
	}
	*issuer = iss;
	return X509_V_OK;
}

int
sigstore_chain_verify(const ps_sigstore_root *root, X509 *leaf,
    const sigstore_time *times, size_t count, const char *subject,
    sigstore_chain_result *out, ps_error *err)
{
	int e, worst = X509_V_ERR_UNSPECIFIED;
	size_t i, at = 0, failed_at = 0;
	char when[40];

	memset(out, 0, sizeof(*out));
	for (i = 0; i < root->ca_count; i++) {
		e = verify_all(&root->cas[i], leaf, times, count, &out->issuer,
		    &failed_at);
		if (e == X509_V_OK) {
			out->ca = &root->cas[i];
			return 0;
		}
		if (i == 0 || time_error(e)) {
			worst = e;
			at = failed_at;
		}
	}
	if (root->ca_count == 0)
		return util_refuse(err, "certificate_untrusted", subject, "the "
		    "trusted root lists no certificate authority");
	sigstore_time_format(times[at], when);
	if (time_error(worst))
		return util_refuse(err, "certificate_not_valid", subject, "the "
		    "signing certificate (or its chain, or its authority in the "
		    "trusted root) was not valid at the signing time %s", when);
	return util_refuse(err, "certificate_untrusted", subject, "the signing "
	    "certificate does not chain to a certificate authority of the "
	    "trusted root at %s: %s", when, X509_verify_cert_error_string(worst));
}

int
sigstore_chain_usage(X509 *leaf, const char *subject, ps_error *err)
{
	uint32_t ku = X509_get_key_usage(leaf), xku;

	if ((X509_get_extension_flags(leaf) & EXFLAG_KUSAGE) == 0 ||
	    (ku & KU_DIGITAL_SIGNATURE) == 0)
		return util_refuse(err, "certificate_usage", subject, "the signing "
		    "certificate's key usage does not include digitalSignature");
	xku = X509_get_extended_key_usage(leaf);
	if ((X509_get_extension_flags(leaf) & EXFLAG_XKUSAGE) == 0 ||
	    (xku & XKU_CODE_SIGN) == 0)
		return util_refuse(err, "certificate_usage", subject, "the signing "
		    "certificate's extended key usage does not include code "
		    "signing");
	return 0;
}

/*
 * OpenSSL 3.0 fills a CTLOG_STORE only from a file (CTLOG_STORE_load_file;
 * no call adds one log), so the root's CT logs are written as such a file
 * into an anonymous memory file of this process and read back through
 * /proc/self/fd.  Nothing touches the file system.
 */
static CTLOG_STORE *
ct_store(const ps_sigstore_root *root)
{
	CTLOG_STORE *store = NULL;
	char path[64], *b64;
	FILE *f;
	size_t i;
	int fd = memfd_create("packsign-ctlogs", MFD_CLOEXEC), ok;

	f = fd >= 0 ? fdopen(dup(fd), "w") : NULL;
	ok = f != NULL && fprintf(f, "enabled_logs =") > 0;
	for (i = 0; ok && i < root->ctlog_count; i++)
		ok = fprintf(f, "%slog%zu", i > 0 ? "," : " ", i) > 0;
	for (i = 0; ok && i < root->ctlog_count; i++) {
		if (root->ctlogs[i].key == NULL)
			continue;
		b64 = sigstore_base64_encode(root->ctlogs[i].key->spki,
		    root->ctlogs[i].key->spki_len);
		ok = b64 != NULL && fprintf(f, "\n[log%zu]\ndescription = log%zu\n"
		    "key = %s\n", i, i, b64) > 0;
		free(b64);
	}
	if (f != NULL && fclose(f) != 0)
		ok = 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (ok && (store = CTLOG_STORE_new()) != NULL &&
	    CTLOG_STORE_load_file(store, path) != 1) {
		CTLOG_STORE_free(store);
		store = NULL;
	}
	if (fd >= 0)
		close(fd);
	ERR_clear_error();
	return store;
}

/* The CT log of the root whose id (SHA-256 of its key) `id` is. */
static const sigstore_log *
ct_log_of(const ps_sigstore_root *root, const unsigned char *id, size_t len)
{
	unsigned char digest[PS_SHA256_LEN];
	size_t i;

	for (i = 0; i < root->ctlog_count && len == PS_SHA256_LEN; i++) {
		if (root->ctlogs[i].key != NULL &&
		    util_sha256_buffer(root->ctlogs[i].key->spki,
		    root->ctlogs[i].key->spki_len, digest) == 0 &&
		    memcmp(digest, id, len) == 0)
			return &root->ctlogs[i];
	}
	return NULL;
}

/* The first SCT OpenSSL validated whose log is valid at its time. */
static int
pick_sct(const ps_sigstore_root *root, STACK_OF(SCT) *scts,
    sigstore_chain_result *out)
{
	const sigstore_log *log;
	unsigned char *id;
	sigstore_time t;
	size_t len;
	SCT *sct;
	int i;

	for (i = 0; i < sk_SCT_num(scts); i++) {
		sct = sk_SCT_value(scts, i);
		if (SCT_get_validation_status(sct) != SCT_VALIDATION_STATUS_VALID)
			continue;
		len = SCT_get0_log_id(sct, &id);
		log = ct_log_of(root, id, len);
		t.sec = (int64_t)(SCT_get_timestamp(sct) / 1000);
		t.nsec = (int32_t)(SCT_get_timestamp(sct) % 1000) * 1000000;
		if (log == NULL || !sigstore_validity_contains(&log->valid, t))
			continue;
		out->ct_log = log;
		out->sct_time_ms = SCT_get_timestamp(sct);
		return 0;
	}
	return -1;
}

static int
validate_scts(const ps_sigstore_root *root, X509 *leaf, STACK_OF(SCT) *scts,
    sigstore_time now, sigstore_chain_result *out, const char *subject,
    ps_error *err)
{
	CT_POLICY_EVAL_CTX *ctx = CT_POLICY_EVAL_CTX_new();
	CTLOG_STORE *store = ct_store(root);
	int rc = -1;

	if (ctx == NULL || store == NULL ||
	    CT_POLICY_EVAL_CTX_set1_cert(ctx, leaf) != 1 ||
	    CT_POLICY_EVAL_CTX_set1_issuer(ctx, out->issuer) != 1) {
		util_fail(err, "crypto_error", subject, "OpenSSL could not set up "
		    "the verification of certificate transparency");
	} else {
		CT_POLICY_EVAL_CTX_set_shared_CTLOG_STORE(ctx, store);
		CT_POLICY_EVAL_CTX_set_time(ctx, (uint64_t)now.sec * 1000 +
		    (uint64_t)now.nsec / 1000000);
		rc = SCT_LIST_validate(scts, ctx) >= 0 &&
		    pick_sct(root, scts, out) == 0 ? 0 : util_refuse(err,
		    "sct_invalid", subject, "none of the certificate's %d SCTs "
		    "verifies with a CT log of the trusted root valid at its time",
		    sk_SCT_num(scts));
	}
	CT_POLICY_EVAL_CTX_free(ctx);
	CTLOG_STORE_free(store);
	ERR_clear_error();
	return rc;
}

int
sigstore_chain_sct(const ps_sigstore_root *root, X509 *leaf, sigstore_time now,
    const char *subject, sigstore_chain_result *out, ps_error *err)
{
	STACK_OF(SCT) *scts = X509_get_ext_d2i(leaf, NID_ct_precert_scts, NULL,
	    NULL);
	int rc;

	ERR_clear_error();
	out->sct_count = scts != NULL ? (size_t)sk_SCT_num(scts) : 0;
	if (out->sct_count == 0) {
		SCT_LIST_free(scts);
		return util_refuse(err, "sct_missing", subject, "the trusted root "
		    "lists CT logs, and the signing certificate carries no signed "
		    "certificate timestamp (SCT)");
	}
	rc = validate_scts(root, leaf, scts, now, out, subject, err);
	SCT_LIST_free(scts);
	return rc;
}
