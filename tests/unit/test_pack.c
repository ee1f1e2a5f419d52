/* Unit tests: name rules, ignore rules, entry checks, tree digest, walker,
 * the canonical re-encoding's comparison. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "pack/ignore.h"
#include "pack/items.h"
#include "pack/pack.h"
#include "pack/packdir.h"
#include "pack/rebuild.h"
#include "pack/tarwrite.h"
#include "pack/walk.h"
#include "util/pathname.h"
#include "util/strings.h"
#include "util/sha256.h"

static const char *
refusal(const char *path)
{
	static ps_error err;

	if (util_path_check(path, NULL, &err) == 0)
		return "ok";
	assert_int_equal(err.status, PS_STATUS_REFUSED);
	return err.code;
}

static void
name_rules(void **state)
{
	(void)state;
	assert_string_equal(refusal("prompts/review.md"), "ok");
	assert_string_equal(refusal("caf\xc3\xa9.md"), "ok");
	assert_string_equal(refusal("/etc/passwd"), "name_absolute");
	assert_string_equal(refusal("a/../b"), "name_dot_component");
	assert_string_equal(refusal("./a"), "name_dot_component");
	assert_string_equal(refusal("a//b"), "name_empty_component");
	assert_string_equal(refusal("a/"), "name_empty_component");
	assert_string_equal(refusal(""), "name_empty_component");
	assert_string_equal(refusal("a\\b"), "name_forbidden_char");
	assert_string_equal(refusal("a\nb"), "name_forbidden_char");
	assert_string_equal(refusal("a\x7f"), "name_forbidden_char");
	assert_string_equal(refusal("a\xc2\x85"), "name_forbidden_char");
	assert_string_equal(refusal("bad\xff"), "name_not_utf8");
	assert_string_equal(refusal("a:b"), "name_forbidden_char");
	assert_string_equal(refusal("what?.md"), "name_forbidden_char");
	assert_string_equal(refusal("cafe\xcc\x81.md"), "name_not_nfc");
	assert_string_equal(refusal("docs/CON"), "name_reserved");
	assert_string_equal(refusal("nul.txt"), "name_reserved");
	assert_string_equal(refusal("Com1.md"), "name_reserved");
	assert_string_equal(refusal("console.md"), "ok");
	assert_string_equal(refusal("a/aux"), "name_reserved");
	assert_string_equal(refusal("PRN .txt"), "name_reserved");
	assert_string_equal(refusal("conout$.log"), "name_reserved");
	assert_string_equal(refusal("LPT9"), "name_reserved");
	assert_string_equal(refusal("lpt\xc2\xb9.c"), "name_reserved");
	assert_string_equal(refusal("COM10"), "ok");
	assert_string_equal(refusal("xcon"), "ok");
	assert_string_equal(refusal("notes."), "name_reserved");
	assert_string_equal(refusal("notes "), "name_reserved");
}

static void
name_length_and_depth_limits(void **state)
{
	char path[UTIL_PATH_MAX + 64];
	size_t i;

	(void)state;
	memset(path, 'a', 255);
	path[255] = '\0';
	assert_string_equal(refusal(path), "ok");
	path[255] = 'a';
	path[256] = '\0';
	assert_string_equal(refusal(path), "name_too_long");
	for (i = 0; i < 64; i++)
		memcpy(path + 2 * i, "d/", 2);
	path[127] = '\0';          /* 64 components */
	assert_string_equal(refusal(path), "ok");
	path[127] = '/';
	memcpy(path + 128, "x", 2);  /* 65 components */
	assert_string_equal(refusal(path), "path_too_deep");
}

static void
nfc_normalises_and_folds(void **state)
{
	char *nfc, *fold;

	(void)state;
	nfc = util_path_nfc("cafe\xcc\x81", 6);
	assert_string_equal(nfc, "caf\xc3\xa9");
	fold = util_path_fold("Docs/README.md");
	assert_string_equal(fold, "docs/readme.md");
	free(nfc);
	free(fold);
	assert_null(util_path_nfc("\xff", 1));
}

static pack_ignore *
ignore_of(const char *text)
{
	pack_ignore *rules = NULL;
	ps_error err;

	assert_int_equal(pack_ignore_parse(text, strlen(text), &rules, &err), 0);
	return rules;
}

static void
ignore_patterns(void **state)
{
	pack_ignore *r = ignore_of("# comment\n\n*.log  \nbuild/\n/dist\n"
	    "docs/*.tmp\r\n");

	(void)state;
	assert_true(pack_ignore_match(r, "a.log", 0));
	assert_true(pack_ignore_match(r, "deep/er/x.log", 0));
	assert_true(pack_ignore_match(r, "build", 1));
	assert_true(pack_ignore_match(r, "src/build", 1));
	assert_false(pack_ignore_match(r, "build", 0));     /* dir-only */
	assert_true(pack_ignore_match(r, "dist", 1));
	assert_false(pack_ignore_match(r, "src/dist", 1));  /* anchored */
	assert_true(pack_ignore_match(r, "docs/a.tmp", 0));
	assert_false(pack_ignore_match(r, "docs/sub/a.tmp", 0));
	assert_false(pack_ignore_match(r, "prompts/a.md", 0));
	pack_ignore_free(r);
}

