/* The in-toto Statement v1 with packsign's pack predicate. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <unistr.h>

#include "sign/statement.h"
#include "util/error.h"
#include "util/pathname.h"
#include "util/sha256.h"
#include "util/chunks.h"
#include "util/strings.h"

static int
invalid(ps_error *err, const char *field, const char *what)
{
	return util_refuse(err, "statement_invalid", field,
	    "not a valid packsign statement: %s", what);
}

static const char *const compression_names[] = { "none", "gzip", "zstd" };

const char *
ps_compression_name(ps_compression compression)
{
	if ((unsigned)compression >= 3)
		return NULL;
	return compression_names[compression];
}

int
ps_compression_by_name(const char *name, ps_compression *out)
{
	unsigned i;

	for (i = 0; i < 3; i++) {
		if (strcmp(name, compression_names[i]) == 0) {
			*out = (ps_compression)i;
			return 0;
		}
	}
	return -1;
}

int
sign_statement_new(sign_statement **out, ps_error *err)
{
	*out = calloc(1, sizeof(**out));
	return *out == NULL ? util_fail_oom(err, NULL) : 0;
}

static void
free_files(sign_statement_file *files, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		free(files[i].path);
	free(files);
}

void
sign_statement_free(sign_statement *st)
{
	if (st == NULL)
		return;
	free_files(st->subjects, st->subject_count);
	free_files(st->prompts, st->prompt_count);
	free(st->pack_id);
	free(st->pack_version);
	free(st->pack_name);
	free(st->manifest_path);
	free(st->source_repository);
	free(st->source_commit);
	free(st->source_path);
	free(st->source_manifest_commit);
	free(st->packsign_version);
	free(st->chunks);
	free(st);
}

static int
add_file(sign_statement_file **files, size_t *count, const char *path,
    const unsigned char sha256[PS_SHA256_LEN], ps_error *err)
{
	sign_statement_file *grown;

	if (*count >= SIGN_STATEMENT_MAX_ITEMS)
		return util_refuse(err, "statement_invalid", path,
		    "a statement lists at most %d subjects or prompt files",
		    SIGN_STATEMENT_MAX_ITEMS);
	grown = realloc(*files, (*count + 1) * sizeof(**files));
	if (grown == NULL)
		return util_fail_oom(err, NULL);
	*files = grown;
	grown[*count].path = strdup(path);
	if (grown[*count].path == NULL)
		return util_fail_oom(err, NULL);
	memcpy(grown[*count].sha256, sha256, PS_SHA256_LEN);
	(*count)++;
	return 0;
}

int
sign_statement_add_subject(sign_statement *st, const char *name,
    const unsigned char sha256[PS_SHA256_LEN], ps_error *err)
{
	return add_file(&st->subjects, &st->subject_count, name, sha256, err);
}

int
sign_statement_add_prompt(sign_statement *st, const char *path,
    const unsigned char sha256[PS_SHA256_LEN], ps_error *err)
{
	return add_file(&st->prompts, &st->prompt_count, path, sha256, err);
}

int
sign_statement_set_digest(sign_statement *st, const ps_digest *digest,
    ps_error *err)
{
	if (digest->manifest_path == NULL)
		return util_fail(err, "invalid_argument", NULL,
		    "the statement needs a manifest");
	free(st->manifest_path);
	st->manifest_path = strdup(digest->manifest_path);
	if (st->manifest_path == NULL)
		return util_fail_oom(err, NULL);
	st->format = digest->format;
	st->no_tar_digest = !digest->has_tar_digest;
	memcpy(st->tar_digest, digest->tar_digest, PS_SHA256_LEN);
	memcpy(st->tree_digest, digest->tree_digest, PS_SHA256_LEN);
	memcpy(st->manifest_sha256, digest->manifest_sha256, PS_SHA256_LEN);
	return 0;
}

/* ---------------------------------------------------------------- check */

