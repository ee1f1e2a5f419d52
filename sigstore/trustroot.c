/*
 * Trusted roots: strict (unknown fields, media types and hash algorithms
 * refused), bounded (SIGSTORE_ROOT_MAX_*), and every entry with the start
 * of its validity.  A root is operator input: anything wrong is exit 2.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>

#include "sigstore/publicgood.h"
#include "sigstore/trustroot.h"
#include "util/error.h"
#include "util/fdio.h"

static const char *const root_media_types[] = {
	"application/vnd.dev.sigstore.trustedroot+json;version=0.1",
	"application/vnd.dev.sigstore.trustedroot.v0.1+json",
	"application/vnd.dev.sigstore.trustedroot.v0.2+json",
};

int
sigstore_validity_contains(const sigstore_validity *v, sigstore_time t)
{
	return sigstore_time_cmp(v->start, t) <= 0 &&
	    (!v->has_end || sigstore_time_cmp(t, v->end) <= 0);
}

const sigstore_log *
sigstore_root_find_tlog(const ps_sigstore_root *root, const unsigned char *id,
    size_t len)
{
	const sigstore_log *l;
	size_t i;

	for (i = 0; i < root->tlog_count; i++) {
		l = &root->tlogs[i];
		if ((l->log_id_len == len && memcmp(l->log_id, id, len) == 0) ||
		    (l->checkpoint_key_id_len == len && len > 0 &&
		    memcmp(l->checkpoint_key_id, id, len) == 0))
			return l;
	}
	return NULL;
}

static void
log_clear(sigstore_log *l)
{
	free(l->base_url);
	free(l->origin);
	free(l->key_details);
	sigstore_pkey_free(l->key);
	free(l->operator_name);
}

static void
authority_clear(sigstore_authority *a)
{
	free(a->uri);
	free(a->organization);
	free(a->common_name);
	sk_X509_pop_free(a->chain, X509_free);
	free(a->operator_name);
}

void
ps_sigstore_root_free(ps_sigstore_root *root)
{
	size_t i;

	if (root == NULL)
		return;
	for (i = 0; i < root->tlog_count; i++)
		log_clear(&root->tlogs[i]);
	for (i = 0; i < root->ctlog_count; i++)
		log_clear(&root->ctlogs[i]);
	for (i = 0; i < root->ca_count; i++)
		authority_clear(&root->cas[i]);
	for (i = 0; i < root->tsa_count; i++)
		authority_clear(&root->tsas[i]);
	free(root->tlogs);
	free(root->ctlogs);
	free(root->cas);
	free(root->tsas);
	free(root->label);
	free(root);
}

/* A copy of an optional string (NULL stays NULL); -1 out of memory. */
static int
copy_opt(char **out, const char *s)
{
	*out = NULL;
	if (s == NULL)
		return 0;
	*out = strdup(s);
	return *out == NULL ? -1 : 0;
}

/* validFor: a TimeRange whose start is required and whose end, when
 * given, is not before it. */
static int
read_validity(const sigstore_doc *d, json_t *parent, const char *where,
    sigstore_validity *v, ps_error *err)
{
	static const char *const keys[] = { "start", "end" };
	char at[SIGSTORE_WHERE_MAX];
	json_t *range;
	int has_start;

	memset(v, 0, sizeof(*v));
	sigstore_where(at, where, "validFor");
	if (sigstore_json_object(d, parent, "validFor", where, 0, &range,
	    err) != 0)
		return -1;
	if (range != NULL && (sigstore_json_known(d, range, at, keys, 2,
	    err) != 0 || sigstore_json_time(d, range, "start", at, &v->start,
	    &has_start, err) != 0 || sigstore_json_time(d, range, "end", at,
	    &v->end, &v->has_end, err) != 0))
		return -1;
	if (range == NULL || !has_start) {
		util_fail(err, "trusted_root_validity", d->label, "%s: no start "
		    "of validity (validFor.start): an entry valid since an "
		    "unknown time is refused", where);
		return util_error_expect(err, "validFor.start", "none");
	}
	if (v->has_end && sigstore_time_cmp(v->end, v->start) < 0)
		return util_fail(err, "trusted_root_validity", d->label, "%s: "
		    "validFor ends before it starts", where);
	return 0;
}

