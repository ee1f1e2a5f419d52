/*
 * genpacks - the batch benchmark's dataset, made in-process through
 * libpacksign (bench/run.py, docs/performance.md).
 *
 *   genpacks DIR COUNT
 *
 * Writes COUNT distinct small signed AgentPacks into DIR:
 *
 *   DIR/k.key, DIR/k.pub   the packsign key pair (minisign format,
 *                          unencrypted, identity "bench")
 *   DIR/m.pub              the minisign public key of the .minisig files
 *   DIR/packs/pNNNNN.tar   a canonical archive (ps_pack), 5.5-8.5 KiB
 *   DIR/packs/pNNNNN.tar.sig      its DSSE envelope (ps_sign of the archive)
 *   DIR/packs/pNNNNN.tar.minisig  minisign's signature of the same archive,
 *                          written here with libsodium alone ("ED",
 *                          prehashed), for `minisign -V`
 *   DIR/list               the archives' absolute paths, one a line,
 *                          written last (renamed into place once all
 *                          is written: its presence means complete)
 *
 * Everything is a function of COUNT and fixed seeds: both key pairs come
 * from fixed 32-byte seeds, each pack's text from a PRNG seeded with its
 * number, archives use mtime 0 and the archive (not a directory) is
 * signed, so no git provenance is read: the same bytes on any machine.
 * Eight threads share the work (ps_pack and ps_sign may run on several
 * at once); the pack trees are written under DIR/tmp.T and removed once
 * packed.
 * Exit 0 done, 2 failed (with a message).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "packsign.h"

#define MINISIGN_KEYID_LEN 8

static void fail(const char *what, const ps_error *err)
{
	if (err)
		fprintf(stderr, "genpacks: %s: %s: %s [%s]\n", what, err->subject,
		    err->message, err->code);
	else
		fprintf(stderr, "genpacks: %s: %s\n", what, strerror(errno));
	exit(2);
}

static char *path_of(const char *dir, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		fail("asprintf", NULL);
	return p;
}

static void write_file(const char *path, const void *data, size_t len,
    mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	if (fd < 0 || write(fd, data, len) != (ssize_t)len || close(fd) != 0)
		fail(path, NULL);
}

static unsigned char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0)
		fail(path, NULL);
	if (!(buf = malloc((size_t)n + 1)) ||
	    fread(buf, 1, (size_t)n, f) != (size_t)n)
		fail(path, NULL);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static char *b64(const unsigned char *bin, size_t len)
{
	size_t n = sodium_base64_ENCODED_LEN(len, sodium_base64_VARIANT_ORIGINAL);
	char *out = malloc(n);

	if (!out)
		fail("malloc", NULL);
	sodium_bin2base64(out, n, bin, len, sodium_base64_VARIANT_ORIGINAL);
	return out;
}

/* A fixed seed: SHA-512 of `label`, first 32 bytes. */
static void seed_of(const char *label, unsigned char seed[32])
{
	unsigned char h[crypto_hash_sha512_BYTES];

	crypto_hash_sha512(h, (const unsigned char *)label, strlen(label));
	memcpy(seed, h, 32);
}

/* ------------------------------------------------------- packsign's key */

/* The packsign key pair from a fixed seed: minisign's unencrypted secret
 * key layout (../docs/formats/keys.md), parsed by the library. */
static ps_seckey *packsign_key(const char *dir)
{
	unsigned char seed[32], pk[crypto_sign_PUBLICKEYBYTES];
	unsigned char raw[2 + 2 + 2 + 32 + 8 + 8 + 8 + 64 + 32] = {0};
	unsigned char *id = raw + 6 + 32 + 16, *sk = id + 8, *chk = sk + 64;
	unsigned char sum_in[2 + 8 + 64];
	char *text, *pubtext, *enc, *kpath = path_of(dir, "k.key");
	char *ppath = path_of(dir, "k.pub");
	ps_seckey *key;
	ps_pubkey *pub;
	ps_error err;

	seed_of("packsign bench: packsign key", seed);
	crypto_sign_seed_keypair(pk, sk, seed);
	memcpy(raw, "Ed\0\0B2", 6);
	memcpy(id, "bench22k", 8);
	memcpy(sum_in, "Ed", 2);
	memcpy(sum_in + 2, id, 8);
	memcpy(sum_in + 10, sk, 64);
	crypto_generichash(chk, 32, sum_in, sizeof sum_in, NULL, 0);
	enc = b64(raw, sizeof raw);
	if (asprintf(&text, "untrusted comment: packsign unencrypted secret "
	    "key\n%s\n", enc) < 0)
		fail("asprintf", NULL);
	sodium_memzero(enc, strlen(enc));
	free(enc);
	ps_error_clear(&err);
	if (ps_seckey_parse((unsigned char *)text, strlen(text), kpath, NULL,
	    &key, &err) != 0 || ps_seckey_public(key, &pub, &err) != 0 ||
	    ps_pubkey_set_identity(pub, "bench", &err) != 0 ||
	    ps_pubkey_format_minisign(pub, &pubtext, &err) != 0)
		fail("the packsign key", &err);
	write_file(kpath, text, strlen(text), 0600);
	write_file(ppath, pubtext, strlen(pubtext), 0644);
	sodium_memzero(raw, sizeof raw);
	sodium_memzero(text, strlen(text));
	free(text);
	free(pubtext);
	free(kpath);
	free(ppath);
	ps_pubkey_free(pub);
	return key;
}