static int
check_text(const char *field, const char *s, int required, size_t max,
    ps_error *err)
{
	size_t len;

	if (s == NULL)
		return required ? invalid(err, field, "missing") : 0;
	len = strlen(s);
	if (required && len == 0)
		return invalid(err, field, "empty");
	if (len > max) {
		invalid(err, field, "too long");
		return util_error_expect(err, "a shorter string", "over the limit");
	}
	if (u8_check((const uint8_t *)s, len) != NULL)
		return invalid(err, field, "not valid UTF-8");
	return 0;
}

static int
check_commit(const char *field, const char *s, ps_error *err)
{
	if (s == NULL)
		return invalid(err, field, "missing");
	if (!util_commit_id_valid(s, 0)) {
		invalid(err, field, "not a full git commit id");
		return util_error_expect(err, "40 or 64 lowercase hex digits", s);
	}
	return 0;
}

static int
check_path(const char *field, const char *path, ps_error *err)
{
	char label[PS_ERROR_TEXT_MAX];

	if (path == NULL)
		return invalid(err, field, "missing");
	snprintf(label, sizeof(label), "%s", field);
	return util_path_check(path, label, err);
}

static int
check_subjects(const sign_statement *st, ps_error *err)
{
	size_t i;

	if (st->subject_count == 0 || st->subject_count > SIGN_STATEMENT_MAX_ITEMS)
		return invalid(err, "subject", "1 to 10000 subjects are needed");
	for (i = 0; i < st->subject_count; i++) {
		if (check_path("subject.name", st->subjects[i].path, err) != 0)
			return -1;
		if (strchr(st->subjects[i].path, '/') != NULL)
			return invalid(err, "subject.name", "not a plain file name");
	}
	return 0;
}

static int
check_prompts(const sign_statement *st, ps_error *err)
{
	size_t i;

	if (st->prompt_count > SIGN_STATEMENT_MAX_ITEMS)
		return invalid(err, "predicate.prompts", "over 10000 entries");
	for (i = 0; i < st->prompt_count; i++) {
		if (check_path("predicate.prompts.path", st->prompts[i].path,
		    err) != 0)
			return -1;
		if (i > 0 && strcmp(st->prompts[i - 1].path,
		    st->prompts[i].path) >= 0) {
			invalid(err, "predicate.prompts",
			    "paths not in ascending bytewise order or repeated");
			return util_error_expect(err, st->prompts[i - 1].path,
			    st->prompts[i].path);
		}
	}
	return 0;
}

static int
check_source(const sign_statement *st, ps_error *err)
{
	if (!st->has_source)
		return 0;
	if (st->source_repository != NULL &&
	    check_text("predicate.source.repository", st->source_repository, 1,
	    SIGN_STATEMENT_MAX_URL, err) != 0)
		return -1;
	if (st->source_repository != NULL &&
	    strncmp(st->source_repository, "https://", 8) != 0)
		return invalid(err, "predicate.source.repository",
		    "not an https URL");
	if (check_commit("predicate.source.digest.gitCommit", st->source_commit,
	    err) != 0)
		return -1;
	if (st->source_path == NULL)
		return invalid(err, "predicate.source.path", "missing");
	if (st->source_path[0] != '\0' &&
	    check_path("predicate.source.path", st->source_path, err) != 0)
		return -1;
	if (st->source_manifest_commit != NULL &&
	    check_commit("predicate.source.manifestRef.gitCommit",
	    st->source_manifest_commit, err) != 0)
		return -1;
	return 0;
}

static int
check_pack(const sign_statement *st, ps_error *err)
{
	if (ps_format_manifest_name(st->format) == NULL)
		return invalid(err, "predicate.format", "unknown pack format");
	if (check_text("predicate.pack.id", st->pack_id, 1,
	    SIGN_STATEMENT_MAX_STRING, err) != 0 ||
	    check_text("predicate.pack.version", st->pack_version, 1,
	    SIGN_STATEMENT_MAX_STRING, err) != 0 ||
	    check_text("predicate.pack.name", st->pack_name, 0,
	    SIGN_STATEMENT_MAX_STRING, err) != 0)
		return -1;
	if (st->manifest_path == NULL ||
	    ps_format_by_manifest(st->manifest_path) != st->format) {
		invalid(err, "predicate.manifest.path",
		    "not the manifest of the stated format");
		return util_error_expect(err, ps_format_manifest_name(st->format),
		    st->manifest_path != NULL ? st->manifest_path : "nothing");
	}
	return 0;
}