/* logId / checkpointKeyId: {"keyId": base64}. */
static int
read_log_id(const sigstore_doc *d, json_t *parent, const char *key,
    const char *where, int required, unsigned char *out, size_t *out_len,
    ps_error *err)
{
	static const char *const keys[] = { "keyId" };
	char at[SIGSTORE_WHERE_MAX];
	unsigned char *bytes = NULL;
	json_t *id;
	size_t len = 0;

	*out_len = 0;
	sigstore_where(at, where, key);
	if (sigstore_json_object(d, parent, key, where, required, &id, err) != 0)
		return -1;
	if (id == NULL)
		return 0;
	if (sigstore_json_known(d, id, at, keys, 1, err) != 0 ||
	    sigstore_json_bytes(d, id, "keyId", at, 1, SIGSTORE_LOG_ID_MAX,
	    &bytes, &len, err) != 0)
		return -1;
	memcpy(out, bytes, len);
	*out_len = len;
	free(bytes);
	return 0;
}

/* RSA PKCS#1 v1.5 with SHA-256, under its several names. */
static int
rsa_pkcs1(const char *details)
{
	return strcmp(details, "PKCS1_RSA_PKCS1V5") == 0 ||
	    strcmp(details, "PKIX_RSA_PKCS1V5") == 0 ||
	    strncmp(details, "PKIX_RSA_PKCS1V15_", 18) == 0;
}

/* 1 when packsign verifies signatures of this PublicKeyDetails. */
static int
scheme_known(const char *details)
{
	return rsa_pkcs1(details) ||
	    strcmp(details, "PKIX_ECDSA_P256_SHA_256") == 0 ||
	    strcmp(details, "PKIX_ECDSA_P384_SHA_384") == 0 ||
	    strcmp(details, "PKIX_ECDSA_P521_SHA_512") == 0 ||
	    strcmp(details, "PKIX_ED25519") == 0;
}

static int
scheme_matches(const sigstore_pkey *key, const char *details)
{
	if (key->kind == SIGSTORE_KEY_RSA)
		return rsa_pkcs1(details);
	return strcmp(sigstore_pkey_details(key), details) == 0;
}

/* The log's key: kept when packsign verifies its scheme (else the log is
 * loaded without a key and verifies nothing); a key that is not what
 * keyDetails names is refused. */
static int
read_log_key(const sigstore_doc *d, json_t *pk, const char *at,
    sigstore_log *l, ps_error *err)
{
	static const char *const keys[] = { "rawBytes", "keyDetails",
	    "validFor" };
	const char *details;
	unsigned char *raw = NULL;
	size_t len = 0;

	if (sigstore_json_known(d, pk, at, keys, 3, err) != 0 ||
	    sigstore_json_string(d, pk, "keyDetails", at, 1, &details,
	    err) != 0 ||
	    sigstore_json_bytes(d, pk, "rawBytes", at, 1, SIGSTORE_CERT_MAX_BYTES,
	    &raw, &len, err) != 0 ||
	    read_validity(d, pk, at, &l->valid, err) != 0) {
		free(raw);
		return -1;
	}
	l->key_details = strdup(details);
	if (l->key_details == NULL) {
		free(raw);
		return util_fail_oom(err, d->label);
	}
	if (!scheme_known(details)) {
		free(raw);                  /* a scheme packsign lacks: no key */
		return 0;
	}
	if (sigstore_pkey_from_spki(raw, len,
	    strcmp(details, "PKCS1_RSA_PKCS1V5") == 0, &l->key) != 0 ||
	    !scheme_matches(l->key, details)) {
		sigstore_pkey_free(l->key);
		l->key = NULL;
		free(raw);
		return util_fail(err, "trusted_root_invalid", d->label, "%s: "
		    "rawBytes is not a valid %s public key", at, details);
	}
	free(raw);
	return 0;
}

