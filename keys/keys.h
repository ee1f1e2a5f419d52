/* Internal header of keys/: what the key modules share.
 *
 * Shared by the key modules and their unit tests.  The public interface
 * is the "keys" section of include/packsign.h.
 */
#ifndef KEYS_KEYS_H
#define KEYS_KEYS_H

#include <stddef.h>

#include "packsign.h"

#define KEYS_ED25519_SEED_LEN 32
#define KEYS_ED25519_SECRET_LEN 64
/* "Ed" || key id || public key */
#define KEYS_MINISIGN_PUBKEY_LEN (2 + PS_KEY_ID_LEN + PS_ED25519_PUBLIC_LEN)
/* "Ed" kdf chk salt opslimit memlimit || key id || sk || checksum */
#define KEYS_MINISIGN_SALT_LEN 32
#define KEYS_MINISIGN_CHECKSUM_LEN 32
#define KEYS_MINISIGN_ENCRYPTED_LEN \
	(PS_KEY_ID_LEN + KEYS_ED25519_SECRET_LEN + KEYS_MINISIGN_CHECKSUM_LEN)
#define KEYS_MINISIGN_SECKEY_LEN \
	(6 + KEYS_MINISIGN_SALT_LEN + 16 + KEYS_MINISIGN_ENCRYPTED_LEN)
#define KEYS_COMMENT_PREFIX "untrusted comment: "
#define KEYS_COMMENT_MAX 1024
/* uint32 11, "ssh-ed25519", uint32 32, key */
#define KEYS_SSH_WIRE_LEN (4 + 11 + 4 + PS_ED25519_PUBLIC_LEN)

/* Lives in sodium_malloc memory as a whole. */
struct ps_seckey {
	unsigned char key_id[PS_KEY_ID_LEN];
	unsigned char sk[KEYS_ED25519_SECRET_LEN];   /* seed || public key */
};

/* Reads a regular file of at most `max` bytes into malloc'd memory. */
int keys_read_file(const char *path, size_t max, char **data, size_t *len,
    ps_error *err);

/* The OpenSSH wire encoding of an ed25519 public key. */
void keys_ssh_wire(const unsigned char pk[PS_ED25519_PUBLIC_LEN],
    unsigned char out[KEYS_SSH_WIRE_LEN]);

/* Key id for keys that carry none: SHA-256(ssh wire)[0..8]. */
int keys_derived_id(const unsigned char pk[PS_ED25519_PUBLIC_LEN],
    unsigned char id[PS_KEY_ID_LEN]);

/* A secret key from a 32-byte seed; the key id is given. */
int keys_seckey_from_seed(const unsigned char seed[KEYS_ED25519_SEED_LEN],
    const unsigned char id[PS_KEY_ID_LEN], ps_seckey **out, ps_error *err);

/*
 * Strict base64 (standard alphabet, padded) of exactly `want` bytes:
 * 0, -1 when not base64, -2 when of another length (*got says which).
 * Decoded in sodium_malloc memory when `secret`, or when the text is
 * not exactly as long as base64 of `want` bytes (a secret key where a
 * public one belongs); a text of that length decodes to at most `want`
 * bytes, on the stack.
 */
int keys_base64_exact(const char *b64, size_t b64_len, unsigned char *bin,
    size_t want, size_t *got, int secret);

/* A minisign key file: "untrusted comment: ..." line, base64 line. */
typedef struct keys_lines {
	const char *comment;    /* after the prefix, without line end */
	size_t comment_len;
	const char *line;       /* trimmed */
	size_t line_len;
} keys_lines;

/* Splits a key file; only blank lines may follow the key line
 * (keys/keyfile.c). */
int keys_split_file(const char *text, size_t len, const char *name,
    keys_lines *lines, ps_error *err);
/* 1 for a blank: space, tab, CR, LF. */
int keys_is_blank(char c);
/* Trims blanks (space, tab, CR, LF) on both sides of [*start, +*len). */
void keys_trim(const char **start, size_t *len);
/* 1 when the `len` bytes at `text` begin with `prefix`. */
int keys_starts_with(const char *text, size_t len, const char *prefix);

/* ECDSA P-256, keys/ecdsa.c: DER SubjectPublicKeyInfo of a named-curve
 * uncompressed point (the fingerprint's input), and the longest DER
 * signature (SEQUENCE of two 33-byte INTEGERs). */
#define KEYS_ECDSA_SPKI_HEAD_LEN 26
#define KEYS_ECDSA_SPKI_LEN (KEYS_ECDSA_SPKI_HEAD_LEN + PS_ECDSA_P256_PUBLIC_LEN)
#define KEYS_ECDSA_SIG_MAX 72

struct evp_pkey_st;

void keys_ecdsa_spki(const unsigned char point[PS_ECDSA_P256_PUBLIC_LEN],
    unsigned char out[KEYS_ECDSA_SPKI_LEN]);
/* A key from an OpenSSL EC key: refuses curves other than P-256
 * (key_unsupported_algorithm) and invalid points (key_malformed). */
int keys_ecdsa_from_pkey(struct evp_pkey_st *pkey, const char *name,
    ps_pubkey **out, ps_error *err);
int keys_ecdsa_format_pem(const ps_pubkey *key, char **out, ps_error *err);
/* 0 when `sig` (strict DER) verifies over SHA-256(msg), else -1. */
int keys_ecdsa_verify(const ps_pubkey *key, const void *msg, size_t len,
    const unsigned char *sig, size_t sig_len);
/* key_unsupported_algorithm for a form an ECDSA key has not. */
int keys_refuse_ecdsa_form(const char *form, ps_error *err);

/* PEM public key (SubjectPublicKeyInfo) parsing, keys/pem.c. */
int keys_pubkey_parse_pem(const char *text, size_t len, const char *name,
    ps_pubkey **out, ps_error *err);

/* "ssh-ed25519 AAAA... comment", keys/pubkey.c. */
int keys_pubkey_parse_ssh(const char *text, size_t len, const char *name,
    ps_pubkey **out, ps_error *err);

#endif
