/*
 * packsign.h - the public interface of libpacksign.
 *
 * Conventions (every function follows them unless its comment says
 * otherwise):
 * - Functions that can fail return int: 0 on success, -1 on failure.
 *   Predicates ("1 when ...") return 1 or 0 and never fail; functions
 *   returning a pointer return NULL for "absent" or, where said, for
 *   "out of memory".
 * - On failure the last argument, a caller-owned `ps_error *err` (never
 *   NULL; nothing to free), is filled: `status` is PS_STATUS_REFUSED (the
 *   input was examined and refused: exit 1) or PS_STATUS_FAILED (the job
 *   could not be done: exit 2); `code` is a stable ^[a-z][a-z0-9_]*$ code
 *   listed with its exit in docs/errors.md; `subject` names the path or
 *   object, `message` what was checked, `expected` and `found` the two
 *   values compared (empty when there is no value to compare).
 *   ps_error_format() gives the one-line form the CLI prints.  Problems a validator reports all at once go
 *   to a `ps_diags` list instead, and the call itself succeeds.
 * - Ownership: objects come in _new/_free pairs (or a function that
 *   allocates and the matching _free, e.g. ps_verify() and
 *   ps_verify_result_free()); every _free accepts NULL.  A `T **out`
 *   receives a new object the caller owns on success; after a failure it
 *   holds nothing to use or free, unless the comment says the result is
 *   set on failure too (verify, install, sign: so a report can say how
 *   far it got; free it then as well).  A `char **out`
 *   is freed with free(); a `ps_secret **out` with ps_secret_free(), which
 *   wipes it.  Strings and arrays inside a result object are owned by it
 *   and die with it.  `const char *` arguments are only read during the
 *   call, never kept, unless a field comment says otherwise (options
 *   structures are read during the call only).
 * - Buffers sized by a macro (PS_SHA256_STRING_LEN, PS_FINGERPRINT_MAX,
 *   ...) are the caller's; functions that fill one return it.
 * - The library never writes to the terminal and touches the file system
 *   only through the paths and file descriptors it is handed; it reads the
 *   environment only in ps_data_dir_default().  It makes network requests
 *   only in ps_install_url() and ps_fetch(), to the URLs it is handed,
 *   through the proxy it is handed (never one from the environment).
 * - Thread safety: the library keeps no mutable global state of its own
 *   (libgit2 and libcurl are opened by the call that needs them, with
 *   dlopen(), and started and stopped with their reference-counted,
 *   thread-safe git_libgit2_init()/shutdown() and curl_global_init()/
 *   cleanup(); sodium_init() is thread-safe; locale changes are
 *   per-thread uselocale() scopes, never setlocale()).  So any function may
 *   be called from several threads at once on different objects; an object
 *   is not locked: one thread at a time may use it, except that objects
 *   passed as `const` (a loaded ps_trust, a verified ps_index) may be read
 *   by several threads at once.  Each group below says what it adds.
 *   Callbacks (progress, confirm, consent, waiting, cancelled) are called
 *   on the calling thread.  libcurl below 7.84 does not make
 *   curl_global_init() thread-safe against another library of the process
 *   initialising libcurl at the same moment.
 */
#ifndef PACKSIGN_H
#define PACKSIGN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PS_VERSION "0.1.0"

/*
 * The ABI number, which is the major version of the shared library's
 * soname (libpacksign.so.N).  Any change a program compiled against this
 * header could notice at run time bumps it: a public struct's layout (a
 * field added, removed, moved or resized), an enum's values, a function's
 * parameters or return type.  A program built against one header then
 * never loads a library whose _init functions fill a struct of another
 * size.  scripts/check-abi (in make check) fails when a layout or a
 * prototype changed and the number did not.  New functions, new codes and
 * new PS_CODE_* names do not bump it.
 */
#define PS_ABI_VERSION 1

/* The version ("0.1.0") and ABI number of the library as it was built:
 * a program compares them with the PS_VERSION and PS_ABI_VERSION it was
 * compiled with (the Python binding refuses a library whose ABI differs).
 * Never fail; thread-safe. */
const char *ps_version(void);
int ps_abi_version(void);

/* ---------------------------------------------------------------- errors */

/* Thread safety: pure functions on the caller's ps_error. */

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

/* Clears an error to the "no error" state (status PS_STATUS_OK, every
 * text empty). */
void ps_error_clear(ps_error *err);

/* 1 when `err` carries `code` (a PS_CODE_* name below, or any code of
 * docs/errors.md), else 0. */
int ps_error_is(const ps_error *err, const char *code);

/*
 * The codes a caller may branch on, by name: a program that tests a code
 * compares with one of these, never with a literal of its own, so that
 * scripts/check-error-codes knows every code that steers control flow.
 * Each is a code of docs/errors.md.
 */
#define PS_CODE_NOT_FOUND "not_found"
#define PS_CODE_NOT_INSTALLED "not_installed"
#define PS_CODE_INSTALL_DECLINED "install_declined"
#define PS_CODE_INSTALLED_MODIFIED "installed_modified"
#define PS_CODE_PACK_PATH_MISSING "pack_path_missing"
#define PS_CODE_PACK_PATH_SPECIAL "pack_path_special"
#define PS_CODE_PACK_NOT_FILE "pack_not_file"
#define PS_CODE_PACK_FILE_TOO_LARGE "pack_file_too_large"
#define PS_CODE_PACK_OUT_OF_SCOPE "pack_out_of_scope"
#define PS_CODE_KEY_EXPIRED "key_expired"
#define PS_CODE_KEY_NOT_YET_VALID "key_not_yet_valid"
#define PS_CODE_KEY_REVOKED "key_revoked"
#define PS_CODE_ROLE_MISSING "role_missing"
#define PS_CODE_SIGNED_BY_MISMATCH "signed_by_mismatch"
#define PS_CODE_KEY_UNSUPPORTED_ALGORITHM "key_unsupported_algorithm"
#define PS_CODE_KEY_UNSUPPORTED_KDF "key_unsupported_kdf"
#define PS_CODE_KEY_KDF_LIMITS "key_kdf_limits"
#define PS_CODE_AGENTPACK_CONFIG_PATH "agentpack_config_path"
#define PS_CODE_AUTOGRAPH_COMPOSE "autograph_compose"
#define PS_CODE_AUTOGRAPH_COMPOSE_INVALID "autograph_compose_invalid"
#define PS_CODE_AUTOGRAPH_COMPOSE_LIMIT "autograph_compose_limit"
#define PS_CODE_AUTOGRAPH_TASKFILE_INVALID "autograph_taskfile_invalid"
#define PS_CODE_AUTOGRAPH_TASKFILE_LIMIT "autograph_taskfile_limit"
#define PS_CODE_PERMISSION_EXCEEDS_POLICY "permission_exceeds_policy"
#define PS_CODE_CONSENT_REQUIRED "consent_required"
#define PS_CODE_PINS_INVALID "pins_invalid"
#define PS_CODE_FETCH_TOO_LARGE "fetch_too_large"
#define PS_CODE_WRONG_PASSPHRASE "wrong_passphrase"

/*
 * Formats an error as one line without a trailing newline:
 *   SUBJECT: MESSAGE: expected EXPECTED, found FOUND [CODE]
 * Parts that are empty are left out.  Returns `buf`.
 */
char *ps_error_format(const ps_error *err, char *buf, size_t size);

/* Optional, for a program that owns its copy of OpenSSL's libcrypto, as
 * the packsign CLI does (it links libcrypto statically; CLI_LINK=static):
 * starts that libcrypto without reading openssl.cnf or $OPENSSL_CONF (no
 * configuration can load a provider or an engine into the process),
 * without its exit handler and without the legacy cipher and digest
 * name tables (packsign asks the providers by their own names).  It then
 * costs about a millisecond less to start, which a verify of a small pack
 * notices.  Call it first, before
 * any other call of the process into packsign or OpenSSL.  A program that
 * shares libcrypto with other code (a Python or Node process, anything
 * using libpacksign.so) must not call it: the choice holds for the whole
 * process.  Returns 0, or -1 with crypto_error when OpenSSL refused (it
 * had already started).  Not thread-safe: call it before any thread. */
int ps_process_init(ps_error *err);
/* The same, except that OpenSSL's digest name table is kept: a process
 * that verifies X.509 certificates (Sigstore bundles: ps_sigstore_verify(),
 * ps_verify() of bundles with timestamps, ps_sign() with tsa_url or
 * keyless) needs it, because OpenSSL 3.0
 * looks the digest of a certificate's signature up by name there, and
 * without it no certificate verifies.  Call one of the two, once. */
int ps_process_init_x509(ps_error *err);

/* ----------------------------------------------------------- diagnostics */

/* Thread safety: one list per thread at a time; no global state. */

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

/* An empty list; call before the first ps_diags_add() or before handing
 * the list to a function that fills it. */
void ps_diags_init(ps_diags *diags);
/* Frees every item (not `diags` itself, which the caller owns) and leaves
 * the list empty and reusable; NULL is a no-op. */
void ps_diags_free(ps_diags *diags);
/* Appends one problem; returns 0, or -1 when memory runs out (nothing else
 * is reported: the caller records out_of_memory).  `file` and the message
 * are copied. */
int ps_diags_add(ps_diags *diags, ps_severity severity, const char *code,
    const char *file, unsigned line, unsigned column, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
/* How many items of `severity` the list holds. */
size_t ps_diags_count(const ps_diags *diags, ps_severity severity);
/* Stable sort by file, line, column. */
void ps_diags_sort(ps_diags *diags);
/* One diagnostic as a line without newline; returns `buf`. */
char *ps_diag_format(const ps_diag *diag, char *buf, size_t size);

/* ---------------------------------------------------------------- digests */

/* Thread safety: may be called from several threads at once on different
 * paths (ps_digest_path() hashes on worker threads of its own). */

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
	int partial;                         /* 1: only some files were hashed
	                                      * (verify without --deep): their
	                                      * sha256 and the tree digest are
	                                      * not set for the others */
	size_t entry_count;                  /* entries in `entries` */
	ps_entry *entries;                   /* canonical (bytewise) order */
} ps_digest;

/* Frees the digest, its manifest path and its entries; NULL is a no-op. */
void ps_digest_free(ps_digest *digest);

/* Finds an entry by canonical path; NULL when absent. */
const ps_entry *ps_digest_find(const ps_digest *digest, const char *path);

/* ----------------------------------------------------------------- limits */

/* Thread safety: pure. */

typedef struct ps_copies ps_copies;    /* "copies" below */

/*
 * The limits of reading an archive, held by every reader of one (digest,
 * validate, sign, verify, install) while it decompresses, so that a small
 * file cannot make any of them spend hours or gigabytes
 * (docs/formats/install.md, "Limits").  A limit of 0 means "no limit".
 */
typedef struct ps_extract_limits {
	uint64_t max_total_size;    /* bytes of file content, default 16 GiB */
	uint64_t max_entries;       /* files and directories, default 1000000 */
	uint64_t max_ratio;         /* content bytes per archive byte, checked
	                             * once the content passes ratio_floor;
	                             * default 200 */
	uint64_t ratio_floor;       /* default 64 MiB */
	/* Where the private copies of archives a reader parses go, and how
	 * much of them may be in memory (ps_copies_new(); not owned, may be
	 * shared by threads); NULL: at most PS_COPIES_DEFAULT_MEMORY in
	 * memory for the call and no file copies. */
	ps_copies *copies;
} ps_extract_limits;

#define PS_EXTRACT_DEFAULT_MAX_SIZE (16ULL * 1024 * 1024 * 1024)
#define PS_EXTRACT_DEFAULT_MAX_ENTRIES 1000000ULL
#define PS_EXTRACT_DEFAULT_MAX_RATIO 200ULL
#define PS_EXTRACT_DEFAULT_RATIO_FLOOR (64ULL * 1024 * 1024)

/* The PS_EXTRACT_DEFAULT_* limits, copies NULL. */
void ps_extract_limits_init(ps_extract_limits *limits);

/* ------------------------------------------------------------------ copies */

/* Thread safety: one ps_copies may be used by several threads at once
 * (its budget is taken under a lock); ps_copies_free() once none does. */

/*
 * The private copies readers parse (docs/security.md, section 5): verify's
 * copy of an archive while pass 1 hashes it (a tar of at most 2 GiB, a zip
 * of any size), and a zip's own while it is read (digest, validate,
 * describe, sign of a zip).  A copy is in memory (a memfd: memory the
 * kernel counts as Shmem, not as anyone's RSS) while the copies in memory
 * of every reader sharing `copies` stay within `memory_max` bytes (0:
 * PS_COPIES_DEFAULT_MEMORY), whatever the number of threads; a copy that
 * does not fit is an unlinked file (O_TMPFILE, mode 0600) in `dir`, which
 * must not be on tmpfs or ramfs (copy_dir_tmpfs: a file there is memory
 * too; checked with fstatfs).  `dir` NULL: no file copies, so a tar that
 * does not fit is read twice (signature.md, section 3, step 3) and a zip
 * is refused (copy_unavailable).  Codes: copy_dir_tmpfs, not_found,
 * not_a_directory, io_error, out_of_memory.
 */
#define PS_COPIES_DEFAULT_MEMORY (64ULL * 1024 * 1024)

int ps_copies_new(uint64_t memory_max, const char *dir, ps_copies **out,
    ps_error *err);
void ps_copies_free(ps_copies *copies);
/* The most bytes its copies held in memory at once, and how many copies
 * went to files (for tests and benchmarks). */
uint64_t ps_copies_memory_peak(const ps_copies *copies);
uint64_t ps_copies_file_count(const ps_copies *copies);

/* ---------------------------------------------------------------- packing */

/* Thread safety: may be called from several threads at once; each call
 * runs its own worker threads and joins them before it returns. */

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

/*
 * Progress of long work (packing, reading an archive), for a display: the
 * library calls `fn` from the caller's thread after every file and every
 * few hundred KiB; throttling and output are the caller's.  A total of 0
 * means unknown.  The last call has `done` set.
 */
typedef struct ps_progress {
	const char *what;           /* "packing", "reading" */
	uint64_t files, files_total;
	uint64_t bytes, bytes_total;
	int done;
} ps_progress;

typedef struct ps_progress_sink {
	void (*fn)(void *ctx, const ps_progress *progress);
	void *ctx;
} ps_progress_sink;

typedef struct ps_pack_options {
	int64_t mtime;              /* one mtime for every entry, 0..PS_MTIME_MAX */
	ps_compression compression;
	ps_progress_sink progress;  /* fn NULL: none */
	ps_extract_limits limits;   /* reading an archive (ps_digest_path,
	                             * ps_inspect, signing an archive) */
} ps_pack_options;

/* Defaults: mtime 0, no compression, the default limits. */
void ps_pack_options_init(ps_pack_options *options);

/*
 * Writes the canonical archive of the pack directory `dir` to `out_fd`
 * (never closed here).  When `digest_out` is not NULL it receives the
 * pack's digests (tar digest of the uncompressed stream, tree digest,
 * manifest), which the caller frees with ps_digest_free().  `out_fd` may be
 * -1 to compute the digests without writing anything.  Refusals (exit 1):
 * the packing codes of docs/errors.md ("Packing and digests":
 * manifest_missing, symlink_refused, name_*, case_collision, ...);
 * failures (exit 2): not_found, not_a_directory, invalid_mtime,
 * file_changed, io_error, disk_full, archive_error, locale_unavailable,
 * out_of_memory.  Bytes already written to `out_fd` stay there: write to
 * a ps_atomic_open() file to keep a failure from leaving a partial one.
 */
int ps_pack(const char *dir, int out_fd, const ps_pack_options *options,
    ps_digest **digest_out, ps_error *err);

/*
 * Computes the digests of `path`: a pack directory (its canonical tar is
 * built in memory-bounded streaming fashion, using `options` for the mtime)
 * or an archive (.tar, .tar.gz, .tgz, .tar.zst, .zip).  *digest_out is
 * the caller's, freed with ps_digest_free().  Archive entries are checked
 * as they are read: the packing codes refuse unsafe ones (exit 1), as do
 * unsupported_archive and archive_corrupt.
 */
int ps_digest_path(const char *path, const ps_pack_options *options,
    ps_digest **digest_out, ps_error *err);

/* "none", "gzip" or "zstd"; NULL for another value. */
const char *ps_compression_name(ps_compression compression);
/* Parses "none", "gzip" or "zstd"; 0 / -1. */
int ps_compression_by_name(const char *name, ps_compression *out);

/* Guesses compression from an output name; -1 when the suffix is unknown. */
int ps_compression_from_name(const char *name, ps_compression *out);

/* ---------------------------------------------------------- atomic output */

/* Thread safety: one ps_atomic_file per thread at a time; two calls
 * writing the same target race as two processes would (the last rename
 * wins, or output_exists under PS_ATOMIC_NO_REPLACE). */