static void
ignore_refuses_unsupported_syntax(void **state)
{
	pack_ignore *r = NULL;
	ps_error err;

	(void)state;
	assert_int_equal(pack_ignore_parse("ok\n!keep.log\n", 12, &r, &err), -1);
	assert_string_equal(err.code, "ignore_syntax");
	assert_string_equal(err.subject, ".packsignignore:2");
	assert_int_equal(pack_ignore_parse("docs/**/x\n", 10, &r, &err), -1);
	assert_string_equal(err.code, "ignore_syntax");
	assert_null(r);
}

static void
add(pack_items *list, const char *path, ps_entry_type type)
{
	ps_error err;

	assert_non_null(pack_items_add(list, strdup(path), type, &err));
}

static const char *
check_code(pack_items *list)
{
	static ps_error err;

	pack_items_sort(list);
	if (pack_items_check(list, "pack", &err) == 0)
		return "ok";
	return err.code;
}

/* The message of a refused check of `paths` (all files), or "ok". */
static const char *
check_message(const char *const *paths)
{
	static ps_error err;
	pack_items list = { 0 };
	int rc;

	for (; *paths != NULL; paths++)
		add(&list, *paths, PS_ENTRY_FILE);
	pack_items_sort(&list);
	rc = pack_items_check(&list, "pack", &err);
	pack_items_free(&list);
	if (rc == 0)
		return "ok";
	assert_string_equal(err.code, "case_collision");
	return err.message;
}

/* Only names that may fold to another are folded: collisions between
 * them, with a lowercase name, through ancestors, and three at once
 * (the first two in path order named), none among lowercase names. */
static void
case_collisions_among_folding_names(void **state)
{
	static const char *const kelvin[] = { "\xe2\x84\xaa.md", "k.md", NULL };
	static const char *const ancestors[] = { "Docs/x.md", "DOCS/y.md",
	    "docs-z.md", NULL };
	static const char *const three[] = { "b.md", "b.MD", "B.md", NULL };
	static const char *const accents[] = { "\xc3\xa9.md", "e.md",
	    "\xc3\x89.txt", NULL };
	static const char *const lower[] = { "a.md", "a/b.md", "a-b/c.md",
	    NULL };
	/* One spelling of a directory, many files: no collision. */
	static const char *const same_dir[] = { "Docs/a.md", "Docs/b.md",
	    "Docs/sub/C.md", "docs.md", NULL };
	/* A file and a directory apart only in case; and deep down. */
	static const char *const file_dir[] = { "README", "readme/x.md",
	    NULL };
	static const char *const deep[] = { "a/b/C/d/e.md", "a/b/c/d/f.md",
	    NULL };

	(void)state;
	assert_non_null(strstr(check_message(kelvin), "'k.md' and"));
	assert_non_null(strstr(check_message(ancestors),
	    "'DOCS/y.md' and 'Docs/x.md'"));
	assert_non_null(strstr(check_message(three), "'B.md' and 'b.MD'"));
	assert_string_equal(check_message(accents), "ok");
	assert_string_equal(check_message(lower), "ok");
	assert_string_equal(check_message(same_dir), "ok");
	assert_non_null(strstr(check_message(file_dir),
	    "'README' and 'readme/x.md'"));
	assert_non_null(strstr(check_message(deep),
	    "'a/b/C/d/e.md' and 'a/b/c/d/f.md'"));
}

/* Found in review: conflicts through ancestors that are not entries. */
static void
entry_conflicts_through_implied_directories(void **state)
{
	pack_items a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 };

	(void)state;
	add(&a, "a", PS_ENTRY_FILE);
	add(&a, "a/b/c", PS_ENTRY_FILE);
	assert_string_equal(check_code(&a), "path_conflict");
	add(&b, "A", PS_ENTRY_DIR);
	add(&b, "a/x", PS_ENTRY_FILE);
	assert_string_equal(check_code(&b), "case_collision");
	add(&c, "A/x", PS_ENTRY_FILE);
	add(&c, "a/y", PS_ENTRY_FILE);
	assert_string_equal(check_code(&c), "case_collision");
	add(&d, "a/b", PS_ENTRY_DIR);
	add(&d, "a/b/c", PS_ENTRY_FILE);
	add(&d, "a/d", PS_ENTRY_FILE);
	add(&d, "a", PS_ENTRY_DIR);
	assert_string_equal(check_code(&d), "ok");
	pack_items_free(&a);
	pack_items_free(&b);
	pack_items_free(&c);
	pack_items_free(&d);
}

/* Found by clang-analyzer (unix.Malloc): a conflict after two repeated
 * directories freed the second one again when the list was released. */
static void
conflict_after_repeated_directories_frees_each_name_once(void **state)
{
	pack_items a = { 0 };

	(void)state;
	add(&a, "a", PS_ENTRY_DIR);
	add(&a, "a/b", PS_ENTRY_DIR);
	add(&a, "a/b/c", PS_ENTRY_FILE);
	add(&a, "a/b/c/d", PS_ENTRY_FILE);
	assert_string_equal(check_code(&a), "path_conflict");
	pack_items_free(&a);
}

