/*
 * A diff as text (docs/formats/diff.md, "Text"): the groups in order,
 * one change a line, widening marked with its consent class, text diffs
 * indented below their file.  Every value comes from a pack: all of it
 * goes through cli_put_safe().
 */
#include <stdio.h>
#include <string.h>

#include "cli/diff_report.h"
#include "cli/output.h"

#define TR(lang, en, zh) ((lang) == PS_LANG_ZH ? (zh) : (en))

static const char *
group_title(ps_diff_group g, ps_lang lang)
{
	switch (g) {
	case PS_DIFF_TRUST:
		return TR(lang, "Trust", "信任");
	case PS_DIFF_PERMISSIONS:
		return TR(lang, "Permissions", "权限");
	case PS_DIFF_PROMPTS:
		return TR(lang, "Prompts", "提示词文件");
	case PS_DIFF_CODE:
		return TR(lang, "Code", "代码");
	default:
		return TR(lang, "Other files", "其他文件");
	}
}

/* A change of one file: its path is the subject, its digests the values
 * (not worth a line of hex). */
static int
is_file_field(const ps_diff_change *c)
{
	return c->subject != NULL && (strcmp(c->field, "prompt") == 0 ||
	    strcmp(c->field, "code") == 0 || strcmp(c->field, "file") == 0);
}

/* The subject is the value, or ends with " " and the value ("service.ports
 * web 80:80"): saying the value again adds nothing. */
static int
subject_says(const char *subject, const char *value)
{
	size_t n = strlen(subject), k = strlen(value);

	return strcmp(subject, value) == 0 || (n > k && subject[n - k - 1] ==
	    ' ' && strcmp(subject + n - k, value) == 0);
}

static char
marker(ps_diff_kind kind)
{
	return kind == PS_DIFF_ADDED ? '+' : kind == PS_DIFF_REMOVED ? '-' : '~';
}

/* "old -> new", "new", or "old", as the kind has them. */
static void
print_values(FILE *out, const ps_diff_change *c)
{
	const char *only = c->kind == PS_DIFF_ADDED ? c->new_value : c->old_value;

	if (c->kind != PS_DIFF_CHANGED) {
		/* "egress h:443/https", "service.ports web 80:80": the
		 * subject already ends with the value. */
		if (only != NULL && (c->subject == NULL ||
		    !subject_says(c->subject, only))) {
			fputs(": ", out);
			cli_put_safe(out, only);
		}
		return;
	}
	fputs(": ", out);
	cli_put_safe(out, c->old_value != NULL ? c->old_value : "none");
	fputs(" -> ", out);
	cli_put_safe(out, c->new_value != NULL ? c->new_value : "none");
}

/* Why a file change shows no text: a user asked about a prompt must not
 * read its absence as "nothing changed in it". */
static void
print_omitted(FILE *out, const ps_diff_change *c, ps_lang lang)
{
	if (c->text_omitted == NULL)
		return;
	if (strcmp(c->text_omitted, PS_DIFF_TEXT_TOO_LARGE) == 0)
		fputs(TR(lang, " (too large for a text diff)",
		    "（太大，不显示文本差异）"), out);
	else
		fputs(TR(lang, " (binary: no text diff)",
		    "（二进制，不显示文本差异）"), out);
}

static void
print_change(FILE *out, const ps_diff_change *c, ps_lang lang)
{
	fprintf(out, "  %c ", marker(c->kind));
	if (is_file_field(c)) {
		cli_put_safe(out, c->subject);
		if (c->lines_added > 0 || c->lines_removed > 0)
			fprintf(out, " (+%zu -%zu)", c->lines_added,
			    c->lines_removed);
		print_omitted(out, c, lang);
	} else {
		cli_put_safe(out, c->field);
		if (c->subject != NULL) {
			fputc(' ', out);
			cli_put_safe(out, c->subject);
		}
		print_values(out, c);
	}
	if (c->widening && c->consent != 0)
		fprintf(out, "  [%s: %s]", TR(lang, "widening", "扩大"),
		    ps_consent_class_name(c->consent));
	fputc('\n', out);
}