/*
 * Output files that appear whole or not at all: data goes to a temporary
 * file in the target's directory, renamed over the target on commit.
 * Where the file system allows it (Linux O_TMPFILE) the temporary file has
 * no name until the commit, so a process killed before then leaves
 * nothing; elsewhere it is ".NAME.XXXXXX".
 */
typedef struct ps_atomic_file ps_atomic_file;

/* Refuse to replace an existing target (checked again at commit). */
#define PS_ATOMIC_NO_REPLACE 0x1

/* Starts an output to `path` with permission bits `mode`; `flags` 0 or
 * PS_ATOMIC_NO_REPLACE.  *out is ended by exactly one of
 * ps_atomic_commit() or ps_atomic_abort(), which free it.  Codes:
 * output_exists, io_error, out_of_memory (exit 2). */
int ps_atomic_open(const char *path, unsigned mode, int flags,
    ps_atomic_file **out, ps_error *err);
/* The descriptor to write to; owned by `file` (do not close it). */
int ps_atomic_fd(const ps_atomic_file *file);
/* The temporary file's path, for callers that clean up on signals (an
 * unnamed temporary file gets this name only during the commit). */
const char *ps_atomic_temp_path(const ps_atomic_file *file);
/* Flushes to disk, renames into place and frees `file`, whatever happens;
 * on failure the target is as it was.  Codes: output_exists, io_error,
 * disk_full (exit 2). */
int ps_atomic_commit(ps_atomic_file *file, ps_error *err);
/* Removes the temporary file and frees `file`. */
void ps_atomic_abort(ps_atomic_file *file);

/* ------------------------------------------------------------------- keys */

/* Thread safety: may be called from several threads at once on different
 * keys (sodium_init() is thread-safe); a ps_pubkey or ps_seckey passed as
 * const may be shared. */

/*
 * Ed25519 keys in minisign's file formats (docs/formats/keys.md), OpenSSH
 * `ssh-ed25519` public key lines and PEM (PKCS#8, SubjectPublicKeyInfo);
 * ECDSA P-256 public keys (PEM SubjectPublicKeyInfo only) for verifying
 * DSSE signatures.  Key ids and fingerprints are hints for finding a key;
 * trust is always decided on the algorithm and the full public key.
 */

#define PS_KEY_ID_LEN 8
#define PS_KEY_ID_HEX_LEN 16          /* without the NUL */
#define PS_ED25519_PUBLIC_LEN 32
#define PS_ED25519_SIG_LEN 64
#define PS_ECDSA_P256_PUBLIC_LEN 65   /* uncompressed point 04 || X || Y */
#define PS_BLAKE2B512_LEN 64
#define PS_FINGERPRINT_MAX 52         /* "SHA256:" + 43 base64 + NUL */
#define PS_KEY_FILE_MAX (64 * 1024)   /* larger key files are refused */
#define PS_IDENTITY_MAX 128           /* bytes, see ps_identity_valid() */
#define PS_PASSPHRASE_MAX 1024

/* Where a public key came from. */
typedef enum ps_key_source {
	PS_KEY_SOURCE_MINISIGN = 0,   /* minisign/signify base64 line */
	PS_KEY_SOURCE_SSH,            /* "ssh-ed25519 AAAA... comment" */
	PS_KEY_SOURCE_PEM             /* SubjectPublicKeyInfo PEM */
} ps_key_source;

/* A public key's signature algorithm. */
typedef enum ps_key_algorithm {
	PS_KEY_ED25519 = 0,           /* every source */
	PS_KEY_ECDSA_P256             /* prime256v1, PEM only; verifies DSSE */
} ps_key_algorithm;

/* A public key: Ed25519 (`key`) or ECDSA P-256 (`ecdsa_point`). */
typedef struct ps_pubkey {
	ps_key_source source;
	/* minisign keys: the file's key id; others: derived (keys.md) */
	unsigned char key_id[PS_KEY_ID_LEN];
	unsigned char key[PS_ED25519_PUBLIC_LEN];   /* Ed25519; else zero */
	char *identity;   /* from the comment "... for <ID>", else NULL */
	ps_key_algorithm alg;
	/* ECDSA P-256: the point, always uncompressed; else zero */
	unsigned char ecdsa_point[PS_ECDSA_P256_PUBLIC_LEN];
} ps_pubkey;

/* Bytes that must not leak: sodium_malloc'd (guarded, locked, wiped). */
typedef struct ps_secret ps_secret;

/* A buffer of `capacity` bytes, length 0; NULL when out of memory. */
ps_secret *ps_secret_new(size_t capacity);
/* Wipes and frees; NULL is a no-op. */
void ps_secret_free(ps_secret *secret);
/* The buffer, writable up to the capacity; owned by `secret`.  Never copy
 * the bytes into ordinary memory. */
unsigned char *ps_secret_data(ps_secret *secret);
/* The same, read-only: ps_secret_len() bytes are in use. */
const unsigned char *ps_secret_bytes(const ps_secret *secret);
/* Bytes in use. */
size_t ps_secret_len(const ps_secret *secret);
/* Bytes allocated. */
size_t ps_secret_capacity(const ps_secret *secret);
/* Sets the used length (<= capacity); 0 / -1. */
int ps_secret_set_len(ps_secret *secret, size_t len);
/* 1 when both hold the same bytes (constant time for equal lengths). */
int ps_secret_equal(const ps_secret *a, const ps_secret *b);
/* A copy of `len` bytes; NULL when out of memory. */
ps_secret *ps_secret_from(const void *data, size_t len);
/*
 * Reads `fd` (never closed here) to its end into a new secret, refusing
 * more than `max` bytes (code input_too_large).  `name` names the source.
 * *out is the caller's (ps_secret_free()).  Failures are exit 2: the
 * operator chose the source.
 */
int ps_secret_read_fd(int fd, size_t max, const char *name,
    ps_secret **out, ps_error *err);
/* Same for a regular file (symlinks followed; FIFOs and devices refused
 * with not_a_regular_file); also not_found, permission_denied, io_error. */
int ps_secret_read_file(const char *path, size_t max, ps_secret **out,
    ps_error *err);
/*
 * Cuts a passphrase read from a file or descriptor at its first line end
 * ("\n" or "\r\n"); refuses an empty or NUL-containing one (code
 * passphrase_invalid).
 */
int ps_secret_passphrase_line(ps_secret *secret, const char *name,
    ps_error *err);

/* Refuse to replace an existing file (checked again at the rename). */
#define PS_WRITE_NO_REPLACE 0x1
/*
 * Writes a key file atomically (temporary file beside it, fsync, rename)
 * with permission bits `mode` (0600 for secrets).  Codes: output_exists,
 * io_error, disk_full.
 */
int ps_key_file_write(const char *path, const void *data, size_t len,
    unsigned mode, int flags, ps_error *err);

/* One file for ps_key_files_write(): contents and permission bits. */
typedef struct ps_key_output {
	const char *path;
	const void *data;
	size_t len;
	unsigned mode;
} ps_key_output;

#define PS_KEY_FILES_MAX 4
/*
 * Writes up to PS_KEY_FILES_MAX files together (a secret and a public key):
 * each is written and flushed beside its target before the first rename, so
 * a full disk or a failed write leaves every target as it was.  The renames
 * then follow each other at once; when one fails, files renamed before it
 * are removed if they were new (PS_WRITE_NO_REPLACE).  Codes as
 * ps_key_file_write().
 */
int ps_key_files_write(const ps_key_output *files, size_t count, int flags,
    ps_error *err);

/* An Ed25519 secret key, held in sodium_malloc memory. */
typedef struct ps_seckey ps_seckey;

/* Scrypt limits: minisign's (about 1 GiB), or libsodium's interactive. */
typedef enum ps_kdf_level {
	PS_KDF_SENSITIVE = 0,
	PS_KDF_INTERACTIVE
} ps_kdf_level;

/* What a secret key file says about itself before any passphrase. */
typedef struct ps_seckey_info {
	int encrypted;                     /* 1: scrypt, 0: plain */
	unsigned long long opslimit;       /* 0 when plain */
	unsigned long long memlimit;
} ps_seckey_info;

/* A zeroed key (minisign source, no identity), freed with
 * ps_pubkey_free(); code out_of_memory. */
int ps_pubkey_new(ps_pubkey **out, ps_error *err);
/* Frees the key and its identity; NULL is a no-op. */
void ps_pubkey_free(ps_pubkey *key);
/* A deep copy (identity included), freed with ps_pubkey_free(); code
 * out_of_memory. */
int ps_pubkey_copy(const ps_pubkey *key, ps_pubkey **out, ps_error *err);
/* 1 when both have the same algorithm and the same public key. */
int ps_pubkey_equal(const ps_pubkey *a, const ps_pubkey *b);

/*
 * Parses a public key in any supported form, detected from its text:
 * a minisign file (comment line + base64 line), a bare minisign base64
 * line, an "ssh-ed25519 ..." line or a PEM SubjectPublicKeyInfo block.
 * `name` is the error subject.  Codes: key_malformed, key_bad_base64,
 * key_unsupported_algorithm, key_comment_mismatch, input_too_large.  Every
 * failure has exit class 2 (an operator's key file); callers that parse a
 * key from examined input may downgrade it to a refusal.
 */
int ps_pubkey_parse(const char *text, size_t len, const char *name,
    ps_pubkey **out, ps_error *err);
/*
 * Reads a regular file (at most PS_KEY_FILE_MAX bytes) and parses it; also
 * not_found, not_a_regular_file, io_error.
 */
int ps_pubkey_load_file(const char *path, ps_pubkey **out, ps_error *err);
/*
 * The minisign public key file text, comment
 * "packsign public key <KEY ID>[ for <ID>]"; caller frees with free().
 */
int ps_pubkey_format_minisign(const ps_pubkey *key, char **out,
    ps_error *err);
/* The bare base64 line (no newline); caller frees with free().  The
 * format functions fail only with out_of_memory (and io_error when
 * OpenSSL cannot write the PEM); an ECDSA key has only the PEM form (the
 * others refuse it: key_unsupported_algorithm). */
int ps_pubkey_format_base64(const ps_pubkey *key, char **out, ps_error *err);
/* "ssh-ed25519 AAAA...[ comment]" with a newline; `comment` may be NULL;
 * caller frees with free(). */
int ps_pubkey_format_ssh(const ps_pubkey *key, const char *comment,
    char **out, ps_error *err);
/* PEM SubjectPublicKeyInfo; caller frees with free(). */
int ps_pubkey_format_pem(const ps_pubkey *key, char **out, ps_error *err);
/* Sets (or with NULL clears) the identity, copied; refuses an invalid one
 * (identity_invalid, exit 2). */
int ps_pubkey_set_identity(ps_pubkey *key, const char *identity,
    ps_error *err);

/* 16 uppercase hex digits, as minisign prints the key id. */
void ps_key_id_hex(const unsigned char id[PS_KEY_ID_LEN],
    char hex[PS_KEY_ID_HEX_LEN + 1]);
/*
 * "SHA256:" + unpadded base64 of SHA-256 over, for Ed25519, the OpenSSH
 * wire encoding (string "ssh-ed25519", string key): what `ssh-keygen -l`
 * prints; for ECDSA P-256, the DER SubjectPublicKeyInfo (named curve,
 * uncompressed point): what `openssl pkey -pubin -outform DER | sha256`
 * gives for a key written uncompressed.
 */
/* Returns 0, or -1 (out left empty) when hashing fails: no error object,
 * the failure is an internal one. */
int ps_pubkey_fingerprint(const ps_pubkey *key,
    char out[PS_FINGERPRINT_MAX]);
/* 1 for 1..PS_IDENTITY_MAX bytes of [A-Za-z0-9._@+:/-], else 0. */
int ps_identity_valid(const char *identity);
/* "minisign", "ssh" or "pem" (static strings). */
const char *ps_key_source_name(ps_key_source source);
/* "ed25519" or "ecdsa-p256" (static strings). */
const char *ps_key_algorithm_name(ps_key_algorithm alg);

/* A fresh key pair with a random key id, in guarded memory; freed with
 * ps_seckey_free(); code out_of_memory. */
int ps_seckey_generate(ps_seckey **out, ps_error *err);
/* Wipes and frees; NULL is a no-op. */
void ps_seckey_free(ps_seckey *key);
/* The public half (identity NULL); caller frees with ps_pubkey_free(). */
int ps_seckey_public(const ps_seckey *key, ps_pubkey **out, ps_error *err);
/* The PS_KEY_ID_LEN bytes of the key id, owned by `key`. */
const unsigned char *ps_seckey_key_id(const ps_seckey *key);

/*
 * Reads the header of a minisign secret key file's text.  Codes:
 * key_malformed, key_bad_base64, key_unsupported_algorithm,
 * key_unsupported_kdf, key_kdf_limits (all exit 2).  `info` is the
 * caller's.
 */
int ps_seckey_inspect(const unsigned char *text, size_t len,
    const char *name, ps_seckey_info *info, ps_error *err);
/*
 * Parses (and decrypts) a minisign secret key file's text.  `passphrase`
 * is needed only when the key is encrypted.  Codes as above plus
 * passphrase_required, wrong_passphrase (checksum mismatch after
 * decryption, exit 2), key_corrupt.  *out is freed with ps_seckey_free().
 */
int ps_seckey_parse(const unsigned char *text, size_t len, const char *name,
    const ps_secret *passphrase, ps_seckey **out, ps_error *err);
/*
 * The secret key file text; encrypted with `passphrase` at `level`, or
 * minisign's unencrypted variant when `passphrase` is NULL.  *out is a
 * secret: free it with ps_secret_free().  Codes: out_of_memory (scrypt's
 * memory included), passphrase_invalid (exit 2).
 */
int ps_seckey_format(const ps_seckey *key, const ps_secret *passphrase,
    ps_kdf_level level, ps_secret **out, ps_error *err);

/*
 * A PEM private key (PKCS#8, encrypted or not) as a secret key.  Its key
 * id is derived from the public key (keys.md).  Codes: key_malformed,
 * key_unsupported_algorithm, passphrase_required, wrong_passphrase.
 * *out is freed with ps_seckey_free().
 */
int ps_seckey_parse_pem(const unsigned char *text, size_t len,
    const char *name, const ps_secret *passphrase, ps_seckey **out,
    ps_error *err);
/* PKCS#8 PEM, AES-256-CBC/PBKDF2 with `passphrase`, plain when NULL;
 * *out is freed with ps_secret_free().  Codes: passphrase_invalid,
 * out_of_memory, io_error (OpenSSL could not write it; exit 2). */
int ps_seckey_format_pem(const ps_seckey *key, const ps_secret *passphrase,
    ps_secret **out, ps_error *err);
/* 1 when `text` holds a PEM private key block, else 0. */
int ps_pem_is_private(const unsigned char *text, size_t len);
/* 1 when that block is an encrypted PKCS#8 one, else 0. */
int ps_pem_is_encrypted(const unsigned char *text, size_t len);

/* 1 when `text` is a minisign secret key file or a PEM private key. */
int ps_key_text_is_secret(const unsigned char *text, size_t len);

/* Ed25519 over `msg` ("Ed" mode) into the caller's `sig`.  The signing
 * functions fail only with sign_failed (exit 2). */
int ps_key_sign(const ps_seckey *key, const void *msg, size_t len,
    unsigned char sig[PS_ED25519_SIG_LEN], ps_error *err);
/* Ed25519 over BLAKE2b-512(msg) (minisign's prehashed "ED" mode). */
int ps_key_sign_prehashed(const ps_seckey *key, const void *msg,
    size_t len, unsigned char sig[PS_ED25519_SIG_LEN], ps_error *err);
/* Ed25519 over a BLAKE2b-512 digest computed by the caller. */
int ps_key_sign_digest(const ps_seckey *key,
    const unsigned char digest[PS_BLAKE2B512_LEN],
    unsigned char sig[PS_ED25519_SIG_LEN], ps_error *err);
/* 0 when valid, -1 otherwise (never fills an error: callers decide).
 * Ed25519 only: an ECDSA key never verifies here (minisign signatures). */
int ps_key_verify(const ps_pubkey *key, const void *msg, size_t len,
    const unsigned char sig[PS_ED25519_SIG_LEN]);
/*
 * A signature over `msg` by `key`, whatever its algorithm: Ed25519, 64
 * bytes; ECDSA P-256 over SHA-256(msg), the signature ASN.1 DER
 * (SEQUENCE of two INTEGERs, minimal encoding, nothing after it; high and
 * low S both accepted: docs/formats/keys.md).  0 when valid, -1 otherwise
 * (no error object, as ps_key_verify()).
 */
int ps_key_verify_signature(const ps_pubkey *key, const void *msg,
    size_t len, const unsigned char *sig, size_t sig_len);
