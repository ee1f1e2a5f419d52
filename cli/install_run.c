/* One install as `install` and `update` run it (cli/install_run.h): the
 * confirmation and consent questions, the report. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/diff_report.h"
#include "cli/download_options.h"
#include "cli/install_run.h"
#include "cli/json.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "cli/signals.h"
#include "cli/trust_may.h"

/* ------------------------------------------------------------ options */

/* --accept permissions,trust into PS_CONSENT_* bits. */
int
cli_parse_accept(const struct cli_usage *cmd, const struct cli_option *opt,
    const char *arg)
{
	unsigned *classes = opt->value, bit;
	char name[32];
	size_t n;

	while (*arg != '\0') {
		n = strcspn(arg, ",");
		snprintf(name, sizeof(name), "%.*s", (int)(n < 31 ? n : 31), arg);
		bit = n < 31 ? ps_consent_class_by_name(name) : 0;
		if (bit == 0)
			return cli_usage_error(cmd, "--accept takes classes of "
			    "permissions, trust, prompts, code, found '%.*s'",
			    (int)n, arg);
		*classes |= bit;
		arg += n + (arg[n] == ',');
	}
	return EXIT_OK;
}

/* --lang en|zh into a ps_lang. */
int
cli_parse_lang(const struct cli_usage *cmd, const struct cli_option *opt,
    const char *arg)
{
	ps_lang *lang = opt->value;

	if (strcmp(arg, "en") == 0)
		*lang = PS_LANG_EN;
	else if (strcmp(arg, "zh") == 0)
		*lang = PS_LANG_ZH;
	else
		return cli_usage_error(cmd, "--lang must be en or zh, "
		    "found '%s'", arg);
	return EXIT_OK;
}

void
cli_install_args_init(struct install_args *a)
{
	memset(a, 0, sizeof(*a));
	ps_install_options_init(&a->o);
	ps_fetch_options_init(&a->fetch);
	ps_index_install_options_init(&a->index_o);
	a->o.lang = cli_lang_default_value();
	a->checks.verify = a->o.verify;
}

/* The confirmation: asked on the terminal, never on a pipe. */
struct confirm_ctx {
	const char *archive;
	int no_terminal;             /* refused because nobody could answer */
	int warned;                  /* the warnings were shown with the plan */
	int diff_shown;              /* the consent question showed the diff */
	ps_lang lang;
	unsigned asked;              /* the policy's consent classes */
	int reinstall;               /* --reinstall */
};

static void
print_field(FILE *out, const char *label, const char *value)
{
	fprintf(out, "  %-13s", label);
	cli_put_safe(out, value != NULL ? value : "-");
	fputc('\n', out);
}

/* The summary is one sentence per line; each is escaped on its own. */
static void
print_summary(FILE *out, const char *summary)
{
	const char *p = summary;
	size_t n;
	char *line;

	while (p != NULL && *p != '\0') {
		n = strcspn(p, "\n");
		line = strndup(p, n);
		fputs("    ", out);
		cli_put_safe(out, line != NULL ? line : "?");
		fputc('\n', out);
		free(line);
		p += n + (p[n] == '\n');
	}
}

static void
print_plan(FILE *out, const ps_install_plan *plan, int reinstall)
{
	fprintf(out, "packsign: about to %s this %s pack:\n", reinstall ?
	    "reinstall (its installed tree replaced by this archive's)" :
	    "install", ps_format_name(plan->format));
	print_field(out, "id:", plan->id);
	print_field(out, "version:", plan->version);
	print_field(out, "name:", plan->name);
	if (plan->domain != NULL)
		print_field(out, "domain:", plan->domain);
	print_field(out, "signed by:", plan->signer);
	print_field(out, "destination:", plan->destination);
	print_field(out, "newest now:", plan->replaces_newest != NULL ?
	    plan->replaces_newest : "none (no version of this id installed)");
	fputs("  it may:\n", out);
	print_summary(out, plan->summary);
}

static void
print_diff(FILE *out, const ps_install_plan *plan, const struct confirm_ctx *c)
{
	struct cli_diff_style style = { c->lang, 1, 0, c->asked };

	if (plan->diff == NULL || ps_diff_empty(plan->diff))
		return;
	fputs("packsign: what changed since the newest installed version:\n",
	    out);
	cli_diff_print(out, plan->diff, &style);
}

