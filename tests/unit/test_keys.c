/* Unit tests: keys/ (minisign, OpenSSH and PEM key formats, signatures). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <sodium.h>

#include "keys/keys.h"

/* RFC 8032 test 1 public key, with key id bytes 01..08. */
static const char rfc_pub_line[] =
    "RWQBAgMEBQYHCNdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea";
static const char rfc_ssh_line[] = "ssh-ed25519 "
    "AAAAC3NzaC1lZDI1NTE5AAAAINdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea "
    "rfc8032";
/* What `ssh-keygen -lf` prints for that key. */
static const char rfc_fingerprint[] =
    "SHA256:bbXpuKG6zhzdmnxq256TlqzFBzRl2f6OOg722cYNbU8";
/* `minisign -G -W` (0.11): unencrypted, all-zero checksum. */
static const char minisign_w_key[] =
    "untrusted comment: minisign encrypted secret key\n"
    "RWQAAEIyAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
    "zJZrz2BVI7HHlphM1t8w5ggpkpot22SuNwOo0An9v2UmqlnTRf7dRIAkCsA6CdN7nQVMJTUe"
    "QO37Xm/rf5oB/nwZ8kqIBAsyAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n";
static const char minisign_w_pub[] =
    "untrusted comment: minisign public key B1235560CF6B96CC\n"
    "RWTMlmvPYFUjsYAkCsA6CdN7nQVMJTUeQO37Xm/rf5oB/nwZ8kqIBAsy\n";

static int
parse_pub(const char *text, ps_pubkey **key, ps_error *err)
{
	return ps_pubkey_parse(text, strlen(text), "k.pub", key, err);
}

/* Expects `text` refused with `code` and exit class 2. */
static void
pub_refused(const char *text, const char *code)
{
	ps_pubkey *key = NULL;
	ps_error err;

	assert_int_equal(parse_pub(text, &key, &err), -1);
	assert_null(key);
	assert_string_equal(err.code, code);
	assert_int_equal(err.status, PS_STATUS_FAILED);
}

/* base64 of `raw` into a new static buffer-owned string. */
static char *
b64(const unsigned char *raw, size_t len)
{
	size_t size = sodium_base64_ENCODED_LEN(len,
	    sodium_base64_VARIANT_ORIGINAL);
	char *out = malloc(size);

	assert_non_null(out);
	sodium_bin2base64(out, size, raw, len, sodium_base64_VARIANT_ORIGINAL);
	return out;
}

static void
key_id_hex_is_little_endian_uppercase(void **state)
{
	const unsigned char id[8] = { 1, 2, 3, 4, 5, 6, 7, 0xab };
	char hex[PS_KEY_ID_HEX_LEN + 1];

	(void)state;
	ps_key_id_hex(id, hex);
	assert_string_equal(hex, "AB07060504030201");
}

static void
minisign_line_and_ssh_line_agree(void **state)
{
	ps_pubkey *a = NULL, *b = NULL;
	char fp[PS_FINGERPRINT_MAX], hex[PS_KEY_ID_HEX_LEN + 1];
	ps_error err;

	(void)state;
	assert_int_equal(parse_pub(rfc_pub_line, &a, &err), 0);
	assert_int_equal(parse_pub(rfc_ssh_line, &b, &err), 0);
	assert_int_equal(a->source, PS_KEY_SOURCE_MINISIGN);
	assert_int_equal(b->source, PS_KEY_SOURCE_SSH);
	assert_true(ps_pubkey_equal(a, b));
	ps_key_id_hex(a->key_id, hex);
	assert_string_equal(hex, "0807060504030201");
	assert_int_equal(ps_pubkey_fingerprint(a, fp), 0);
	assert_string_equal(fp, rfc_fingerprint);
	assert_null(a->identity);
	assert_null(b->identity);   /* ssh comments are not identities */
	ps_pubkey_free(a);
	ps_pubkey_free(b);
}