/* The same for the prehashed mode and for a caller's BLAKE2b-512 digest. */
int ps_key_verify_prehashed(const ps_pubkey *key, const void *msg,
    size_t len, const unsigned char sig[PS_ED25519_SIG_LEN]);
int ps_key_verify_digest(const ps_pubkey *key,
    const unsigned char digest[PS_BLAKE2B512_LEN],
    const unsigned char sig[PS_ED25519_SIG_LEN]);

/* ------------------------------------------------------------------ trust */

/* Thread safety: a loaded policy is read-only to every function taking
 * `const ps_trust *`, which may share it across threads. */

/*
 * The trust policy (docs/formats/trust-policy.md): which identity owns
 * which keys, for which pack ids, during which window, which keys are
 * revoked, and how many distinct identities must sign.
 */

#define PS_TIME_NONE_BEFORE INT64_MIN
#define PS_TIME_NONE_AFTER INT64_MAX
#define PS_TIME_TEXT_LEN 21           /* "YYYY-MM-DDTHH:MM:SSZ" + NUL */

typedef struct ps_trust_key {
	ps_pubkey *key;
	int64_t not_before;   /* seconds since the epoch, inclusive */
	int64_t not_after;    /* inclusive; PS_TIME_NONE_* when absent */
	unsigned line, column;
} ps_trust_key;

/*
 * A `keyless:` entry of a signer (trust-policy.md, "Keyless signers"): the
 * Fulcio certificates whose signatures count for the identity.  `issuer`
 * is compared exactly; `subject`, `ref`, `signer_workflow` and
 * `config_workflow` are keyless patterns ('*' is one or more characters
 * other than '/'); the other constraints exactly.  NULL: unconstrained.
 */
typedef struct ps_trust_keyless {
	char *issuer;             /* OIDC issuer (1.3.6.1.4.1.57264.1.8) */
	char *subject;            /* the certificate's SAN */
	char *repository;         /* Source Repository URI (.12) */
	char *repository_id;      /* Source Repository Identifier (.15), digits */
	char *owner_id;           /* Source Repository Owner Identifier (.17) */
	char *ref;                /* Source Repository Ref (.14) */
	char *signer_workflow;    /* Build Signer URI (.9); without '@': its
	                           * part before the '@' */
	char *config_workflow;    /* Build Config URI (.18), the same way */
	char *trigger;            /* Build Trigger (.20) */
	char *runner;             /* Runner Environment (.11) */
	char **trusted_roots;     /* files, resolved against the policy's
	                           * directory; none: the policy's */
	size_t trusted_root_count;
	unsigned line, column;
	/* The entry's window, judged on the certificate's verified signing
	 * times; PS_TIME_NONE_* when absent. */
	int64_t not_before, not_after;
} ps_trust_keyless;

typedef struct ps_trust_signer {
	char *identity;
	ps_trust_key *keys;
	size_t key_count;
	char **packs;         /* whole-string glob patterns */
	size_t pack_count;
	int first_party;      /* may ship AgentPacks with shell: true (a
	                       * ceiling still applies) */
	unsigned line, column;
	/* The signer's `may:`: the most its packs may do (ps_ceiling, defined
	 * with the manifest model it bounds, below).  NULL: no ceiling, and
	 * a pack this identity's signature counts for is never refused for
	 * its permissions (trust-policy.md, "Permission ceilings"). */
	struct ps_ceiling *may;
	/* The signer's `roles:`, PS_ROLE_* bits, never 0: what its keys may
	 * sign (absent in the policy: PS_ROLE_PACK). */
	unsigned roles;
	/* `min_index_version:` (only with PS_ROLE_INDEX): the lowest index
	 * version accepted from this publisher from the first run, the floor
	 * of the rollback check (trust-policy.md, "Roles"). */
	uint64_t min_index_version; /* 0: none */
	/* The signer's `keyless:` entries (a signer has keys, keyless
	 * entries or both); keyless signers sign packs only. */
	ps_trust_keyless *keyless;
	size_t keyless_count;
} ps_trust_signer;

/* Roles (ps_trust_signer.roles): a pack's signature counts only for an
 * identity with PS_ROLE_PACK (ps_trust_lookup), an index's only for one
 * with PS_ROLE_INDEX (ps_trust_lookup_index, for `packsign index`). */
#define PS_ROLE_PACK 0x1u            /* `pack`: may sign packs */
#define PS_ROLE_INDEX 0x2u           /* `index`: may sign pack indexes */

typedef struct ps_trust_revoked {
	ps_pubkey *key;
	char *reason;         /* NULL when absent */
	int64_t since;        /* `since:` the first second the revocation
	                       * applies (a lookup at an earlier time passes
	                       * it); PS_TIME_NONE_BEFORE when absent: always */
} ps_trust_revoked;

/* Consent classes (the policy's `consent:`): the widening an upgrade
 * must be consented to before it is installed (install.md, "Upgrades");
 * `trust check` prints them. */
#define PS_CONSENT_PERMISSIONS 0x1u  /* what the pack may do */
#define PS_CONSENT_TRUST 0x2u        /* who signed it */
#define PS_CONSENT_PROMPTS 0x4u      /* its prompt files */
#define PS_CONSENT_CODE 0x8u         /* the code it runs */
/* Without `consent:`: permissions and trust. */
#define PS_CONSENT_DEFAULT (PS_CONSENT_PERMISSIONS | PS_CONSENT_TRUST)

typedef struct ps_trust {
	char *name;           /* file name, or "-p KEY" for one-key policies */
	ps_trust_signer *signers;
	size_t signer_count;
	ps_trust_revoked *revoked;
	size_t revoked_count;
	unsigned threshold;   /* distinct identities required, >= 1 */
	unsigned consent;     /* PS_CONSENT_* bits */
	int one_key;          /* ps_trust_from_pubkey(): the identity is the
	                       * key file's own claim, vouched for by nobody
	                       * (pins and diffs go by the key alone) */
	/* The top-level `trusted_roots:` (files, resolved against the
	 * policy's directory): the Sigstore roots of keyless entries that
	 * name none; none here either: the compiled-in public-good root. */
	char **trusted_roots;
	size_t trusted_root_count;
} ps_trust;

/*
 * Parses a policy.  Every error names "NAME:LINE:COL" as its subject and
 * fails with exit class 2.  Codes: trust_version, trust_unknown_field,
 * trust_missing_field, trust_type, trust_key, trust_date, trust_identity,
 * trust_pattern, trust_window, trust_duplicate_key,
 * trust_duplicate_identity, trust_threshold, trust_ceiling (a value of a
 * `may:` block), trust_consent, trust_role (`roles:`, or a
 * `min_index_version:` without the index role, or the index role on a
 * keyless signer), trust_keyless (a `keyless:` entry or `trusted_roots:`
 * item that is not well formed), trust_keyless_overlap (two identities'
 * keyless entries that one certificate could match), and the safe YAML
 * loader's codes (yaml_syntax, yaml_alias, ..., here exit 2).  *out is
 * freed with ps_trust_free().
 */
int ps_trust_load(const char *data, size_t len, const char *name,
    ps_trust **out, ps_error *err);
/* The same for the file at `path`; also not_found, io_error. */
int ps_trust_load_file(const char *path, ps_trust **out, ps_error *err);
/*
 * "Trust exactly this key" (-p NAME.pub): one signer whose identity is the
 * key's identity or else its key id, every pack ("*"), no window, no
 * ceiling, threshold 1, not first-party, PS_CONSENT_DEFAULT, roles
 * PS_ROLE_PACK | PS_ROLE_INDEX (the key is trusted for whatever the user
 * points it at) and no min_index_version.  The key is
 * copied; *out is freed with ps_trust_free(); code out_of_memory.
 */
int ps_trust_from_pubkey(const ps_pubkey *key, const char *name,
    ps_trust **out, ps_error *err);
/* Frees the policy and everything in it; NULL is a no-op. */
void ps_trust_free(ps_trust *policy);

/*
 * Which trusted identity owns `key` for `pack_id` at `now` (seconds since
 * the epoch; no signing time is trusted).  On success `*signer` points
 * into `policy`.  Refusals (exit class 1), checked in this order:
 * key_revoked, key_untrusted, key_not_yet_valid, key_expired,
 * role_missing (the owning identity lacks PS_ROLE_PACK),
 * pack_out_of_scope.
 */
int ps_trust_lookup(const ps_trust *policy, const ps_pubkey *key,
    const char *pack_id, int64_t now, const ps_trust_signer **signer,
    ps_error *err);
/*
 * The same for a pack index: which trusted identity owns `key` for
 * signing an index at `now`.  Refusals (exit class 1), in this order:
 * key_revoked, key_untrusted, key_not_yet_valid, key_expired,
 * role_missing (the owning identity lacks PS_ROLE_INDEX); no pack scope.
 * The caller applies (*signer)->min_index_version.
 */
int ps_trust_lookup_index(const ps_trust *policy, const ps_pubkey *key,
    int64_t now, const ps_trust_signer **signer, ps_error *err);
/*
 * What a valid policy may still get wrong, as warnings appended to `out`
 * (file the policy's name, line and column the entry's): code
 * keyless_repository_id for a GitHub keyless entry without repository_id
 * (trust-policy.md, "`trust check` and keyless entries").  -1 only when
 * memory runs out (out_of_memory).
 */
int ps_trust_warnings(const ps_trust *policy, ps_diags *out, ps_error *err);
/* The signer named `identity`; NULL when absent. */
const ps_trust_signer *ps_trust_find_signer(const ps_trust *policy,
    const char *identity);

/* Whole-string glob: `*` any run of bytes (including '/'), `?` one byte;
 * 1 when `text` matches, else 0. */
int ps_glob_match(const char *pattern, const char *text);

/*
 * A character that reorders or hides what a reader of a terminal sees
 * ("Trojan Source"), at the start of the UTF-8 text `s`: U+061C,
 * U+200B-U+200F, U+2028, U+2029, U+202A-U+202E, U+2066-U+2069, U+FEFF.
 * Returns its length in bytes (2 or 3) and sets *code_point (may be
 * NULL), or 0 for anything else.  Messages (manifests.md) and the CLI's
 * output replace or escape these.
 */
size_t ps_text_hidden(const char *s, unsigned *code_point);
/*
 * The length in bytes (1 to 4) of the one well-formed UTF-8 character at
 * the start of `s` (shortest form, no surrogate, at most U+10FFFF), or 0
 * when `s` starts with a byte that begins none, or is empty.  The CLI
 * escapes such bytes as \xNN, as it escapes control characters.
 */
size_t ps_text_char_length(const char *s);
/*
 * RFC 3339 UTC "YYYY-MM-DDTHH:MM:SSZ" (also a lowercase t/z; numeric
 * offsets are refused) to seconds since the epoch; 0 / -1.
 */
int ps_time_parse(const char *text, int64_t *out);
/* The same form back; 0 / -1 (out of the years 0000..9999). */
int ps_time_format(int64_t t, char out[PS_TIME_TEXT_LEN]);

/* ------------------------------------------------------ pack file access */

/* Thread safety: one ps_pack_files per thread at a time. */

/*
 * How manifest validation reads a pack beyond its manifest, whatever
 * carries it (a directory here; an archive in sign/).  Paths are relative,
 * '/'-separated, without '.', '..' or empty components; callers check them
 * first and implementations refuse them again.  Implementations never
 * follow symbolic links and never read more than they are asked for.
 *
 * Return values: 0 success; -1 with `err` filled.  A refusal
 * (PS_STATUS_REFUSED) means the pack itself is at fault: code
 * `pack_path_missing` (absent, or a component is not a directory),
 * `pack_path_special` (a symbolic link, device, FIFO or socket on the way),
 * `pack_not_file` (read or head of a directory), `pack_file_too_large`
 * (read beyond `max`), `pack_path_invalid`.  A failure
 * (PS_STATUS_FAILED) means the job could not be done (I/O error, memory,
 * `file_changed` when a directory's file is not the one its walk saw).
 */
typedef struct ps_pack_files {
	void *ctx;
	/* Type and size of PATH (size 0 for directories). */
	int (*stat)(void *ctx, const char *path, ps_entry_type *type,
	    uint64_t *size, ps_error *err);
	/* Whole content of the regular file PATH, at most `max` bytes; the
	 * caller frees *data, which is NUL-terminated after *len bytes. */
	int (*read)(void *ctx, const char *path, size_t max, char **data,
	    size_t *len, ps_error *err);
	/* Calls fn for every file and directory of the pack, depth first,
	 * names in bytewise order within a directory.  A special entry
	 * (symbolic link, device, ...) stops the walk with pack_path_special.
	 * fn returns 0 to go on, -1 to stop (then list returns -1 and leaves
	 * `err` as fn filled it).  `path` lasts until fn returns. */
	int (*list)(void *ctx, int (*fn)(void *arg, const char *path,
	    ps_entry_type type, uint64_t size, ps_error *err), void *arg,
	    ps_error *err);
	/* Up to n first bytes of the regular file PATH; *got may be < n. */
	int (*head)(void *ctx, const char *path, unsigned char *buf, size_t n,
	    size_t *got, ps_error *err);
	/* Releases ctx. */
	void (*close)(void *ctx);
} ps_pack_files;

/* The deepest path (components) and the most entries a pack directory
 * holds: the walk refuses more (path_too_deep, too_many_entries). */
#define PS_PACK_MAX_DEPTH 64
#define PS_PACK_MAX_ENTRIES 1000000

/*
 * Opens the pack directory `dir` for reading through `files`: the
 * directory is walked once, as packing walks it (.packsignignore applies,
 * VCS metadata is left out, the name rules and collision checks of
 * canonical-tar.md hold), and every call answers from that walk; a path
 * it did not list is pack_path_missing.  A symbolic link, device, FIFO or
 * socket the walk met is pack_path_special where it is looked up or
 * listed.  Files are opened again relative to their directory with
 * O_NOFOLLOW and must be the file the walk saw.  Fails (PS_STATUS_FAILED)
 * with `pack_not_directory` when `dir` is not a directory, `not_found` or
 * `io_error`; refuses (PS_STATUS_REFUSED) with the walk's codes (name_*,
 * case_collision, path_too_deep, too_many_entries, ignore_syntax, ...).
 */
int ps_pack_files_dir_open(const char *dir, ps_pack_files *files,
    ps_error *err);

/*
 * Opens an archive (.tar, .tar.gz, .tgz, .tar.zst, .zip) for reading
 * through `files`.  The archive is read once and every entry checked as
 * by ps_digest_path(); files of up to 4 MiB are kept in memory (24 MiB
 * of files named .yaml, .yml or .json, 8 MiB of others), the first 16
 * bytes of every file for `head`.  `digest_out` (may
 * be NULL) receives the archive's digests.  Reading a file that was not
 * kept fails with `archive_file_not_kept`.
 */
int ps_pack_files_archive_open(const char *path, ps_pack_files *files,
    ps_digest **digest_out, ps_error *err);
/* The same under `limits` (NULL: the defaults), whose `copies` says
 * where a zip's private copy goes. */
int ps_pack_files_archive_open_limited(const char *path,
    const ps_extract_limits *limits, ps_pack_files *files,
    ps_digest **digest_out, ps_error *err);

/* Calls files->close and zeroes `files`; a zeroed ps_pack_files is a
 * no-op. */
void ps_pack_files_close(ps_pack_files *files);

/* -------------------------------------------------------------- manifests */

/* Thread safety: may be called from several threads at once on
 * different packs (the YAML and JSON readers switch locale per thread with
 * uselocale()). */

/* Returns the manifest file name of a format ("soyapack.yaml", ...), or
 * NULL for PS_FORMAT_UNKNOWN. */
const char *ps_format_manifest_name(ps_format format);

/* Parses "soyapack", "holon", "autograph" or "agentpack"; 0 / -1. */
int ps_format_parse(const char *name, ps_format *out);

/*
 * Detects the format by the manifest file at the pack root.  No manifest:
 * diagnostic `manifest_missing`; two or more: `manifest_conflict` naming
 * all of them.  Returns 0 with *format set (PS_FORMAT_UNKNOWN when a
 * diagnostic was added), or -1 when the job could not be done.
 * `prefix` is prepended to file names in diagnostics (may be NULL).
 */
int ps_format_detect(const ps_pack_files *files, const char *prefix,
    ps_format *format, ps_diags *diags, ps_error *err);

typedef struct ps_validate_options {
	ps_format format;        /* PS_FORMAT_UNKNOWN: detect */
	int strict;              /* lint findings become errors */
	const char *engine_version; /* autograph: SemVer to check the
	                             * contract.engine_version range against */
	const char *prefix;      /* prepended to file names in diagnostics,
	                          * e.g. "examples/packs/x/"; NULL for none */
	int already_signed;      /* the pack is verified, not being signed:
	                          * rules added after a pack could have been
	                          * signed are warnings (today AgentPack's
	                          * agentpack_config_path, autograph's
	                          * autograph_compose_invalid,
	                          * autograph_compose_limit,
	                          * autograph_taskfile_invalid,
	                          * autograph_taskfile_limit, and the
	                          * problems of an undeclared
	                          * infra/compose.yaml) */
} ps_validate_options;

