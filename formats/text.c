#include <stdlib.h>
#include <string.h>

#include "formats/check.h"
#include "formats/text.h"

const char *
formats_text_value(formats_text *t, const char *s)
{
	char **grown, *copy;

	if (s == NULL)
		return "?";
	/* Fast path: nothing formats_check_scrub would change (C0, DEL, and
	 * the lead bytes of C1 and of the invisible controls). */
	if (strpbrk(s, "\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r"
	    "\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b"
	    "\x1c\x1d\x1e\x1f\x7f\xc2\xe2\xef") == NULL)
		return s;
	grown = realloc(t->owned, (t->count + 1) * sizeof(*grown));
	if (grown == NULL || (copy = strdup(s)) == NULL) {
		if (grown != NULL)
			t->owned = grown;
		t->oom = 1;
		return "?";
	}
	t->owned = grown;
	formats_check_scrub(copy);
	t->owned[t->count++] = copy;
	return copy;
}

void
formats_text_join(formats_text *t, const ps_strings *list)
{
	size_t i;

	for (i = 0; i < list->count; i++)
		fprintf(t->f, "%s%s", i > 0 ? FORMATS_TR(t, ", ", "、") : "",
		    formats_text_value(t, list->items[i]));
}

void
formats_text_egress(formats_text *t, const ps_manifest *m)
{
	size_t i;

	for (i = 0; i < m->egress_count; i++) {
		fprintf(t->f, "%s%s", i > 0 ? FORMATS_TR(t, ", ", "、") : "",
		    formats_text_value(t, m->egress[i].host));
		if (m->egress[i].port != 0)
			fprintf(t->f, ":%u", m->egress[i].port);
		if (m->egress[i].protocol != NULL)
			fprintf(t->f, " (%s)", formats_text_value(t,
			    m->egress[i].protocol));
	}
}
