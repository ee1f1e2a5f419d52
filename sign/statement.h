/* Internal header of sign/: the in-toto statement.
 *
 * The in-toto Statement v1 packsign signs, with its pack predicate
 * (docs/formats/signature.md).  The builder writes canonical JSON (sorted
 * keys, no whitespace, non-ASCII escaped): the same struct always gives
 * the same bytes.  The parser is strict: unknown statement types,
 * predicate types and predicate fields are refused.
 */
#ifndef SIGN_STATEMENT_H
#define SIGN_STATEMENT_H

#include <stddef.h>
#include <stdint.h>

#include "packsign.h"
#include "sign/dsse.h"

#define SIGN_STATEMENT_TYPE "https://in-toto.io/Statement/v1"
/* Identifiers, not URLs to fetch.  v2 adds the chunk digests
 * (signature.md, section 4.4); v1 is still read and, with
 * --predicate-version 1, written. */
#define SIGN_PREDICATE_TYPE "https://packsign.dev/attestation/pack/v1"
#define SIGN_PREDICATE_TYPE_V2 "https://packsign.dev/attestation/pack/v2"
/* v2: the archive's chunks are 1 MiB (util/chunks.h), at most 16,384 of
 * them: an archive over 16 GiB is signed with v1. */
#define SIGN_CHUNKS_MAX 16384
#define SIGN_INTOTO_PAYLOAD_TYPE "application/vnd.in-toto+json"

#define SIGN_STATEMENT_MAX_ITEMS 10000     /* subjects, prompt files */
#define SIGN_STATEMENT_MAX_STRING 1024     /* id, version, name, versions */
#define SIGN_STATEMENT_MAX_URL 2048
#define SIGN_GIT_COMMIT_MAX_HEX 64

typedef struct sign_statement_file {
	char *path;                          /* subject: the archive's file name */
	unsigned char sha256[PS_SHA256_LEN];
} sign_statement_file;

typedef struct sign_statement {
	sign_statement_file *subjects;
	size_t subject_count;
	ps_format format;
	char *pack_id;
	char *pack_version;
	char *pack_name;                     /* NULL: not recorded */
	int no_tar_digest;                   /* 1: no tar stream (a .zip signed
	                                      * as it is): tarDigest absent */
	unsigned char tar_digest[PS_SHA256_LEN];
	unsigned char tree_digest[PS_SHA256_LEN];
	char *manifest_path;
	unsigned char manifest_sha256[PS_SHA256_LEN];
	sign_statement_file *prompts;          /* kept sorted by path */
	size_t prompt_count;
	/* source: all NULL/0 when the pack was not in a git work tree */
	int has_source;
	char *source_repository;             /* normalised https URL, or NULL */
	char *source_commit;                 /* 40 or 64 lowercase hex */
	char *source_path;                   /* "" at the repository root */
	int source_dirty;
	char *source_manifest_commit;        /* holon: ancestor named by source.ref */
	/* build: absent (no_build 1) when an existing archive was signed as
	 * it is, since packsign did not build it */
	int no_build;
	char *packsign_version;
	int64_t mtime;
	ps_compression compression;
	/* 1 or 2; 2 records the archive's size and the SHA-256 of each of
	 * its 1 MiB chunks (all subjects[0]'s, the only subject) */
	int predicate_version;
	uint64_t archive_size;
	unsigned char (*chunks)[PS_SHA256_LEN];
	size_t chunk_count;
} sign_statement;

int sign_statement_new(sign_statement **out, ps_error *err);
void sign_statement_free(sign_statement *st);

/* Copies `name` and the digest; names must be plain file names. */
int sign_statement_add_subject(sign_statement *st, const char *name,
    const unsigned char sha256[PS_SHA256_LEN], ps_error *err);
/* Copies `path`; the list is sorted when the statement is written. */
int sign_statement_add_prompt(sign_statement *st, const char *path,
    const unsigned char sha256[PS_SHA256_LEN], ps_error *err);
/* Copies format, tar and tree digests, manifest path and hash; a digest
 * without a tar digest (a .zip) sets no_tar_digest. */
int sign_statement_set_digest(sign_statement *st, const ps_digest *digest,
    ps_error *err);

/* Makes the statement a v2 one: the archive's size and its chunk
 * digests (copied; util_chunks_count(size) of them, at most
 * SIGN_CHUNKS_MAX). */
int sign_statement_set_chunks(sign_statement *st, uint64_t size,
    const unsigned char (*chunks)[PS_SHA256_LEN], size_t count,
    ps_error *err);

/* Applies every rule the parser applies (so what is written parses). */
int sign_statement_check(const sign_statement *st, ps_error *err);

/*
 * The statement as canonical JSON (no trailing newline): the payload to
 * sign with payload type SIGN_INTOTO_PAYLOAD_TYPE.  Sorts the prompt list.
 */
int sign_statement_serialize(sign_statement *st, unsigned char **out,
    size_t *out_len, ps_error *err);

/* Strict parser of statement bytes; refuses with statement_invalid. */
int sign_statement_parse(const unsigned char *bytes, size_t len,
    sign_statement **out, ps_error *err);

/*
 * Parses exactly the payload a successful sign_dsse_verify() authenticated,
 * after checking its payload type (payload_type_unknown).
 */
int sign_statement_from_verified(const sign_dsse_verification *verified,
    sign_statement **out, ps_error *err);

/* The subject named `name`, or NULL. */
const sign_statement_file *sign_statement_find_subject(const sign_statement *st,
    const char *name);


#endif
