#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistr.h>

#include "diff/textdiff.h"
#include "dynlib/git.h"
#include "util/error.h"

struct collect {
	FILE *f;
	char *buf;
	size_t size;
	size_t lines, max_lines;
	diff_textdiff *out;
};

/* A line counts, and is written while the bound allows. */
static int
keep_line(struct collect *c, const char *prefix, const char *text, size_t len)
{
	if (c->lines >= c->max_lines) {
		c->out->truncated = 1;
		return 0;
	}
	c->lines++;
	fputs(prefix, c->f);
	fwrite(text, 1, len, c->f);
	if (len == 0 || text[len - 1] != '\n')
		fputc('\n', c->f);
	return 0;
}

static int
on_hunk(const git_diff_delta *delta, const git_diff_hunk *hunk, void *payload)
{
	(void)delta;
	return keep_line(payload, "", hunk->header, hunk->header_len);
}

static int
on_line(const git_diff_delta *delta, const git_diff_hunk *hunk,
    const git_diff_line *line, void *payload)
{
	struct collect *c = payload;
	char prefix[2] = { line->origin, '\0' };

	(void)delta;
	(void)hunk;
	if (line->origin == GIT_DIFF_LINE_ADDITION)
		c->out->added++;
	else if (line->origin == GIT_DIFF_LINE_DELETION)
		c->out->removed++;
	else if (line->origin != GIT_DIFF_LINE_CONTEXT)
		return 0;           /* "\ No newline at end of file" markers */
	return keep_line(c, prefix, line->content, line->content_len);
}

/* A NUL byte, or bytes that are not UTF-8: not a text to show (nor to
 * put in the JSON, which holds only Unicode). */
static int
is_binary(const char *text, size_t len)
{
	return text != NULL && (memchr(text, '\0', len) != NULL ||
	    u8_check((const uint8_t *)text, len) != NULL);
}

int
diff_text_compare(const char *old, size_t old_len, const char *new_text,
    size_t new_len, size_t max_lines, diff_textdiff *out, ps_error *err)
{
	dynlib_git git;
	git_diff_options opts;
	struct collect c;
	int rc;

	memset(out, 0, sizeof(*out));
	if (is_binary(old, old_len) || is_binary(new_text, new_len)) {
		out->binary = 1;
		return 0;
	}
	if (dynlib_git_open(&git, "showing how a text changed", err) != 0)
		return -1;
	memset(&c, 0, sizeof(c));
	c.max_lines = max_lines;
	c.out = out;
	if ((c.f = open_memstream(&c.buf, &c.size)) == NULL) {
		dynlib_git_close(&git);
		return util_fail_oom(err, NULL);
	}
	rc = git.diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	/* Text either way: packsign decides binary itself (a NUL byte). */
	opts.flags |= GIT_DIFF_FORCE_TEXT;
	opts.context_lines = 3;
	if (rc == 0)
		rc = git.diff_buffers(old, old != NULL ? old_len : 0, "old",
		    new_text, new_text != NULL ? new_len : 0, "new", &opts, NULL,
		    NULL, on_hunk, on_line, &c);
	dynlib_git_close(&git);
	if (fclose(c.f) != 0 || rc != 0) {
		free(c.buf);
		return rc != 0 ? util_fail(err, "internal_error", NULL, "the text "
		    "diff failed") : util_fail_oom(err, NULL);
	}
	out->text = c.buf;
	return 0;
}
