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
		cmocka_unit_test_setup_teardown(detect_none_and_two, setup_dir,
		    teardown_dir),
		cmocka_unit_test_setup_teardown(yaml_refusal_is_one_diagnostic,
		    setup_dir, teardown_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
