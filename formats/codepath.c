/*
 * Code files (diff.md, "Code"): what an upgrade asks consent for under
 * the `code` class.  Names and suffixes are matched exactly (bytewise,
 * case-sensitively, as the archive carries them); the lists are part of
 * the format documentation, so an implementation elsewhere classifies a
 * file the same way.
 */
#include <string.h>

#include "formats/codepath.h"
#include "formats/descriptor.h"
#include "formats/format.h"
#include "util/strings.h"

static const char *const code_suffixes[] = {
	".sh", ".bash", ".zsh", ".fish", ".ps1", ".bat", ".cmd", ".py",
	".pyc", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx",
	".rb", ".pl", ".pm", ".php", ".lua", ".go", ".rs", ".c", ".h", ".cc",
	".cpp", ".hpp", ".java", ".class", ".jar", ".kt", ".swift", ".cs",
	".wasm", ".so", ".dylib", ".dll", ".exe", ".node", ".dockerfile",
	".pth", NULL
};

/* Files that decide what is built or run, whatever their suffix. */
static const char *const code_names[] = {
	"Makefile", "GNUmakefile", "Dockerfile", "Containerfile",
	"Taskfile.yml", "Taskfile.yaml", "taskfile.yml", "taskfile.yaml",
	"Taskfile.dist.yml", "Taskfile.dist.yaml", "taskfile.dist.yml",
	"taskfile.dist.yaml", "docker-compose.yml", "docker-compose.yaml",
	"docker-compose.override.yml", "docker-compose.override.yaml",
	"compose.yml", "compose.yaml", "compose.override.yml",
	"compose.override.yaml", "makefile", "package.json",
	"package-lock.json", "pyproject.toml", "setup.py", "setup.cfg",
	"Pipfile", "Cargo.toml", "go.mod", "Gemfile", NULL
};

/* Name prefixes: "Dockerfile.dev", "requirements-dev.txt". */
static const char *const code_prefixes[] = { "Dockerfile.",
    "Containerfile.", "requirements", NULL };

static int
listed(const char *const *list, const char *name, int how)
{
	size_t i, n;

	for (i = 0; list[i] != NULL; i++) {
		n = strlen(list[i]);
		if ((how == 0 && strcmp(name, list[i]) == 0) ||
		    (how == 1 && util_ends_with(name, list[i])) ||
		    (how == 2 && strncmp(name, list[i], n) == 0 &&
		    (strcmp(list[i], "requirements") != 0 ||
		    util_ends_with(name, ".txt"))))
			return 1;
	}
	return 0;
}

int
formats_code_path(const ps_manifest *m, const char *path)
{
	const formats_descriptor *d = m != NULL ? formats_of(m->format) : NULL;
	const char *base = strrchr(path, '/');
	size_t i;

	base = base != NULL ? base + 1 : path;
	if (listed(code_names, base, 0) || listed(code_suffixes, base, 1) ||
	    listed(code_prefixes, base, 2))
		return 1;
	for (i = 0; m != NULL && i < m->code_files.count; i++) {
		if (strcmp(m->code_files.items[i], path) == 0)
			return 1;
	}
	for (i = 0; d != NULL && d->code_places != NULL &&
	    d->code_places[i] != NULL; i++) {
		if (strncmp(path, d->code_places[i],
		    strlen(d->code_places[i])) == 0)
			return 1;
	}
	return 0;
}