/* ------------------------------------------------------- minisign's key */

struct minisign_key {
	unsigned char id[MINISIGN_KEYID_LEN];
	unsigned char sk[crypto_sign_SECRETKEYBYTES];
};

static void minisign_key(const char *dir, struct minisign_key *k)
{
	unsigned char seed[32], pk[crypto_sign_PUBLICKEYBYTES];
	unsigned char raw[2 + MINISIGN_KEYID_LEN + sizeof pk];
	char *text, *enc, *path = path_of(dir, "m.pub");

	seed_of("packsign bench: minisign key", seed);
	crypto_sign_seed_keypair(pk, k->sk, seed);
	memcpy(k->id, "bench22m", MINISIGN_KEYID_LEN);
	memcpy(raw, "Ed", 2);
	memcpy(raw + 2, k->id, MINISIGN_KEYID_LEN);
	memcpy(raw + 2 + MINISIGN_KEYID_LEN, pk, sizeof pk);
	enc = b64(raw, sizeof raw);
	if (asprintf(&text, "untrusted comment: minisign public key (packsign "
	    "bench)\n%s\n", enc) < 0)
		fail("asprintf", NULL);
	free(enc);
	write_file(path, text, strlen(text), 0644);
	free(text);
	free(path);
}

/* PATH.minisig for `data`: "ED" ‖ key id ‖ Ed25519(BLAKE2b-512(data)),
 * then the trusted comment and Ed25519(signature ‖ comment). */
static void minisign_sign(const struct minisign_key *k, const char *path,
    const char *name, const unsigned char *data, size_t len)
{
	unsigned char hash[crypto_generichash_BYTES_MAX];
	unsigned char sig[2 + MINISIGN_KEYID_LEN + crypto_sign_BYTES];
	unsigned char global[crypto_sign_BYTES];
	unsigned char both[crypto_sign_BYTES + 256];
	char comment[256], *text, *out = NULL, *s64, *g64;
	size_t clen;

	crypto_generichash(hash, sizeof hash, data, len, NULL, 0);
	memcpy(sig, "ED", 2);
	memcpy(sig + 2, k->id, MINISIGN_KEYID_LEN);
	crypto_sign_detached(sig + 2 + MINISIGN_KEYID_LEN, NULL, hash,
	    sizeof hash, k->sk);
	clen = (size_t)snprintf(comment, sizeof comment,
	    "timestamp:0\tfile:%s\tprehashed", name);
	memcpy(both, sig + 2 + MINISIGN_KEYID_LEN, crypto_sign_BYTES);
	memcpy(both + crypto_sign_BYTES, comment, clen);
	crypto_sign_detached(global, NULL, both, crypto_sign_BYTES + clen,
	    k->sk);
	s64 = b64(sig, sizeof sig);
	g64 = b64(global, sizeof global);
	if (asprintf(&text, "untrusted comment: signature from minisign "
	    "secret key\n%s\ntrusted comment: %s\n%s\n", s64, comment,
	    g64) < 0 ||
	    asprintf(&out, "%s.minisig", path) < 0)
		fail("asprintf", NULL);
	write_file(out, text, strlen(text), 0644);
	free(s64);
	free(g64);
	free(text);
	free(out);
}

/* ---------------------------------------------------------------- packs */

/* xorshift64*: each pack's text from its own number. */
static uint64_t next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* The tree of pack `n` under `dir` (which exists). */
static void write_tree(const char *dir, unsigned n)
{
	static const char words[] = "abcdefghijklmnopqrstuvwxyz        \n";
	char path[PATH_MAX], text[4096 + 1];
	uint64_t s = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)n + 1) * 0x100000001b3ULL;
	size_t len;
	int m;

	m = snprintf(text, sizeof text,
	    "id: bench.pack-%05u\nname: Bench pack %05u\nversion: 1.0.0\n"
	    "domain: research\nentrypoint: agents/main.yml\naudience:\n"
	    "  - professor\ndescription: A generated pack of the batch "
	    "verification benchmark.\npermissions:\n  network: false\n"
	    "  shell: false\n  file_write: workspace\n  read_knowledge: true\n"
	    "  read_filesystem: false\nauthor: bench\nlicense: MIT\n", n, n);
	snprintf(path, sizeof path, "%s/manifest.yml", dir);
	write_file(path, text, (size_t)m, 0644);
	snprintf(path, sizeof path, "%s/agents/main.yml", dir);
	m = snprintf(text, sizeof text, "name: main-%05u\n", n);
	write_file(path, text, (size_t)m, 0644);
	len = 1024 + next(&s) % 3072;
	for (size_t i = 0; i < len; i++)
		text[i] = words[next(&s) % (sizeof words - 1)];
	text[len - 1] = '\n';
	snprintf(path, sizeof path, "%s/knowledge/notes.md", dir);
	write_file(path, text, len, 0644);
}