/* Defaults: detect, not strict, no engine version, no prefix, not
 * already signed (every rule as strict as for signing). */
void ps_validate_options_init(ps_validate_options *options);

typedef struct ps_strings {
	char **items;
	size_t count;
} ps_strings;

/* A file whose text steers a model: digest, sign and verify hash it. */
typedef struct ps_prompt_file {
	char *path;              /* canonical relative path */
	unsigned line, column;   /* where the manifest declares it; 0 when
	                          * found by convention without declaration */
} ps_prompt_file;

/* One allowed network destination (SoyaPack egress; holon data.egress
 * has only hosts: port 0, protocol NULL). */
typedef struct ps_egress {
	char *host;
	unsigned port;
	char *protocol;
} ps_egress;

/* AgentPack permissions after "missing means deny". */
typedef struct ps_permissions {
	int declared;            /* 1 when a permissions mapping was read */
	int network, shell, read_knowledge, read_filesystem;
	char *file_write;        /* "none", "workspace" or "knowledge" */
} ps_permissions;

/*
 * What an autograph pack's compose files and Taskfile let it do
 * (docs/formats/manifests.md, "autograph").  The bounds of that reading:
 * a pack beyond one is the diagnostic autograph_compose_limit or
 * autograph_taskfile_limit, never a silent cut.
 */
/* Compose files read (the manifest's list, a file listed twice once). */
#define PS_COMPOSE_MAX_FILES 64
/* Services, all compose files together. */
#define PS_COMPOSE_MAX_SERVICES 256
/* Entries of one list of a service: ports, volumes (named and host
 * mounts together), cap_add, devices, security_opt. */
#define PS_COMPOSE_MAX_ENTRIES 128
/* Bytes of one value read (an image, a port, a path, a capability). */
#define PS_COMPOSE_MAX_VALUE 4096
/* Tasks of the Taskfile. */
#define PS_TASKFILE_MAX_TASKS 512
/* Commands and calls of one task. */
#define PS_TASKFILE_MAX_COMMANDS 128
/* Bytes of one command. */
#define PS_TASKFILE_MAX_COMMAND 8192

/* A port a compose service publishes on the host. */
typedef struct ps_port {
	char *text;              /* as written ("8080:80", "127.0.0.1:53:53/udp",
	                          * "3000"); the long syntax written the short
	                          * way */
	char *host_ip;           /* NULL: every interface */
	unsigned published;      /* first host port; 0 when none is written
	                          * (Compose picks a free one) or the value is
	                          * interpolated (see text) */
	unsigned published_last; /* last host port of a range; = published */
	unsigned target;         /* first container port; 0 when interpolated */
	char *protocol;          /* as written; NULL: tcp */
} ps_port;

/* A volume or a host path mounted into a compose service. */
typedef struct ps_mount {
	char *source;            /* the host path or the volume's name, as
	                          * written */
	char *target;            /* the path in the container */
	int read_only;           /* 1: ro */
} ps_mount;

/* One service of one compose file.  A value that depends on the
 * environment (${VAR}) counts as granting what it could grant. */
typedef struct ps_service {
	char *name;
	char *file;              /* the compose file, relative to the pack */
	unsigned line, column;   /* the service's key in that file */
	char *image;             /* NULL: none (a service built locally) */
	ps_port *ports;
	size_t port_count;
	ps_mount *volumes;       /* named volumes */
	size_t volume_count;
	ps_mount *host_mounts;   /* bind mounts (and named pipes, and named
	                          * volumes whose driver binds a host path) */
	size_t host_mount_count;
	int privileged;          /* privileged: true */
	char *network_mode;      /* as written; NULL when not set */
	char *pid;
	char *ipc;
	int host_network;        /* network_mode: host */
	int host_pid;            /* pid: host */
	int host_ipc;            /* ipc: host */
	ps_strings cap_add;      /* as written */
	ps_strings devices;      /* as written; the long syntax as
	                          * source[:target[:permissions]] */
	ps_strings security_opt;
	char *user;              /* NULL when not set */
} ps_service;

typedef enum ps_task_cmd_kind {
	PS_TASK_CMD_SHELL = 0,   /* a shell command: cmds, cmd, defer */
	PS_TASK_CMD_CALL = 1,    /* another task: `task:` in cmds or defer,
	                          * deps */
	PS_TASK_CMD_CHECK = 2    /* a shell command deciding whether to run:
	                          * status, preconditions */
} ps_task_cmd_kind;

typedef struct ps_task_cmd {
	ps_task_cmd_kind kind;
	char *text;              /* the command as written, or the task called */
	unsigned line, column;   /* in the Taskfile */
} ps_task_cmd;

/* One task of an autograph pack's Taskfile. */
typedef struct ps_task {
	char *name;
	unsigned line, column;   /* the task's key in the Taskfile */
	ps_task_cmd *cmds;       /* deps, preconditions, status, then cmds,
	                          * each list as written */
	size_t cmd_count;
} ps_task;

/*
 * The common model of the four formats.  Fields a format does not declare
 * are NULL / 0.  Strings are owned by the manifest.
 */
typedef struct ps_manifest {
	ps_format format;
	char *manifest_path;     /* relative to the pack root */
	char *id;                /* soyapack owner/name, holon id, autograph
	                          * name, agentpack id */
	char *file_id;           /* id with '/' replaced by '-' */
	char *version;
	char *name;              /* display name */
	char *description;       /* soyapack/autograph/agentpack description,
	                          * holon summary */
	char *license;
	char *kind;              /* soyapack kind, holon capabilities' first
	                          * class; NULL otherwise */
	char *domain;            /* agentpack domain; NULL otherwise */
	ps_strings signed_by;
	char *source_repository; /* holon source.repository */
	char *source_commit;     /* holon source.ref */
	ps_prompt_file *prompts; /* sorted bytewise by path, no duplicates */
	size_t prompt_count;
	/* what the pack may do */
	ps_egress *egress;       /* soyapack capabilities.egress, holon
	                          * data.egress */
	size_t egress_count;
	ps_strings fs_read, fs_write;      /* soyapack */
	ps_strings tools;                  /* soyapack tools, "name: kind" */
	char *determinism_tier;            /* soyapack */
	ps_strings capabilities;           /* holon capabilities[].class */
	ps_permissions permissions;        /* agentpack */
	char *retention;                   /* holon data.retention */
	int training_use;                  /* holon: 1, 0; -1 undeclared */
	char *endpoint;                    /* holon runtime.endpoint */
	char *tool;                        /* holon runtime.tool */
	long long timeout_s;               /* holon runtime.limits.timeout_s */
	char *price_worst_case;            /* holon: most one call can cost,
	                                    * e.g. "0.02 USD" */
	char *pricing_model;               /* holon pricing.model */
	char *charge_on;                   /* holon pricing.charge_on */
	char *engine_range;                /* autograph contract.engine_version */
	ps_strings services;               /* autograph: the names of
	                                    * compose_services, in order */
	ps_strings tasks;                  /* autograph: the names of
	                                    * taskfile_tasks, in order */
	double price_worst_amount;         /* holon: the worst case as a
	                                    * number (price_worst_case prints
	                                    * it with 6 digits) */
	char *price_currency;              /* holon pricing.currency */
	ps_service *compose_services;      /* autograph: every service of
	                                    * every compose file, in order */
	size_t compose_service_count;
	ps_task *taskfile_tasks;           /* autograph: the Taskfile's tasks */
	size_t taskfile_task_count;
	ps_strings code_files;             /* what runs, by the manifest:
	                                    * agentpack the entrypoint and
	                                    * every agent config it reaches
	                                    * (agents/, config:); autograph
	                                    * its compose files and Taskfile */
} ps_manifest;

/*
 * A trust policy signer's `may:` (docs/formats/trust-policy.md,
 * "Permission ceilings"): the most the packs it signs may do, one block
 * per format.  A format without a block (`declared` 0) is refused; inside
 * a block, what is not listed is denied: booleans false, lists empty,
 * ordered values their lowest (the parser fills those defaults in).
 * Hosts are lowercase ps_egress patterns, "*", "*.S" or a name, with
 * port 0 and protocol NULL meaning any.
 */
typedef struct ps_ceiling_soyapack {
	int declared;
	ps_egress *egress;                 /* capabilities.egress */
	size_t egress_count;
	ps_strings fs_read, fs_write;      /* absolute paths: covered by
	                                    * component prefix */
	ps_strings determinism_tiers;      /* the tiers allowed, in the
	                                    * spec's order */
} ps_ceiling_soyapack;

typedef struct ps_ceiling_holon {
	int declared;
	ps_strings capabilities;           /* glob patterns of classes */
	ps_egress *data_egress;            /* hosts only (port 0, protocol
	                                    * NULL) */
	size_t data_egress_count;
	char *retention;                   /* the longest: "none" or an ISO
	                                    * 8601 duration */
	int training_use;
	ps_egress *endpoint;               /* runtime.endpoint's host and port
	                                    * (protocol https) */
	size_t endpoint_count;
	long long timeout_s;               /* the longest; 0: none allowed */
	double price_max;                  /* the highest worst case */
	char *price_currency;              /* its currency; NULL: free packs
	                                    * only (price_max 0) */
} ps_ceiling_holon;

typedef struct ps_ceiling_autograph {
	int declared;
	ps_strings services, tasks;        /* glob patterns of names */
} ps_ceiling_autograph;

typedef struct ps_ceiling {
	ps_permissions agentpack;          /* `declared`: the block exists;
	                                    * file_write the highest allowed */
	ps_ceiling_soyapack soyapack;
	ps_ceiling_holon holon;
	ps_ceiling_autograph autograph;
	unsigned line, column;             /* of the `may:` mapping */
} ps_ceiling;

/*
 * Detects the format (or uses options->format), parses the manifest with
 * the safe YAML reader and checks every rule of its format, adding each
 * problem to `diags` (FILE:LINE:COL, stable code, see docs/errors.md).
 * Returns 0 when the pack was examined: *out is the model (NULL when no
 * manifest could be parsed), valid when ps_manifest_valid() says so.
 * Returns -1 when the job could not be done (I/O error, memory, a bad
 * options->engine_version: code `engine_version_invalid`).
 */
int ps_manifest_load(const ps_pack_files *files,
    const ps_validate_options *options, ps_manifest **out, ps_diags *diags,
    ps_error *err);

/* Frees the model and every string and list in it; NULL is a no-op. */
void ps_manifest_free(ps_manifest *manifest);

/* 1 when `diags` holds no error (and, under `strict`, no warning). */
int ps_manifest_valid(const ps_diags *diags, int strict);

typedef enum ps_lang {
	PS_LANG_EN = 0,
	PS_LANG_ZH = 1
} ps_lang;

/*
 * A plain-language summary of what the pack may do, in English or
 * Chinese, as an installer shows it before install: one sentence per
 * line, UTF-8, ending with a newline.  The caller frees *text with
 * free(); code out_of_memory.
 */
int ps_manifest_describe(const ps_manifest *manifest, ps_lang lang,
    char **text, ps_error *err);

/* The part of that summary that says what the pack may do, in English, as
 * one line without a newline (what `list` shows).  Caller frees. */
int ps_manifest_permissions(const ps_manifest *manifest, char **text,
    ps_error *err);

/* ------------------------------------------------------------ inspection */

/* Thread safety: as digests and manifests. */

/* What one read of a pack tells: its digests and its manifest. */
typedef struct ps_inspection {
	ps_digest *digest;
	ps_manifest *manifest;   /* NULL when no manifest could be parsed */
	ps_diags diags;          /* validation problems, sorted */
} ps_inspection;

/*
 * Reads the pack at `path` (a directory or an archive) once: its digests
 * (`pack` gives a directory's canonical tar mtime) and its manifest,
 * validated with `validate`.  Validation problems go to (*out)->diags;
 * the call fails only when the pack cannot be read or is unsafe (the codes
 * of ps_digest_path()).  *out is freed with ps_inspection_free().
 */
int ps_inspect(const char *path, const ps_pack_options *pack,
    const ps_validate_options *validate, ps_inspection **out, ps_error *err);
/* Frees the digest, the manifest and the diagnostics; NULL is a no-op. */
void ps_inspection_free(ps_inspection *inspection);

/* ----------------------------------------------------------- verification */

/* Thread safety: may be called from several threads at once on
 * different results; options and the policy are only read.  A rebuild
 * (rebuild_from) uses libgit2, initialised per call (reference-counted,
 * thread-safe). */

/*
 * Verifying a signed pack (docs/formats/signature.md, section 3): the
 * envelope against a trust policy, then the statement, the archive's bytes,
 * its entries, its manifest, signed_by, the counted signers' permission
 * ceilings and provenance, in that order, stopping at the first refusal.
 * Codes (exit class 1 unless noted):
 * signature_untrusted, signature_invalid, key_revoked, key_untrusted,
 * key_not_yet_valid, key_expired, role_missing, pack_out_of_scope,
 * threshold_not_met, for keyless bundles (signature.md 9.3)
 * bundle_keyless, keyless_untrusted, keyless_ambiguous,
 * keyless_reusable_workflow and the Sigstore codes,
 * the DSSE and statement codes, subject_missing, subject_mismatch,
 * manifest_mismatch, manifest_digest_mismatch, prompt_digest_mismatch,
 * prompt_unsigned, tar_digest_mismatch, tree_digest_mismatch,
 * not_canonical, manifest_invalid, pack_mismatch, signed_by_mismatch,
 * signer_missing, permission_exceeds_policy, source_missing,
 * commit_invalid, source_commit_mismatch,
 * source_ref_mismatch, source_repo_mismatch, source_url_invalid,
 * source_certificate_mismatch (the certificate's provenance),
 * source_dirty, rebuild_mismatch, the archive reader's codes; and exit
 * class 2: source_commit_invalid and source_repo_invalid (bad option
 * values), not_found, io_error, and the git rebuild's failures.
 */

/* A Sigstore trusted root (section "sigstore" below). */
typedef struct ps_sigstore_root ps_sigstore_root;

typedef struct ps_verify_options {
	const ps_trust *trust;      /* required: whose signatures count */
	const char *sig_path;       /* NULL: PATH + ".sig" */
	const char *signed_by;      /* identity that must be among the signers */
	const char *source_repo;    /* URL, compared after normalisation */
	const char *source_commit;  /* full commit id (40 or 64 hex digits) */
	int require_source;         /* a statement without source is refused */
	int allow_dirty;            /* accept "dirty": true */
	const char *rebuild_from;   /* git directory to rebuild the tar from */
	int deep;                   /* recorded; the tree digest is always
	                             * compared (signature.md, section 3) */
	int64_t at;                 /* seconds since the epoch: key windows */
	ps_progress_sink progress;  /* reading the archive; fn NULL: none */
	ps_extract_limits limits;   /* reading the archive */
	/* Sigstore bundles (signature.md, "Sigstore bundles") to read instead
	 * of the .sig: their signatures, over one byte-identical payload, are
	 * combined into one envelope and verified as a .sig would be, a
	 * keyless bundle's by its certificate against the policy's keyless
	 * entries (signature.md 9.3); 0: none.
	 * At most 64; sig_path must then be NULL.  Only ps_verify() reads
	 * them: install, fetch and diff refuse a nonzero count
	 * (invalid_argument). */
	const char *const *bundle_paths;
	size_t bundle_count;
	/* The trusted root that a bundle's transparency-log entries and RFC
	 * 3161 timestamps are verified against (signature.md, section 9.2);
	 * NULL: the compiled-in public-good root, loaded when a bundle carries
	 * any.  Read only. */
	const ps_sigstore_root *sigstore_root;
} ps_verify_options;

/* Defaults: everything NULL / 0, `at` the current time, the default
 * limits. */
void ps_verify_options_init(ps_verify_options *options);

/*
 * What the certificate of a keyless signature certifies (Fulcio's
 * extensions, sigstore.md section 7.3), once its chain, evidence and
 * signature verified and it matched a keyless entry of the policy
 * (signature.md, "Keyless signatures").  Strings NULL when the
 * certificate lacks them.
 */
