/* ps_process_init: OpenSSL started without its configuration. */
#include <openssl/crypto.h>

#include "packsign.h"
#include "util/error.h"

static int
process_init(uint64_t opts, ps_error *err)
{
	opts |= OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_ATEXIT |
	    OPENSSL_INIT_NO_ADD_ALL_CIPHERS;
	if (OPENSSL_init_crypto(opts, NULL) != 1)
		return util_fail(err, "crypto_error", NULL, "OpenSSL refused to "
		    "start without its configuration file");
	return 0;
}

int
ps_process_init(ps_error *err)
{
	/* The legacy cipher and digest tables, which OpenSSL 3 copies into
	 * its name map on the first fetch, are names packsign never looks
	 * up: the providers' own names (SHA2-256, EC, ...) remain. */
	return process_init(OPENSSL_INIT_NO_ADD_ALL_DIGESTS, err);
}

int
ps_process_init_x509(ps_error *err)
{
	/* OpenSSL 3.0 verifies a certificate's signature with the digest it
	 * looks up by NID in the legacy table (ASN1_item_verify_ctx() calls
	 * EVP_get_digestbynid()): without it every chain fails. */
	return process_init(0, err);
}
