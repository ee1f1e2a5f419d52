/*
 * Signed notes: the signature lines are read first (they are how the
 * log's signature is found), the note text only once that signature
 * verified it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "sigstore/signednote.h"
#include "util/error.h"
#include "util/sha256.h"

/* U+2014 EM DASH and a space begin each signature line. */
static const char sig_prefix[] = "\xe2\x80\x94 ";

/* SHA-256(name || 0x0A || alg || key)[:4] (C2SP signed-note). */
static int
hint_of(const char *name, const unsigned char *alg, size_t alg_len,
    const unsigned char *key, size_t key_len, unsigned char hint[4])
{
	unsigned char digest[PS_SHA256_LEN];
	util_sha256 *ctx = util_sha256_new();
	int rc = ctx != NULL &&
	    util_sha256_update(ctx, name, strlen(name)) == 0 &&
	    util_sha256_update(ctx, "\n", 1) == 0 &&
	    util_sha256_update(ctx, alg, alg_len) == 0 &&
	    util_sha256_update(ctx, key, key_len) == 0 &&
	    util_sha256_final(ctx, digest) == 0 ? 0 : -1;

	util_sha256_free(ctx);
	memcpy(hint, digest, 4);
	return rc;
}

int
sigstore_note_key_hint(const sigstore_log *log, unsigned char hint[4])
{
	static const unsigned char ed25519 = 0x01;
	static const unsigned char rsa[] = "\xff" "PKIX-RSA-PKCS#1v1.5";
	unsigned char digest[PS_SHA256_LEN], raw[32];
	size_t raw_len = sizeof(raw);

	if (log->checkpoint_key_id_len >= 4) {
		memcpy(hint, log->checkpoint_key_id, 4);
		return 0;
	}
	if (log->key == NULL)
		return -1;
	switch (log->key->kind) {
	case SIGSTORE_KEY_ED25519:
		if (EVP_PKEY_get_raw_public_key(log->key->pkey, raw,
		    &raw_len) != 1 || raw_len != sizeof(raw))
			return -1;
		return hint_of(log->origin, &ed25519, 1, raw, raw_len, hint);
	case SIGSTORE_KEY_RSA:
		return hint_of(log->origin, rsa, sizeof(rsa) - 1, log->key->spki,
		    log->key->spki_len, hint);
	default:                    /* ECDSA: rekor-tiles' SHA-256 of the key */
		if (util_sha256_buffer(log->key->spki, log->key->spki_len,
		    digest) != 0)
			return -1;
		memcpy(hint, digest, 4);
		return 0;
	}
}

static int
malformed(ps_error *err, const char *subject, const char *what)
{
	return util_refuse(err, "tlog_checkpoint_malformed", subject,
	    "the checkpoint is not a signed note: %s", what);
}

/* A signature line's name: non-empty, no space or '+' (C2SP). */
static int
name_valid(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (s[i] == '+' || (unsigned char)s[i] <= ' ')
			return 0;
	}
	return len > 0;
}

/* One line "— NAME BASE64\n" of [line, end): its name and decoded bytes
 * (malloc'd, at least 5: the hint and a signature). */
static int
split_line(const char *line, const char *end, const char **name,
    size_t *name_len, unsigned char **sig, size_t *sig_len)
{
	const char *sp;
	size_t plen = sizeof(sig_prefix) - 1;

	if ((size_t)(end - line) <= plen || memcmp(line, sig_prefix, plen) != 0)
		return -1;
	*name = line + plen;
	sp = memchr(*name, ' ', (size_t)(end - *name));
	if (sp == NULL || !name_valid(*name, (size_t)(sp - *name)))
		return -1;
	*name_len = (size_t)(sp - *name);
	if (sigstore_base64_decode(sp + 1, (size_t)(end - sp - 1),
	    SIGSTORE_SIG_MAX + 4, sig, sig_len) != 0)
		return -1;
	if (*sig_len < 5) {
		free(*sig);
		*sig = NULL;
		return -1;
	}
	return 0;
}

/* What the signature lines held for the log. */
struct note_scan {
	size_t lines;
	size_t matched;
	size_t verified;
	char names[PS_ERROR_VALUE_MAX];
};

/* "NAME (HINT)" appended to the list of lines seen. */
static void
note_name(struct note_scan *scan, const char *name, size_t len,
    const unsigned char *hint)
{
	size_t used = strlen(scan->names);

	if (used + len + 16 < sizeof(scan->names))
		snprintf(scan->names + used, sizeof(scan->names) - used,
		    "%s%.*s (%02x%02x%02x%02x)", used > 0 ? ", " : "", (int)len,
		    name, hint[0], hint[1], hint[2], hint[3]);
}

/* Every signature line of `sigs`; those of the log are verified over the
 * note text [text, text_len). */
static int
scan_lines(const char *sigs, const char *text, size_t text_len,
    const sigstore_log *log, const unsigned char hint[4],
    struct note_scan *scan, const char *subject, ps_error *err)
{
	const char *line = sigs, *end, *name;
	unsigned char *sig;
	size_t name_len, sig_len;

