/*
 * Fulcio certificates: the SAN and the extensions of Fulcio's arc, read
 * as text.  Values are bounded and checked to be UTF-8 without control
 * characters: they are shown to people and compared with a policy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/asn1.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <unistr.h>

#include "sigstore/fulcio.h"
#include "util/error.h"
#include "util/sha256.h"

/* The named fields, by the last arc of their OID. */
static char **
field_of(ps_sigstore_certificate *c, unsigned n)
{
	char **fields[] = {
		NULL, NULL, &c->github_workflow_trigger, &c->github_workflow_sha,
		&c->github_workflow_name, &c->github_workflow_repository,
		&c->github_workflow_ref, NULL, NULL, &c->build_signer_uri,
		&c->build_signer_digest, &c->runner_environment,
		&c->source_repository_uri, &c->source_repository_digest,
		&c->source_repository_ref, &c->source_repository_identifier,
		&c->source_repository_owner_uri,
		&c->source_repository_owner_identifier, &c->build_config_uri,
		&c->build_config_digest, &c->build_trigger,
		&c->run_invocation_uri, &c->source_repository_visibility,
	};

	return n < sizeof(fields) / sizeof(*fields) ? fields[n] : NULL;
}

void
sigstore_fulcio_clear(ps_sigstore_certificate *c)
{
	size_t i;
	char **f;

	free(c->san);
	free(c->san_type);
	free(c->issuer);
	for (i = 0; i < 32; i++) {
		f = field_of(c, (unsigned)i);
		if (f != NULL)
			free(*f);
	}
	for (i = 0; i < c->extension_count; i++)
		free(c->extensions[i].value);
	free(c->extensions);
	free(c->authority);
	free(c->ct_log);
	memset(c, 0, sizeof(*c));
}

static int
text_ok(const unsigned char *s, size_t len)
{
	size_t i;

	if (len > SIGSTORE_EXTENSION_MAX || u8_check(s, len) != NULL)
		return 0;
	for (i = 0; i < len; i++) {
		if (s[i] < 0x20 || s[i] == 0x7f)
			return 0;
	}
	return 1;
}

char *
sigstore_fulcio_value(const unsigned char *data, size_t len, int raw)
{
	const unsigned char *p = data;
	ASN1_UTF8STRING *u = NULL;
	char *out = NULL;

	if (!raw) {
		u = d2i_ASN1_UTF8STRING(NULL, &p, (long)len);
		ERR_clear_error();
		if (u == NULL || p != data + len) {
			ASN1_UTF8STRING_free(u);
			return NULL;
		}
		data = ASN1_STRING_get0_data(u);
		len = (size_t)ASN1_STRING_length(u);
	}
	if (text_ok(data, len))
		out = strndup((const char *)data, len);
	ASN1_UTF8STRING_free(u);
	return out;
}

/* A SAN entry as text and its kind; NULL for other kinds. */
static char *
san_text(const GENERAL_NAME *g, const char **type)
{
	char oid[64];
	const ASN1_STRING *s = NULL;

	if (g->type == GEN_URI) {
		*type = "uri";
		s = g->d.uniformResourceIdentifier;
	} else if (g->type == GEN_EMAIL) {
		*type = "email";
		s = g->d.rfc822Name;
	} else if (g->type == GEN_OTHERNAME &&
	    OBJ_obj2txt(oid, sizeof(oid), g->d.otherName->type_id, 1) > 0 &&
	    strcmp(oid, SIGSTORE_FULCIO_ARC "7") == 0 &&
	    g->d.otherName->value->type == V_ASN1_UTF8STRING) {
		*type = "othername";
		s = g->d.otherName->value->value.utf8string;
	}
	if (s == NULL || !text_ok(ASN1_STRING_get0_data(s),
	    (size_t)ASN1_STRING_length(s)))
		return NULL;
	return strndup((const char *)ASN1_STRING_get0_data(s),
	    (size_t)ASN1_STRING_length(s));
}

/* What a subject alternative name that is not the identity is, for the
 * refusal's "found". */
static const char *
san_kind(const GENERAL_NAME *g)
{
	switch (g->type) {
	case GEN_URI:
		return "a URI that is not UTF-8 text without control characters";
	case GEN_EMAIL:
		return "an email address that is not UTF-8 text without control "
		    "characters";
	case GEN_OTHERNAME:
		return "an OtherName that is not Fulcio's (1.3.6.1.4.1.57264.1.7, "
		    "a UTF8String) or not text";
	case GEN_DNS:
		return "a DNS name";
	case GEN_IPADD:
		return "an IP address";
	case GEN_DIRNAME:
		return "a directory name";
	default:
		return "a name of another type";
	}
}

