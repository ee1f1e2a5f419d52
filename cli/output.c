/* What commands print besides results: safe text, errors, usage errors. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/output.h"

/*
 * The code point of a format character that reorders or hides text:
 * U+061C, U+200B-U+200F, U+202A-U+202E, U+2066-U+2069, U+FEFF ("Trojan
 * Source": a bidi override makes `curl x | sh` read as something else).
 * 0 for anything else.
 */
static unsigned
hidden_format(const unsigned char *p)
{
	unsigned c;

	if (p[0] == 0xd8 && p[1] == 0x9c)
		return 0x061c;
	if (p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
		return 0xfeff;
	if (p[0] != 0xe2 || (p[1] != 0x80 && p[1] != 0x81) || p[2] < 0x80 ||
	    p[2] > 0xbf)
		return 0;
	c = 0x2000 | ((unsigned)(p[1] & 0x3f) << 6) | (p[2] & 0x3f);
	return (c >= 0x200b && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) ||
	    (c >= 0x2066 && c <= 0x2069) ? c : 0;
}

void
cli_put_safe(FILE *out, const char *text)
{
	const unsigned char *p;
	unsigned c;

	for (p = (const unsigned char *)text; *p != '\0'; p++) {
		/* C0 controls, DEL, and C1 controls (U+0080-U+009F in UTF-8). */
		if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\x%02x", *p);
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			fprintf(out, "\\u%04x", p[1]);
			p++;
		} else if ((c = hidden_format(p)) != 0) {
			fprintf(out, "\\u%04x", c);
			p += c == 0x061c ? 1 : 2;
		} else
			fputc(*p, out);
	}
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
