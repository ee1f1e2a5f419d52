/*
 * minisign secret keys: generation, the encrypted (scrypt + XOR, BLAKE2b
 * checksum) and unencrypted file formats (docs/formats/keys.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "keys/keys.h"
#include "util/error.h"

/* Offsets in the 158-byte decoded secret key. */
#define OFF_KDF 2
#define OFF_CHK 4
#define OFF_SALT 6
#define OFF_OPS (OFF_SALT + KEYS_MINISIGN_SALT_LEN)
#define OFF_MEM (OFF_OPS + 8)
#define OFF_KEYID (OFF_MEM + 8)
#define OFF_SK (OFF_KEYID + PS_KEY_ID_LEN)
#define OFF_SUM (OFF_SK + KEYS_ED25519_SECRET_LEN)

#define OPSLIMIT_MAX crypto_pwhash_scryptsalsa208sha256_OPSLIMIT_SENSITIVE
#define MEMLIMIT_MAX crypto_pwhash_scryptsalsa208sha256_MEMLIMIT_SENSITIVE

static int
oom(ps_error *err)
{
	return util_fail_oom(err, "");
}

static ps_seckey *
seckey_alloc(void)
{
	if (sodium_init() < 0)
		return NULL;
	return sodium_malloc(sizeof(ps_seckey));
}

void
ps_seckey_free(ps_seckey *key)
{
	if (key != NULL)
		sodium_free(key);
}

const unsigned char *
ps_seckey_key_id(const ps_seckey *key)
{
	return key->key_id;
}

int
keys_seckey_from_seed(const unsigned char seed[KEYS_ED25519_SEED_LEN],
    const unsigned char id[PS_KEY_ID_LEN], ps_seckey **out, ps_error *err)
{
	unsigned char pk[PS_ED25519_PUBLIC_LEN];

	*out = seckey_alloc();
	if (*out == NULL)
		return oom(err);
	crypto_sign_seed_keypair(pk, (*out)->sk, seed);
	memcpy((*out)->key_id, id, PS_KEY_ID_LEN);
	return 0;
}

int
ps_seckey_generate(ps_seckey **out, ps_error *err)
{
	unsigned char pk[PS_ED25519_PUBLIC_LEN];

	*out = seckey_alloc();
	if (*out == NULL)
		return oom(err);
	crypto_sign_keypair(pk, (*out)->sk);
	randombytes_buf((*out)->key_id, PS_KEY_ID_LEN);
	return 0;
}

int
ps_seckey_public(const ps_seckey *key, ps_pubkey **out, ps_error *err)
{
	if (ps_pubkey_new(out, err) != 0)
		return -1;
	(*out)->source = PS_KEY_SOURCE_MINISIGN;
	memcpy((*out)->key_id, key->key_id, PS_KEY_ID_LEN);
	crypto_sign_ed25519_sk_to_pk((*out)->key, key->sk);
	return 0;
}

