/* Internal header of util/: the safe YAML reader.
 *
 * Safe YAML: libyaml events build a small tree that keeps line and column
 * on every node.  Refused: inputs over UTIL_YAML_MAX_BYTES, nesting deeper
 * than UTIL_YAML_MAX_DEPTH, anchors and aliases, duplicate keys (both
 * lines named), non-scalar keys, invalid UTF-8, custom tags, several
 * documents. Plain scalars resolve per the YAML 1.2 core schema: booleans
 * are true/false only (also True/TRUE/False/FALSE), so yes/no/on/off are
 * strings. Every explicit tag is refused, the standard ones (!!str, ...)
 * included. docs/formats/manifests.md, "Safe YAML", gives every rule.
 */
#ifndef UTIL_YAML_H
#define UTIL_YAML_H

#include <stddef.h>

#include "packsign.h"

#define UTIL_YAML_MAX_BYTES (1024 * 1024)
#define UTIL_YAML_MAX_DEPTH 64

typedef enum util_yaml_kind {
	UTIL_YAML_SCALAR = 0,
	UTIL_YAML_SEQUENCE,
	UTIL_YAML_MAPPING
} util_yaml_kind;

/* Core-schema type of a scalar; quoted and block scalars are strings. */
typedef enum util_yaml_type {
	UTIL_YAML_NULL = 0,
	UTIL_YAML_BOOL,
	UTIL_YAML_INT,
	UTIL_YAML_FLOAT,
	UTIL_YAML_STRING
} util_yaml_type;

typedef struct util_yaml_node util_yaml_node;
struct util_yaml_node {
	util_yaml_kind kind;
	unsigned line;         /* 1-based start of the node */
	unsigned column;       /* 1-based */
	/* scalars */
	const char *value;     /* NUL-terminated UTF-8 */
	size_t length;
	util_yaml_type type;
	/* sequences: items[i]; mappings: keys[i] -> items[i] */
	size_t count;
	util_yaml_node **items;
	util_yaml_node **keys;   /* mappings only; every key is a scalar */
};

typedef struct util_yaml_doc util_yaml_doc;

/*
 * Parses one document.  `name` is the file name used in error subjects,
 * which read "NAME:LINE:COL".  Error codes: yaml_too_large, yaml_syntax,
 * yaml_too_deep, yaml_alias, yaml_anchor, yaml_duplicate_key,
 * yaml_complex_key, yaml_invalid_utf8, yaml_tag, yaml_multiple_documents.
 */
int util_yaml_load(const char *data, size_t len, const char *name,
    util_yaml_doc **out, ps_error *err);

/* Reads a file (refusing one over UTIL_YAML_MAX_BYTES), then util_yaml_load. */
int util_yaml_load_file(const char *path, const char *name, util_yaml_doc **out,
    ps_error *err);

void util_yaml_free(util_yaml_doc *doc);

/* The root node; NULL for an empty document. */
const util_yaml_node *util_yaml_root(const util_yaml_doc *doc);

/* A mapping's value for `key`; NULL when absent or `map` is no mapping. */
const util_yaml_node *util_yaml_get(const util_yaml_node *map, const char *key);

/* The key node of `key` in `map` (for its position); NULL when absent. */
const util_yaml_node *util_yaml_get_key(const util_yaml_node *map, const char *key);

/* "sequence", "mapping"; for scalars "null", "boolean", "integer",
 * "float" or "string"; "nothing" for NULL. */
const char *util_yaml_describe(const util_yaml_node *node);

/*
 * Typed access: 0 when the node is a scalar of that type, else -1.
 * util_yaml_int also returns -1 when the integer does not fit a long long;
 * util_yaml_number accepts integers and floats (.inf, .nan included).
 */
int util_yaml_bool(const util_yaml_node *node, int *out);
int util_yaml_int(const util_yaml_node *node, long long *out);
int util_yaml_number(const util_yaml_node *node, double *out);
/* A string scalar's text (type STRING), else NULL. */
const char *util_yaml_string(const util_yaml_node *node);

#endif
