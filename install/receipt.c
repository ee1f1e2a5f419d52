#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "diff/diff.h"
#include "sign/dsse.h"
#include "verify/certsigners.h"
#include "util/error.h"
#include "util/fdio.h"
#include "util/pathname.h"
#include "util/sha256.h"
#include "install/datadir.h"
#include "install/receipt.h"

static void
free_entries(ps_entry *entries, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		free(entries[i].path);
	free(entries);
}

void
install_receipt_clear(ps_installed *r)
{
	size_t i;

	free(r->id);
	free(r->version);
	free(r->name);
	free(r->domain);
	free(r->path);
	free(r->receipt_path);
	free(r->sig_path);
	free(r->signer);
	free(r->fingerprint);
	free(r->source_repository);
	free(r->source_commit);
	free(r->permissions);
	free(r->archive_name);
	free_entries(r->prompts, r->prompt_count);
	free_entries(r->entries, r->entry_count);
	for (i = 0; i < r->signer_count; i++) {
		free(r->signers[i].identity);
		free(r->signers[i].fingerprint);
		verify_keyless_result_free(r->signers[i].keyless);
	}
	free(r->signers);
	free(r->manifest_path);
	free(r->consent.from_version);
	free(r->consent.by);
	memset(r, 0, sizeof(*r));
}

void
install_receipt_free(ps_installed *r)
{
	if (r == NULL)
		return;
	install_receipt_clear(r);
	free(r);
}

/* ------------------------------------------------------------- writing */

static json_t *
digest_json(const unsigned char d[PS_SHA256_LEN])
{
	char text[PS_SHA256_STRING_LEN];

	return json_string(ps_sha256_string(d, text));
}

static json_t *
string_or_null(const char *s)
{
	return s != NULL ? json_string(s) : json_null();
}

static json_t *
entry_json(const ps_entry *e)
{
	if (e->type == PS_ENTRY_DIR)
		return json_pack("{s:s,s:s}", "path", e->path, "type", "dir");
	return json_pack("{s:s,s:s,s:I,s:b,s:o}", "path", e->path, "type",
	    "file", "size", (json_int_t)e->size, "executable", e->executable,
	    "sha256", digest_json(e->sha256));
}

static json_t *
prompt_json(const ps_entry *e)
{
	return json_pack("{s:s,s:o}", "path", e->path, "sha256",
	    digest_json(e->sha256));
}

static json_t *
entries_json(const ps_entry *entries, size_t count,
    json_t *(*one)(const ps_entry *))
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; list != NULL && i < count; i++) {
		if (json_array_append_new(list, one(&entries[i])) != 0) {
			json_decref(list);
			list = NULL;
		}
	}
	return list;
}

/* The certificate fields a receipt keeps of a keyless signer, in this
 * order (install.md, "Receipt"). */
#define KEYLESS_FIELDS(X) X(issuer) X(subject) X(repository) \
	X(repository_id) X(owner_id) X(ref) X(commit) X(signer_workflow) \
	X(config_workflow) X(trigger) X(runner)

static json_t *
keyless_json(const ps_verify_keyless *k)
{
	json_t *o;

	if (k == NULL)
		return NULL;
	o = json_pack("{s:s}", "signerId", k->signer_id);
#define PUT(f) json_object_set_new(o, #f, string_or_null(k->f));
	KEYLESS_FIELDS(PUT)
#undef PUT
	return o;
}

static json_t *
signers_json(const ps_installed *r)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; list != NULL && i < r->signer_count; i++)
		json_array_append_new(list, json_pack("{s:s,s:s,s:o*}",
		    "identity", r->signers[i].identity, "fingerprint",
		    r->signers[i].fingerprint, "keyless",
		    keyless_json(r->signers[i].keyless)));
	return list;
}

static json_t *
consent_json(const ps_consent_record *c)
{
	if (c->from_version == NULL)
		return json_null();
	return json_pack("{s:s,s:o,s:o,s:s}", "fromVersion", c->from_version,
	    "asked", diff_consent_json(c->asked), "widened", diff_consent_json(c->widened),
	    "by", c->by != NULL ? c->by : "none");
}