typedef struct ps_verify_keyless {
	char signer_id[PS_FINGERPRINT_MAX];  /* ps_keyless_signer_id() */
	char *issuer;                        /* OIDC issuer */
	char *subject;                       /* the SAN */
	char *repository;                    /* Source Repository URI */
	char *repository_id;                 /* Source Repository Identifier */
	char *owner_id;                      /* its owner's identifier */
	char *ref;                           /* Source Repository Ref */
	char *commit;                        /* Source Repository Digest */
	char *signer_workflow;               /* Build Signer URI */
	char *config_workflow;               /* Build Config URI */
	char *trigger;                       /* Build Trigger */
	char *runner;                        /* Runner Environment */
	char *run_uri;                       /* Run Invocation URI */
	char *authority;                     /* the CA of the trusted root */
	char *trusted_root;                  /* the root file it verified
	                                      * under; NULL: the compiled-in
	                                      * public-good root */
	int reusable_workflow;               /* ps_keyless_reusable_workflow */
	int64_t signing_time;                /* the earliest verified one */
	unsigned entry_line;                 /* the policy entry it matched */
} ps_verify_keyless;

/* One signature entry of the envelope and what became of it. */
typedef struct ps_verify_signature {
	size_t index;                        /* position in the envelope */
	char *keyid;                         /* as written: a hint, unverified */
	char fingerprint[PS_FINGERPRINT_MAX];/* of the policy key that verified
	                                      * it; "" when none did */
	char *identity;                      /* owner in the policy, or NULL */
	int counted;                         /* 1: counts toward the threshold */
	char code[PS_ERROR_CODE_MAX];        /* why not; "" when counted */
	char *reason;                        /* the same in words, or NULL */
	/* From a Sigstore bundle: its transparency-log entries and RFC 3161
	 * timestamps, every one verified (else the signature does not count),
	 * and the signing times they prove, in seconds since the epoch
	 * (signature.md, section 9.2); 0 and NULL otherwise. */
	size_t log_entry_count;
	size_t timestamp_count;
	int64_t *signing_times;
	size_t signing_time_count;
	/* A keyless signature's certificate (its signer id is also in
	 * `fingerprint`, its identity in `identity`); NULL for a key's. */
	ps_verify_keyless *keyless;
} ps_verify_signature;

/* A distinct trusted identity whose signature counted. */
typedef struct ps_verify_identity {
	char *identity;
	char fingerprint[PS_FINGERPRINT_MAX];/* the first of its keys that
	                                      * counted */
} ps_verify_identity;

/*
 * What verification learned.  ps_verify() fills it as far as it got, on
 * failure too, so a report can say which checks passed.
 */
/* How verify read the bytes it parsed (docs/security.md, section 5). */
typedef enum ps_archive_read {
	PS_ARCHIVE_READ_NONE = 0,            /* not read (a directory, or
	                                      * refused before) */
	PS_ARCHIVE_READ_LEASE = 1,           /* read twice through one
	                                      * descriptor under a read lease,
	                                      * hashed once, no copy */
	PS_ARCHIVE_READ_MEMORY = 2,          /* from a private copy in memory */
	PS_ARCHIVE_READ_FILE = 3,            /* from a private copy in an
	                                      * unlinked file */
	PS_ARCHIVE_READ_AGAIN = 4,           /* no lease, no room for a copy:
	                                      * read and hashed again */
	PS_ARCHIVE_READ_PRIVATE = 5,         /* the caller's own private copy
	                                      * (install's, a download) */
	PS_ARCHIVE_READ_CHUNKS = 6           /* read once, no copy, each 1 MiB
	                                      * chunk authenticated by the v2
	                                      * statement's digest before it
	                                      * was parsed */
} ps_archive_read;

typedef struct ps_verify_result {
	char *path;                          /* as given */
	char *sig_path;
	int directory;                       /* PATH was an unpacked directory:
	                                      * the subject cannot be checked */
	ps_format format;
	char *id, *version, *name;           /* from the statement; name NULL
	                                      * when not recorded */
	unsigned threshold;
	ps_verify_identity *identities;
	size_t identity_count;
	ps_verify_signature *signatures;
	size_t signature_count;
	int has_source;
	char *source_repository;             /* NULL when not recorded */
	char *source_commit, *source_path;
	int source_dirty;
	char *source_manifest_ref;           /* holon manifestRef, or NULL */
	size_t prompt_count;                 /* prompt files verified */
	int has_archive_digest, has_tar_digest, has_tree_digest;
	unsigned char archive_digest[PS_SHA256_LEN];
	unsigned char tar_digest[PS_SHA256_LEN];
	unsigned char tree_digest[PS_SHA256_LEN];
	int subject_checked;                 /* archive bytes = subject */
	int tree_checked;                    /* tree digest compared */
	int canonical_checked;               /* canonical rules enforced */
	int deep;                            /* --deep was asked for */
	int source_checked;                  /* provenance step ran */
	int rebuild_checked;                 /* the tar was rebuilt from git */
	int ceilings_checked;                /* every counted identity had a
	                                      * `may:` and one covered the
	                                      * pack's permissions */
	ps_diags warnings;                   /* warnings of rules a pack
	                                      * signed before them may break
	                                      * (those of
	                                      * ps_validate_options.
	                                      * already_signed, which the
	                                      * manifest is validated with),
	                                      * sorted;
	                                      * file names relative to the
	                                      * pack root; freed with the
	                                      * result */
	/* Provenance from a keyless signature's certificate (signature.md
	 * 6.5): 1 when the statement's source was compared with the Source
	 * Repository URI and Digest the CI certified and equals them; 1 when
	 * the statement recorded none and the certificate's is the source
	 * above (has_source, source_repository, source_commit). */
	int source_certificate_checked;
	int source_certified;

	ps_archive_read archive_read;        /* how the archive was read */
	char *lease_declined;                /* why it was read without a
	                                      * read lease (the file system,
	                                      * a writer, not its owner, a
	                                      * zip...); NULL with a lease or
	                                      * when none was tried */
} ps_verify_result;

/*
 * Verifies the archive (.tar, .tar.gz, .tgz, .tar.zst, .zip) or unpacked
 * pack directory at `path` against its signature, in the order of
 * docs/formats/signature.md, section 3: an archive is opened once, all of
 * its bytes hashed and matched with the signed subject (subject_mismatch)
 * before any is parsed, then parsed under options->limits: through the
 * same descriptor under a read lease where one is granted (a tar on a
 * local file system the caller owns; a break is subject_changed), else
 * from a private copy made while hashing, else read and hashed again
 * (subject_changed when the bytes changed).  A lease break signals no one:
 * the descriptor's signal is set to SIGURG or SIGWINCH while its
 * disposition is the default (ignore), and its owner is cleared once the
 * lease is taken, so the host's SIGIO is never raised; a host with
 * handlers for both gets no lease (the copy path).  Returns 0 when every
 * check passed.  `*out` is set whenever
 * memory allowed, success or not; the caller frees it with
 * ps_verify_result_free().
 */
int ps_verify(const char *path, const ps_verify_options *options,
    ps_verify_result **out, ps_error *err);
/* Frees the result and every string and array in it; NULL is a no-op. */
void ps_verify_result_free(ps_verify_result *result);

/* -------------------------------------------------------------- sigstore */

/* Thread safety: a loaded ps_sigstore_root is read-only to every function
 * taking it as const and may be shared by several threads; one result
 * per call. */

/*
 * Sigstore bundles verified offline, without a network and without
 * packs: any file's bundle (media types v0.1 to v0.3) with a keyless
 * certificate from Fulcio or a public key, against a trusted root of
 * certificate authorities, transparency logs (Rekor v1 and v2), CT logs
 * and timestamp authorities.  docs/formats/sigstore.md specifies every
 * check, in order, and its code.
 */

/*
 * A trusted root (dev.sigstore.trustroot.v1.TrustedRoot JSON, media types
 * v0.1 and v0.2, or a JSON Lines file of several, whose entries are then
 * all trusted), read strictly: at most 1 MiB, 16 roots, 64 entries of each
 * kind, 8 certificates a chain.  Every code is exit 2 (the operator chose
 * the root): trusted_root_invalid, trusted_root_unsupported (another media
 * type), trusted_root_validity (an entry without the start of its
 * validity, or one ending before it starts); the file's not_found,
 * not_a_file, io_error.  *out is freed with ps_sigstore_root_free().
 */
int ps_sigstore_root_load(const char *path, ps_sigstore_root **out,
    ps_error *err);
int ps_sigstore_root_parse(const void *bytes, size_t len, const char *name,
    ps_sigstore_root **out, ps_error *err);
/* The public-good instance's root compiled into the library (Sigstore's
 * TUF repository; its source and date below). */
int ps_sigstore_root_public_good(ps_sigstore_root **out, ps_error *err);
void ps_sigstore_root_free(ps_sigstore_root *root);
/* Where the compiled-in root came from, and the date it was last changed
 * there (YYYY-MM-DD); static strings. */
const char *ps_sigstore_public_good_source(void);
const char *ps_sigstore_public_good_date(void);

typedef enum ps_sigstore_kind {
	PS_SIGSTORE_CA = 0,          /* certificate authorities (Fulcio) */
	PS_SIGSTORE_TLOG,            /* transparency logs (Rekor) */
	PS_SIGSTORE_CTLOG,           /* certificate transparency logs */
	PS_SIGSTORE_TSA              /* timestamp authorities */
} ps_sigstore_kind;

/* One entry of a root, for reports; the strings are the root's. */
typedef struct ps_sigstore_root_entry {
	ps_sigstore_kind kind;
	const char *url;             /* base URL or URI; NULL when none */
	const char *key_details;     /* logs: PublicKeyDetails; else NULL */
	int usable;                  /* logs: 0 for a key packsign cannot
	                              * verify with (the log verifies nothing) */
	int64_t valid_from;          /* validFor, seconds since the epoch */
	int has_valid_until;
	int64_t valid_until;
	size_t certificates;         /* authorities: the chain's length */
	const char *organization;    /* authorities: subject; NULL when none */
	const char *common_name;
} ps_sigstore_root_entry;

typedef struct ps_sigstore_root_info {
	const char *name;            /* the file, or the compiled-in root's name */
	int public_good;             /* 1: the compiled-in root */
	size_t documents;            /* trusted roots read (JSON Lines) */
	size_t count[4];             /* entries by ps_sigstore_kind */
} ps_sigstore_root_info;

void ps_sigstore_root_get_info(const ps_sigstore_root *root,
    ps_sigstore_root_info *info);
/* Entry `i` of `kind`: 0, or -1 when there is no such entry. */
int ps_sigstore_root_entry_get(const ps_sigstore_root *root,
    ps_sigstore_kind kind, size_t i, ps_sigstore_root_entry *out);

/* What to verify against. */
typedef struct ps_sigstore_options {
	const ps_sigstore_root *root;   /* required */
	/* A keyless bundle: the certificate's subject alternative name and
	 * OIDC issuer, both compared exactly. */
	const char *identity;
	const char *issuer;
	/* A key-based bundle instead: the PEM SubjectPublicKeyInfo file of
	 * the key (ECDSA P-256/P-384/P-521, Ed25519, RSA); excludes the two
	 * above. */
	const char *key_path;
	int64_t at;                     /* the present, seconds since the
	                                 * epoch: a signing time after it is
	                                 * refused; 0: the current time */
} ps_sigstore_options;

void ps_sigstore_options_init(ps_sigstore_options *options);

/* The artifact: a file, or only its SHA-256 (what `sha256:HEX` names). */
typedef struct ps_sigstore_artifact {
	const char *path;               /* NULL: by digest */
	unsigned char sha256[PS_SHA256_LEN];
} ps_sigstore_artifact;

/* The steps of docs/formats/sigstore.md, as bits of ps_sigstore_result. */
#define PS_SIGSTORE_STEP_SHAPE 0x01
#define PS_SIGSTORE_STEP_LOG 0x02
#define PS_SIGSTORE_STEP_TIMESTAMPS 0x04
#define PS_SIGSTORE_STEP_TIMES 0x08
#define PS_SIGSTORE_STEP_CERTIFICATE 0x10
#define PS_SIGSTORE_STEP_IDENTITY 0x20
#define PS_SIGSTORE_STEP_SIGNATURE 0x40

/* A transparency-log entry that verified. */
typedef struct ps_sigstore_log_entry {
	char *log_url;               /* the trusted root's baseUrl */
	char log_id[129];            /* hex */
	int64_t log_index;
	char kind[32];               /* "hashedrekord", "dsse", "intoto" */
	char version[16];            /* "0.0.1", "0.0.2" */
	int rekor_version;           /* 1 or 2 */
	int set_verified;            /* the inclusion promise verified */
	int has_integrated_time;     /* Rekor v1; from the SET when verified */
	int64_t integrated_time;
	int proof_verified;          /* the inclusion proof and checkpoint */
	int64_t tree_size;
	char root_hash[65];          /* hex */
	char *checkpoint_origin;     /* NULL without a proof */
} ps_sigstore_log_entry;

/* An RFC 3161 timestamp of the bundle, verified or not. */
typedef struct ps_sigstore_timestamp {
	int verified;                /* 0: skipped; code and reason say why */
	int64_t time;                /* genTime: seconds since the epoch */
	int32_t nanoseconds;
	char *authority;             /* the TSA's URI in the trusted root */
	char code[PS_ERROR_CODE_MAX];
	char *reason;
} ps_sigstore_timestamp;

/* An extension of Fulcio's arc (1.3.6.1.4.1.57264.1.N). */
typedef struct ps_sigstore_extension {
	char oid[64];
	char *value;                 /* its text (a UTF-8 string) */
} ps_sigstore_extension;

/*
 * The signing certificate, read once its chain verified.  Each field of
 * Fulcio's OID registry (docs/formats/sigstore.md, section 7.3) by name,
 * NULL when the certificate lacks it; every extension of Fulcio's arc is
 * also in `extensions`, in certificate order.
 */
typedef struct ps_sigstore_certificate {
	char *san;                   /* the subject alternative name */
	char *san_type;              /* "uri", "email" or "othername" */
	char *issuer;                /* OIDC issuer: .8, else the legacy .1 */
	char *github_workflow_trigger;          /* .2 (legacy) */
	char *github_workflow_sha;              /* .3 (legacy) */
	char *github_workflow_name;             /* .4 (legacy) */
	char *github_workflow_repository;       /* .5 (legacy) */
	char *github_workflow_ref;              /* .6 (legacy) */
	char *build_signer_uri;                 /* .9 */
	char *build_signer_digest;              /* .10 */
	char *runner_environment;               /* .11 */
	char *source_repository_uri;            /* .12 */
	char *source_repository_digest;         /* .13 */
	char *source_repository_ref;            /* .14 */
	char *source_repository_identifier;     /* .15 */
	char *source_repository_owner_uri;      /* .16 */
	char *source_repository_owner_identifier; /* .17 */
	char *build_config_uri;                 /* .18 */
	char *build_config_digest;              /* .19 */
	char *build_trigger;                    /* .20 */
	char *run_invocation_uri;               /* .21 */
	char *source_repository_visibility;     /* .22 */
	ps_sigstore_extension *extensions;
	size_t extension_count;
	int64_t not_before, not_after;
	char serial[64];             /* hex */
	char sha256[65];             /* of the DER certificate, hex */
	char *authority;             /* the CA of the trusted root it chains to */
	char *ct_log;                /* the CT log of its verified SCT */
	int64_t sct_time_ms;
} ps_sigstore_certificate;

/* What verification proved, filled as far as it got (on failure too). */
typedef struct ps_sigstore_result {
	unsigned steps;              /* PS_SIGSTORE_STEP_* passed */
	int bundle_version;          /* 1, 2, 3: v0.N */
	int keyless;                 /* 1: certificate, 0: public key */
	int dsse;                    /* 1: DSSE envelope, 0: message signature */
	char *payload_type;          /* DSSE */
	unsigned char *payload;      /* DSSE: the payload, once verified */
	size_t payload_len;
	char artifact_sha256[PS_SHA256_STRING_LEN];
	char key_details[40];        /* the signing key's PublicKeyDetails */
	char key_sha256[65];         /* SHA-256 of its SubjectPublicKeyInfo */
	ps_sigstore_certificate certificate;   /* keyless only */
	ps_sigstore_log_entry *log_entries;
	size_t log_entry_count;
	ps_sigstore_timestamp *timestamps;
	size_t timestamp_count;
	int64_t *signing_times;      /* every verified time (step 4) */
	size_t signing_time_count;
} ps_sigstore_result;

/*
 * Verifies the bundle at `bundle_path` (at most 4 MiB) over `artifact`, in
 * the order of docs/formats/sigstore.md, section 3: shape, log entries,
 * timestamps, signing times and required evidence, certificate, identity,
 * signature.  Returns 0 when every check passed.  *out is set whenever
 * memory allowed, success or not (ps_sigstore_result_free()).  Codes:
 * exit 1 for the bundle's refusals (every one in docs/errors.md,
 * "Sigstore"), exit 2 for the options (invalid_argument), the key file
 * (key_malformed, key_unsupported_algorithm), the artifact or the bundle
 * file (not_found, io_error).
 */