static void
minisign_file_identity_from_comment(void **state)
{
	ps_pubkey *key = NULL, *again = NULL;
	char *text = NULL;
	ps_error err;

	(void)state;
	assert_int_equal(parse_pub(rfc_pub_line, &key, &err), 0);
	assert_int_equal(ps_pubkey_set_identity(key, "alice@example", &err), 0);
	assert_int_equal(ps_pubkey_format_minisign(key, &text, &err), 0);
	assert_string_equal(text, "untrusted comment: packsign public key "
	    "0807060504030201 for alice@example\n"
	    "RWQBAgMEBQYHCNdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea\n");
	assert_int_equal(parse_pub(text, &again, &err), 0);
	assert_string_equal(again->identity, "alice@example");
	assert_true(ps_pubkey_equal(key, again));
	free(text);
	ps_pubkey_free(key);
	ps_pubkey_free(again);
	/* Other comments name no identity. */
	assert_int_equal(parse_pub(minisign_w_pub, &key, &err), 0);
	assert_null(key->identity);
	ps_pubkey_free(key);
}

static void
pubkey_parser_errors(void **state)
{
	(void)state;
	/* bad base64 */
	pub_refused("RWQBAgMEBQYHCNdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1E!",
	    "key_bad_base64");
	/* truncated: 39 bytes */
	pub_refused("RWQBAgMEBQYHCNdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3",
	    "key_malformed");
	/* wrong algorithm: "Ex" */
	pub_refused("RXgBAgMEBQYHCNdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea",
	    "key_unsupported_algorithm");
	/* a secret key where a public key belongs */
	pub_refused(minisign_w_key, "key_malformed");
	/* comment names another key id */
	pub_refused("untrusted comment: packsign public key 0000000000000000 "
	    "for bob\n" "RWQBAgMEBQYHCNdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea\n",
	    "key_comment_mismatch");
	/* identity with a space */
	pub_refused("untrusted comment: packsign public key 0807060504030201 "
	    "for bo b\n" "RWQBAgMEBQYHCNdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea\n",
	    "key_malformed");
	/* text after the key line, no key line, two bare lines */
	pub_refused("untrusted comment: x\n"
	    "RWQBAgMEBQYHCNdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea\nmore\n",
	    "key_malformed");
	pub_refused("untrusted comment: x", "key_malformed");
	pub_refused("RWQBAgMEBQYHCNdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea\n"
	    "RWQBAgMEBQYHCNdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea",
	    "key_malformed");
	pub_refused("", "key_malformed");
}

static void
ssh_parser_errors(void **state)
{
	unsigned char wire[KEYS_SSH_WIRE_LEN];
	char line[256], *enc;

	(void)state;
	pub_refused("ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ user",
	    "key_unsupported_algorithm");
	pub_refused("ecdsa-sha2-nistp256 AAAA", "key_unsupported_algorithm");
	pub_refused("ssh-ed25519 AAAA!!!!", "key_bad_base64");
	pub_refused("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINdamAGCsQq31Uv+08lk",
	    "key_malformed");
	pub_refused("ssh-ed25519", "key_malformed");
	/* a blob of the right length that names another type */
	memset(wire, 0x11, sizeof(wire));
	keys_ssh_wire(wire + 19, wire);
	wire[14] = '8';   /* "ssh-ed25518" */
	enc = b64(wire, sizeof(wire));
	snprintf(line, sizeof(line), "ssh-ed25519 %s", enc);
	pub_refused(line, "key_malformed");
	free(enc);
}

static EVP_PKEY *
keygen(const char *type, const char *param)
{
	EVP_PKEY *pkey = param != NULL ?
	    EVP_PKEY_Q_keygen(NULL, NULL, type, param) :
	    EVP_PKEY_Q_keygen(NULL, NULL, type);

	assert_non_null(pkey);
	return pkey;
}

static char *
pem_of(EVP_PKEY *pkey, int private)
{
	BIO *bio = BIO_new(BIO_s_mem());
	char *data, *out;
	long n;

	assert_int_equal(private ? PEM_write_bio_PrivateKey(bio, pkey, NULL,
	    NULL, 0, NULL, NULL) : PEM_write_bio_PUBKEY(bio, pkey), 1);
	n = BIO_get_mem_data(bio, &data);
	out = strndup(data, (size_t)n);
	BIO_free(bio);
	return out;
}