static json_t *
source_json(const ps_installed *r)
{
	if (r->source_commit == NULL)
		return json_null();
	return json_pack("{s:o,s:s}", "repository",
	    string_or_null(r->source_repository), "commit", r->source_commit);
}

/*
 * Output in pieces: to a descriptor through a buffer, or into memory.  A
 * receipt of 100,000 files is written one entry at a time, never held as
 * one JSON tree (issue 8: memory).
 */
struct sink {
	int fd;                     /* -1: into `mem` */
	char *mem;
	size_t len, capacity;
	const char *label;
	ps_error *err;
	int failed;
	const char *url;            /* archive.url, or NULL */
};

#define SINK_FLUSH (64 * 1024)

static int
sink_grow(struct sink *k, size_t more)
{
	size_t capacity = k->capacity == 0 ? SINK_FLUSH * 2 : k->capacity;
	char *mem;

	while (capacity - k->len <= more)
		capacity *= 2;
	if (capacity == k->capacity)
		return 0;
	if ((mem = realloc(k->mem, capacity)) == NULL)
		return util_fail_oom(k->err, k->label);
	k->mem = mem;
	k->capacity = capacity;
	return 0;
}

static int
sink_flush(struct sink *k)
{
	if (k->fd < 0 || k->len == 0)
		return 0;
	if (util_write_all(k->fd, k->mem, k->len, k->label, k->err) != 0)
		return -1;
	k->len = 0;
	return 0;
}

static void
sink_put(struct sink *k, const char *s, size_t n)
{
	if (k->failed || sink_grow(k, n) != 0) {
		k->failed = 1;
		return;
	}
	memcpy(k->mem + k->len, s, n);
	k->len += n;
	k->mem[k->len] = '\0';
	if (k->len >= SINK_FLUSH && sink_flush(k) != 0)
		k->failed = 1;
}

static void
sink_puts(struct sink *k, const char *s)
{
	sink_put(k, s, strlen(s));
}

/* `j`'s members between its braces, one-space indented; consumes j. */
static void
sink_members(struct sink *k, json_t *j)
{
	char *text = j != NULL ? json_dumps(j, JSON_SORT_KEYS |
	    JSON_INDENT(1)) : NULL;
	size_t n = text != NULL ? strlen(text) : 0;

	json_decref(j);
	if (n < 4) {                /* "{\n...\n}" */
		k->failed = 1;
		free(text);
		return;
	}
	sink_put(k, text + 2, n - 4);
	free(text);
}

/* Each entry on one line: written and freed as it goes. */
static void
sink_entries(struct sink *k, const ps_entry *entries, size_t count)
{
	char *text;
	size_t i;

	sink_puts(k, count == 0 ? " \"files\": []" : " \"files\": [\n");
	for (i = 0; i < count && !k->failed; i++) {
		json_t *j = entry_json(&entries[i]);

		text = j != NULL ? json_dumps(j, JSON_SORT_KEYS |
		    JSON_COMPACT) : NULL;
		json_decref(j);
		if (text == NULL) {
			k->failed = 1;
			break;
		}
		sink_puts(k, "  ");
		sink_puts(k, text);
		sink_puts(k, i + 1 < count ? ",\n" : "\n ]");
		free(text);
	}
}

/* Keys in order: those before "files", the files, those after. */
static void
emit(struct sink *k, const ps_installed *r, const char *at)
{
	sink_puts(k, "{\n");
	sink_members(k, json_pack("{s:{s:s,s:o,s:s*},s:I,s:o,s:o}", "archive",
	    "name", r->archive_name, "sha256", digest_json(r->archive_digest),
	    "url", k->url, "bundles", (json_int_t)r->bundle_count,
	    "consent", consent_json(&r->consent),
	    "domain", string_or_null(r->domain)));
	sink_puts(k, ",\n");
	sink_entries(k, r->entries, r->entry_count);
	sink_puts(k, ",\n");
	sink_members(k, json_pack("{s:s,s:s,s:s,s:{s:s,s:o},s:o,s:i,s:s,s:s,"
	    "s:o,s:{s:s,s:s},s:o,s:o,s:o,s:s}",
	    "format", ps_format_name(r->format), "id", r->id,
	    "installedAt", at, "manifest", "path", r->manifest_path, "sha256",
	    digest_json(r->manifest_sha256), "name", string_or_null(r->name),
	    "packsignReceipt", INSTALL_RECEIPT_VERSION, "path", r->path,
	    "permissions", r->permissions,
	    "prompts", entries_json(r->prompts, r->prompt_count, prompt_json),
	    "signer", "identity", r->signer, "fingerprint", r->fingerprint,
	    "signers", signers_json(r), "source", source_json(r),
	    "treeDigest", digest_json(r->tree_digest), "version", r->version));
	sink_puts(k, "\n}\n");
}

