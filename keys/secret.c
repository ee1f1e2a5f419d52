/*
 * Secret buffers in sodium_malloc memory (guard pages, mlock, wiped on
 * free) and bounded reads of key files and passphrases.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "keys/keys.h"
#include "util/atomic.h"
#include "util/error.h"
#include "util/fdio.h"

struct ps_secret {
	unsigned char *data;
	size_t len;
	size_t capacity;
};

ps_secret *
ps_secret_new(size_t capacity)
{
	ps_secret *secret;

	if (sodium_init() < 0)
		return NULL;
	secret = calloc(1, sizeof(*secret));
	if (secret == NULL)
		return NULL;
	/* sodium_malloc(0) is valid but pointless; keep one byte. */
	secret->data = sodium_malloc(capacity > 0 ? capacity : 1);
	if (secret->data == NULL) {
		free(secret);
		return NULL;
	}
	secret->capacity = capacity;
	return secret;
}

void
ps_secret_free(ps_secret *secret)
{
	if (secret == NULL)
		return;
	sodium_free(secret->data);   /* wipes before unmapping */
	free(secret);
}

unsigned char *
ps_secret_data(ps_secret *secret)
{
	return secret->data;
}

const unsigned char *
ps_secret_bytes(const ps_secret *secret)
{
	return secret->data;
}

size_t
ps_secret_len(const ps_secret *secret)
{
	return secret->len;
}

size_t
ps_secret_capacity(const ps_secret *secret)
{
	return secret->capacity;
}

int
ps_secret_set_len(ps_secret *secret, size_t len)
{
	if (len > secret->capacity)
		return -1;
	secret->len = len;
	return 0;
}

ps_secret *
ps_secret_from(const void *data, size_t len)
{
	ps_secret *secret = ps_secret_new(len);

	if (secret == NULL)
		return NULL;
	if (len > 0)
		memcpy(secret->data, data, len);
	secret->len = len;
	return secret;
}

/* Reads at most `max` bytes of `fd` into `buf` (max + 1 bytes long: one
 * byte more than allowed tells "too large" from "exactly max"). */
static int
read_at_most(int fd, void *buf, size_t max, const char *name, size_t *got,
    ps_error *err)
{
	ssize_t n = util_read_full(fd, buf, max + 1);

	if (n < 0)
		return util_fail_errno(err, "io_error", name, "read", errno);
	if ((size_t)n > max)
		return util_fail(err, "input_too_large", name,
		    "input is larger than %zu bytes", max);
	*got = (size_t)n;
	return 0;
}

int
ps_secret_read_fd(int fd, size_t max, const char *name, ps_secret **out,
    ps_error *err)
{
	ps_secret *secret;

	*out = NULL;
	secret = ps_secret_new(max + 1);
	if (secret == NULL)
		return util_fail_oom(err, name);
	if (read_at_most(fd, secret->data, max, name, &secret->len, err) != 0) {
		ps_secret_free(secret);
		return -1;
	}
	*out = secret;
	return 0;
}

static int
open_regular(const char *path, ps_error *err)
{
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return util_fail_errno(err, errno == ENOENT ? "not_found" :
		    "io_error", path, "open", errno);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return util_fail(err, "not_a_regular_file", path,
		    "expected a regular file");
	}
	return fd;
}

int
ps_secret_read_file(const char *path, size_t max, ps_secret **out,
    ps_error *err)
{
	int fd, rc;

	*out = NULL;
	fd = open_regular(path, err);
	if (fd < 0)
		return -1;
	rc = ps_secret_read_fd(fd, max, path, out, err);
	close(fd);
	return rc;
}

/* Public files (keys, not secrets): plain memory, no guard pages or
 * mlock, which cost more than the rest of a small pack's verify. */
int
keys_read_file(const char *path, size_t max, char **data, size_t *len,
    ps_error *err)
{
	int fd, rc;

	*data = NULL;
	*len = 0;
	if ((fd = open_regular(path, err)) < 0)
		return -1;
	if ((*data = malloc(max + 1)) == NULL)
		rc = util_fail_oom(err, path);
	else
		rc = read_at_most(fd, *data, max, path, len, err);
	close(fd);
	if (rc != 0) {
		free(*data);
		*data = NULL;
		return -1;
	}
	(*data)[*len] = '\0';
	return 0;
}

int
ps_secret_passphrase_line(ps_secret *secret, const char *name, ps_error *err)
{
	unsigned char *nl;
	size_t len = secret->len;

	nl = memchr(secret->data, '\n', len);
	if (nl != NULL)
		len = (size_t)(nl - secret->data);
	if (len > 0 && secret->data[len - 1] == '\r')
		len--;
	sodium_memzero(secret->data + len, secret->capacity - len);
	secret->len = len;
	if (len == 0)
		return util_fail(err, "passphrase_invalid", name,
		    "the passphrase is empty");
	if (memchr(secret->data, '\0', len) != NULL)
		return util_fail(err, "passphrase_invalid", name,
		    "the passphrase contains a NUL byte");
	return 0;
}

static int
write_all(int fd, const unsigned char *data, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Writes and flushes one file beside its target; -1 with err filled. */
static int
fill_output(ps_atomic_file *file, const ps_key_output *o, ps_error *err)
{
	int saved;

	if (write_all(ps_atomic_fd(file), o->data, o->len) == 0 &&
	    fsync(ps_atomic_fd(file)) == 0)
		return 0;
	saved = errno;
	return util_fail_errno(err, saved == ENOSPC ? "disk_full" : "io_error",
	    o->path, "write", saved);
}

static void
abort_all(ps_atomic_file **files, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		ps_atomic_abort(files[i]);
}

/* New files renamed before a later rename failed are taken back. */
static int
commit_all(ps_atomic_file **files, const ps_key_output *outs, size_t count,
    int flags, ps_error *err)
{
	size_t i, j;

	for (i = 0; i < count; i++) {
		if (ps_atomic_commit(files[i], err) == 0)
			continue;
		abort_all(files + i + 1, count - i - 1);
		for (j = 0; (flags & PS_WRITE_NO_REPLACE) != 0 && j < i; j++)
			unlink(outs[j].path);
		return -1;
	}
	return 0;
}

int
ps_key_files_write(const ps_key_output *outs, size_t count, int flags,
    ps_error *err)
{
	ps_atomic_file *files[PS_KEY_FILES_MAX];
	size_t i;

	if (count == 0 || count > PS_KEY_FILES_MAX)
		return util_fail(err, "io_error", NULL, "%zu key files at once",
		    count);
	for (i = 0; i < count; i++) {
		if (ps_atomic_open(outs[i].path, outs[i].mode,
		    (flags & PS_WRITE_NO_REPLACE) != 0 ? PS_ATOMIC_NO_REPLACE : 0,
		    &files[i], err) != 0 ||
		    fill_output(files[i], &outs[i], err) != 0) {
			abort_all(files, i + 1);    /* files[i] may be NULL */
			return -1;
		}
	}
	return commit_all(files, outs, count, flags, err);
}

int
ps_key_file_write(const char *path, const void *data, size_t len,
    unsigned mode, int flags, ps_error *err)
{
	const ps_key_output out = { path, data, len, mode };

	return ps_key_files_write(&out, 1, flags, err);
}

int
ps_secret_equal(const ps_secret *a, const ps_secret *b)
{
	return a->len == b->len && sodium_memcmp(a->data, b->data, a->len) == 0;
}
