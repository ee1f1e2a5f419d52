/*
 * packsign.h - the public interface of libpacksign.
 *
 * Conventions (every function follows them):
 * - Functions return 0 on success and -1 on failure.  On failure they fill
 *   the caller's `ps_error`, which says what was checked, what was expected
 *   and what was found, with a stable error code (see docs/errors.md).
 * - Objects come in _new/_free pairs; _free(NULL) is a no-op.
 * - Strings returned inside result objects are owned by that object.
 * - The library never writes to the terminal and touches the file system
 *   only through the paths and file descriptors it is handed.
 */
#ifndef PACKSIGN_H
#define PACKSIGN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PS_VERSION "0.1.0"

/* ---------------------------------------------------------------- errors */

/* Exit status classes: they are the CLI's exit codes. */
typedef enum ps_status {
	PS_STATUS_OK = 0,      /* success */
	PS_STATUS_REFUSED = 1, /* the input was examined and refused */
	PS_STATUS_FAILED = 2   /* the job could not be done */
} ps_status;

#define PS_ERROR_CODE_MAX 48
#define PS_ERROR_TEXT_MAX 1024
#define PS_ERROR_VALUE_MAX 512

typedef struct ps_error {
	ps_status status;
	char code[PS_ERROR_CODE_MAX];      /* stable, ^[a-z][a-z0-9_]*$ */
	char subject[PS_ERROR_TEXT_MAX];   /* path or object concerned */
	char message[PS_ERROR_TEXT_MAX];   /* what was checked */
	char expected[PS_ERROR_VALUE_MAX]; /* empty when not applicable */
	char found[PS_ERROR_VALUE_MAX];    /* empty when not applicable */
} ps_error;

/* Clears an error to the "no error" state. */
void ps_error_clear(ps_error *err);

/*
 * Formats an error as one line without a trailing newline:
 *   SUBJECT: MESSAGE: expected EXPECTED, found FOUND [CODE]
 * Parts that are empty are left out.  Returns `buf`.
 */
char *ps_error_format(const ps_error *err, char *buf, size_t size);

/* ----------------------------------------------------------- diagnostics */

/*
 * A list of problems reported all at once, compiler-style:
 *   FILE:LINE:COL: error|warning: MESSAGE [CODE]
 * LINE and COL are 1-based; 0 means unknown (then they are left out).
 */
typedef enum ps_severity {
	PS_SEVERITY_ERROR = 0,
	PS_SEVERITY_WARNING = 1
} ps_severity;

typedef struct ps_diag {
	ps_severity severity;
	char *file;
	unsigned line;
	unsigned column;
	char code[PS_ERROR_CODE_MAX];
	char *message;
} ps_diag;

typedef struct ps_diags {
	ps_diag *items;
	size_t count;
	size_t capacity;
} ps_diags;