static int
receipt_emit(struct sink *k, const ps_installed *r)
{
	char at[PS_TIME_TEXT_LEN];

	if (ps_time_format(r->installed_at, at) != 0)
		return util_fail(k->err, "invalid_argument", r->id, "install time "
		    "out of range");
	emit(k, r, at);
	if (!k->failed && sink_flush(k) != 0)
		k->failed = 1;
	if (k->failed && k->err->code[0] == '\0')
		util_fail_oom(k->err, r->id);
	return k->failed ? -1 : 0;
}

int
install_receipt_format(const ps_installed *r, char **out, ps_error *err)
{
	struct sink k = { -1, NULL, 0, 0, r->id, err, 0, NULL };

	*out = NULL;
	ps_error_clear(err);
	if (receipt_emit(&k, r) != 0) {
		free(k.mem);
		return -1;
	}
	*out = k.mem;
	return 0;
}

int
install_receipt_write(int fd, const ps_installed *r, const char *url,
    const char *label, ps_error *err)
{
	struct sink k = { fd, NULL, 0, 0, label, err, 0, url };
	int rc;

	ps_error_clear(err);
	rc = receipt_emit(&k, r);
	free(k.mem);
	return rc;
}

/* ------------------------------------------------------------- reading */

struct parse {
	const char *label;
	ps_error *err;
};

static int
invalid(struct parse *p, const char *what, const char *name)
{
	/* name is a key or a path get_string() returned; the analyzer stops
	 * inlining this deep and loses that get_string() fails whenever it
	 * leaves NULL. */
	/* NOLINTNEXTLINE(clang-analyzer-core.NullDereference) */
	util_refuse(p->err, "receipt_invalid", p->label, "%s%s%s", what,
	    name[0] != '\0' ? ": " : "", name);
	return -1;
}

static int
get_string(struct parse *p, json_t *obj, const char *key, int nullable,
    char **out)
{
	json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (nullable && json_is_null(v))
		return 0;
	if (!json_is_string(v) || strlen(json_string_value(v)) !=
	    json_string_length(v))
		return invalid(p, "must be a string without NUL", key);
	if ((*out = strdup(json_string_value(v))) == NULL)
		return util_fail_oom(p->err, p->label);
	return 0;
}

static int
get_digest(struct parse *p, json_t *obj, const char *key,
    unsigned char out[PS_SHA256_LEN])
{
	json_t *v = json_object_get(obj, key);
	const char *s = json_string_value(v);

	if (s == NULL || strncmp(s, "sha256:", 7) != 0 ||
	    util_hex_decode(s + 7, out, PS_SHA256_LEN) != 0)
		return invalid(p, "must be \"sha256:\" and 64 hex digits", key);
	return 0;
}

static int
parse_entry(struct parse *p, json_t *j, int prompt, ps_entry *e)
{
	json_t *size = json_object_get(j, "size");
	const char *type = json_string_value(json_object_get(j, "type"));
	ps_error ignored;

	if (!json_is_object(j) || get_string(p, j, "path", 0, &e->path) != 0)
		return invalid(p, "an entry without a path", prompt ? "prompts" :
		    "files");
	if (util_path_check(e->path, NULL, &ignored) != 0)
		return invalid(p, "an entry's path breaks the name rules",
		    e->path);
	if (prompt)
		return get_digest(p, j, "sha256", e->sha256);
	if (type != NULL && strcmp(type, "dir") == 0) {
		e->type = PS_ENTRY_DIR;
		return 0;
	}
	if (type == NULL || strcmp(type, "file") != 0 ||
	    !json_is_integer(size) || json_integer_value(size) < 0 ||
	    !json_is_boolean(json_object_get(j, "executable")))
		return invalid(p, "a file entry needs type, size, executable",
		    e->path);
	e->size = (uint64_t)json_integer_value(size);
	e->executable = json_is_true(json_object_get(j, "executable"));
	return get_digest(p, j, "sha256", e->sha256);
}

