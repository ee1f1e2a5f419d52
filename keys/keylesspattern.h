/* Internal header of keys/: keyless patterns.
 *
 * Whole-string patterns where '*' is one or more characters other than
 * '/' and every other character is itself (docs/formats/trust-policy.md,
 * "Keyless patterns"): matching a text, and whether two patterns overlap.
 */
#ifndef KEYS_KEYLESSPATTERN_H
#define KEYS_KEYLESSPATTERN_H

#define KEYS_KEYLESS_VALUE_MAX 1024  /* bytes of an issuer, subject, ... */

/* 1 when the keyless pattern matches the whole of `text`, else 0 (also
 * when memory runs out). */
int keys_keyless_match(const char *pattern, const char *text);
/* 1 when some string matches both patterns (or memory runs out: then the
 * answer errs on the side of an overlap), else 0. */
int keys_keyless_meet(const char *a, const char *b);
/* 1 for a well-formed keyless pattern: 1 to KEYS_KEYLESS_VALUE_MAX
 * printable ASCII characters other than space, no "**". */
int keys_keyless_pattern_valid(const char *pattern);

#endif