/* "https://host/path/" -> "host/path": the checkpoint origin C2SP expects
 * a base URL to match. */
static char *
origin_of(const char *url)
{
	const char *s = strstr(url, "://");
	size_t len;

	s = s != NULL ? s + 3 : url;
	len = strlen(s);
	while (len > 0 && s[len - 1] == '/')
		len--;
	return strndup(s, len);
}

static int
read_log(const sigstore_doc *d, json_t *obj, const char *at, sigstore_log *l,
    ps_error *err)
{
	static const char *const keys[] = { "baseUrl", "hashAlgorithm",
	    "publicKey", "logId", "checkpointKeyId", "operator" };
	const char *url, *hash, *op;
	char pat[SIGSTORE_WHERE_MAX];
	json_t *pk;

	if (!json_is_object(obj))
		return sigstore_malformed(d, err, at, "not an object");
	sigstore_where(pat, at, "publicKey");
	if (sigstore_json_known(d, obj, at, keys, 6, err) != 0 ||
	    sigstore_json_string(d, obj, "baseUrl", at, 1, &url, err) != 0 ||
	    sigstore_json_string(d, obj, "hashAlgorithm", at, 1, &hash,
	    err) != 0 ||
	    sigstore_json_string(d, obj, "operator", at, 0, &op, err) != 0 ||
	    sigstore_json_object(d, obj, "publicKey", at, 1, &pk, err) != 0 ||
	    read_log_id(d, obj, "logId", at, 1, l->log_id, &l->log_id_len,
	    err) != 0 ||
	    read_log_id(d, obj, "checkpointKeyId", at, 0, l->checkpoint_key_id,
	    &l->checkpoint_key_id_len, err) != 0)
		return -1;
	if (strcmp(hash, "SHA2_256") != 0)
		return sigstore_malformed(d, err, at, "hashAlgorithm %.32s: logs "
		    "hash their Merkle trees with SHA2_256", hash);
	l->base_url = strdup(url);
	l->origin = origin_of(url);
	if (l->base_url == NULL || l->origin == NULL ||
	    copy_opt(&l->operator_name, op) != 0)
		return util_fail_oom(err, d->label);
	return read_log_key(d, pk, pat, l, err);
}

/* One certificate of a chain, DER, nothing after it. */
static int
read_cert(const sigstore_doc *d, json_t *obj, const char *at,
    STACK_OF(X509) *chain, ps_error *err)
{
	unsigned char *der = NULL;
	const unsigned char *p;
	size_t len = 0;
	X509 *x;

	if (!json_is_object(obj))
		return sigstore_malformed(d, err, at, "not an object");
	if (sigstore_json_bytes(d, obj, "rawBytes", at, 1, SIGSTORE_CERT_MAX_BYTES,
	    &der, &len, err) != 0)
		return -1;
	p = der;
	x = d2i_X509(NULL, &p, (long)len);
	if (x == NULL || p != der + len) {
		X509_free(x);
		free(der);
		ERR_clear_error();
		return sigstore_malformed(d, err, at, "not a DER X.509 "
		    "certificate");
	}
	free(der);
	if (sk_X509_push(chain, x) <= 0) {
		X509_free(x);
		return util_fail_oom(err, d->label);
	}
	return 0;
}

static int
read_chain(const sigstore_doc *d, json_t *obj, const char *where,
    sigstore_authority *a, ps_error *err)
{
	char at[SIGSTORE_WHERE_MAX], item[SIGSTORE_WHERE_MAX];
	json_t *chain, *certs;
	size_t i;

	sigstore_where(at, where, "certChain");
	if (sigstore_json_object(d, obj, "certChain", where, 1, &chain,
	    err) != 0 ||
	    sigstore_json_array(d, chain, "certificates", at, SIGSTORE_CHAIN_MAX,
	    &certs, err) != 0)
		return -1;
	if (certs == NULL || json_array_size(certs) == 0)
		return sigstore_malformed(d, err, at, "no certificates");
	a->chain = sk_X509_new_null();
	if (a->chain == NULL)
		return util_fail_oom(err, d->label);
	sigstore_where(at, at, "certificates");
	for (i = 0; i < json_array_size(certs); i++) {
		sigstore_where_index(item, at, i);
		if (read_cert(d, json_array_get(certs, i), item, a->chain,
		    err) != 0)
			return -1;
	}
	return 0;
}