static int
parse_entries(struct parse *p, json_t *list, int prompt, ps_entry **out,
    size_t *count)
{
	size_t i, n = json_array_size(list);

	*out = NULL;
	*count = 0;
	if (!json_is_array(list))
		return invalid(p, "must be a list", prompt ? "prompts" :
		    "files");
	if (n > 0 && (*out = calloc(n, sizeof(ps_entry))) == NULL)
		return util_fail_oom(p->err, p->label);
	for (i = 0; i < n; i++) {
		(*count)++;
		if (parse_entry(p, json_array_get(list, i), prompt, &(*out)[i]) != 0)
			return -1;
		/* parse_entry() returns 0 only with a path; the analyzer stops
		 * inlining this deep and loses that. */
		/* NOLINTNEXTLINE(clang-analyzer-core.NonNullParamChecker) */
		if (i > 0 && strcmp((*out)[i - 1].path, (*out)[i].path) >= 0)
			return invalid(p, "entries must be sorted and unique",
			    (*out)[i].path);
	}
	return 0;
}

/* Receipt 3: a signer's "keyless", absent or null for a key. */
static int
parse_keyless(struct parse *p, json_t *j, ps_installed_signer *sg)
{
	ps_verify_keyless *k;
	char *id = NULL;

	if (j == NULL || json_is_null(j))
		return 0;
	if ((k = sg->keyless = calloc(1, sizeof(*k))) == NULL)
		return util_fail_oom(p->err, p->label);
	if (!json_is_object(j) || get_string(p, j, "signerId", 0, &id) != 0 ||
	    strlen(id) >= sizeof(k->signer_id)) {
		free(id);
		return invalid(p, "must be null or name a signerId", "keyless");
	}
	memcpy(k->signer_id, id, strlen(id) + 1);
	free(id);
#define GET(f) if (get_string(p, j, #f, 1, &k->f) != 0) \
		return invalid(p, "fields must be strings or null", "keyless");
	KEYLESS_FIELDS(GET)
#undef GET
	return 0;
}

static int
add_signer(struct parse *p, ps_installed *r, json_t *j)
{
	ps_installed_signer *grown, *sg;

	grown = realloc(r->signers, (r->signer_count + 1) * sizeof(*grown));
	if (grown == NULL)
		return util_fail_oom(p->err, p->label);
	r->signers = grown;
	sg = &r->signers[r->signer_count++];
	memset(sg, 0, sizeof(*sg));
	if (!json_is_object(j) ||
	    get_string(p, j, "identity", 0, &sg->identity) != 0 ||
	    get_string(p, j, "fingerprint", 0, &sg->fingerprint) != 0)
		return invalid(p, "each must name identity and fingerprint",
		    "signers");
	if (parse_keyless(p, json_object_get(j, "keyless"), sg) != 0)
		return -1;
	if (r->signer_count > 1 &&
	    strcmp(r->signers[r->signer_count - 2].identity, sg->identity) >= 0)
		return invalid(p, "must be sorted by identity, without duplicates",
		    "signers");
	return 0;
}

/* Receipt 1 recorded one signer: it reads as that one. */
static int
parse_signers(struct parse *p, json_t *root, ps_installed *r, int version)
{
	json_t *list = json_object_get(root, "signers");
	size_t i, n = json_array_size(list);

	json_t *one;
	int rc;

	if (version == 1) {
		one = json_pack("{s:s,s:s}", "identity", r->signer,
		    "fingerprint", r->fingerprint);
		rc = add_signer(p, r, one);
		json_decref(one);
		return rc;
	}
	if (!json_is_array(list) || n == 0 || n > SIGN_DSSE_MAX_SIGNATURES)
		return invalid(p, "must list 1 to 64 signers", "signers");
	for (i = 0; i < n; i++) {
		if (add_signer(p, r, json_array_get(list, i)) != 0)
			return -1;
	}
	return 0;
}

