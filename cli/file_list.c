/* verify --files-from: the list of paths, one a line, read as a stream. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/file_list.h"
#include "cli/output.h"

#define LINE_MAX_BYTES (PATH_MAX - 1)

const char *
cli_list_label(const struct cli_list *list)
{
	return strcmp(list->name, "-") == 0 ? "stdin" : list->name;
}

void
cli_list_args(struct cli_list *list, char **args, int count)
{
	memset(list, 0, sizeof(*list));
	list->name = "operands";
	list->args = args;
	list->arg_count = count;
}

/* The next operand, as cli_list_next() gives a line. */
static enum cli_list_status
next_arg(struct cli_list *list, char path[PATH_MAX], ps_error *err)
{
	const char *arg;

	if (list->line >= (uint64_t)list->arg_count)
		return CLI_LIST_END;
	arg = list->args[list->line++];
	if (strlen(arg) <= LINE_MAX_BYTES) {
		memcpy(path, arg, strlen(arg) + 1);
		return CLI_LIST_PATH;
	}
	/* What opening it would say. */
	cli_error_set(err, PS_STATUS_FAILED, "io_error", "", "open: File name "
	    "too long (%zu bytes, at most %d)", strlen(arg), LINE_MAX_BYTES);
	snprintf(err->subject, sizeof(err->subject), "%.64s...", arg);
	return CLI_LIST_BAD;
}

int
cli_list_open(struct cli_list *list, const char *name, ps_error *err)
{
	char buf[256];
	const char *reason;
	int e;

	memset(list, 0, sizeof(*list));
	list->name = name;
	list->line = 0;
	if (strcmp(name, "-") == 0) {
		list->in = stdin;
		return 0;
	}
	list->in = fopen(name, "re");
	if (list->in != NULL)
		return 0;
	e = errno;
	reason = strerror_r(e, buf, sizeof(buf));
	return cli_error_set(err, PS_STATUS_FAILED, e == ENOENT ?
	    "not_found" : e == EACCES ? "permission_denied" : "io_error",
	    name, "cannot open the --files-from list: %s", reason);
}

/* A line of `len` bytes (at most its first LINE_MAX_BYTES kept in
 * `path`) as a path, or why it is none. */
static enum cli_list_status
check_line(struct cli_list *list, char *path, size_t len, int nul,
    ps_error *err)
{
	char subject[PATH_MAX + 32];

	snprintf(subject, sizeof(subject), "%s:%llu", cli_list_label(list),
	    (unsigned long long)list->line);
	if (len > LINE_MAX_BYTES) {
		cli_error_set(err, PS_STATUS_FAILED, "files_from_line_too_long",
		    subject, "read a line of the list: expected at most %d "
		    "bytes (PATH_MAX - 1), found %zu", LINE_MAX_BYTES, len);
		return CLI_LIST_BAD;
	}
	if (nul) {
		cli_error_set(err, PS_STATUS_FAILED, "files_from_nul", subject,
		    "read a line of the list: a path holds no NUL byte");
		return CLI_LIST_BAD;
	}
	if (path[len - 1] == '\r') {
		cli_error_set(err, PS_STATUS_FAILED, "files_from_crlf", subject,
		    "read a line of the list: it ends in a carriage return "
		    "(lines end in LF alone; convert a CRLF list first)");
		return CLI_LIST_BAD;
	}
	path[len] = '\0';
	return CLI_LIST_PATH;
}

enum cli_list_status
cli_list_next(struct cli_list *list, char path[PATH_MAX], ps_error *err)
{
	size_t len;
	int c, nul;

	if (list->args != NULL)
		return next_arg(list, path, err);
	for (;;) {
		len = 0;
		nul = 0;
		while ((c = getc_unlocked(list->in)) != EOF && c != '\n') {
			nul |= c == '\0';
			if (len < LINE_MAX_BYTES)
				path[len] = (char)c;
			len += len < SIZE_MAX;
		}
		if (c == EOF && ferror(list->in)) {
			cli_error_set(err, PS_STATUS_FAILED, "io_error",
			    cli_list_label(list), "cannot read the --files-from "
			    "list after line %llu",
			    (unsigned long long)list->line);
			return CLI_LIST_ERROR;
		}
		if (c == EOF && len == 0)
			return CLI_LIST_END;
		list->line++;
		if (len > 0)
			return check_line(list, path, len, nul, err);
	}
}

void
cli_list_close(struct cli_list *list)
{
	if (list->in != NULL && list->in != stdin)
		fclose(list->in);
	list->in = NULL;
}
