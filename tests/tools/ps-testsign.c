/*
 * ps-testsign: a signer for the verify tests only (never installed).  It
 * writes ARCHIVE.sig for an archive with a given key, straight from the
 * library's DSSE, statement and key functions, so the verify tests do not
 * depend on `packsign sign`; and it can write statements that are wrong on
 * purpose (--set, --delete edit the JSON before signing).
 *
 * usage: ps-testsign -s KEY [--passphrase-file F] [-o OUT] [--append]
 *          [--mtime N] [--subject-name NAME] [--source-repo URL]
 *          [--source-commit HEX] [--source-path P] [--dirty]
 *          [--manifest-ref HEX] [--set PATH=JSON]... [--delete PATH]...
 *          [--payload-type T] [--keyid TEXT] [--print] ARCHIVE
 *        ps-testsign -s KEY --payload --payload-type T -o OUT FILE
 *          [--raw-from GOOD_ARCHIVE] ARCHIVE
 *        ps-testsign --ecdsa-key FILE.pem [--ecdsa-mangle M] [...] ARCHIVE
 * PATH is dotted: predicate.tarDigest.sha256, subject.0.name.
 *
 * --raw-from signs ARCHIVE's bytes whatever they hold (hostile archives
 * for the install tests): the pack fields, manifest and prompt digests
 * come from GOOD_ARCHIVE, a valid pack archive; the subject is ARCHIVE's
 * name and SHA-256; the tar and tree digests are ARCHIVE's own when its
 * entries can be read (else GOOD_ARCHIVE's), and the statement has no
 * `build` field (ARCHIVE is signed as it is, not built by packsign), so
 * the signature and subject checks pass and any refusal comes from
 * ARCHIVE's entries.
 *
 * --payload signs ARCHIVE's bytes as the payload itself (with
 * --payload-type and -o: an index payload a test edited, such as an
 * entry's size).
 *
 * --ecdsa-key signs with an ECDSA PEM secret key through OpenSSL (packsign
 * itself never signs with ECDSA): SHA-256 over the PAE, the signature ASN.1
 * DER, keyid the key's fingerprint.  --ecdsa-mangle changes the signature
 * on purpose: high-s (S replaced by n - S, still DER), ber (the SEQUENCE
 * length in long form), trailing (a zero byte after the DER), p1363 (raw
 * r || s, 64 bytes).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/pem.h>

#include "keys/keys.h"
#include "sign/dsse.h"
#include "sign/statement.h"
#include "util/fdio.h"
#include "util/sha256.h"

#define MAX_EDITS 32

struct args {
	const char *key, *pass, *out, *subject, *payload_type, *keyid;
	const char *repo, *commit, *path, *manifest_ref, *raw_from;
	const char *ecdsa_key, *ecdsa_mangle;
	const char *sets[MAX_EDITS], *dels[MAX_EDITS];
	int nsets, ndels, append, dirty, print, raw_payload;
	long long mtime;
	const char *archive;
};

static void
die(const ps_error *err)
{
	char line[4096];

	fprintf(stderr, "ps-testsign: %s\n", ps_error_format(err, line,
	    sizeof(line)));
	exit(2);
}

static void
usage(const char *why)
{
	fprintf(stderr, "ps-testsign: %s\n", why);
	exit(2);
}

static void
parse_args(int argc, char **argv, struct args *a)
{
	static const struct option opts[] = {
		{ "passphrase-file", 1, NULL, 'P' }, { "append", 0, NULL, 'A' },
		{ "mtime", 1, NULL, 'm' }, { "subject-name", 1, NULL, 'n' },
		{ "source-repo", 1, NULL, 'R' }, { "source-commit", 1, NULL, 'C' },
		{ "source-path", 1, NULL, 'p' }, { "dirty", 0, NULL, 'D' },
		{ "manifest-ref", 1, NULL, 'M' }, { "set", 1, NULL, 'S' },
		{ "delete", 1, NULL, 'X' }, { "payload-type", 1, NULL, 'T' },
		{ "keyid", 1, NULL, 'K' }, { "print", 0, NULL, 'Q' },
		{ "raw-from", 1, NULL, 'r' }, { "ecdsa-key", 1, NULL, 'E' },
		{ "ecdsa-mangle", 1, NULL, 'G' }, { "payload", 0, NULL, 'L' },
		{ NULL, 0, NULL, 0 } };
	int c;

	memset(a, 0, sizeof(*a));
	while ((c = getopt_long(argc, argv, "s:o:", opts, NULL)) != -1) {
		switch (c) {
		case 's': a->key = optarg; break;
		case 'o': a->out = optarg; break;
		case 'P': a->pass = optarg; break;
		case 'A': a->append = 1; break;
		case 'm': a->mtime = atoll(optarg); break;
		case 'n': a->subject = optarg; break;
		case 'R': a->repo = optarg; break;
		case 'C': a->commit = optarg; break;
		case 'p': a->path = optarg; break;
		case 'D': a->dirty = 1; break;
		case 'M': a->manifest_ref = optarg; break;
		case 'T': a->payload_type = optarg; break;
		case 'K': a->keyid = optarg; break;
		case 'Q': a->print = 1; break;
		case 'r': a->raw_from = optarg; break;
		case 'E': a->ecdsa_key = optarg; break;
		case 'G': a->ecdsa_mangle = optarg; break;
		case 'L': a->raw_payload = 1; break;
		case 'S':
			if (a->nsets == MAX_EDITS)
				usage("too many --set");
			a->sets[a->nsets++] = optarg;
			break;
		case 'X':
			if (a->ndels == MAX_EDITS)
				usage("too many --delete");
			a->dels[a->ndels++] = optarg;
			break;
		default: usage("unknown option");
		}
	}
	if (optind + 1 != argc)
		usage("one ARCHIVE expected");
	a->archive = argv[optind];
	if (a->key == NULL && a->ecdsa_key == NULL && !a->print)
		usage("-s KEY or --ecdsa-key FILE is required");
}

static void
add_source(sign_statement *st, const struct args *a)
{
	if (a->commit == NULL)
		return;
	st->has_source = 1;
	st->source_commit = strdup(a->commit);
	st->source_path = strdup(a->path != NULL ? a->path : "");
	st->source_repository = a->repo != NULL ? strdup(a->repo) : NULL;
	st->source_manifest_commit = a->manifest_ref != NULL ?
	    strdup(a->manifest_ref) : NULL;
	st->source_dirty = a->dirty;
}

static void
add_prompts(sign_statement *st, const ps_manifest *m, const ps_digest *d)
{
	const ps_entry *e;
	ps_error err;
	size_t i;

	for (i = 0; i < m->prompt_count; i++) {
		e = ps_digest_find(d, m->prompts[i].path);
		if (e != NULL && sign_statement_add_prompt(st, e->path, e->sha256,
		    &err) != 0)
			die(&err);
	}
}

/* SHA-256 of a whole file, for --raw-from's subject. */
static void
hash_file(const char *path, unsigned char out[PS_SHA256_LEN])
{
	unsigned char buf[64 * 1024];
	util_sha256 *h = util_sha256_new();
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (h == NULL || fd < 0)
		usage("--raw-from: cannot read ARCHIVE");
	while ((n = util_read_full(fd, buf, sizeof(buf))) > 0)
		if (util_sha256_update(h, buf, (size_t)n) != 0)
			usage("--raw-from: SHA-256 failed");
	if (n < 0 || util_sha256_final(h, out) != 0)
		usage("--raw-from: cannot read ARCHIVE");
	close(fd);
	util_sha256_free(h);
}

