/* Internal header of sigstore/: checkpoints, C2SP signed notes.
 *
 * A checkpoint (C2SP tlog-checkpoint) is the note text "ORIGIN\nSIZE\n
 * ROOTHASH\n[EXTENSION LINES]" followed by a blank line and signature
 * lines "— NAME BASE64(KEYHINT[4] || SIGNATURE)\n" (C2SP signed-note).
 * docs/formats/sigstore.md, section 4.3.
 */
#ifndef SIGSTORE_SIGNEDNOTE_H
#define SIGSTORE_SIGNEDNOTE_H

#include <stddef.h>
#include <stdint.h>

#include "packsign.h"
#include "sigstore/trustroot.h"

#define SIGSTORE_NOTE_MAX_SIGNATURES 64
#define SIGSTORE_ORIGIN_MAX 256

typedef struct sigstore_checkpoint {
	char origin[SIGSTORE_ORIGIN_MAX];
	uint64_t size;
	unsigned char root_hash[32];
} sigstore_checkpoint;

/* The 4-byte key hint by which `log`'s signature lines are found: the
 * trusted root's checkpointKeyId when it has one, else as C2SP and
 * rekor-tiles derive it from the key and the log's name. */
int sigstore_note_key_hint(const sigstore_log *log, unsigned char hint[4]);

/*
 * Verifies the signed note `text` with `log`'s key and reads its
 * checkpoint.  The signature lines named after the log (its origin) with
 * its key hint must all verify, and there must be one; every other line
 * (witnesses' cosignatures) is ignored.  Only then is the note text read:
 * its origin must be the log's (Rekor v1: "NAME - TREEID", `rekor_v1`),
 * then the tree size and the root hash.  Codes (exit 1):
 * tlog_checkpoint_malformed, tlog_checkpoint_signature,
 * tlog_checkpoint_origin.  `subject` names the entry in errors.
 */
int sigstore_note_verify(const char *text, const sigstore_log *log,
    int rekor_v1, const char *subject, sigstore_checkpoint *out,
    ps_error *err);

#endif
