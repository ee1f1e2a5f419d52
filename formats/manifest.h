/*
 * Shared machinery of the four manifest modules: the check context, typed
 * field access that reports every problem as a diagnostic, pack paths and
 * prompt files.  Internal to libpacksign (and its unit tests).
 */
#ifndef PS_FORMATS_MANIFEST_H
#define PS_FORMATS_MANIFEST_H

#include <stddef.h>

#include "packsign.h"
#include "util/yaml.h"

/* Largest file read for a check (compose files, Taskfiles, fixtures). */
#define PS_CHECK_MAX_FILE PS_YAML_MAX_BYTES
#define PS_PATH_MAX 4096
/* signed_by entries are compared pairwise: keep the list short. */
#define PS_SIGNED_BY_MAX 256

typedef struct ps_check {
	const ps_pack_files *files;
	const ps_validate_options *opt;
	ps_diags *diags;
	ps_manifest *m;
	const char *prefix;      /* "" when none */
	char *file;              /* the manifest as diagnostics name it */
	ps_error *err;           /* filled when the job cannot be done */
	int failed;              /* 1 once the job cannot be done */
} ps_check;

/* Adds a diagnostic at `at` (NULL: no position) in the manifest. */
void ps_check_report(ps_check *ck, ps_severity severity,
    const ps_yaml_node *at, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
#define ps_check_error(ck, at, code, ...) \
	ps_check_report((ck), PS_SEVERITY_ERROR, (at), (code), __VA_ARGS__)
#define ps_check_warn(ck, at, code, ...) \
	ps_check_report((ck), PS_SEVERITY_WARNING, (at), (code), __VA_ARGS__)

/* Adds a diagnostic in another pack file (relative path `path`). */
void ps_check_report_in(ps_check *ck, ps_severity severity, const char *path,
    unsigned line, unsigned column, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

/* Records that the job cannot be done: out of memory. */
void ps_check_oom(ps_check *ck);

/* strdup that records memory exhaustion; NULL stays NULL. */
char *ps_check_strdup(ps_check *ck, const char *s);

/*
 * Makes hostile text safe to print on one terminal line: C0 controls
 * (newline and tab included), DEL and C1 controls (U+0080..U+009F) become
 * '?', in place.
 */
void ps_check_scrub(char *s);

/* Appends an egress rule (protocol may be NULL, port 0). */
void ps_check_egress_add(ps_check *ck, const char *host, unsigned port,
    const char *protocol);

/* Appends a copy of `s`; records memory exhaustion. */
void ps_check_strings_add(ps_check *ck, ps_strings *list, const char *s);

/*
 * The value of `key` in `map`.  Absent and `required`: error
 * `field_missing` at the mapping.  `map` not a mapping: NULL, nothing said
 * (the caller reported it).
 */
const ps_yaml_node *ps_check_field(ps_check *ck, const ps_yaml_node *map,
    const char *key, int required);

/* The mapping at `key`; present but not a mapping: `field_type`. */
const ps_yaml_node *ps_check_mapping(ps_check *ck, const ps_yaml_node *map,
    const char *key, int required);

/* The sequence at `key`; present but not a sequence: `field_type`. */
const ps_yaml_node *ps_check_sequence(ps_check *ck, const ps_yaml_node *map,
    const char *key, int required);

/*
 * A non-empty string at `key`: `field_type` when the value is no string
 * (`what` names the field in messages), `field_empty` when empty or blank.
 */
const char *ps_check_string(ps_check *ck, const ps_yaml_node *map,
    const char *key, int required);

/* The text of a string scalar node; `field_type` / `field_empty` else. */
const char *ps_check_node_string(ps_check *ck, const ps_yaml_node *node,
    const char *what);

/*
 * A boolean at `key`: 1 present and boolean (*out set), 0 absent, -1
 * anything else (`field_not_boolean`, naming YAML 1.1 words like `yes`).
 */
int ps_check_bool(ps_check *ck, const ps_yaml_node *map, const char *key,
    int *out);

/* Warns `field_unknown` for every key of `map` not in `known` (NULL-ended). */
void ps_check_known(ps_check *ck, const ps_yaml_node *map,
    const char *const *known, const char *where);

/* `signed_by`: a string or a list of strings (names or SHA256:...). */
void ps_check_signed_by(ps_check *ck, const ps_yaml_node *root);

typedef enum ps_path_status {
	PS_PATH_OK = 0,
	PS_PATH_ABSOLUTE,
	PS_PATH_ESCAPES,
	PS_PATH_INVALID
} ps_path_status;

/*
 * Normalises a declared relative path: drops "." and empty components and
 * a trailing '/', resolves ".." lexically (links are never followed, so
 * this is exact).  Refuses absolute paths, paths above the root, empty
 * paths, backslashes, control characters and paths over PS_PATH_MAX.
 */
ps_path_status ps_path_normalize(const char *in, char *out, size_t size);

/* 0 when `path` is already canonical (as ps_path_normalize returns). */
int ps_path_is_canonical(const char *path);

typedef enum ps_path_want {
	PS_WANT_FILE = 0,
	PS_WANT_DIR,
	PS_WANT_ANY
} ps_path_want;

/*
 * Checks a path declared at `at` (`what` names it in messages): relative,
 * inside the pack, existing, of the wanted type.  Writes the canonical path
 * to `out`.  Returns 0, or -1 after adding a diagnostic (path_absolute,
 * path_escapes, path_invalid, path_missing, path_not_file, path_not_dir,
 * path_special).
 */
int ps_check_path(ps_check *ck, const ps_yaml_node *at, const char *text,
    ps_path_want want, const char *what, char *out, size_t size);

/* Stats a canonical path: 0 present, 1 absent or special, -1 failure. */
int ps_check_stat(ps_check *ck, const char *path, ps_entry_type *type);

/* Adds a prompt file (canonical path) declared at `at` (may be NULL). */
void ps_check_prompt(ps_check *ck, const char *path, const ps_yaml_node *at);

/*
 * Reads and parses another YAML file of the pack; a refusal becomes a
 * diagnostic in that file with the loader's code and position.  Returns
 * the document or NULL.
 */
ps_yaml_doc *ps_check_load_yaml(ps_check *ck, const char *path);

/* Turns a loader refusal into a diagnostic in the pack file `path`. */
void ps_check_yaml_error(ps_check *ck, const char *path, const char *name,
    const ps_error *yerr);

/* A pack reader's error about the pack file perr->subject: a refusal
 * becomes a diagnostic in that file, a failure stops the job. */
void ps_check_pack_error(ps_check *ck, const ps_error *perr);

/* SemVer 2.0.0 check of `version` at key "version"; returns the text. */
const char *ps_check_semver(ps_check *ck, const ps_yaml_node *root,
    int allow_prerelease);

/* Hostname syntax (LDH labels, no trailing dot); 0 when valid. */
int ps_hostname_valid(const char *host);

/* An RFC 1123 label: [a-z0-9]([a-z0-9-]*[a-z0-9])?, 1..max bytes; 0 / -1. */
int ps_label_valid(const char *s, size_t n, size_t max);

/*
 * Judges an https URL from its text alone.  `public`: also refuse local,
 * private and reserved hosts.  Returns 0, or -1 with a reason in `why`.
 */
int ps_url_check(const char *url, int public, char *why, size_t why_size);

/* License tables (formats/licenses.c, generated from the .txt files). */
int ps_license_is_osi(const char *id);
/* 1 listed, 2 listed but deprecated, 0 not listed; *canonical receives the
 * listed spelling when the match ignored case. */
int ps_license_spdx(const char *id, const char **canonical);

/* The four modules. */
void ps_soyapack_check(ps_check *ck, const ps_yaml_node *root);
void ps_holon_check(ps_check *ck, const ps_yaml_node *root);
void ps_autograph_check(ps_check *ck, const ps_yaml_node *root);
void ps_agentpack_check(ps_check *ck, const ps_yaml_node *root);

#endif