static void
entry_collisions(void **state)
{
	pack_items a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 }, e = { 0 };

	(void)state;
	add(&a, "README.md", PS_ENTRY_FILE);
	add(&a, "readme.md", PS_ENTRY_FILE);
	assert_string_equal(check_code(&a), "case_collision");
	add(&b, "x.md", PS_ENTRY_FILE);
	add(&b, "x.md", PS_ENTRY_FILE);
	assert_string_equal(check_code(&b), "duplicate_entry");
	add(&c, "a", PS_ENTRY_FILE);
	add(&c, "a/b", PS_ENTRY_FILE);
	assert_string_equal(check_code(&c), "path_conflict");
	add(&d, "A", PS_ENTRY_FILE);
	add(&d, "a/b", PS_ENTRY_FILE);
	assert_string_equal(check_code(&d), "case_collision");
	add(&e, "a", PS_ENTRY_DIR);
	add(&e, "a-b", PS_ENTRY_FILE);
	add(&e, "a/b", PS_ENTRY_FILE);
	assert_string_equal(check_code(&e), "ok");
	pack_items_free(&a);
	pack_items_free(&b);
	pack_items_free(&c);
	pack_items_free(&d);
	pack_items_free(&e);
}

/* The listing is hashed exactly as docs/formats/digests.md spells it. */
static void
tree_digest_encoding(void **state)
{
	static const char listing[] =
	    "packsign-tree-v1\n"
	    "f - 3 ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad a b.md\n"
	    "f - 3 ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad docs/x.md\n"
	    "d empty\n"
	    "f x 0 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 run.sh\n";
	unsigned char want[PS_SHA256_LEN], got[PS_SHA256_LEN];
	pack_items list = { 0 };
	pack_item *item;
	ps_error err;

	(void)state;
	add(&list, "run.sh", PS_ENTRY_FILE);
	add(&list, "empty", PS_ENTRY_DIR);
	add(&list, "a b.md", PS_ENTRY_FILE);
	add(&list, "docs", PS_ENTRY_DIR);          /* implied by its file */
	add(&list, "docs/x.md", PS_ENTRY_FILE);
	pack_items_sort(&list);
	item = &list.items[pack_items_find(&list, "a b.md")];
	item->entry.size = 3;
	util_sha256_buffer("abc", 3, item->entry.sha256);
	item = &list.items[pack_items_find(&list, "docs/x.md")];
	item->entry.size = 3;
	util_sha256_buffer("abc", 3, item->entry.sha256);
	item = &list.items[pack_items_find(&list, "run.sh")];
	item->entry.executable = 1;
	util_sha256_buffer("", 0, item->entry.sha256);
	assert_int_equal(pack_items_tree_digest(&list, got, &err), 0);
	util_sha256_buffer(listing, strlen(listing), want);
	assert_memory_equal(got, want, PS_SHA256_LEN);
	pack_items_free(&list);
}

static void
empty_directory_detection(void **state)
{
	pack_items list = { 0 };

	(void)state;
	add(&list, "a", PS_ENTRY_DIR);
	add(&list, "a-b", PS_ENTRY_DIR);
	add(&list, "a/c", PS_ENTRY_FILE);
	add(&list, "z", PS_ENTRY_DIR);
	pack_items_sort(&list);
	assert_false(pack_items_is_empty_dir(&list, 0));   /* a */
	assert_true(pack_items_is_empty_dir(&list, 1));    /* a-b */
	assert_true(pack_items_is_empty_dir(&list, 3));    /* z */
	pack_items_free(&list);
}

static char *
make_pack(void)
{
	char *dir = strdup("/tmp/ps-pack-XXXXXX"), path[256];
	int fd;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/manifest.yml", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "id: x\n", 6), 6);
	close(fd);
	return dir;
}

static void
remove_pack(char *dir)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(dir);
}