/* 1 once `tty` has a line to read, 0 when SIGINT, SIGTERM or SIGHUP came
 * first: the run is being cancelled (cli/signals.h), even when the
 * signal arrived before the wait began, so no read waits on it. */
static int
answer_ready(FILE *tty)
{
	struct pollfd fds[2] = {
		{ fileno(tty), POLLIN, 0 }, { cli_cancel_fd(), POLLIN, 0 }
	};

	while (!cli_cancelled(NULL)) {
		if (poll(fds, 2, -1) < 0 && errno != EINTR)
			return 1;       /* let the read report it */
		if (fds[1].revents != 0)
			return 0;
		if (fds[0].revents != 0)
			return 1;
	}
	return 0;
}

/* 1 when the answer read from `tty` to `question` is yes: y or yes in
 * any letter case, and in Chinese also 是 or 是的 (the question says so). */
static int
ask(FILE *tty, const char *question, ps_lang lang)
{
	char answer[64];

	fputs(question, stderr);
	fflush(stderr);
	if (!answer_ready(tty) || fgets(answer, sizeof(answer), tty) == NULL)
		return 0;
	answer[strcspn(answer, "\r\n")] = '\0';
	if (lang == PS_LANG_ZH && (strcmp(answer, "是") == 0 ||
	    strcmp(answer, "是的") == 0))
		return 1;
	return strcasecmp(answer, "y") == 0 || strcasecmp(answer, "yes") == 0;
}

/* The terminal, or NULL when standard input is none (a pipe, CI). */
static FILE *
open_tty(void)
{
	FILE *tty;
	int fd;

	fd = isatty(STDIN_FILENO) ? open("/dev/tty", O_RDWR | O_NOCTTY |
	    O_CLOEXEC) : -1;
	if (fd < 0 || (tty = fdopen(fd, "r+")) == NULL) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	return tty;
}

static int
confirm(void *ctx, const ps_install_plan *plan)
{
	struct confirm_ctx *c = ctx;
	FILE *tty = open_tty();
	int yes;

	if (tty == NULL) {
		c->no_terminal = 1;
		return 0;
	}
	print_plan(stderr, plan, c->reinstall);
	if (!c->diff_shown)
		print_diff(stderr, plan, c);
	/* Before the question, so that the answer can take them in. */
	cli_print_warnings(c->archive, plan->warnings);
	c->warned = 1;
	yes = ask(tty, c->lang == PS_LANG_ZH ?
	    "安装？[y/N]（是/否） " :
	    "Install? [y/N] ", c->lang);
	fclose(tty);
	return yes;
}

/* The widening changes, asked about on the terminal only: without one
 * the library refuses with consent_required, which names them. */
static int
consent(void *ctx, const ps_install_plan *plan)
{
	struct confirm_ctx *c = ctx;
	FILE *tty = open_tty();
	char classes[128], question[256];
	int yes;

	if (tty == NULL)
		return 0;
	print_diff(stderr, plan, c);
	c->diff_shown = 1;
	ps_consent_class_list(plan->consent_needed, classes, sizeof(classes));
	fprintf(stderr, "packsign: this upgrade widens what the policy asks "
	    "consent for (%s):\n", classes);
	if (plan->diff == NULL)
		fputs("  the pinned signer or repository is replaced, with no "
		    "version installed to compare with\n", stderr);
	cli_diff_print_widening(stderr, plan->diff, plan->consent_needed,
	    c->lang);
	if (c->lang == PS_LANG_ZH)
		snprintf(question, sizeof(question),
		    "接受这些变更（%s）？[y/N]（是/否） ", classes);
	else
		snprintf(question, sizeof(question), "Accept these changes "
		    "(%s)? [y/N] ", classes);
	yes = ask(tty, question, c->lang);
	fclose(tty);
	return yes;
}

static void
waiting(void *ctx, const char *lock_path)
{
	(void)ctx;
	fputs("packsign: waiting for another packsign run (lock ", stderr);
	cli_put_safe(stderr, lock_path);
	fputs(")\n", stderr);
}

static void
no_terminal_error(ps_error *err, const char *archive)
{
	cli_error_set(err, PS_STATUS_FAILED, "confirmation_required", archive,
	    "no terminal to ask on; pass --yes after reading `packsign "
	    "describe`");
}