static int
check_build(const sign_statement *st, ps_error *err)
{
	if (st->no_build)
		return 0;
	if (check_text("predicate.build.packsignVersion", st->packsign_version,
	    1, SIGN_STATEMENT_MAX_STRING, err) != 0)
		return -1;
	if (st->mtime < 0 || st->mtime > PS_MTIME_MAX)
		return invalid(err, "predicate.build.mtime",
		    "outside 0 .. 8589934591");
	if (ps_compression_name(st->compression) == NULL)
		return invalid(err, "predicate.build.compression",
		    "unknown compression");
	return 0;
}

int
sign_statement_set_chunks(sign_statement *st, uint64_t size,
    const unsigned char (*chunks)[PS_SHA256_LEN], size_t count,
    ps_error *err)
{
	free(st->chunks);
	st->chunks = NULL;
	st->chunk_count = 0;
	if (count == 0 || count > SIGN_CHUNKS_MAX)
		return invalid(err, "predicate.chunks", "1 to 16384 chunks");
	if ((st->chunks = malloc(count * sizeof(*st->chunks))) == NULL)
		return util_fail_oom(err, NULL);
	memcpy(st->chunks, chunks, count * sizeof(*st->chunks));
	st->chunk_count = count;
	st->archive_size = size;
	st->predicate_version = 2;
	return 0;
}

/* v2: one subject, its size and exactly its number of chunks. */
static int
check_chunks(const sign_statement *st, ps_error *err)
{
	char want[32], found[32];

	if (st->predicate_version != 2)
		return 0;
	if (st->subject_count != 1)
		return invalid(err, "subject", "a v2 statement has one subject, "
		    "the archive its chunks describe");
	if (util_ends_with(st->subjects[0].path, ".zip"))
		return invalid(err, "subject", "a v2 statement is for a tar (a "
		    "zip is read with seeks: it is signed with v1)");
	if (st->archive_size == 0 ||
	    st->archive_size > (uint64_t)SIGN_CHUNKS_MAX * UTIL_CHUNK_SIZE)
		return invalid(err, "predicate.chunks.archiveSize",
		    "1 to 17179869184 bytes (16,384 chunks of 1 MiB)");
	if (st->chunk_count != util_chunks_count(st->archive_size)) {
		invalid(err, "predicate.chunks.sha256", "one digest per 1 MiB "
		    "chunk of archiveSize bytes, the last one short");
		snprintf(want, sizeof(want), "%llu digests", (unsigned long long)
		    util_chunks_count(st->archive_size));
		snprintf(found, sizeof(found), "%zu", st->chunk_count);
		return util_error_expect(err, want, found);
	}
	return 0;
}

int
sign_statement_check(const sign_statement *st, ps_error *err)
{
	if (check_subjects(st, err) != 0 || check_pack(st, err) != 0 ||
	    check_prompts(st, err) != 0 || check_source(st, err) != 0 ||
	    check_build(st, err) != 0 || check_chunks(st, err) != 0)
		return -1;
	return 0;
}

/* ---------------------------------------------------------------- write */

static json_t *
digest_set(const char *alg, const unsigned char *bytes, size_t len)
{
	char hex[2 * PS_SHA256_LEN + 1];

	ps_hex_encode(bytes, len, hex);
	return json_pack("{s:s}", alg, hex);
}

static json_t *
commit_set(const char *hex)
{
	return json_pack("{s:s}", "gitCommit", hex);
}

