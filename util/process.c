/* ps_process_init: OpenSSL started without its configuration. */
#include <openssl/crypto.h>

#include "packsign.h"
#include "util/error.h"

int
ps_process_init(ps_error *err)
{
	/* The legacy cipher and digest tables, which OpenSSL 3 copies into
	 * its name map on the first fetch, are names packsign never looks
	 * up: the providers' own names (SHA2-256, EC, ...) remain. */
	uint64_t opts = OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_ATEXIT |
	    OPENSSL_INIT_NO_ADD_ALL_CIPHERS | OPENSSL_INIT_NO_ADD_ALL_DIGESTS;

	if (OPENSSL_init_crypto(opts, NULL) != 1)
		return util_fail(err, "crypto_error", NULL, "OpenSSL refused to "
		    "start without its configuration file");
	return 0;
}
