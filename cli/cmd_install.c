/* packsign install: verify a signed archive, ask, and install it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/checks.h"
#include "cli/cli.h"
#include "cli/diff_report.h"
#include "cli/download_options.h"
#include "cli/json.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "cli/signals.h"
#include "cli/trust_may.h"

const struct cli_usage cmd_install_usage = {
	.name = "install",
	.text =
    "usage: packsign install ARCHIVE|URL [--sig F|URL]\n"
    "           (--trust POLICY | -p KEY.pub)\n"
    "           [--data-dir DIR] [--yes] [--allow-shell] [--allow-downgrade]\n"
    "           [--dry-run] [--json] [--signed-by ID] [--source-repo URL]\n"
    "           [--source-commit HASH] [--require-source] [--allow-dirty]\n"
    "           [--at TIME] [--max-size BYTES] [--max-entries N]\n"
    "           [--max-ratio N] [--lang en|zh] [-q]\n"
    "           " CLI_DOWNLOAD_USAGE "\n"
    "\n"
    "Copies ARCHIVE (.tar, .tar.gz, .tgz, .tar.zst, .zip) and its signature\n"
    "into the data directory, hashing the archive as it is copied; matches\n"
    "that digest with the signed subject before a byte of the copy is\n"
    "parsed, then verifies the copy as `packsign verify` does and extracts it\n"
    "into a private directory in the same pass (the copy needs as much free\n"
    "space as ARCHIVE).  Then the install rules (AgentPack shell: true only\n"
    "from a first_party signer or with --allow-shell; no version below the\n"
    "newest installed one without --allow-downgrade; the same version again\n"
    "is a no-op when its tree is the same and refused otherwise); shows what\n"
    "the pack may do and asks on the terminal; renames the verified tree\n"
    "into DIR/<layout>/<version>/ (docs/formats/install.md).  Without a\n"
    "terminal, --yes is required.  Warnings of the verification go to\n"
    "stderr (and \"warnings\" in --json).\n"
    "\n"
    "An https URL is downloaded (https only, every redirect too): its .sig\n"
    "first (URL.sig, or --sig URL|FILE), verified before the archive is\n"
    "requested; then the archive into the data directory's .tmp, hashed as\n"
    "it arrives, under the data directory's lock (other installs wait).  A\n"
    "GitHub .../releases/latest/download/ASSET URL is resolved once, so both\n"
    "files come from one release.  Proxy: https_proxy and no_proxy.\n"
    "\n"
    "An id already installed is an upgrade: its pins are checked first (a\n"
    "pinned identity or key must have signed it, from the pinned\n"
    "repository), then it is compared with the newest installed version as\n"
    "`packsign diff` does.  A widening change of a class the policy's\n"
    "consent: names (default permissions, trust) needs consent: the answer\n"
    "on a terminal, --accept CLASSES, or --accept-diff FILE holding this\n"
    "upgrade's `packsign diff --json`.  --yes is never consent.\n"
    "\n"
    CLI_CHECK_FLAGS_HELP
    "  --at TIME            judge key windows at TIME (YYYY-MM-DDTHH:MM:SSZ)\n"
    "  --data-dir DIR       default $PACKSIGN_DATA_DIR, else\n"
    "                       $XDG_DATA_HOME/packsign, else\n"
    "                       ~/.local/share/packsign\n"
    "  --yes                install without asking\n"
    "  --allow-shell        accept an AgentPack with shell: true from a signer\n"
    "                       who is not first_party in the policy (a signer's\n"
    "                       permission ceiling still applies)\n"
    "  --allow-downgrade    accept a version below the newest installed one\n"
    "  --dry-run            every check and a trial extraction; keep nothing\n"
    "                       (an upgrade prints the classes it would ask)\n"
    "  --accept CLASSES     consent to widening in these classes (comma-\n"
    "                       separated: permissions, trust, prompts, code)\n"
    "  --accept-diff FILE   consent to exactly this diff (diff --json)\n"
    "  --allow-signer-change  accept a signer no pin names, and pin it\n"
    "  --allow-source-change  accept another repository, and pin it\n"
    CLI_LIMIT_FLAGS_HELP
    CLI_DOWNLOAD_FLAGS_HELP
    "  --lang en|zh         language of the summary shown before install\n"
    "  --json               print the result as one JSON object\n"
    "  -q, --quiet          no progress line (shown only on a terminal)\n"
    "\n"
    "Exit status: 0 installed (or already installed, or a dry run passed),\n"
    "1 refused, 2 the job could not be done (no terminal to ask on, consent\n"
    "not given, a bad policy, the data directory, I/O, a download: HTTP\n"
    "status, TLS, timeout, size, redirect, scheme, a body cut short).\n",
};

struct install_args {
	struct cli_checks checks;
	ps_install_options o;
	ps_fetch_options fetch;
	const char *data_dir;
	int yes, json;
	const char *accept_diff;     /* --accept-diff FILE */
	const char *archive;
	const char *shown;           /* archive, a URL without credentials */
	char shown_buf[4200];
};

