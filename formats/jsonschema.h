/* Internal header of formats/: the JSON Schema subset.
 *
 * A documented subset of JSON Schema applied to YAML trees: type,
 * properties, required, additionalProperties, items, enum, const,
 * minimum/maximum, exclusiveMinimum/exclusiveMaximum, minLength/maxLength,
 * minItems/maxItems, pattern (POSIX ERE), format uri/email/date-time.
 * Annotations (title, description, default, examples, $schema, $id,
 * $comment, deprecated, readOnly, writeOnly) are ignored; any other
 * keyword draws a warning (schema_keyword_unsupported).
 * docs/formats/manifests.md, "JSON Schema subset", gives the exact
 * semantics.
 */
#ifndef FORMATS_JSONSCHEMA_H
#define FORMATS_JSONSCHEMA_H

#include "packsign.h"
#include "util/yaml.h"

/*
 * Checks that `schema` is a well-formed schema of the subset; problems go
 * to `diags` at the schema nodes' positions in `file`.  Returns the number
 * of errors added.
 */
size_t formats_jsonschema_check(const util_yaml_node *schema, const char *file,
    ps_diags *diags);

/*
 * Validates `instance` against `schema`; each mismatch is added to `diags`
 * with `severity`, at the instance node's position in `file`, its message
 * starting with `label` (e.g. "example short_blog input").  Returns the
 * number of mismatches.
 */
size_t formats_jsonschema_validate(const util_yaml_node *schema,
    const util_yaml_node *instance, const char *file, const char *label,
    ps_severity severity, ps_diags *diags);

#endif