/* A PEM SubjectPublicKeyInfo around DER bytes (64-column lines not
 * needed: OpenSSL reads one long line up to its buffer). */
static char *
pem_wrap(const unsigned char *der, size_t len)
{
	char *enc = b64(der, len), *out = NULL;
	size_t i, n = strlen(enc);
	char *lines = calloc(1, n + n / 64 + 2), *w = lines;

	for (i = 0; i < n; i += 64) {
		memcpy(w, enc + i, n - i < 64 ? n - i : 64);
		w += n - i < 64 ? n - i : 64;
		*w++ = '\n';
	}
	assert_true(asprintf(&out, "-----BEGIN PUBLIC KEY-----\n%s"
	    "-----END PUBLIC KEY-----\n", lines) > 0);
	free(lines);
	free(enc);
	return out;
}

/* The fingerprint OpenSSL's own DER encoding gives. */
static void
openssl_fingerprint(EVP_PKEY *pkey, char fp[PS_FINGERPRINT_MAX])
{
	unsigned char *der = NULL, digest[32];
	int n = i2d_PUBKEY(pkey, &der);

	assert_true(n > 0);
	crypto_hash_sha256(digest, der, (unsigned long long)n);
	memcpy(fp, "SHA256:", 7);
	sodium_bin2base64(fp + 7, PS_FINGERPRINT_MAX - 7, digest, 32,
	    sodium_base64_VARIANT_ORIGINAL_NO_PADDING);
	OPENSSL_free(der);
}

static void
ecdsa_public_keys(void **state)
{
	EVP_PKEY *ec = keygen("EC", "P-256"), *p384 = keygen("EC", "P-384");
	EVP_PKEY *k1 = keygen("EC", "secp256k1");
	char *pem = pem_of(ec, 0), *back = NULL, *text = NULL, *compressed;
	char fp[PS_FINGERPRINT_MAX], want[PS_FINGERPRINT_MAX];
	unsigned char point[65];
	size_t len = 0;
	ps_pubkey *key = NULL, *again = NULL;
	ps_error err;

	(void)state;
	assert_int_equal(parse_pub(pem, &key, &err), 0);
	assert_int_equal(key->alg, PS_KEY_ECDSA_P256);
	assert_int_equal(key->source, PS_KEY_SOURCE_PEM);
	assert_int_equal(EVP_PKEY_get_octet_string_param(ec,
	    OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, point, sizeof(point), &len), 1);
	assert_int_equal(len, 65);
	assert_memory_equal(key->ecdsa_point, point, 65);
	assert_int_equal(ps_pubkey_fingerprint(key, fp), 0);
	openssl_fingerprint(ec, want);
	assert_string_equal(fp, want);
	assert_int_equal(ps_pubkey_format_pem(key, &back, &err), 0);
	assert_string_equal(back, pem);
	/* the same point, compressed: the same key */
	assert_int_equal(EVP_PKEY_set_utf8_string_param(ec,
	    OSSL_PKEY_PARAM_EC_POINT_CONVERSION_FORMAT, "compressed"), 1);
	compressed = pem_of(ec, 0);
	assert_true(strlen(compressed) < strlen(pem));
	assert_int_equal(parse_pub(compressed, &again, &err), 0);
	assert_true(ps_pubkey_equal(key, again));
	assert_int_equal(ps_pubkey_fingerprint(again, want), 0);
	assert_string_equal(fp, want);
	/* only PEM writes it */
	assert_int_equal(ps_pubkey_format_ssh(key, NULL, &text, &err), -1);
	assert_string_equal(err.code, "key_unsupported_algorithm");
	assert_int_equal(ps_pubkey_format_minisign(key, &text, &err), -1);
	assert_string_equal(err.code, "key_unsupported_algorithm");
	assert_string_equal(ps_key_algorithm_name(key->alg), "ecdsa-p256");
	ps_pubkey_free(again);
	free(compressed);
	free(back);
	free(pem);
	pem = pem_of(p384, 0);
	pub_refused(pem, "key_unsupported_algorithm");
	free(pem);
	pem = pem_of(k1, 0);
	pub_refused(pem, "key_unsupported_algorithm");
	free(pem);
	ps_pubkey_free(key);
	EVP_PKEY_free(ec);
	EVP_PKEY_free(p384);
	EVP_PKEY_free(k1);
}