static json_t *
files_json(const sign_statement_file *files, size_t count, const char *key)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; list != NULL && i < count; i++) {
		if (json_array_append_new(list, json_pack("{s:s,s:o}", key,
		    files[i].path, "digest", digest_set("sha256", files[i].sha256,
		    PS_SHA256_LEN))) != 0) {
			json_decref(list);
			return NULL;
		}
	}
	return list;
}

static json_t *
source_json(const sign_statement *st)
{
	json_t *src = json_pack("{s:o,s:s,s:b}", "digest",
	    commit_set(st->source_commit), "path", st->source_path, "dirty",
	    st->source_dirty);

	if (src != NULL && st->source_repository != NULL &&
	    json_object_set_new(src, "repository",
	    json_string(st->source_repository)) != 0) {
		json_decref(src);
		return NULL;
	}
	if (src != NULL && st->source_manifest_commit != NULL &&
	    json_object_set_new(src, "manifestRef",
	    commit_set(st->source_manifest_commit)) != 0) {
		json_decref(src);
		return NULL;
	}
	return src;
}

static json_t *
pack_json(const sign_statement *st)
{
	json_t *pack = json_pack("{s:s,s:s}", "id", st->pack_id, "version",
	    st->pack_version);

	if (pack != NULL && st->pack_name != NULL &&
	    json_object_set_new(pack, "name", json_string(st->pack_name)) != 0) {
		json_decref(pack);
		return NULL;
	}
	return pack;
}

/* {"archiveSize": N, "chunkSize": 1048576, "sha256": [HEX64, ...]} */
static json_t *
chunks_json(const sign_statement *st)
{
	char hex[2 * PS_SHA256_LEN + 1];
	json_t *list = json_array();
	size_t i;

	for (i = 0; list != NULL && i < st->chunk_count; i++) {
		ps_hex_encode(st->chunks[i], PS_SHA256_LEN, hex);
		if (json_array_append_new(list, json_string(hex)) != 0) {
			json_decref(list);
			return NULL;
		}
	}
	if (list == NULL)
		return NULL;
	return json_pack("{s:I,s:i,s:o}", "archiveSize",
	    (json_int_t)st->archive_size, "chunkSize", UTIL_CHUNK_SIZE,
	    "sha256", list);
}

static json_t *
predicate_json(const sign_statement *st)
{
	json_t *pred;

	pred = json_pack("{s:s,s:o,s:o,s:{s:s,s:o},s:o}",
	    "format", ps_format_name(st->format),
	    "pack", pack_json(st),
	    "treeDigest", digest_set("sha256", st->tree_digest, PS_SHA256_LEN),
	    "manifest", "path", st->manifest_path, "digest",
	    digest_set("sha256", st->manifest_sha256, PS_SHA256_LEN),
	    "prompts", files_json(st->prompts, st->prompt_count, "path"));
	if (pred != NULL && !st->no_tar_digest && json_object_set_new(pred,
	    "tarDigest", digest_set("sha256", st->tar_digest,
	    PS_SHA256_LEN)) != 0) {
		json_decref(pred);
		return NULL;
	}
	if (pred != NULL && !st->no_build && json_object_set_new(pred, "build",
	    json_pack("{s:s,s:I,s:s}", "packsignVersion", st->packsign_version,
	    "mtime", (json_int_t)st->mtime, "compression",
	    ps_compression_name(st->compression))) != 0) {
		json_decref(pred);
		return NULL;
	}
	if (pred != NULL && st->has_source &&
	    json_object_set_new(pred, "source", source_json(st)) != 0) {
		json_decref(pred);
		return NULL;
	}
	if (pred != NULL && st->predicate_version == 2 &&
	    json_object_set_new(pred, "chunks", chunks_json(st)) != 0) {
		json_decref(pred);
		return NULL;
	}
	return pred;
}

static int
compare_files(const void *a, const void *b)
{
	return strcmp(((const sign_statement_file *)a)->path,
	    ((const sign_statement_file *)b)->path);
}