static int
parse_classes(struct parse *p, json_t *list, unsigned *out)
{
	size_t i;
	unsigned bit;

	*out = 0;
	if (!json_is_array(list))
		return invalid(p, "must list consent classes", "consent");
	for (i = 0; i < json_array_size(list); i++) {
		bit = ps_consent_class_by_name(json_string_value(
		    json_array_get(list, i)));
		if (bit == 0)
			return invalid(p, "an unknown consent class", "consent");
		*out |= bit;
	}
	return 0;
}

static int
parse_consent(struct parse *p, json_t *root, ps_installed *r)
{
	json_t *c = json_object_get(root, "consent");
	ps_consent_record *rec = &r->consent;

	if (json_is_null(c))
		return 0;
	if (!json_is_object(c) ||
	    get_string(p, c, "fromVersion", 0, &rec->from_version) != 0 ||
	    get_string(p, c, "by", 0, &rec->by) != 0 ||
	    parse_classes(p, json_object_get(c, "asked"), &rec->asked) != 0 ||
	    parse_classes(p, json_object_get(c, "widened"), &rec->widened) != 0)
		return invalid(p, "must be null or name fromVersion, asked, "
		    "widened and by", "consent");
	return 0;
}

/* What receipt 2 adds: every signer, the manifest, the consent. */
static int
parse_version2(struct parse *p, json_t *root, ps_installed *r)
{
	json_t *m = json_object_get(root, "manifest");
	ps_error ignored;

	if (!json_is_object(m) ||
	    get_string(p, m, "path", 0, &r->manifest_path) != 0 ||
	    util_path_check(r->manifest_path, NULL, &ignored) != 0 ||
	    get_digest(p, m, "sha256", r->manifest_sha256) != 0)
		return invalid(p, "must name the manifest's path and sha256",
		    "manifest");
	return parse_consent(p, root, r);
}

/* Receipt 3: how many bundles were kept in place of the .sig. */
static int
parse_bundles(struct parse *p, json_t *root, ps_installed *r)
{
	json_t *n = json_object_get(root, "bundles");

	if (!json_is_integer(n) || json_integer_value(n) < 0 ||
	    json_integer_value(n) > SIGN_DSSE_MAX_SIGNATURES)
		return invalid(p, "must be a count of 0 to 64", "bundles");
	r->bundle_count = (size_t)json_integer_value(n);
	return 0;
}

static int
parse_identity(struct parse *p, json_t *root, ps_installed *r)
{
	json_t *signer = json_object_get(root, "signer");
	json_t *source = json_object_get(root, "source");
	json_t *version = json_object_get(root, "packsignReceipt");
	json_int_t v = json_integer_value(version);

	if (!json_is_integer(version) || v < 1 || v > INSTALL_RECEIPT_VERSION)
		return invalid(p, "unsupported receipt version (packsignReceipt)", "");
	if (!json_is_object(signer) ||
	    get_string(p, signer, "identity", 0, &r->signer) != 0 ||
	    get_string(p, signer, "fingerprint", 0, &r->fingerprint) != 0)
		return invalid(p, "must name identity and fingerprint", "signer");
	if (parse_signers(p, root, r, (int)v) != 0 ||
	    (v >= 2 && parse_version2(p, root, r) != 0) ||
	    (v >= 3 && parse_bundles(p, root, r) != 0))
		return -1;
	if (json_is_null(source))
		return 0;
	if (!json_is_object(source) ||
	    get_string(p, source, "repository", 1, &r->source_repository) != 0 ||
	    get_string(p, source, "commit", 0, &r->source_commit) != 0)
		return invalid(p, "must be null or name a commit", "source");
	return 0;
}

