/*
 * Safe YAML: libyaml events build a small tree that keeps line and column
 * on every node.  Refused: inputs over PS_YAML_MAX_BYTES, nesting deeper
 * than PS_YAML_MAX_DEPTH, anchors and aliases, duplicate keys (both lines
 * named), non-scalar keys, invalid UTF-8, custom tags, several documents.
 * Plain scalars resolve per the YAML 1.2 core schema: booleans are
 * true/false only (also True/TRUE/False/FALSE), so yes/no/on/off are strings.
 * Every explicit tag is refused, the standard ones (!!str, ...) included.
 * docs/formats/manifests.md, "Safe YAML", gives every rule.
 */
#ifndef PS_UTIL_YAML_H
#define PS_UTIL_YAML_H

#include <stddef.h>

#include "packsign.h"

#define PS_YAML_MAX_BYTES (1024 * 1024)
#define PS_YAML_MAX_DEPTH 64

typedef enum ps_yaml_kind {
	PS_YAML_SCALAR = 0,
	PS_YAML_SEQUENCE,
	PS_YAML_MAPPING
} ps_yaml_kind;

/* Core-schema type of a scalar; quoted and block scalars are strings. */
typedef enum ps_yaml_type {
	PS_YAML_NULL = 0,
	PS_YAML_BOOL,
	PS_YAML_INT,
	PS_YAML_FLOAT,
	PS_YAML_STRING
} ps_yaml_type;

typedef struct ps_yaml_node ps_yaml_node;
struct ps_yaml_node {
	ps_yaml_kind kind;
	unsigned line;         /* 1-based start of the node */
	unsigned column;       /* 1-based */
	/* scalars */
	const char *value;     /* NUL-terminated UTF-8 */
	size_t length;
	ps_yaml_type type;
	/* sequences: items[i]; mappings: keys[i] -> items[i] */
	size_t count;
	ps_yaml_node **items;
	ps_yaml_node **keys;   /* mappings only; every key is a scalar */
};

typedef struct ps_yaml_doc ps_yaml_doc;

/*
 * Parses one document.  `name` is the file name used in error subjects,
 * which read "NAME:LINE:COL".  Error codes: yaml_too_large, yaml_syntax,
 * yaml_too_deep, yaml_alias, yaml_anchor, yaml_duplicate_key,
 * yaml_complex_key, yaml_invalid_utf8, yaml_tag, yaml_multiple_documents.
 */
int ps_yaml_load(const char *data, size_t len, const char *name,
    ps_yaml_doc **out, ps_error *err);

/* Reads a file (refusing one over PS_YAML_MAX_BYTES), then ps_yaml_load. */
int ps_yaml_load_file(const char *path, const char *name, ps_yaml_doc **out,
    ps_error *err);

void ps_yaml_free(ps_yaml_doc *doc);

/* The root node; NULL for an empty document. */
const ps_yaml_node *ps_yaml_root(const ps_yaml_doc *doc);

/* A mapping's value for `key`; NULL when absent or `map` is no mapping. */
const ps_yaml_node *ps_yaml_get(const ps_yaml_node *map, const char *key);

/* The key node of `key` in `map` (for its position); NULL when absent. */
const ps_yaml_node *ps_yaml_get_key(const ps_yaml_node *map, const char *key);

/* "sequence", "mapping"; for scalars "null", "boolean", "integer",
 * "float" or "string"; "nothing" for NULL. */
const char *ps_yaml_describe(const ps_yaml_node *node);

/*
 * Typed access: 0 when the node is a scalar of that type, else -1.
 * ps_yaml_int also returns -1 when the integer does not fit a long long;
 * ps_yaml_number accepts integers and floats (.inf, .nan included).
 */
int ps_yaml_bool(const ps_yaml_node *node, int *out);
int ps_yaml_int(const ps_yaml_node *node, long long *out);
int ps_yaml_number(const ps_yaml_node *node, double *out);
/* A string scalar's text (type STRING), else NULL. */
const char *ps_yaml_string(const ps_yaml_node *node);

#endif