int ps_sigstore_verify(const ps_sigstore_artifact *artifact,
    const char *bundle_path, const ps_sigstore_options *options,
    ps_sigstore_result **out, ps_error *err);
void ps_sigstore_result_free(ps_sigstore_result *result);

/* --------------------------------------------------------- keyless trust */

/*
 * The stable signer id of a keyless signature (trust-policy.md, "The
 * keyless signer id"): the same for every release one workflow of one
 * repository signs, used where a key fingerprint is used (receipts, pins,
 * the diff's trust group, an index's `signers`).  "KEYLESS:" and 43
 * base64 characters (no padding) of SHA-256 over
 * "packsign-keyless-signer-v1\n" ISSUER "\n" REPOSITORY "\n" WORKFLOW,
 * where REPOSITORY is "id:" and the Source Repository Identifier, else
 * "uri:" and the Source Repository URI, else empty, and WORKFLOW is the
 * Build Signer URI up to its first '@', else "san:" and the whole SAN.
 * Fits PS_FINGERPRINT_MAX.  Returns -1 when the certificate has no
 * issuer or no SAN (out is then "").
 */
#define PS_KEYLESS_ID_PREFIX "KEYLESS:"
int ps_keyless_signer_id(const ps_sigstore_certificate *cert,
    char out[PS_FINGERPRINT_MAX]);
/*
 * 1 when the certificate satisfies every constraint of the policy's
 * keyless entry (trust-policy.md, "Entries": the issuer exactly, the
 * subject's pattern, each constraint given; a constraint on an extension
 * the certificate lacks fails), else 0.  Windows, roles and scope are the
 * caller's (ps_verify()).
 */
int ps_trust_keyless_match(const ps_trust_keyless *entry,
    const ps_sigstore_certificate *cert);
/*
 * 1 when the certificate shows a reusable workflow: its Build Signer URI
 * does not start with its Source Repository URI and '/' (the workflow
 * file that ran lives in another repository than the one it built); 0
 * when it does, or when either extension is missing.
 */
int ps_keyless_reusable_workflow(const ps_sigstore_certificate *cert);

/* ------------------------------------------------------------------ diff */

/* Thread safety: may be called from several threads at once on different
 * sides and diffs; a side is only read by ps_diff_compare(). */

/*
 * What changed between two versions of a pack (docs/formats/diff.md):
 * who vouches for it, what it may do, its prompts, its code and its other
 * files, each change marked widening or not and with the consent class an
 * upgrade asks for.  A side is a signed archive (verified first), a pack
 * directory (no trust information) or an installed pack (its receipt and
 * tree, ps_diff_side_installed()).
 */

typedef enum ps_diff_group {
	PS_DIFF_TRUST = 0,          /* signers, keys, source, first_party */
	PS_DIFF_PERMISSIONS = 1,    /* what the manifest lets the pack do */
	PS_DIFF_PROMPTS = 2,        /* prompt files */
	PS_DIFF_CODE = 3,           /* scripts, executables, build files */
	PS_DIFF_OTHER = 4           /* every other file, the manifest's rest */
} ps_diff_group;

typedef enum ps_diff_kind {
	PS_DIFF_ADDED = 0,
	PS_DIFF_REMOVED = 1,
	PS_DIFF_CHANGED = 2
} ps_diff_kind;

typedef struct ps_diff_change {
	ps_diff_group group;
	const char *field;          /* the stable name of diff.md's table,
	                             * e.g. "permissions.network", "egress",
	                             * "signer", "prompt", "code", "file" */
	char *subject;              /* the host, path, identity, service...
	                             * the change is about; NULL for a field
	                             * of the pack as a whole */
	ps_diff_kind kind;
	char *old_value, *new_value;/* as displayed; NULL when absent */
	int widening;               /* the new version may do more */
	unsigned consent;           /* its PS_CONSENT_* class; 0: none */
	char *text_diff;            /* prompts: a unified diff (bounded),
	                             * NULL when not text or unchanged */
	size_t lines_added, lines_removed;
	int text_truncated;         /* the diff stopped at its bound */
	const char *text_omitted;   /* why a prompt or code change that
	                             * would carry a text diff has none:
	                             * PS_DIFF_TEXT_TOO_LARGE or
	                             * PS_DIFF_TEXT_BINARY; NULL otherwise */
} ps_diff_change;

/* ps_diff_change.text_omitted (diff.md, section 5; the JSON's value):
 * a file over 256 KiB, a side's kept texts over 4 MiB, or more than
 * 5,000 lines on a side; or a text with a NUL byte or not UTF-8. */
#define PS_DIFF_TEXT_TOO_LARGE "too_large"
#define PS_DIFF_TEXT_BINARY "binary"

typedef struct ps_diff {
	ps_format format;
	char *id;
	char *old_version, *new_version;
	int trusted;                /* both sides carry trust information */
	ps_diff_change *changes;    /* by group, then diff.md's order, then
	                             * subject */
	size_t change_count;
	size_t files_added, files_removed, files_changed; /* group other */
	unsigned widening_classes;  /* PS_CONSENT_* bits of widening changes */
} ps_diff;

typedef struct ps_diff_side ps_diff_side;

typedef struct ps_diff_options {
	ps_verify_options verify;   /* archives: trust (required), at, checks */
	size_t text_lines_max;      /* lines of each prompt's diff; 0: 200 */
} ps_diff_options;

/* Defaults: ps_verify_options_init(), 200 lines. */
void ps_diff_options_init(ps_diff_options *options);

/*
 * The side at `path`: an archive (.tar, .tar.gz, .tgz, .tar.zst, .zip),
 * verified as ps_verify() does with --deep (every file hashed), its
 * prompt files kept from that one verified read; or a pack directory,
 * read with its .packsignignore, without trust information.  Refusals are
 * verification's and validation's (manifest_invalid); *out is freed with
 * ps_diff_side_free().
 */
int ps_diff_side_open(const char *path, const ps_diff_options *options,
    ps_diff_side **out, ps_error *err);

/*
 * The installed pack `id` at `version` (NULL: the newest) of `format`
 * (PS_FORMAT_UNKNOWN: any, refused when two formats hold the id) in
 * `data_dir`: trust information from its receipt, files from its tree,
 * whose manifest and prompt files must still hash as the receipt says
 * (installed_modified); `policy` (may be NULL) decides first_party.
 * not_installed when there is none.
 */
int ps_diff_side_installed(const char *data_dir, ps_format format,
    const char *id, const char *version, const ps_trust *policy,
    ps_diff_side **out, ps_error *err);

/* The same for the installed tree at `path` (what `packsign list`
 * prints); not_installed when no receipt names it. */
int ps_diff_side_installed_path(const char *path, const ps_trust *policy,
    ps_diff_side **out, ps_error *err);

/* The side's validated manifest (owned by the side): its format and id
 * name the installed version to compare with. */
const ps_manifest *ps_diff_side_manifest(const ps_diff_side *side);

void ps_diff_side_free(ps_diff_side *side);

/*
 * Compares two sides of one pack (the same format and id, else
 * diff_mismatch).  *out lists every change; a pack compared with itself
 * has none.  Freed with ps_diff_free().
 */
int ps_diff_compare(const ps_diff_side *old_side, const ps_diff_side *new_side,
    const ps_diff_options *options, ps_diff **out, ps_error *err);

/* 1 when the diff has no change at all. */
int ps_diff_empty(const ps_diff *diff);

/* The widening changes whose class is in `classes`, the ones an upgrade
 * must be consented to; count only. */
size_t ps_diff_consent_needed(const ps_diff *diff, unsigned classes);

/* The PS_CONSENT_* bit of "permissions", "trust", "prompts" or "code";
 * 0 for another name.  And the name of one bit. */
unsigned ps_consent_class_by_name(const char *name);
const char *ps_consent_class_name(unsigned consent);
/* "permissions, trust": the names of the classes in `classes`, in bit
 * order, into `out` ("" for none; truncated to `size`). */
void ps_consent_class_list(unsigned classes, char *out, size_t size);

/* The diff as the JSON object of docs/formats/diff.md (format version 1),
 * UTF-8, one line, caller frees. */
int ps_diff_to_json(const ps_diff *diff, char **json, ps_error *err);

void ps_diff_free(ps_diff *diff);

/* ------------------------------------------------------------- extraction */

/* Thread safety: one destination directory per call. */

/*
 * Extracts the archive at `path` (.tar, .tar.gz, .tgz, .tar.zst, .zip)
 * into the empty directory `dest_fd` (never closed here), on its own
 * checks: it does not rely on ps_verify() having run.  Every entry is
 * checked as ps_digest_path() checks it (regular files and directories
 * only, the name rules, no duplicates or case-fold collisions) and
 * created with openat(2) and O_NOFOLLOW relative to directory
 * descriptors, files with O_EXCL; the limits hold while bytes stream.
 * Nothing is synced, nor handed to writeback early (ps_install does that
 * for the trees it keeps).  Past its first 64 entries or 1 MiB of file
 * data the files are created on a thread of its own, which has ended by
 * the time this returns.  On failure the directory may hold part of the
 * archive: the caller removes it.  `digest_out` (may be NULL) receives the
 * digests of what was extracted (every file hashed).  Refusals add
 * extract_too_large, extract_too_many_entries, extract_ratio_exceeded,
 * duplicate_entry and extract_conflict to the archive reader's codes.
 */
int ps_extract_archive(const char *path, int dest_fd,
    const ps_extract_limits *limits, ps_digest **digest_out, ps_error *err);

/* --------------------------------------------------------------- install */

/* Thread safety: may be called from several threads at once; writers
 * of one data directory (install, uninstall, pins, index state) wait for
 * each other on DIR/.lock (flock on a descriptor of each call's own, so
 * threads of one process serialise as processes do).
 * ps_data_dir_default() reads the environment: not safe while another
 * thread calls setenv() or putenv(). */

/*
 * Installed packs live in a data directory (docs/formats/install.md):
 *   DIR/agentpacks/<id>/<version>/        AgentPack
 *   DIR/soyapacks/<owner>/<name>/<version>/   SoyaPack (id owner/name)
 *   DIR/holons/<handle>/<name>/<version>/     holon (id handle/name)
 *   DIR/augr/<name>/<version>/            autograph package
 * each tree exactly the pack's files, and beside them a receipt,
 *   DIR/receipts/<same path>.json and .sig
 * which records what was verified.  DIR/.lock serialises writers;
 * DIR/.tmp holds private work files, removed by the next run.
 */

/* $PACKSIGN_DATA_DIR, else $XDG_DATA_HOME/packsign, else
 * $HOME/.local/share/packsign (XDG_DATA_HOME and HOME only when absolute).
 * The caller frees *out with free().  Codes: data_dir_invalid (none of
 * them is set), out_of_memory; exit 2.  Nothing is created. */
int ps_data_dir_default(char **out, ps_error *err);

typedef struct ps_installed_signer {
	char *identity;
	char *fingerprint;           /* SHA256:... (keys.md), or a keyless
	                              * signer id KEYLESS:... */
	/* Receipt 3: what a keyless signer's certificate certified (its
	 * signer_id, issuer, subject, repository, ...); NULL for a key. */
	ps_verify_keyless *keyless;
} ps_installed_signer;

/* How an upgrade's widening was consented to (install.md, "Receipt"). */
typedef struct ps_consent_record {
	char *from_version;          /* the version it upgraded; NULL: a first
	                              * install, nothing was compared */
	unsigned asked;              /* PS_CONSENT_* classes the policy asks */
	unsigned widened;            /* classes the upgrade widened */
	char *by;                    /* how they were accepted: "none" (nothing
	                              * asked widened), "prompt", "accept",
	                              * "accept-diff", "callback"; NULL with
	                              * from_version */
} ps_consent_record;

/* What a confirmation callback is shown before anything is installed. */
typedef struct ps_install_plan {
	ps_format format;
	const char *id, *version, *name;
	const char *domain;          /* AgentPack; NULL otherwise */
	const char *summary;         /* ps_manifest_describe() text */
	const char *destination;     /* the tree's path once installed */
	const char *signer;          /* first counted identity */
	const char *replaces_newest; /* the newest installed version of the
	                              * id, or NULL */
	const ps_diags *warnings;    /* the verification's (never NULL) */
	/* An upgrade: what changed since `replaces_newest` (NULL on a first
	 * install) and the PS_CONSENT_* classes of its widening changes the
	 * policy's `consent:` asks about (0: nothing to consent to). */
	const struct ps_diff *diff;
	unsigned consent_needed;
} ps_install_plan;

typedef struct ps_install_options {
	ps_verify_options verify;    /* trust (required), sig_path, the
	                              * checks, at */
	const char *data_dir;        /* required */
	int allow_shell;             /* AgentPack shell: true from a signer
	                              * who is not first_party */
	int allow_downgrade;         /* a version below the newest installed */
	int dry_run;                 /* every check, extraction into a
	                              * temporary directory, nothing kept */
	ps_extract_limits limits;
	ps_lang lang;                /* of the summary */
	/* Asked once everything is verified and checked, before extraction
	 * (not on a dry run or a no-op reinstall): nonzero installs, 0 refuses
	 * with install_declined.  NULL installs without asking. */
	int (*confirm)(void *ctx, const ps_install_plan *plan);
	void *confirm_ctx;
	/* Called once when another run holds DIR/.lock, before waiting for it
	 * (may be NULL). */
	void (*waiting)(void *ctx, const char *lock_path);
	void *waiting_ctx;
	int64_t now;                 /* recorded install time; default now */
	/* Upgrades (install.md, "Upgrades"): the widening classes accepted
	 * up front (PS_CONSENT_* bits, `--accept`), or the exact diff
	 * accepted (`--accept-diff`: ps_diff_to_json()'s text, a final
	 * newline allowed); else `consent` is asked (not on a dry run):
	 * nonzero accepts.  None of them: consent_required (exit 2). */
	unsigned accept;
	const char *accept_diff;
	int (*consent)(void *ctx, const ps_install_plan *plan);
	void *consent_ctx;
	const char *consent_by;      /* what the receipt records when
	                              * `consent` accepts; NULL: "callback"
	                              * (the CLI's terminal: "prompt") */
	int allow_signer_change;     /* re-pin a new signer (signer_changed) */
	int allow_source_change;     /* re-pin a new repository
	                              * (source_changed) */
	/* Polled while the archive is copied and extracted, and before the
	 * commit (may be NULL): nonzero stops the install with
	 * install_cancelled, removing what it wrote (install.md, section 3). */
	int (*cancelled)(void *ctx);
	void *cancelled_ctx;
	/* When the same version with the same tree is installed: extract it
	 * again and swap it in for the installed tree, with a new receipt
	 * (install.md, section 3.2), instead of the no-op (which refuses
	 * installed_modified when the installed files no longer match their
	 * receipt).  The pins are checked, never rewritten: allow_signer_change
	 * and allow_source_change are invalid_argument with it. */
	int reinstall;
	/* has_archive_fd: read the archive from `archive_fd` (a pipe, such as
	 * standard input; not closed) instead of opening `path`, which then
	 * only names it (its file name must be the signed subject's, and
	 * verify.sig_path is required).  A v2 statement's tar streams through
	 * once, each chunk authenticated before it is parsed; otherwise the
	 * archive is copied first, at most limits.max_total_size bytes. */
	int has_archive_fd;
	int archive_fd;
} ps_install_options;

/* Defaults: ps_verify_options_init(), ps_extract_limits_init(), English,
 * nothing else set. */
void ps_install_options_init(ps_install_options *options);

typedef struct ps_install_result {
	ps_verify_result *verify;    /* the verification of the archive's
	                              * private copy (paths as given) */
	ps_format format;
	char *id, *version, *name, *domain;
	char *summary;               /* what the pack may do */
	char *path;                  /* installed tree (or would be) */
	char *receipt_path;          /* its receipt's .json */
	int already_installed;       /* same version and tree: nothing done */
	int dry_run;
	int installed;               /* 1 once the tree is in place */
	unsigned char tree_digest[PS_SHA256_LEN];
	size_t file_count;           /* regular files in the tree */
	uint64_t total_size;         /* their bytes */
	struct ps_diff *diff;        /* an upgrade's, against the newest
	                              * installed version; NULL otherwise */
	unsigned consent_needed;     /* as in the plan */
	ps_consent_record consent;   /* what the receipt records */
	int pinned;                  /* 1 when this install wrote the pins */
	int reinstalled;             /* `reinstall` replaced the tree */
} ps_install_result;

