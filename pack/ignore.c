#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <unistr.h>

#include "pack/ignore.h"
#include "util/error.h"
#include "util/fdio.h"

struct rule {
	char *pattern;
	int anchored;   /* contains '/': matched against the whole path */
	int dir_only;   /* written with a trailing '/' */
};

struct pack_ignore {
	struct rule rules[PACK_IGNORE_MAX_RULES];
	size_t count;
};

void
pack_ignore_free(pack_ignore *rules)
{
	size_t i;

	if (rules == NULL)
		return;
	for (i = 0; i < rules->count; i++)
		free(rules->rules[i].pattern);
	free(rules);
}

static int
refuse_line(ps_error *err, unsigned line, const char *why)
{
	char where[64];

	snprintf(where, sizeof(where), PACK_IGNORE_FILE ":%u", line);
	return util_refuse(err, "ignore_syntax", where, "%s", why);
}

static int
add_rule(pack_ignore *rules, char *text, size_t len, unsigned line,
    ps_error *err)
{
	struct rule *r;

	if (text[0] == '!')
		return refuse_line(err, line, "negated patterns ('!') are not "
		    "supported");
	if (strstr(text, "**") != NULL)
		return refuse_line(err, line, "'**' is not supported; use one "
		    "pattern per depth or a directory pattern");
	if (rules->count == PACK_IGNORE_MAX_RULES)
		return refuse_line(err, line, "too many patterns");
	r = &rules->rules[rules->count];
	r->dir_only = len > 1 && text[len - 1] == '/';
	if (r->dir_only)
		text[--len] = '\0';
	r->anchored = strchr(text, '/') != NULL;
	if (text[0] == '/')
		text++;
	if (text[0] == '\0')
		return refuse_line(err, line, "empty pattern");
	r->pattern = strdup(text);
	if (r->pattern == NULL)
		return util_fail_oom(err, NULL);
	rules->count++;
	return 0;
}

static int
parse_line(pack_ignore *rules, char *line, unsigned number, ps_error *err)
{
	size_t len = strlen(line);

	while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t' ||
	    line[len - 1] == '\r'))
		line[--len] = '\0';
	if (len == 0 || line[0] == '#')
		return 0;
	return add_rule(rules, line, len, number, err);
}

int
pack_ignore_parse(const char *text, size_t len, pack_ignore **out, ps_error *err)
{
	pack_ignore *rules;
	char *copy, *line, *next;
	unsigned number = 0;
	int rc = 0;

	*out = NULL;
	if (len > PACK_IGNORE_MAX_BYTES)
		return util_refuse(err, "ignore_syntax", PACK_IGNORE_FILE,
		    "file is larger than %d bytes", PACK_IGNORE_MAX_BYTES);
	if (memchr(text, '\0', len) != NULL ||
	    u8_check((const uint8_t *)text, len) != NULL)
		return util_refuse(err, "ignore_syntax", PACK_IGNORE_FILE,
		    "file is not UTF-8 text");
	rules = calloc(1, sizeof(*rules));
	copy = strndup(text, len);
	if (rules == NULL || copy == NULL) {
		free(rules);
		free(copy);
		return util_fail_oom(err, NULL);
	}
	for (line = copy; rc == 0 && line != NULL; line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		rc = parse_line(rules, line, ++number, err);
	}
	free(copy);
	if (rc != 0) {
		pack_ignore_free(rules);
		return -1;
	}
	*out = rules;
	return 0;
}

static int
read_ignore_file(int fd, char *buf, size_t *len, ps_error *err)
{
	struct stat st;
	ssize_t n;

	if (fstat(fd, &st) != 0)
		return util_fail_errno(err, "io_error", PACK_IGNORE_FILE, "stat", errno);
	if (!S_ISREG(st.st_mode))
		return util_refuse(err, "ignore_syntax", PACK_IGNORE_FILE,
		    "not a regular file");
	n = util_read_full(fd, buf, PACK_IGNORE_MAX_BYTES + 1);
	if (n < 0)
		return util_fail_errno(err, "io_error", PACK_IGNORE_FILE, "read", errno);
	*len = (size_t)n;
	return 0;
}

int
pack_ignore_load(int rootfd, pack_ignore **out, ps_error *err)
{
	char *buf;
	size_t len = 0;
	int fd, rc;

	fd = openat(rootfd, PACK_IGNORE_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
	    O_NONBLOCK);
	if (fd < 0 && errno == ENOENT)
		return pack_ignore_parse("", 0, out, err);
	if (fd < 0 && errno == ELOOP)
		return util_refuse(err, "symlink_refused", PACK_IGNORE_FILE,
		    "is a symbolic link");
	if (fd < 0)
		return util_fail_errno(err, "io_error", PACK_IGNORE_FILE, "open", errno);
	buf = malloc(PACK_IGNORE_MAX_BYTES + 1);
	if (buf == NULL) {
		close(fd);
		return util_fail_oom(err, NULL);
	}
	rc = read_ignore_file(fd, buf, &len, err);
	close(fd);
	if (rc == 0)
		rc = pack_ignore_parse(buf, len, out, err);
	free(buf);
	return rc;
}

int
pack_ignore_match(const pack_ignore *rules, const char *path, int is_dir)
{
	const char *base = strrchr(path, '/');
	const struct rule *r;
	size_t i;

	if (rules == NULL)
		return 0;
	base = base != NULL ? base + 1 : path;
	for (i = 0; i < rules->count; i++) {
		r = &rules->rules[i];
		if (r->dir_only && !is_dir)
			continue;
		if (r->anchored ? fnmatch(r->pattern, path, FNM_PATHNAME) == 0 :
		    fnmatch(r->pattern, base, 0) == 0)
			return 1;
	}
	return 0;
}
