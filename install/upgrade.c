/*
 * Upgrades (docs/formats/install.md, "Upgrades"): before anything is
 * written, the pins of the id are checked (signer_changed,
 * source_changed), then the new version is compared with the newest
 * installed one, and a change that widens a class the policy's
 * `consent:` names needs consent: --accept, --accept-diff, or the
 * caller's callback.  --yes is not consent: it answers the confirmation,
 * which comes after.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "install/installed.h"
#include "install/pins.h"
#include "install/upgrade.h"
#include "util/error.h"
#include "util/strings.h"

void
install_upgrade_clear(install_upgrade *u)
{
	ps_pins_free(u->pins);
	ps_pins_free(u->write);
	memset(u, 0, sizeof(*u));
}

/* ------------------------------------------------------------------ pins */

static int
pins_add(ps_pins *p, const char *identity, const char *fingerprint,
    ps_error *err)
{
	ps_installed_signer *grown;

	grown = realloc(p->signers, (p->signer_count + 1) * sizeof(*grown));
	if (grown == NULL)
		return util_fail_oom(err, identity);
	p->signers = grown;
	memset(&grown[p->signer_count], 0, sizeof(*grown));
	p->signer_count++;
	if (util_strdup(&grown[p->signer_count - 1].identity, identity, NULL,
	    err) != 0)
		return -1;
	return util_strdup(&grown[p->signer_count - 1].fingerprint,
	    fingerprint, NULL, err);
}

static int
pins_new(ps_pins **out, const ps_manifest *m, const char *version,
    const char *repository, ps_error *err)
{
	ps_pins *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (p == NULL)
		return util_fail_oom(err, m->id);
	p->format = m->format;
	if (util_strdup(&p->id, m->id, NULL, err) != 0 ||
	    util_strdup(&p->version, version, NULL, err) != 0 ||
	    (repository != NULL && util_strdup(&p->source_repository,
	    repository, NULL, err) != 0)) {
		ps_pins_free(p);
		return -1;
	}
	*out = p;
	return 0;
}

/* What this install would pin: its counted signers and its source. */
static int
pins_of_install(const install_upgrade_in *in, ps_pins **out, ps_error *err)
{
	const ps_verify_result *v = in->verify;
	size_t i;

	if (pins_new(out, in->manifest, in->manifest->version, v->has_source ?
	    v->source_repository : NULL, err) != 0)
		return -1;
	for (i = 0; i < v->identity_count; i++) {
		if (pins_add(*out, v->identities[i].identity,
		    v->identities[i].fingerprint, err) != 0)
			return -1;
	}
	return 0;
}

/* A data directory made before pins: the newest receipt pins. */
static int
pins_of_receipt(const install_upgrade_in *in, ps_pins **out, ps_error *err)
{
	ps_installed_list found = { NULL, 0 };
	const ps_installed *r = NULL;
	size_t i;
	int rc;

	*out = NULL;
	rc = install_find(in->dd, in->manifest->format, in->manifest->id,
	    in->newest, &found, err);
	if (rc == 0 && found.count > 0)
		r = &found.items[0];
	if (r != NULL)
		rc = pins_new(out, in->manifest, r->version, r->source_commit !=
		    NULL ? r->source_repository : NULL, err);
	for (i = 0; rc == 0 && r != NULL && i < r->signer_count; i++)
		rc = pins_add(*out, r->signers[i].identity,
		    r->signers[i].fingerprint, err);
	install_list_free_items(&found);
	return rc;
}

/* A pinned key, or a pinned identity when a policy file binds keys to
 * identities: under -p KEY.pub the identity is what the key file claims,
 * and any key can claim any name. */
