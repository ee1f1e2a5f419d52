#include <errno.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "util/error.h"
#include "util/fdio.h"
#include "util/sha256.h"
#include "util/worker.h"

/* The digest is fetched once per context: EVP_sha256() makes OpenSSL 3
 * fetch the implementation again at every init, a few thousand
 * instructions per file of a pack of 100,000. */
struct util_sha256 {
	EVP_MD_CTX *md;
	EVP_MD *sha256;
};

util_sha256 *
util_sha256_new(void)
{
	util_sha256 *ctx = calloc(1, sizeof(*ctx));

	if (ctx == NULL)
		return NULL;
	ctx->md = EVP_MD_CTX_new();
	ctx->sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
	if (ctx->md == NULL || ctx->sha256 == NULL ||
	    util_sha256_reset(ctx) != 0) {
		util_sha256_free(ctx);
		return NULL;
	}
	return ctx;
}

void
util_sha256_free(util_sha256 *ctx)
{
	if (ctx == NULL)
		return;
	EVP_MD_CTX_free(ctx->md);
	EVP_MD_free(ctx->sha256);
	free(ctx);
}

int
util_sha256_reset(util_sha256 *ctx)
{
	return EVP_DigestInit_ex2(ctx->md, ctx->sha256, NULL) == 1 ? 0 : -1;
}

int
util_sha256_update(util_sha256 *ctx, const void *data, size_t len)
{
	if (len == 0)
		return 0;
	return EVP_DigestUpdate(ctx->md, data, len) == 1 ? 0 : -1;
}

int
util_sha256_final(util_sha256 *ctx, unsigned char out[PS_SHA256_LEN])
{
	unsigned int len = 0;

	if (EVP_DigestFinal_ex(ctx->md, out, &len) != 1 || len != PS_SHA256_LEN)
		return -1;
	return 0;
}

int
util_sha256_buffer(const void *data, size_t len, unsigned char out[PS_SHA256_LEN])
{
	unsigned int outlen = 0;

	if (EVP_Digest(data, len, out, &outlen, EVP_sha256(), NULL) != 1)
		return -1;
	return outlen == PS_SHA256_LEN ? 0 : -1;
}

#define FD_BUFFER (256 * 1024)

int
util_sha256_fd(int fd, unsigned char out[PS_SHA256_LEN], uint64_t *size)
{
	unsigned char *buf = malloc(FD_BUFFER);
	util_sha256 *h = util_sha256_new();
	ssize_t n = -1;
	int saved;

	*size = 0;
	if (buf != NULL && h != NULL) {
		while ((n = util_read_full(fd, buf, FD_BUFFER)) > 0) {
			*size += (uint64_t)n;
			if (util_sha256_update(h, buf, (size_t)n) != 0) {
				errno = EIO;
				n = -1;
				break;
			}
		}
	} else {
		errno = ENOMEM;
	}
	if (n == 0 && util_sha256_final(h, out) != 0) {
		errno = EIO;
		n = -1;
	}
	saved = errno;
	util_sha256_free(h);
	free(buf);
	errno = saved;
	return n == 0 ? 0 : -1;
}

void
ps_hex_encode(const unsigned char *bytes, size_t len, char *hex)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		hex[2 * i] = digits[bytes[i] >> 4];
		hex[2 * i + 1] = digits[bytes[i] & 0x0f];
	}
	hex[2 * len] = '\0';
}

int
util_hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
util_hex_decode(const char *hex, unsigned char *bytes, size_t len)
{
	size_t i;
	int hi, lo;

	if (strlen(hex) != 2 * len)
		return -1;
	for (i = 0; i < len; i++) {
		hi = util_hex_value(hex[2 * i]);
		lo = util_hex_value(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		bytes[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

char *
ps_sha256_string(const unsigned char digest[PS_SHA256_LEN],
    char out[PS_SHA256_STRING_LEN])
{
	memcpy(out, "sha256:", 7);
	ps_hex_encode(digest, PS_SHA256_LEN, out + 7);
	return out;
}

/* On a worker whose context is a util_sha256 (util_sha256_worker_ops). */
static int
hash_slot(void *ctx, uint64_t tag, const void *buf, size_t len,
    ps_error *err)
{
	(void)tag;
	if (util_sha256_update(ctx, buf, len) != 0)
		return util_fail(err, "crypto_error", NULL, "SHA-256 failed");
	return 0;
}

const util_worker_ops util_sha256_worker_ops = { hash_slot, NULL, NULL };

#define OVERLAP_SLOT (256 * 1024)
#define OVERLAP_SLOTS 8

/* Up to this size a file is hashed on the reading thread: starting and
 * joining a thread costs more than hashing it. */
#define OVERLAP_MIN (1024 * 1024)

/* Reads into the ring until the end of the file, writing each read to
 * `copy` too unless it is -1, and no more than `copy_max` bytes in all
 * (a file grown past the size its copy was made for); a record is handed
 * to the worker at the next reservation, after its read. */
static ssize_t
read_into(util_worker *w, int fd, int copy, uint64_t copy_max,
    uint64_t *size)
{
	ps_error err;
	unsigned char *room;
	ssize_t n;

	do {
		if ((room = util_worker_reserve(w, OVERLAP_SLOT, &err)) == NULL) {
			errno = EIO;
			return -1;
		}
		if ((n = util_read_full(fd, room, OVERLAP_SLOT)) < 0)
			return -1;
		errno = 0;
		if (copy >= 0 && (uint64_t)n > copy_max - *size)
			copy = -1;
		if (copy >= 0 && n > 0 &&
		    util_write_all(copy, room, (size_t)n, NULL, &err) != 0) {
			if (errno == 0)
				errno = EIO;
			return -1;
		}
		util_worker_commit(w, 0, (size_t)n);
		*size += (uint64_t)n;
	} while (n > 0);
	return 0;
}

static size_t
overlap_slots(int fd)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size <= OVERLAP_MIN)
		return 0;
	return OVERLAP_SLOTS;
}

int
util_sha256_fd_copy(int fd, int copy, uint64_t copy_max,
    unsigned char out[PS_SHA256_LEN], uint64_t *size)
{
	util_sha256 *h = util_sha256_new();
	util_worker *w = NULL;
	ps_error err;
	ssize_t rc = -1;
	int saved = ENOMEM;

	*size = 0;
	if (h != NULL && util_worker_new(&util_sha256_worker_ops, h, OVERLAP_SLOT,
	    overlap_slots(fd), &w, &err) == 0) {
		rc = read_into(w, fd, copy, copy_max, size);
		saved = errno;
		if (util_worker_finish(w, &err) != 0 && rc == 0) {
			rc = -1;
			saved = EIO;
		}
		if (rc == 0 && util_sha256_final(h, out) != 0) {
			rc = -1;
			saved = EIO;
		}
	}
	util_worker_free(w);
	util_sha256_free(h);
	errno = saved;
	return rc == 0 ? 0 : -1;
}

int
util_sha256_fd_overlapped(int fd, unsigned char out[PS_SHA256_LEN],
    uint64_t *size)
{
	return util_sha256_fd_copy(fd, -1, 0, out, size);
}
