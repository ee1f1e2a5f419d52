/*
 * The safe YAML loader and each format's validator.  Input: byte 0 picks
 * the format (soyapack, holon, autograph, agentpack); the rest is the
 * manifest, optionally followed by other pack files, each introduced by a
 * line "#@ PATH" (a YAML comment, so seeds stay valid YAML).  The pack lives
 * in memory: a ps_pack_files over the input, no disk I/O per execution.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "formats/paths.h"
#include "util/error.h"
#include "util/pathname.h"
#include "util/yaml.h"

#define MAX_FILES 64
#define MARKER "\n#@ "

struct mem_file {
	char *path;
	const char *data;
	size_t len;
};

struct mem_pack {
	struct mem_file files[MAX_FILES];
	size_t count;
};

/* '/' sorts before every other byte: depth first, names bytewise. */
static int
path_cmp(const char *a, const char *b)
{
	unsigned char ca, cb;

	for (;; a++, b++) {
		ca = (unsigned char)*a;
		cb = (unsigned char)*b;
		if (ca != cb)
			break;
		if (ca == '\0')
			return 0;
	}
	if (ca == '/' || cb == '\0')
		return cb == '\0' ? 1 : -1;
	if (cb == '/' || ca == '\0')
		return ca == '\0' ? -1 : 1;
	return ca < cb ? -1 : 1;
}

static const struct mem_file *
find_file(const struct mem_pack *p, const char *path)
{
	size_t i;

	for (i = 0; i < p->count; i++)
		if (strcmp(p->files[i].path, path) == 0)
			return &p->files[i];
	return NULL;
}

static int
is_dir(const struct mem_pack *p, const char *path)
{
	size_t i, n = strlen(path);

	for (i = 0; i < p->count; i++)
		if (strncmp(p->files[i].path, path, n) == 0 &&
		    p->files[i].path[n] == '/')
			return 1;
	return 0;
}

static int
mem_stat(void *ctx, const char *path, ps_entry_type *type, uint64_t *size,
    ps_error *err)
{
	const struct mem_file *f;

	if (formats_path_is_canonical(path) != 0)
		return util_refuse(err, "pack_path_invalid", path, "not canonical");
	if ((f = find_file(ctx, path)) != NULL) {
		*type = PS_ENTRY_FILE;
		*size = f->len;
		return 0;
	}
	if (is_dir(ctx, path)) {
		*type = PS_ENTRY_DIR;
		*size = 0;
		return 0;
	}
	return util_refuse(err, "pack_path_missing", path, "no such file");
}

static int
mem_read(void *ctx, const char *path, size_t max, char **data, size_t *len,
    ps_error *err)
{
	const struct mem_file *f;

	if (formats_path_is_canonical(path) != 0)
		return util_refuse(err, "pack_path_invalid", path, "not canonical");
	if ((f = find_file(ctx, path)) == NULL)
		return util_refuse(err, is_dir(ctx, path) ? "pack_not_file" :
		    "pack_path_missing", path, "no such file");
	if (f->len > max)
		return util_refuse(err, "pack_file_too_large", path, "too large");
	if ((*data = malloc(f->len + 1)) == NULL)
		return util_fail(err, "out_of_memory", path, "out of memory");
	if (f->len > 0)
		memcpy(*data, f->data, f->len);
	(*data)[f->len] = '\0';
	*len = f->len;
	return 0;
}

static int
mem_head(void *ctx, const char *path, unsigned char *buf, size_t n,
    size_t *got, ps_error *err)
{
	const struct mem_file *f;

	if ((f = find_file(ctx, path)) == NULL)
		return util_refuse(err, "pack_path_missing", path, "no such file");
	*got = f->len < n ? f->len : n;
	if (*got > 0)
		memcpy(buf, f->data, *got);
	return 0;
}

static int
entry_cmp(const void *a, const void *b)
{
	return path_cmp(*(char *const *)a, *(char *const *)b);
}

/* Every file and every directory above one, in walk order. */
static size_t
collect_entries(const struct mem_pack *p, char **out, size_t cap)
{
	size_t i, j, n = 0;
	char *slash;

	for (i = 0; i < p->count && n < cap; i++) {
		out[n++] = strdup(p->files[i].path);
		for (slash = strchr(p->files[i].path, '/'); slash != NULL &&
		    n < cap; slash = strchr(slash + 1, '/'))
			out[n++] = strndup(p->files[i].path,
			    (size_t)(slash - p->files[i].path));
	}
	qsort(out, n, sizeof(*out), entry_cmp);
	for (i = j = 0; i < n; i++) {
		if (j > 0 && strcmp(out[j - 1], out[i]) == 0)
			free(out[i]);
		else
			out[j++] = out[i];
	}
	return j;
}