int
sign_statement_serialize(sign_statement *st, unsigned char **out,
    size_t *out_len, ps_error *err)
{
	json_t *root;
	char *text;

	*out = NULL;
	if (st->prompt_count > 1)
		qsort(st->prompts, st->prompt_count, sizeof(*st->prompts),
		    compare_files);
	if (sign_statement_check(st, err) != 0)
		return -1;
	root = json_pack("{s:s,s:o,s:s,s:o}", "_type", SIGN_STATEMENT_TYPE,
	    "subject", files_json(st->subjects, st->subject_count, "name"),
	    "predicateType", st->predicate_version == 2 ?
	    SIGN_PREDICATE_TYPE_V2 : SIGN_PREDICATE_TYPE, "predicate",
	    predicate_json(st));
	if (root == NULL)
		return util_fail_oom(err, NULL);
	text = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
	json_decref(root);
	if (text == NULL)
		return util_fail_oom(err, NULL);
	*out = (unsigned char *)text;
	*out_len = strlen(text);
	return 0;
}

/* ---------------------------------------------------------------- parse */

static int
only_keys(json_t *obj, const char *field, const char *const *allowed,
    ps_error *err)
{
	const char *key;
	json_t *value;
	size_t i;

	json_object_foreach(obj, key, value) {
		for (i = 0; allowed[i] != NULL; i++) {
			if (strcmp(key, allowed[i]) == 0)
				break;
		}
		if (allowed[i] == NULL) {
			invalid(err, field, "unknown field");
			return util_error_expect(err, "only the fields of predicate v1",
			    key);
		}
	}
	return 0;
}

static int
get_object(json_t *parent, const char *key, const char *field, int required,
    json_t **out, ps_error *err)
{
	*out = json_object_get(parent, key);
	if (*out == NULL)
		return required ? invalid(err, field, "missing") : 0;
	if (!json_is_object(*out))
		return invalid(err, field, "not an object");
	return 0;
}

static int
take_string(json_t *obj, const char *key, const char *field, int required,
    char **out, ps_error *err)
{
	json_t *v = json_object_get(obj, key);

	if (v == NULL)
		return required ? invalid(err, field, "missing") : 0;
	if (!json_is_string(v))
		return invalid(err, field, "not a string");
	if (json_string_length(v) > SIGN_STATEMENT_MAX_URL + UTIL_PATH_MAX)
		return invalid(err, field, "too long");
	*out = strdup(json_string_value(v));
	return *out == NULL ? util_fail_oom(err, NULL) : 0;
}

static int
is_lower_hex(const char *s, size_t len)
{
	size_t i;

	if (strlen(s) != len)
		return 0;
	for (i = 0; i < len; i++) {
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	}
	return 1;
}

/* {"sha256": hex}; other algorithms are refused unless `others_ok`. */
static int
take_sha256(json_t *parent, const char *key, const char *field, int others_ok,
    unsigned char out[PS_SHA256_LEN], ps_error *err)
{
	static const char *const only[] = { "sha256", NULL };
	json_t *set, *v;

	if (get_object(parent, key, field, 1, &set, err) != 0)
		return -1;
	if (!others_ok && only_keys(set, field, only, err) != 0)
		return -1;
	v = json_object_get(set, "sha256");
	if (v == NULL || !json_is_string(v) ||
	    !is_lower_hex(json_string_value(v), 2 * PS_SHA256_LEN)) {
		invalid(err, field, "no valid sha256 digest");
		return util_error_expect(err, "64 lowercase hex digits",
		    v != NULL && json_is_string(v) ? json_string_value(v) :
		    "no string");
	}
	return util_hex_decode(json_string_value(v), out, PS_SHA256_LEN) == 0 ? 0 :
	    invalid(err, field, "bad hex");
}

static int
take_commit(json_t *parent, const char *key, const char *field, char **out,
    ps_error *err)
{
	static const char *const only[] = { "gitCommit", NULL };
	json_t *set;

	if (get_object(parent, key, field, 1, &set, err) != 0 ||
	    only_keys(set, field, only, err) != 0 ||
	    take_string(set, "gitCommit", field, 1, out, err) != 0)
		return -1;
	return check_commit(field, *out, err);
}

