/* Internal header of sigstore/: what a Fulcio certificate says.
 *
 * The subject alternative name (Fulcio issues exactly one: a URI, an
 * email address or an OtherName 1.3.6.1.4.1.57264.1.7 UTF8String) and the
 * extensions of Fulcio's arc 1.3.6.1.4.1.57264.1 (docs/oid-info.md of
 * sigstore/fulcio): .1 to .6 hold the value's bytes themselves (legacy),
 * .8 onwards a DER UTF8String.  docs/formats/sigstore.md, section 7.3.
 * Read only once the certificate's chain verified (step 5).
 */
#ifndef SIGSTORE_FULCIO_H
#define SIGSTORE_FULCIO_H

#include <openssl/x509.h>

#include "packsign.h"

#define SIGSTORE_FULCIO_ARC "1.3.6.1.4.1.57264.1."
#define SIGSTORE_EXTENSION_MAX 4096      /* bytes of one value */
#define SIGSTORE_EXTENSIONS_MAX 64

/*
 * Fills `out` from the leaf: SAN, issuer, every named field, the list of
 * the arc's extensions, validity, serial and SHA-256.  Codes (exit 1):
 * certificate_san (not exactly one SAN of the three kinds),
 * certificate_extension_invalid (a value that is not UTF-8 text of its
 * encoding, or too long).  `out` is cleared first; free it with
 * sigstore_fulcio_clear().
 */
int sigstore_fulcio_read(X509 *leaf, const char *subject,
    ps_sigstore_certificate *out, ps_error *err);
void sigstore_fulcio_clear(ps_sigstore_certificate *c);

/*
 * One extension's value as text: `raw` (legacy .1 to .6) the bytes
 * themselves, else a DER UTF8String.  malloc'd, NUL-terminated; NULL when
 * it is not valid UTF-8 of at most SIGSTORE_EXTENSION_MAX bytes, or holds
 * a NUL or a control character.
 */
char *sigstore_fulcio_value(const unsigned char *data, size_t len, int raw);

#endif
