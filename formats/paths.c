/* Declared pack paths, prompt files and the YAML files a manifest names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/check.h"
#include "formats/paths.h"
#include "util/error.h"

/*
 * Appends one component; drops "." and "".  Any ".." is refused: resolved
 * on paper, "link/../x" names the pack's x while a runtime opening the
 * path follows the link out of the pack.
 */
static formats_path_status
push_component(char *out, size_t size, size_t *len, const char *c, size_t n)
{
	if (n == 0 || (n == 1 && c[0] == '.'))
		return FORMATS_PATH_OK;
	if (n == 2 && c[0] == '.' && c[1] == '.')
		return FORMATS_PATH_ESCAPES;
	if (*len + n + 2 > size)
		return FORMATS_PATH_INVALID;
	if (*len > 0)
		out[(*len)++] = '/';
	memcpy(out + *len, c, n);
	*len += n;
	out[*len] = '\0';
	return FORMATS_PATH_OK;
}

formats_path_status
formats_path_normalize(const char *in, char *out, size_t size)
{
	const char *p, *start;
	size_t len = 0;
	formats_path_status st;

	if (size == 0)
		return FORMATS_PATH_INVALID;
	out[0] = '\0';
	if (in[0] == '/')
		return FORMATS_PATH_ABSOLUTE;
	if (strlen(in) >= UTIL_PATH_MAX)
		return FORMATS_PATH_INVALID;
	for (p = in; *p != '\0'; p++) {
		if (*p == '\\' || (unsigned char)*p < 0x20 || *p == 0x7f)
			return FORMATS_PATH_INVALID;
	}
	for (start = p = in;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		st = push_component(out, size, &len, start, (size_t)(p - start));
		if (st != FORMATS_PATH_OK)
			return st;
		if (*p == '\0')
			break;
		start = p + 1;
	}
	return len == 0 ? FORMATS_PATH_INVALID : FORMATS_PATH_OK;
}

int
formats_path_is_canonical(const char *path)
{
	char buf[UTIL_PATH_MAX];

	if (formats_path_normalize(path, buf, sizeof(buf)) != FORMATS_PATH_OK)
		return -1;
	return strcmp(buf, path) == 0 ? 0 : -1;
}

int
formats_check_stat(formats_check *ck, const char *path, ps_entry_type *type)
{
	ps_error err;
	uint64_t size;

	ps_error_clear(&err);
	if (ck->files->stat(ck->files->ctx, path, type, &size, &err) == 0)
		return 0;
	if (err.status == PS_STATUS_REFUSED)
		return 1;
	if (ck->failed == 0)
		*ck->err = err;
	ck->failed = 1;
	return -1;
}

static int
path_syntax(formats_check *ck, const util_yaml_node *at, const char *text,
    const char *what, char *out, size_t size)
{
	switch (formats_path_normalize(text, out, size)) {
	case FORMATS_PATH_OK:
		return 0;
	case FORMATS_PATH_ABSOLUTE:
		formats_check_error(ck, at, "path_absolute",
		    "%s '%s' is absolute; paths are relative to the pack root",
		    what, text);
		break;
	case FORMATS_PATH_ESCAPES:
		formats_check_error(ck, at, "path_escapes",
		    "%s '%s' escapes the pack root", what, text);
		break;
	default:
		formats_check_error(ck, at, "path_invalid",
		    "%s '%s' is not a usable path (empty, a backslash, a "
		    "control character or over %d bytes)", what, text,
		    UTIL_PATH_MAX);
		break;
	}
	return -1;
}

/* Explains why `path` is not there: missing or a special file. */
static void
path_absent(formats_check *ck, const util_yaml_node *at, const char *what,
    const char *path)
{
	ps_error err;
	ps_entry_type type;
	uint64_t size;

	ps_error_clear(&err);
	ck->files->stat(ck->files->ctx, path, &type, &size, &err);
	if (ps_error_is(&err, PS_CODE_PACK_PATH_SPECIAL))
		formats_check_error(ck, at, "path_special",
		    "%s '%s' is a symbolic link or special file (or lies under "
		    "one); links are never followed", what, path);
	else
		formats_check_error(ck, at, "path_missing",
		    "%s '%s' does not exist in the pack", what, path);
}

int
formats_check_path(formats_check *ck, const util_yaml_node *at, const char *text,
    formats_path_want want, const char *what, char *out, size_t size)
{
	ps_entry_type type;
	int rc;

	if (path_syntax(ck, at, text, what, out, size) != 0)
		return -1;
	rc = formats_check_stat(ck, out, &type);
	if (rc < 0)
		return -1;
	if (rc > 0) {
		path_absent(ck, at, what, out);
		return -1;
	}
	if (want == FORMATS_WANT_FILE && type != PS_ENTRY_FILE) {
		formats_check_error(ck, at, "path_not_file",
		    "%s '%s' is a directory, expected a file", what, text);
		return -1;
	}
	if (want == FORMATS_WANT_DIR && type != PS_ENTRY_DIR) {
		formats_check_error(ck, at, "path_not_dir",
		    "%s '%s' is a file, expected a directory", what, text);
		return -1;
	}
	return 0;
}

