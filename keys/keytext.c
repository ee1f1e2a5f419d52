/* What a key file's text is, before it is parsed as one kind. */
#include "keys/keys.h"

int
ps_key_text_is_secret(const unsigned char *text, size_t len)
{
	ps_seckey_info info;
	ps_error err;

	if (ps_pem_is_private(text, len))
		return 1;
	if (ps_seckey_inspect(text, len, "", &info, &err) == 0)
		return 1;
	/* These codes are only reached once 158 bytes decoded. */
	return ps_error_is(&err, PS_CODE_KEY_UNSUPPORTED_ALGORITHM) ||
	    ps_error_is(&err, PS_CODE_KEY_UNSUPPORTED_KDF) ||
	    ps_error_is(&err, PS_CODE_KEY_KDF_LIMITS);
}
