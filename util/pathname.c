#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <unicase.h>
#include <unictype.h>
#include <unistring/version.h>
#include <uninorm.h>
#include <unistr.h>

#include "util/error.h"
#include "util/pathname.h"

/* libunistring's results are not NUL-terminated; make them a C string. */
static char *
terminate(uint8_t *bytes, size_t len)
{
	uint8_t *out;

	if (bytes == NULL)
		return NULL;
	out = realloc(bytes, len + 1);
	if (out == NULL) {
		free(bytes);
		return NULL;
	}
	out[len] = '\0';
	return (char *)out;
}

/*
 * Plain ASCII is its own NFC and folds by ASCII case alone, so most names
 * skip libunistring (whose normalisation was a fifth of packing 100,000
 * files, issue 8).
 */
static int
is_plain_ascii(const char *text, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if ((unsigned char)text[i] >= 0x80 || text[i] == '\0')
			return 0;
	}
	return 1;
}

char *
util_path_nfc(const char *text, size_t len)
{
	size_t nfc_len = 0;
	uint8_t *nfc;

	if (is_plain_ascii(text, len))
		return strndup(text, len);
	if (u8_check((const uint8_t *)text, len) != NULL ||
	    memchr(text, '\0', len) != NULL) {
		errno = EILSEQ;
		return NULL;
	}
	nfc = u8_normalize(UNINORM_NFC, (const uint8_t *)text, len, NULL,
	    &nfc_len);
	return terminate(nfc, nfc_len);
}

static char *
fold_ascii(const char *path, size_t len)
{
	char *out = malloc(len + 1);
	size_t i;

	if (out == NULL)
		return NULL;
	for (i = 0; i < len; i++)
		out[i] = (char)(path[i] >= 'A' && path[i] <= 'Z' ?
		    path[i] - 'A' + 'a' : path[i]);
	out[len] = '\0';
	return out;
}

char *
util_path_fold(const char *path)
{
	size_t len = strlen(path), folded_len = 0;
	uint8_t *folded;

	if (is_plain_ascii(path, len))
		return fold_ascii(path, len);
	folded = u8_casefold((const uint8_t *)path, len, NULL, UNINORM_NFC,
	    NULL, &folded_len);
	return terminate(folded, folded_len);
}

char *
util_path_join(const char *prefix, const char *name)
{
	size_t plen = strlen(prefix), nlen = strlen(name);
	char *out = malloc(plen + nlen + 2);

	if (out == NULL)
		return NULL;
	if (plen > 0) {
		memcpy(out, prefix, plen);
		out[plen++] = '/';
	}
	memcpy(out + plen, name, nlen + 1);
	return out;
}

int
util_path_is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* C0 and C1 controls and DEL, decoded from UTF-8. */
static int
has_control(const char *s, size_t len, ucs4_t *found)
{
	const uint8_t *p = (const uint8_t *)s, *end = p + len;
	ucs4_t uc;
	int n;

	while (p < end) {
		n = u8_mbtouc(&uc, p, (size_t)(end - p));
		if (uc < 0x20 || (uc >= 0x7f && uc <= 0x9f)) {
			*found = uc;
			return 1;
		}
		p += n > 0 ? n : 1;
	}
	return 0;
}

static const char *const reserved_names[] = {
	"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$",
	"COM0", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8",
	"COM9", "LPT0", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7",
	"LPT8", "LPT9",
	"COM\xc2\xb9", "COM\xc2\xb2", "COM\xc2\xb3",
	"LPT\xc2\xb9", "LPT\xc2\xb2", "LPT\xc2\xb3",
};

/* Windows reserves these device names whatever the extension. */
static int
is_reserved(const char *comp, size_t len)
{
	size_t stem = 0, i;

	while (stem < len && comp[stem] != '.')
		stem++;
	while (stem > 0 && comp[stem - 1] == ' ')
		stem--;
	/* Every reserved name is 3 to 7 bytes and starts with one of these:
	 * most components are rejected without 32 comparisons. */
	if (stem < 3 || stem > 7 || strchr("CPANLcpanl", comp[0]) == NULL)
		return 0;
	for (i = 0; i < sizeof(reserved_names) / sizeof(reserved_names[0]); i++) {
		if (strlen(reserved_names[i]) == stem &&
		    strncasecmp(comp, reserved_names[i], stem) == 0)
			return 1;
	}
	return 0;
}

/* Characters Windows refuses in names (':' would open a data stream). */
#define WINDOWS_FORBIDDEN "<>:\"|?*"