/* Points OpenSSL must refuse: off the curve, and the point at infinity. */
static void
ecdsa_bad_points(void **state)
{
	EVP_PKEY *ec = keygen("EC", "P-256");
	unsigned char der[KEYS_ECDSA_SPKI_LEN], point[65];
	static const unsigned char infinity[] = {
		0x30, 0x1a, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d,
		0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01,
		0x07, 0x03, 0x02, 0x00, 0x00
	};
	ps_pubkey *key = NULL;
	size_t len = 0;
	ps_error err;
	char *pem;

	(void)state;
	assert_int_equal(EVP_PKEY_get_octet_string_param(ec,
	    OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, point, sizeof(point), &len), 1);
	keys_ecdsa_spki(point, der);
	pem = pem_wrap(der, sizeof(der));
	assert_int_equal(parse_pub(pem, &key, &err), 0);   /* the helpers work */
	ps_pubkey_free(key);
	free(pem);
	der[sizeof(der) - 1] ^= 1;     /* Y changed: off the curve */
	pem = pem_wrap(der, sizeof(der));
	pub_refused(pem, "key_malformed");
	free(pem);
	pem = pem_wrap(infinity, sizeof(infinity));
	pub_refused(pem, "key_malformed");
	free(pem);
	memset(point + 1, 0, 64);      /* (0, 0): not on P-256 */
	keys_ecdsa_spki(point, der);
	pem = pem_wrap(der, sizeof(der));
	pub_refused(pem, "key_malformed");
	free(pem);
	EVP_PKEY_free(ec);
}

static size_t
ecdsa_sign(EVP_PKEY *pkey, const char *msg, unsigned char sig[80])
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	size_t len = 72;

	assert_int_equal(EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, pkey),
	    1);
	assert_int_equal(EVP_DigestSign(md, sig, &len,
	    (const unsigned char *)msg, strlen(msg)), 1);
	EVP_MD_CTX_free(md);
	return len;
}

static void
ecdsa_signatures(void **state)
{
	EVP_PKEY *ec = keygen("EC", "P-256");
	unsigned char sig[80], ber[81];
	char *pem = pem_of(ec, 0);
	ps_pubkey *key = NULL, *ed = NULL;
	ps_error err;
	size_t len;

	(void)state;
	assert_int_equal(parse_pub(pem, &key, &err), 0);
	assert_int_equal(parse_pub(rfc_pub_line, &ed, &err), 0);
	len = ecdsa_sign(ec, "message", sig);
	assert_int_equal(ps_key_verify_signature(key, "message", 7, sig, len), 0);
	assert_int_equal(ps_key_verify_signature(key, "messagf", 7, sig, len),
	    -1);
	/* not for the Ed25519 paths, nor an Ed25519 key for it */
	assert_int_equal(ps_key_verify(key, "message", 7, sig), -1);
	assert_int_equal(ps_key_verify_signature(ed, "message", 7, sig, len),
	    -1);
	assert_false(ps_pubkey_equal(key, ed));
	/* trailing byte */
	sig[len] = 0;
	assert_int_equal(ps_key_verify_signature(key, "message", 7, sig,
	    len + 1), -1);
	/* BER: the SEQUENCE length in long form */
	ber[0] = 0x30;
	ber[1] = 0x81;
	memcpy(ber + 2, sig + 1, len - 1);
	assert_int_equal(ps_key_verify_signature(key, "message", 7, ber,
	    len + 1), -1);
	assert_int_equal(ps_key_verify_signature(key, "message", 7, sig, 0), -1);
	ps_pubkey_free(key);
	ps_pubkey_free(ed);
	free(pem);
	EVP_PKEY_free(ec);
}

