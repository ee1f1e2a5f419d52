/*
 * Public keys: minisign/signify files and base64 lines, OpenSSH
 * "ssh-ed25519" lines, key ids and fingerprints (docs/formats/keys.md);
 * Ed25519 and ECDSA P-256.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "keys/keys.h"
#include "util/error.h"
#include "util/sha256.h"


int
ps_pubkey_new(ps_pubkey **out, ps_error *err)
{
	*out = calloc(1, sizeof(**out));
	if (*out == NULL)
		return util_fail_oom(err, "");
	return 0;
}

void
ps_pubkey_free(ps_pubkey *key)
{
	if (key == NULL)
		return;
	free(key->identity);
	free(key);
}

int
ps_pubkey_copy(const ps_pubkey *key, ps_pubkey **out, ps_error *err)
{
	if (ps_pubkey_new(out, err) != 0)
		return -1;
	**out = *key;
	(*out)->identity = NULL;
	if (ps_pubkey_set_identity(*out, key->identity, err) != 0) {
		ps_pubkey_free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

int
ps_pubkey_equal(const ps_pubkey *a, const ps_pubkey *b)
{
	if (a->alg != b->alg)
		return 0;
	if (a->alg == PS_KEY_ECDSA_P256)
		return memcmp(a->ecdsa_point, b->ecdsa_point,
		    sizeof(a->ecdsa_point)) == 0;
	return memcmp(a->key, b->key, sizeof(a->key)) == 0;
}

const char *
ps_key_algorithm_name(ps_key_algorithm alg)
{
	switch (alg) {
	case PS_KEY_ED25519:
		return "ed25519";
	case PS_KEY_ECDSA_P256:
		return "ecdsa-p256";
	}
	return "unknown";
}

int
keys_refuse_ecdsa_form(const char *form, ps_error *err)
{
	return util_fail(err, "key_unsupported_algorithm", "", "an ECDSA P-256 "
	    "key has no %s form; it is written only as PEM", form);
}

int
ps_identity_valid(const char *identity)
{
	size_t len = strlen(identity);

	if (len == 0 || len > PS_IDENTITY_MAX)
		return 0;
	return strspn(identity, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._@+:/-") == len;
}

int
ps_pubkey_set_identity(ps_pubkey *key, const char *identity, ps_error *err)
{
	char *copy = NULL;

	if (identity != NULL) {
		if (!ps_identity_valid(identity))
			return util_fail(err, "identity_invalid", identity,
			    "an identity is 1 to %d characters from "
			    "A-Z a-z 0-9 . _ @ + : / -", PS_IDENTITY_MAX);
		copy = strdup(identity);
		if (copy == NULL)
			return util_fail_oom(err, "");
	}
	free(key->identity);
	key->identity = copy;
	return 0;
}

const char *
ps_key_source_name(ps_key_source source)
{
	switch (source) {
	case PS_KEY_SOURCE_MINISIGN:
		return "minisign";
	case PS_KEY_SOURCE_SSH:
		return "ssh";
	case PS_KEY_SOURCE_PEM:
		return "pem";
	}
	return "unknown";
}

void
ps_key_id_hex(const unsigned char id[PS_KEY_ID_LEN],
    char hex[PS_KEY_ID_HEX_LEN + 1])
{
	uint64_t v = 0;
	int i;

	/* minisign prints the id as a little-endian u64. */
	for (i = PS_KEY_ID_LEN - 1; i >= 0; i--)
		v = (v << 8) | id[i];
	snprintf(hex, PS_KEY_ID_HEX_LEN + 1, "%016" PRIX64, v);
}

void
keys_ssh_wire(const unsigned char pk[PS_ED25519_PUBLIC_LEN],
    unsigned char out[KEYS_SSH_WIRE_LEN])
{
	static const unsigned char head[] = {
		0, 0, 0, 11, 's', 's', 'h', '-', 'e', 'd', '2', '5', '5', '1',
		'9', 0, 0, 0, 32
	};

	memcpy(out, head, sizeof(head));
	memcpy(out + sizeof(head), pk, PS_ED25519_PUBLIC_LEN);
}

