/* What commands print besides results: safe text, errors, usage errors. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/output.h"

void
cli_put_safe(FILE *out, const char *text)
{
	const unsigned char *p;
	unsigned c;
	size_t n;

	for (p = (const unsigned char *)text; *p != '\0'; p++) {
		/* C0 controls, DEL, C1 controls (U+0080-U+009F in UTF-8), and a
		 * byte that begins no well-formed UTF-8 character, which a
		 * terminal would guess at. */
		if (*p < 0x20 || *p == 0x7f || (*p >= 0x80 &&
		    ps_text_char_length((const char *)p) == 0))
			fprintf(out, "\\x%02x", *p);
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			fprintf(out, "\\u%04x", p[1]);
			p++;
		} else if ((n = ps_text_hidden((const char *)p, &c)) > 0) {
			/* bidi controls and invisible marks ("Trojan Source") */
			fprintf(out, "\\u%04x", c);
			p += n - 1;
		} else if (*p < 0x80)
			fputc(*p, out);
		else {
			n = ps_text_char_length((const char *)p);
			fwrite(p, 1, n, out);
			p += n - 1;
		}
	}
}

void
cli_put_line(FILE *out, const char *label, const char *text)
{
	fputs(label, out);
	cli_put_safe(out, text);
	fputc('\n', out);
}

void
cli_print_error(const ps_error *err)
{
	char line[4 * PS_ERROR_TEXT_MAX];

	fputs("packsign: ", stderr);
	cli_put_safe(stderr, ps_error_format(err, line, sizeof(line)));
	fputc('\n', stderr);
}

static void
error_vset(ps_error *err, ps_status status, const char *code,
    const char *subject, const char *fmt, va_list ap)
{
	ps_error_clear(err);
	err->status = status;
	snprintf(err->code, sizeof(err->code), "%s", code);
	snprintf(err->subject, sizeof(err->subject), "%s", subject);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
}

int
cli_error_set(ps_error *err, ps_status status, const char *code,
    const char *subject, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_vset(err, status, code, subject, fmt, ap);
	va_end(ap);
	return -1;
}

int
cli_error_oom(ps_error *err)
{
	return cli_error_set(err, PS_STATUS_FAILED, "out_of_memory", "",
	    "allocate");
}

int
cli_fail(const char *code, const char *subject, const char *fmt, ...)
{
	ps_error err;
	va_list ap;

	va_start(ap, fmt);
	error_vset(&err, PS_STATUS_FAILED, code, subject, fmt, ap);
	va_end(ap);
	return cli_report(&err);
}

int
cli_fail_oom(void)
{
	ps_error err;

	cli_error_oom(&err);
	return cli_report(&err);
}

int
cli_usage_error(const struct cli_usage *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "packsign %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " [usage]\n");
	fprintf(stderr, "%.*s", (int)(strcspn(cmd->text, "\n") + 1), cmd->text);
	return EXIT_FAILED;
}