static int
read_authority(const sigstore_doc *d, json_t *obj, const char *at,
    sigstore_authority *a, ps_error *err)
{
	static const char *const keys[] = { "subject", "uri", "certChain",
	    "validFor", "operator" };
	static const char *const subject_keys[] = { "organization",
	    "commonName" };
	char sat[SIGSTORE_WHERE_MAX];
	const char *uri, *org = NULL, *cn = NULL, *op;
	json_t *subject;

	if (!json_is_object(obj))
		return sigstore_malformed(d, err, at, "not an object");
	sigstore_where(sat, at, "subject");
	if (sigstore_json_known(d, obj, at, keys, 5, err) != 0 ||
	    sigstore_json_string(d, obj, "uri", at, 0, &uri, err) != 0 ||
	    sigstore_json_string(d, obj, "operator", at, 0, &op, err) != 0 ||
	    sigstore_json_object(d, obj, "subject", at, 0, &subject, err) != 0 ||
	    (subject != NULL && (sigstore_json_known(d, subject, sat,
	    subject_keys, 2, err) != 0 ||
	    sigstore_json_string(d, subject, "organization", sat, 0, &org,
	    err) != 0 ||
	    sigstore_json_string(d, subject, "commonName", sat, 0, &cn,
	    err) != 0)) ||
	    read_chain(d, obj, at, a, err) != 0 ||
	    read_validity(d, obj, at, &a->valid, err) != 0)
		return -1;
	if (copy_opt(&a->uri, uri) != 0 || copy_opt(&a->organization, org) != 0 ||
	    copy_opt(&a->common_name, cn) != 0 ||
	    copy_opt(&a->operator_name, op) != 0)
		return util_fail_oom(err, d->label);
	return 0;
}

/* Appends room for `add` more items of `size` to *items (count *count),
 * refusing past SIGSTORE_ROOT_MAX_ENTRIES. */
static int
grow(const sigstore_doc *d, void **items, size_t count, size_t add,
    size_t size, const char *what, ps_error *err)
{
	void *p;

	if (add > SIGSTORE_ROOT_MAX_ENTRIES - count)
		return sigstore_malformed(d, err, what, "more than %d entries",
		    SIGSTORE_ROOT_MAX_ENTRIES);
	p = realloc(*items, (count + add) * size + 1);
	if (p == NULL)
		return util_fail_oom(err, d->label);
	memset((char *)p + count * size, 0, add * size);
	*items = p;
	return 0;
}

static int
read_logs(const sigstore_doc *d, json_t *root, const char *key,
    sigstore_log **logs, size_t *count, ps_error *err)
{
	char at[SIGSTORE_WHERE_MAX];
	json_t *arr;
	size_t i, n;

	if (sigstore_json_array(d, root, key, NULL, SIGSTORE_ROOT_MAX_ENTRIES,
	    &arr, err) != 0)
		return -1;
	n = arr != NULL ? json_array_size(arr) : 0;
	if (grow(d, (void **)logs, *count, n, sizeof(**logs), key, err) != 0)
		return -1;
	for (i = 0; i < n; i++) {
		sigstore_where_index(at, key, i);
		(*count)++;
		if (read_log(d, json_array_get(arr, i), at,
		    &(*logs)[*count - 1], err) != 0)
			return -1;
	}
	return 0;
}

static int
read_authorities(const sigstore_doc *d, json_t *root, const char *key,
    sigstore_authority **list, size_t *count, ps_error *err)
{
	char at[SIGSTORE_WHERE_MAX];
	json_t *arr;
	size_t i, n;

	if (sigstore_json_array(d, root, key, NULL, SIGSTORE_ROOT_MAX_ENTRIES,
	    &arr, err) != 0)
		return -1;
	n = arr != NULL ? json_array_size(arr) : 0;
	if (grow(d, (void **)list, *count, n, sizeof(**list), key, err) != 0)
		return -1;
	for (i = 0; i < n; i++) {
		sigstore_where_index(at, key, i);
		(*count)++;
		if (read_authority(d, json_array_get(arr, i), at,
		    &(*list)[*count - 1], err) != 0)
			return -1;
	}
	return 0;
}

