/* Internal header of formats/: paths a manifest declares.
 *
 * Declared paths normalised and checked against the pack (relative,
 * inside, present, of the wanted type), prompt files, and other YAML
 * files of the pack read and parsed.
 */
#ifndef FORMATS_PATHS_H
#define FORMATS_PATHS_H

#include <stddef.h>

#include "packsign.h"
#include "formats/check.h"
#include "util/yaml.h"

typedef enum formats_path_status {
	FORMATS_PATH_OK = 0,
	FORMATS_PATH_ABSOLUTE,
	FORMATS_PATH_ESCAPES,
	FORMATS_PATH_INVALID
} formats_path_status;

/*
 * Normalises a declared relative path: drops "." and empty components and
 * a trailing '/', resolves ".." lexically (links are never followed, so
 * this is exact).  Refuses absolute paths, paths above the root, empty
 * paths, backslashes, control characters and paths over UTIL_PATH_MAX.
 */
formats_path_status formats_path_normalize(const char *in, char *out, size_t size);

/* 0 when `path` is already canonical (as formats_path_normalize returns). */
int formats_path_is_canonical(const char *path);

typedef enum formats_path_want {
	FORMATS_WANT_FILE = 0,
	FORMATS_WANT_DIR,
	FORMATS_WANT_ANY
} formats_path_want;

/*
 * Checks a path declared at `at` (`what` names it in messages): relative,
 * inside the pack, existing, of the wanted type.  Writes the canonical path
 * to `out`.  Returns 0, or -1 after adding a diagnostic (path_absolute,
 * path_escapes, path_invalid, path_missing, path_not_file, path_not_dir,
 * path_special).
 */
int formats_check_path(formats_check *ck, const util_yaml_node *at, const char *text,
    formats_path_want want, const char *what, char *out, size_t size);

/* Stats a canonical path: 0 present, 1 absent or special, -1 failure. */
int formats_check_stat(formats_check *ck, const char *path, ps_entry_type *type);

/* Adds a prompt file (canonical path) declared at `at` (may be NULL). */
void formats_check_prompt(formats_check *ck, const char *path, const util_yaml_node *at);

/*
 * Reads and parses another YAML file of the pack; a refusal becomes a
 * diagnostic in that file with the loader's code and position.  Returns
 * the document or NULL.
 */
util_yaml_doc *formats_check_load_yaml(formats_check *ck, const char *path);

/*
 * formats_check_load_yaml for a file the manifest does not name but the
 * format makes active by its standard path (rules added after packs could
 * have been signed): refusals are errors, or warnings when the pack is
 * already signed, as formats_check_report_later says.
 */
util_yaml_doc *formats_check_load_yaml_later(formats_check *ck, const char *path);

/* Turns a loader refusal into a diagnostic in the pack file `path`. */
void formats_check_yaml_error(formats_check *ck, const char *path, const char *name,
    const ps_error *yerr);

/* A pack reader's error about the pack file perr->subject: a refusal
 * becomes a diagnostic in that file, a failure stops the job. */
void formats_check_pack_error(formats_check *ck, const ps_error *perr);

#endif