static void
pem_public_keys(void **state)
{
	EVP_PKEY *ed = keygen("ED25519", NULL), *ec = keygen("EC", "P-256");
	unsigned char raw[32];
	size_t len = sizeof(raw);
	char *pem = pem_of(ed, 0), *back = NULL, *ecpem = pem_of(ec, 0);
	char *edpriv = pem_of(ed, 1);
	ps_pubkey *key = NULL;
	ps_error err;

	(void)state;
	assert_int_equal(parse_pub(pem, &key, &err), 0);
	assert_int_equal(key->source, PS_KEY_SOURCE_PEM);
	EVP_PKEY_get_raw_public_key(ed, raw, &len);
	assert_memory_equal(key->key, raw, 32);
	assert_int_equal(ps_pubkey_format_pem(key, &back, &err), 0);
	assert_string_equal(back, pem);
	pub_refused(edpriv, "key_malformed");
	pub_refused("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n",
	    "key_malformed");
	ps_pubkey_free(key);
	free(pem);
	free(back);
	free(ecpem);
	free(edpriv);
	EVP_PKEY_free(ed);
	EVP_PKEY_free(ec);
}

static ps_secret *
pass(const char *text)
{
	ps_secret *s = ps_secret_from(text, strlen(text));

	assert_non_null(s);
	return s;
}

/* Encrypted (light scrypt) or plain secret key text of a fresh key. */
static ps_secret *
seckey_text(ps_seckey **key, const char *passphrase)
{
	ps_secret *p = passphrase != NULL ? pass(passphrase) : NULL, *text;
	ps_error err;

	assert_int_equal(ps_seckey_generate(key, &err), 0);
	assert_int_equal(ps_seckey_format(*key, p, PS_KDF_INTERACTIVE, &text,
	    &err), 0);
	ps_secret_free(p);
	return text;
}

static int
parse_sec(const ps_secret *text, const char *passphrase, ps_seckey **key,
    ps_error *err)
{
	ps_secret *p = passphrase != NULL ? pass(passphrase) : NULL;
	int rc = ps_seckey_parse(ps_secret_bytes(text), ps_secret_len(text),
	    "k.key", p, key, err);

	ps_secret_free(p);
	return rc;
}

static void
same_key(const ps_seckey *a, const ps_seckey *b)
{
	ps_pubkey *pa = NULL, *pb = NULL;
	ps_error err;

	assert_int_equal(ps_seckey_public(a, &pa, &err), 0);
	assert_int_equal(ps_seckey_public(b, &pb, &err), 0);
	assert_true(ps_pubkey_equal(pa, pb));
	assert_memory_equal(pa->key_id, pb->key_id, PS_KEY_ID_LEN);
	ps_pubkey_free(pa);
	ps_pubkey_free(pb);
}

/* PEM keys get a derived key id: compare the public keys only. */
static void
same_key_public_only(const ps_seckey *a, const ps_seckey *b)
{
	ps_pubkey *pa = NULL, *pb = NULL;
	ps_error err;

	assert_int_equal(ps_seckey_public(a, &pa, &err), 0);
	assert_int_equal(ps_seckey_public(b, &pb, &err), 0);
	assert_true(ps_pubkey_equal(pa, pb));
	ps_pubkey_free(pa);
	ps_pubkey_free(pb);
}

static void
encrypted_round_trip_and_wrong_passphrase(void **state)
{
	ps_seckey *key = NULL, *back = NULL;
	ps_secret *text = seckey_text(&key, "correct horse");
	ps_seckey_info info;
	ps_error err;

	(void)state;
	assert_int_equal(ps_seckey_inspect(ps_secret_bytes(text),
	    ps_secret_len(text), "k.key", &info, &err), 0);
	assert_true(info.encrypted);
	assert_int_equal(info.opslimit,
	    crypto_pwhash_scryptsalsa208sha256_OPSLIMIT_INTERACTIVE);
	assert_int_equal(info.memlimit,
	    crypto_pwhash_scryptsalsa208sha256_MEMLIMIT_INTERACTIVE);
	assert_int_equal(parse_sec(text, "correct horse", &back, &err), 0);
	same_key(key, back);
	ps_seckey_free(back);
	back = NULL;
	assert_int_equal(parse_sec(text, "wrong horse", &back, &err), -1);
	assert_null(back);
	assert_string_equal(err.code, "wrong_passphrase");
	assert_int_equal(err.status, PS_STATUS_FAILED);
	assert_int_equal(parse_sec(text, NULL, &back, &err), -1);
	assert_string_equal(err.code, "passphrase_required");
	ps_secret_free(text);
	ps_seckey_free(key);
}