static int
mem_list(void *ctx, int (*fn)(void *, const char *, ps_entry_type, uint64_t,
    ps_error *), void *arg, ps_error *err)
{
	char *entries[MAX_FILES * 8];
	const struct mem_file *f;
	size_t i, n = collect_entries(ctx, entries, MAX_FILES * 8);
	int rc = 0;

	for (i = 0; i < n; i++) {
		f = find_file(ctx, entries[i]);
		if (rc == 0)
			rc = fn(arg, entries[i], f != NULL ? PS_ENTRY_FILE :
			    PS_ENTRY_DIR, f != NULL ? f->len : 0, err);
		free(entries[i]);
	}
	return rc;
}

/* Adds a file unless its path is invalid, taken, or a directory's. */
static void
add_file(struct mem_pack *p, char *path, const char *data, size_t len)
{
	size_t i, n;

	if (p->count == MAX_FILES || formats_path_is_canonical(path) != 0 ||
	    find_file(p, path) != NULL || is_dir(p, path)) {
		free(path);
		return;
	}
	for (i = 0; i < p->count; i++) {
		n = strlen(p->files[i].path);
		if (strncmp(path, p->files[i].path, n) == 0 && path[n] == '/') {
			free(path);
			return;
		}
	}
	p->files[p->count].path = path;
	p->files[p->count].data = data;
	p->files[p->count].len = len;
	p->count++;
}

/* Splits "#@ PATH\nCONTENT" sections off the manifest. */
static void
split_input(struct mem_pack *p, const char *manifest_name, const char *text,
    size_t len)
{
	const char *end = text + len, *mark, *nl, *body;
	size_t mlen = strlen(MARKER);

	mark = memmem(text, len, MARKER, mlen);
	add_file(p, strdup(manifest_name), text,
	    mark != NULL ? (size_t)(mark - text) + 1 : len);
	while (mark != NULL) {
		body = mark + mlen;
		nl = memchr(body, '\n', (size_t)(end - body));
		if (nl == NULL)
			return;
		mark = memmem(nl, (size_t)(end - nl), MARKER, mlen);
		add_file(p, strndup(body, (size_t)(nl - body)), nl + 1,
		    (size_t)((mark != NULL ? mark + 1 : end) - (nl + 1)));
	}
}

static void
check_yaml(const char *text, size_t len)
{
	util_yaml_doc *doc = NULL;
	ps_error err;

	ps_error_clear(&err);
	if (util_yaml_load(text, len, "fuzz.yaml", &doc, &err) != 0) {
		fuzz_check_error(&err, "util_yaml_load");
		if (doc != NULL)
			fuzz_fail("util_yaml_load", "document set on failure");
		return;
	}
	(void)util_yaml_describe(util_yaml_root(doc));
	util_yaml_free(doc);
}

/* A string of the model: present, within `max` bytes. */
static void
check_text(const char *what, const char *s, size_t max)
{
	if (s == NULL || strlen(s) > max)
		fuzz_fail(what, s == NULL ? "missing" : "over its bound");
}

static void
check_list(const char *what, const ps_strings *list)
{
	if (list->count > PS_COMPOSE_MAX_ENTRIES)
		fuzz_fail(what, "more entries than PS_COMPOSE_MAX_ENTRIES");
	for (size_t i = 0; i < list->count; i++)
		check_text(what, list->items[i], PS_COMPOSE_MAX_VALUE);
}

/* Every service named, in a file, within the bounds; the names list is
 * the services' names. */
static void
check_service(const ps_manifest *m, size_t i)
{
	const ps_service *s = &m->compose_services[i];

	check_text("service name", s->name, UTIL_YAML_MAX_BYTES);
	check_text("service file", s->file, UTIL_PATH_MAX);
	if (i >= m->services.count || strcmp(m->services.items[i], s->name) != 0)
		fuzz_fail("services", "names differ from compose_services");
	if (s->port_count > PS_COMPOSE_MAX_ENTRIES ||
	    s->volume_count + s->host_mount_count > PS_COMPOSE_MAX_ENTRIES)
		fuzz_fail("service", "more ports or mounts than the bound");
	for (size_t j = 0; j < s->port_count; j++) {
		check_text("port", s->ports[j].text, PS_COMPOSE_MAX_VALUE);
		if (s->ports[j].published > s->ports[j].published_last ||
		    s->ports[j].published_last > 65535)
			fuzz_fail("port", "published range out of order");
	}
	for (size_t j = 0; j < s->host_mount_count; j++)
		check_text("host mount", s->host_mounts[j].source,
		    PS_COMPOSE_MAX_VALUE);
	for (size_t j = 0; j < s->volume_count; j++)
		check_text("volume", s->volumes[j].source, PS_COMPOSE_MAX_VALUE);
	check_list("cap_add", &s->cap_add);
	check_list("devices", &s->devices);
	check_list("security_opt", &s->security_opt);
}

