/* ps_process_init: OpenSSL started without its configuration. */
#include <openssl/crypto.h>

#include "packsign.h"
#include "util/error.h"

int
ps_process_init(ps_error *err)
{
	uint64_t opts = OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_ATEXIT;

	if (OPENSSL_init_crypto(opts, NULL) != 1)
		return util_fail(err, "crypto_error", NULL, "OpenSSL refused to "
		    "start without its configuration file");
	return 0;
}