static int
parse_files(json_t *list, const char *field, const char *name_key,
    int others_ok, sign_statement_file **files, size_t *count, ps_error *err)
{
	static const char *const keys[] = { "path", "digest", NULL };
	unsigned char sha[PS_SHA256_LEN];
	json_t *entry;
	char *path;
	size_t i;

	if (list == NULL || !json_is_array(list))
		return invalid(err, field, list == NULL ? "missing" : "not a list");
	if (json_array_size(list) > SIGN_STATEMENT_MAX_ITEMS)
		return invalid(err, field, "over 10000 entries");
	json_array_foreach(list, i, entry) {
		path = NULL;
		if (!json_is_object(entry))
			return invalid(err, field, "an entry is not an object");
		if ((!others_ok && only_keys(entry, field, keys, err) != 0) ||
		    take_string(entry, name_key, field, 1, &path, err) != 0 ||
		    take_sha256(entry, "digest", field, others_ok, sha, err) != 0 ||
		    add_file(files, count, path, sha, err) != 0) {
			free(path);
			return -1;
		}
		free(path);
	}
	return 0;
}

static int
parse_pack(sign_statement *st, json_t *pred, ps_error *err)
{
	static const char *const keys[] = { "id", "version", "name", NULL };
	static const char *const mkeys[] = { "path", "digest", NULL };
	json_t *pack, *manifest, *format;

	format = json_object_get(pred, "format");
	if (format == NULL || !json_is_string(format))
		return invalid(err, "predicate.format", "missing or not a string");
	if (ps_format_parse(json_string_value(format), &st->format) != 0)
		st->format = PS_FORMAT_UNKNOWN;
	if (get_object(pred, "pack", "predicate.pack", 1, &pack, err) != 0 ||
	    only_keys(pack, "predicate.pack", keys, err) != 0 ||
	    take_string(pack, "id", "predicate.pack.id", 1, &st->pack_id,
	    err) != 0 ||
	    take_string(pack, "version", "predicate.pack.version", 1,
	    &st->pack_version, err) != 0 ||
	    take_string(pack, "name", "predicate.pack.name", 0, &st->pack_name,
	    err) != 0)
		return -1;
	if (get_object(pred, "manifest", "predicate.manifest", 1, &manifest,
	    err) != 0 || only_keys(manifest, "predicate.manifest", mkeys,
	    err) != 0 ||
	    take_string(manifest, "path", "predicate.manifest.path", 1,
	    &st->manifest_path, err) != 0)
		return -1;
	return take_sha256(manifest, "digest", "predicate.manifest.digest", 0,
	    st->manifest_sha256, err);
}

static int
parse_source(sign_statement *st, json_t *pred, ps_error *err)
{
	static const char *const keys[] = { "repository", "digest", "path",
	    "dirty", "manifestRef", NULL };
	json_t *src, *dirty;

	if (get_object(pred, "source", "predicate.source", 0, &src, err) != 0)
		return -1;
	if (src == NULL)
		return 0;
	st->has_source = 1;
	if (only_keys(src, "predicate.source", keys, err) != 0 ||
	    take_string(src, "repository", "predicate.source.repository", 0,
	    &st->source_repository, err) != 0 ||
	    take_commit(src, "digest", "predicate.source.digest",
	    &st->source_commit, err) != 0 ||
	    take_string(src, "path", "predicate.source.path", 1,
	    &st->source_path, err) != 0)
		return -1;
	dirty = json_object_get(src, "dirty");
	if (dirty == NULL || !json_is_boolean(dirty))
		return invalid(err, "predicate.source.dirty",
		    "missing or not a boolean");
	st->source_dirty = json_is_true(dirty);
	if (json_object_get(src, "manifestRef") != NULL)
		return take_commit(src, "manifestRef",
		    "predicate.source.manifestRef", &st->source_manifest_commit,
		    err);
	return 0;
}