static int
check_component(const char *comp, size_t len, const char *label,
    ps_error *err)
{
	ucs4_t uc;

	if (len == 0)
		return util_refuse(err, "name_empty_component", label,
		    "path has an empty component ('//' or a trailing '/')");
	if ((len == 1 && comp[0] == '.') ||
	    (len == 2 && comp[0] == '.' && comp[1] == '.'))
		return util_refuse(err, "name_dot_component", label,
		    "path has a '%.*s' component", (int)len, comp);
	if (len > UTIL_NAME_MAX)
		return util_refuse(err, "name_too_long", label,
		    "a path component is %zu bytes long, the limit is %d",
		    len, UTIL_NAME_MAX);
	if (memchr(comp, '\\', len) != NULL)
		return util_refuse(err, "name_forbidden_char", label,
		    "path contains a backslash");
	if (strcspn(comp, WINDOWS_FORBIDDEN) < len)
		return util_refuse(err, "name_forbidden_char", label,
		    "path contains '%c', which Windows does not allow in names",
		    comp[strcspn(comp, WINDOWS_FORBIDDEN)]);
	if (has_control(comp, len, &uc))
		return util_refuse(err, "name_forbidden_char", label,
		    "path contains the control character U+%04X",
		    (unsigned)uc);
	if (comp[len - 1] == '.' || comp[len - 1] == ' ')
		return util_refuse(err, "name_reserved", label,
		    "a path component ends in a %s, which Windows drops",
		    comp[len - 1] == '.' ? "dot" : "space");
	if (is_reserved(comp, len))
		return util_refuse(err, "name_reserved", label,
		    "'%.*s' is a reserved device name on Windows", (int)len,
		    comp);
	return 0;
}

const char *
util_unicode_version(void)
{
	/* libunistring's releases and the Unicode version each tracks. */
	static const struct { int lib; const char *unicode; } known[] = {
		{ 0x010000, "14.0" }, { 0x010100, "15.0" }, { 0x010200, "15.1" },
		{ 0x010300, "16.0" },
	};
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if ((_libunistring_version & 0xffff00) == known[i].lib)
			return known[i].unicode;
	}
	return "?";
}

/* A code point unassigned in this library's Unicode version could be
 * assigned, and normalise or fold differently, in a later one: the tree
 * digest of a name must not depend on the library a packsign was built
 * with. */
static int
check_assigned(const char *path, size_t len, const char *label,
    ps_error *err)
{
	const uint8_t *p = (const uint8_t *)path, *end = p + len;
	ucs4_t uc;
	int n;

	while (p < end) {
		n = u8_mbtouc(&uc, p, (size_t)(end - p));
		if (uc_is_general_category(uc, UC_CATEGORY_Cn))
			return util_refuse(err, "name_unassigned", label,
			    "path contains U+%04X, which Unicode %s (libunistring "
			    "%d.%d, this packsign's) does not assign",
			    (unsigned)uc, util_unicode_version(),
			    _libunistring_version >> 16,
			    (_libunistring_version >> 8) & 0xff);
		p += n > 0 ? n : 1;
	}
	return 0;
}

static int
check_encoding(const char *path, size_t len, const char *label,
    ps_error *err)
{
	char *nfc;
	int same;

	if (is_plain_ascii(path, len))
		return 0;
	if (u8_check((const uint8_t *)path, len) != NULL)
		return util_refuse(err, "name_not_utf8", label,
		    "path is not valid UTF-8");
	if (check_assigned(path, len, label, err) != 0)
		return -1;
	nfc = util_path_nfc(path, len);
	if (nfc == NULL)
		return util_fail_oom(err, label);
	same = strcmp(nfc, path) == 0;
	free(nfc);
	if (!same)
		return util_refuse(err, "name_not_nfc", label,
		    "path is not in Unicode normalisation form C");
	return 0;
}

int
util_path_check(const char *path, const char *label, ps_error *err)
{
	size_t len = strlen(path), depth = 0;
	const char *comp = path, *slash;

	if (label == NULL)
		label = path;
	if (len == 0)
		return util_refuse(err, "name_empty_component", label,
		    "path is empty");
	if (path[0] == '/')
		return util_refuse(err, "name_absolute", label,
		    "path is absolute");
	if (len > UTIL_PATH_MAX)
		return util_refuse(err, "name_too_long", label,
		    "path is %zu bytes long, the limit is %d", len, UTIL_PATH_MAX);
	if (check_encoding(path, len, label, err) != 0)
		return -1;
	for (;;) {
		slash = strchr(comp, '/');
		if (++depth > UTIL_DEPTH_MAX)
			return util_refuse(err, "path_too_deep", label,
			    "path has more than %d components", UTIL_DEPTH_MAX);
		if (check_component(comp, slash != NULL ?
		    (size_t)(slash - comp) : strlen(comp), label, err) != 0)
			return -1;
		if (slash == NULL)
			return 0;
		comp = slash + 1;
	}
}