static void
walker_refuses_sockets(void **state)
{
	char *dir = make_pack();
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	pack_packer *p = NULL;
	ps_error err;
	int s = socket(AF_UNIX, SOCK_STREAM, 0);

	(void)state;
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/sock", dir);
	assert_int_equal(bind(s, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(pack_packer_open(dir, -1, &p, &err), -1);
	assert_string_equal(err.code, "special_file_refused");
	assert_non_null(strstr(err.message, "socket"));
	close(s);
	remove_pack(dir);
}

/* A file that grows between the walk and the write is refused (exit 2). */
static void
file_changed_while_packing(void **state)
{
	char *dir = make_pack(), path[256];
	ps_pack_options opt;
	pack_packer *p = NULL;
	ps_error err;
	int fd;

	(void)state;
	ps_pack_options_init(&opt);
	assert_int_equal(pack_packer_open(dir, -1, &p, &err), 0);
	snprintf(path, sizeof(path), "%s/manifest.yml", dir);
	fd = open(path, O_WRONLY | O_APPEND);
	assert_int_equal(write(fd, "more\n", 5), 5);
	close(fd);
	assert_int_equal(pack_packer_write(p, -1, &opt, NULL, &err), -1);
	assert_string_equal(err.code, "file_changed");
	assert_int_equal(err.status, PS_STATUS_FAILED);
	pack_packer_free(p);
	remove_pack(dir);
}

/* A directory swapped for a link after the walk is never followed: the
 * file below it is refused as changed, the link's target never read. */
static void
directory_replaced_by_link_while_packing(void **state)
{
	char *dir = make_pack(), path[256], outside[] = "/tmp/ps-out-XXXXXX",
	    target[300];
	ps_pack_options opt;
	pack_packer *p = NULL;
	ps_error err;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(outside));
	snprintf(path, sizeof(path), "%s/prompts", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/prompts/a.md", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	assert_int_equal(write(fd, "hello", 5), 5);
	close(fd);
	snprintf(target, sizeof(target), "%s/a.md", outside);
	fd = open(target, O_WRONLY | O_CREAT, 0644);
	assert_int_equal(write(fd, "HELLO", 5), 5);
	close(fd);
	ps_pack_options_init(&opt);
	assert_int_equal(pack_packer_open(dir, -1, &p, &err), 0);
	snprintf(path, sizeof(path), "%s/prompts/a.md", dir);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/prompts", dir);
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(symlink(outside, path), 0);
	assert_int_equal(pack_packer_write(p, -1, &opt, NULL, &err), -1);
	assert_string_equal(err.code, "file_changed");
	assert_string_equal(err.subject, "prompts/a.md");
	pack_packer_free(p);
	remove_pack(dir);
	assert_int_equal(unlink(target), 0);
	assert_int_equal(rmdir(outside), 0);
}

/* 48 directories of two levels, two files each: work for both threads. */
#define WIDE_DIRS 48

static void
make_wide_tree(const char *dir)
{
	char path[300];
	int i, fd;

	for (i = 0; i < WIDE_DIRS; i++) {
		snprintf(path, sizeof(path), "%s/d%02d", dir, i);
		assert_int_equal(mkdir(path, 0755), 0);
		snprintf(path, sizeof(path), "%s/d%02d/sub", dir, i);
		assert_int_equal(mkdir(path, 0755), 0);
		snprintf(path, sizeof(path), "%s/d%02d/f.md", dir, i);
		fd = open(path, O_WRONLY | O_CREAT, 0644);
		assert_true(fd >= 0);
		close(fd);
		snprintf(path, sizeof(path), "%s/d%02d/sub/g.md", dir, i);
		fd = open(path, O_WRONLY | O_CREAT, 0644);
		assert_true(fd >= 0);
		close(fd);
	}
}

static int
walk_dir_at(const char *dir, pack_items *items, ps_error *err)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY), rc;
	pack_ignore *ignore = NULL;

	assert_true(fd >= 0);
	assert_int_equal(pack_ignore_load(fd, &ignore, err), 0);
	memset(items, 0, sizeof(*items));
	rc = pack_walk(fd, "pack", ignore, items, err);
	pack_ignore_free(ignore);
	close(fd);
	return rc;
}

/* The walk reads directories on two threads: every entry is found once,
 * and the list comes sorted, the same whichever thread found what. */
static void
walk_of_many_directories_is_complete_and_repeatable(void **state)
{
	char *dir = make_pack();
	pack_items first, again;
	ps_error err;
	size_t i;
	int round;

	(void)state;
	make_wide_tree(dir);
	assert_int_equal(walk_dir_at(dir, &first, &err), 0);
	assert_int_equal(first.count, 1 + 4 * WIDE_DIRS);
	assert_true(pack_items_find(&first, "d00/sub/g.md") >= 0);
	assert_true(pack_items_find(&first, "d47/sub") >= 0);
	for (i = 1; i < first.count; i++)
		assert_true(strcmp(first.items[i - 1].entry.path,
		    first.items[i].entry.path) < 0);
	for (round = 0; round < 20; round++) {
		assert_int_equal(walk_dir_at(dir, &again, &err), 0);
		assert_int_equal(again.count, first.count);
		for (i = 0; i < first.count; i++)
			assert_string_equal(again.items[i].entry.path,
			    first.items[i].entry.path);
		pack_items_free(&again);
	}
	pack_items_free(&first);
	remove_pack(dir);
}

/* A link deep in the tree is refused whichever thread meets it. */
static void
walk_refuses_a_link_deep_in_the_tree(void **state)
{
	char *dir = make_pack(), path[300];
	pack_items items;
	ps_error err;
	int round;

	(void)state;
	make_wide_tree(dir);
	snprintf(path, sizeof(path), "%s/d37/sub/link", dir);
	assert_int_equal(symlink("/etc/passwd", path), 0);
	for (round = 0; round < 20; round++) {
		assert_int_equal(walk_dir_at(dir, &items, &err), -1);
		assert_string_equal(err.code, "symlink_refused");
		assert_string_equal(err.subject, "pack/d37/sub/link");
		pack_items_free(&items);
	}
	remove_pack(dir);
}

/* Found in review: the survey of an installed tree reopens each queued
 * directory by its path, and a path of 4096 bytes (the name rules' limit)
 * is too long for one openat2; it is opened a component at a time. */
