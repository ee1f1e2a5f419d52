/*
 * The text shape of minisign key files (docs/formats/keys.md): an
 * "untrusted comment: " line, then one base64 line, then only blanks.
 * Public and secret key files share it.
 */
#include <string.h>

#include "keys/keys.h"
#include "util/error.h"

int
keys_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Trims blanks on both sides of [*start, *start + *len). */
void
keys_trim(const char **start, size_t *len)
{
	while (*len > 0 && keys_is_blank(**start)) {
		(*start)++;
		(*len)--;
	}
	while (*len > 0 && keys_is_blank((*start)[*len - 1]))
		(*len)--;
}

int
keys_starts_with(const char *text, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(text, prefix, n) == 0;
}

int
keys_split_file(const char *text, size_t len, const char *name,
    keys_lines *lines, ps_error *err)
{
	const char *nl = memchr(text, '\n', len), *rest;
	size_t rest_len;

	if (len > PS_KEY_FILE_MAX)
		return util_fail(err, "input_too_large", name,
		    "a key file is at most %d bytes", PS_KEY_FILE_MAX);
	if (!keys_starts_with(text, len, KEYS_COMMENT_PREFIX) || nl == NULL)
		return util_fail(err, "key_malformed", name, "expected a line "
		    "'" KEYS_COMMENT_PREFIX "...' and a base64 key line");
	lines->comment = text + strlen(KEYS_COMMENT_PREFIX);
	lines->comment_len = (size_t)(nl - lines->comment);
	if (lines->comment_len > 0 && lines->comment[lines->comment_len - 1] == '\r')
		lines->comment_len--;
	if (lines->comment_len > KEYS_COMMENT_MAX)
		return util_fail(err, "key_malformed", name,
		    "the comment line is longer than %d bytes", KEYS_COMMENT_MAX);
	lines->line = nl + 1;
	lines->line_len = len - (size_t)(lines->line - text);
	rest = memchr(lines->line, '\n', lines->line_len);
	if (rest != NULL) {
		rest_len = lines->line_len - (size_t)(rest - lines->line);
		lines->line_len = (size_t)(rest - lines->line);
		keys_trim(&rest, &rest_len);
		if (rest_len != 0)
			return util_fail(err, "key_malformed", name,
			    "unexpected text after the key line");
	}
	keys_trim(&lines->line, &lines->line_len);
	return 0;
}