void
formats_check_prompt(formats_check *ck, const char *path, const util_yaml_node *at)
{
	ps_manifest *m = ck->m;
	ps_prompt_file *grown;

	/* Duplicates are removed once, after sorting (ps_manifest_load). */
	grown = realloc(m->prompts, (m->prompt_count + 1) * sizeof(*grown));
	if (grown == NULL) {
		formats_check_oom(ck);
		return;
	}
	m->prompts = grown;
	grown = &m->prompts[m->prompt_count];
	memset(grown, 0, sizeof(*grown));
	if ((grown->path = formats_check_strdup(ck, path)) == NULL)
		return;
	grown->line = at != NULL ? at->line : 0;
	grown->column = at != NULL ? at->column : 0;
	m->prompt_count++;
}

/* Parses "NAME:LINE:COL" at the end of a loader subject. */
static void
subject_position(const char *subject, unsigned *line, unsigned *column)
{
	const char *c = strrchr(subject, ':'), *l;

	*line = *column = 0;
	if (c == NULL || c == subject)
		return;
	for (l = c - 1; l > subject && *l != ':'; l--)
		;
	if (*l != ':')
		return;
	if (sscanf(l, ":%u:%u", line, column) != 2)
		*line = *column = 0;
}

/* Pack-reader refusals, as the diagnostics codes of docs/errors.md. */
static const char *
read_refusal_code(const char *code)
{
	if (strcmp(code, PS_CODE_PACK_FILE_TOO_LARGE) == 0)
		return "yaml_too_large";
	if (strcmp(code, PS_CODE_PACK_PATH_SPECIAL) == 0)
		return "path_special";
	if (strcmp(code, PS_CODE_PACK_NOT_FILE) == 0)
		return "path_not_file";
	if (strcmp(code, PS_CODE_PACK_PATH_MISSING) == 0)
		return "path_missing";
	return code;
}

/* A loader refusal as a diagnostic of `severity`, `suffix` ending its
 * message. */
static void
yaml_error(formats_check *ck, ps_severity severity, const char *path,
    const char *name, const ps_error *yerr, const char *suffix)
{
	unsigned line = 0, column = 0;
	const char *code = read_refusal_code(yerr->code);

	if (yerr->status != PS_STATUS_REFUSED) {
		if (ck->failed == 0)
			*ck->err = *yerr;
		ck->failed = 1;
		return;
	}
	if (ps_error_is(yerr, PS_CODE_PACK_FILE_TOO_LARGE)) {
		formats_check_report_in(ck, severity, path, 0, 0, code,
		    "YAML file is too large: expected at most %d bytes%s",
		    UTIL_YAML_MAX_BYTES, suffix);
		return;
	}
	if (strncmp(yerr->subject, name, strlen(name)) == 0)
		subject_position(yerr->subject + strlen(name), &line, &column);
	if (yerr->expected[0] != '\0')
		formats_check_report_in(ck, severity, path, line, column,
		    code, "%s: expected %s, found %s%s", yerr->message,
		    yerr->expected, yerr->found, suffix);
	else
		formats_check_report_in(ck, severity, path, line, column,
		    code, "%s%s", yerr->message, suffix);
}

void
formats_check_yaml_error(formats_check *ck, const char *path, const char *name,
    const ps_error *yerr)
{
	yaml_error(ck, PS_SEVERITY_ERROR, path, name, yerr, "");
}

void
formats_check_pack_error(formats_check *ck, const ps_error *perr)
{
	if (perr->status != PS_STATUS_REFUSED) {
		if (ck->failed == 0)
			*ck->err = *perr;
		ck->failed = 1;
		return;
	}
	formats_check_report_in(ck, PS_SEVERITY_ERROR, perr->subject, 0, 0,
	    read_refusal_code(perr->code), "%s", perr->message);
}

/* Reads and parses `path`; refusals as yaml_error says. */
static util_yaml_doc *
load_yaml(formats_check *ck, const char *path, ps_severity severity,
    const char *suffix)
{
	util_yaml_doc *doc = NULL;
	ps_error err;
	char *data = NULL;
	size_t len = 0;

	ps_error_clear(&err);
	if (ck->files->read(ck->files->ctx, path, UTIL_YAML_MAX_BYTES + 1, &data,
	    &len, &err) != 0) {
		yaml_error(ck, severity, path, path, &err, suffix);
		return NULL;
	}
	if (util_yaml_load(data, len, path, &doc, &err) != 0) {
		yaml_error(ck, severity, path, path, &err, suffix);
		doc = NULL;
	}
	free(data);
	return doc;
}

util_yaml_doc *
formats_check_load_yaml(formats_check *ck, const char *path)
{
	return load_yaml(ck, path, PS_SEVERITY_ERROR, "");
}

util_yaml_doc *
formats_check_load_yaml_later(formats_check *ck, const char *path)
{
	int signed_pack = ck->opt->already_signed != 0;

	return load_yaml(ck, path, signed_pack ? PS_SEVERITY_WARNING :
	    PS_SEVERITY_ERROR, signed_pack ? "; a warning as the pack is "
	    "already signed (packsign sign refuses it)" : "");
}
