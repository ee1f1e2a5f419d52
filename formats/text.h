/* Internal header of formats/: writing what a pack may do.
 *
 * The plain-language summary (ps_manifest_describe) is written in English
 * or Chinese, one sentence a line.  Each format's describer writes its own
 * sentences through these helpers; manifest values pass through
 * formats_text_value first, so that a control character in a name cannot
 * forge or hide a line.
 */
#ifndef FORMATS_TEXT_H
#define FORMATS_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "packsign.h"

typedef struct formats_text {
	FILE *f;
	ps_lang lang;
	char **owned;            /* scrubbed copies, freed at the end */
	size_t count;
	int oom;                 /* 1 once memory ran out: the text is void */
} formats_text;

/* The English or the Chinese text, by the summary's language; a macro so
 * that printf formats stay literals the compiler checks. */
#define FORMATS_TR(t, en, zh) ((t)->lang == PS_LANG_ZH ? (zh) : (en))

/* `s` made safe for one line of the summary ("?" for NULL); owned by `t`
 * when it had to be copied. */
const char *formats_text_value(formats_text *t, const char *s);

/* The items of a list joined by ", " (or "、"). */
void formats_text_join(formats_text *t, const ps_strings *list);

/* The egress rules, "host:port (protocol)", joined likewise. */
void formats_text_egress(formats_text *t, const ps_manifest *m);

#endif
