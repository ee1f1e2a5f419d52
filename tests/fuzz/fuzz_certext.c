/*
 * Fulcio certificates (sigstore/fulcio.c): byte 0 selects what the rest
 * is.  Even: a DER certificate, read with sigstore_fulcio_read (SAN,
 * issuer, every extension of Fulcio's arc); odd: one extension value,
 * read as the legacy raw form (bit 1) or as a DER UTF8String.  Every
 * value read is UTF-8 without control characters and at most
 * SIGSTORE_EXTENSION_MAX bytes; the named fields are among the
 * extensions read; a refusal is exit 1.
 */
#include <stdint.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/x509.h>
#include <unistr.h>

#include "fuzz.h"
#include "sigstore/fulcio.h"

static void
check_text(const char *s, const char *what)
{
	size_t i, n;

	if (s == NULL)
		return;
	n = strlen(s);
	if (n > SIGSTORE_EXTENSION_MAX || u8_check((const uint8_t *)s, n) != NULL)
		fuzz_fail(what, "not bounded UTF-8");
	for (i = 0; i < n; i++) {
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			fuzz_fail(what, "control character");
	}
}

/* A named field's value is one of the extensions' values. */
static void
check_named(const ps_sigstore_certificate *c, const char *v)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < c->extension_count; i++) {
		if (strcmp(c->extensions[i].value, v) == 0)
			return;
	}
	fuzz_fail("certificate", "a named field is no extension's value");
}

static void
read_certificate(const uint8_t *data, size_t size)
{
	const unsigned char *p = data;
	ps_sigstore_certificate c;
	X509 *x = d2i_X509(NULL, &p, (long)size);
	ps_error err;
	size_t i;

	ERR_clear_error();
	if (x == NULL)
		return;
	ps_error_clear(&err);
	if (sigstore_fulcio_read(x, "fuzz", &c, &err) != 0) {
		fuzz_check_error(&err, "sigstore_fulcio_read");
		if (err.status != PS_STATUS_REFUSED && strcmp(err.code,
		    "out_of_memory") != 0)
			fuzz_fail("sigstore_fulcio_read", "not a refusal");
	} else {
		fuzz_note("sigstore_fulcio_read", c.san);
		check_text(c.san, "san");
		check_text(c.issuer, "issuer");
		check_named(&c, c.issuer);
		check_named(&c, c.source_repository_uri);
		check_named(&c, c.build_signer_uri);
		for (i = 0; i < c.extension_count; i++)
			check_text(c.extensions[i].value, c.extensions[i].oid);
	}
	sigstore_fulcio_clear(&c);
	X509_free(x);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *v;

	if (size < 1)
		return 0;
	if ((data[0] & 1) == 0) {
		read_certificate(data + 1, size - 1);
		return 0;
	}
	v = sigstore_fulcio_value(data + 1, size - 1, (data[0] & 2) != 0);
	check_text(v, "sigstore_fulcio_value");
	free(v);
	return 0;
}
