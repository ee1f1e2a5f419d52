/* Internal header of sigstore/: reading protobuf's JSON mapping, bounded.
 *
 * Sigstore's trusted roots and bundles are protobuf messages in their JSON
 * form (protobuf-specs): field names in lowerCamelCase, `bytes` as base64
 * (standard or URL-safe alphabet, padding optional), 64-bit integers as
 * decimal strings (numbers accepted too), timestamps as RFC 3339 strings,
 * `null` for an absent field.  Every reader here takes the document it
 * reads (its label for messages, the code and exit class of a malformed
 * one: exit 2 for a trusted root the operator named, exit 1 for a bundle)
 * and a `where` path naming the field in the message.
 */
#ifndef SIGSTORE_PROTOJSON_H
#define SIGSTORE_PROTOJSON_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "packsign.h"
#include "sigstore/rfc3339.h"

/* Deeper nesting is refused before jansson parses (it recurses to 2048). */
#define SIGSTORE_JSON_MAX_DEPTH 32
/* The longest `where` path a message shows. */
#define SIGSTORE_WHERE_MAX 128

typedef struct sigstore_doc {
	const char *label;         /* the file, as errors name it */
	const char *code;          /* its malformed code */
	ps_status status;          /* and that code's exit class */
} sigstore_doc;

/* Records `d->code` with `d->status`: "WHERE: what"; returns -1. */
int sigstore_malformed(const sigstore_doc *d, ps_error *err,
    const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/*
 * Parses one JSON value of at most `len` bytes, duplicate keys refused,
 * nesting at most SIGSTORE_JSON_MAX_DEPTH.  With `used` NULL the value
 * must be all of the bytes (whitespace around it allowed); otherwise the
 * first value is read and *used says where it ended.
 */
int sigstore_json_load(const sigstore_doc *d, const char *bytes, size_t len,
    size_t *used, json_t **out, ps_error *err);

/* "PARENT.KEY" or "PARENT[I]" into `out` (SIGSTORE_WHERE_MAX). */
void sigstore_where(char *out, const char *parent, const char *key);
void sigstore_where_index(char *out, const char *parent, size_t i);

/* Refuses a key of `obj` not among `keys` (trusted roots are strict). */
int sigstore_json_known(const sigstore_doc *d, json_t *obj, const char *where,
    const char *const *keys, size_t count, ps_error *err);

/*
 * The member `key` of `obj` as the type asked, or *out NULL when it is
 * absent or null; `required` refuses that.  `where` names `obj`.
 */
int sigstore_json_object(const sigstore_doc *d, json_t *obj, const char *key,
    const char *where, int required, json_t **out, ps_error *err);
int sigstore_json_array(const sigstore_doc *d, json_t *obj, const char *key,
    const char *where, size_t max, json_t **out, ps_error *err);
int sigstore_json_string(const sigstore_doc *d, json_t *obj, const char *key,
    const char *where, int required, const char **out, ps_error *err);

/* A `bytes` field: decoded into malloc'd memory (*out NULL, *len 0 when
 * absent), at most `max` decoded bytes; empty is refused when required. */
int sigstore_json_bytes(const sigstore_doc *d, json_t *obj, const char *key,
    const char *where, int required, size_t max, unsigned char **out,
    size_t *len, ps_error *err);
/* The same for an array element (`v` itself the string). */
int sigstore_json_bytes_value(const sigstore_doc *d, json_t *v,
    const char *where, size_t max, unsigned char **out, size_t *len,
    ps_error *err);

/* An int64 field (a decimal string or a number) of at least `min`;
 * *present 0 and *out 0 when absent. */
int sigstore_json_int64(const sigstore_doc *d, json_t *obj, const char *key,
    const char *where, int64_t min, int64_t *out, int *present,
    ps_error *err);

/* A Timestamp field (RFC 3339); *present 0 when absent. */
int sigstore_json_time(const sigstore_doc *d, json_t *obj, const char *key,
    const char *where, sigstore_time *out, int *present, ps_error *err);

/*
 * Base64 of protobuf's JSON mapping: standard or URL-safe alphabet (not
 * mixed), padding optional but, when present, complete; line breaks (CR,
 * LF) ignored, as Go's and Python's decoders ignore them; no other
 * whitespace.
 * At most `max` decoded bytes into malloc'd *out.  0, -1 when not
 * base64, -2 when longer than `max`, -3 out of memory.
 */
int sigstore_base64_decode(const char *text, size_t len, size_t max,
    unsigned char **out, size_t *out_len);
/* Standard padded base64 of `len` bytes, malloc'd; NULL out of memory. */
char *sigstore_base64_encode(const unsigned char *bytes, size_t len);

#endif