static int
parse_fields(struct parse *p, json_t *root, ps_installed *r)
{
	json_t *archive = json_object_get(root, "archive");
	char *format = NULL, *at = NULL;
	int rc;

	rc = get_string(p, root, "format", 0, &format) != 0 ||
	    ps_format_parse(format, &r->format) != 0 ||
	    get_string(p, root, "installedAt", 0, &at) != 0 ||
	    ps_time_parse(at, &r->installed_at) != 0 ? -1 : 0;
	free(format);
	free(at);
	if (rc != 0)
		return invalid(p, "format or installedAt is not valid", "");
	if (get_string(p, root, "id", 0, &r->id) != 0 ||
	    get_string(p, root, "version", 0, &r->version) != 0 ||
	    get_string(p, root, "name", 1, &r->name) != 0 ||
	    get_string(p, root, "domain", 1, &r->domain) != 0 ||
	    get_string(p, root, "permissions", 0, &r->permissions) != 0 ||
	    get_string(p, root, "path", 0, &r->path) != 0 ||
	    parse_identity(p, root, r) != 0)
		return -1;
	if (!json_is_object(archive))
		return invalid(p, "must be an object", "archive");
	if (get_string(p, archive, "name", 0, &r->archive_name) != 0 ||
	    get_digest(p, archive, "sha256", r->archive_digest) != 0 ||
	    get_digest(p, root, "treeDigest", r->tree_digest) != 0)
		return -1;
	return 0;
}

int
install_receipt_parse(const char *text, size_t len, const char *label,
    ps_installed **out, ps_error *err)
{
	struct parse p = { label, err };
	json_error_t jerr;
	ps_installed *r;
	json_t *root;
	int rc = -1;

	*out = NULL;
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (root == NULL || !json_is_object(root)) {
		json_decref(root);
		return util_refuse(err, "receipt_invalid", label, "not a JSON "
		    "object: %s", root == NULL ? jerr.text : "another value");
	}
	if ((r = calloc(1, sizeof(*r))) == NULL) {
		json_decref(root);
		return util_fail_oom(err, label);
	}
	if (parse_fields(&p, root, r) == 0 &&
	    parse_entries(&p, json_object_get(root, "prompts"), 1, &r->prompts,
	    &r->prompt_count) == 0 &&
	    parse_entries(&p, json_object_get(root, "files"), 0, &r->entries,
	    &r->entry_count) == 0)
		rc = 0;
	json_decref(root);
	if (rc != 0) {
		install_receipt_free(r);
		return -1;
	}
	*out = r;
	return 0;
}

static int
read_receipt(int fd, const char *label, char **text, size_t *len,
    ps_error *err)
{
	struct stat st;
	ssize_t n;

	if (fstat(fd, &st) != 0)
		return util_fail_errno(err, "io_error", label, "stat", errno);
	if (!S_ISREG(st.st_mode) || st.st_size > INSTALL_RECEIPT_MAX_BYTES)
		return util_refuse(err, "receipt_invalid", label, "is not a regular "
		    "file of at most %d bytes", INSTALL_RECEIPT_MAX_BYTES);
	if ((*text = malloc((size_t)st.st_size + 1)) == NULL)
		return util_fail_oom(err, label);
	n = util_read_full(fd, *text, (size_t)st.st_size + 1);
	if (n < 0 || n > st.st_size)
		return util_fail_errno(err, "io_error", label, "read",
		    n < 0 ? errno : EFBIG);
	*len = (size_t)n;
	return 0;
}

int
install_receipt_load(int dirfd, const char *rel, const char *label,
    ps_installed **out, ps_error *err)
{
	char path[UTIL_PATH_MAX];
	char *text = NULL;
	size_t len = 0;
	int fd, rc;

	*out = NULL;
	snprintf(path, sizeof(path), "%s/%s.json", INSTALL_DATADIR_RECEIPTS, rel);
	fd = util_open_beneath(dirfd, path, O_RDONLY | O_NONBLOCK);
	if (fd < 0 && errno == ENOENT)
		return util_refuse(err, "not_installed", label, "has no receipt");
	if (fd < 0)
		return util_fail_errno(err, "io_error", label, "open receipt", errno);
	rc = read_receipt(fd, label, &text, &len, err);
	close(fd);
	if (rc == 0)
		rc = install_receipt_parse(text, len, label, out, err);
	free(text);
	if (rc == 0 && strcmp((*out)->path, rel) != 0) {
		install_receipt_free(*out);
		*out = NULL;
		util_refuse(err, "receipt_invalid", label, "the receipt records "
		    "another location");
		return util_error_expect(err, rel, "another path");
	}
	return rc;
}
