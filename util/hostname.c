#include <ctype.h>

#include "util/hostname.h"

int
util_hostname_valid(const char *host, size_t len)
{
	size_t label = 0, i;
	unsigned char c;

	if (len == 0 || len > UTIL_HOSTNAME_MAX)
		return 0;
	for (i = 0; i <= len; i++) {
		c = i < len ? (unsigned char)host[i] : '\0';
		if (c == '.' || c == '\0') {
			if (label == 0 || label > 63 || host[i - 1] == '-')
				return 0;
			label = 0;
			continue;
		}
		if (isalnum(c) == 0 && c != '-')
			return 0;
		if (label == 0 && c == '-')
			return 0;
		label++;
	}
	return 1;
}