/* --raw-from: GOOD's digest `d` takes ARCHIVE's subject digest, and its
 * tar and tree digests when ARCHIVE's entries can be read at all. */
static void
raw_digests(const struct args *a, ps_digest *d)
{
	ps_pack_options po;
	ps_digest *own = NULL;
	ps_error err;

	hash_file(a->archive, d->archive_digest);
	ps_pack_options_init(&po);
	if (ps_digest_path(a->archive, &po, &own, &err) != 0)
		return;
	d->has_tar_digest = own->has_tar_digest;
	memcpy(d->tar_digest, own->tar_digest, sizeof(d->tar_digest));
	memcpy(d->tree_digest, own->tree_digest, sizeof(d->tree_digest));
	ps_digest_free(own);
}

static sign_statement *
build_statement(const struct args *a)
{
	ps_validate_options vo;
	ps_pack_files files;
	ps_manifest *m = NULL;
	sign_statement *st;
	ps_digest *d = NULL;
	ps_diags diags;
	ps_error err;
	const char *base = strrchr(a->archive, '/');
	const char *source = a->raw_from != NULL ? a->raw_from : a->archive;

	ps_validate_options_init(&vo);
	ps_diags_init(&diags);
	if (ps_pack_files_archive_open(source, &files, &d, &err) != 0 ||
	    ps_manifest_load(&files, &vo, &m, &diags, &err) != 0)
		die(&err);
	if (m == NULL || m->id == NULL || m->version == NULL)
		usage("the manifest cannot be read");
	if (a->raw_from != NULL)
		raw_digests(a, d);
	/* A zip has no tar stream: the predicate still needs a tarDigest. */
	if (!d->has_tar_digest) {
		d->has_tar_digest = 1;
		memset(d->tar_digest, 0, sizeof(d->tar_digest));
	}
	if (sign_statement_new(&st, &err) != 0 ||
	    sign_statement_set_digest(st, d, &err) != 0 ||
	    sign_statement_add_subject(st, a->subject != NULL ? a->subject :
	    base != NULL ? base + 1 : a->archive, d->archive_digest, &err) != 0)
		die(&err);
	st->pack_id = strdup(m->id);
	st->pack_version = strdup(m->version);
	st->pack_name = m->name != NULL ? strdup(m->name) : NULL;
	st->packsign_version = strdup(PS_VERSION);
	st->mtime = a->mtime;
	st->no_build = a->raw_from != NULL;
	if (ps_compression_from_name(a->archive, &st->compression) != 0)
		st->compression = PS_COMPRESS_NONE;
	add_prompts(st, m, d);
	add_source(st, a);
	ps_manifest_free(m);
	ps_diags_free(&diags);
	ps_digest_free(d);
	ps_pack_files_close(&files);
	return st;
}

