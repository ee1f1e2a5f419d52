/* Internal header of sign/: DSSE envelopes.
 *
 * DSSE v1 envelopes signed with Ed25519 (docs/formats/signature.md);
 * verified with Ed25519 or ECDSA P-256 keys.
 *
 * An envelope is opaque: its payload can be read only through
 * sign_dsse_verify(), which hands it out after a signature verified over
 * the pre-authentication encoding, so callers parse exactly the bytes that
 * were authenticated.  Key ids are unauthenticated hints: they decide
 * which checks sign_dsse_match() makes first and which it skips, never
 * that an entry counts.
 */
#ifndef SIGN_DSSE_H
#define SIGN_DSSE_H

#include <stddef.h>

#include "packsign.h"

#define SIGN_DSSE_MAX_BYTES (4 * 1024 * 1024)   /* whole envelope */
#define SIGN_DSSE_MAX_SIGNATURES 64
#define SIGN_DSSE_MAX_KEYID 256                 /* bytes */
#define SIGN_DSSE_MAX_PAYLOAD_TYPE 256          /* bytes */
#define SIGN_DSSE_MAX_SIG 1024                  /* decoded signature bytes */
#define SIGN_DSSE_PUBLIC_KEY_LEN 32             /* Ed25519 */
#define SIGN_DSSE_SECRET_KEY_LEN 64             /* libsodium: seed || public */
#define SIGN_DSSE_SIG_LEN 64                    /* Ed25519 */

typedef struct sign_dsse_envelope sign_dsse_envelope;

/*
 * The outcome of verifying an envelope with one public key.  `verified[i]`
 * is 1 when signature entry i verifies.  `payload` and `payload_type`
 * point into the envelope (valid while it lives) and are set only when at
 * least one entry verified; otherwise they are NULL.
 */
typedef struct sign_dsse_verification {
	size_t signature_count;
	size_t verified_count;
	unsigned char verified[SIGN_DSSE_MAX_SIGNATURES];
	const unsigned char *payload;
	size_t payload_len;
	const char *payload_type;
} sign_dsse_verification;

/*
 * PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body,
 * LEN in ASCII decimal.  `*out` is malloc'ed; the caller frees it.
 */
int sign_dsse_pae(const char *payload_type, const unsigned char *payload,
    size_t payload_len, unsigned char **out, size_t *out_len, ps_error *err);

/* An unsigned envelope holding a copy of the payload. */
int sign_dsse_new(const char *payload_type, const unsigned char *payload,
    size_t payload_len, sign_dsse_envelope **out, ps_error *err);
void sign_dsse_free(sign_dsse_envelope *env);

/*
 * Signs PAE(payloadType, payload) with an Ed25519 secret key and appends
 * the signature with `keyid` (printable ASCII, may be empty).  The payload
 * is never re-encoded, so co-signing a parsed envelope keeps its bytes.
 * Refuses a key that already signed (already_signed) and a 65th signature.
 */
int sign_dsse_sign(sign_dsse_envelope *env,
    const unsigned char secret_key[SIGN_DSSE_SECRET_KEY_LEN], const char *keyid,
    ps_error *err);

/*
 * Deterministic JSON: {"payload":...,"payloadType":...,"signatures":
 * [{"keyid":...,"sig":...}]} with no whitespace, standard padded base64,
 * non-ASCII escaped, then one LF.  `*out` is malloc'ed.
 */
int sign_dsse_serialize(const sign_dsse_envelope *env, char **out,
    size_t *out_len, ps_error *err);

struct json_t;
/* `root` (consumed) as one line of deterministic JSON: sorted keys, no
 * whitespace, non-ASCII escaped, then one LF; what envelopes and bundles
 * are written as.  *out is malloc'ed. */
int sign_json_line(struct json_t *root, char **out, size_t *out_len,
    ps_error *err);

/*
 * Parses an envelope of `len` bytes (at most SIGN_DSSE_MAX_BYTES).  Refuses
 * (envelope_malformed) invalid JSON, duplicate keys, missing or mistyped
 * fields, bad base64 in either alphabet, and an empty or over-long
 * signature list; ignores unknown fields.  `label` names the input in
 * errors.
 */
int sign_dsse_parse(const void *bytes, size_t len, const char *label,
    sign_dsse_envelope **out, ps_error *err);
/* The same rules for an envelope already read as JSON (a bundle's
 * dsseEnvelope, whose size its reader bounded on the bytes as given):
 * never re-encoded, so that what is checked is what was read. */
int sign_dsse_from_json(struct json_t *root, const char *label,
    sign_dsse_envelope **out, ps_error *err);
/* Reads `fd` to its end into *bytes (malloc'ed), refusing more than
 * SIGN_DSSE_MAX_BYTES (envelope_too_large): an envelope's bytes before
 * they are parsed. */
int sign_dsse_read_bytes(int fd, const char *label, unsigned char **bytes,
    size_t *len, ps_error *err);
/* Reads `fd` to its end, refusing more than SIGN_DSSE_MAX_BYTES, and parses. */
int sign_dsse_read_fd(int fd, const char *label, sign_dsse_envelope **out,
    ps_error *err);

/*
 * For Sigstore bundles (sign/bundle.c), which carry one signature each:
 * sign_dsse_single() copies the payload and signature entry `i` into a new
 * envelope; sign_dsse_merge() appends the entries of `from` to `into` when
 * both carry byte-identical payloads and payload types, else refuses
 * (bundle_mismatch, `label` naming `from`), and refuses a 65th entry
 * (too_many_signatures).  Neither verifies anything.
 */
