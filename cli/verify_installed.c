/* verify --installed: installed trees re-checked against their receipts,
 * named by path or by ID[@VERSION] of the data directory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/installed_report.h"
#include "cli/json.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/verify_installed.h"

/* What a run re-checks, and what it found so far. */
struct run {
	const struct cli_installed_targets *t;
	json_t *results;             /* --json */
	ps_installed_list *list;     /* the data directory's, once needed */
	char *data_dir;
	int worst, good, total;
};

static void
print_ok(const ps_installed_check *c)
{
	char text[PS_SHA256_STRING_LEN];

	fputs("ok: ", stdout);
	cli_print_pack_name(stdout, c->receipt);
	fputs(" at ", stdout);
	cli_put_safe(stdout, c->receipt->path);
	printf(": %zu files match the receipt",
	    cli_installed_file_count(c->receipt));
	if (c->tree_computed)
		printf(", tree digest %s", ps_sha256_string(c->tree_digest, text));
	fputs(c->signature_checked ? "; receipt signature verified" :
	    "; receipt signature not checked (no policy given)", stdout);
	fputc('\n', stdout);
}

static json_t *
result_json(const char *path, const ps_installed_check *c, int rc,
    const ps_error *err)
{
	json_t *o = json_object();

	json_object_set_new(o, "path", cli_json_text(path));
	json_object_set_new(o, "receipt", c != NULL && c->receipt != NULL ?
	    cli_installed_json(c->receipt) : json_null());
	json_object_set_new(o, "check", c != NULL ? cli_check_json(c) :
	    json_null());
	cli_json_error(o, rc, err);
	return o;
}

static void
count(struct run *r, int code)
{
	r->total++;
	r->good += code == EXIT_OK;
	r->worst = code > r->worst ? code : r->worst;
}

/* An operand that could not be resolved: reported as a tree's would be. */
static void
refused(struct run *r, const char *operand, const ps_error *err)
{
	if (r->results != NULL)
		json_array_append_new(r->results, result_json(operand, NULL, -1,
		    err));
	else
		cli_report(err);
	count(r, err->status == PS_STATUS_REFUSED ? EXIT_REFUSED :
	    EXIT_FAILED);
}

/* Re-checks one tree. */
static void
check_tree(struct run *r, const char *path)
{
	ps_installed_check *c = NULL;
	ps_error err;
	int rc;

	ps_error_clear(&err);
	rc = ps_installed_verify(path, r->t->trust, r->t->at, &c, &err);
	if (r->results != NULL)
		json_array_append_new(r->results, result_json(path, c, rc, &err));
	else if (rc == 0) {
		if (!r->t->quiet)
			print_ok(c);
	}
	else {
		if (c != NULL)
			cli_print_changes(stdout, "", c);
		cli_report(&err);
	}
	count(r, rc == 0 ? EXIT_OK : err.status == PS_STATUS_REFUSED ?
	    EXIT_REFUSED : EXIT_FAILED);
	ps_installed_check_free(c);
}

/* The data directory's receipts, read once: 0, -1 and `err`, or -2 when
 * no data directory could be named (reported). */
static int
load_list(struct run *r, ps_error *err)
{
	if (r->list != NULL)
		return 0;
	if (r->data_dir == NULL && cli_data_dir(r->t->data_dir, &r->data_dir) !=
	    EXIT_OK)
		return -2;
	return ps_installed_list_load(r->data_dir, &r->list, err);
}

static int
matches(const ps_installed *p, ps_format format, const char *id, size_t n,
    const char *version)
{
	return strlen(p->id) == n && strncmp(p->id, id, n) == 0 &&
	    (format == PS_FORMAT_UNKNOWN || p->format == format) &&
	    (version == NULL || strcmp(p->version, version) == 0);
}

/* The one format the matches of ID share (--format's when none does), or
 * -1 after refusing two. */
static int
one_format(struct run *r, const char *target, const char *id, size_t n,
    const char *version, ps_error *err)
{
	int format = -1;
	size_t i;

	for (i = 0; i < r->list->count; i++) {
		if (!matches(&r->list->items[i], r->t->format, id, n, version))
			continue;
		if (format >= 0 && (int)r->list->items[i].format != format) {
			cli_error_set(err, PS_STATUS_REFUSED, "install_ambiguous",
			    target, "is installed as a %s and a %s pack: name one "
			    "with --format", ps_format_name((ps_format)format),
			    ps_format_name(r->list->items[i].format));
			return -1;
		}
		format = (int)r->list->items[i].format;
	}
	return format >= 0 ? format : (int)r->t->format;
}

/*
 * An operand: ID[@VERSION] when it names installed packs (every tree it
 * names is checked, in list order), else a tree's path when it exists.
 * An id is tried first, so that a pack's source directory named by its id
 * in the working directory does not hide the installed pack.
 */
static void
check_operand(struct run *r, const char *target)
{
	const char *at = strrchr(target, '@'), *version;
	size_t i, n, found = 0;
	struct stat st;
	ps_error err;
	int format, rc;

	at = at != NULL && at != target && at[1] != '\0' ? at : NULL;
	version = at != NULL ? at + 1 : NULL;
	n = at != NULL ? (size_t)(at - target) : strlen(target);
	/* A path needs no data directory. */
	if ((rc = load_list(r, &err)) != 0 && lstat(target, &st) == 0) {
		check_tree(r, target);
		return;
	}
	if (rc != 0) {
		if (rc == -1)
			refused(r, target, &err);
		else
			count(r, EXIT_FAILED);
		return;
	}
	if ((format = one_format(r, target, target, n, version, &err)) < 0) {
		refused(r, target, &err);
		return;
	}
	for (i = 0; i < r->list->count; i++) {
		if (matches(&r->list->items[i], (ps_format)format, target, n,
		    version)) {
			check_tree(r, r->list->items[i].path);
			found++;
		}
	}
	if (found > 0)
		return;
	if (lstat(target, &st) == 0) {
		check_tree(r, target);
		return;
	}
	cli_error_set(&err, PS_STATUS_REFUSED, "not_installed", target, "is "
	    "neither an installed pack of the data directory %s (ID or "
	    "ID@VERSION, as packsign list shows them) nor a path", r->data_dir);
	refused(r, target, &err);
}

int
cli_verify_installed(const struct cli_installed_targets *t)
{
	struct run r = { t, t->json ? json_array() : NULL, NULL, NULL, 0, 0, 0 };
	json_t *report;
	int i, code;

	for (i = 0; i < t->count; i++)
		check_operand(&r, t->operands[i]);
	ps_installed_list_free(r.list);
	free(r.data_dir);
	if (!t->json)
		return r.worst;
	report = json_pack("{s:b,s:i,s:i,s:o}", "ok", r.worst == EXIT_OK,
	    "verified", r.good, "total", r.total, "results", r.results);
	code = cli_print_json(report);
	json_decref(report);
	return code != EXIT_OK ? code : r.worst;
}
