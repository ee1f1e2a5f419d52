#include "util/error.h"
#include "util/locale.h"

int
util_locale_enter(util_locale_scope *scope, ps_error *err)
{
	scope->utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	if (scope->utf8 == (locale_t)0)
		return util_fail(err, "locale_unavailable", "C.UTF-8",
		    "the C.UTF-8 locale is needed to write UTF-8 names");
	scope->previous = uselocale(scope->utf8);
	return 0;
}

void
util_locale_leave(util_locale_scope *scope)
{
	if (scope->utf8 == (locale_t)0)
		return;
	uselocale(scope->previous);
	freelocale(scope->utf8);
	scope->utf8 = (locale_t)0;
}