static int
pinned(const ps_pins *p, const ps_verify_identity *id, const ps_trust *policy)
{
	size_t i;
	int keyless;

	for (i = 0; i < p->signer_count; i++) {
		/* A keyless signer is its signer id: another workflow or
		 * repository under the same identity is another signer. */
		keyless = strncmp(p->signers[i].fingerprint,
		    PS_KEYLESS_ID_PREFIX, 8) == 0 ||
		    strncmp(id->fingerprint, PS_KEYLESS_ID_PREFIX, 8) == 0;
		if (strcmp(p->signers[i].fingerprint, id->fingerprint) == 0 ||
		    (!policy->one_key && !keyless &&
		    strcmp(p->signers[i].identity, id->identity) == 0))
			return 1;
	}
	return 0;
}

static void
join_pins(const ps_pins *p, char *out, size_t size)
{
	size_t i, used;

	out[0] = '\0';
	for (i = 0; i < p->signer_count; i++) {
		used = strlen(out);
		snprintf(out + used, size - used, "%s%s (%s)", i > 0 ? ", " : "",
		    p->signers[i].identity, p->signers[i].fingerprint);
	}
}

static void
join_found(const ps_verify_result *v, char *out, size_t size)
{
	size_t i, used;

	out[0] = '\0';
	for (i = 0; i < v->identity_count; i++) {
		used = strlen(out);
		snprintf(out + used, size - used, "%s%s (%s)", i > 0 ? ", " : "",
		    v->identities[i].identity, v->identities[i].fingerprint);
	}
}

/* Passes when a pinned identity or a pinned key signed the new version. */
static int
check_signers(const install_upgrade_in *in, const ps_pins *p, ps_error *err)
{
	char expected[PS_ERROR_VALUE_MAX], found[PS_ERROR_VALUE_MAX];
	const ps_verify_result *v = in->verify;
	size_t i;

	for (i = 0; i < v->identity_count; i++) {
		if (pinned(p, &v->identities[i], in->options->verify.trust))
			return 0;
	}
	if (in->options->allow_signer_change)
		return 1;
	util_refuse(err, "signer_changed", in->archive, "compared the counted "
	    "signers with the pins of %s (pinned by its install of %s): no "
	    "pinned identity or key signed this version; pass "
	    "--allow-signer-change to accept the new signer and pin it",
	    p->id, p->version);
	join_pins(p, expected, sizeof(expected));
	join_found(v, found, sizeof(found));
	return util_error_expect(err, expected, found);
}

/* A pinned repository must stay; none followed by one is provenance
 * gained (pinned from now on). */
static int
check_source(const install_upgrade_in *in, const ps_pins *p, ps_error *err)
{
	const ps_verify_result *v = in->verify;
	const char *found = v->has_source ? v->source_repository : NULL;

	if (p->source_repository == NULL)
		return found != NULL ? 1 : 0;
	if (found != NULL && strcmp(found, p->source_repository) == 0)
		return 0;
	if (in->options->allow_source_change)
		return 1;
	util_refuse(err, "source_changed", in->archive, "compared the "
	    "recorded source repository with the pins of %s (pinned by its "
	    "install of %s); pass --allow-source-change to accept the new "
	    "repository and pin it", p->id, p->version);
	return util_error_expect(err, p->source_repository, found != NULL ?
	    found : "none (no source recorded)");
}

/* The pins to write: the signers and the source each from the pins or
 * from this install, as the checks decided. */
static int
pins_merge(const install_upgrade_in *in, const ps_pins *old, int signers,
    int source, ps_pins **out, ps_error *err)
{
	const ps_verify_result *v = in->verify;
	const ps_pins *from = old;
	ps_pins *mine = NULL;
	size_t i;
	int rc;

	if (signers && pins_of_install(in, &mine, err) != 0) {
		ps_pins_free(mine);
		return -1;
	}
	if (mine != NULL)
		from = mine;
	rc = pins_new(out, in->manifest, in->manifest->version, source ?
	    (v->has_source ? v->source_repository : NULL) :
	    old->source_repository, err);
	for (i = 0; rc == 0 && i < from->signer_count; i++)
		rc = pins_add(*out, from->signers[i].identity,
		    from->signers[i].fingerprint, err);
	ps_pins_free(mine);
	return rc;
}

