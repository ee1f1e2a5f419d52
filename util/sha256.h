/* Internal header of util/: SHA-256 and hex.
 *
 * SHA-256 through OpenSSL's EVP interface, and hex encoding.
 */
#ifndef UTIL_SHA256_H
#define UTIL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "packsign.h"
#include "util/error.h"
#include "util/worker.h"

typedef struct util_sha256 util_sha256;

/* Returns NULL when OpenSSL cannot allocate a context. */
util_sha256 *util_sha256_new(void);
void util_sha256_free(util_sha256 *ctx);
/* Restarts the context; 0 / -1. */
int util_sha256_reset(util_sha256 *ctx);
int util_sha256_update(util_sha256 *ctx, const void *data, size_t len);
/* Writes the digest and leaves the context to be reset. */
int util_sha256_final(util_sha256 *ctx, unsigned char out[PS_SHA256_LEN]);

/* One-shot digest of a buffer; 0 / -1. */
int util_sha256_buffer(const void *data, size_t len,
    unsigned char out[PS_SHA256_LEN]);

/* SHA-256 of what `fd` holds from its offset to its end, and how many
 * bytes that was; 0 / -1 (errno set by read, or EIO for the digest). */
int util_sha256_fd(int fd, unsigned char out[PS_SHA256_LEN], uint64_t *size);
/* The same for a large file: read on the caller's thread straight into
 * a small ring that a second thread hashes, so reading and hashing
 * overlap (issue 22; 2 MiB of buffers, a thread started and joined). */
int util_sha256_fd_overlapped(int fd, unsigned char out[PS_SHA256_LEN],
    uint64_t *size);
/* Worker operations whose context is a util_sha256: every record is
 * hashed in order (util/worker.h). */
extern const util_worker_ops util_sha256_worker_ops;

/* The same, writing every byte read to `copy` too (a private copy, so
 * that what is parsed later is what was hashed) up to `copy_max` bytes:
 * a file that holds more (*size > copy_max) is hashed to its end and its
 * copy left incomplete; errno ENOSPC or EIO when a write failed.  A file
 * of at most 1 MiB is hashed on the caller's thread. */
int util_sha256_fd_copy(int fd, int copy, uint64_t copy_max,
    unsigned char out[PS_SHA256_LEN], uint64_t *size);

/* Refuses with `code`: `what` was checked, expected `want`, found `got`
 * (both as sha256:HEX); returns -1.  Inline, as util/error.h's helpers
 * are, so that the static analyzer sees the -1 its callers return. */
static inline int
util_refuse_digest(ps_error *err, const char *code, const char *subject,
    const char *what, const unsigned char want[PS_SHA256_LEN],
    const unsigned char got[PS_SHA256_LEN])
{
	char e[PS_SHA256_STRING_LEN], f[PS_SHA256_STRING_LEN];

	util_refuse(err, code, subject, "%s", what);
	return util_error_expect(err, ps_sha256_string(want, e),
	    ps_sha256_string(got, f));
}

/* Parses exactly 2 * len lowercase or uppercase hex digits; 0 / -1. */
int util_hex_decode(const char *hex, unsigned char *bytes, size_t len);
/* The value of one hex digit (either case), or -1. */
int util_hex_value(char c);

#endif