int
keys_derived_id(const unsigned char pk[PS_ED25519_PUBLIC_LEN],
    unsigned char id[PS_KEY_ID_LEN])
{
	unsigned char wire[KEYS_SSH_WIRE_LEN], digest[PS_SHA256_LEN];

	keys_ssh_wire(pk, wire);
	if (util_sha256_buffer(wire, sizeof(wire), digest) != 0)
		return -1;
	memcpy(id, digest, PS_KEY_ID_LEN);
	return 0;
}

/* SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING 04.. } */
static const unsigned char spki_head[KEYS_ECDSA_SPKI_HEAD_LEN] = {
	0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02,
	0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03,
	0x42, 0x00
};

void
keys_ecdsa_spki(const unsigned char point[PS_ECDSA_P256_PUBLIC_LEN],
    unsigned char out[KEYS_ECDSA_SPKI_LEN])
{
	memcpy(out, spki_head, sizeof(spki_head));
	memcpy(out + sizeof(spki_head), point, PS_ECDSA_P256_PUBLIC_LEN);
}

int
ps_pubkey_fingerprint(const ps_pubkey *key, char out[PS_FINGERPRINT_MAX])
{
	unsigned char wire[KEYS_SSH_WIRE_LEN], digest[PS_SHA256_LEN];
	unsigned char der[KEYS_ECDSA_SPKI_LEN];
	int rc;

	out[0] = '\0';
	if (key->alg == PS_KEY_ECDSA_P256) {
		keys_ecdsa_spki(key->ecdsa_point, der);
		rc = util_sha256_buffer(der, sizeof(der), digest);
	} else {
		keys_ssh_wire(key->key, wire);
		rc = util_sha256_buffer(wire, sizeof(wire), digest);
	}
	if (rc != 0)
		return -1;
	memcpy(out, "SHA256:", 7);
	sodium_bin2base64(out + 7, PS_FINGERPRINT_MAX - 7, digest,
	    sizeof(digest), sodium_base64_VARIANT_ORIGINAL_NO_PADDING);
	return 0;
}

/* Decodes into `tmp` (cap bytes); *got what it decoded. */
static int
decode_exact(const char *b64, size_t b64_len, unsigned char *tmp, size_t cap,
    unsigned char *bin, size_t want, size_t *got)
{
	size_t len = 0;

	if (sodium_base642bin(tmp, cap, b64, b64_len, NULL, &len, NULL,
	    sodium_base64_VARIANT_ORIGINAL) != 0)
		return -1;
	*got = len;
	if (len != want)
		return -2;
	memcpy(bin, tmp, want);
	return 0;
}

/* Bytes on the stack for a text that decodes to at most `want` bytes. */
#define PUBLIC_DECODE_MAX 128

int
keys_base64_exact(const char *b64, size_t b64_len, unsigned char *bin,
    size_t want, size_t *got, int secret)
{
	unsigned char small[PUBLIC_DECODE_MAX], *tmp;
	size_t cap = b64_len / 4 * 3 + 3;
	int rc;

	*got = 0;
	if (sodium_init() < 0)
		return -1;
	/*
	 * A public key file may hold a secret key by mistake: a text longer
	 * or shorter than padded base64 of `want` bytes, 4 * ceil(want / 3)
	 * characters, goes to secure memory too.  One of that length holds
	 * at most `want` bytes of public key, which need no mlock'd page
	 * (10 system calls of a small pack's verify).
	 */
	if (!secret && want <= PUBLIC_DECODE_MAX - 3 &&
	    b64_len == (want + 2) / 3 * 4) {
		rc = decode_exact(b64, b64_len, small, sizeof(small), bin, want, got);
		sodium_memzero(small, sizeof(small));
		return rc;
	}
	if ((tmp = sodium_malloc(cap)) == NULL)
		return -1;
	rc = decode_exact(b64, b64_len, tmp, cap, bin, want, got);
	sodium_free(tmp);
	return rc;
}
