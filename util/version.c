/* What the library says of itself: its version and ABI number. */
#include "packsign.h"

const char *
ps_version(void)
{
	return PS_VERSION;
}

int
ps_abi_version(void)
{
	return PS_ABI_VERSION;
}