static int
read_san(X509 *leaf, const char *subject, ps_sigstore_certificate *out,
    ps_error *err)
{
	GENERAL_NAMES *names = X509_get_ext_d2i(leaf, NID_subject_alt_name, NULL,
	    NULL);
	const char *type = NULL, *kind = NULL;
	int n = names != NULL ? sk_GENERAL_NAME_num(names) : 0;
	char *san = NULL, found[64];

	ERR_clear_error();
	if (n == 1) {
		san = san_text(sk_GENERAL_NAME_value(names, 0), &type);
		kind = san_kind(sk_GENERAL_NAME_value(names, 0));
	}
	GENERAL_NAMES_free(names);
	if (san == NULL || type == NULL) {
		free(san);
		snprintf(found, sizeof(found), "%d subject alternative names", n);
		util_refuse(err, "certificate_san", subject, "looked for the "
		    "signer's identity in the certificate's subject alternative "
		    "names");
		return util_error_expect(err, "exactly one, a URI, an email "
		    "address or Fulcio's OtherName", n == 1 ? kind : found);
	}
	out->san = san;
	out->san_type = strdup(type);
	return out->san_type == NULL ? util_fail_oom(err, subject) : 0;
}

/* The last arc of an OID of Fulcio's arc, or -1. */
static int
fulcio_arc(const ASN1_OBJECT *obj, char oid[64])
{
	size_t plen = strlen(SIGSTORE_FULCIO_ARC);
	char *end;
	long n;

	if (OBJ_obj2txt(oid, 64, obj, 1) <= 0 ||
	    strncmp(oid, SIGSTORE_FULCIO_ARC, plen) != 0)
		return -1;
	n = strtol(oid + plen, &end, 10);
	return *end == '\0' && n > 0 && n < 1000 ? (int)n : -1;
}

static int
add_extension(ps_sigstore_certificate *out, const char *oid, int n,
    X509_EXTENSION *ext, const char *subject, ps_error *err)
{
	const ASN1_OCTET_STRING *data = X509_EXTENSION_get_data(ext);
	ps_sigstore_extension *e = &out->extensions[out->extension_count];
	char **field = field_of(out, (unsigned)n);

	e->value = sigstore_fulcio_value(ASN1_STRING_get0_data(data),
	    (size_t)ASN1_STRING_length(data), n <= 6);
	if (e->value == NULL)
		return util_refuse(err, "certificate_extension_invalid", subject,
		    "the certificate's extension %s is not %s of at most %d bytes",
		    oid, n <= 6 ? "UTF-8 text" : "a DER UTF8String",
		    SIGSTORE_EXTENSION_MAX);
	snprintf(e->oid, sizeof(e->oid), "%s", oid);
	out->extension_count++;
	if (n == 8 || (n == 1 && out->issuer == NULL)) {
		free(out->issuer);
		out->issuer = strdup(e->value);
		return out->issuer == NULL ? util_fail_oom(err, subject) : 0;
	}
	if (field != NULL && *field == NULL &&
	    (*field = strdup(e->value)) == NULL)
		return util_fail_oom(err, subject);
	return 0;
}

static int
read_extensions(X509 *leaf, const char *subject, ps_sigstore_certificate *out,
    ps_error *err)
{
	int i, n, count = X509_get_ext_count(leaf);
	X509_EXTENSION *ext;
	char oid[64];

	out->extensions = calloc(SIGSTORE_EXTENSIONS_MAX,
	    sizeof(*out->extensions));
	if (out->extensions == NULL)
		return util_fail_oom(err, subject);
	for (i = 0; i < count; i++) {
		ext = X509_get_ext(leaf, i);
		n = fulcio_arc(X509_EXTENSION_get_object(ext), oid);
		if (n < 0)
			continue;
		if (out->extension_count == SIGSTORE_EXTENSIONS_MAX)
			return util_refuse(err, "certificate_extension_invalid",
			    subject, "more than %d extensions of Fulcio's arc",
			    SIGSTORE_EXTENSIONS_MAX);
		if (add_extension(out, oid, n, ext, subject, err) != 0)
			return -1;
	}
	return 0;
}

/* Seconds since the epoch of an ASN1_TIME. */
static int64_t
epoch_of(const ASN1_TIME *t)
{
	struct tm tm;

	memset(&tm, 0, sizeof(tm));
	if (ASN1_TIME_to_tm(t, &tm) != 1)
		return 0;
	return (int64_t)timegm(&tm);
}

static void
read_ids(X509 *leaf, ps_sigstore_certificate *out)
{
	unsigned char *der = NULL, digest[PS_SHA256_LEN];
	const ASN1_INTEGER *serial = X509_get0_serialNumber(leaf);
	BIGNUM *bn = ASN1_INTEGER_to_BN(serial, NULL);
	char *hex = bn != NULL ? BN_bn2hex(bn) : NULL;
	int len = i2d_X509(leaf, &der);
	size_t i;

	snprintf(out->serial, sizeof(out->serial), "%s", hex != NULL ? hex : "");
	OPENSSL_free(hex);
	BN_free(bn);
	if (len > 0 && util_sha256_buffer(der, (size_t)len, digest) == 0) {
		for (i = 0; i < sizeof(digest); i++)
			snprintf(out->sha256 + 2 * i, 3, "%02x", digest[i]);
	}
	OPENSSL_free(der);
	out->not_before = epoch_of(X509_get0_notBefore(leaf));
	out->not_after = epoch_of(X509_get0_notAfter(leaf));
}

int
sigstore_fulcio_read(X509 *leaf, const char *subject,
    ps_sigstore_certificate *out, ps_error *err)
{
	memset(out, 0, sizeof(*out));
	read_ids(leaf, out);
	if (read_san(leaf, subject, out, err) != 0 ||
	    read_extensions(leaf, subject, out, err) != 0)
		return -1;
	return 0;
}