/*
 * Installs the signed archive at `archive`: copies its signature and the
 * archive into DIR/.tmp (the archive into a file without a name, hashed
 * as it is copied: as much free space as the archive), matches that
 * digest with the signed subject before a byte of the copy is parsed,
 * verifies the copy as ps_verify() does and extracts it in the same
 * reading pass into DIR/.tmp, applies the install rules (AgentPack shell,
 * rollback, same-version reinstall), asks `confirm`, checks that the
 * extracted bytes are the verified ones (archive and tree digests),
 * writes the receipt, syncs the file system, and renames the tree into
 * place.  The caller's file is read once, by the copy.  A run killed at
 * any point leaves the previous state; the next run removes its
 * leftovers.  `*out` is set whenever memory allowed.  Refusals (exit 1)
 * add to verification's: shell_refused, downgrade_refused,
 * version_conflict, install_conflict, install_declined, install_name_invalid,
 * install_digest_mismatch, subject_changed (the archive grew while it was
 * copied), and the extraction codes; failures (exit 2): data_dir_invalid,
 * lock_failed, io_error, disk_full, not_found, not_a_file,
 * install_cancelled (`cancelled` said stop: nothing is installed and the
 * work directory is removed).  An https URL
 * is ps_install_url()'s ("network" below); ps_install() never downloads.
 */
int ps_install(const char *archive, const ps_install_options *options,
    ps_install_result **out, ps_error *err);
/* Frees the result, its verification and its strings; NULL is a no-op. */
void ps_install_result_free(ps_install_result *result);

/* --------------------------------------------------------------- network */

/* Thread safety: may be called from several threads at once (one curl
 * handle per transfer; curl_global_init()/cleanup() around each, which
 * libcurl counts). */

/*
 * Downloads (docs/formats/install.md, "From a URL"): only ps_install_url()
 * and ps_fetch() make network requests, over https only (the first
 * request and every redirect, at most PS_FETCH_MAX_REDIRECTS), with TLS
 * verification always on, through libcurl.  The library never reads the
 * environment for them: a proxy is used only when `proxy` names one.  The
 * signature is downloaded and verified before a byte of the archive is
 * requested.  A GitHub ".../releases/latest/download/ASSET" URL is
 * resolved once (its first redirect) and both files come from the
 * release it names.  Private release assets (tokens) are not supported.
 */
#define PS_FETCH_MAX_REDIRECTS 5
#define PS_FETCH_DEFAULT_CONNECT_TIMEOUT 30  /* seconds */
#define PS_FETCH_DEFAULT_LOW_SPEED_TIME 60   /* seconds below 1 byte/s */

typedef struct ps_fetch_options {
	const char *ca_file;         /* PEM CA bundle replacing the system
	                              * trust store; NULL: the system's */
	const char *proxy;           /* CURLOPT_PROXY; NULL: none */
	const char *no_proxy;        /* CURLOPT_NOPROXY; NULL: none */
	const char *sig_url;         /* the signature's https URL; NULL:
	                              * URL.sig (".sig" appended to the path),
	                              * unless verify.sig_path names a file */
	uint64_t max_download;       /* most archive bytes; default
	                              * PS_EXTRACT_DEFAULT_MAX_SIZE; 0: none */
	long connect_timeout;        /* seconds; default above */
	long low_speed_time;         /* seconds; default above */
	long timeout;                /* the whole of each transfer, seconds;
	                              * 0 (default): none */
	/* As the archive arrives: what "downloading", bytes so far and the
	 * announced total (0: unknown); fn NULL: none. */
	ps_progress_sink progress;
	/* ps_fetch(): called with the temporary file it names beside the
	 * output (the .sig; the archive has no name until it is verified,
	 * where O_TMPFILE works), and with NULL once it is renamed or
	 * removed, so a CLI can remove it on a signal; may be NULL. */
	void (*temp_file_hook)(const char *path);
	/* Polled during every transfer (about once a second, also while
	 * the server is silent): nonzero ends it with fetch_cancelled, and
	 * the call cleans up as after any failure (a CLI's SIGINT); may be
	 * NULL. */
	int (*cancelled)(void *ctx);
	void *cancelled_ctx;
} ps_fetch_options;

/* The defaults above; no CA file, no proxy. */
void ps_fetch_options_init(ps_fetch_options *options);

/*
 * ps_install() of the archive at the https `url` (.tar, .tar.gz, .tgz,
 * .tar.zst, .zip): under DIR/.lock, the signature is downloaded into
 * DIR/.tmp (at most the envelope limit: envelope_too_large) and verified;
 * only then is the archive downloaded into the private anonymous copy
 * ps_install() makes of a local file, hashed as it arrives, and installed
 * as ps_install() installs.  The archive's name is the last path segment,
 * percent-decoded (url_name_invalid).  The receipt records the URL
 * without user:password and query.  Failures of the transfer (exit 2):
 * url_scheme_refused, url_invalid, fetch_http_status, fetch_tls,
 * fetch_timeout, fetch_too_large, fetch_redirect, fetch_truncated,
 * fetch_connect, fetch_cancelled, fetch_failed; refusals as ps_install().
 */
int ps_install_url(const char *url, const ps_install_options *options,
    const ps_fetch_options *fetch, ps_install_result **out, ps_error *err);

/*
 * Downloads the archive at `url` and its signature and verifies them as
 * ps_verify() does (the signature first, the archive only once it
 * verified) without installing: the signature goes to a temporary file
 * beside `path`, the archive to a file without a name in its directory
 * (a temporary one beside `path` where O_TMPFILE is missing); once
 * verified, the archive is named `path`, then the signature `path`.sig
 * (with verify->sig_path, a local signature, only the archive).  `*out` as
 * for ps_verify().  Codes: those of ps_install_url()'s transfer, those of
 * ps_verify(), output_exists is never given (the files are replaced).
 */
int ps_fetch(const char *url, const char *path,
    const ps_verify_options *verify, const ps_fetch_options *fetch,
    ps_verify_result **out, ps_error *err);

/* One installed pack, as its receipt records it. */
typedef struct ps_installed {
	ps_format format;
	char *id, *version, *name;
	char *domain;                /* AgentPack; NULL otherwise */
	char *path;                  /* DIR/<layout>/<version> */
	char *receipt_path;          /* DIR/receipts/<layout>/<version>.json */
	char *sig_path;              /* its .sig */
	int newest;                  /* highest SemVer precedence of its id */
	char *signer;                /* first counted identity */
	char *fingerprint;           /* of the key that verified it */
	char *source_repository;     /* NULL when not recorded */
	char *source_commit;         /* NULL when not recorded */
	char *permissions;           /* one line: what the pack may do */
	char *archive_name;
	unsigned char archive_digest[PS_SHA256_LEN];
	unsigned char tree_digest[PS_SHA256_LEN];
	int64_t installed_at;
	size_t prompt_count;         /* the signed prompt files */
	ps_entry *prompts;           /* path and sha256, by path */
	size_t entry_count;          /* files and empty directories: what
	                              * the tree digest covers */
	ps_entry *entries;           /* canonical order */
	/* Receipt 2 (a receipt 1 reads as its one signer, no consent). */
	ps_installed_signer *signers;/* every counted identity, by identity */
	size_t signer_count;
	char *manifest_path;         /* relative to the tree; NULL in 1 */
	unsigned char manifest_sha256[PS_SHA256_LEN];
	ps_consent_record consent;
	/* Receipt 3: the Sigstore bundles it was installed from, kept as
	 * receipts/<layout>/<version>.N.sigstore.json (N from 1) instead of
	 * the .sig; 0: the .sig. */
	size_t bundle_count;
} ps_installed;

typedef struct ps_installed_list {
	ps_installed *items;         /* by format, id, then SemVer */
	size_t count;
} ps_installed_list;

/*
 * Reads every receipt of `data_dir` whose tree exists.  A directory that
 * does not exist is an empty list.  A receipt that cannot be parsed fails
 * the call with receipt_invalid (exit 1), naming it.  *out is freed with
 * ps_installed_list_free().
 */
int ps_installed_list_load(const char *data_dir, ps_installed_list **out,
    ps_error *err);
/* Frees the list and every receipt in it; NULL is a no-op. */
void ps_installed_list_free(ps_installed_list *list);

/* What re-checking an installed tree found. */
typedef struct ps_installed_check {
	ps_installed *receipt;       /* owned by the check */
	ps_strings modified;         /* content, size or executable bit */
	ps_strings added;            /* including links and special files */
	ps_strings missing;
	unsigned char tree_digest[PS_SHA256_LEN]; /* recomputed, when the
	                                           * tree holds only files and
	                                           * directories */
	int tree_computed;
	int signature_checked;       /* the receipt's .sig was verified */
} ps_installed_check;

/*
 * Re-checks the installed tree at `path` (DIR/<layout>/<version>) against
 * its receipt: every file hashed, the tree digest and prompt digests
 * recomputed, every modified, added or missing path named.  With `trust`
 * (may be NULL) the receipt's signature is verified again at `at` and its
 * statement's tree digest must equal the receipt's.  Refusals:
 * installed_modified (lists filled), receipt_invalid, not_installed,
 * and signature refusals; `*out` is set whenever memory allowed.
 */
int ps_installed_verify(const char *path, const ps_trust *trust, int64_t at,
    ps_installed_check **out, ps_error *err);
/* Frees the check and its receipt; NULL is a no-op. */
void ps_installed_check_free(ps_installed_check *check);

/*
 * Removes `version` (or, when NULL, every version) of `id` from
 * `data_dir`; `format` PS_FORMAT_UNKNOWN matches any format but refuses
 * (install_ambiguous) when the id is installed in two.  Each tree is
 * renamed away before its receipt is removed and it is deleted.  Refuses
 * not_installed when nothing matches.  `removed` (may be NULL) receives
 * the removed packs, freed with ps_installed_list_free().  Failures
 * (exit 2): data_dir_invalid, lock_failed, io_error.
 */
int ps_uninstall(const char *data_dir, ps_format format, const char *id,
    const char *version, ps_installed_list **removed, ps_error *err);

/*
 * The pins of an installed id (install.md, "Pins"): the identities, keys
 * and repository its first install was signed by and built from, which
 * every later install must match (signer_changed, source_changed).
 */
typedef struct ps_pins {
	ps_format format;
	char *id;
	char *version;               /* the install that pinned them */
	ps_installed_signer *signers;
	size_t signer_count;
	char *source_repository;     /* NULL: none pinned */
} ps_pins;

/* The pins of `id` in `data_dir`; *out NULL when it has none (or there
 * is no data directory).  pins_invalid (exit 1) for a damaged file. */
int ps_pins_load(const char *data_dir, ps_format format, const char *id,
    ps_pins **out, ps_error *err);
void ps_pins_free(ps_pins *pins);

/* Removes the pins of `id` (uninstall --forget) of `format`
 * (PS_FORMAT_UNKNOWN: of every format): its next install pins again, as
 * a first one.  Under the lock; *forgot (may be NULL) says whether there
 * were any.  Failures (exit 2): data_dir_invalid, lock_failed, io_error. */
int ps_pins_forget(const char *data_dir, ps_format format, const char *id,
    int *forgot, ps_error *err);

/* ---------------------------------------------------------------- signing */

/* Thread safety: may be called from several threads at once on different
 * outputs; the key is only read. */

/*
 * `packsign sign` (docs/formats/signature.md, "Signing"): a pack directory
 * becomes its canonical archive OUT plus OUT.sig, a DSSE envelope over the
 * in-toto statement; an existing archive is signed as it is.  Everything
 * written is byte-deterministic: no wall-clock time is read.
 */
typedef struct ps_sign_options {
	/* directories: where to write the archive; NULL: "<file_id>-<version>"
	 * + ".tar", ".tar.gz" or ".tar.zst" (from pack.compression) in the
	 * current directory.  Must be NULL for archives. */
	const char *output;
	ps_pack_options pack;        /* mtime, compression (directories) */
	const char *identity;        /* the signer's identity; NULL: below */
	const char *public_key_path; /* NAME.pub: must hold the secret key's
	                              * public half; its comment's identity is
	                              * used when `identity` is NULL; an absent
	                              * file is ignored; NULL: none */
	const char *source_repo;     /* supplies or overrides the repository */
	const char *source_commit;   /* supplies or overrides the commit */
	int allow_dirty;             /* record dirty: true instead of refusing */
	int append;                  /* add a signature to an existing OUT.sig */
	int force;                   /* replace an existing OUT.sig */
	int minisig;                 /* also write OUT.minisig */
	/* Called with the archive's temporary file path once it exists and
	 * with NULL once it is renamed or removed, so a CLI can remove it on
	 * a signal (cli_remove_on_signal); may be NULL. */
	void (*temp_file_hook)(const char *path);
	int bundle;                  /* also write a Sigstore bundle
	                              * OUT.N.sigstore.json for each signature
	                              * N (1, 2, ...) of OUT.sig (signature.md,
	                              * "Sigstore bundles") */
	/* With `bundle`: the https URL of an RFC 3161 timestamp authority;
	 * the bundle of the signature this run adds carries its timestamp
	 * over the signature bytes (signature.md, section 9.4), and a run
	 * that cannot get one fails (timestamp_failed) leaving the outputs
	 * as they were.  NULL: no timestamp. */
	const char *tsa_url;
	const ps_fetch_options *fetch;  /* for tsa_url and keyless: CA
	                                 * file, proxy, timeouts; NULL: the
	                                 * defaults */
	/* Keyless signing (signature.md, section 9.5): ps_sign() with key
	 * NULL.  The signature is made with an ephemeral key that Fulcio
	 * certifies for `identity_token`'s identity, logged by Rekor, and
	 * lives in OUT.1.sigstore.json only (no OUT.sig, no OUT.minisig);
	 * excludes append, and without a key minisig, bundle and tsa_url.
	 * With a key it co-signs: the key's outputs as without keyless,
	 * the keyless bundle OUT.2.sigstore.json. */
	int keyless;
	const char *identity_token;  /* the OIDC token (a JWT): a secret, the
	                              * caller's; read from nowhere else (the
	                              * library reads no environment) */
	const char *signing_config;  /* signing_config.json v0.2; NULL: the
	                              * public-good instance's services */
	const char *trusted_root;    /* trusted_root.json the new bundle is
	                              * verified against; NULL: the compiled-in
	                              * public-good root */

	int predicate_version;       /* 0 or 2: the v2 predicate (the
	                              * archive's 1 MiB chunk digests,
	                              * signature.md section 4.4) unless the
	                              * archive has over 16,384 chunks (then
	                              * v1); 1: v1, for older verifiers */

	/* Also write the statement's predicate, packsign's, as JSON to this
	 * file (after OUT and OUT.sig are in place; signature.md 8.7), for
	 * another tool to attest the archive with (actions/attest, cosign
	 * attest-blob); NULL: none. */
	const char *predicate_out;
} ps_sign_options;

/* Defaults: gzip, mtime 0, nothing else set. */
void ps_sign_options_init(ps_sign_options *options);

/* What a signing run did, for printing. */
typedef struct ps_sign_result {
	char *archive_path;          /* OUT */
	char *sig_path;              /* OUT.sig */
	char *minisig_path;          /* OUT.minisig; NULL when not asked */
	int archive_written;         /* 0: signed as it is, or --append kept
	                              * the identical existing archive */
	ps_format format;
	char *id, *version;
	unsigned char tree_digest[PS_SHA256_LEN];
	unsigned char archive_digest[PS_SHA256_LEN];
	int has_source;
	char *source_repository;     /* NULL when unknown */
	char *source_commit;
	char *source_path;
	int source_dirty;
	char *source_manifest_ref;   /* holon ancestor, or NULL */
	size_t prompt_count;
	char *identity;              /* NULL when the key names none */
	char fingerprint[PS_FINGERPRINT_MAX];
	size_t signature_count;      /* in OUT.sig after this run */
	ps_diags diags;              /* validation problems, sorted */
	char **bundle_paths;         /* with options.bundle: OUT.N.sigstore.json
	                              * in signature order; NULL otherwise */
	size_t bundle_count;
} ps_sign_result;

/*
 * Signs the pack directory or archive at `path` with `key`.  `*out` is set
 * whenever it could be allocated, on failure too: an invalid manifest is
 * refused with code manifest_invalid and its diagnostics in (*out)->diags.
 * Refusals (exit 1): manifest_invalid, signed_by_mismatch, source_dirty,
 * source_repository_mismatch, holon_source_missing, the holon_ref_* codes,
 * append_mismatch, already_signed, and the archive safety codes (a
 * declared prompt file that is not a file of the pack is one of the
 * manifest's diagnostics: manifest_invalid).  Failures (exit 2):
 * source_commit_invalid, source_commit_missing,
 * key_pair_mismatch, output_exists, sig_missing, file_changed, io_error,
 * timestamp_failed, invalid_argument (tsa_url without bundle, keyless
 * with an option it excludes); keyless: identity_token_missing,
 * identity_token_invalid, identity_token_expired, signing_config_invalid,
 * fulcio_failed, rekor_failed, keyless_bundle_refused (exit 2) and
 * keyless_source_mismatch (exit 1)
 * and the envelope codes of a corrupt OUT.sig given to --append.  Every output is written
 * in full before the first rename; the archive is renamed before its .sig.
 * After a failure, OUT, OUT.sig and OUT.minisig are as they were: what this
 * run created is removed and an OUT it replaced is put back
 * (docs/formats/signature.md, section 8.2, states the exact guarantee).
 */
