/* Internal header of diff/: one side of a comparison.
 *
 * What a version of a pack is and may do, and who vouched for it: its
 * manifest model, every file with its digest, its signers and source when
 * it was verified or installed, and the bytes of its prompt files (bounded)
 * for their text diffs.  diff/side.c builds one from an archive or a
 * directory; install/ builds one from a receipt and its tree with the
 * setters below, since diff/ does not read the data directory.
 */
#ifndef DIFF_SIDE_H
#define DIFF_SIDE_H

#include <stddef.h>

#include "packsign.h"
#include "sign/statement.h"

/* A prompt file's bytes are kept for its text diff up to this size, and
 * all of one side's up to the total; beyond, the change is reported
 * without a text diff. */
#define DIFF_TEXT_FILE_MAX (256 * 1024)
#define DIFF_TEXT_TOTAL_MAX (4 * 1024 * 1024)
/* A text diff costs up to the product of the two files' lines: past
 * this many lines a side, a file is compared by digest only.  With the
 * bounds above, one comparison's text diffs take seconds at worst (16
 * files of 5,000 lines each side), not minutes. */
#define DIFF_TEXT_LINES_MAX 5000

typedef struct diff_signer {
	char *identity;
	char *fingerprint;
	int first_party;            /* in the policy the side was judged by */
} diff_signer;

typedef struct diff_text {
	char *path;
	char *data;                 /* NULL when not kept (too large) */
	size_t len;
} diff_text;

struct ps_diff_side {
	int trusted;                /* signers and source are known */
	int borrowed;               /* manifest and digest are the caller's */
	ps_manifest *manifest;
	ps_digest *digest;          /* every entry, every file's SHA-256 */
	diff_signer *signers;
	size_t signer_count;
	int identities_bound;       /* a policy file bound the signers' keys
	                             * to their identities (not -p) */
	int has_source;
	char *repository, *commit;
	diff_text *texts;           /* by path */
	size_t text_count;
	size_t text_bytes;
};

int diff_side_new(ps_diff_side **out, ps_error *err);

/* An archive side whose bytes a caller hands over (install/'s download
 * of an index entry): the signature on `sig_fd`, the archive through
 * `acquire` (verify_stream.acquire), and `check` (may be NULL) run on the
 * verified statement and the verification so far before a byte of the
 * archive is parsed; verified once, the side built in the same pass. */
typedef struct diff_source {
	void *ctx;
	int sig_fd;
	int (*acquire)(void *ctx, const sign_statement *st, int *fd,
	    const unsigned char **sha256, ps_error *err);
	int (*check)(void *ctx, const sign_statement *st,
	    const ps_verify_result *r, ps_error *err);
} diff_source;

/* ps_diff_side_open() of such an archive; `label` names it (its URL,
 * ending in its file name, which says how it is read). */
int diff_side_open_source(const char *label, const ps_diff_options *o,
    const diff_source *src, ps_diff_side **out, ps_error *err);

/* Takes ownership of `manifest` and `digest` (freed with the side). */
void diff_side_take(ps_diff_side *s, ps_manifest *manifest, ps_digest *digest);

/* A counted signer; `policy` (may be NULL) says whether it is first_party. */
int diff_side_add_signer(ps_diff_side *s, const char *identity,
    const char *fingerprint, const ps_trust *policy, ps_error *err);

/* The recorded source (repository NULL: none recorded). */
int diff_side_set_source(ps_diff_side *s, const char *repository,
    const char *commit, ps_error *err);

/* Keeps `len` bytes of the prompt file `path` (copied), or only its name
 * when the bounds above are reached. */
int diff_side_add_text(ps_diff_side *s, const char *path, const void *data,
    size_t len, ps_error *err);

/* Keeps the bytes of every prompt file of the side's manifest, read
 * through `files` (a file over DIFF_TEXT_FILE_MAX by its name only). */
int diff_side_read_texts(ps_diff_side *s, const ps_pack_files *files,
    ps_error *err);

/* 1 when `path` is one of the side manifest's prompt files. */
int diff_side_is_prompt(const ps_diff_side *s, const char *path);

/* The kept text of `path`, or NULL. */
const diff_text *diff_side_text(const ps_diff_side *s, const char *path);

/* Sorts what the setters added; the side is then read only. */
void diff_side_seal(ps_diff_side *s);

#endif