static void
plain_round_trip_and_minisign_w_key(void **state)
{
	ps_seckey *key = NULL, *back = NULL;
	ps_secret *text = seckey_text(&key, NULL);
	ps_pubkey *pub = NULL, *expect = NULL;
	ps_error err;

	(void)state;
	assert_int_equal(parse_sec(text, NULL, &back, &err), 0);
	same_key(key, back);
	ps_seckey_free(back);
	ps_secret_free(text);
	ps_seckey_free(key);
	/* minisign -W writes a zero checksum; the public half still checks. */
	assert_int_equal(ps_seckey_parse((const unsigned char *)minisign_w_key,
	    strlen(minisign_w_key), "w.key", NULL, &back, &err), 0);
	assert_int_equal(ps_seckey_public(back, &pub, &err), 0);
	assert_int_equal(parse_pub(minisign_w_pub, &expect, &err), 0);
	assert_true(ps_pubkey_equal(pub, expect));
	assert_memory_equal(pub->key_id, expect->key_id, PS_KEY_ID_LEN);
	ps_pubkey_free(pub);
	ps_pubkey_free(expect);
	ps_seckey_free(back);
}

/* Decodes a plain key's text, lets `edit` change it, re-encodes it. */
static char *
edited_plain_key(void (*edit)(unsigned char *raw))
{
	unsigned char raw[KEYS_MINISIGN_SECKEY_LEN];
	ps_seckey *key = NULL;
	ps_secret *text = seckey_text(&key, NULL);
	const char *line = strchr((const char *)ps_secret_bytes(text), '\n') + 1;
	char *enc, *out;
	size_t len;

	assert_int_equal(sodium_base642bin(raw, sizeof(raw), line,
	    strcspn(line, "\n"), NULL, &len, NULL,
	    sodium_base64_VARIANT_ORIGINAL), 0);
	edit(raw);
	enc = b64(raw, sizeof(raw));
	assert_true(asprintf(&out, "untrusted comment: x\n%s\n", enc) > 0);
	free(enc);
	ps_secret_free(text);
	ps_seckey_free(key);
	return out;
}

static void edit_sigalg(unsigned char *raw) { raw[1] = 'x'; }
static void edit_kdf(unsigned char *raw) { raw[2] = 'X'; raw[3] = 'y'; }
static void edit_chkalg(unsigned char *raw) { raw[4] = 'S'; }
static void edit_checksum(unsigned char *raw) { raw[157] ^= 1; }
static void
edit_pubhalf(unsigned char *raw)
{
	raw[6 + 32 + 16 + 8 + 40] ^= 1;
	memset(raw + 126, 0, 32);   /* a -W style zero checksum */
}
static void
edit_limits(unsigned char *raw)
{
	memcpy(raw + 2, "Sc", 2);
	memset(raw + 38, 0xff, 16);   /* opslimit, memlimit: 2^64 - 1 */
}

static void
sec_refused_text(const char *text, const char *code)
{
	ps_seckey *key = NULL;
	ps_error err;

	assert_int_equal(ps_seckey_parse((const unsigned char *)text,
	    strlen(text), "k.key", NULL, &key, &err), -1);
	assert_null(key);
	assert_string_equal(err.code, code);
	assert_int_equal(err.status, PS_STATUS_FAILED);
}

static void
sec_refused(void (*edit)(unsigned char *raw), const char *code)
{
	char *text = edited_plain_key(edit);

	sec_refused_text(text, code);
	free(text);
}

