/* Internal header of formats/: checking manifest fields.
 *
 * The check context the format validators share and typed field access
 * that reports every problem as a diagnostic (FILE:LINE:COL, a code) and
 * goes on, so that one run lists every problem.
 */
#ifndef FORMATS_CHECK_H
#define FORMATS_CHECK_H

#include <stdarg.h>
#include <stddef.h>

#include "packsign.h"
#include "util/pathname.h"
#include "util/yaml.h"

/* Largest file read for a check (compose files, Taskfiles, fixtures). */
#define FORMATS_CHECK_MAX_FILE UTIL_YAML_MAX_BYTES
/* signed_by entries are compared pairwise: keep the list short. */
#define FORMATS_SIGNED_BY_MAX 256

typedef struct formats_check {
	const ps_pack_files *files;
	const ps_validate_options *opt;
	ps_diags *diags;
	ps_manifest *m;
	const char *prefix;      /* "" when none */
	char *file;              /* the manifest as diagnostics name it */
	ps_error *err;           /* filled when the job cannot be done */
	int failed;              /* 1 once the job cannot be done */
} formats_check;

/* Adds a diagnostic at `at` (NULL: no position) in the manifest. */
void formats_check_report(formats_check *ck, ps_severity severity,
    const util_yaml_node *at, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
#define formats_check_error(ck, at, code, ...) \
	formats_check_report((ck), PS_SEVERITY_ERROR, (at), (code), __VA_ARGS__)
#define formats_check_warn(ck, at, code, ...) \
	formats_check_report((ck), PS_SEVERITY_WARNING, (at), (code), __VA_ARGS__)

/*
 * Adds a diagnostic at `at` (NULL: no position) in the pack file `path`
 * for a rule added after packs could have been signed: an error, or a
 * warning saying why when the pack is already signed
 * (ps_validate_options.already_signed), so that what an older packsign
 * signed still verifies, with the finding shown.
 */
void formats_check_report_later(formats_check *ck, const char *path,
    const util_yaml_node *at, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void formats_check_vreport_later(formats_check *ck, const char *path,
    const util_yaml_node *at, const char *code, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));

/* The first key `<<` (a YAML 1.1 merge key) at any depth under `node`, or
 * NULL.  The safe loader keeps it as a plain key; readers that merge would
 * see other values than packsign, so the callers refuse it as anchors are
 * refused. */
const util_yaml_node *formats_check_merge_key(const util_yaml_node *node);

/* Adds a diagnostic in another pack file (relative path `path`). */
void formats_check_report_in(formats_check *ck, ps_severity severity, const char *path,
    unsigned line, unsigned column, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
void formats_check_vreport_in(formats_check *ck, ps_severity severity,
    const char *path, unsigned line, unsigned column, const char *code,
    const char *fmt, va_list ap) __attribute__((format(printf, 7, 0)));

/* Records that the job cannot be done: out of memory. */
void formats_check_oom(formats_check *ck);

/* strdup that records memory exhaustion; NULL stays NULL. */
char *formats_check_strdup(formats_check *ck, const char *s);

/*
 * Makes hostile text safe to print on one terminal line: C0 controls
 * (newline and tab included), DEL and C1 controls (U+0080..U+009F) become
 * '?', in place.
 */
void formats_check_scrub(char *s);

/* Appends an egress rule (protocol may be NULL, port 0). */
void formats_check_egress_add(formats_check *ck, const char *host, unsigned port,
    const char *protocol);

/* Appends a copy of `s`; records memory exhaustion. */
void formats_check_strings_add(formats_check *ck, ps_strings *list, const char *s);

/*
 * The value of `key` in `map`.  Absent and `required`: error
 * `field_missing` at the mapping.  `map` not a mapping: NULL, nothing said
 * (the caller reported it).
 */
const util_yaml_node *formats_check_field(formats_check *ck, const util_yaml_node *map,
    const char *key, int required);

/* The mapping at `key`; present but not a mapping: `field_type`. */
const util_yaml_node *formats_check_mapping(formats_check *ck, const util_yaml_node *map,
    const char *key, int required);

/* The sequence at `key`; present but not a sequence: `field_type`. */
const util_yaml_node *formats_check_sequence(formats_check *ck, const util_yaml_node *map,
    const char *key, int required);

/*
 * A non-empty string at `key`: `field_type` when the value is no string
 * (`what` names the field in messages), `field_empty` when empty or blank.
 */
const char *formats_check_string(formats_check *ck, const util_yaml_node *map,
    const char *key, int required);

/* The text of a string scalar node; `field_type` / `field_empty` else. */
const char *formats_check_node_string(formats_check *ck, const util_yaml_node *node,
    const char *what);

/*
 * A boolean at `key`: 1 present and boolean (*out set), 0 absent, -1
 * anything else (`field_not_boolean`, naming YAML 1.1 words like `yes`).
 */
int formats_check_bool(formats_check *ck, const util_yaml_node *map, const char *key,
    int *out);

/* Warns `field_unknown` for every key of `map` not in `known` (NULL-ended). */
void formats_check_known(formats_check *ck, const util_yaml_node *map,
    const char *const *known, const char *where);

/* `signed_by`: a string or a list of strings (names or SHA256:...). */
void formats_check_signed_by(formats_check *ck, const util_yaml_node *root);

/* SemVer 2.0.0 check of `version` at key "version"; returns the text. */
const char *formats_check_semver(formats_check *ck, const util_yaml_node *root,
    int allow_prerelease);

/* An RFC 1123 label: [a-z0-9]([a-z0-9-]*[a-z0-9])?, 1..max bytes; 0 / -1. */
int formats_label_valid(const char *s, size_t n, size_t max);

#endif