static void
survey_reaches_a_directory_at_the_path_limit(void **state)
{
	char root[] = "/tmp/ps-deep-XXXXXX", name[256];
	static const size_t lengths[] = { 255, 255, 255, 255, 255, 255, 255,
	    255, 255, 255, 255, 255, 255, 255, 255, 200, 55 };
	ps_strings odd = { NULL, 0 };
	pack_items items = { 0 };
	ps_error err;
	size_t i, total = 0;
	int rootfd, fd, next;

	(void)state;
	assert_non_null(mkdtemp(root));
	rootfd = open(root, O_RDONLY | O_DIRECTORY);
	assert_true(rootfd >= 0);
	fd = dup(rootfd);
	for (i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
		memset(name, 'a' + (int)i, lengths[i]);
		name[lengths[i]] = '\0';
		assert_int_equal(mkdirat(fd, name, 0755), 0);
		next = openat(fd, name, O_RDONLY | O_DIRECTORY);
		assert_true(next >= 0);
		close(fd);
		fd = next;
		total += lengths[i] + (i > 0);
	}
	close(fd);
	assert_int_equal(total, 4096);
	assert_int_equal(pack_walk_survey(rootfd, "installed", &items, &odd, &err),
	    0);
	assert_int_equal(items.count, 17);
	assert_int_equal(strlen(items.items[16].entry.path), 4096);
	assert_int_equal(odd.count, 0);
	pack_items_free(&items);
	util_strings_clear(&odd);
	close(rootfd);
	remove_pack(strdup(root));
}

