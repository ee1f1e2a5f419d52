/* Unit tests: git provenance (sign/provenance.h) on throwaway repositories. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sign/provenance.h"

static char top[256];            /* a temp dir: HOME and repositories */

static void
sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int n;

	n = snprintf(cmd, sizeof(cmd), "set -e; cd '%s'; ", top);
	va_start(ap, fmt);
	vsnprintf(cmd + n, sizeof(cmd) - (size_t)n, fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

/* The output of a shell command, without its final newline. */
static void
capture(char *out, size_t size, const char *cmd)
{
	char full[1024];
	FILE *p;
	size_t n;

	snprintf(full, sizeof(full), "cd '%s' && %s", top, cmd);
	p = popen(full, "r");
	assert_non_null(p);
	n = fread(out, 1, size - 1, p);
	out[n] = '\0';
	while (n > 0 && out[n - 1] == '\n')
		out[--n] = '\0';
	assert_int_equal(pclose(p), 0);
}

static int
setup(void **state)
{
	(void)state;
	snprintf(top, sizeof(top), "/tmp/ps-git-XXXXXX");
	if (mkdtemp(top) == NULL)
		return -1;
	setenv("HOME", top, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_AUTHOR_NAME", "t", 1);
	setenv("GIT_AUTHOR_EMAIL", "t@example.org", 1);
	setenv("GIT_COMMITTER_NAME", "t", 1);
	setenv("GIT_COMMITTER_EMAIL", "t@example.org", 1);
	return 0;
}

static int
teardown(void **state)
{
	char cmd[512];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	return system(cmd) == 0 ? 0 : -1;
}

/* A fresh repository `name` with a pack at packs/p and a file outside. */
static void
make_repo(const char *name)
{
	sh("rm -rf %s; mkdir -p %s/packs/p/prompts %s/other; cd %s; "
	    "git init -q -b main .; "
	    "printf 'id: p\\nversion: 1.0.0\\n' > packs/p/manifest.yml; "
	    "printf 'hello\\n' > packs/p/prompts/a.md; "
	    "printf '#!/bin/sh\\n' > packs/p/run.sh; chmod 755 packs/p/run.sh; "
	    "printf '*.tmp\\n' > packs/p/.packsignignore; "
	    "printf 'x\\n' > other/x.txt; "
	    "git add -A; git commit -q -m one", name, name, name, name);
}

/* ------------------------------------------------------------------ URLs */

static const char *
norm(const char *url)
{
	static char out[SIGN_GIT_URL_MAX + 1];
	static ps_error err;
	char *s = NULL;

	if (sign_git_url_normalize(url, &s, &err) != 0) {
		assert_null(s);
		assert_int_equal(err.status, PS_STATUS_REFUSED);
		return err.code;
	}
	snprintf(out, sizeof(out), "%s", s);
	free(s);
	return out;
}

static void
url_normalisation(void **state)
{
	(void)state;
	assert_string_equal(norm("https://github.com/o/r"), "https://github.com/o/r");
	assert_string_equal(norm("https://GitHub.COM/O/R.git/"),
	    "https://github.com/O/R");
	assert_string_equal(norm("git@github.com:o/r.git"), "https://github.com/o/r");
	assert_string_equal(norm("github.com:o/r"), "https://github.com/o/r");
	assert_string_equal(norm("ssh://git@host.example:2222/o/r.git"),
	    "https://host.example/o/r");
	assert_string_equal(norm("SSH://host/o/r/"), "https://host/o/r");
	assert_string_equal(norm("git://host/o/r"), "https://host/o/r");
	assert_string_equal(norm("https://host:443/o/r"), "https://host/o/r");
	assert_string_equal(norm("https://host:8443/group/sub/r.git"),
	    "https://host:8443/group/sub/r");
	assert_string_equal(norm("https://host/o/r.git.git"),
	    "https://host/o/r.git");
	/* User information is dropped, never recorded: GitLab CI's clone URL
	 * signs as its repository (issue 26). */
	assert_string_equal(norm("https://gitlab-ci-token:glcbt-64_SECRET@"
	    "gitlab.example.com/group/project.git"),
	    "https://gitlab.example.com/group/project");
	assert_string_equal(norm("https://user:tok@host/o/r"),
	    "https://host/o/r");
	assert_string_equal(norm("https://ghp_token@host/o/r"),
	    "https://host/o/r");
	assert_string_equal(norm("ssh://git:pw@host/o/r"), "https://host/o/r");
	assert_string_equal(norm("git://u:p@host:9418/o/r"), "https://host/o/r");
	assert_string_equal(norm("https://@host/o/r"), "https://host/o/r");
	assert_string_equal(norm("http://host/o/r"), "source_url_invalid");
	assert_string_equal(norm("file:///srv/r.git"), "source_url_invalid");
	assert_string_equal(norm("/srv/r.git"), "source_url_invalid");
	assert_string_equal(norm("./r"), "source_url_invalid");
	assert_string_equal(norm("https://host/o/r?x=1"), "source_url_invalid");
	assert_string_equal(norm("https://host/o/r#frag"), "source_url_invalid");
	assert_string_equal(norm("https://host/o/../r"), "source_url_invalid");
	assert_string_equal(norm("https://host/o//r"), "source_url_invalid");
	assert_string_equal(norm("https://host/"), "source_url_invalid");
	assert_string_equal(norm("https://host/.git"), "source_url_invalid");
	assert_string_equal(norm("https://ho_st/o/r"), "source_url_invalid");
	assert_string_equal(norm("https://[::1]/o/r"), "source_url_invalid");
	/* One host-name rule (util/hostname.c): RFC 1123 labels; a trailing
	 * dot is accepted, as manifests' URLs accept it (found in review). */
	assert_string_equal(norm("https://a..b/o/r"), "source_url_invalid");
	assert_string_equal(norm("https://-a.b/o/r"), "source_url_invalid");
	assert_string_equal(norm("https://a-.b/o/r"), "source_url_invalid");
	assert_string_equal(norm("https://github.com./o/r"),
	    "https://github.com./o/r");
	assert_string_equal(norm("https://host:99999/o/r"), "source_url_invalid");
	assert_string_equal(norm("https://host/o r"), "source_url_invalid");
	assert_string_equal(norm(""), "source_url_invalid");
}

/* Whatever else is wrong with a URL, no byte of a credential (user
 * information, a query) reaches the refusal's text. */
static void
url_refusals_show_no_credential(void **state)
{
	static const char *urls[] = {
		"https://u:SECRET@host",                 /* no path */
		"https://u:SECRET@ho_st/o/r",            /* bad host */
		"https://u:SECRET@host:99999/o/r",       /* bad port */
		"https://u:SECRET@host/o/../r",          /* bad path */
		"https://u:SE/CRET@host/o/r",            /* '/' hides the '@' */
		"ftp://u:SECRET@host/o/r",               /* scheme */
		"u:SECRET@host:o/r@x",                   /* scp-like, '@' in path */
		"https://host/o/r?private_token=SECRET", /* a query */
		"https://host/o/r#SECRET",
	};
	ps_error err;
	char *s = NULL;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(urls) / sizeof(urls[0]); i++) {
		assert_int_equal(sign_git_url_normalize(urls[i], &s, &err), -1);
		assert_null(s);
		assert_string_equal(err.code, "source_url_invalid");
		assert_null(strstr(err.message, "SECRET"));
		assert_null(strstr(err.subject, "SECRET"));
		assert_null(strstr(err.expected, "SECRET"));
		assert_null(strstr(err.found, "SECRET"));
		assert_null(strstr(err.found, "SE/CRET"));
		assert_non_null(strstr(err.found, "***"));
	}
	assert_int_equal(sign_git_url_normalize("https://u:SECRET@host", &s,
	    &err), -1);
	assert_string_equal(err.found, "https://***@host");
	assert_int_equal(sign_git_url_normalize("https://host/o/r?t=SECRET", &s,
	    &err), -1);
	assert_string_equal(err.found, "https://host/o/r?***");
}

/* ------------------------------------------------------------- discover */

static void
discover_records_path_commit_and_origin(void **state)
{
	sign_git_source *src = NULL;
	ps_error err;
	char dir[512], head[128];

	(void)state;
	make_repo("d");
	sh("cd d; git remote add origin git@GitHub.com:Example/Packs.git");
	capture(head, sizeof(head), "git -C d rev-parse HEAD");
	snprintf(dir, sizeof(dir), "%s/d/packs/p", top);
	assert_int_equal(sign_git_discover(dir, 1, &src, &err), 0);
	assert_non_null(src);
	assert_string_equal(src->pack_path, "packs/p");
	assert_string_equal(src->commit, head);
	assert_string_equal(src->origin_url, "https://github.com/Example/Packs");
	sign_git_source_free(src);
	snprintf(dir, sizeof(dir), "%s/d", top);
	assert_int_equal(sign_git_discover(dir, 1, &src, &err), 0);
	assert_string_equal(src->pack_path, "");
	sign_git_source_free(src);
	/* No origin: no URL.  Not a repository: no source. */
	sh("cd d; git remote remove origin; mkdir ../plain");
	assert_int_equal(sign_git_discover(dir, 1, &src, &err), 0);
	assert_null(src->origin_url);
	sign_git_source_free(src);
	snprintf(dir, sizeof(dir), "%s/plain", top);
	assert_int_equal(sign_git_discover(dir, 1, &src, &err), 0);
	assert_null(src);
	/* An origin with a token is recorded without it. */
	sh("cd d; git remote add origin https://x:secret@host/o/r");
	snprintf(dir, sizeof(dir), "%s/d", top);
	assert_int_equal(sign_git_discover(dir, 1, &src, &err), 0);
	assert_string_equal(src->origin_url, "https://host/o/r");
	sign_git_source_free(src);
	/* A local-path origin is refused, naming the way out; not reading
	 * the origin (the caller names the repository) signs. */
	sh("cd d; git remote set-url origin /srv/git/r.git");
	assert_int_equal(sign_git_discover(dir, 1, &src, &err), -1);
	assert_null(src);
	assert_string_equal(err.code, "source_url_invalid");
	assert_string_equal(err.subject, "origin");
	assert_non_null(strstr(err.message, "a local path"));
	assert_non_null(strstr(err.message, "--source-repo"));
	assert_string_equal(err.found, "/srv/git/r.git");
	assert_int_equal(sign_git_discover(dir, 0, &src, &err), 0);
	assert_null(src->origin_url);
	assert_string_equal(src->commit, head);
	sign_git_source_free(src);
}

/* ---------------------------------------------------------------- dirty */

static const char *
dirty_code(const char *repo, const char *pack, int *dirty)
{
	static ps_error err;
	sign_git_source *src = NULL;
	char dir[512];
	int rc;

	snprintf(dir, sizeof(dir), "%s/%s/%s", top, repo, pack);
	assert_int_equal(sign_git_discover(dir, 1, &src, &err), 0);
	assert_non_null(src);
	rc = sign_git_check_clean(src, dirty, &err);
	sign_git_source_free(src);
	if (rc == 0) {
		assert_int_equal(*dirty, 0);
		return "clean";
	}
	assert_int_equal(*dirty, 1);
	assert_int_equal(err.status, PS_STATUS_REFUSED);
	return err.code;
}

static void
dirty_check_is_restricted_to_the_pack(void **state)
{
	ps_error err;
	int dirty;

	(void)state;
	(void)err;
	make_repo("w");
	assert_string_equal(dirty_code("w", "packs/p", &dirty), "clean");
	/* Outside the pack: modified, untracked, ignored do not count. */
	sh("cd w; echo y >> other/x.txt; echo n > other/new; echo a > top.log; "
	    "echo '*.log' > .gitignore; git add .gitignore; git commit -q -m gi");
	assert_string_equal(dirty_code("w", "packs/p", &dirty), "clean");
	/* Modified. */
	sh("cd w; echo more >> packs/p/prompts/a.md");
	assert_string_equal(dirty_code("w", "packs/p", &dirty), "source_dirty");
	sh("cd w; git checkout -q -- packs/p");
	assert_string_equal(dirty_code("w", "packs/p", &dirty), "clean");
	/* Staged, then deleted. */
	sh("cd w; echo s > packs/p/staged.md; git add packs/p/staged.md");
	assert_string_equal(dirty_code("w", "packs/p", &dirty), "source_dirty");
	sh("cd w; git rm -q --cached packs/p/staged.md; rm packs/p/staged.md; "
	    "rm packs/p/run.sh");
	assert_string_equal(dirty_code("w", "packs/p", &dirty), "source_dirty");
	sh("cd w; git checkout -q -- packs/p");
	/* Untracked, in a new directory. */
	sh("cd w; mkdir packs/p/new; echo u > packs/p/new/u.md");
	assert_string_equal(dirty_code("w", "packs/p", &dirty), "source_dirty");
	sh("cd w; rm -r packs/p/new");
	/* Ignored by git but packed. */
	sh("cd w; echo l > packs/p/debug.log");
	assert_string_equal(dirty_code("w", "packs/p", &dirty), "source_dirty");
	/* Ignored by .packsignignore as well: not packed, not dirty. */
	sh("cd w; mv packs/p/debug.log packs/p/debug.tmp; "
	    "echo '*.tmp' >> .gitignore; git commit -q -am gi2");
	assert_string_equal(dirty_code("w", "packs/p", &dirty), "clean");
	/* The pack at the root of its repository. */
	sh("cd w; echo z >> other/x.txt");
	assert_string_equal(dirty_code("w", "", &dirty), "source_dirty");
}

static void
dirty_error_names_the_paths(void **state)
{
	sign_git_source *src = NULL;
	ps_error err;
	char dir[512];
	int dirty;

	(void)state;
	make_repo("n");
	sh("cd n; echo m >> packs/p/prompts/a.md; echo u > packs/p/u.md");
	snprintf(dir, sizeof(dir), "%s/n/packs/p", top);
	assert_int_equal(sign_git_discover(dir, 1, &src, &err), 0);
	assert_int_equal(sign_git_check_clean(src, &dirty, &err), -1);
	assert_string_equal(err.code, "source_dirty");
	assert_non_null(strstr(err.message, "packs/p/prompts/a.md"));
	assert_non_null(strstr(err.message, "packs/p/u.md"));
	assert_non_null(strstr(err.message, "2 files"));
	sign_git_source_free(src);
}

/* ---------------------------------------------------------- holon rule */

static const char *
holon(const char *repo, const char *ref, const char *head,
    sign_git_ref_relation *rel)
{
	static ps_error err;
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/%s", top, repo);
	if (sign_git_check_holon_ref(dir, "packs/h", ref, head, rel, &err) == 0)
		return "ok";
	return err.code;
}

static void
holon_ref_rule(void **state)
{
	char c1[64], c2[64], c3[64], c4[64], orphan[64];
	sign_git_ref_relation rel;

	(void)state;
	sh("rm -rf h; mkdir -p h/packs/h h/else; cd h; git init -q -b main .; "
	    "echo 'ref: x' > packs/h/holon.yaml; echo a > packs/h/a.md; "
	    "git add -A; git commit -q -m c1");
	capture(c1, sizeof(c1), "git -C h rev-parse HEAD");
	sh("cd h; echo 'ref: c1' > packs/h/holon.yaml; echo e > else/e; "
	    "git add -A; git commit -q -m c2");
	capture(c2, sizeof(c2), "git -C h rev-parse HEAD");
	sh("cd h; echo b >> packs/h/a.md; git commit -q -am c3");
	capture(c3, sizeof(c3), "git -C h rev-parse HEAD");
	sh("cd h; git mv packs/h/a.md packs/h/b.md; git commit -q -m c4");
	capture(c4, sizeof(c4), "git -C h rev-parse HEAD");
	sh("cd h; git checkout -q --orphan lone; git commit -q -m lone");
	capture(orphan, sizeof(orphan), "git -C h rev-parse HEAD");

	assert_string_equal(holon("h", c2, c2, &rel), "ok");
	assert_int_equal(rel, SIGN_GIT_REF_SAME);
	assert_string_equal(holon("h", c1, c2, &rel), "ok");
	assert_int_equal(rel, SIGN_GIT_REF_ANCESTOR);
	assert_string_equal(holon("h", c2, c3, &rel), "holon_ref_changed");
	assert_string_equal(holon("h", c3, c4, &rel), "holon_ref_changed");
	assert_string_equal(holon("h", c2, c1, &rel), "holon_ref_not_ancestor");
	assert_string_equal(holon("h", orphan, c2, &rel),
	    "holon_ref_not_ancestor");
	assert_string_equal(holon("h", "main", c2, &rel), "holon_ref_invalid");
	assert_string_equal(holon("h", "0000000000000000000000000000000000000000",
	    c2, &rel), "commit_missing");
}

/* -------------------------------------------------------------- rebuild */

static void
assert_same_digests(const char *repo, const char *pack, int64_t mtime)
{
	ps_pack_options opts;
	ps_digest *from_dir = NULL, *from_git = NULL;
	ps_error err;
	char dir[1100], repodir[512], head[64], line[2048];

	ps_pack_options_init(&opts);
	opts.mtime = mtime;
	snprintf(repodir, sizeof(repodir), "%s/%s", top, repo);
	snprintf(dir, sizeof(dir), "%s/%s", repodir, pack);
	snprintf(line, sizeof(line), "git -C %s rev-parse HEAD", repo);
	capture(head, sizeof(head), line);
	assert_int_equal(ps_pack(dir, -1, &opts, &from_dir, &err), 0);
	if (sign_git_rebuild(repodir, head, pack, -1, &opts, &from_git,
	    &err) != 0)
		fail_msg("%s", ps_error_format(&err, line, sizeof(line)));
	assert_memory_equal(from_dir->tar_digest, from_git->tar_digest,
	    PS_SHA256_LEN);
	assert_memory_equal(from_dir->tree_digest, from_git->tree_digest,
	    PS_SHA256_LEN);
	assert_int_equal(from_dir->entry_count, from_git->entry_count);
	assert_string_equal(from_git->manifest_path, "manifest.yml");
	assert_memory_equal(from_dir->manifest_sha256, from_git->manifest_sha256,
	    PS_SHA256_LEN);
	ps_digest_free(from_dir);
	ps_digest_free(from_git);
}

static void
rebuild_equals_pack_of_the_checkout(void **state)
{
	(void)state;
	make_repo("r");
	/* Ignored by .packsignignore but committed; nested dirs; UTF-8. */
	sh("cd r; echo t > packs/p/junk.tmp; mkdir -p packs/p/k/deep; "
	    "echo d > packs/p/k/deep/f.txt; echo e > 'packs/p/caf\xc3\xa9.md'; "
	    "git add -A; git commit -q -m two");
	assert_same_digests("r", "packs/p", 0);
	assert_same_digests("r", "packs/p", 1700000000);
	/* From a bare clone: no work tree at all. */
	sh("git clone -q --bare r r.git");
	{
		ps_pack_options opts;
		ps_digest *a = NULL, *b = NULL;
		ps_error err;
		char head[64], bare[512], dir[512];

		ps_pack_options_init(&opts);
		capture(head, sizeof(head), "git -C r rev-parse HEAD");
		snprintf(bare, sizeof(bare), "%s/r.git", top);
		snprintf(dir, sizeof(dir), "%s/r/packs/p", top);
		assert_int_equal(sign_git_rebuild(bare, head, "packs/p", -1, &opts,
		    &a, &err), 0);
		assert_int_equal(ps_pack(dir, -1, &opts, &b, &err), 0);
		assert_memory_equal(a->tar_digest, b->tar_digest, PS_SHA256_LEN);
		ps_digest_free(a);
		ps_digest_free(b);
	}
	/* A whole repository as the pack. */
	sh("rm -rf whole; mkdir whole; cd whole; git init -q -b main .; "
	    "echo 'id: w' > manifest.yml; mkdir e; echo 1 > e/1; "
	    "git add -A; git commit -q -m w");
	assert_same_digests("whole", "", 42);
}

static const char *
rebuild_code(const char *repo, const char *pack)
{
	static ps_error err;
	ps_pack_options opts;
	char repodir[512], head[64], cmd[600];

	ps_pack_options_init(&opts);
	snprintf(repodir, sizeof(repodir), "%s/%s", top, repo);
	snprintf(cmd, sizeof(cmd), "git -C %s rev-parse HEAD", repo);
	capture(head, sizeof(head), cmd);
	if (sign_git_rebuild(repodir, head, pack, -1, &opts, NULL, &err) == 0)
		return "ok";
	return err.code;
}

static void
rebuild_refusals(void **state)
{
	ps_pack_options opts;
	ps_error err;
	char repodir[512];

	(void)state;
	make_repo("s");
	sh("cd s; ln -s prompts/a.md packs/p/link.md; git add -A; "
	    "git commit -q -m link");
	assert_string_equal(rebuild_code("s", "packs/p"), "symlink_refused");
	/* An ignored symbolic link is never examined. */
	sh("cd s; echo link.md >> packs/p/.packsignignore; git commit -q -am ign");
	assert_string_equal(rebuild_code("s", "packs/p"), "ok");
	sh("cd s; echo '*.bin filter=lfs diff=lfs merge=lfs -text' > "
	    ".gitattributes; echo b > packs/p/x.bin; git add -A; "
	    "git commit -q -m lfs");
	assert_string_equal(rebuild_code("s", "packs/p"),
	    "git_attributes_refused");
	/* A bare clone has no index or work tree: the commit's own files. */
	sh("git clone -q --bare s s.git");
	assert_string_equal(rebuild_code("s.git", "packs/p"),
	    "git_attributes_refused");
	sh("cd s; echo '*.md text eol=crlf' > packs/p/.gitattributes; "
	    "echo '' > .gitattributes; git add -A 2>/dev/null; git commit -q -m eol");
	assert_string_equal(rebuild_code("s", "packs/p"),
	    "git_attributes_refused");
	sh("cd s; echo '*.md -text' > packs/p/.gitattributes; "
	    "git commit -q -am binary");
	assert_string_equal(rebuild_code("s", "packs/p"), "ok");
	assert_string_equal(rebuild_code("s", "packs/nope"), "pack_path_missing");
	assert_string_equal(rebuild_code("s", "other"), "manifest_missing");
	/* A submodule (gitlink) inside the pack. */
	sh("cd s; git update-index --add --cacheinfo "
	    "160000,0123456789abcdef0123456789abcdef01234567,packs/p/sub; "
	    "git commit -q -m sub");
	assert_string_equal(rebuild_code("s", "packs/p"), "submodule_refused");
	/* The repository and commit must exist. */
	ps_pack_options_init(&opts);
	snprintf(repodir, sizeof(repodir), "%s/nowhere", top);
	assert_int_equal(sign_git_rebuild(repodir,
	    "0123456789abcdef0123456789abcdef01234567", "", -1, &opts, NULL,
	    &err), -1);
	assert_string_equal(err.code, "repository_unavailable");
	assert_int_equal(err.status, PS_STATUS_FAILED);
	snprintf(repodir, sizeof(repodir), "%s/s", top);
	assert_int_equal(sign_git_rebuild(repodir,
	    "0123456789abcdef0123456789abcdef01234567", "", -1, &opts, NULL,
	    &err), -1);
	assert_string_equal(err.code, "commit_missing");
	assert_int_equal(sign_git_rebuild(repodir, "HEAD", "", -1, &opts, NULL,
	    &err), -1);
	assert_string_equal(err.code, "commit_invalid");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(url_normalisation),
		cmocka_unit_test(url_refusals_show_no_credential),
		cmocka_unit_test(discover_records_path_commit_and_origin),
		cmocka_unit_test(dirty_check_is_restricted_to_the_pack),
		cmocka_unit_test(dirty_error_names_the_paths),
		cmocka_unit_test(holon_ref_rule),
		cmocka_unit_test(rebuild_equals_pack_of_the_checkout),
		cmocka_unit_test(rebuild_refusals),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