	while (*line != '\0') {
		end = strchr(line, '\n');
		if (end == NULL)
			return malformed(err, subject, "a signature line does not "
			    "end with a newline");
		if (++scan->lines > SIGSTORE_NOTE_MAX_SIGNATURES)
			return malformed(err, subject, "too many signature lines");
		if (split_line(line, end, &name, &name_len, &sig, &sig_len) != 0)
			return malformed(err, subject, "a signature line is not "
			    "\"\xe2\x80\x94 NAME BASE64\"");
		note_name(scan, name, name_len, sig);
		if (name_len == strlen(log->origin) &&
		    memcmp(name, log->origin, name_len) == 0 &&
		    memcmp(sig, hint, 4) == 0) {
			scan->matched++;
			if (sigstore_pkey_verify(log->key, text, text_len, sig + 4,
			    sig_len - 4) == 0)
				scan->verified++;
		}
		free(sig);
		line = end + 1;
	}
	return 0;
}

static int
refuse_signature(const struct note_scan *scan, const sigstore_log *log,
    const unsigned char hint[4], const char *subject, ps_error *err)
{
	char expected[PS_ERROR_VALUE_MAX];

	snprintf(expected, sizeof(expected), "a signature line %s (%02x%02x%02x"
	    "%02x)", log->origin, hint[0], hint[1], hint[2], hint[3]);
	if (scan->matched == 0) {
		util_refuse(err, "tlog_checkpoint_signature", subject, "looked for "
		    "the log's signature on the checkpoint, by its name and key "
		    "hint");
		return util_error_expect(err, expected, scan->lines == 0 ?
		    "no signature line" : scan->names);
	}
	util_refuse(err, "tlog_checkpoint_signature", subject, "verified the "
	    "log's signature on the checkpoint with the log's key from the "
	    "trusted root");
	return util_error_expect(err, "a valid signature", "a signature that "
	    "does not verify");
}

/* A decimal uint64 without a sign or leading zeros. */
static int
parse_size(const char *s, size_t len, uint64_t *out)
{
	unsigned long long v;
	char buf[24], *end;

	if (len == 0 || len >= sizeof(buf) || (s[0] == '0' && len > 1) ||
	    strspn(s, "0123456789") < len)
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno != 0 || *end != '\0')
		return -1;
	*out = (uint64_t)v;
	return 0;
}

/* The origin line: the log's name; for Rekor v1 "NAME - TREEID". */
static int
origin_matches(const char *line, size_t len, const char *origin, int rekor_v1)
{
	size_t n = strlen(origin);

	if (!rekor_v1)
		return len == n && memcmp(line, origin, n) == 0;
	return len > n + 3 && memcmp(line, origin, n) == 0 &&
	    memcmp(line + n, " - ", 3) == 0 &&
	    strspn(line + n + 3, "0123456789") == len - n - 3;
}

/* The authenticated note text: origin, size, root hash; more lines are
 * extensions, ignored. */
static int
read_text(const char *text, const sigstore_log *log, int rekor_v1,
    const char *subject, sigstore_checkpoint *out, ps_error *err)
{
	const char *l2 = strchr(text, '\n'), *l3, *l4;
	unsigned char *hash = NULL;
	size_t hash_len = 0;

	l3 = l2 != NULL ? strchr(l2 + 1, '\n') : NULL;
	l4 = l3 != NULL ? strchr(l3 + 1, '\n') : NULL;
	if (l4 == NULL)
		return malformed(err, subject, "fewer than three lines of text "
		    "(origin, size, root hash)");
	if ((size_t)(l2 - text) >= sizeof(out->origin) ||
	    !origin_matches(text, (size_t)(l2 - text), log->origin, rekor_v1)) {
		util_refuse(err, "tlog_checkpoint_origin", subject, "compared the "
		    "checkpoint's origin with the log's");
		snprintf(out->origin, sizeof(out->origin), "%.*s",
		    (int)(l2 - text < 200 ? l2 - text : 200), text);
		return util_error_expect(err, log->origin, out->origin);
	}
	snprintf(out->origin, sizeof(out->origin), "%.*s", (int)(l2 - text),
	    text);
	if (parse_size(l2 + 1, (size_t)(l3 - l2 - 1), &out->size) != 0)
		return malformed(err, subject, "the second line is not a tree size");
	if (sigstore_base64_decode(l3 + 1, (size_t)(l4 - l3 - 1), 32, &hash,
	    &hash_len) != 0 || hash_len != 32) {
		free(hash);
		return malformed(err, subject, "the third line is not a base64 "
		    "SHA-256 root hash");
	}
	memcpy(out->root_hash, hash, 32);
	free(hash);
	return 0;
}

int
sigstore_note_verify(const char *text, const sigstore_log *log, int rekor_v1,
    const char *subject, sigstore_checkpoint *out, ps_error *err)
{
	struct note_scan scan = { 0, 0, 0, "" };
	const char *split = strstr(text, "\n\n");
	unsigned char hint[4];
	char *body;
	int rc;

	memset(out, 0, sizeof(*out));
	if (split == NULL || split == text || strstr(split + 2, "\n\n") != NULL ||
	    strchr(text, '\r') != NULL)
		return malformed(err, subject, "one blank line must separate the "
		    "text from the signatures");
	if (log->key == NULL || sigstore_note_key_hint(log, hint) != 0)
		return util_refuse(err, "tlog_checkpoint_signature", subject, "the "
		    "log's key is of an algorithm packsign does not verify");
	if (scan_lines(split + 2, text, (size_t)(split + 1 - text), log, hint,
	    &scan, subject, err) != 0)
		return -1;
	if (scan.matched == 0 || scan.verified != scan.matched)
		return refuse_signature(&scan, log, hint, subject, err);
	body = strndup(text, (size_t)(split + 1 - text));
	if (body == NULL)
		return util_fail_oom(err, subject);
	rc = read_text(body, log, rekor_v1, subject, out, err);
	free(body);
	return rc;
}