static int
check_media_type(const sigstore_doc *d, json_t *doc, ps_error *err)
{
	const char *type;
	size_t i;

	if (sigstore_json_string(d, doc, "mediaType", NULL, 1, &type, err) != 0)
		return -1;
	for (i = 0; i < sizeof(root_media_types) / sizeof(*root_media_types);
	    i++) {
		if (strcmp(type, root_media_types[i]) == 0)
			return 0;
	}
	util_fail(err, "trusted_root_unsupported", d->label, "a trusted root "
	    "of a media type packsign does not read");
	return util_error_expect(err, "trustedroot v0.1 or v0.2",
	    strlen(type) <= 128 ? type : "a long media type");
}

static int
read_document(const sigstore_doc *d, json_t *doc, ps_sigstore_root *root,
    ps_error *err)
{
	static const char *const keys[] = { "mediaType", "tlogs",
	    "certificateAuthorities", "ctlogs", "timestampAuthorities" };

	if (!json_is_object(doc))
		return sigstore_malformed(d, err, NULL, "a trusted root is a JSON "
		    "object");
	if (check_media_type(d, doc, err) != 0 ||
	    sigstore_json_known(d, doc, NULL, keys, 5, err) != 0 ||
	    read_logs(d, doc, "tlogs", &root->tlogs, &root->tlog_count,
	    err) != 0 ||
	    read_logs(d, doc, "ctlogs", &root->ctlogs, &root->ctlog_count,
	    err) != 0 ||
	    read_authorities(d, doc, "certificateAuthorities", &root->cas,
	    &root->ca_count, err) != 0 ||
	    read_authorities(d, doc, "timestampAuthorities", &root->tsas,
	    &root->tsa_count, err) != 0)
		return -1;
	root->documents++;
	return 0;
}

/* Each JSON value of the text in turn (one, or JSON Lines of several). */
static int
read_documents(const sigstore_doc *d, const char *text, size_t len,
    ps_sigstore_root *root, ps_error *err)
{
	size_t pos = 0, used;
	json_t *doc;
	int rc;

	for (;;) {
		pos += strspn(text + pos, " \t\r\n");
		if (pos >= len)
			break;
		if (root->documents == SIGSTORE_ROOT_MAX_DOCUMENTS)
			return sigstore_malformed(d, err, NULL, "more than %d trusted "
			    "roots in one file", SIGSTORE_ROOT_MAX_DOCUMENTS);
		if (sigstore_json_load(d, text + pos, len - pos, &used, &doc,
		    err) != 0)
			return -1;
		rc = read_document(d, doc, root, err);
		json_decref(doc);
		if (rc != 0)
			return -1;
		pos += used;
	}
	if (root->documents == 0)
		return sigstore_malformed(d, err, NULL, "empty: no trusted root");
	return 0;
}

int
ps_sigstore_root_parse(const void *bytes, size_t len, const char *name,
    ps_sigstore_root **out, ps_error *err)
{
	sigstore_doc d = { name, "trusted_root_invalid", PS_STATUS_FAILED };
	ps_sigstore_root *root;
	char *text;

	*out = NULL;
	if (len > SIGSTORE_ROOT_MAX_BYTES)
		return util_fail(err, "trusted_root_invalid", name, "the trusted "
		    "root is %zu bytes; the limit is %d", len,
		    SIGSTORE_ROOT_MAX_BYTES);
	root = calloc(1, sizeof(*root));
	text = malloc(len + 1);
	if (root == NULL || text == NULL || (root->label = strdup(name)) == NULL) {
		free(text);
		ps_sigstore_root_free(root);
		return util_fail_oom(err, name);
	}
	memcpy(text, bytes, len);
	text[len] = '\0';
	if (memchr(text, '\0', len) != NULL ||
	    read_documents(&d, text, len, root, err) != 0) {
		if (memchr(text, '\0', len) != NULL)
			sigstore_malformed(&d, err, NULL, "holds a NUL byte");
		free(text);
		ps_sigstore_root_free(root);
		return -1;
	}
	free(text);
	*out = root;
	return 0;
}

