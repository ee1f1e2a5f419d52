/* Internal header of keys/: reading a trust policy's YAML tree.
 *
 * The helpers keys/trust.c (signers, keys, revocations) and
 * keys/trustmay.c (`may:` and `consent:`) share: every error is a policy
 * error at the offending node, NAME:LINE:COL, exit class 2
 * (docs/formats/trust-policy.md, "Reading the file").
 */
#ifndef KEYS_TRUSTYAML_H
#define KEYS_TRUSTYAML_H

#include <stddef.h>
#include <stdint.h>

#include "packsign.h"
#include "util/yaml.h"

#define KEYS_TRUST_PATTERN_MAX 256

typedef struct keys_trust_ctx {
	const char *name;      /* the policy's name in subjects */
	ps_trust *policy;      /* being filled */
	ps_error *err;
} keys_trust_ctx;

/* A policy error `code` at `node` (NULL: 1:1); returns -1. */
int keys_trust_at(keys_trust_ctx *ctx, const util_yaml_node *node,
    const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* out_of_memory naming the policy; returns -1. */
int keys_trust_oom(keys_trust_ctx *ctx);
/* Refuses keys of `map` outside the NULL-terminated `allowed` list
 * (trust_unknown_field at the key); `what` names the mapping. */
int keys_trust_only_fields(keys_trust_ctx *ctx, const util_yaml_node *map,
    const char *what, const char *const *allowed);
/* trust_type unless `node` is of `kind` (a scalar: a string). */
int keys_trust_expect_kind(keys_trust_ctx *ctx, const util_yaml_node *node,
    util_yaml_kind kind, const char *what);
/* A required field of `map`; trust_missing_field at the mapping when it
 * is absent (then NULL). */
const util_yaml_node *keys_trust_field(keys_trust_ctx *ctx,
    const util_yaml_node *map, const char *key, const char *what);
/* Grows an array of `size`-byte items by one zeroed item; NULL (and
 * out_of_memory) when memory runs out. */
void *keys_trust_grow(keys_trust_ctx *ctx, void **items, size_t *count,
    size_t size);
/* 1 for a glob pattern the policy accepts: 1 to KEYS_TRUST_PATTERN_MAX
 * printable ASCII characters other than space, '[', ']' and '\'. */
int keys_trust_pattern_valid(const char *pattern);
/* The RFC 3339 UTC time at `key` of `map` into *out, left as it is when
 * the key is absent (trust_date otherwise). */
int keys_trust_time(keys_trust_ctx *ctx, const util_yaml_node *map,
    const char *key, int64_t *out);
/* A window's `not_before` and `not_after` of `map` (trust-policy.md,
 * "Times"): open ends when absent; trust_window when the end is before
 * the start, saying `what` (a key, a keyless entry) would never be
 * valid. */
int keys_trust_window(keys_trust_ctx *ctx, const util_yaml_node *map,
    const char *what, int64_t *not_before, int64_t *not_after);

#endif