/* The parent of the last component of a dotted PATH, and that name. */
static json_t *
walk(json_t *root, char *path, char **last)
{
	char *dot;
	json_t *cur = root;

	while ((dot = strchr(path, '.')) != NULL) {
		*dot = '\0';
		cur = json_is_array(cur) ? json_array_get(cur, atoi(path)) :
		    json_object_get(cur, path);
		if (cur == NULL)
			usage("--set/--delete: no such path");
		path = dot + 1;
	}
	*last = path;
	return cur;
}

static void
edit(json_t *root, const char *spec, int del)
{
	char *copy = strdup(spec), *eq = del ? NULL : strchr(copy, '='), *last;
	json_t *parent, *value = NULL;
	json_error_t jerr;

	if (!del) {
		if (eq == NULL)
			usage("--set PATH=JSON");
		*eq = '\0';
		value = json_loads(eq + 1, JSON_DECODE_ANY, &jerr);
		if (value == NULL)
			usage("--set: bad JSON value");
	}
	parent = walk(root, copy, &last);
	if (json_is_array(parent) && del)
		json_array_remove(parent, (size_t)atoi(last));
	else if (json_is_array(parent) &&
	    (size_t)atoi(last) >= json_array_size(parent))
		json_array_append_new(parent, value);
	else if (json_is_array(parent))
		json_array_set_new(parent, (size_t)atoi(last), value);
	else if (del)
		json_object_del(parent, last);
	else
		json_object_set_new(parent, last, value);
	free(copy);
}

/* --payload: the file's bytes, as they are. */
static char *
file_payload(const char *path, size_t *len)
{
	char *out = malloc(SIGN_DSSE_MAX_BYTES);
	FILE *f = fopen(path, "rb");

	if (out == NULL || f == NULL)
		usage("--payload: cannot read the file");
	*len = fread(out, 1, SIGN_DSSE_MAX_BYTES, f);
	fclose(f);
	return out;
}

static char *
payload_of(const struct args *a, size_t *len)
{
	sign_statement *st;
	unsigned char *bytes;
	json_t *root;
	ps_error err;
	char *out;
	int i;

	if (a->raw_payload)
		return file_payload(a->archive, len);
	st = build_statement(a);
	if (sign_statement_serialize(st, &bytes, len, &err) != 0)
		die(&err);
	sign_statement_free(st);
	root = json_loadb((const char *)bytes, *len, 0, NULL);
	free(bytes);
	for (i = 0; i < a->nsets; i++)
		edit(root, a->sets[i], 0);
	for (i = 0; i < a->ndels; i++)
		edit(root, a->dels[i], 1);
	out = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS |
	    JSON_ENSURE_ASCII);
	json_decref(root);
	*len = strlen(out);
	return out;
}