static void make_dirs(const char *dir)
{
	char path[PATH_MAX];

	snprintf(path, sizeof path, "%s/agents", dir);
	if ((mkdir(dir, 0755) != 0 && errno != EEXIST) ||
	    (mkdir(path, 0755) != 0 && errno != EEXIST))
		fail(path, NULL);
	snprintf(path, sizeof path, "%s/knowledge", dir);
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		fail(path, NULL);
}

/* Packs the tree at `tree` into `archive` and signs the archive. */
static void pack_and_sign(const char *tree, const char *archive,
    const ps_seckey *key, const char *pubpath)
{
	ps_pack_options po;
	ps_sign_options so;
	ps_sign_result *res = NULL;
	ps_error err;
	int fd;

	ps_error_clear(&err);
	ps_pack_options_init(&po);
	fd = open(archive, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		fail(archive, NULL);
	if (ps_pack(tree, fd, &po, NULL, &err) != 0)
		fail("ps_pack", &err);
	if (close(fd) != 0)
		fail(archive, NULL);
	ps_sign_options_init(&so);
	so.public_key_path = pubpath;
	so.force = 1;
	if (ps_sign(archive, key, &so, &res, &err) != 0)
		fail("ps_sign", &err);
	ps_sign_result_free(res);
}

static void remove_tree(const char *dir)
{
	static const char *const files[] = {"manifest.yml", "agents/main.yml",
	    "knowledge/notes.md", "agents", "knowledge"};
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		if (remove(path) != 0)
			fail(path, NULL);
	}
	if (rmdir(dir) != 0)
		fail(dir, NULL);
}

#define THREADS 8    /* the signatures' fsyncs overlap */

struct job {
	const char *packs, *pub, *tree_base;
	const ps_seckey *key;
	const struct minisign_key *mk;
	unsigned first, step, count;
};

/* Packs first, first + step, ... below count (a thread's share). */
static void *worker(void *arg)
{
	const struct job *j = arg;
	char *tree;

	if (asprintf(&tree, "%s.%u", j->tree_base, j->first) < 0)
		fail("asprintf", NULL);
	for (unsigned n = j->first; n < j->count; n += j->step) {
		char name[32], archive[PATH_MAX];
		unsigned char *data;
		size_t len;

		snprintf(name, sizeof name, "p%05u.tar", n);
		snprintf(archive, sizeof archive, "%s/%s", j->packs, name);
		make_dirs(tree);
		write_tree(tree, n);
		pack_and_sign(tree, archive, j->key, j->pub);
		remove_tree(tree);
		data = read_file(archive, &len);
		minisign_sign(j->mk, archive, name, data, len);
		free(data);
	}
	free(tree);
	return NULL;
}

/* DIR/list, in pack order, renamed into place last. */
static void write_list(const char *dir, const char *packs, unsigned count)
{
	char *list = path_of(dir, "list"), *tmp = path_of(dir, "list.tmp");
	FILE *lf = fopen(tmp, "w");

	if (!lf)
		fail(tmp, NULL);
	for (unsigned n = 0; n < count; n++)
		fprintf(lf, "%s/p%05u.tar\n", packs, n);
	if (fclose(lf) != 0 || rename(tmp, list) != 0)
		fail(list, NULL);
	free(list);
	free(tmp);
}

int main(int argc, char **argv)
{
	struct minisign_key mk;
	struct job jobs[THREADS];
	pthread_t tids[THREADS];
	char dir[PATH_MAX], *packs, *tree, *pub;
	ps_seckey *key;
	long count;

	if (argc != 3 || (count = strtol(argv[2], NULL, 10)) < 1 ||
	    count > 99999) {
		fputs("usage: genpacks DIR COUNT (1..99999)\n", stderr);
		return 2;
	}
	if (sodium_init() < 0)
		fail("sodium_init", NULL);
	if ((mkdir(argv[1], 0755) != 0 && errno != EEXIST) ||
	    !realpath(argv[1], dir))
		fail(argv[1], NULL);
	packs = path_of(dir, "packs");
	tree = path_of(dir, "tmp");
	pub = path_of(dir, "k.pub");
	if (mkdir(packs, 0755) != 0 && errno != EEXIST)
		fail(packs, NULL);
	key = packsign_key(dir);
	minisign_key(dir, &mk);
	for (unsigned t = 0; t < THREADS; t++) {
		jobs[t] = (struct job){packs, pub, tree, key, &mk, t, THREADS,
		    (unsigned)count};
		if ((errno = pthread_create(&tids[t], NULL, worker, &jobs[t])))
			fail("pthread_create", NULL);
	}
	for (unsigned t = 0; t < THREADS; t++)
		pthread_join(tids[t], NULL);
	write_list(dir, packs, (unsigned)count);
	sodium_memzero(&mk, sizeof mk);
	ps_seckey_free(key);
	free(packs);
	free(tree);
	free(pub);
	return 0;
}
