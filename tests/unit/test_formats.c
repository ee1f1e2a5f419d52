/* Unit tests: formats/ (paths, URLs, licenses, pack reader, model, describe). */
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

#include "formats/format.h"
#include "formats/licenses.h"
#include "formats/paths.h"
#include "formats/url.h"
#include "util/hostname.h"

static char tmpdir[] = "/tmp/ps-formats-XXXXXX";

static void
write_file(const char *rel, const char *text, size_t len)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

static void
write_text(const char *rel, const char *text)
{
	write_file(rel, text, strlen(text));
}

static void
make_dir(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static int
setup_dir(void **state)
{
	(void)state;
	strcpy(tmpdir, "/tmp/ps-formats-XXXXXX");
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int
teardown_dir(void **state)
{
	char cmd[600];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void
path_normalize_cases(void **state)
{
	char out[UTIL_PATH_MAX];

	(void)state;
	assert_int_equal(formats_path_normalize("a/./b//c/", out, sizeof(out)),
	    FORMATS_PATH_OK);
	assert_string_equal(out, "a/b/c");
	/* Review finding: ".." is refused even when it stays inside. */
	assert_int_equal(formats_path_normalize("a/../b", out, sizeof(out)),
	    FORMATS_PATH_ESCAPES);
	assert_int_equal(formats_path_normalize("a/../../b", out, sizeof(out)),
	    FORMATS_PATH_ESCAPES);
	assert_int_equal(formats_path_normalize("..", out, sizeof(out)),
	    FORMATS_PATH_ESCAPES);
	assert_int_equal(formats_path_normalize("/etc/passwd", out, sizeof(out)),
	    FORMATS_PATH_ABSOLUTE);
	assert_int_equal(formats_path_normalize("a\\b", out, sizeof(out)),
	    FORMATS_PATH_INVALID);
	assert_int_equal(formats_path_normalize("./", out, sizeof(out)),
	    FORMATS_PATH_INVALID);
	assert_int_equal(formats_path_normalize("a\nb", out, sizeof(out)),
	    FORMATS_PATH_INVALID);
	assert_int_equal(formats_path_is_canonical("agents/x.yml"), 0);
	assert_int_equal(formats_path_is_canonical("agents//x.yml"), -1);
}

static void
url_public_checks(void **state)
{
	static const char *const refused[] = { "http://example.org/",
	    "https://localhost/", "https://a.localhost/", "https://x.local/",
	    "https://10.0.0.1/", "https://127.0.0.1:8443/", "https://[::1]/",
	    "https://[fc00::1]/", "https://[fe80::1%25eth0]/",
	    "https://[::ffff:10.0.0.1]/", "https://2130706433/",
	    "https://0x7f000001/", "https://017700000001/", "https://127.1/",
	    "https://169.254.169.254/", "https://100.100.0.1/",
	    "https://svc/", "https://a@b.example.org/", "https:///x",
	    "https://b.example.org:0/", "https://exa mple.org/",
	    /* review findings: IPv4 carried in IPv6 forms */
	    "https://[::ffff:0:7f00:1]/", "https://[2002:7f00:1::1]/",
	    "https://[64:ff9b:1::7f00:1]/", "https://192.88.99.1/", NULL };
	static const char *const accepted[] = { "https://b.example.org/x",
	    "HTTPS://api.acme-agents.net:443/mcp?x=1", "https://1.1.1.1/",
	    "https://[2001:4860:4860::8888]/", "https://xn--bcher-kva.de/",
	    NULL };
	char why[256];
	size_t i;

	(void)state;
	for (i = 0; refused[i] != NULL; i++) {
		if (formats_url_check(refused[i], 1, why, sizeof(why)) == 0)
			fail_msg("accepted %s", refused[i]);
	}
	for (i = 0; accepted[i] != NULL; i++) {
		if (formats_url_check(accepted[i], 1, why, sizeof(why)) != 0)
			fail_msg("refused %s: %s", accepted[i], why);
	}
	/* Not "public": a syntactic https URL is enough. */
	assert_int_equal(formats_url_check("https://git.internal/r", 0, why,
	    sizeof(why)), 0);
	assert_int_equal(formats_url_check("http://github.com/r", 0, why,
	    sizeof(why)), -1);
}

/* The descriptor table is the one list of formats: every public name
 * function answers from it, and no two formats share a name, a manifest or
 * an install directory. */
static void
descriptors(void **state)
{
	const formats_descriptor *d, *e;
	char names[256];
	ps_format f;
	size_t i, j;

	(void)state;
	assert_int_equal(formats_count(), 4);
	assert_null(formats_at(formats_count()));
	assert_null(formats_of(PS_FORMAT_UNKNOWN));
	for (i = 0; (d = formats_at(i)) != NULL; i++) {
		assert_ptr_equal(formats_of(d->format), d);
		assert_string_equal(ps_format_name(d->format), d->name);
		assert_string_equal(ps_format_manifest_name(d->format),
		    d->manifest);
		assert_int_equal(ps_format_by_manifest(d->manifest), d->format);
		assert_int_equal(ps_format_parse(d->name, &f), 0);
		assert_int_equal(f, d->format);
		assert_ptr_equal(formats_by_install_dir(d->install_dir), d);
		assert_true(d->id_depth == 1 || d->id_depth == 2);
		assert_non_null(d->validate);
		assert_non_null(d->describe);
		for (j = 0; j < i; j++) {
			e = formats_at(j);
			assert_string_not_equal(d->name, e->name);
			assert_string_not_equal(d->manifest, e->manifest);
			assert_string_not_equal(d->install_dir, e->install_dir);
		}
	}
	assert_int_equal(formats_of(PS_FORMAT_SOYAPACK)->id_depth, 2);
	assert_int_equal(formats_of(PS_FORMAT_HOLON)->id_depth, 2);
	assert_string_equal(formats_manifest_names(names, sizeof(names),
	    "one of "), "one of soyapack.yaml, holon.yaml, augr.pkg.yml, "
	    "manifest.yml");
	assert_int_equal(ps_format_parse("zip", &f), -1);
	assert_string_equal(ps_format_name(PS_FORMAT_UNKNOWN), "unknown");
}

#define HOST_VALID(h) util_hostname_valid((h), strlen(h))

static void
hostnames(void **state)
{
	char longest[UTIL_HOSTNAME_MAX + 2];

	(void)state;
	assert_int_equal(HOST_VALID("api.openai.com"), 1);
	assert_int_equal(HOST_VALID("a-b.c"), 1);
	assert_int_equal(HOST_VALID("192.168.0.1"), 1);
	assert_int_equal(HOST_VALID("-a.c"), 0);
	assert_int_equal(HOST_VALID("a-.c"), 0);
	assert_int_equal(HOST_VALID("a..c"), 0);
	assert_int_equal(HOST_VALID("a_b.c"), 0);
	assert_int_equal(HOST_VALID("a.c."), 0);
	assert_int_equal(HOST_VALID(""), 0);
	/* The length bounds the name: a slice of a URL is judged alone. */
	assert_int_equal(util_hostname_valid("example.com:443", 11), 1);
	assert_int_equal(util_hostname_valid("example.com:443", 12), 0);
	/* 63-byte labels, 253 bytes in all; one more byte is refused. */
	memset(longest, 'a', sizeof(longest));
	for (size_t i = 63; i < UTIL_HOSTNAME_MAX; i += 64)
		longest[i] = '.';
	assert_int_equal(util_hostname_valid(longest, UTIL_HOSTNAME_MAX), 1);
	assert_int_equal(util_hostname_valid(longest, UTIL_HOSTNAME_MAX + 1), 0);
	longest[63] = 'a';
	assert_int_equal(util_hostname_valid(longest, 127), 0);
}

static void
license_tables(void **state)
{
	const char *canonical;

	(void)state;
	assert_int_equal(formats_license_is_osi("MIT"), 1);
	assert_int_equal(formats_license_is_osi("Apache-2.0"), 1);
	assert_int_equal(formats_license_is_osi("BUSL-1.1"), 0);
	assert_int_equal(formats_license_is_osi("CC0-1.0"), 0);
	assert_int_equal(formats_license_is_osi("mit"), 0);
	assert_int_equal(formats_license_spdx("BUSL-1.1", &canonical), 1);
	assert_int_equal(formats_license_spdx("apache-2.0", &canonical), 1);
	assert_string_equal(canonical, "Apache-2.0");
	assert_int_equal(formats_license_spdx("GPL-3.0", &canonical), 2);
	assert_int_equal(formats_license_spdx("Proprietary", &canonical), 0);
	assert_null(canonical);
}

static void
format_names(void **state)
{
	ps_format f;

	(void)state;
	assert_int_equal(ps_format_parse("holon", &f), 0);
	assert_int_equal(f, PS_FORMAT_HOLON);
	assert_string_equal(ps_format_manifest_name(f), "holon.yaml");
	assert_string_equal(ps_format_name(PS_FORMAT_AUTOGRAPH), "autograph");
	assert_null(ps_format_manifest_name(PS_FORMAT_UNKNOWN));
	assert_int_equal(ps_format_parse("zip", &f), -1);
}

static int
collect(void *arg, const char *path, ps_entry_type type, uint64_t size,
    ps_error *err)
{
	char *buf = arg;

	(void)err;
	snprintf(buf + strlen(buf), 1024 - strlen(buf), "%s%s:%llu;", path,
	    type == PS_ENTRY_DIR ? "/" : "", (unsigned long long)size);
	return 0;
}

static void
dir_reader_reads_lists_and_refuses_links(void **state)
{
	ps_pack_files files;
	ps_entry_type type;
	ps_error err;
	uint64_t size;
	char *data = NULL, listing[1024] = "", target[600];
	unsigned char head[4];
	size_t len, got;

	(void)state;
	make_dir("b");
	write_file("b/z.txt", "hello", 5);
	write_file("a.txt", "0123456789", 10);
	assert_int_equal(ps_pack_files_dir_open(tmpdir, &files, &err), 0);
	assert_int_equal(files.stat(files.ctx, "b/z.txt", &type, &size, &err), 0);
	assert_int_equal(type, PS_ENTRY_FILE);
	assert_int_equal(size, 5);
	assert_int_equal(files.read(files.ctx, "a.txt", 10, &data, &len, &err),
	    0);
	assert_int_equal(len, 10);
	assert_string_equal(data, "0123456789");
	free(data);
	assert_int_equal(files.read(files.ctx, "a.txt", 9, &data, &len, &err),
	    -1);
	assert_string_equal(err.code, "pack_file_too_large");
	assert_int_equal(files.head(files.ctx, "a.txt", head, 4, &got, &err), 0);
	assert_int_equal(got, 4);
	assert_int_equal(files.stat(files.ctx, "nope", &type, &size, &err), -1);
	assert_string_equal(err.code, "pack_path_missing");
	assert_int_equal(err.status, PS_STATUS_REFUSED);
	assert_int_equal(files.stat(files.ctx, "../x", &type, &size, &err), -1);
	assert_string_equal(err.code, "pack_path_invalid");
	assert_int_equal(files.list(files.ctx, collect, listing, &err), 0);
	assert_string_equal(listing, "a.txt:10;b/:0;b/z.txt:5;");
	/* The view answers from its walk: a file made after it is absent. */
	write_file("late.txt", "x", 1);
	assert_int_equal(files.stat(files.ctx, "late.txt", &type, &size, &err),
	    -1);
	assert_string_equal(err.code, "pack_path_missing");
	ps_pack_files_close(&files);
	/* A link, as the last component or on the way, is never followed. */
	snprintf(target, sizeof(target), "%s/b", tmpdir);
	assert_int_equal(symlink(target, strcat(strcpy(listing, tmpdir),
	    "/link")), 0);
	assert_int_equal(ps_pack_files_dir_open(tmpdir, &files, &err), 0);
	assert_int_equal(files.stat(files.ctx, "link", &type, &size, &err), -1);
	assert_string_equal(err.code, "pack_path_special");
	assert_int_equal(files.read(files.ctx, "link/z.txt", 100, &data, &len,
	    &err), -1);
	assert_string_equal(err.code, "pack_path_special");
	listing[0] = '\0';
	assert_int_equal(files.list(files.ctx, collect, listing, &err), -1);
	assert_string_equal(err.code, "pack_path_special");
	ps_pack_files_close(&files);
	/* .packsignignore applies, as it does to packing: an ignored link is
	 * not in the pack, and neither is an ignored file. */
	write_text(".packsignignore", "link\nlate.txt\n");
	assert_int_equal(ps_pack_files_dir_open(tmpdir, &files, &err), 0);
	listing[0] = '\0';
	assert_int_equal(files.list(files.ctx, collect, listing, &err), 0);
	assert_string_equal(listing, ".packsignignore:14;a.txt:10;b/:0;"
	    "b/z.txt:5;");
	assert_int_equal(files.stat(files.ctx, "late.txt", &type, &size, &err),
	    -1);
	assert_string_equal(err.code, "pack_path_missing");
	ps_pack_files_close(&files);
	assert_int_equal(ps_pack_files_dir_open("/nonexistent-ps", &files, &err),
	    -1);
	assert_int_equal(err.status, PS_STATUS_FAILED);
}

static const char agentpack_manifest[] =
    "id: demo.pack\n"
    "name: Demo\n"
    "version: 1.0.0\n"
    "domain: general\n"
    "entrypoint: agents/main.yml\n"
    "permissions:\n"
    "  shell: false\n"
    "  read_knowledge: true\n";

static size_t
count_code(const ps_diags *diags, const char *code)
{
	size_t i, n = 0;

	for (i = 0; i < diags->count; i++) {
		if (strcmp(diags->items[i].code, code) == 0)
			n++;
	}
	return n;
}

/* Validates tmpdir; `already_signed` as verify sets it. */
static void
load_as(ps_manifest **m, ps_diags *diags, int already_signed)
{
	ps_validate_options opt;
	ps_pack_files files;
	ps_error err;

	ps_validate_options_init(&opt);
	assert_int_equal(opt.already_signed, 0);
	opt.already_signed = already_signed;
	ps_diags_init(diags);
	assert_int_equal(ps_pack_files_dir_open(tmpdir, &files, &err), 0);
	assert_int_equal(ps_manifest_load(&files, &opt, m, diags, &err), 0);
	ps_pack_files_close(&files);
}

static void
load(ps_manifest **m, ps_diags *diags)
{
	load_as(m, diags, 0);
}

static void
agentpack_model_and_describe(void **state)
{
	ps_manifest *m = NULL;
	ps_diags diags;
	ps_error err;
	char *text = NULL;

	(void)state;
	write_file("manifest.yml", agentpack_manifest,
	    sizeof(agentpack_manifest) - 1);
	make_dir("agents");
	make_dir("prompts");
	write_text("agents/main.yml", "system_prompt: prompts/p.md\n"
	    "agents:\n  - config: agents/sub.yml\n");
	write_file("agents/sub.yml", "name: sub\n", 10);
	write_file("prompts/p.md", "Be careful.\n", 12);
	load(&m, &diags);
	assert_non_null(m);
	assert_int_equal(diags.count, 0);
	assert_int_equal(ps_manifest_valid(&diags, 1), 1);
	assert_string_equal(m->id, "demo.pack");
	assert_string_equal(m->file_id, "demo.pack");
	assert_string_equal(m->version, "1.0.0");
	/* Undeclared permissions are denied. */
	assert_int_equal(m->permissions.network, 0);
	assert_int_equal(m->permissions.read_knowledge, 1);
	assert_string_equal(m->permissions.file_write, "none");
	assert_int_equal(m->prompt_count, 3);
	assert_string_equal(m->prompts[0].path, "agents/main.yml");
	assert_int_equal(m->prompts[0].line, 5);
	assert_string_equal(m->prompts[1].path, "agents/sub.yml");
	assert_string_equal(m->prompts[2].path, "prompts/p.md");
	assert_int_equal(ps_manifest_describe(m, PS_LANG_ZH, &text, &err), 0);
	assert_non_null(strstr(text, "此智能体包将读取本地知识库，不写入任何文件，"
	    "不执行 shell，不访问网络。\n"));
	free(text);
	ps_manifest_free(m);
	ps_diags_free(&diags);
}

static void
agentpack_pickles_and_bad_refs(void **state)
{
	static const char pickle[] = "\x80\x05\x95\x00";
	ps_manifest *m = NULL;
	ps_diags diags;

	(void)state;
	write_file("manifest.yml", agentpack_manifest,
	    sizeof(agentpack_manifest) - 1);
	make_dir("agents");
	write_file("agents/main.yml", "config: ../up.yml\n", 18);
	write_file("data.bin", pickle, 4);
	write_file("cache.pkl", "x", 1);
	load(&m, &diags);
	assert_non_null(m);
	assert_int_equal(count_code(&diags, "agentpack_pickle"), 2);
	assert_int_equal(count_code(&diags, "path_escapes"), 1);
	assert_int_equal(ps_manifest_valid(&diags, 0), 0);
	ps_manifest_free(m);
	ps_diags_free(&diags);
}

/* An agent config naming paths that leave the pack, at several depths,
 * beside values that are fine or are no paths at all. */
static const char hostile_agent[] =
    "system_prompt: /etc/shadow\n"                     /* 1:16 */
    "prompt: ../../secret.md\n"                        /* 2:9 */
    "data_dir: /etc\n"                                 /* 3:11 */
    "tools:\n"
    "  - name: t\n"
    "    script_file: ../x\n"                          /* 6:18 */
    "    knowledge_paths: [ok/a, /abs, [a/../b]]\n"    /* 7:29, 7:36 */
    "    settings: {cache_dir: ../../tmp, retries: 3}\n" /* 8:27 */
    "fine_file: prompts/p.md\n"
    "missing_file: not/there.md\n"
    "output_dir: ./out/\n"
    "timeout_path: 12\n"
    "empty_path: \"\"\n"
    "notes_file: |\n  /etc/passwd is not read: this is text\n"
    "agents:\n  - config: agents/sub.yml\n";

static void
expect_config_path(const ps_diags *diags, ps_severity severity,
    const char *file, unsigned line, unsigned column, const char *words)
{
	const ps_diag *d;
	size_t i;

	for (i = 0; i < diags->count; i++) {
		d = &diags->items[i];
		if (strcmp(d->code, "agentpack_config_path") != 0 ||
		    d->line != line || d->column != column)
			continue;
		assert_int_equal(d->severity, severity);
		assert_string_equal(d->file, file);
		assert_non_null(strstr(d->message, words));
		assert_non_null(strstr(d->message, "expected a relative path "
		    "inside the pack, found "));
		/* A warning says why it is not a refusal. */
		assert_int_equal(strstr(d->message, "already signed") != NULL,
		    severity == PS_SEVERITY_WARNING);
		return;
	}
	fail_msg("no agentpack_config_path at %s:%u:%u", file, line, column);
}

static void
write_hostile_pack(void)
{
	write_file("manifest.yml", agentpack_manifest,
	    sizeof(agentpack_manifest) - 1);
	make_dir("agents");
	make_dir("prompts");
	write_text("prompts/p.md", "Be careful.\n");
	write_file("agents/main.yml", hostile_agent, sizeof(hostile_agent) - 1);
	/* Reached through config: and found in agents/ by convention. */
	write_text("agents/sub.yml", "name: sub\nhistory_file: /var/log/x\n");
}

static void
check_hostile_findings(const ps_diags *diags, ps_severity sev)
{
	assert_int_equal(count_code(diags, "agentpack_config_path"), 8);
	expect_config_path(diags, sev, "agents/main.yml", 1, 16, "system_prompt");
	expect_config_path(diags, sev, "agents/main.yml", 2, 9, "prompt");
	expect_config_path(diags, sev, "agents/main.yml", 3, 11, "data_dir");
	expect_config_path(diags, sev, "agents/main.yml", 6, 18, "script_file");
	expect_config_path(diags, sev, "agents/main.yml", 7, 29,
	    "knowledge_paths");
	expect_config_path(diags, sev, "agents/main.yml", 7, 36,
	    "knowledge_paths");
	expect_config_path(diags, sev, "agents/main.yml", 8, 27, "cache_dir");
	expect_config_path(diags, sev, "agents/sub.yml", 2, 15, "history_file");
}

static void
agentpack_config_paths_refused(void **state)
{
	ps_manifest *m = NULL;
	ps_diags diags;

	(void)state;
	write_hostile_pack();
	load(&m, &diags);
	assert_non_null(m);
	check_hostile_findings(&diags, PS_SEVERITY_ERROR);
	/* The entrypoint is read once, through the manifest and agents/. */
	expect_config_path(&diags, PS_SEVERITY_ERROR, "agents/main.yml", 1, 16,
	    "/etc/shadow");
	assert_int_equal(ps_diags_count(&diags, PS_SEVERITY_WARNING), 0);
	assert_int_equal(ps_diags_count(&diags, PS_SEVERITY_ERROR), 8);
	assert_int_equal(ps_manifest_valid(&diags, 0), 0);
	/* Targets are not made prompt files: the same three as without them. */
	assert_int_equal(m->prompt_count, 3);
	ps_manifest_free(m);
	ps_diags_free(&diags);
}

static void
agentpack_config_paths_warn_when_signed(void **state)
{
	ps_manifest *m = NULL;
	ps_diags diags;

	(void)state;
	write_hostile_pack();
	load_as(&m, &diags, 1);
	assert_non_null(m);
	check_hostile_findings(&diags, PS_SEVERITY_WARNING);
	assert_int_equal(ps_diags_count(&diags, PS_SEVERITY_ERROR), 0);
	assert_int_equal(ps_manifest_valid(&diags, 0), 1);
	ps_manifest_free(m);
	ps_diags_free(&diags);
	/* Rules older than packs are no warnings: config: stays an error. */
	write_text("agents/sub.yml", "config: ../up.yml\n");
	load_as(&m, &diags, 1);
	assert_int_equal(count_code(&diags, "path_escapes"), 1);
	assert_int_equal(ps_manifest_valid(&diags, 0), 0);
	ps_manifest_free(m);
	ps_diags_free(&diags);
}

/* ------------------------------------------------------------- autograph */

static const char autograph_manifest[] =
    "name: autograph.pkg.t\n"
    "version: \"1.0.0\"\n"
    "description: \"t\"\n"
    "contract:\n"
    "  engine_version: \">=0.1.0\"\n"
    "compose: infra/compose.yaml\n";

/* An autograph pack in tmpdir whose compose file and Taskfile are given. */
static void
write_autograph(const char *compose, const char *taskfile)
{
	write_text("augr.pkg.yml", autograph_manifest);
	write_text("README.md", "# t\n");
	write_text("Taskfile.yaml", taskfile);
	make_dir("infra");
	write_text("infra/compose.yaml", compose);
}

static const ps_service *
service(const ps_manifest *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->compose_service_count; i++) {
		if (strcmp(m->compose_services[i].name, name) == 0)
			return &m->compose_services[i];
	}
	fail_msg("no service %s", name);
	return NULL;
}

/* The diagnostic of `code` at FILE:LINE:COL, with its severity. */
static void
expect_diag(const ps_diags *diags, const char *code, ps_severity severity,
    const char *file, unsigned line, unsigned column)
{
	const ps_diag *d;
	size_t i;

	for (i = 0; i < diags->count; i++) {
		d = &diags->items[i];
		if (strcmp(d->code, code) != 0 || d->line != line ||
		    d->column != column || strcmp(d->file, file) != 0)
			continue;
		assert_int_equal(d->severity, severity);
		return;
	}
	for (i = 0; i < diags->count; i++)
		print_message("%s:%u:%u %s %s\n", diags->items[i].file,
		    diags->items[i].line, diags->items[i].column,
		    diags->items[i].code, diags->items[i].message);
	fail_msg("no %s at %s:%u:%u", code, file, line, column);
}

/* The message of the first diagnostic at LINE:COL ("" when none). */
static const char *
message_at(const ps_diags *diags, unsigned line, unsigned column)
{
	size_t i;

	for (i = 0; i < diags->count; i++) {
		if (diags->items[i].line == line &&
		    diags->items[i].column == column)
			return diags->items[i].message;
	}
	return "";
}

static void
expect_mount(const ps_mount *mt, const char *source, const char *target,
    int read_only)
{
	assert_string_equal(mt->source, source);
	assert_string_equal(mt->target, target);
	assert_int_equal(mt->read_only, read_only);
}

static const char compose_short[] =
    "services:\n"
    "  web:\n"
    "    image: nginx:1.27\n"
    "    user: \"1000:1000\"\n"
    "    privileged: true\n"
    "    network_mode: host\n"
    "    pid: host\n"
    "    ipc: host\n"
    "    cap_add: [NET_ADMIN, SYS_TIME]\n"
    "    devices: [\"/dev/fuse:/dev/fuse:rwm\"]\n"
    "    security_opt: [\"seccomp:unconfined\"]\n"
    "    ports:\n"
    "      - \"8080:80\"\n"
    "      - 3000\n"
    "      - \"127.0.0.1:5000-5010:6000-6010/udp\"\n"
    "      - \"[::1]:6001:6001\"\n"
    "      - \"127.0.0.1::7000\"\n"
    "    volumes:\n"
    "      - /var/run/docker.sock:/var/run/docker.sock\n"
    "      - ./data:/data:ro\n"
    "      - ../up:/up\n"
    "      - ~/.ssh:/root/.ssh:ro,z\n"
    "      - cache:/cache:rw\n"
    "      - /anonymous\n"
    "  db:\n"
    "    image: postgres\n"
    "    network_mode: \"service:web\"\n"
    "    privileged: false\n"
    "  built: {build: .}\n"
    "  empty:\n";

static void
autograph_compose_short_syntax(void **state)
{
	const ps_service *web, *db;
	ps_manifest *m = NULL;
	ps_diags diags;

	(void)state;
	write_autograph(compose_short, "tasks: {}\n");
	load(&m, &diags);
	assert_non_null(m);
	assert_int_equal(ps_diags_count(&diags, PS_SEVERITY_ERROR), 0);
	assert_int_equal(ps_diags_count(&diags, PS_SEVERITY_WARNING), 0);
	assert_int_equal(m->compose_service_count, 4);
	assert_int_equal(m->services.count, 4);
	assert_string_equal(m->services.items[3], "empty");
	web = service(m, "web");
	assert_string_equal(web->file, "infra/compose.yaml");
	assert_int_equal(web->line, 2);
	assert_int_equal(web->column, 3);
	assert_string_equal(web->image, "nginx:1.27");
	assert_string_equal(web->user, "1000:1000");
	assert_int_equal(web->privileged, 1);
	assert_int_equal(web->host_network, 1);
	assert_int_equal(web->host_pid, 1);
	assert_int_equal(web->host_ipc, 1);
	assert_string_equal(web->network_mode, "host");
	assert_int_equal(web->cap_add.count, 2);
	assert_string_equal(web->cap_add.items[1], "SYS_TIME");
	assert_string_equal(web->devices.items[0], "/dev/fuse:/dev/fuse:rwm");
	assert_string_equal(web->security_opt.items[0], "seccomp:unconfined");
	assert_int_equal(web->port_count, 5);
	assert_string_equal(web->ports[0].text, "8080:80");
	assert_int_equal(web->ports[0].published, 8080);
	assert_int_equal(web->ports[0].target, 80);
	assert_null(web->ports[0].host_ip);
	assert_null(web->ports[0].protocol);
	/* A container port alone: Compose picks the host port. */
	assert_string_equal(web->ports[1].text, "3000");
	assert_int_equal(web->ports[1].published, 0);
	assert_int_equal(web->ports[1].target, 3000);
	assert_string_equal(web->ports[2].host_ip, "127.0.0.1");
	assert_int_equal(web->ports[2].published, 5000);
	assert_int_equal(web->ports[2].published_last, 5010);
	assert_int_equal(web->ports[2].target, 6000);
	assert_string_equal(web->ports[2].protocol, "udp");
	assert_string_equal(web->ports[3].host_ip, "::1");
	assert_int_equal(web->ports[3].published, 6001);
	assert_string_equal(web->ports[4].host_ip, "127.0.0.1");
	assert_int_equal(web->ports[4].published, 0);
	assert_int_equal(web->ports[4].target, 7000);
	/* Absolute, ./, ../ and ~ sources are host paths; a name is a
	 * volume; a target alone is an anonymous volume, not kept. */
	assert_int_equal(web->host_mount_count, 4);
	expect_mount(&web->host_mounts[0], "/var/run/docker.sock",
	    "/var/run/docker.sock", 0);
	expect_mount(&web->host_mounts[1], "./data", "/data", 1);
	expect_mount(&web->host_mounts[2], "../up", "/up", 0);
	expect_mount(&web->host_mounts[3], "~/.ssh", "/root/.ssh", 1);
	assert_int_equal(web->volume_count, 1);
	expect_mount(&web->volumes[0], "cache", "/cache", 0);
	db = service(m, "db");
	assert_int_equal(db->privileged, 0);
	assert_int_equal(db->host_network, 0);
	assert_string_equal(db->network_mode, "service:web");
	assert_null(service(m, "built")->image);
	assert_int_equal(service(m, "empty")->port_count, 0);
	ps_manifest_free(m);
	ps_diags_free(&diags);
}

static const char compose_long[] =
    "services:\n"
    "  app:\n"
    "    privileged: \"yes\"\n"
    "    devices:\n"
    "      - source: /dev/kvm\n"
    "        target: /dev/kvm\n"
    "        permissions: rwm\n"
    "      - {source: /dev/net/tun}\n"
    "    ports:\n"
    "      - target: 80\n"
    "        published: \"8080-8081\"\n"
    "        host_ip: 0.0.0.0\n"
    "        protocol: tcp\n"
    "        mode: host\n"
    "      - target: 443\n"
    "      - {target: 53, published: 53, host_ip: \"::\", protocol: udp}\n"
    "    volumes:\n"
    "      - type: bind\n"
    "        source: /etc\n"
    "        target: /host-etc\n"
    "        read_only: true\n"
    "      - {type: volume, source: data, target: /data}\n"
    "      - {type: volume, source: hostbound, target: /hb, read_only: \"on\"}\n"
    "      - {type: tmpfs, target: /tmp}\n"
    "      - {type: image, source: alpine, target: /img}\n"
    "      - {type: npipe, source: '\\\\.\\pipe\\docker_engine', target: /p}\n"
    "      - {type: volume, target: /anon}\n"
    "volumes:\n"
    "  data: {}\n"
    "  hostbound:\n"
    "    driver: local\n"
    "    driver_opts: {type: none, o: bind, device: /srv/shared}\n";

static void
autograph_compose_long_syntax(void **state)
{
	const ps_service *app;
	ps_manifest *m = NULL;
	ps_diags diags;

	(void)state;
	write_autograph(compose_long, "tasks: {}\n");
	load(&m, &diags);
	assert_non_null(m);
	assert_int_equal(diags.count, 0);
	app = service(m, "app");
	/* Compose casts "yes" to true, as it casts y, on, true. */
	assert_int_equal(app->privileged, 1);
	assert_int_equal(app->devices.count, 2);
	assert_string_equal(app->devices.items[0], "/dev/kvm:/dev/kvm:rwm");
	assert_string_equal(app->devices.items[1], "/dev/net/tun");
	assert_int_equal(app->port_count, 3);
	assert_string_equal(app->ports[0].text, "0.0.0.0:8080-8081:80/tcp");
	assert_int_equal(app->ports[0].published, 8080);
	assert_int_equal(app->ports[0].published_last, 8081);
	assert_int_equal(app->ports[0].target, 80);
	assert_string_equal(app->ports[0].host_ip, "0.0.0.0");
	assert_string_equal(app->ports[1].text, "443");
	assert_int_equal(app->ports[1].published, 0);
	assert_string_equal(app->ports[2].text, "[::]:53:53/udp");
	/* bind and npipe are host mounts, so is a volume whose local driver
	 * binds a host path; tmpfs, image and anonymous volumes are not
	 * kept. */
	assert_int_equal(app->host_mount_count, 3);
	expect_mount(&app->host_mounts[0], "/etc", "/host-etc", 1);
	expect_mount(&app->host_mounts[1], "/srv/shared", "/hb", 1);
	expect_mount(&app->host_mounts[2], "\\\\.\\pipe\\docker_engine", "/p",
	    0);
	assert_int_equal(app->volume_count, 1);
	expect_mount(&app->volumes[0], "data", "/data", 0);
	ps_manifest_free(m);
	ps_diags_free(&diags);
}

static const char compose_invalid[] =
    "services:\n"
    "  web:\n"
    "    image: 12\n"                                   /* 3:12 */
    "    privileged: maybe\n"                           /* 4:17 */
    "    user: 1000\n"                                  /* 5:11 */
    "    cap_add: SYS_ADMIN\n"                          /* 6:14 */
    "    pid: [host]\n"                                 /* 7:10 */
    "    ports: [\"80:abc\", \"1.2.3:80:80\", 70000, {published: 1}]\n"
    "    volumes: [\"/a:/b:ro:x\", \"::x\", {source: x, target: /y}]\n"
    "  \"bad name\": {}\n";                             /* 10:3 */

static void
check_invalid_compose(const ps_diags *diags, ps_severity sev)
{
	const char *f = "infra/compose.yaml";

	expect_diag(diags, "autograph_compose_invalid", sev, f, 3, 12);
	expect_diag(diags, "autograph_compose_invalid", sev, f, 4, 17);
	expect_diag(diags, "autograph_compose_invalid", sev, f, 5, 11);
	expect_diag(diags, "autograph_compose_invalid", sev, f, 6, 14);
	expect_diag(diags, "autograph_compose_invalid", sev, f, 7, 10);
	expect_diag(diags, "autograph_compose_invalid", sev, f, 8, 13);
	expect_diag(diags, "autograph_compose_invalid", sev, f, 8, 23);
	expect_diag(diags, "autograph_compose_invalid", sev, f, 8, 38);
	expect_diag(diags, "autograph_compose_invalid", sev, f, 8, 45);
	expect_diag(diags, "autograph_compose_invalid", sev, f, 9, 15);
	expect_diag(diags, "autograph_compose_invalid", sev, f, 9, 29);
	expect_diag(diags, "autograph_compose_invalid", sev, f, 9, 36);
	expect_diag(diags, "autograph_compose_invalid", sev, f, 10, 3);
	assert_int_equal(count_code(diags, "autograph_compose_invalid"), 13);
}

/* Types Compose refuses are errors; in a pack already signed, warnings. */
static void
autograph_compose_type_errors(void **state)
{
	ps_manifest *m = NULL;
	ps_diags diags;

	(void)state;
	write_autograph(compose_invalid, "tasks: {}\n");
	load(&m, &diags);
	assert_non_null(m);
	check_invalid_compose(&diags, PS_SEVERITY_ERROR);
	assert_int_equal(ps_manifest_valid(&diags, 0), 0);
	/* A value Compose refuses for privileged counts as granting it. */
	assert_int_equal(service(m, "web")->privileged, 1);
	assert_int_equal(service(m, "web")->host_pid, 1);
	ps_manifest_free(m);
	ps_diags_free(&diags);
	load_as(&m, &diags, 1);
	check_invalid_compose(&diags, PS_SEVERITY_WARNING);
	assert_int_equal(ps_manifest_valid(&diags, 0), 1);
	assert_non_null(strstr(diags.items[0].message, "already signed"));
	ps_manifest_free(m);
	ps_diags_free(&diags);
}

static const char compose_unresolved[] =
    "include: [other.yaml]\n"                           /* 1:1 */
    "services:\n"
    "  web:\n"
    "    extends: {service: base}\n"                    /* 4:5 */
    "    privileged: ${PRIV:-false}\n"                  /* 5:17 */
    "    network_mode: \"${NET}\"\n"                    /* 6:19 */
    "    image: app:${TAG:-latest}\n"
    "    ports: [\"${PORT}:80\"]\n"
    "    volumes:\n"
    "      - ${DATA:-data}:/data\n"                     /* 10:9 */
    "      - ./logs:/logs:$$ro\n"
    "      - {type: \"${T}\", source: x, target: /x}\n"  /* 12:16 */
    "      - {type: volume, source: \"${V}\", target: /v}\n" /* 13:9 */
    "      - opt:/opt\n"                                /* 14:9 */
    "volumes:\n"
    "  opt: {driver_opts: {o: \"${O}\", device: /srv}}\n";

/* What the environment decides counts as granted, with a warning. */
static void
autograph_compose_unresolved_values(void **state)
{
	const char *f = "infra/compose.yaml";
	const ps_service *web;
	ps_manifest *m = NULL;
	ps_diags diags;

	(void)state;
	write_autograph(compose_unresolved, "tasks: {}\n");
	load(&m, &diags);
	assert_non_null(m);
	assert_int_equal(ps_diags_count(&diags, PS_SEVERITY_ERROR), 0);
	expect_diag(&diags, "autograph_compose_unresolved", PS_SEVERITY_WARNING,
	    f, 1, 1);
	expect_diag(&diags, "autograph_compose_unresolved", PS_SEVERITY_WARNING,
	    f, 4, 5);
	expect_diag(&diags, "autograph_compose_unresolved", PS_SEVERITY_WARNING,
	    f, 5, 17);
	expect_diag(&diags, "autograph_compose_unresolved", PS_SEVERITY_WARNING,
	    f, 6, 19);
	expect_diag(&diags, "autograph_compose_unresolved", PS_SEVERITY_WARNING,
	    f, 10, 9);
	expect_diag(&diags, "autograph_compose_unresolved", PS_SEVERITY_WARNING,
	    f, 12, 16);
	expect_diag(&diags, "autograph_compose_unresolved", PS_SEVERITY_WARNING,
	    f, 13, 9);
	expect_diag(&diags, "autograph_compose_unresolved", PS_SEVERITY_WARNING,
	    f, 14, 9);
	assert_int_equal(count_code(&diags, "autograph_compose_unresolved"), 8);
	web = service(m, "web");
	assert_int_equal(web->privileged, 1);
	assert_int_equal(web->host_network, 1);
	assert_string_equal(web->image, "app:${TAG:-latest}");
	assert_string_equal(web->ports[0].text, "${PORT}:80");
	assert_int_equal(web->ports[0].published, 0);
	assert_int_equal(web->host_mount_count, 5);
	expect_mount(&web->host_mounts[0], "${DATA:-data}", "/data", 0);
	expect_mount(&web->host_mounts[1], "./logs", "/logs", 0);
	expect_mount(&web->host_mounts[2], "x", "/x", 0);
	expect_mount(&web->host_mounts[3], "${V}", "/v", 0);
	expect_mount(&web->host_mounts[4], "/srv", "/opt", 0);
	assert_int_equal(web->volume_count, 0);
	ps_manifest_free(m);
	ps_diags_free(&diags);
	/* A merge key would give Compose values packsign does not read. */
	write_text("infra/compose.yaml", "services:\n  web:\n    <<: "
	    "{privileged: true}\n    image: x\n");
	load(&m, &diags);
	expect_diag(&diags, "autograph_compose_invalid", PS_SEVERITY_ERROR, f, 3,
	    5);
	ps_manifest_free(m);
	ps_diags_free(&diags);
}

/* Writes `n` services into infra/compose.yaml (and infra/b.yaml). */
static void
write_services(const char *file, size_t first, size_t n)
{
	char path[64], *text = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	fprintf(f, "services:\n");
	for (i = first; i < first + n; i++)
		fprintf(f, "  s%zu: {image: x}\n", i);
	assert_int_equal(fclose(f), 0);
	snprintf(path, sizeof(path), "infra/%s", file);
	write_text(path, text);
	free(text);
}

/* Services are counted over all the compose files. */
static void
autograph_compose_bounds_services(void **state)
{
	ps_manifest *m = NULL;
	ps_diags diags;

	(void)state;
	write_autograph("services: {}\n", "tasks: {}\n");
	write_text("augr.pkg.yml", "name: autograph.pkg.t\nversion: \"1.0.0\"\n"
	    "description: t\ncontract: {engine_version: \"*\"}\n"
	    "compose: [infra/compose.yaml, infra/b.yaml, infra/compose.yaml]\n");
	write_services("compose.yaml", 0, PS_COMPOSE_MAX_SERVICES - 1);
	write_services("b.yaml", 1000, 2);
	load(&m, &diags);
	/* The file listed twice is read once. */
	assert_int_equal(m->compose_service_count, PS_COMPOSE_MAX_SERVICES);
	assert_int_equal(m->services.count, PS_COMPOSE_MAX_SERVICES);
	expect_diag(&diags, "autograph_compose_limit", PS_SEVERITY_ERROR,
	    "infra/b.yaml", 3, 3);
	assert_int_equal(count_code(&diags, "autograph_compose_limit"), 1);
	ps_manifest_free(m);
	ps_diags_free(&diags);
}

/* The manifest's 65th compose file is not read. */
static void
autograph_compose_bounds_files(void **state)
{
	ps_manifest *m = NULL;
	char *text = NULL, path[64];
	ps_diags diags;
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	write_autograph("services: {}\n", "tasks: {}\n");
	assert_non_null(f);
	fprintf(f, "name: autograph.pkg.t\nversion: \"1.0.0\"\ndescription: t\n"
	    "contract: {engine_version: \"*\"}\ncompose:\n");
	for (i = 0; i <= PS_COMPOSE_MAX_FILES; i++) {
		fprintf(f, "  - infra/f%zu.yaml\n", i);
		snprintf(path, sizeof(path), "infra/f%zu.yaml", i);
		write_text(path, "services: {}\n");
	}
	fprintf(f, "  - infra/f0.yaml\n");
	assert_int_equal(fclose(f), 0);
	write_text("augr.pkg.yml", text);
	free(text);
	load(&m, &diags);
	expect_diag(&diags, "autograph_compose_limit", PS_SEVERITY_ERROR,
	    "augr.pkg.yml", 6 + PS_COMPOSE_MAX_FILES, 5);
	assert_int_equal(count_code(&diags, "autograph_compose_limit"), 1);
	ps_manifest_free(m);
	ps_diags_free(&diags);
}

/* Entries of one list, and the bytes of one value. */
static void
autograph_compose_bounds_entries(void **state)
{
	char *text = NULL, *big;
	ps_manifest *m = NULL;
	ps_diags diags;
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	fprintf(f, "services:\n  web:\n    cap_add:\n");
	for (i = 0; i <= PS_COMPOSE_MAX_ENTRIES; i++)
		fprintf(f, "      - CAP_%zu\n", i);
	big = malloc(PS_COMPOSE_MAX_VALUE + 2);
	assert_non_null(big);
	memset(big, 'a', PS_COMPOSE_MAX_VALUE + 1);
	big[PS_COMPOSE_MAX_VALUE + 1] = '\0';
	fprintf(f, "    image: %s\n", big);
	free(big);
	assert_int_equal(fclose(f), 0);
	write_autograph(text, "tasks: {}\n");
	free(text);
	load(&m, &diags);
	assert_int_equal(m->compose_services[0].cap_add.count,
	    PS_COMPOSE_MAX_ENTRIES);
	assert_null(m->compose_services[0].image);
	assert_int_equal(count_code(&diags, "autograph_compose_limit"), 2);
	expect_diag(&diags, "autograph_compose_limit", PS_SEVERITY_ERROR,
	    "infra/compose.yaml", 4, 7);
	ps_manifest_free(m);
	ps_diags_free(&diags);
}

static const char taskfile_forms[] =
    "version: '3'\n"
    "tasks:\n"
    "  up:\n"
    "    deps: [build, {task: lint}]\n"
    "    preconditions:\n"
    "      - test -f infra/compose.yaml\n"
    "      - {sh: \"which docker\", msg: no docker}\n"
    "    status: [test -f .up]\n"
    "    cmds:\n"
    "      - docker compose up -d\n"
    "      - task: seed\n"
    "      - {cmd: echo up, silent: true}\n"
    "      - defer: docker compose logs\n"
    "      - defer: {task: report}\n"
    "      - for: [a, b]\n"
    "        cmd: echo {{.ITEM}}\n"
    "  down: docker compose down\n"
    "  two: [echo one, {task: down}]\n"
    "  single:\n"
    "    cmd: echo single\n"
    "  quiet: {desc: nothing to run}\n";

static void
expect_cmd(const ps_task *t, size_t i, ps_task_cmd_kind kind,
    const char *text)
{
	assert_true(i < t->cmd_count);
	assert_int_equal(t->cmds[i].kind, kind);
	assert_string_equal(t->cmds[i].text, text);
}

static void
autograph_taskfile_model(void **state)
{
	const ps_task *up;
	ps_manifest *m = NULL;
	ps_diags diags;

	(void)state;
	write_autograph("services: {}\n", taskfile_forms);
	load(&m, &diags);
	assert_non_null(m);
	assert_int_equal(diags.count, 0);
	assert_int_equal(m->taskfile_task_count, 5);
	assert_int_equal(m->tasks.count, 5);
	up = &m->taskfile_tasks[0];
	assert_string_equal(up->name, "up");
	assert_int_equal(up->line, 3);
	assert_int_equal(up->cmd_count, 11);
	expect_cmd(up, 0, PS_TASK_CMD_CALL, "build");
	expect_cmd(up, 1, PS_TASK_CMD_CALL, "lint");
	expect_cmd(up, 2, PS_TASK_CMD_CHECK, "test -f infra/compose.yaml");
	expect_cmd(up, 3, PS_TASK_CMD_CHECK, "which docker");
	expect_cmd(up, 4, PS_TASK_CMD_CHECK, "test -f .up");
	expect_cmd(up, 5, PS_TASK_CMD_SHELL, "docker compose up -d");
	expect_cmd(up, 6, PS_TASK_CMD_CALL, "seed");
	expect_cmd(up, 7, PS_TASK_CMD_SHELL, "echo up");
	expect_cmd(up, 8, PS_TASK_CMD_SHELL, "docker compose logs");
	expect_cmd(up, 9, PS_TASK_CMD_CALL, "report");
	expect_cmd(up, 10, PS_TASK_CMD_SHELL, "echo {{.ITEM}}");
	assert_int_equal(up->cmds[5].line, 10);
	assert_int_equal(up->cmds[5].column, 9);
	expect_cmd(&m->taskfile_tasks[1], 0, PS_TASK_CMD_SHELL,
	    "docker compose down");
	expect_cmd(&m->taskfile_tasks[2], 0, PS_TASK_CMD_SHELL, "echo one");
	expect_cmd(&m->taskfile_tasks[2], 1, PS_TASK_CMD_CALL, "down");
	expect_cmd(&m->taskfile_tasks[3], 0, PS_TASK_CMD_SHELL, "echo single");
	assert_int_equal(m->taskfile_tasks[4].cmd_count, 0);
	ps_manifest_free(m);
	ps_diags_free(&diags);
}

static const char taskfile_invalid[] =
    "includes: {lib: ./lib.yml}\n"                      /* 1:1 */
    "tasks:\n"
    "  a: {cmds: \"echo\"}\n"                           /* 3:13 */
    "  b: {cmd: x, cmds: [y]}\n"                        /* 4:7 */
    "  c:\n"
    "    cmds:\n"
    "      - [nested]\n"                                /* 7:9 */
    "      - {silent: true}\n"                          /* 8:9 */
    "      - {cmd: [x]}\n"                              /* 9:9 */
    "    deps: [[x]]\n"                                 /* 10:12 */
    "    status: [{a: b}]\n";                           /* 11:14 */

static void
autograph_taskfile_errors(void **state)
{
	const char *f = "Taskfile.yaml";
	ps_manifest *m = NULL;
	ps_diags diags;

	(void)state;
	write_autograph("services: {}\n", taskfile_invalid);
	load(&m, &diags);
	assert_non_null(m);
	expect_diag(&diags, "autograph_taskfile_unresolved",
	    PS_SEVERITY_WARNING, f, 1, 1);
	expect_diag(&diags, "autograph_taskfile_invalid", PS_SEVERITY_ERROR, f,
	    3, 13);
	expect_diag(&diags, "autograph_taskfile_invalid", PS_SEVERITY_ERROR, f,
	    4, 7);
	expect_diag(&diags, "autograph_taskfile_invalid", PS_SEVERITY_ERROR, f,
	    7, 9);
	expect_diag(&diags, "autograph_taskfile_invalid", PS_SEVERITY_ERROR, f,
	    8, 9);
	expect_diag(&diags, "autograph_taskfile_invalid", PS_SEVERITY_ERROR, f,
	    9, 9);
	assert_non_null(strstr(message_at(&diags, 9, 9), "'cmd' must be a "
	    "command, found sequence"));
	expect_diag(&diags, "autograph_taskfile_invalid", PS_SEVERITY_ERROR, f,
	    10, 12);
	expect_diag(&diags, "autograph_taskfile_invalid", PS_SEVERITY_ERROR, f,
	    11, 14);
	assert_int_equal(count_code(&diags, "autograph_taskfile_invalid"), 7);
	/* Both forms of b are kept: the model does not say less. */
	expect_cmd(&m->taskfile_tasks[1], 0, PS_TASK_CMD_SHELL, "x");
	expect_cmd(&m->taskfile_tasks[1], 1, PS_TASK_CMD_SHELL, "y");
	ps_manifest_free(m);
	ps_diags_free(&diags);
	load_as(&m, &diags, 1);
	assert_int_equal(ps_diags_count(&diags, PS_SEVERITY_ERROR), 0);
	assert_int_equal(count_code(&diags, "autograph_taskfile_invalid"), 7);
	ps_manifest_free(m);
	ps_diags_free(&diags);
}

static void
autograph_taskfile_bounds(void **state)
{
	char *text = NULL, *big;
	ps_manifest *m = NULL;
	ps_diags diags;
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	fprintf(f, "tasks:\n  many:\n");
	for (i = 0; i <= PS_TASKFILE_MAX_COMMANDS; i++)
		fprintf(f, "    - echo %zu\n", i);
	big = malloc(PS_TASKFILE_MAX_COMMAND + 2);
	assert_non_null(big);
	memset(big, 'a', PS_TASKFILE_MAX_COMMAND + 1);
	big[PS_TASKFILE_MAX_COMMAND + 1] = '\0';
	fprintf(f, "  long: %s\n", big);
	free(big);
	for (i = 2; i <= PS_TASKFILE_MAX_TASKS; i++)
		fprintf(f, "  t%zu: echo\n", i);
	assert_int_equal(fclose(f), 0);
	write_autograph("services: {}\n", text);
	free(text);
	load(&m, &diags);
	assert_int_equal(m->taskfile_task_count, PS_TASKFILE_MAX_TASKS);
	assert_int_equal(m->taskfile_tasks[0].cmd_count,
	    PS_TASKFILE_MAX_COMMANDS);
	assert_int_equal(m->taskfile_tasks[1].cmd_count, 0);
	/* Too many tasks, too many commands, one command too long. */
	assert_int_equal(count_code(&diags, "autograph_taskfile_limit"), 3);
	expect_diag(&diags, "autograph_taskfile_limit", PS_SEVERITY_ERROR,
	    "Taskfile.yaml", 1, 1);
	expect_diag(&diags, "autograph_taskfile_limit", PS_SEVERITY_ERROR,
	    "Taskfile.yaml", 3 + PS_TASKFILE_MAX_COMMANDS, 7);
	expect_diag(&diags, "autograph_taskfile_limit", PS_SEVERITY_ERROR,
	    "Taskfile.yaml", 4 + PS_TASKFILE_MAX_COMMANDS, 9);
	ps_manifest_free(m);
	ps_diags_free(&diags);
}

/* Undeclared, infra/compose.yaml is read: the engine uses it. */
static void
autograph_standard_compose(void **state)
{
	ps_manifest *m = NULL;
	ps_diags diags;
	char *text = NULL;
	ps_error err;

	(void)state;
	write_autograph("services:\n  web:\n    privileged: true\n    "
	    "volumes: [\"/:/host\"]\n", "tasks: {}\n");
	write_text("augr.pkg.yml", "name: autograph.pkg.t\nversion: \"1.0.0\"\n"
	    "description: t\ncontract: {engine_version: \"*\"}\n");
	load(&m, &diags);
	assert_int_equal(count_code(&diags, "autograph_undeclared"), 1);
	assert_int_equal(m->compose_service_count, 1);
	assert_int_equal(m->compose_services[0].privileged, 1);
	assert_int_equal(ps_manifest_describe(m, PS_LANG_EN, &text, &err), 0);
	assert_non_null(strstr(text, "It mounts host paths into services: / "
	    "(web).\nServices that run privileged, with full access to the "
	    "host: web.\n"));
	free(text);
	ps_manifest_free(m);
	ps_diags_free(&diags);
	/* Its refusals are in that file; warnings once signed. */
	write_text("infra/compose.yaml", "services: [unclosed\n");
	load(&m, &diags);
	expect_diag(&diags, "yaml_syntax", PS_SEVERITY_ERROR,
	    "infra/compose.yaml", 2, 1);
	ps_manifest_free(m);
	ps_diags_free(&diags);
	load_as(&m, &diags, 1);
	expect_diag(&diags, "yaml_syntax", PS_SEVERITY_WARNING,
	    "infra/compose.yaml", 2, 1);
	assert_int_equal(ps_manifest_valid(&diags, 0), 1);
	ps_manifest_free(m);
	ps_diags_free(&diags);
}

/* One sentence per kind, only when present, in both languages. */
static void
autograph_describe_sentences(void **state)
{
	ps_manifest *m = NULL;
	ps_diags diags;
	char *text = NULL;
	ps_error err;

	(void)state;
	write_autograph(compose_short, "tasks: {up: echo}\n");
	load(&m, &diags);
	assert_int_equal(ps_manifest_describe(m, PS_LANG_EN, &text, &err), 0);
	assert_non_null(strstr(text, "It adds services: web, db, built, empty. "
	    "Tasks: up.\n"
	    "It mounts host paths into services: /var/run/docker.sock (web), "
	    "./data (web, read-only), ../up (web), ~/.ssh (web, read-only).\n"
	    "Services that run privileged, with full access to the host: web.\n"
	    "Services that use the host's network: web.\n"
	    "Services that share the host's process namespace: web.\n"
	    "Services that share the host's IPC namespace: web.\n"
	    "It adds Linux capabilities: NET_ADMIN (web), SYS_TIME (web).\n"
	    "It gives services host devices: /dev/fuse:/dev/fuse:rwm (web).\n"
	    "It needs an engine version >=0.1.0.\n"));
	free(text);
	assert_int_equal(ps_manifest_describe(m, PS_LANG_ZH, &text, &err), 0);
	assert_non_null(strstr(text, "将主机路径挂载进服务：/var/run/docker.sock"
	    "（web）、./data（web，只读）、../up（web）、~/.ssh（web，只读）。\n"
	    "以特权模式运行、可完全访问主机的服务：web。\n"
	    "使用主机网络的服务：web。\n"
	    "共享主机进程命名空间的服务：web。\n"
	    "共享主机 IPC 命名空间的服务：web。\n"
	    "新增 Linux 能力：NET_ADMIN（web）、SYS_TIME（web）。\n"
	    "交给服务的主机设备：/dev/fuse:/dev/fuse:rwm（web）。\n"));
	free(text);
	ps_manifest_free(m);
	ps_diags_free(&diags);
	/* Nothing of the host: no sentence. */
	write_text("infra/compose.yaml", "services: {db: {image: postgres, "
	    "volumes: [data:/var/lib/postgresql]}}\n");
	load(&m, &diags);
	assert_int_equal(ps_manifest_describe(m, PS_LANG_EN, &text, &err), 0);
	assert_null(strstr(text, "host"));
	assert_null(strstr(text, "capabilities"));
	free(text);
	ps_manifest_free(m);
	ps_diags_free(&diags);
}

static void
detect_none_and_two(void **state)
{
	ps_manifest *m = NULL;
	ps_diags diags;

	(void)state;
	load(&m, &diags);
	assert_null(m);
	assert_int_equal(count_code(&diags, "manifest_missing"), 1);
	ps_diags_free(&diags);
	write_file("holon.yaml", "id: a/b\n", 8);
	write_file("soyapack.yaml", "name: x\n", 8);
	load(&m, &diags);
	assert_null(m);
	assert_int_equal(count_code(&diags, "manifest_conflict"), 1);
	assert_non_null(strstr(diags.items[0].message,
	    "soyapack.yaml, holon.yaml"));
	ps_diags_free(&diags);
}

static void
yaml_refusal_is_one_diagnostic(void **state)
{
	ps_manifest *m = NULL;
	ps_diags diags;

	(void)state;
	write_file("holon.yaml", "a: 1\nb: 2\na: 3\n", 15);
	load(&m, &diags);
	assert_null(m);
	assert_int_equal(diags.count, 1);
	assert_string_equal(diags.items[0].code, "yaml_duplicate_key");
	assert_int_equal(diags.items[0].line, 3);
	ps_diags_free(&diags);
}

static void
strict_makes_warnings_fail(void **state)
{
	ps_diags diags;

	(void)state;
	ps_diags_init(&diags);
	assert_int_equal(ps_manifest_valid(&diags, 1), 1);
	ps_diags_add(&diags, PS_SEVERITY_WARNING, "field_unknown", "f", 1, 1,
	    "w");
	assert_int_equal(ps_manifest_valid(&diags, 0), 1);
	assert_int_equal(ps_manifest_valid(&diags, 1), 0);
	ps_diags_free(&diags);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(path_normalize_cases),
		cmocka_unit_test(url_public_checks),
		cmocka_unit_test(descriptors),
		cmocka_unit_test(hostnames),
		cmocka_unit_test(license_tables),
		cmocka_unit_test(format_names),
		cmocka_unit_test(strict_makes_warnings_fail),
		cmocka_unit_test_setup_teardown(
		    dir_reader_reads_lists_and_refuses_links, setup_dir,
		    teardown_dir),
		cmocka_unit_test_setup_teardown(agentpack_model_and_describe,
		    setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(agentpack_pickles_and_bad_refs,
		    setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(agentpack_config_paths_refused,
		    setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(
		    agentpack_config_paths_warn_when_signed, setup_dir,
		    teardown_dir),
		cmocka_unit_test_setup_teardown(autograph_compose_short_syntax,
		    setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(autograph_compose_long_syntax,
		    setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(autograph_compose_type_errors,
		    setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(
		    autograph_compose_unresolved_values, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(autograph_compose_bounds_services,
		    setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(autograph_compose_bounds_files,
		    setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(autograph_compose_bounds_entries,
		    setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(autograph_taskfile_model,
		    setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(autograph_taskfile_errors,
		    setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(autograph_taskfile_bounds,
		    setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(autograph_standard_compose,
		    setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(autograph_describe_sentences,
		    setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(detect_none_and_two, setup_dir,
		    teardown_dir),
		cmocka_unit_test_setup_teardown(yaml_refusal_is_one_diagnostic,
		    setup_dir, teardown_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