static ps_seckey *
load_key(const struct args *a)
{
	ps_secret *text = NULL, *pass = NULL;
	ps_seckey *key = NULL;
	ps_error err;

	if (ps_secret_read_file(a->key, PS_KEY_FILE_MAX, &text, &err) != 0)
		die(&err);
	if (a->pass != NULL && (ps_secret_read_file(a->pass, 4096, &pass,
	    &err) != 0 || ps_secret_passphrase_line(pass, a->pass, &err) != 0))
		die(&err);
	if (ps_seckey_parse(ps_secret_bytes(text), ps_secret_len(text), a->key,
	    pass, &key, &err) != 0)
		die(&err);
	ps_secret_free(text);
	ps_secret_free(pass);
	return key;
}

static sign_dsse_envelope *
existing_envelope(const struct args *a, const char *out)
{
	sign_dsse_envelope *env = NULL;
	ps_error err;
	int fd = open(out, O_RDONLY);

	if (fd < 0 || sign_dsse_read_fd(fd, out, &env, &err) != 0)
		usage("--append: cannot read the existing signature");
	close(fd);
	(void)a;
	return env;
}

static void
write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (f == NULL || fwrite(data, 1, len, f) != len || fclose(f) != 0)
		usage("cannot write the output");
}

/* ------------------------------------------------------------ ECDSA */

static EVP_PKEY *
ecdsa_load(const char *path)
{
	FILE *f = fopen(path, "r");
	EVP_PKEY *pkey = f != NULL ? PEM_read_PrivateKey(f, NULL, NULL, NULL) :
	    NULL;

	if (f != NULL)
		fclose(f);
	if (pkey == NULL || EVP_PKEY_get_base_id(pkey) != EVP_PKEY_EC)
		usage("--ecdsa-key: not an EC private key PEM");
	return pkey;
}

/* The keyid: the public half through the library's own PEM parser. */
static void
ecdsa_fingerprint(EVP_PKEY *pkey, char fp[PS_FINGERPRINT_MAX])
{
	BIO *bio = BIO_new(BIO_s_mem());
	ps_pubkey *pub = NULL;
	char *data = NULL;
	ps_error err;
	long n;

	if (bio == NULL || PEM_write_bio_PUBKEY(bio, pkey) != 1 ||
	    (n = BIO_get_mem_data(bio, &data)) <= 0)
		usage("--ecdsa-key: cannot write the public key");
	if (ps_pubkey_parse(data, (size_t)n, "ecdsa", &pub, &err) != 0)
		die(&err);
	if (ps_pubkey_fingerprint(pub, fp) != 0)
		usage("fingerprint failed");
	ps_pubkey_free(pub);
	BIO_free(bio);
}

/* S := n - S when S is low, so that the signature has a high S. */
static size_t
ecdsa_high_s(unsigned char *sig, size_t len)
{
	const unsigned char *p = sig;
	ECDSA_SIG *es = d2i_ECDSA_SIG(NULL, &p, (long)len);
	EC_GROUP *group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
	const BIGNUM *r, *sv, *order;
	BIGNUM *half = BN_new(), *ns = BN_new();
	unsigned char *out = sig;
	int n;

	if (es == NULL || group == NULL || half == NULL || ns == NULL)
		usage("high-s: OpenSSL failed");
	ECDSA_SIG_get0(es, &r, &sv);
	order = EC_GROUP_get0_order(group);
	BN_rshift1(half, order);
	if (BN_cmp(sv, half) <= 0) {
		BN_sub(ns, order, sv);
		ECDSA_SIG_set0(es, BN_dup(r), ns);
		ns = NULL;
	}
	n = i2d_ECDSA_SIG(es, &out);
	BN_free(ns);
	BN_free(half);
	EC_GROUP_free(group);
	ECDSA_SIG_free(es);
	return n > 0 ? (size_t)n : 0;
}

static size_t
ecdsa_p1363(unsigned char *sig, size_t len)
{
	const unsigned char *p = sig;
	ECDSA_SIG *es = d2i_ECDSA_SIG(NULL, &p, (long)len);
	const BIGNUM *r, *sv;

	if (es == NULL)
		usage("p1363: OpenSSL failed");
	ECDSA_SIG_get0(es, &r, &sv);
	BN_bn2binpad(r, sig, 32);
	BN_bn2binpad(sv, sig + 32, 32);
	ECDSA_SIG_free(es);
	return 64;
}