static void
check_task(const ps_manifest *m, size_t i)
{
	const ps_task *t = &m->taskfile_tasks[i];

	check_text("task name", t->name, UTIL_YAML_MAX_BYTES);
	if (i >= m->tasks.count || strcmp(m->tasks.items[i], t->name) != 0)
		fuzz_fail("tasks", "names differ from taskfile_tasks");
	if (t->cmd_count > PS_TASKFILE_MAX_COMMANDS)
		fuzz_fail("task", "more commands than PS_TASKFILE_MAX_COMMANDS");
	for (size_t j = 0; j < t->cmd_count; j++) {
		check_text("task command", t->cmds[j].text,
		    PS_TASKFILE_MAX_COMMAND);
		if (t->cmds[j].kind != PS_TASK_CMD_SHELL &&
		    t->cmds[j].kind != PS_TASK_CMD_CALL &&
		    t->cmds[j].kind != PS_TASK_CMD_CHECK)
			fuzz_fail("task command", "unknown kind");
	}
}

/* The compose and Taskfile model, valid manifest or not. */
static void
check_model(const ps_manifest *m)
{
	if (m->format != PS_FORMAT_AUTOGRAPH && (m->compose_service_count != 0 ||
	    m->taskfile_task_count != 0))
		fuzz_fail("ps_manifest_load", "services outside autograph");
	if (m->compose_service_count > PS_COMPOSE_MAX_SERVICES ||
	    m->services.count != m->compose_service_count)
		fuzz_fail("compose_services", "count over the bound");
	if (m->taskfile_task_count > PS_TASKFILE_MAX_TASKS ||
	    m->tasks.count != m->taskfile_task_count)
		fuzz_fail("taskfile_tasks", "count over the bound");
	for (size_t i = 0; i < m->compose_service_count; i++)
		check_service(m, i);
	for (size_t i = 0; i < m->taskfile_task_count; i++)
		check_task(m, i);
}

static void
check_manifest(const ps_manifest *m, const ps_diags *diags)
{
	ps_error err;
	char *text = NULL;

	fuzz_check_diags(diags);
	for (size_t i = 0; i < diags->count; i++)
		fuzz_note("diagnostic", diags->items[i].code);
	if (m != NULL)
		check_model(m);
	if (m == NULL || !ps_manifest_valid(diags, 0))
		return;
	fuzz_note("ps_manifest_load", "valid");
	if (m->id == NULL || m->version == NULL)
		fuzz_fail("ps_manifest_load", "valid manifest without id/version");
	ps_error_clear(&err);
	if (ps_manifest_describe(m, PS_LANG_EN, &text, &err) != 0)
		fuzz_fail("ps_manifest_describe", err.code);
	free(text);
	if (ps_manifest_describe(m, PS_LANG_ZH, &text, &err) != 0)
		fuzz_fail("ps_manifest_describe", err.code);
	free(text);
	if (ps_manifest_permissions(m, &text, &err) != 0)
		fuzz_fail("ps_manifest_permissions", err.code);
	free(text);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const ps_format formats[] = { PS_FORMAT_SOYAPACK,
	    PS_FORMAT_HOLON, PS_FORMAT_AUTOGRAPH, PS_FORMAT_AGENTPACK };
	struct mem_pack pack;
	ps_pack_files files;
	ps_validate_options vo;
	ps_manifest *m = NULL;
	ps_diags diags;
	ps_error err;
	size_t i;

	if (size < 1)
		return 0;
	memset(&pack, 0, sizeof(pack));
	check_yaml((const char *)data + 1, size - 1);
	ps_validate_options_init(&vo);
	vo.format = formats[data[0] % 4];
	vo.strict = (data[0] & 0x10) != 0;
	vo.engine_version = (data[0] & 0x20) != 0 ? "1.4.2" : NULL;
	split_input(&pack, ps_format_manifest_name(vo.format),
	    (const char *)data + 1, size - 1);
	memset(&files, 0, sizeof(files));
	files.ctx = &pack;
	files.stat = mem_stat;
	files.read = mem_read;
	files.list = mem_list;
	files.head = mem_head;
	ps_diags_init(&diags);
	ps_error_clear(&err);
	if (ps_manifest_load(&files, &vo, &m, &diags, &err) != 0)
		fuzz_check_error(&err, "ps_manifest_load");
	else
		check_manifest(m, &diags);
	ps_manifest_free(m);
	ps_diags_free(&diags);
	for (i = 0; i < pack.count; i++)
		free(pack.files[i].path);
	return 0;
}
