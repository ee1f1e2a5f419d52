/* Internal header of cli/: verify --installed, the re-check of installed
 * trees named by path or by ID[@VERSION].
 */
#ifndef CLI_VERIFY_INSTALLED_H
#define CLI_VERIFY_INSTALLED_H

#include "packsign.h"

struct cli_installed_targets {
	char **operands;             /* PATH or ID[@VERSION] each */
	int count;
	const char *data_dir;        /* --data-dir, or NULL: the default */
	ps_format format;            /* --format, or PS_FORMAT_UNKNOWN */
	const ps_trust *trust;       /* NULL: the receipts' signatures are
	                              * not checked */
	int64_t at;
	int json;
	int quiet;                   /* -q: no "ok:" lines */
};

/*
 * Re-checks each installed tree against its receipt.  An operand is
 * ID[@VERSION] of the data directory when it names installed packs: that
 * version, or every installed version of ID (as uninstall takes it),
 * install_ambiguous when ID is installed in two formats and --format does
 * not say which; else it is a tree's path when one exists (a path needs no
 * data directory), and not_installed when it is neither.  Prints each result (text or one JSON object); returns
 * the highest exit code.
 */
int cli_verify_installed(const struct cli_installed_targets *t);

#endif
