/* Internal header of util/: the name rules.
 *
 * The name rules every pack path obeys (docs/formats/canonical-tar.md):
 * relative, '/'-separated, valid UTF-8 in NFC of code points Unicode
 * assigns, no empty, '.' or '..' component, no backslash or control character, components of at most
 * UTIL_NAME_MAX bytes, at most UTIL_DEPTH_MAX components, no Windows
 * reserved name, no component ending in a dot or a space.
 */
#ifndef UTIL_PATHNAME_H
#define UTIL_PATHNAME_H

#include <stddef.h>

#include "packsign.h"

#define UTIL_NAME_MAX 255
#define UTIL_DEPTH_MAX 64
#define UTIL_PATH_MAX 4096

/* The Unicode version of the libunistring packsign runs with ("14.0" for
 * libunistring 1.0, Debian 12's; "?" for one it does not know): code
 * points it does not assign are refused in names (name_unassigned). */
const char *util_unicode_version(void);

/* Checks `path` against every rule; refuses with a name_* code. */
int util_path_check(const char *path, const char *label, ps_error *err);

/*
 * The NFC form of `len` bytes of UTF-8 as a new string, or NULL when the
 * bytes are not valid UTF-8 or memory runs out (errno tells which: EILSEQ
 * or ENOMEM).
 */
char *util_path_nfc(const char *text, size_t len);

/* The case-folded NFC form used to find collisions; NULL on failure. */
char *util_path_fold(const char *path);

/* "prefix/name", or `name` when prefix is empty; NULL without memory. */
char *util_path_join(const char *prefix, const char *name);

/* 1 when `path` equals `dir` or lies below it ("dir/..."). */
int util_path_is_under(const char *path, const char *dir);

#endif
