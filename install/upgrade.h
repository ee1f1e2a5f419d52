/* Internal header of install/: what an upgrade checks before anything is
 * written (install/upgrade.c): pins, the diff, consent. */
#ifndef INSTALL_UPGRADE_H
#define INSTALL_UPGRADE_H

#include <stdint.h>

#include "packsign.h"
#include "install/datadir.h"

typedef struct install_upgrade_in {
	const char *archive;             /* for messages */
	const install_datadir *dd;
	const ps_install_options *options;
	const ps_verify_result *verify;
	ps_manifest *manifest;           /* borrowed by the new side */
	ps_digest *extracted;
	const char *tree_path;           /* the extracted tree */
	const char *newest;              /* installed version, or NULL */
} install_upgrade_in;

typedef struct install_upgrade {
	ps_pins *pins;                   /* what was pinned, or NULL */
	ps_pins *write;                  /* what this install pins, or NULL */
	int repinned;                    /* a pinned signer or repository
	                                  * replaced (--allow-*-change) */
} install_upgrade;

void install_upgrade_clear(install_upgrade *u);

/* Pins (signer_changed, source_changed), then, when a version is
 * installed, the diff against it into res->diff, res->consent_needed and
 * the consent record's classes. */
int install_upgrade_check(const install_upgrade_in *in, install_upgrade *u,
    ps_install_result *res, ps_error *err);

/* A reinstall: the pins are checked as for any install of the id
 * (signer_changed, source_changed), and nothing is to be written. */
int install_upgrade_check_pins(const install_upgrade_in *in,
    install_upgrade *u, ps_error *err);

/* Whether the widening the policy asks about is consented to, and how
 * (res->consent.by); consent_required (exit 2) when not. */
int install_upgrade_consent(const char *archive, const ps_install_options *o,
    const ps_install_plan *plan, ps_install_result *res, ps_error *err);

/* Before the tree's rename: the pins staged; after it: made current. */
int install_upgrade_stage(const install_upgrade *u, const install_datadir *dd,
    int work_fd, int64_t now, ps_error *err);
/* After a failure before the tree's rename: the staged pins removed. */
void install_upgrade_take_back(const install_upgrade *u,
    const install_datadir *dd);
int install_upgrade_commit(const install_upgrade *u, const install_datadir *dd,
    ps_install_result *res, ps_error *err);

#endif