static int
check_pins(const install_upgrade_in *in, install_upgrade *u, ps_error *err)
{
	int signers, source, from_file;

	if (install_pins_load(in->dd, in->manifest->format, in->manifest->id,
	    &u->pins, err) != 0)
		return -1;
	from_file = u->pins != NULL;
	if (u->pins == NULL && in->newest != NULL &&
	    pins_of_receipt(in, &u->pins, err) != 0)
		return -1;
	if (u->pins == NULL)            /* a first install pins */
		return pins_of_install(in, &u->write, err);
	if ((signers = check_signers(in, u->pins, err)) < 0 ||
	    (source = check_source(in, u->pins, err)) < 0)
		return -1;
	if (signers == 0 && source == 0 && from_file)
		return 0;
	/* A pinned signer or repository replaced (not provenance gained). */
	u->repinned = signers != 0 || (source != 0 &&
	    u->pins->source_repository != NULL);
	return pins_merge(in, u->pins, signers, source, &u->write, err);
}

/* ------------------------------------------------------------------ diff */

static int
compute_diff(const install_upgrade_in *in, ps_diff **out, ps_error *err)
{
	ps_diff_side *old_side = NULL, *new_side = NULL;
	const ps_trust *policy = in->options->verify.trust;
	int rc;

	rc = install_diff_side(in->dd, in->manifest->format, in->manifest->id,
	    in->newest, policy, &old_side, err);
	if (rc == 0)
		rc = install_diff_side_new(in->tree_path, in->manifest,
		    in->extracted, in->verify, policy, &new_side, err);
	if (rc == 0)
		rc = ps_diff_compare(old_side, new_side, NULL, out, err);
	ps_diff_side_free(old_side);
	ps_diff_side_free(new_side);
	return rc;
}

/* Pins kept from an uninstalled version, replaced with none installed
 * to compare with: a trust change all the same, consented as one. */
static int
repin_consent(const install_upgrade *u, const ps_trust *policy,
    ps_install_result *res, ps_error *err)
{
	if (!u->repinned)
		return 0;
	res->consent_needed = policy->consent & PS_CONSENT_TRUST;
	res->consent.asked = policy->consent;
	res->consent.widened = PS_CONSENT_TRUST;
	return util_strdup(&res->consent.from_version, u->pins->version, NULL,
	    err);
}

int
install_upgrade_check(const install_upgrade_in *in, install_upgrade *u,
    ps_install_result *res, ps_error *err)
{
	const ps_trust *policy = in->options->verify.trust;

	memset(u, 0, sizeof(*u));
	if (check_pins(in, u, err) != 0)
		return -1;
	if (in->newest == NULL)
		return repin_consent(u, policy, res, err);
	if (compute_diff(in, &res->diff, err) != 0)
		return -1;
	res->consent_needed = res->diff->widening_classes & policy->consent;
	res->consent.asked = policy->consent;
	res->consent.widened = res->diff->widening_classes;
	return util_strdup(&res->consent.from_version, in->newest, NULL, err);
}

int
install_upgrade_check_pins(const install_upgrade_in *in, install_upgrade *u,
    ps_error *err)
{
	memset(u, 0, sizeof(*u));
	if (check_pins(in, u, err) != 0)
		return -1;
	/* Provenance gained or pins from a receipt would be written by an
	 * upgrade; a reinstall leaves the pins as they are. */
	ps_pins_free(u->write);
	u->write = NULL;
	u->repinned = 0;
	return 0;
}

/* --------------------------------------------------------------- consent */

/* The diff given to --accept-diff is this upgrade's, byte for byte (one
 * final newline allowed, as a file written by `diff --json >F` has). */
static int
same_diff(const char *given, const ps_diff *d, int *same, ps_error *err)
{
	char *mine = NULL;
	size_t n = strlen(given);

	if (ps_diff_to_json(d, &mine, err) != 0)
		return -1;
	if (n > 0 && given[n - 1] == '\n')
		n--;
	*same = strlen(mine) == n && memcmp(mine, given, n) == 0;
	free(mine);
	return 0;
}