/* The text diff, each line indented; cli_put_safe() escapes what a
 * prompt could smuggle to the terminal. */
static void
print_text(FILE *out, const ps_diff_change *c, ps_lang lang)
{
	const char *line = c->text_diff, *end;
	char buf[4096];
	size_t n;

	while (line != NULL && *line != '\0') {
		end = strchr(line, '\n');
		n = end != NULL ? (size_t)(end - line) : strlen(line);
		snprintf(buf, sizeof(buf), "%.*s", (int)(n < sizeof(buf) ? n :
		    sizeof(buf) - 1), line);
		fputs("      ", out);
		cli_put_safe(out, buf);
		fputc('\n', out);
		line = end != NULL ? end + 1 : line + n;
	}
	if (c->text_truncated)
		fprintf(out, "      %s\n", TR(lang, "... (more lines: --lines N "
		    "shows more)", "……（还有更多行：--lines N 显示更多）"));
}

static void
print_file_counts(FILE *out, const ps_diff *d, ps_lang lang)
{
	fprintf(out, lang == PS_LANG_ZH ? "%s：新增 %zu，删除 %zu，修改 %zu\n" :
	    "%s: %zu added, %zu removed, %zu changed\n",
	    group_title(PS_DIFF_OTHER, lang), d->files_added, d->files_removed,
	    d->files_changed);
}

static void
print_header(FILE *out, const ps_diff *d, ps_lang lang)
{
	fprintf(out, "%s ", ps_format_name(d->format));
	cli_put_safe(out, d->id);
	fputs(": ", out);
	cli_put_safe(out, d->old_version);
	fputs(" -> ", out);
	cli_put_safe(out, d->new_version);
	fputc('\n', out);
	if (!d->trusted)
		fprintf(out, "%s\n", TR(lang, "Trust: not compared (a side is a "
		    "pack directory, which carries no signature)",
		    "信任：未比较（有一侧是包目录，没有签名）"));
}

static void
print_summary(FILE *out, const ps_diff *d, unsigned asked, ps_lang lang)
{
	char all[128], needed[128];

	if (d->widening_classes == 0)
		return;
	ps_consent_class_list(d->widening_classes, all, sizeof(all));
	ps_consent_class_list(d->widening_classes & asked, needed, sizeof(needed));
	fprintf(out, lang == PS_LANG_ZH ? "扩大：%s（升级时需同意：%s）\n" :
	    "Widening: %s (an upgrade asks consent for: %s)\n", all,
	    needed[0] != '\0' ? needed : TR(lang, "none", "无"));
}

void
cli_diff_print(FILE *out, const ps_diff *d, const struct cli_diff_style *s)
{
	int group = -1;
	size_t i;

	if (ps_diff_empty(d))
		return;
	print_header(out, d, s->lang);
	for (i = 0; i < d->change_count; i++) {
		const ps_diff_change *c = &d->changes[i];

		if (c->group == PS_DIFF_OTHER && strcmp(c->field, "file") == 0 &&
		    !s->files)
			continue;
		if ((int)c->group != group) {
			group = (int)c->group;
			fprintf(out, "%s%s\n", group_title(c->group, s->lang),
			    TR(s->lang, ":", "："));
		}
		print_change(out, c, s->lang);
		if (!s->stat)
			print_text(out, c, s->lang);
	}
	if (!s->files && d->files_added + d->files_removed + d->files_changed > 0)
		print_file_counts(out, d, s->lang);
	print_summary(out, d, s->asked, s->lang);
}

void
cli_diff_print_widening(FILE *out, const ps_diff *d, unsigned classes,
    ps_lang lang)
{
	size_t i;

	for (i = 0; d != NULL && i < d->change_count; i++) {
		if (d->changes[i].widening &&
		    (d->changes[i].consent & classes) != 0)
			print_change(out, &d->changes[i], lang);
	}
}