/* `sig` has room for 128 bytes. */
static size_t
ecdsa_mangle(const char *how, unsigned char *sig, size_t len)
{
	if (how == NULL)
		return len;
	if (strcmp(how, "high-s") == 0)
		return ecdsa_high_s(sig, len);
	if (strcmp(how, "p1363") == 0)
		return ecdsa_p1363(sig, len);
	if (strcmp(how, "trailing") == 0) {
		sig[len] = 0;
		return len + 1;
	}
	if (strcmp(how, "ber") == 0 && sig[1] < 0x80) {
		memmove(sig + 3, sig + 2, len - 2);
		sig[2] = sig[1];
		sig[1] = 0x81;
		return len + 1;
	}
	usage("--ecdsa-mangle high-s|ber|trailing|p1363");
	return 0;
}

static void
ecdsa_sign(sign_dsse_envelope *env, const struct args *a)
{
	unsigned char sig[128], *pae = NULL;
	const unsigned char *payload;
	char fp[PS_FINGERPRINT_MAX];
	EVP_PKEY *pkey = ecdsa_load(a->ecdsa_key);
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	size_t len, pae_len, sig_len = 72;
	ps_error err;

	if (sign_dsse_payload_to_cosign(env, &payload, &len) != 0)
		usage("--ecdsa-key: the payload type must be in-toto");
	if (sign_dsse_pae(sign_dsse_payload_type(env), payload, len, &pae,
	    &pae_len, &err) != 0)
		die(&err);
	if (md == NULL || EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL,
	    pkey) != 1 || EVP_DigestSign(md, sig, &sig_len, pae, pae_len) != 1)
		usage("--ecdsa-key: signing failed");
	sig_len = ecdsa_mangle(a->ecdsa_mangle, sig, sig_len);
	ecdsa_fingerprint(pkey, fp);
	if (sign_dsse_add_signature(env, sig, sig_len, a->keyid != NULL ?
	    a->keyid : fp, &err) != 0)
		die(&err);
	free(pae);
	EVP_MD_CTX_free(md);
	EVP_PKEY_free(pkey);
}

/* ------------------------------------------------------------- main */

static sign_dsse_envelope *
make_envelope(const struct args *a, const char *out)
{
	sign_dsse_envelope *env;
	ps_error err;
	char *payload;
	size_t len;

	if (a->append)
		return existing_envelope(a, out);
	payload = payload_of(a, &len);
	if (sign_dsse_new(a->payload_type != NULL ? a->payload_type :
	    SIGN_INTOTO_PAYLOAD_TYPE, (unsigned char *)payload, len, &env,
	    &err) != 0)
		die(&err);
	free(payload);
	return env;
}

static void
ed25519_sign(sign_dsse_envelope *env, const struct args *a)
{
	char fp[PS_FINGERPRINT_MAX];
	ps_seckey *key = load_key(a);
	ps_pubkey *pub;
	ps_error err;

	if (ps_seckey_public(key, &pub, &err) != 0 ||
	    ps_pubkey_fingerprint(pub, fp) != 0)
		die(&err);
	ps_pubkey_free(pub);
	if (sign_dsse_sign(env, key->sk, a->keyid != NULL ? a->keyid : fp,
	    &err) != 0)
		die(&err);
	ps_seckey_free(key);
}

int
main(int argc, char **argv)
{
	sign_dsse_envelope *env;
	char *out, *payload, *json;
	ps_error err;
	size_t len;

	struct args a;
	parse_args(argc, argv, &a);
	if (a.out != NULL)
		out = strdup(a.out);
	else if (asprintf(&out, "%s.sig", a.archive) < 0)
		out = NULL;
	if (out == NULL)
		return 2;
	if (a.print) {
		payload = payload_of(&a, &len);
		printf("%s\n", payload);
		free(payload);
		free(out);
		return 0;
	}
	env = make_envelope(&a, out);
	if (a.key != NULL)
		ed25519_sign(env, &a);
	if (a.ecdsa_key != NULL)
		ecdsa_sign(env, &a);
	if (sign_dsse_serialize(env, &json, &len, &err) != 0)
		die(&err);
	write_file(out, json, len);
	/* Freed so that the CLI tests' leak checker sees a clean exit. */
	free(json);
	sign_dsse_free(env);
	free(out);
	return 0;
}