static int
parse_build(sign_statement *st, json_t *pred, ps_error *err)
{
	static const char *const keys[] = { "packsignVersion", "mtime",
	    "compression", NULL };
	json_t *build, *mtime, *comp;

	if (get_object(pred, "build", "predicate.build", 0, &build, err) != 0)
		return -1;
	if (build == NULL) {
		st->no_build = 1;
		return 0;
	}
	if (only_keys(build, "predicate.build", keys, err) != 0 ||
	    take_string(build, "packsignVersion",
	    "predicate.build.packsignVersion", 1, &st->packsign_version, err) != 0)
		return -1;
	mtime = json_object_get(build, "mtime");
	if (mtime == NULL || !json_is_integer(mtime))
		return invalid(err, "predicate.build.mtime",
		    "missing or not an integer");
	st->mtime = (int64_t)json_integer_value(mtime);
	comp = json_object_get(build, "compression");
	if (comp == NULL || !json_is_string(comp) ||
	    ps_compression_by_name(json_string_value(comp),
	    &st->compression) != 0)
		return invalid(err, "predicate.build.compression",
		    "not \"none\", \"gzip\" or \"zstd\"");
	return 0;
}

static int
parse_chunk_list(sign_statement *st, json_t *list, ps_error *err)
{
	const char *hex;
	size_t i, n;

	if (!json_is_array(list) || (n = json_array_size(list)) == 0 ||
	    n > SIGN_CHUNKS_MAX)
		return invalid(err, "predicate.chunks.sha256",
		    "an array of 1 to 16384 digests");
	if ((st->chunks = malloc(n * sizeof(*st->chunks))) == NULL)
		return util_fail_oom(err, NULL);
	for (i = 0; i < n; i++) {
		hex = json_string_value(json_array_get(list, i));
		if (hex == NULL || !is_lower_hex(hex, 2 * PS_SHA256_LEN) ||
		    util_hex_decode(hex, st->chunks[i], PS_SHA256_LEN) != 0)
			return invalid(err, "predicate.chunks.sha256",
			    "a digest that is not 64 lowercase hex digits");
	}
	st->chunk_count = n;
	return 0;
}

/* v2's chunks; check_chunks() then matches them with archiveSize. */
static int
parse_chunks(sign_statement *st, json_t *pred, ps_error *err)
{
	static const char *const keys[] = { "archiveSize", "chunkSize",
	    "sha256", NULL };
	json_t *c, *size, *chunk;

	if (get_object(pred, "chunks", "predicate.chunks", 1, &c, err) != 0 ||
	    only_keys(c, "predicate.chunks", keys, err) != 0)
		return -1;
	size = json_object_get(c, "archiveSize");
	chunk = json_object_get(c, "chunkSize");
	if (!json_is_integer(chunk) ||
	    json_integer_value(chunk) != UTIL_CHUNK_SIZE)
		return invalid(err, "predicate.chunks.chunkSize",
		    "must be 1048576");
	if (!json_is_integer(size) || json_integer_value(size) < 1)
		return invalid(err, "predicate.chunks.archiveSize",
		    "must be a positive integer");
	st->archive_size = (uint64_t)json_integer_value(size);
	return parse_chunk_list(st, json_object_get(c, "sha256"), err);
}

static int
parse_predicate(sign_statement *st, json_t *root, ps_error *err)
{
	static const char *const keys[] = { "format", "pack", "tarDigest",
	    "treeDigest", "manifest", "prompts", "source", "build", NULL };
	static const char *const keys2[] = { "format", "pack", "tarDigest",
	    "treeDigest", "manifest", "prompts", "source", "build", "chunks",
	    NULL };
	json_t *pred;

	if (get_object(root, "predicate", "predicate", 1, &pred, err) != 0 ||
	    only_keys(pred, "predicate", st->predicate_version == 2 ? keys2 :
	    keys, err) != 0 ||
	    (st->predicate_version == 2 && parse_chunks(st, pred, err) != 0) ||
	    parse_pack(st, pred, err) != 0)
		return -1;
	st->no_tar_digest = json_object_get(pred, "tarDigest") == NULL;
	if ((!st->no_tar_digest && take_sha256(pred, "tarDigest",
	    "predicate.tarDigest", 0, st->tar_digest, err) != 0) ||
	    take_sha256(pred, "treeDigest", "predicate.treeDigest", 0,
	    st->tree_digest, err) != 0 ||
	    parse_files(json_object_get(pred, "prompts"), "predicate.prompts",
	    "path", 0, &st->prompts, &st->prompt_count, err) != 0 ||
	    parse_source(st, pred, err) != 0)
		return -1;
	return parse_build(st, pred, err);
}