static void
store_le64(unsigned char *p, unsigned long long v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static unsigned long long
load_le64(const unsigned char *p)
{
	unsigned long long v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/* BLAKE2b-256("Ed" || key id || secret key), as minisign computes it. */
static void
checksum(const unsigned char *raw, unsigned char out[KEYS_MINISIGN_CHECKSUM_LEN])
{
	crypto_generichash_state st;

	crypto_generichash_init(&st, NULL, 0, KEYS_MINISIGN_CHECKSUM_LEN);
	crypto_generichash_update(&st, raw, 2);
	crypto_generichash_update(&st, raw + OFF_KEYID, PS_KEY_ID_LEN);
	crypto_generichash_update(&st, raw + OFF_SK, KEYS_ED25519_SECRET_LEN);
	crypto_generichash_final(&st, out, KEYS_MINISIGN_CHECKSUM_LEN);
	sodium_memzero(&st, sizeof(st));
}

/* XORs the key id, secret key and checksum with the scrypt stream. */
static int
kdf_xor(unsigned char *raw, const ps_secret *passphrase)
{
	unsigned char *stream = sodium_malloc(KEYS_MINISIGN_ENCRYPTED_LEN);
	size_t i;

	if (stream == NULL)
		return -1;
	if (crypto_pwhash_scryptsalsa208sha256(stream,
	    KEYS_MINISIGN_ENCRYPTED_LEN, (const char *)ps_secret_bytes(passphrase),
	    ps_secret_len(passphrase), raw + OFF_SALT,
	    load_le64(raw + OFF_OPS), (size_t)load_le64(raw + OFF_MEM)) != 0) {
		sodium_free(stream);
		return -1;
	}
	for (i = 0; i < KEYS_MINISIGN_ENCRYPTED_LEN; i++)
		raw[OFF_KEYID + i] ^= stream[i];
	sodium_free(stream);
	return 0;
}

/* Decodes the base64 line into `raw` (KEYS_MINISIGN_SECKEY_LEN bytes). */
static int
decode_seckey(const unsigned char *text, size_t len, const char *name,
    unsigned char *raw, ps_error *err)
{
	keys_lines lines;
	char found[32];
	size_t got;
	int rc;

	if (memchr(text, '\0', len) != NULL)
		return util_fail(err, "key_malformed", name,
		    "a key file is text; found a NUL byte");
	if (keys_split_file((const char *)text, len, name, &lines, err) != 0)
		return -1;
	rc = keys_base64_exact(lines.line, lines.line_len, raw,
	    KEYS_MINISIGN_SECKEY_LEN, &got, 1);
	if (rc == -1)
		return util_fail(err, "key_bad_base64", name,
		    "the secret key line is not valid base64");
	if (rc == -2 && got == KEYS_MINISIGN_PUBKEY_LEN)
		return util_fail(err, "key_malformed", name,
		    "this is a public key; a secret key was expected");
	if (rc == -2) {
		snprintf(found, sizeof(found), "%zu bytes", got);
		util_fail(err, "key_malformed", name,
		    "checked the decoded secret key length");
		return util_error_expect(err, "158 bytes", found);
	}
	return 0;
}

static int
all_zero(const unsigned char *p, size_t n)
{
	unsigned char acc = 0;

	while (n-- > 0)
		acc |= *p++;
	return acc == 0;
}

static int
check_algorithms(const unsigned char *raw, const char *name,
    ps_seckey_info *info, ps_error *err)
{
	if (memcmp(raw, "Ed", 2) != 0)
		return util_fail(err, "key_unsupported_algorithm", name,
		    "the signature algorithm is not \"Ed\" (ed25519)");
	if (memcmp(raw + OFF_CHK, "B2", 2) != 0)
		return util_fail(err, "key_unsupported_algorithm", name,
		    "the checksum algorithm is not \"B2\" (BLAKE2b-256)");
	if (memcmp(raw + OFF_KDF, "Sc", 2) == 0)
		info->encrypted = 1;
	else if (raw[OFF_KDF] == 0 && raw[OFF_KDF + 1] == 0)
		info->encrypted = 0;
	else
		return util_fail(err, "key_unsupported_kdf", name, "the key "
		    "derivation function is neither \"Sc\" (scrypt) nor none");
	info->opslimit = load_le64(raw + OFF_OPS);
	info->memlimit = load_le64(raw + OFF_MEM);
	if (!info->encrypted && !all_zero(raw + OFF_SALT, OFF_KEYID - OFF_SALT))
		return util_fail(err, "key_malformed", name, "an unencrypted key "
		    "has a salt or scrypt limits; minisign writes zeros there");
	if (info->encrypted && (info->opslimit == 0 || info->memlimit == 0 ||
	    info->opslimit > OPSLIMIT_MAX || info->memlimit > MEMLIMIT_MAX))
		return util_fail(err, "key_kdf_limits", name, "scrypt limits "
		    "opslimit %llu, memlimit %llu are outside 1..%llu, 1..%llu "
		    "(minisign's own limits)", info->opslimit, info->memlimit,
		    (unsigned long long)OPSLIMIT_MAX,
		    (unsigned long long)MEMLIMIT_MAX);
	return 0;
}

int
ps_seckey_inspect(const unsigned char *text, size_t len, const char *name,
    ps_seckey_info *info, ps_error *err)
{
	unsigned char *raw = sodium_malloc(KEYS_MINISIGN_SECKEY_LEN);
	int rc = -1;

	memset(info, 0, sizeof(*info));
	if (raw == NULL)
		return oom(err);
	if (decode_seckey(text, len, name, raw, err) == 0)
		rc = check_algorithms(raw, name, info, err);
	sodium_free(raw);
	return rc;
}

static int
is_zero(const unsigned char *p, size_t n)
{
	return sodium_is_zero(p, n) == 1;
}

/* 1 when the stored public half is the one the seed derives. */
static int
seed_matches(const unsigned char sk[KEYS_ED25519_SECRET_LEN])
{
	unsigned char pk[PS_ED25519_PUBLIC_LEN], *derived;
	int same;

	derived = sodium_malloc(KEYS_ED25519_SECRET_LEN);
	if (derived == NULL)
		return -1;
	crypto_sign_seed_keypair(pk, derived, sk);
	same = memcmp(pk, sk + KEYS_ED25519_SEED_LEN, sizeof(pk)) == 0;
	sodium_free(derived);
	return same;
}

/* Checksum, and the public half against the seed. */
static int
check_integrity(const unsigned char *raw, int encrypted, const char *name,
    ps_error *err)
{
	unsigned char sum[KEYS_MINISIGN_CHECKSUM_LEN];

	checksum(raw, sum);
	/* minisign -W writes an all-zero checksum for unencrypted keys. */
	if (sodium_memcmp(sum, raw + OFF_SUM, sizeof(sum)) != 0 &&
	    (encrypted || !is_zero(raw + OFF_SUM, KEYS_MINISIGN_CHECKSUM_LEN))) {
		sodium_memzero(sum, sizeof(sum));
		if (encrypted)
			return util_fail(err, "wrong_passphrase", name, "the "
			    "checksum does not match after decryption: wrong "
			    "passphrase");
		return util_fail(err, "key_corrupt", name,
		    "the secret key checksum does not match");
	}
	sodium_memzero(sum, sizeof(sum));
	if (seed_matches(raw + OFF_SK) != 1)
		return util_fail(err, "key_corrupt", name, "the secret key's "
		    "public half does not match its seed");
	return 0;
}

static int
decrypt(unsigned char *raw, const ps_seckey_info *info,
    const ps_secret *passphrase, const char *name, ps_error *err)
{
	if (!info->encrypted)
		return 0;
	if (passphrase == NULL)
		return util_fail(err, "passphrase_required", name,
		    "the secret key is encrypted and no passphrase was given");
	if (kdf_xor(raw, passphrase) != 0)
		return util_fail(err, "out_of_memory", name, "scrypt could not "
		    "run with memlimit %llu", info->memlimit);
	return 0;
}

int
ps_seckey_parse(const unsigned char *text, size_t len, const char *name,
    const ps_secret *passphrase, ps_seckey **out, ps_error *err)
{
	unsigned char *raw = sodium_malloc(KEYS_MINISIGN_SECKEY_LEN);
	ps_seckey_info info;
	int rc = -1;

	*out = NULL;
	if (raw == NULL)
		return oom(err);
	if (decode_seckey(text, len, name, raw, err) == 0 &&
	    check_algorithms(raw, name, &info, err) == 0 &&
	    decrypt(raw, &info, passphrase, name, err) == 0 &&
	    check_integrity(raw, info.encrypted, name, err) == 0) {
		*out = seckey_alloc();
		if (*out != NULL) {
			memcpy((*out)->key_id, raw + OFF_KEYID, PS_KEY_ID_LEN);
			memcpy((*out)->sk, raw + OFF_SK, KEYS_ED25519_SECRET_LEN);
			rc = 0;
		} else {
			oom(err);
		}
	}
	sodium_free(raw);
	return rc;
}

static void
kdf_limits(ps_kdf_level level, unsigned long long *ops,
    unsigned long long *mem)
{
	if (level == PS_KDF_INTERACTIVE) {
		*ops = crypto_pwhash_scryptsalsa208sha256_OPSLIMIT_INTERACTIVE;
		*mem = crypto_pwhash_scryptsalsa208sha256_MEMLIMIT_INTERACTIVE;
	} else {
		*ops = OPSLIMIT_MAX;
		*mem = MEMLIMIT_MAX;
	}
}

/* The 158 bytes, encrypted when `passphrase` is not NULL. */
static int
build_raw(const ps_seckey *key, const ps_secret *passphrase,
    ps_kdf_level level, unsigned char *raw)
{
	unsigned long long ops = 0, mem = 0;

	memset(raw, 0, KEYS_MINISIGN_SECKEY_LEN);
	memcpy(raw, "Ed", 2);
	memcpy(raw + OFF_CHK, "B2", 2);
	if (passphrase != NULL) {
		memcpy(raw + OFF_KDF, "Sc", 2);
		randombytes_buf(raw + OFF_SALT, KEYS_MINISIGN_SALT_LEN);
		kdf_limits(level, &ops, &mem);
	}
	store_le64(raw + OFF_OPS, ops);
	store_le64(raw + OFF_MEM, mem);
	memcpy(raw + OFF_KEYID, key->key_id, PS_KEY_ID_LEN);
	memcpy(raw + OFF_SK, key->sk, KEYS_ED25519_SECRET_LEN);
	checksum(raw, raw + OFF_SUM);
	return passphrase != NULL ? kdf_xor(raw, passphrase) : 0;
}

static int
encode_file(const unsigned char *raw, int encrypted, ps_secret **out,
    ps_error *err)
{
	static const char enc[] = KEYS_COMMENT_PREFIX
	    "packsign encrypted secret key\n";
	static const char plain[] = KEYS_COMMENT_PREFIX
	    "packsign unencrypted secret key\n";
	const char *comment = encrypted ? enc : plain;
	size_t clen = strlen(comment), b64 = sodium_base64_ENCODED_LEN(
	    KEYS_MINISIGN_SECKEY_LEN, sodium_base64_VARIANT_ORIGINAL);
	char *text;

	*out = ps_secret_new(clen + b64 + 1);
	if (*out == NULL)
		return oom(err);
	text = (char *)ps_secret_data(*out);
	memcpy(text, comment, clen);
	sodium_bin2base64(text + clen, b64, raw, KEYS_MINISIGN_SECKEY_LEN,
	    sodium_base64_VARIANT_ORIGINAL);
	clen += strlen(text + clen);
	text[clen++] = '\n';
	return ps_secret_set_len(*out, clen);
}

int
ps_seckey_format(const ps_seckey *key, const ps_secret *passphrase,
    ps_kdf_level level, ps_secret **out, ps_error *err)
{
	unsigned char *raw = sodium_malloc(KEYS_MINISIGN_SECKEY_LEN);
	int rc;

	*out = NULL;
	if (raw == NULL)
		return oom(err);
	if (passphrase != NULL && ps_secret_len(passphrase) == 0) {
		sodium_free(raw);
		return util_fail(err, "passphrase_invalid", "",
		    "the passphrase is empty");
	}
	if (build_raw(key, passphrase, level, raw) != 0) {
		sodium_free(raw);
		return util_fail(err, "out_of_memory", "",
		    "scrypt could not run");
	}
	rc = encode_file(raw, passphrase != NULL, out, err);
	sodium_free(raw);
	return rc;
}