int sign_dsse_single(const sign_dsse_envelope *env, size_t i,
    sign_dsse_envelope **out, ps_error *err);
int sign_dsse_merge(sign_dsse_envelope *into, const sign_dsse_envelope *from,
    const char *label, ps_error *err);

size_t sign_dsse_signature_count(const sign_dsse_envelope *env);
/* The decoded signature bytes of entry `i` (what a timestamp covers);
 * -1 past the end. */
int sign_dsse_signature_bytes(const sign_dsse_envelope *env, size_t i,
    const unsigned char **sig, size_t *len);
/* The unauthenticated key id of entry `i` ("" when absent); NULL past the end. */
const char *sign_dsse_keyid(const sign_dsse_envelope *env, size_t i);
/* 1 when an entry's key id is `key`'s fingerprint: which keys to try,
 * never a reason to accept one. */
int sign_dsse_keyid_names(const sign_dsse_envelope *env, const ps_pubkey *key);
/* The payload type as written: not authenticated until verified. */
const char *sign_dsse_payload_type(const sign_dsse_envelope *env);

/*
 * 1 when the envelope carries exactly this payload type and these payload
 * bytes, else 0.  A comparison, not a read: co-signing (sign --append)
 * checks that it signs the statement it would have written itself.
 */
int sign_dsse_payload_equal(const sign_dsse_envelope *env, const char *payload_type,
    const unsigned char *payload, size_t payload_len);

/*
 * Checks every signature entry against one public key (one check per
 * entry: verifiers use sign_dsse_match_keys(), which bounds them) over
 * PAE(payloadType, payload) with ps_key_verify_signature(): Ed25519, or
 * ECDSA P-256 over SHA-256 with a strict DER signature.  Fills `out` in
 * every case.  Returns 0 when at least one entry verified, else refuses
 * (signature_invalid) and leaves out->payload NULL.
 */
int sign_dsse_verify(const sign_dsse_envelope *env, const ps_pubkey *key,
    sign_dsse_verification *out, ps_error *err);

/*
 * Which of `n` candidate keys verifies which entry, with a bounded number
 * of *checks* (one entry with one key over the whole PAE, each hashing
 * the payload): at most SIGN_DSSE_EXTRA_CHECKS + n, however the entries
 * are arranged (docs/formats/signature.md, section 2, "What a key id
 * decides"):
 *
 *  1. named: in envelope order, an entry whose keyid is the fingerprint
 *     of keys[k] is checked with keys[k], unless an earlier entry named
 *     it; an entry naming a key that verified an earlier entry is a
 *     DUPLICATE and never checked;
 *  2. search: then, in envelope order, every entry neither verified nor
 *     DUPLICATE is checked with each of keys[0..searched) that has
 *     verified no entry, in order (the pair checked in 1 skipped), until
 *     one verifies it or the checks reach the bound.
 *
 * keys[searched..n) are checked only by name (the index's keys of other
 * roles, which may only explain a refusal).  A key verifies at most one
 * entry, so a legitimate envelope whose entries name their keys costs one
 * check per entry.  A key id only ever chooses which checks are made:
 * an entry is VERIFIED only when a check verified it.  Returns 0 with
 * `out` filled whatever verified (out->verification.payload NULL when
 * nothing did), -1 when the work could not be done (memory, libsodium).
 */
#define SIGN_DSSE_EXTRA_CHECKS 8

typedef enum sign_dsse_outcome {
	SIGN_DSSE_FAILED = 0,      /* checked with its named key, or with
	                            * every key it could be: none verified */
	SIGN_DSSE_VERIFIED = 1,    /* keys[key[i]] verified it */
	SIGN_DSSE_DUPLICATE = 2,   /* names the key that verified entry
	                            * key[i]: not checked */
	SIGN_DSSE_UNCHECKED = 3    /* the bound was reached first */
} sign_dsse_outcome;

typedef struct sign_dsse_match {
	size_t checks;             /* checks made */
	size_t bound;              /* SIGN_DSSE_EXTRA_CHECKS + n */
	sign_dsse_outcome outcome[SIGN_DSSE_MAX_SIGNATURES];
	size_t key[SIGN_DSSE_MAX_SIGNATURES];
	/* verified[i] = outcome VERIFIED; the payload when one is. */
	sign_dsse_verification verification;
} sign_dsse_match;

int sign_dsse_match_keys(const sign_dsse_envelope *env,
    const ps_pubkey *const *keys, size_t n, size_t searched,
    sign_dsse_match *out, ps_error *err);

/*
 * Appends a signature made elsewhere (`sig_len` bytes, 1 to
 * SIGN_DSSE_MAX_SIG) with `keyid` (printable ASCII, may be empty), not
 * checked: the test signer uses it for ECDSA entries, which packsign
 * itself never makes.  Codes invalid_argument, too_many_signatures,
 * out_of_memory.
 */
int sign_dsse_add_signature(sign_dsse_envelope *env, const unsigned char *sig,
    size_t sig_len, const char *keyid, ps_error *err);

/*
 * For a co-signer only: the payload of an in-toto envelope, unverified.
 * The co-signer must check every field it vouches for against the
 * archive before adding its own signature (sign/sign.c does).  Verifiers
 * never use this: they get the payload from sign_dsse_verify().
 */
#define SIGN_DSSE_INTOTO_TYPE "application/vnd.in-toto+json"
int sign_dsse_payload_to_cosign(const sign_dsse_envelope *env,
    const unsigned char **payload, size_t *len);

#endif