static int
check_type(json_t *root, const char *key, const char *want, const char *code,
    ps_error *err)
{
	json_t *v = json_object_get(root, key);
	const char *found = v != NULL && json_is_string(v) ?
	    json_string_value(v) : "nothing";

	if (strcmp(found, want) == 0)
		return 0;
	util_refuse(err, code, key, "unsupported %s", key);
	return util_error_expect(err, want, found);
}

static int
parse_root(sign_statement *st, json_t *root, ps_error *err)
{
	if (!json_is_object(root))
		return invalid(err, "statement", "the top level is not an object");
	if (check_type(root, "_type", SIGN_STATEMENT_TYPE,
	    "statement_type_unknown", err) != 0)
		return -1;
	st->predicate_version = 1;
	if (json_is_string(json_object_get(root, "predicateType")) &&
	    strcmp(json_string_value(json_object_get(root, "predicateType")),
	    SIGN_PREDICATE_TYPE_V2) == 0)
		st->predicate_version = 2;
	else if (check_type(root, "predicateType", SIGN_PREDICATE_TYPE,
	    "predicate_type_unknown", err) != 0)
		return -1;
	/* in-toto subjects may carry other algorithms and fields. */
	if (parse_files(json_object_get(root, "subject"), "subject", "name", 1,
	    &st->subjects, &st->subject_count, err) != 0 ||
	    parse_predicate(st, root, err) != 0)
		return -1;
	return sign_statement_check(st, err);
}

int
sign_statement_parse(const unsigned char *bytes, size_t len,
    sign_statement **out, ps_error *err)
{
	sign_statement *st;
	json_error_t jerr;
	json_t *root;
	char what[256];

	*out = NULL;
	if (len > SIGN_DSSE_MAX_BYTES)
		return invalid(err, "statement", "over 4 MiB");
	root = json_loadb((const char *)bytes, len, JSON_REJECT_DUPLICATES,
	    &jerr);
	if (root == NULL) {
		snprintf(what, sizeof(what), "JSON error at line %d column %d: %s",
		    jerr.line, jerr.column, jerr.text);
		return invalid(err, "statement", what);
	}
	if (sign_statement_new(&st, err) != 0) {
		json_decref(root);
		return -1;
	}
	if (parse_root(st, root, err) != 0) {
		json_decref(root);
		sign_statement_free(st);
		return -1;
	}
	json_decref(root);
	*out = st;
	return 0;
}

int
sign_statement_from_verified(const sign_dsse_verification *verified,
    sign_statement **out, ps_error *err)
{
	*out = NULL;
	if (verified->payload == NULL || verified->verified_count == 0)
		return util_fail(err, "internal_error", NULL,
		    "a statement is parsed only from a verified payload");
	if (strcmp(verified->payload_type, SIGN_INTOTO_PAYLOAD_TYPE) != 0) {
		util_refuse(err, "payload_type_unknown", "payloadType",
		    "the signed payload is not an in-toto statement");
		return util_error_expect(err, SIGN_INTOTO_PAYLOAD_TYPE,
		    verified->payload_type);
	}
	return sign_statement_parse(verified->payload, verified->payload_len, out,
	    err);
}

const sign_statement_file *
sign_statement_find_subject(const sign_statement *st, const char *name)
{
	size_t i;

	for (i = 0; i < st->subject_count; i++) {
		if (strcmp(st->subjects[i].path, name) == 0)
			return &st->subjects[i];
	}
	return NULL;
}