void ps_diags_init(ps_diags *diags);
void ps_diags_free(ps_diags *diags);
/* Appends one problem; returns 0, or -1 when memory runs out. */
int ps_diags_add(ps_diags *diags, ps_severity severity, const char *code,
    const char *file, unsigned line, unsigned column, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
size_t ps_diags_count(const ps_diags *diags, ps_severity severity);
/* Stable sort by file, line, column. */
void ps_diags_sort(ps_diags *diags);
/* One diagnostic as a line without newline; returns `buf`. */
char *ps_diag_format(const ps_diag *diag, char *buf, size_t size);

/* ---------------------------------------------------------------- digests */

#define PS_SHA256_LEN 32
#define PS_SHA256_HEX_LEN 64
/* "sha256:" + 64 hex digits + NUL */
#define PS_SHA256_STRING_LEN (7 + PS_SHA256_HEX_LEN + 1)

/* Writes "sha256:<lowercase hex>" into `out`; returns `out`. */
char *ps_sha256_string(const unsigned char digest[PS_SHA256_LEN],
    char out[PS_SHA256_STRING_LEN]);
/* Lowercase hex of `len` bytes into `hex` (2 * len + 1 bytes). */
void ps_hex_encode(const unsigned char *bytes, size_t len, char *hex);

/* One regular file or empty directory of a pack, as digests see it. */
typedef enum ps_entry_type {
	PS_ENTRY_FILE = 0,
	PS_ENTRY_DIR = 1
} ps_entry_type;

typedef struct ps_entry {
	char *path;            /* canonical (NFC, '/'-separated) relative path */
	ps_entry_type type;
	int executable;        /* files: owner-execute bit set */
	uint64_t size;         /* files: content length */
	unsigned char sha256[PS_SHA256_LEN]; /* files: SHA-256 of content */
} ps_entry;

/* Which kind of pack a manifest file name announces. */
typedef enum ps_format {
	PS_FORMAT_UNKNOWN = 0,
	PS_FORMAT_SOYAPACK,   /* soyapack.yaml */
	PS_FORMAT_HOLON,      /* holon.yaml */
	PS_FORMAT_AUTOGRAPH,  /* augr.pkg.yml */
	PS_FORMAT_AGENTPACK   /* manifest.yml */
} ps_format;

/* Returns "soyapack", "holon", "autograph", "agentpack" or "unknown". */
const char *ps_format_name(ps_format format);
/* The manifest file name of a format ("manifest.yml", ...); NULL if unknown. */
const char *ps_format_manifest(ps_format format);
/* The format whose manifest is at `path` (relative to the pack root). */
ps_format ps_format_by_manifest(const char *path);

typedef enum ps_source_kind {
	PS_SOURCE_DIRECTORY = 0,
	PS_SOURCE_TAR,        /* .tar, .tar.gz, .tgz, .tar.zst */
	PS_SOURCE_ZIP         /* .zip */
} ps_source_kind;

/* The digests of a pack, whatever carries it (docs/formats/digests.md). */
typedef struct ps_digest {
	ps_source_kind source;
	ps_format format;
	char *manifest_path;                 /* relative to the pack root */
	unsigned char manifest_sha256[PS_SHA256_LEN];
	unsigned char tree_digest[PS_SHA256_LEN];
	int has_tar_digest;                  /* directories and tars */
	unsigned char tar_digest[PS_SHA256_LEN];
	int has_archive_digest;              /* archives */
	unsigned char archive_digest[PS_SHA256_LEN];
	int canonical;                       /* tars: 1 when canonical */
	uint64_t total_size;                 /* sum of file sizes */
	size_t entry_count;                  /* entries in `entries` */
	ps_entry *entries;                   /* canonical (bytewise) order */
} ps_digest;

void ps_digest_free(ps_digest *digest);

/* Finds an entry by canonical path; NULL when absent. */
const ps_entry *ps_digest_find(const ps_digest *digest, const char *path);

/* ---------------------------------------------------------------- packing */

typedef enum ps_compression {
	PS_COMPRESS_NONE = 0,
	PS_COMPRESS_GZIP,
	PS_COMPRESS_ZSTD
} ps_compression;

/* Fixed levels: compressed bytes depend on them (canonical-tar.md). */
#define PS_GZIP_LEVEL 6
#define PS_ZSTD_LEVEL 3

/* The largest mtime a canonical archive records (ustar's 11 octal digits). */
#define PS_MTIME_MAX 8589934591LL

typedef struct ps_pack_options {
	int64_t mtime;              /* one mtime for every entry, 0..PS_MTIME_MAX */
	ps_compression compression;
} ps_pack_options;

/* Defaults: mtime 0, no compression. */
void ps_pack_options_init(ps_pack_options *options);

/*
 * Writes the canonical archive of the pack directory `dir` to `out_fd`
 * (never closed here).  When `digest_out` is not NULL it receives the
 * pack's digests (tar digest of the uncompressed stream, tree digest,
 * manifest), which the caller frees with ps_digest_free().  `out_fd` may be
 * -1 to compute the digests without writing anything.
 */
int ps_pack(const char *dir, int out_fd, const ps_pack_options *options,
    ps_digest **digest_out, ps_error *err);

/*
 * Computes the digests of `path`: a pack directory (its canonical tar is
 * built in memory-bounded streaming fashion, using `options` for the mtime)
 * or an archive (.tar, .tar.gz, .tgz, .tar.zst, .zip).
 */
int ps_digest_path(const char *path, const ps_pack_options *options,
    ps_digest **digest_out, ps_error *err);

/* Guesses compression from an output name; -1 when the suffix is unknown. */
int ps_compression_from_name(const char *name, ps_compression *out);

/* ---------------------------------------------------------- atomic output */

/*
 * Output files that appear whole or not at all: data goes to a temporary
 * file beside the target (".NAME.XXXXXX"), renamed over it on commit.
 */
typedef struct ps_atomic_file ps_atomic_file;

/* Refuse to replace an existing target (checked again at commit). */
#define PS_ATOMIC_NO_REPLACE 0x1

int ps_atomic_open(const char *path, unsigned mode, int flags,
    ps_atomic_file **out, ps_error *err);
int ps_atomic_fd(const ps_atomic_file *file);
/* The temporary file's path, for callers that clean up on signals. */
const char *ps_atomic_temp_path(const ps_atomic_file *file);
/* Flushes to disk, renames into place and frees `file`, whatever happens. */
int ps_atomic_commit(ps_atomic_file *file, ps_error *err);
/* Removes the temporary file and frees `file`. */
void ps_atomic_abort(ps_atomic_file *file);

#ifdef __cplusplus
}
#endif

#endif /* PACKSIGN_H */
