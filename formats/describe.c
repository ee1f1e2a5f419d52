/*
 * Plain-language summaries of what a pack may do, in English and Chinese,
 * as an installer shows them before install.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/format.h"
#include "formats/text.h"
#include "util/error.h"

static void
header(formats_text *t, const ps_manifest *m)
{
	int named = m->name != NULL && (m->id == NULL ||
	    strcmp(m->name, m->id) != 0);
	char *first;

	fprintf(t->f, "%s %s (%s)%s%s\n", formats_text_value(t, m->id), formats_text_value(t, m->version),
	    ps_format_name(m->format), named != 0 ? ": " : "",
	    named != 0 ? formats_text_value(t, m->name) : "");
	if (m->description == NULL)
		return;
	first = strndup(m->description, strcspn(m->description, "\n"));
	if (first == NULL) {
		t->oom = 1;
		return;
	}
	fprintf(t->f, "%s\n", formats_text_value(t, first));
	free(first);
}

static void
prompts(formats_text *t, const ps_manifest *m)
{
	size_t i;

	if (m->prompt_count == 0) {
		fprintf(t->f, "%s\n", FORMATS_TR(t, "No prompt files besides the "
		    "manifest.", "除清单外没有提示词文件。"));
		return;
	}
	fprintf(t->f, "%s", FORMATS_TR(t, "Prompt files: ", "提示词文件："));
	for (i = 0; i < m->prompt_count; i++)
		fprintf(t->f, "%s%s", i > 0 ? FORMATS_TR(t, ", ", "、") : "",
		    formats_text_value(t, m->prompts[i].path));
	fprintf(t->f, "%s\n", FORMATS_TR(t, ".", "。"));
}

static void
capabilities(formats_text *t, const ps_manifest *m)
{
	const formats_descriptor *d = formats_of(m->format);

	if (d != NULL)
		d->describe(t, m);
}

static void
full_summary(formats_text *t, const ps_manifest *m)
{
	header(t, m);
	capabilities(t, m);
	prompts(t, m);
	if (m->signed_by.count > 0) {
		fprintf(t->f, "%s", FORMATS_TR(t, "Declared signers: ", "声明的签名者："));
		formats_text_join(t, &m->signed_by);
		fprintf(t->f, "%s\n", FORMATS_TR(t, ".", "。"));
	}
}

/* Runs `write` into a new string. */
static int
render(const ps_manifest *m, ps_lang lang,
    void (*write)(formats_text *, const ps_manifest *), char **out, ps_error *err)
{
	formats_text t = { NULL, lang, NULL, 0, 0 };
	size_t len = 0, i;
	int bad;

	*out = NULL;
	if ((t.f = open_memstream(out, &len)) == NULL)
		return util_fail_oom(err, "");
	write(&t, m);
	bad = ferror(t.f) != 0 || t.oom != 0;
	bad = fclose(t.f) != 0 || bad;
	for (i = 0; i < t.count; i++)
		free(t.owned[i]);
	free(t.owned);
	if (bad != 0) {
		free(*out);
		*out = NULL;
		return util_fail_oom(err, "");
	}
	return 0;
}

int
ps_manifest_describe(const ps_manifest *m, ps_lang lang, char **out,
    ps_error *err)
{
	return render(m, lang, full_summary, out, err);
}

int
ps_manifest_permissions(const ps_manifest *m, char **out, ps_error *err)
{
	char *p;

	if (render(m, PS_LANG_EN, capabilities, out, err) != 0)
		return -1;
	for (p = *out; *p != '\0'; p++) {
		if (*p == '\n')
			*p = p[1] != '\0' ? ' ' : '\0';
	}
	return 0;
}
