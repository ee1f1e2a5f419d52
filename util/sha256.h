/* SHA-256 through OpenSSL's EVP interface, and hex encoding. */
#ifndef PS_UTIL_SHA256_H
#define PS_UTIL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "packsign.h"

typedef struct ps_sha256 ps_sha256;

/* Returns NULL when OpenSSL cannot allocate a context. */
ps_sha256 *ps_sha256_new(void);
void ps_sha256_free(ps_sha256 *ctx);
/* Restarts the context; 0 / -1. */
int ps_sha256_reset(ps_sha256 *ctx);
int ps_sha256_update(ps_sha256 *ctx, const void *data, size_t len);
/* Writes the digest and leaves the context to be reset. */
int ps_sha256_final(ps_sha256 *ctx, unsigned char out[PS_SHA256_LEN]);

/* One-shot digest of a buffer; 0 / -1. */
int ps_sha256_buffer(const void *data, size_t len,
    unsigned char out[PS_SHA256_LEN]);

/* SHA-256 of what `fd` holds from its offset to its end, and how many
 * bytes that was; 0 / -1 (errno set by read, or EIO for the digest). */
int ps_sha256_fd(int fd, unsigned char out[PS_SHA256_LEN], uint64_t *size);

/* Parses exactly 2 * len lowercase or uppercase hex digits; 0 / -1. */
int ps_hex_decode(const char *hex, unsigned char *bytes, size_t len);

#endif