int
ps_sigstore_root_load(const char *path, ps_sigstore_root **out, ps_error *err)
{
	char *buf = malloc(SIGSTORE_ROOT_MAX_BYTES + 1);
	ssize_t n = -1;
	int fd, rc = -1;

	*out = NULL;
	if (buf == NULL)
		return util_fail_oom(err, path);
	fd = util_open_file(path, err);
	if (fd >= 0) {
		n = util_read_full(fd, buf, SIGSTORE_ROOT_MAX_BYTES + 1);
		if (n < 0)
			util_fail_errno(err, "io_error", path, "read", errno);
		close(fd);
	}
	if (n > SIGSTORE_ROOT_MAX_BYTES)
		util_fail(err, "trusted_root_invalid", path, "the trusted root is "
		    "over %d bytes", SIGSTORE_ROOT_MAX_BYTES);
	else if (n >= 0)
		rc = ps_sigstore_root_parse(buf, (size_t)n, path, out, err);
	free(buf);
	return rc;
}

int
ps_sigstore_root_public_good(ps_sigstore_root **out, ps_error *err)
{
	if (ps_sigstore_root_parse(sigstore_publicgood_json,
	    strlen(sigstore_publicgood_json), "the compiled-in public-good "
	    "trusted root", out, err) != 0)
		return -1;
	(*out)->builtin = 1;
	return 0;
}

const char *
ps_sigstore_public_good_source(void)
{
	return sigstore_publicgood_source;
}

const char *
ps_sigstore_public_good_date(void)
{
	return sigstore_publicgood_date;
}

void
ps_sigstore_root_get_info(const ps_sigstore_root *root,
    ps_sigstore_root_info *info)
{
	memset(info, 0, sizeof(*info));
	info->name = root->label;
	info->public_good = root->builtin;
	info->documents = root->documents;
	info->count[PS_SIGSTORE_CA] = root->ca_count;
	info->count[PS_SIGSTORE_TLOG] = root->tlog_count;
	info->count[PS_SIGSTORE_CTLOG] = root->ctlog_count;
	info->count[PS_SIGSTORE_TSA] = root->tsa_count;
}

static void
entry_validity(const sigstore_validity *v, ps_sigstore_root_entry *out)
{
	out->valid_from = v->start.sec;
	out->has_valid_until = v->has_end;
	out->valid_until = v->has_end ? v->end.sec : 0;
}

int
ps_sigstore_root_entry_get(const ps_sigstore_root *root,
    ps_sigstore_kind kind, size_t i, ps_sigstore_root_entry *out)
{
	const sigstore_log *l = NULL;
	const sigstore_authority *a = NULL;

	memset(out, 0, sizeof(*out));
	out->kind = kind;
	if (kind == PS_SIGSTORE_TLOG && i < root->tlog_count)
		l = &root->tlogs[i];
	else if (kind == PS_SIGSTORE_CTLOG && i < root->ctlog_count)
		l = &root->ctlogs[i];
	else if (kind == PS_SIGSTORE_CA && i < root->ca_count)
		a = &root->cas[i];
	else if (kind == PS_SIGSTORE_TSA && i < root->tsa_count)
		a = &root->tsas[i];
	if (l != NULL) {
		out->url = l->base_url;
		out->key_details = l->key_details;
		out->usable = l->key != NULL;
		entry_validity(&l->valid, out);
		return 0;
	}
	if (a == NULL)
		return -1;
	out->url = a->uri;
	out->usable = 1;
	out->certificates = (size_t)sk_X509_num(a->chain);
	out->organization = a->organization;
	out->common_name = a->common_name;
	entry_validity(&a->valid, out);
	return 0;
}
