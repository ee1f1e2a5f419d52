/* Internal header of cli/: one install as `install` and `update` run it:
 * the options they share, the questions on the terminal, the report.
 */
#ifndef CLI_INSTALL_RUN_H
#define CLI_INSTALL_RUN_H

#include "packsign.h"
#include "cli/checks.h"
#include "cli/index_source.h"
#include "cli/download_options.h"
#include "cli/options.h"

struct json_t;

struct install_args {
	struct cli_checks checks;
	ps_install_options o;
	ps_fetch_options fetch;
	const char *data_dir;
	int yes, json;
	const char *accept_diff;     /* --accept-diff FILE */
	const char *archive;         /* ARCHIVE, URL, or ID[@SPEC] */
	const char *shown;           /* archive, a URL without credentials */
	char stdin_name[256];        /* install - --sig F: F's name less .sig */
	char shown_buf[4200];
	const char *index;           /* --index FILE|URL */
	const char *from_dir;        /* --from-dir DIR: the entries' files */
	ps_index_install_options index_o;
	struct cli_index opened;     /* the verified index */
	const ps_index_entry *entry; /* what to install from it, or NULL */
	struct json_t *collect;      /* --json of update: each install's
	                              * object is appended here, not printed */
	const char *bundles[64];     /* install --bundle FILE (repeatable) */
	size_t bundle_count;
};

/* Callbacks: --accept CLASSES into PS_CONSENT_* bits, --lang en|zh. */
int cli_parse_accept(const struct cli_usage *cmd, const struct cli_option *opt,
    const char *arg);
int cli_parse_lang(const struct cli_usage *cmd, const struct cli_option *opt,
    const char *arg);

/* The options of install and update, filling install_args `a`. */
#define CLI_INSTALL_OPTIONS(a) \
	CLI_CHECK_OPTIONS(&(a)->checks), \
	CLI_STRING(0, "data-dir", &(a)->data_dir), \
	CLI_FLAG(0, "yes", &(a)->yes), \
	CLI_FLAG(0, "allow-shell", &(a)->o.allow_shell), \
	CLI_FLAG(0, "allow-downgrade", &(a)->o.allow_downgrade), \
	CLI_FLAG(0, "dry-run", &(a)->o.dry_run), \
	CLI_FLAG(0, "json", &(a)->json), \
	CLI_LIMIT_OPTIONS(&(a)->o.limits), \
	CLI_DOWNLOAD_OPTIONS(&(a)->fetch), \
	CLI_CALLBACK(0, "lang", &(a)->o.lang, cli_parse_lang), \
	CLI_CALLBACK(0, "accept", &(a)->o.accept, cli_parse_accept), \
	CLI_STRING(0, "accept-diff", &(a)->accept_diff), \
	CLI_FLAG(0, "allow-signer-change", &(a)->o.allow_signer_change), \
	CLI_FLAG(0, "allow-source-change", &(a)->o.allow_source_change), \
	CLI_FLAG(0, "reinstall", &(a)->o.reinstall), \
	CLI_STRING(0, "index", &(a)->index), \
	CLI_STRING(0, "from-dir", &(a)->from_dir), \
	CLI_FLAG(0, "allow-yanked", &(a)->index_o.allow_yanked), \
	CLI_FLAG(0, "require-index-state", &(a)->index_o.require_state)

/* Empty arguments with the library's defaults. */
void cli_install_args_init(struct install_args *a);

/*
 * Installs a->archive (a file or URL) or, with a->entry, that entry of
 * a->opened: asks on the terminal unless --yes, asks consent for an
 * upgrade's widening, prints the result (text or --json).  Exit code.
 */
int cli_install_run(struct install_args *a, const char *data_dir);

#endif