static void
seckey_parser_errors(void **state)
{
	(void)state;
	sec_refused(edit_sigalg, "key_unsupported_algorithm");
	sec_refused(edit_kdf, "key_unsupported_kdf");
	sec_refused(edit_chkalg, "key_unsupported_algorithm");
	sec_refused(edit_checksum, "key_corrupt");
	sec_refused(edit_pubhalf, "key_corrupt");
	sec_refused(edit_limits, "key_kdf_limits");
	sec_refused_text(minisign_w_pub, "key_malformed");
	sec_refused_text("untrusted comment: x\nRWQAAEIy****\n",
	    "key_bad_base64");
	sec_refused_text("untrusted comment: x\nRWQAAEIyAAAA\n",
	    "key_malformed");
	sec_refused_text("RWQAAEIyAAAA\n", "key_malformed");
	assert_int_equal(ps_key_text_is_secret((const unsigned char *)
	    minisign_w_key, strlen(minisign_w_key)), 1);
	assert_int_equal(ps_key_text_is_secret((const unsigned char *)
	    minisign_w_pub, strlen(minisign_w_pub)), 0);
}

static void
pem_private_round_trips(void **state)
{
	ps_seckey *key = NULL, *back = NULL;
	ps_secret *text = seckey_text(&key, NULL), *pem = NULL;
	ps_secret *p = pass("pem pass"), *bad = pass("nope");
	EVP_PKEY *ec = keygen("EC", "P-256");
	char *ecpem = pem_of(ec, 1);
	ps_error err;

	(void)state;
	assert_int_equal(ps_seckey_format_pem(key, NULL, &pem, &err), 0);
	assert_false(ps_pem_is_encrypted(ps_secret_bytes(pem),
	    ps_secret_len(pem)));
	assert_int_equal(ps_seckey_parse_pem(ps_secret_bytes(pem),
	    ps_secret_len(pem), "k.pem", NULL, &back, &err), 0);
	same_key_public_only(key, back);
	ps_seckey_free(back);
	ps_secret_free(pem);
	assert_int_equal(ps_seckey_format_pem(key, p, &pem, &err), 0);
	assert_true(ps_pem_is_encrypted(ps_secret_bytes(pem),
	    ps_secret_len(pem)));
	assert_int_equal(ps_seckey_parse_pem(ps_secret_bytes(pem),
	    ps_secret_len(pem), "k.pem", p, &back, &err), 0);
	same_key_public_only(key, back);
	ps_seckey_free(back);
	assert_int_equal(ps_seckey_parse_pem(ps_secret_bytes(pem),
	    ps_secret_len(pem), "k.pem", bad, &back, &err), -1);
	assert_string_equal(err.code, "wrong_passphrase");
	assert_int_equal(ps_seckey_parse_pem(ps_secret_bytes(pem),
	    ps_secret_len(pem), "k.pem", NULL, &back, &err), -1);
	assert_string_equal(err.code, "passphrase_required");
	assert_int_equal(ps_seckey_parse_pem((unsigned char *)ecpem,
	    strlen(ecpem), "ec.pem", NULL, &back, &err), -1);
	assert_string_equal(err.code, "key_unsupported_algorithm");
	free(ecpem);
	EVP_PKEY_free(ec);
	ps_secret_free(pem);
	ps_secret_free(p);
	ps_secret_free(bad);
	ps_secret_free(text);
	ps_seckey_free(key);
}