int ps_sign(const char *path, const ps_seckey *key,
    const ps_sign_options *options, ps_sign_result **out, ps_error *err);
/* Frees the result, its strings and diagnostics; NULL is a no-op. */
void ps_sign_result_free(ps_sign_result *result);

/*
 * GitHub Actions' OIDC identity token for keyless signing: a GET of
 * `request_url` (ACTIONS_ID_TOKEN_REQUEST_URL) with "audience=sigstore"
 * added, `request_token` (ACTIONS_ID_TOKEN_REQUEST_TOKEN) sent as a bearer
 * token to that URL's host only (no redirect is followed), the answer's
 * "value" in *token (NUL-terminated; ps_secret_free()).  The caller reads
 * the environment.  Code identity_token_missing (exit 2), its message
 * naming the transfer's own code.
 */
int ps_keyless_github_token(const ps_fetch_options *fetch,
    const char *request_url, const char *request_token, ps_secret **token,
    ps_error *err);

/*
 * A minisign signature file (docs/formats/keys.md) for a file whose
 * BLAKE2b-512 is `blake2b`, with `trusted_comment` (printable ASCII, at
 * most 1024 bytes): four lines, "ED" (prehashed) mode.  *out is the
 * caller's, freed with free().  Codes: minisig_comment_invalid (exit 1),
 * sign_failed, out_of_memory (exit 2).
 */
int ps_minisig_format(const ps_seckey *key,
    const unsigned char blake2b[PS_BLAKE2B512_LEN],
    const char *trusted_comment, char **out, ps_error *err);

/* ------------------------------------------------------------------ index */

/* Thread safety: a verified ps_index is read-only to every function
 * taking `const ps_index *`; ps_index_read() downloads as "network" does. */

/*
 * A signed pack index (docs/formats/index.md): what a publisher says is
 * published, newest and withdrawn, in one DSSE envelope of payload type
 * PS_INDEX_PAYLOAD_TYPE signed by a key whose identity has the index role
 * (trust-policy.md, "roles").  Its payload is parsed only after a
 * signature verified; clients keep the highest version they have seen
 * per publisher in the data directory (DIR/index-state.json), so an older
 * index replayed later is refused.
 */
#define PS_INDEX_PAYLOAD_TYPE "application/vnd.packsign.index+json"
#define PS_INDEX_MAX_ENTRIES 10000     /* entries of one index */
#define PS_INDEX_MAX_URL 2048          /* bytes of a URL or base URL */
#define PS_INDEX_MAX_REASON 1024       /* bytes of a yank reason */
#define PS_INDEX_MAX_VERSION_TEXT 256  /* bytes of a pack version */
#define PS_INDEX_MAX_ID 256            /* bytes of a pack id */
#define PS_INDEX_MAX_SIGNERS 64        /* signer ids of one entry */
#define PS_INDEX_MAX_BUNDLES 8         /* Sigstore bundle URLs of one entry */
#define PS_INDEX_VERSION_MAX 9007199254740991ULL   /* 2^53 - 1 */
#define PS_INDEX_DEFAULT_EXPIRES "P30D"

typedef struct ps_index_entry {
	ps_format format;
	char *id, *version;
	char *url;                   /* as written: absolute https, or
	                              * relative to the index's base_url */
	char *archive_url;           /* absolute: base_url + url, or url */
	unsigned char sha256[PS_SHA256_LEN];   /* of the archive's bytes */
	uint64_t size;               /* the archive's bytes */
	unsigned char tree_digest[PS_SHA256_LEN];
	char **signers;              /* signer ids: key fingerprints
	                              * "SHA256:..." or keyless "KEYLESS:...",
	                              * sorted, distinct */
	size_t signer_count;
	int64_t published;           /* seconds since the epoch */
	char *yanked;                /* the reason; NULL when not yanked */
	/* The entry's Sigstore bundles (0 to PS_INDEX_MAX_BUNDLES): what is
	 * verified instead of the archive's .sig when bundle_count > 0.
	 * bundles as written (absolute, or relative to base_url),
	 * bundle_urls composed, on the archive URL's host and port. */
	char **bundles;
	char **bundle_urls;
	size_t bundle_count;
} ps_index_entry;

typedef struct ps_index {
	uint64_t version;            /* 1 ... PS_INDEX_VERSION_MAX */
	char *publisher;             /* identity of the index key */
	int64_t issued, expires;     /* seconds since the epoch */
	char *base_url;              /* NULL when absent */
	ps_index_entry *entries;     /* sorted by id, format, then version
	                              * precedence (docs/formats/index.md) */
	size_t entry_count;
	/* Filled by ps_index_verify(): the SHA-256 of the signed payload,
	 * what the client state records, and the fingerprint of the key
	 * that verified it. */
	unsigned char payload_sha256[PS_SHA256_LEN];
	char fingerprint[PS_FINGERPRINT_MAX];
} ps_index;

typedef struct ps_index_verify_options {
	const ps_trust *trust;       /* required: who may sign an index */
	int64_t at;                  /* judges expiry and key windows;
	                              * default now */
	int allow_expired;           /* a publisher reading its own previous
	                              * index (index build --previous) */
} ps_index_verify_options;

/* Defaults: no policy, `at` the current time, expiry enforced. */
void ps_index_verify_options_init(ps_index_verify_options *options);

/*
 * Verifies an index envelope of `len` bytes (at most the envelope limit):
 * a signature by a key of the policy whose identity has the index role
 * (ps_trust_lookup_index()), then the payload, parsed only then: its type,
 * its fields and bounds (index_invalid), publisher equal to that identity
 * (index_publisher_mismatch), every entry within its `packs:` scope
 * (index_out_of_scope), not expired at `at` (index_expired), version not
 * below the identity's min_index_version (index_rollback).  `label` names
 * the input in errors.  Refusals exit 1; the envelope codes as for a .sig.
 * *out is freed with ps_index_free().
 */
int ps_index_verify(const void *bytes, size_t len, const char *label,
    const ps_index_verify_options *options, ps_index **out, ps_error *err);
void ps_index_free(ps_index *index);

/*
 * The newest entry of `id` satisfying `spec`: NULL or "" is "*" (no
 * prereleases), else an exact version or a node-semver range
 * (manifests.md, "Version ranges").  Yanked entries are skipped; with
 * `allow_yanked`, an exact version may name one.  Codes (exit 1):
 * index_not_listed (no entry of that id), index_no_match (none satisfies
 * it; the message lists the versions), version_yanked (the exact version
 * asked for is yanked: the reason), index_ambiguous (the id is listed in
 * two formats), index_range_invalid.
 */
int ps_index_resolve(const ps_index *index, const char *id, const char *spec,
    int allow_yanked, const ps_index_entry **out, ps_error *err);
/* The newest entry of this format and id that is neither yanked nor a
 * prerelease (the range "*"), what outdated and update offer; NULL when
 * there is none. */
const ps_index_entry *ps_index_newest(const ps_index *index, ps_format format,
    const char *id);
/* SemVer 2.0.0 precedence of two versions: <0, 0, >0 (text that is no
 * version compares by bytes, after every version). */
int ps_version_compare(const char *a, const char *b);
/* The entry of exactly this format, id and version; NULL when absent. */
const ps_index_entry *ps_index_find(const ps_index *index, ps_format format,
    const char *id, const char *version);

/*
 * Reads an index from a local file or, for an https URL, downloads it (at
 * most the envelope limit) with `fetch` (NULL: defaults).  *bytes is
 * malloc'ed.  Codes: those of ps_fetch()'s transfer, not_found, io_error,
 * envelope_too_large.
 */
int ps_index_read(const char *file_or_url, const ps_fetch_options *fetch,
    unsigned char **bytes, size_t *len, ps_error *err);

/* ------------------------------------------------------ publishing an index */

/* Thread safety: one ps_index per thread at a time while it is built. */

typedef struct ps_index_build_options {
	const ps_index *previous;    /* verified; its entries carried forward;
	                              * NULL: the first index (version 1) */
	const char *publisher;       /* required: the index key's identity */
	const char *base_url;        /* replaces the previous one; NULL: the
	                              * previous index's, if any */
	const char *url_prefix;      /* new entries' url = prefix + file name:
	                              * an absolute https URL or a relative
	                              * path, ending in '/'; NULL: file name */
	const ps_trust *trust;       /* verifies each archive; required for
	                              * ps_index_add() */
	int64_t now;                 /* the index's issued time and the new
	                              * entries' publication time */
	int64_t expires_in;          /* seconds after `now` */
	/* ps_index_add(): the Sigstore bundles (1 to PS_INDEX_MAX_BUNDLES
	 * paths) that verify the archive instead of its .sig; the entry's
	 * `bundles` are url_prefix + each file name.  0: the .sig. */
	const char *const *bundle_paths;
	size_t bundle_count;
} ps_index_build_options;

void ps_index_build_options_init(ps_index_build_options *options);

/* An ISO 8601 duration for --expires ("P30D", "PT12H", "P1Y2M"; a year
 * counts 365 days, a month 30) in whole seconds, more than 0 and at most
 * PS_INDEX_MAX_EXPIRES; 0 / -1. */
#define PS_INDEX_MAX_EXPIRES (10LL * 365 * 86400)
int ps_index_duration_parse(const char *text, int64_t *seconds);

/*
 * A new index: version previous + 1 (1 without one), the previous entries,
 * issued `now`, expires now + expires_in.  *out is freed with
 * ps_index_free().  Codes: identity_invalid (no publisher),
 * index_publisher_mismatch (the previous index is another's),
 * index_expires_invalid, index_url_invalid, index_version_exhausted.
 */
int ps_index_new(const ps_index_build_options *options, ps_index **out,
    ps_error *err);
/*
 * Verifies the signed archive at `archive` (its signature beside it) with
 * options->trust and adds or replaces its entry (format, id, version,
 * url, SHA-256, size, tree digest, the counted signers' fingerprints,
 * publication time now).  Refusals as ps_verify(); index_url_invalid,
 * index_full.
 */
int ps_index_add(ps_index *index, const char *archive,
    const ps_index_build_options *options, ps_error *err);
/* Marks ID@VERSION yanked with `reason` (1 to PS_INDEX_MAX_REASON bytes
 * of printable text); index_not_listed, index_reason_invalid. */
int ps_index_yank(ps_index *index, const char *id, const char *version,
    const char *reason, ps_error *err);
/* Removes ID@VERSION; index_not_listed. */
int ps_index_remove(ps_index *index, const char *id, const char *version,
    ps_error *err);
/*
 * The canonical payload (docs/formats/index.md) in a DSSE envelope signed
 * with `key`, one line of JSON and a LF; *out is malloc'ed.  The same
 * index and key give the same bytes.
 */
int ps_index_sign(const ps_index *index, const ps_seckey *key, char **out,
    size_t *len, ps_error *err);

/* -------------------------------------------------- index client state */

/* Thread safety: the state file is written under DIR/.lock, as
 * installs are. */

/* What a data directory has seen of one publisher's index. */
typedef struct ps_index_seen {
	uint64_t version;            /* the highest version seen */
	unsigned char payload_sha256[PS_SHA256_LEN];
	int64_t first_seen;          /* when that version was first seen */
} ps_index_seen;

/*
 * DIR/index-state.json's record of `publisher`: 0 with *found 1 and *seen
 * set, or *found 0 when nothing was seen.  A damaged state file is
 * index_state_invalid (exit 2), whose message says how to reset it.
 */
int ps_index_state_load(const char *data_dir, const char *publisher,
    ps_index_seen *seen, int *found, ps_error *err);
/*
 * Compares a verified index with what was seen: index_rollback (a lower
 * version), index_equivocation (the same version, other payload bytes:
 * the message gives the digest and time seen first).  0 when it may be
 * used.  `seen` NULL (nothing seen) always passes.
 */
int ps_index_state_check(const ps_index_seen *seen, const ps_index *index,
    ps_error *err);
/* For a caller that requires state (--require-index-state) when nothing
 * was seen of the publisher: index_state_missing (exit 1) unless the
 * policy gives it a min_index_version, the floor ps_index_verify()
 * already applied. */
int ps_index_state_require(const ps_trust *trust, const ps_index *index,
    ps_error *err);
/*
 * Under DIR/.lock: loads the state, checks `index` against it, and when
 * its version is higher records {version, payload SHA-256, first_seen
 * now} atomically (temporary file, fsync, rename).  *recorded says
 * whether it wrote.  Codes: those of the check, index_state_invalid,
 * lock_failed, io_error, disk_full.
 */
int ps_index_state_record(const char *data_dir, const ps_index *index,
    int64_t now, int *recorded, ps_error *err);

/* ------------------------------------------------ installing from an index */

/* Thread safety: as install and network. */

/*
 * ps_fetch() of an entry's archive into `path` (its .sig beside it),
 * capped at the entry's size and bound to the entry as
 * ps_install_indexed() binds it, before a byte of the archive is parsed
 * (index_mismatch: another size, digest, pack or signer; nothing is then
 * written).  `entry` is matched to the index's own entry as there
 * (invalid_argument); a yanked one is fetched too.
 */
int ps_index_fetch_entry(const ps_index *index, const ps_index_entry *entry,
    const char *path, const ps_verify_options *verify,
    const ps_fetch_options *fetch, ps_verify_result **out, ps_error *err);

/*
 * The entry's version as the new side of a diff (ps_diff_side_open()'s
 * archive side), what `packsign outdated` compares with the installed
 * version: its .sig and archive downloaded into private copies
 * (options->verify.limits.copies: memory within its budget, else an
 * unlinked file; copy_unavailable when neither), capped at the entry's
 * size and bound to the entry before a byte of the archive is parsed, as
 * ps_index_fetch_entry() binds it, and verified once, the side built in
 * the same pass.  Nothing is written to the file system.  A yanked entry
 * is opened too.  Codes: ps_index_fetch_entry()'s.
 */
int ps_index_diff_side(const ps_index *index, const ps_index_entry *entry,
    const ps_diff_options *options, const ps_fetch_options *fetch,
    ps_diff_side **out, ps_error *err);

typedef struct ps_index_install_options {
	int allow_yanked;            /* an exact version that is yanked */
	int require_state;           /* refuse when nothing was seen of the
	                              * publisher and the policy gives no
	                              * floor (index_state_missing) */
	int record_state;            /* write the state (default 1) */
} ps_index_install_options;

void ps_index_install_options_init(ps_index_install_options *options);

/*
 * ps_install_url() of an index entry: under DIR/.lock the index is checked
 * against and recorded in the client state, then the entry's .sig
 * (archive URL + ".sig") is downloaded and verified, then the archive,
 * capped at the entry's size, which must be its length (index_mismatch
 * for a longer or shorter body), whose SHA-256 must equal the entry's and
 * the signed subject's, and whose verified statement must name the
 * entry's format, id and version, with a counted signer the entry lists
 * (index_mismatch) before a byte is parsed; then installed with the
 * upgrade rules.  `index` must come from ps_index_verify() with the same
 * policy as options->verify.trust; options->verify.sig_path must be NULL.
 * `entry` is matched to the index's own entry by format, id, version and
 * archive digest (invalid_argument when the index has none: an entry of
 * another index, or of another copy of it); a yanked entry is refused
 * (version_yanked) unless index_options->allow_yanked.  A dry run checks
 * the state without recording.  Codes: ps_install_url()'s, the state
 * codes, version_yanked, index_mismatch, index_state_missing.
 */
int ps_install_indexed(const ps_index *index, const ps_index_entry *entry,
    const ps_index_install_options *index_options,
    const ps_install_options *options, const ps_fetch_options *fetch,
    ps_install_result **out, ps_error *err);
/*
 * ps_install_indexed() with the entry's archive and .sig taken from the
 * local directory `dir` instead of downloaded (offline and air-gapped
 * installs, index.md section 7.1): DIR/NAME and DIR/NAME.sig, NAME the
 * last path segment of the entry's archive URL, percent-decoded
 * (url_name_invalid when it breaks the name rules).  The archive's size
 * must be the entry's (index_mismatch) before it is copied; digest,
 * statement, signers and state rules are ps_install_indexed()'s.  Nothing
 * is downloaded.  Codes: ps_install()'s, the state codes, index_mismatch,
 * index_state_missing, url_name_invalid.
 */
int ps_install_indexed_dir(const ps_index *index, const ps_index_entry *entry,
    const ps_index_install_options *index_options,
    const ps_install_options *options, const char *dir,
    ps_install_result **out, ps_error *err);

#ifdef __cplusplus
}
#endif

#endif /* PACKSIGN_H */