static const char *
action_name(const ps_install_result *r, int rc)
{
	if (rc != 0)
		return NULL;
	if (r->already_installed)
		return "already_installed";
	if (r->reinstalled)
		return "reinstalled";
	if (r->dry_run)
		return "dry_run";
	return "installed";
}

/* The diff as diff --json prints it, and the consent. */
static json_t *
upgrade_json(const ps_install_result *r)
{
	char *text = NULL;
	json_t *diff;
	ps_error err;

	if (r->consent.from_version == NULL)
		return json_null();
	diff = r->diff != NULL && ps_diff_to_json(r->diff, &text, &err) == 0 ?
	    json_loads(text, 0, NULL) : NULL;
	free(text);
	return json_pack("{s:o,s:o,s:o,s:o}", "from",
	    cli_json_text(r->consent.from_version), "consent_needed",
	    cli_consent_json(r->consent_needed), "consent_by",
	    cli_json_text(r->consent.by), "diff", diff != NULL ? diff :
	    json_null());
}

static void
result_fields_json(json_t *o, const ps_install_result *r, int rc)
{
	json_object_set_new(o, "format", r->id != NULL ?
	    json_string(ps_format_name(r->format)) : json_null());
	json_object_set_new(o, "id", cli_json_text(r->id));
	json_object_set_new(o, "version", cli_json_text(r->version));
	json_object_set_new(o, "name", cli_json_text(r->name));
	json_object_set_new(o, "domain", cli_json_text(r->domain));
	json_object_set_new(o, "path", cli_json_text(r->path));
	json_object_set_new(o, "receipt", cli_json_text(r->receipt_path));
	json_object_set_new(o, "tree_digest", cli_json_digest(rc == 0,
	    r->tree_digest));
	json_object_set_new(o, "files", r->already_installed ? json_null() :
	    json_integer((json_int_t)r->file_count));
	json_object_set_new(o, "size", r->already_installed ? json_null() :
	    json_integer((json_int_t)r->total_size));
	json_object_set_new(o, "summary", cli_json_lines(r->summary));
	json_object_set_new(o, "verify", r->verify != NULL ? json_object() :
	    json_null());
	if (r->verify != NULL)
		cli_verify_json(json_object_get(o, "verify"), r->verify);
	json_object_set_new(o, "warnings", r->verify != NULL ?
	    cli_json_diags(&r->verify->warnings) : json_array());
	json_object_set_new(o, "pinned", json_boolean(r->pinned));
	json_object_set_new(o, "upgrade", upgrade_json(r));
}

static int
print_json(const struct install_args *a, const char *data_dir,
    const ps_install_result *r, int rc, const ps_error *err)
{
	json_t *o = json_object();
	int code;

	json_object_set_new(o, "archive", cli_json_text(a->shown));
	json_object_set_new(o, "data_dir", cli_json_text(data_dir));
	json_object_set_new(o, "action", cli_json_text(action_name(r, rc)));
	if (r != NULL)
		result_fields_json(o, r, rc);
	cli_json_error(o, rc, err);
	if (a->collect != NULL)
		return json_array_append_new(a->collect, o) == 0 ? EXIT_OK :
		    cli_fail_oom();
	code = cli_print_json(o);
	json_decref(o);
	return code;
}

/* An upgrade's line: what it widened and how that was accepted. */
static void
print_upgrade(const ps_install_result *r)
{
	char widened[128], needed[128];

	if (r->diff == NULL && r->consent.from_version != NULL) {
		fputs("pins of ", stdout);
		cli_put_safe(stdout, r->id);
		fputs(" replaced (pinned by its install of ", stdout);
		cli_put_safe(stdout, r->consent.from_version);
		printf("); consent: %s\n", r->consent.by != NULL ?
		    r->consent.by : "needed for: trust");
	}
	if (r->diff == NULL)
		return;
	ps_consent_class_list(r->consent.widened, widened, sizeof(widened));
	ps_consent_class_list(r->consent_needed, needed, sizeof(needed));
	fputs("upgrade from ", stdout);
	cli_put_safe(stdout, r->consent.from_version);
	printf(": %zu changes, widening: %s", r->diff->change_count,
	    widened[0] != '\0' ? widened : "none");
	if (r->dry_run && r->consent.by == NULL)
		printf("; consent needed for: %s\n", needed);
	else
		printf("; consent: %s\n", r->consent.by != NULL ? r->consent.by :
		    "none");
}

