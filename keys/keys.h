/*
 * keys/ internals shared by the key modules and their unit tests.
 * The public interface is the "keys" section of include/packsign.h.
 */
#ifndef PS_KEYS_KEYS_H
#define PS_KEYS_KEYS_H

#include <stddef.h>

#include "packsign.h"

#define PS_ED25519_SEED_LEN 32
#define PS_ED25519_SECRET_LEN 64
/* "Ed" || key id || public key */
#define PS_MINISIGN_PUBKEY_LEN (2 + PS_KEY_ID_LEN + PS_ED25519_PUBLIC_LEN)
/* "Ed" kdf chk salt opslimit memlimit || key id || sk || checksum */
#define PS_MINISIGN_SALT_LEN 32
#define PS_MINISIGN_CHECKSUM_LEN 32
#define PS_MINISIGN_ENCRYPTED_LEN \
	(PS_KEY_ID_LEN + PS_ED25519_SECRET_LEN + PS_MINISIGN_CHECKSUM_LEN)
#define PS_MINISIGN_SECKEY_LEN \
	(6 + PS_MINISIGN_SALT_LEN + 16 + PS_MINISIGN_ENCRYPTED_LEN)
#define PS_COMMENT_PREFIX "untrusted comment: "
#define PS_COMMENT_MAX 1024
/* uint32 11, "ssh-ed25519", uint32 32, key */
#define PS_SSH_WIRE_LEN (4 + 11 + 4 + PS_ED25519_PUBLIC_LEN)

/* Lives in sodium_malloc memory as a whole. */
struct ps_seckey {
	unsigned char key_id[PS_KEY_ID_LEN];
	unsigned char sk[PS_ED25519_SECRET_LEN];   /* seed || public key */
};

/* Reads a regular file of at most `max` bytes into malloc'd memory. */
int ps_key_read_file(const char *path, size_t max, char **data, size_t *len,
    ps_error *err);

/* The OpenSSH wire encoding of an ed25519 public key. */
void ps_key_ssh_wire(const unsigned char pk[PS_ED25519_PUBLIC_LEN],
    unsigned char out[PS_SSH_WIRE_LEN]);

/* Key id for keys that carry none: SHA-256(ssh wire)[0..8]. */
int ps_key_derived_id(const unsigned char pk[PS_ED25519_PUBLIC_LEN],
    unsigned char id[PS_KEY_ID_LEN]);

/* A secret key from a 32-byte seed; the key id is given. */
int ps_seckey_from_seed(const unsigned char seed[PS_ED25519_SEED_LEN],
    const unsigned char id[PS_KEY_ID_LEN], ps_seckey **out, ps_error *err);

/*
 * Strict base64 (standard alphabet, padded) of exactly `want` bytes:
 * 0, -1 when not base64, -2 when of another length (*got says which).
 */
int ps_key_base64_exact(const char *b64, size_t b64_len, unsigned char *bin,
    size_t want, size_t *got);

/* A minisign key file: "untrusted comment: ..." line, base64 line. */
typedef struct ps_key_lines {
	const char *comment;    /* after the prefix, without line end */
	size_t comment_len;
	const char *line;       /* trimmed */
	size_t line_len;
} ps_key_lines;

/* Splits a key file; only blank lines may follow the key line. */
int ps_key_split_file(const char *text, size_t len, const char *name,
    ps_key_lines *lines, ps_error *err);

/* PEM public key (SubjectPublicKeyInfo) parsing, keys/pem.c. */
int ps_pubkey_parse_pem(const char *text, size_t len, const char *name,
    ps_pubkey **out, ps_error *err);

/* "ssh-ed25519 AAAA... comment", keys/pubkey.c. */
int ps_pubkey_parse_ssh(const char *text, size_t len, const char *name,
    ps_pubkey **out, ps_error *err);

#endif