static void
packer_refuses_a_second_manifest(void **state)
{
	char *dir = make_pack(), path[256];
	ps_pack_options options;
	pack_packer *p = NULL;
	ps_error err;
	int fd;

	(void)state;
	ps_pack_options_init(&options);
	snprintf(path, sizeof(path), "%s/holon.yaml", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	close(fd);
	/* The walk is kept for a reader; packing refuses. */
	assert_int_equal(pack_packer_open(dir, -1, &p, &err), 0);
	assert_int_equal(pack_packer_format(p), PS_FORMAT_UNKNOWN);
	assert_int_equal(pack_packer_write(p, -1, &options, NULL, &err), -1);
	assert_string_equal(err.code, "manifest_conflict");
	assert_int_equal(err.status, PS_STATUS_REFUSED);
	pack_packer_free(p);
	remove_pack(dir);
}

struct listed {
	char names[512];
};

static int
note_listed(void *arg, const char *path, ps_entry_type type, uint64_t size,
    ps_error *err)
{
	struct listed *l = arg;
	size_t n = strlen(l->names);

	(void)type;
	(void)size;
	(void)err;
	snprintf(l->names + n, sizeof(l->names) - n, "%s ", path);
	return 0;
}

/* The listing of `names` (files under the pack): of the pack directory,
 * or with `as_archive` of a tar of it. */
static void
listing_of(const char *names, int as_archive, struct listed *l)
{
	char *dir = make_pack(), cmd[1024], tar[300];
	ps_pack_files files;
	ps_digest *d = NULL;
	ps_error err;

	snprintf(cmd, sizeof(cmd), "cd '%s' && for f in %s; do mkdir -p "
	    "\"$(dirname \"$f\")\" && echo x > \"$f\"; done && tar -cf "
	    "'%s.tar' manifest.yml %s", dir, names, dir, names);
	assert_int_equal(system(cmd), 0);
	snprintf(tar, sizeof(tar), "%s.tar", dir);
	memset(l, 0, sizeof(*l));
	assert_int_equal(as_archive ? ps_pack_files_archive_open(tar, &files,
	    &d, &err) : ps_pack_files_dir_open(dir, &files, &err), 0);
	assert_int_equal(files.list(files.ctx, note_listed, l, &err), 0);
	ps_pack_files_close(&files);
	ps_digest_free(d);
	unlink(tar);
	remove_pack(dir);
}

/* Issue 22: an archive's entries already in depth-first order are not
 * sorted again, nor is a walk whose bytewise order is depth first (no
 * name continues below '/' beside a directory); the listing is depth
 * first either way. */
static void
listing_is_depth_first(void **state)
{
	struct listed l;
	int as_archive;

	(void)state;
	for (as_archive = 0; as_archive <= 1; as_archive++) {
		listing_of("k/a/c k/b k/bb/x", as_archive, &l);
		assert_string_equal(l.names,
		    "k k/a k/a/c k/b k/bb k/bb/x manifest.yml ");
		listing_of("k/a-b k/a/c k/a.d k/a/e/f", as_archive, &l);
		assert_string_equal(l.names,
		    "k k/a k/a/c k/a/e k/a/e/f k/a-b k/a.d manifest.yml ");
	}
}

struct heads {
	ps_pack_files *files;
	int files_seen;
};

/* Each listed file's head (it holds its own path) read from inside the
 * listing, and another file's, which the listing has not reached. */
static int
check_listed_head(void *arg, const char *path, ps_entry_type type,
    uint64_t size, ps_error *err)
{
	struct heads *h = arg;
	unsigned char head[16];
	size_t got = 0;

	(void)size;
	if (type != PS_ENTRY_FILE || strcmp(path, "manifest.yml") == 0)
		return 0;
	h->files_seen++;
	assert_int_equal(h->files->head(h->files->ctx, path, head, 16, &got,
	    err), 0);
	assert_true(got > strlen(path));
	assert_memory_equal(head, path, strlen(path));
	assert_int_equal(h->files->head(h->files->ctx, "k/a.d", head, 16, &got,
	    err), 0);
	assert_memory_equal(head, "k/a.d\n", 6);
	return 0;
}

/* The view finds the file it is listing without a search (its kept files
 * share the listing's depth-first order): heads read during the listing
 * are each file's own, also where bytewise order differs. */
static void
archive_heads_while_listing(void **state)
{
	static const char names[] = "k/a-b k/a/c k/a.d k/a/e/f k/b";
	char *dir = make_pack(), cmd[1024], tar[300];
	ps_pack_files files;
	struct heads h = { &files, 0 };
	unsigned char head[16];
	size_t got = 0;
	ps_digest *d = NULL;
	ps_error err;

	(void)state;
	snprintf(cmd, sizeof(cmd), "cd '%s' && for f in %s; do mkdir -p "
	    "\"$(dirname \"$f\")\" && echo \"$f\" > \"$f\"; done && tar -cf "
	    "'%s.tar' manifest.yml %s", dir, names, dir, names);
	assert_int_equal(system(cmd), 0);
	snprintf(tar, sizeof(tar), "%s.tar", dir);
	assert_int_equal(ps_pack_files_archive_open(tar, &files, &d, &err), 0);
	assert_int_equal(files.list(files.ctx, check_listed_head, &h, &err), 0);
	assert_int_equal(h.files_seen, 5);
	assert_int_equal(files.head(files.ctx, "k/a/e/f", head, 16, &got, &err),
	    0);
	assert_memory_equal(head, "k/a/e/f\n", 8);
	assert_int_equal(files.head(files.ctx, "k/a", head, 16, &got, &err), -1);
	assert_string_equal(err.code, "pack_not_file");
	ps_pack_files_close(&files);
	ps_digest_free(d);
	unlink(tar);
	remove_pack(dir);
}

/* Issue 22: install's tree is read back without a walk: a file opened
 * beneath the root, links and directories refused as the walk refuses
 * them; stat and list still walk. */
static void
tree_reads_without_walking(void **state)
{
	char *dir = make_pack(), cmd[600];
	ps_pack_files files;
	unsigned char head[4];
	char *data = NULL;
	size_t len = 0, got = 0;
	ps_entry_type type;
	uint64_t size;
	ps_error err;

	(void)state;
	snprintf(cmd, sizeof(cmd), "cd '%s' && mkdir -p k/d && printf abc > "
	    "k/f && ln -s f k/l && ln -s k kl", dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(pack_files_tree_open(dir, &files, &err), 0);
	assert_int_equal(files.read(files.ctx, "k/f", 16, &data, &len, &err), 0);
	assert_int_equal(len, 3);
	assert_string_equal(data, "abc");
	free(data);
	assert_int_equal(files.head(files.ctx, "k/f", head, 2, &got, &err), 0);
	assert_int_equal(got, 2);
	assert_memory_equal(head, "ab", 2);
	assert_int_equal(files.read(files.ctx, "k/f", 2, &data, &len, &err), -1);
	assert_string_equal(err.code, PS_CODE_PACK_FILE_TOO_LARGE);
	assert_int_equal(files.read(files.ctx, "k/l", 16, &data, &len, &err), -1);
	assert_string_equal(err.code, PS_CODE_PACK_PATH_SPECIAL);
	assert_int_equal(files.head(files.ctx, "kl/f", head, 2, &got, &err), -1);
	assert_string_equal(err.code, PS_CODE_PACK_PATH_SPECIAL);
	assert_int_equal(files.read(files.ctx, "k/d", 16, &data, &len, &err), -1);
	assert_string_equal(err.code, PS_CODE_PACK_NOT_FILE);
	assert_int_equal(files.read(files.ctx, "k/none", 16, &data, &len, &err),
	    -1);
	assert_string_equal(err.code, PS_CODE_PACK_PATH_MISSING);
	assert_int_equal(files.read(files.ctx, "../x", 16, &data, &len, &err),
	    -1);
	assert_string_equal(err.code, "pack_path_invalid");
	assert_int_equal(files.stat(files.ctx, "k/f", &type, &size, &err), 0);
	assert_int_equal(type, PS_ENTRY_FILE);
	assert_int_equal(size, 3);
	assert_int_equal(files.stat(files.ctx, "kl", &type, &size, &err), -1);
	assert_string_equal(err.code, PS_CODE_PACK_PATH_SPECIAL);
	ps_pack_files_close(&files);
	remove_pack(dir);
}

/* A small canonical tar, written by the canonical writer into `out`
 * (at most `cap` bytes); its length. */
static size_t
small_canonical_tar(unsigned char *out, size_t cap)
{
	static const char data[300] = "x";
	pack_tar_writer *w;
	unsigned char digest[PS_SHA256_LEN];
	ps_error err;
	char path[] = "/tmp/ps-rebuild-XXXXXX";
	int fd = mkstemp(path);
	ssize_t n;

	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(pack_tar_writer_new(fd, PS_COMPRESS_NONE, 1700000000,
	    &w, &err), 0);
	assert_int_equal(pack_tar_write_file(w, "manifest.yml", 1, 0, &err), 0);
	assert_int_equal(pack_tar_write_data(w, "x", 1, &err), 0);
	assert_int_equal(pack_tar_write_dir(w, "d", &err), 0);
	assert_int_equal(pack_tar_write_file(w, "d/a", sizeof(data), 1, &err), 0);
	assert_int_equal(pack_tar_write_data(w, data, sizeof(data), &err), 0);
	assert_int_equal(pack_tar_writer_finish(w, digest, &err), 0);
	pack_tar_writer_free(w);
	n = pread(fd, out, cap, 0);
	close(fd);
	assert_true(n > 0 && (size_t)n < cap);
	return (size_t)n;
}

/* small_canonical_tar's first entry into the re-encoding, its one byte
 * of data handed back from `x`. */
static void
rebuild_manifest(pack_rebuild *rb, const void *x)
{
	pack_rebuild_entry manifest = { 1, 1700000000, 0, 0 };

	pack_rebuild_add_entry(rb, &manifest, "manifest.yml");
	pack_rebuild_data(rb, x, 1);
}

/* Its other entries (d/a executable as `exec`, its 300 bytes handed back
 * from `data`); pack_rebuild_finish's answer, `rb` freed. */
static int
rebuild_rest(pack_rebuild *rb, const void *data, int exec)
{
	pack_rebuild_entry dir = { 0, 1700000000, 1, 0 };
	pack_rebuild_entry file = { 300, 1700000000, 0, 0 };
	int rc;

	file.executable = exec;
	pack_rebuild_add_entry(rb, &dir, "d");
	pack_rebuild_add_entry(rb, &file, "d/a");
	pack_rebuild_data(rb, data, 300);
	rc = pack_rebuild_finish(rb);
	pack_rebuild_free(rb);
	return rc;
}

/* Feeds the tar's bytes in odd pieces (plus `extra` NUL bytes), then
 * its entries (d/a executable as `exec`); pack_rebuild_finish's answer. */
static int
rebuild_of(const unsigned char *tar, size_t len, size_t extra, int exec)
{
	static const char data[300] = "x";
	static const unsigned char zeros[4096];
	pack_rebuild rb;
	size_t off, piece;

	memset(&rb, 0, sizeof(rb));
	for (off = 0; off < len; off += piece) {
		piece = len - off < 777 ? len - off : 777;
		pack_rebuild_input(&rb, tar + off, piece);
	}
	for (; extra > 0; extra -= piece) {
		piece = extra < sizeof(zeros) ? extra : sizeof(zeros);
		pack_rebuild_input(&rb, zeros, piece);
	}
	rebuild_manifest(&rb, "x");
	return rebuild_rest(&rb, data, exec);
}

static void
rebuild_matches_only_the_canonical_bytes(void **state)
{
	static unsigned char tar[64 * 1024];
	size_t len = small_canonical_tar(tar, sizeof(tar));
	pack_rebuild rb;

	(void)state;
	assert_int_equal(rebuild_of(tar, len, 0, 1), 1);
	assert_int_equal(rebuild_of(tar, len, 512, 1), 0);     /* after the end */
	assert_int_equal(rebuild_of(tar, len, 0, 0), 0);       /* another mode */
	assert_int_equal(rebuild_of(tar, len - 512, 0, 1), 0); /* cut short */
	tar[600] ^= 1;                          /* the manifest's padding */
	assert_int_equal(rebuild_of(tar, len, 0, 1), 0);
	tar[600] ^= 1;
	/* More input than the lag bound is dropped at once, not kept. */
	assert_int_equal(rebuild_of(tar, len, PACK_REBUILD_LAG_MAX, 1), 0);
	memset(&rb, 0, sizeof(rb));
	pack_rebuild_input(&rb, tar, len);
	pack_rebuild_abandon(&rb);
	assert_null(rb.pending);
	assert_int_equal(pack_rebuild_finish(&rb), 0);
	pack_rebuild_free(&rb);
}

/* The tar lent in pieces of `piece` bytes, each kept (copied) before the
 * next as a reader does; the entries' data handed back from `x` and
 * `data` (the tar itself, in place, or elsewhere). */
static int
rebuild_lent(const unsigned char *tar, size_t len, size_t piece,
    const void *x, const void *data)
{
	pack_rebuild rb;
	size_t off, n;

	memset(&rb, 0, sizeof(rb));
	for (off = 0; off < len; off += n) {
		n = len - off < piece ? len - off : piece;
		pack_rebuild_keep(&rb);
		pack_rebuild_lend(&rb, tar + off, n);
	}
	rebuild_manifest(&rb, x);
	return rebuild_rest(&rb, data, 1);
}

/* As a reader feeds it: the tar lent up to `split`, the manifest's entry
 * and data matched (in place), the rest of that block kept, then the
 * remaining input lent and the other entries matched, d/a's data handed
 * back from the tar itself; pack_rebuild_finish's answer. */
static int
rebuild_lent_then_kept(const unsigned char *tar, size_t len, size_t split)
{
	pack_rebuild rb;

	memset(&rb, 0, sizeof(rb));
	pack_rebuild_lend(&rb, tar, split);
	rebuild_manifest(&rb, tar + 512);
	pack_rebuild_keep(&rb);
	pack_rebuild_lend(&rb, tar + split, len - split);
	return rebuild_rest(&rb, tar + 2048, 1);
}

/* Lent input is compared where it lies; data at its very address needs
 * no comparison, data from anywhere else still gets one. */
static void
rebuild_compares_lent_bytes_in_place(void **state)
{
	static const char data[300] = "x";
	static unsigned char tar[64 * 1024];
	static unsigned char kept[64 * 1024];
	size_t len = small_canonical_tar(tar, sizeof(tar));
	char other[300];
	pack_rebuild rb;

	(void)state;
	/* manifest.yml's data at 512, d/a's at 2048 (three headers before). */
	assert_int_equal(tar[512], 'x');
	assert_int_equal(tar[2048], 'x');
	assert_int_equal(rebuild_lent(tar, len, len, tar + 512, tar + 2048), 1);
	assert_int_equal(rebuild_lent(tar, len, len, "x", data), 1);
	assert_int_equal(rebuild_lent(tar, len, 777, tar + 512, tar + 2048), 1);
	assert_int_equal(rebuild_lent(tar, len, 100, "x", data), 1);
	memcpy(other, data, sizeof(other));
	other[299] = 'y';
	assert_int_equal(rebuild_lent(tar, len, len, "x", other), 0);
	assert_int_equal(rebuild_lent(tar, len, 777, "x", other), 0);
	/* Kept after part of a block matched: the rest, not the block. */
	assert_int_equal(rebuild_lent_then_kept(tar, len, 513), 1);
	assert_int_equal(rebuild_lent_then_kept(tar, len, 1100), 1);
	assert_int_equal(rebuild_lent_then_kept(tar, len, 2100), 1);
	assert_int_equal(rebuild_lent_then_kept(tar, len, 2400), 1);
	/* An address inside the input, but not the data's: compared. */
	assert_int_equal(rebuild_lent(tar, len, len, tar + 512, tar + 2047), 0);
	assert_int_equal(rebuild_lent(tar, len - 1, len, tar + 512,
	    tar + 2048), 0);
	/* What is kept is a copy: the caller may change its bytes after. */
	memcpy(kept, tar, len);
	memset(&rb, 0, sizeof(rb));
	pack_rebuild_lend(&rb, kept, len);
	pack_rebuild_keep(&rb);
	memset(kept, 0xff, len);
	assert_null(rb.lent);
	assert_int_equal(rb.pending_len, len);
	assert_memory_equal(rb.pending + rb.pending_head, tar, len);
	pack_rebuild_free(&rb);
}

/* A reader that stops early frees its buffers first: freeing the
 * re-encoding (which closes its writer, writing the end blocks) must not
 * read the lent bytes then (found by ASan in install.bats). */
static void
rebuild_free_reads_no_lent_bytes(void **state)
{
	static unsigned char tar[64 * 1024];
	size_t len = small_canonical_tar(tar, sizeof(tar));
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t span = (len + page - 1) / page * page;
	pack_rebuild rb;
	unsigned char *lent = mmap(NULL, span, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)state;
	assert_true(lent != MAP_FAILED);
	memcpy(lent, tar, len);
	memset(&rb, 0, sizeof(rb));
	pack_rebuild_lend(&rb, lent, len);
	rebuild_manifest(&rb, lent + 512);
	assert_false(rb.differs);
	assert_int_equal(mprotect(lent, span, PROT_NONE), 0);
	pack_rebuild_free(&rb);                 /* a read here would fault */
	assert_int_equal(munmap(lent, span), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(name_rules),
		cmocka_unit_test(rebuild_matches_only_the_canonical_bytes),
		cmocka_unit_test(rebuild_compares_lent_bytes_in_place),
		cmocka_unit_test(rebuild_free_reads_no_lent_bytes),
		cmocka_unit_test(name_length_and_depth_limits),
		cmocka_unit_test(nfc_normalises_and_folds),
		cmocka_unit_test(ignore_patterns),
		cmocka_unit_test(ignore_refuses_unsupported_syntax),
		cmocka_unit_test(entry_collisions),
		cmocka_unit_test(case_collisions_among_folding_names),
		cmocka_unit_test(entry_conflicts_through_implied_directories),
		cmocka_unit_test(conflict_after_repeated_directories_frees_each_name_once),
		cmocka_unit_test(tree_digest_encoding),
		cmocka_unit_test(empty_directory_detection),
		cmocka_unit_test(walker_refuses_sockets),
		cmocka_unit_test(file_changed_while_packing),
		cmocka_unit_test(directory_replaced_by_link_while_packing),
		cmocka_unit_test(packer_refuses_a_second_manifest),
		cmocka_unit_test(walk_of_many_directories_is_complete_and_repeatable),
		cmocka_unit_test(walk_refuses_a_link_deep_in_the_tree),
		cmocka_unit_test(survey_reaches_a_directory_at_the_path_limit),
		cmocka_unit_test(listing_is_depth_first),
		cmocka_unit_test(archive_heads_while_listing),
		cmocka_unit_test(tree_reads_without_walking),
	};
	return cmocka_run_group_tests_name("pack", tests, NULL, NULL);
}