/* "egress *.x:443/https; signer bob": the widening changes asked for. */
static void
list_needed(const ps_diff *d, unsigned classes, char *out, size_t size)
{
	const ps_diff_change *c;
	size_t i, used;

	out[0] = '\0';
	for (i = 0; i < d->change_count; i++) {
		c = &d->changes[i];
		if (!c->widening || (c->consent & classes) == 0)
			continue;
		used = strlen(out);
		snprintf(out + used, size - used, "%s%s%s%s", used > 0 ? "; " : "",
		    c->field, c->subject != NULL ? " " : ": ", c->subject != NULL ?
		    c->subject : (c->new_value != NULL ? c->new_value : "none"));
	}
}

static int
refuse_consent(const char *archive, const ps_install_result *res,
    const char *why, ps_error *err)
{
	char changes[PS_ERROR_TEXT_MAX], classes[64];

	ps_consent_class_list(res->consent_needed, classes, sizeof(classes));
	if (res->diff == NULL) {
		util_fail(err, PS_CODE_CONSENT_REQUIRED, archive, "replacing the "
		    "pins of %s (pinned by its install of %s, since uninstalled) "
		    "is a change of whom you trust (%s); pass --accept trust, or "
		    "answer on a terminal", res->id, res->consent.from_version,
		    classes);
		return util_error_expect(err, "consent to the new pins",
		    "none given");
	}
	list_needed(res->diff, res->consent_needed, changes, sizeof(changes));
	util_fail(err, PS_CODE_CONSENT_REQUIRED, archive, "the upgrade from %s "
	    "widens what the policy asks consent for (%s): %s; %s",
	    res->consent.from_version, classes, changes, why);
	return util_error_expect(err, "consent to every widening change",
	    "none given");
}

static int
record(ps_install_result *res, const char *by, ps_error *err)
{
	free(res->consent.by);
	return util_strdup(&res->consent.by, by, NULL, err);
}

int
install_upgrade_consent(const char *archive, const ps_install_options *o,
    const ps_install_plan *plan, ps_install_result *res, ps_error *err)
{
	int same = 0;

	if (res->consent.from_version == NULL)
		return 0;               /* a first install */
	if (res->consent_needed == 0)
		return record(res, "none", err);
	if (o->accept_diff != NULL && res->diff != NULL) {
		if (same_diff(o->accept_diff, res->diff, &same, err) != 0)
			return -1;
		return same ? record(res, "accept-diff", err) : refuse_consent(
		    archive, res, "the diff given to --accept-diff is not this "
		    "upgrade's (make it again with packsign diff --json)", err);
	}
	if ((res->consent_needed & ~o->accept) == 0)
		return record(res, "accept", err);
	if (o->dry_run)
		return 0;
	if (o->consent != NULL && o->consent(o->consent_ctx, plan) != 0)
		return record(res, o->consent_by != NULL ? o->consent_by :
		    "callback", err);
	return refuse_consent(archive, res, "pass --accept CLASSES or "
	    "--accept-diff FILE (packsign diff --json) after reading the "
	    "diff, or answer on a terminal", err);
}

/* --------------------------------------------------------------- commit */

int
install_upgrade_stage(const install_upgrade *u, const install_datadir *dd,
    int work_fd, int64_t now, ps_error *err)
{
	return u->write == NULL ? 0 : install_pins_stage(dd, work_fd, u->write,
	    now, err);
}

void
install_upgrade_take_back(const install_upgrade *u, const install_datadir *dd)
{
	ps_pins *now = NULL;
	ps_error ignored;

	/* Loading under the lock settles the stage: made current when its
	 * tree made it into place after all, removed when not. */
	if (u->write != NULL)
		(void)install_pins_load(dd, u->write->format, u->write->id, &now,
		    &ignored);
	ps_pins_free(now);
}

int
install_upgrade_commit(const install_upgrade *u, const install_datadir *dd,
    ps_install_result *res, ps_error *err)
{
	if (u->write == NULL)
		return 0;
	res->pinned = 1;
	return install_pins_commit(dd, u->write->format, u->write->id, err);
}