static void
signatures_raw_and_prehashed(void **state)
{
	unsigned char sig[64], digest[64];
	static const char msg[] = "pack statement";
	ps_seckey *key = NULL;
	ps_pubkey *pub = NULL;
	ps_error err;

	(void)state;
	assert_int_equal(ps_seckey_generate(&key, &err), 0);
	assert_int_equal(ps_seckey_public(key, &pub, &err), 0);
	assert_int_equal(ps_key_sign(key, msg, sizeof(msg), sig, &err), 0);
	assert_int_equal(ps_key_verify(pub, msg, sizeof(msg), sig), 0);
	assert_int_equal(ps_key_verify(pub, msg, sizeof(msg) - 1, sig), -1);
	assert_int_equal(ps_key_verify_prehashed(pub, msg, sizeof(msg), sig), -1);
	/* Prehashed = Ed25519 over BLAKE2b-512, as minisign -S does. */
	assert_int_equal(ps_key_sign_prehashed(key, msg, sizeof(msg), sig,
	    &err), 0);
	crypto_generichash(digest, 64, (const unsigned char *)msg, sizeof(msg),
	    NULL, 0);
	assert_int_equal(crypto_sign_verify_detached(sig, digest, 64,
	    pub->key), 0);
	assert_int_equal(ps_key_verify_digest(pub, digest, sig), 0);
	assert_int_equal(ps_key_verify_prehashed(pub, msg, sizeof(msg), sig), 0);
	sig[0] ^= 1;
	assert_int_equal(ps_key_verify_prehashed(pub, msg, sizeof(msg), sig), -1);
	ps_pubkey_free(pub);
	ps_seckey_free(key);
}

static void
passphrase_lines(void **state)
{
	ps_secret *s;
	ps_error err;

	(void)state;
	s = pass("secret\r\nsecond line\n");
	assert_int_equal(ps_secret_passphrase_line(s, "f", &err), 0);
	assert_int_equal(ps_secret_len(s), 6);
	assert_memory_equal(ps_secret_bytes(s), "secret", 6);
	ps_secret_free(s);
	s = pass("\nsecret\n");
	assert_int_equal(ps_secret_passphrase_line(s, "f", &err), -1);
	assert_string_equal(err.code, "passphrase_invalid");
	ps_secret_free(s);
	s = ps_secret_from("a\0b\n", 4);
	assert_int_equal(ps_secret_passphrase_line(s, "f", &err), -1);
	assert_string_equal(err.code, "passphrase_invalid");
	ps_secret_free(s);
}

static void
bounded_reads_and_key_file_writes(void **state)
{
	char dir[] = "/tmp/ps-keys-XXXXXX", path[256];
	ps_secret *s = NULL;
	struct stat st;
	ps_error err;
	int fds[2];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/k.key", dir);
	assert_int_equal(ps_key_file_write(path, "abc", 3, 0600,
	    PS_WRITE_NO_REPLACE, &err), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(ps_key_file_write(path, "xyz", 3, 0600,
	    PS_WRITE_NO_REPLACE, &err), -1);
	assert_string_equal(err.code, "output_exists");
	assert_int_equal(ps_secret_read_file(path, 2, &s, &err), -1);
	assert_string_equal(err.code, "input_too_large");
	assert_int_equal(ps_secret_read_file(path, 3, &s, &err), 0);
	assert_memory_equal(ps_secret_bytes(s), "abc", 3);
	ps_secret_free(s);
	assert_int_equal(ps_secret_read_file(dir, 3, &s, &err), -1);
	assert_string_equal(err.code, "not_a_regular_file");
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], "pw\n", 3), 3);
	close(fds[1]);
	assert_int_equal(ps_secret_read_fd(fds[0], 16, "fd", &s, &err), 0);
	assert_int_equal(ps_secret_len(s), 3);
	close(fds[0]);
	ps_secret_free(s);
	unlink(path);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(key_id_hex_is_little_endian_uppercase),
		cmocka_unit_test(minisign_line_and_ssh_line_agree),
		cmocka_unit_test(minisign_file_identity_from_comment),
		cmocka_unit_test(pubkey_parser_errors),
		cmocka_unit_test(ssh_parser_errors),
		cmocka_unit_test(pem_public_keys),
		cmocka_unit_test(ecdsa_public_keys),
		cmocka_unit_test(ecdsa_bad_points),
		cmocka_unit_test(ecdsa_signatures),
		cmocka_unit_test(encrypted_round_trip_and_wrong_passphrase),
		cmocka_unit_test(plain_round_trip_and_minisign_w_key),
		cmocka_unit_test(seckey_parser_errors),
		cmocka_unit_test(pem_private_round_trips),
		cmocka_unit_test(signatures_raw_and_prehashed),
		cmocka_unit_test(passphrase_lines),
		cmocka_unit_test(bounded_reads_and_key_file_writes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