static void
print_result(const ps_install_result *r)
{
	char text[PS_SHA256_STRING_LEN];

	if (r->already_installed)
		fputs("already installed: ", stdout);
	else if (r->reinstalled)
		fputs("reinstalled ", stdout);
	else
		fputs(r->dry_run ? "dry run: would install " : "installed ",
		    stdout);
	cli_put_safe(stdout, r->id);
	fputc(' ', stdout);
	cli_put_safe(stdout, r->version);
	fputs(r->already_installed ? " at " : " to ", stdout);
	cli_put_safe(stdout, r->path);
	printf("\nsigned by: ");
	if (r->verify != NULL)
		cli_print_signers(stdout, r->verify);
	printf("\ntree digest: %s", ps_sha256_string(r->tree_digest, text));
	printf(" (%zu files, %llu bytes)\n", r->file_count,
	    (unsigned long long)r->total_size);
	print_upgrade(r);
}

/*
 * The library's install of a file, a URL or an index entry.  SIGINT,
 * SIGTERM and SIGHUP stop it (a download as the copy and the extraction
 * of a file), so that it removes DIR/.tmp/install.* before the run ends
 * by that signal (cli/signals.h).
 */
static int
install_call(struct install_args *a, struct cli_progress *progress,
    ps_install_result **r, ps_error *err)
{
	int rc;

	if (cli_is_url(a->archive) || (a->entry != NULL && a->from_dir == NULL)) {
		cli_download_setup(&a->fetch, &a->o.verify);
		a->fetch.progress = a->o.verify.progress;
		a->fetch.cancelled = cli_cancelled;
	}
	a->o.cancelled = cli_cancelled;
	cli_cancel_on_signal();
	if (cli_is_url(a->archive))
		rc = ps_install_url(a->archive, &a->o, &a->fetch, r, err);
	else if (a->entry != NULL && a->from_dir != NULL)
		rc = ps_install_indexed_dir(a->opened.index, a->entry, &a->index_o,
		    &a->o, a->from_dir, r, err);
	else if (a->entry != NULL)
		rc = ps_install_indexed(a->opened.index, a->entry, &a->index_o,
		    &a->o, &a->fetch, r, err);
	else
		rc = ps_install(a->archive, &a->o, r, err);
	cli_progress_end(progress);
	cli_cancel_end();
	return rc;
}

int
cli_install_run(struct install_args *a, const char *data_dir)
{
	struct confirm_ctx ctx = { a->shown, 0, 0, 0, a->o.lang,
	    a->checks.verify.trust->consent, a->o.reinstall };
	struct cli_progress progress;
	ps_install_result *r = NULL;
	ps_error err;
	int rc, code;

	a->o.verify = a->checks.verify;
	a->o.data_dir = data_dir;
	a->o.confirm = a->yes ? NULL : confirm;
	a->o.confirm_ctx = &ctx;
	/* --yes answers the confirmation, never the consent. */
	a->o.consent = a->yes ? NULL : consent;
	a->o.consent_ctx = &ctx;
	a->o.consent_by = "prompt";
	a->o.waiting = waiting;
	a->o.verify.progress = cli_progress_start(&progress, a->checks.quiet);
	ps_error_clear(&err);
	rc = install_call(a, &progress, &r, &err);
	if (rc != 0 && ctx.no_terminal &&
	    ps_error_is(&err, PS_CODE_INSTALL_DECLINED))
		no_terminal_error(&err, a->shown);
	code = rc == 0 ? EXIT_OK : err.status == PS_STATUS_REFUSED ?
	    EXIT_REFUSED : EXIT_FAILED;
	/* On stderr, as the refusal, in either output mode.  ps_install sets
	 * r on success and whenever memory allowed on failure. */
	if ((rc == 0 || r != NULL) && !ctx.warned)
		cli_print_warnings(a->shown, r->verify != NULL ?
		    &r->verify->warnings : NULL);
	if (rc != 0)
		cli_report(&err);
	if (a->json && print_json(a, data_dir, r, rc, &err) != EXIT_OK)
		code = EXIT_FAILED;
	else if (!a->json && rc == 0 && !a->checks.quiet)
		print_result(r);
	ps_install_result_free(r);
	return code;
}