/* --accept permissions,trust into PS_CONSENT_* bits. */
static int
accept_option(const struct cli_usage *cmd, const struct cli_option *opt,
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
static int
lang_option(const struct cli_usage *cmd, const struct cli_option *opt,
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

static int
parse_install(int argc, char **argv, struct install_args *a)
{
	const struct cli_option options[] = {
		CLI_CHECK_OPTIONS(&a->checks),
		CLI_STRING(0, "data-dir", &a->data_dir),
		CLI_FLAG(0, "yes", &a->yes),
		CLI_FLAG(0, "allow-shell", &a->o.allow_shell),
		CLI_FLAG(0, "allow-downgrade", &a->o.allow_downgrade),
		CLI_FLAG(0, "dry-run", &a->o.dry_run),
		CLI_FLAG(0, "json", &a->json),
		CLI_LIMIT_OPTIONS(&a->o.limits),
		CLI_DOWNLOAD_OPTIONS(&a->fetch),
		CLI_CALLBACK(0, "lang", &a->o.lang, lang_option),
		CLI_CALLBACK(0, "accept", &a->o.accept, accept_option),
		CLI_STRING(0, "accept-diff", &a->accept_diff),
		CLI_FLAG(0, "allow-signer-change", &a->o.allow_signer_change),
		CLI_FLAG(0, "allow-source-change", &a->o.allow_source_change),
		CLI_END
	};
	struct cli_operands rest;
	int rc;

	memset(a, 0, sizeof(*a));
	ps_install_options_init(&a->o);
	ps_fetch_options_init(&a->fetch);
	a->checks.verify = a->o.verify;
	rc = cli_parse_options(&cmd_install_usage, options, argc, argv, &rest);
	if (rc != EXIT_OK)
		return rc;
	if (rest.count != 1)
		return cli_usage_error(&cmd_install_usage, rest.count == 0 ?
		    "missing ARCHIVE" : "one ARCHIVE at a time");
	a->archive = rest.argv[0];
	a->shown = cli_url_shown(a->archive, a->shown_buf, sizeof(a->shown_buf));
	if ((a->checks.policy == NULL) == (a->checks.pubkey == NULL))
		return cli_usage_error(&cmd_install_usage,
		    "give one of --trust POLICY and -p KEY.pub");
	return EXIT_OK;
}

/* The confirmation: asked on the terminal, never on a pipe. */
struct confirm_ctx {
	const char *archive;
	int no_terminal;             /* refused because nobody could answer */
	int warned;                  /* the warnings were shown with the plan */
	int diff_shown;              /* the consent question showed the diff */
	ps_lang lang;
	unsigned asked;              /* the policy's consent classes */
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
print_plan(FILE *out, const ps_install_plan *plan)
{
	fprintf(out, "packsign: about to install this %s pack:\n",
	    ps_format_name(plan->format));
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

/* 1 when the answer read from `tty` to `question` is yes. */
static int
ask(FILE *tty, const char *question)
{
	char answer[64];

	fputs(question, stderr);
	fflush(stderr);
	if (fgets(answer, sizeof(answer), tty) == NULL)
		return 0;
	answer[strcspn(answer, "\r\n")] = '\0';
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
	print_plan(stderr, plan);
	if (!c->diff_shown)
		print_diff(stderr, plan, c);
	/* Before the question, so that the answer can take them in. */
	cli_print_warnings(c->archive, plan->warnings);
	c->warned = 1;
	yes = ask(tty, "Install? [y/N] ");
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
	snprintf(question, sizeof(question), "Accept these changes (%s)? "
	    "[y/N] ", classes);
	yes = ask(tty, question);
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
	json_object_set_new(o, "entries", r->already_installed ? json_null() :
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

static int
install_into(struct install_args *a, const char *data_dir)
{
	struct confirm_ctx ctx = { a->shown, 0, 0, 0, a->o.lang,
	    a->checks.verify.trust->consent };
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
	if (cli_is_url(a->archive)) {
		cli_download_setup(&a->fetch, &a->o.verify);
		a->fetch.progress = a->o.verify.progress;
		a->fetch.cancelled = cli_cancelled;
		cli_cancel_on_signal();
		rc = ps_install_url(a->archive, &a->o, &a->fetch, &r, &err);
		cli_progress_end(&progress);
		cli_cancel_end();
	} else
		rc = ps_install(a->archive, &a->o, &r, &err);
	cli_progress_end(&progress);
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
	else if (!a->json && rc == 0)
		print_result(r);
	ps_install_result_free(r);
	return code;
}

/* The most --accept-diff reads: a diff --json of the largest upgrade
 * (every file of a 1,000,000-entry pack) stays below it. */
#define ACCEPT_DIFF_MAX (512 * 1024 * 1024)

static int
read_accept_diff(const char *path, char **out)
{
	FILE *f = fopen(path, "rb");
	size_t n, size = 0, cap = 0;
	char *buf = NULL, *grown;

	if (f == NULL)
		return cli_fail("not_found", path, "cannot open --accept-diff: %s",
		    strerror(errno));
	do {
		if (cap - size < 65536) {
			cap = cap == 0 ? 65536 : cap * 2;
			if (cap > ACCEPT_DIFF_MAX + 65536 ||
			    (grown = realloc(buf, cap + 1)) == NULL) {
				free(buf);
				fclose(f);
				return cli_fail("accept_diff_invalid", path, "is not "
				    "a diff of at most %d bytes", ACCEPT_DIFF_MAX);
			}
			buf = grown;
		}
		n = fread(buf + size, 1, cap - size, f);
		size += n;
	} while (n > 0);
	fclose(f);
	buf[size] = '\0';
	if (strlen(buf) != size) {
		free(buf);
		return cli_fail("accept_diff_invalid", path, "holds a NUL byte: "
		    "not the output of packsign diff --json");
	}
	*out = buf;
	return EXIT_OK;
}

static int
run_install(struct install_args *a)
{
	ps_trust *policy = NULL;
	char *data_dir = NULL;
	int rc;

	char *accepted = NULL;

	rc = cli_checks_load_policy(&a->checks, &policy);
	if (rc == EXIT_OK && a->accept_diff != NULL)
		rc = read_accept_diff(a->accept_diff, &accepted);
	a->o.accept_diff = accepted;
	if (rc == EXIT_OK)
		rc = cli_data_dir(a->data_dir, &data_dir);
	if (rc == EXIT_OK)
		rc = install_into(a, data_dir);
	free(accepted);
	free(data_dir);
	ps_trust_free(policy);
	return rc;
}

int
cmd_install(int argc, char **argv)
{
	struct install_args a;
	int rc;

	rc = parse_install(argc, argv, &a);
	if (rc != EXIT_OK)
		return rc == CLI_HELP ? EXIT_OK : rc;
	return run_install(&a);
}
