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

/* ------------------------------------------------------ pack file access */

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
 * (read beyond `max`), `pack_path_invalid`; list also `pack_too_deep`,
 * `pack_too_many_entries` (limits of the implementation).  A failure
 * (PS_STATUS_FAILED) means the job could not be done (I/O error, memory).
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
	 * `err` as fn filled it). */
	int (*list)(void *ctx, int (*fn)(void *arg, const char *path,
	    ps_entry_type type, uint64_t size, ps_error *err), void *arg,
	    ps_error *err);
	/* Up to n first bytes of the regular file PATH; *got may be < n. */
	int (*head)(void *ctx, const char *path, unsigned char *buf, size_t n,
	    size_t *got, ps_error *err);
	/* Releases ctx. */
	void (*close)(void *ctx);
} ps_pack_files;

/* The deepest directory nesting and the most entries the directory reader
 * walks (pack_too_deep, pack_too_many_entries). */
#define PS_PACK_MAX_DEPTH 128
#define PS_PACK_MAX_ENTRIES 1000000

/*
 * Opens the pack directory `dir` for reading through `files`.  Every path
 * is opened component by component relative to directory descriptors with
 * O_NOFOLLOW.  Fails (PS_STATUS_FAILED) with `pack_not_directory` when
 * `dir` is not a directory, `file_not_found` or `io_error`.
 */
int ps_pack_files_dir_open(const char *dir, ps_pack_files *files,
    ps_error *err);

/* Calls files->close; a zeroed ps_pack_files is a no-op. */
void ps_pack_files_close(ps_pack_files *files);

/* -------------------------------------------------------------- manifests */

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
} ps_validate_options;

/* Defaults: detect, not strict, no engine version, no prefix. */
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
	ps_strings services;               /* autograph compose services */
	ps_strings tasks;                  /* autograph Taskfile tasks */
} ps_manifest;

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
 * line, UTF-8, ending with a newline.  The caller frees *text.
 */
int ps_manifest_describe(const ps_manifest *manifest, ps_lang lang,
    char **text, ps_error *err);

#ifdef __cplusplus
}
#endif

#endif /* PACKSIGN_H */
