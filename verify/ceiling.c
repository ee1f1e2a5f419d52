/*
 * Step 7 of verification: a pack passes when one counted signer's `may:`
 * covers every permission its manifest declares (trust-policy.md,
 * "Permission ceilings").  One signer's ceiling must cover the whole
 * pack: two signers who each allow half of it do not add up, or a
 * co-signer could widen what another signer vouched for.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "formats/cover.h"
#include "formats/url.h"
#include "keys/trustmay.h"
#include "sign/dsse.h"
#include "util/duration.h"
#include "util/error.h"
#include "util/hostname.h"
#include "verify/ceiling.h"

#define CHECKED "compared the pack's permissions with the ceilings of its " \
    "signers"

static int
miss_at(verify_ceiling_miss *miss, const char *permission, const char *found,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Records the uncovered permission; returns 0 ("not covered"). */
static int
miss_at(verify_ceiling_miss *miss, const char *permission, const char *found,
    const char *fmt, ...)
{
	va_list ap;

	miss->permission = permission;
	snprintf(miss->found, sizeof(miss->found), "%s", found);
	va_start(ap, fmt);
	vsnprintf(miss->expected, sizeof(miss->expected), fmt, ap);
	va_end(ap);
	return 0;
}

/* ------------------------------------------------------------ hosts */

/* "one of A, B" or "none": what a list of host patterns allows. */
static void
hosts_text(const ps_egress *list, size_t n, char *out, size_t size)
{
	size_t i, used;

	snprintf(out, size, "%s", n == 0 ? "none" : "one of ");
	for (i = 0; i < n; i++) {
		used = strlen(out);
		if (i > 0 && used + 2 < size)
			used += (size_t)snprintf(out + used, size - used, ", ");
		formats_egress_text(&list[i], out + used, size - used);
	}
}

/* Every host the pack names is covered by one of the ceiling's. */
static int
hosts_cover(const ps_egress *ceiling, size_t nc, const ps_egress *pack,
    size_t np, const char *permission, verify_ceiling_miss *miss)
{
	char allowed[VERIFY_CEILING_TEXT_MAX], asked[VERIFY_CEILING_TEXT_MAX];
	size_t i, j;

	for (i = 0; i < np; i++) {
		for (j = 0; j < nc; j++) {
			if (formats_egress_covers(&ceiling[j], &pack[i]))
				break;
		}
		if (j < nc)
			continue;
		hosts_text(ceiling, nc, allowed, sizeof(allowed));
		formats_egress_text(&pack[i], asked, sizeof(asked));
		return miss_at(miss, permission, asked, "%s", allowed);
	}
	return 1;
}

/* ------------------------------------------------ paths and names */

/* "one of A, B" or "none"; `prefix` goes before the list. */
static void
names_text(const ps_strings *list, const char *prefix, char *out,
    size_t size)
{
	size_t i, used;

	snprintf(out, size, "%s", list->count == 0 ? "none" : prefix);
	for (i = 0; i < list->count; i++) {
		used = strlen(out);
		snprintf(out + used, size - used, "%s%s", i > 0 ? ", " : "",
		    list->items[i]);
	}
}

/* Each of the pack's `asked` is covered by one of `allowed`: by path
 * prefix (`paths`) or by whole-string glob. */
static int
names_cover(const ps_strings *allowed, const ps_strings *asked, int paths,
    const char *permission, verify_ceiling_miss *miss)
{
	char text[VERIFY_CEILING_TEXT_MAX];
	const char *a;
	size_t i, j;

	for (i = 0; i < asked->count; i++) {
		a = asked->items[i];
		for (j = 0; j < allowed->count; j++) {
			if (paths ? formats_path_covers(allowed->items[j], a) :
			    ps_glob_match(allowed->items[j], a))
				break;
		}
		if (j < allowed->count)
			continue;
		names_text(allowed, paths ? "under one of " : "one of ", text,
		    sizeof(text));
		return miss_at(miss, permission, a, "%s", text);
	}
	return 1;
}

/* ------------------------------------------------------ the formats */

static int
bool_covers(int allowed, int asked, const char *permission,
    verify_ceiling_miss *miss)
{
	if (asked > 0 && allowed == 0)
		return miss_at(miss, permission, "true", "false");
	return 1;
}

static int
agentpack_covers(const ps_manifest *m, const ps_permissions *a,
    verify_ceiling_miss *miss)
{
	const ps_permissions *p = &m->permissions;
	const char *want = p->file_write != NULL ? p->file_write : "none";
	const char *max = a->file_write != NULL ? a->file_write : "none";
	int asked = keys_may_rank(keys_may_file_write, want);

	if (!bool_covers(a->network, p->network, "network", miss) ||
	    !bool_covers(a->shell, p->shell, "shell", miss))
		return 0;
	/* A value the order does not know is not below any maximum. */
	if (asked < 0 || asked > keys_may_rank(keys_may_file_write, max))
		return miss_at(miss, "file_write", want, "at most %s", max);
	return bool_covers(a->read_knowledge, p->read_knowledge,
	    "read_knowledge", miss) &&
	    bool_covers(a->read_filesystem, p->read_filesystem,
	    "read_filesystem", miss);
}

static int
soyapack_covers(const ps_manifest *m, const ps_ceiling_soyapack *s,
    verify_ceiling_miss *miss)
{
	ps_strings tier;
	char *one[1];

	if (!hosts_cover(s->egress, s->egress_count, m->egress,
	    m->egress_count, "egress", miss) ||
	    !names_cover(&s->fs_read, &m->fs_read, 1, "fs_read", miss) ||
	    !names_cover(&s->fs_write, &m->fs_write, 1, "fs_write", miss))
		return 0;
	if (m->determinism_tier == NULL)
		return 1;
	one[0] = m->determinism_tier;
	tier.items = one;
	tier.count = 1;
	/* Tier names hold no '*' or '?': the glob match is equality. */
	return names_cover(&s->determinism_tiers, &tier, 0,
	    "determinism_tier", miss);
}

/* "none" keeps nothing: 0 seconds.  -1 for text that is no duration. */
static double
retention_seconds(const char *text)
{
	double seconds = 0;

	if (text == NULL || strcmp(text, "none") == 0)
		return 0;
	return util_duration_parse(text, &seconds) == 0 ? seconds : -1;
}

static int
retention_covers(const char *allowed, const char *asked,
    verify_ceiling_miss *miss)
{
	double max = retention_seconds(allowed);
	double want = retention_seconds(asked);

	if (want < 0 || max < 0 || want > max)
		return miss_at(miss, "retention", asked != NULL ? asked :
		    "none", "at most %s", allowed != NULL ? allowed : "none");
	return 1;
}

/* The endpoint as a host pattern: its host, its port, https. */
static int
endpoint_covers(const ps_ceiling_holon *h, const char *endpoint,
    verify_ceiling_miss *miss)
{
	char host[UTIL_HOSTNAME_MAX + 8];
	ps_egress e;

	if (endpoint == NULL)
		return 1;
	if (formats_url_host_port(endpoint, host, sizeof(host), &e.port) != 0)
		return miss_at(miss, "endpoint", endpoint, "an https URL");
	e.host = host;
	e.protocol = (char *)"https";
	return hosts_cover(h->endpoint, h->endpoint_count, &e, 1, "endpoint",
	    miss);
}

/* A free pack (worst case 0) is covered in any currency; otherwise the
 * currency must be the ceiling's and the amount at most its. */
static int
price_covers(const ps_manifest *m, const ps_ceiling_holon *h,
    verify_ceiling_miss *miss)
{
	if (m->price_currency == NULL || m->price_worst_amount <= 0)
		return 1;
	if (h->price_currency == NULL)
		return miss_at(miss, "price", m->price_worst_case != NULL ?
		    m->price_worst_case : "?", "0 (free packs only)");
	if (strcmp(h->price_currency, m->price_currency) != 0 ||
	    m->price_worst_amount > h->price_max)
		return miss_at(miss, "price", m->price_worst_case != NULL ?
		    m->price_worst_case : "?", "at most %g %s", h->price_max,
		    h->price_currency);
	return 1;
}

static int
holon_covers(const ps_manifest *m, const ps_ceiling_holon *h,
    verify_ceiling_miss *miss)
{
	char asked[32];

	if (!names_cover(&h->capabilities, &m->capabilities, 0, "capabilities",
	    miss) ||
	    !hosts_cover(h->data_egress, h->data_egress_count, m->egress,
	    m->egress_count, "data_egress", miss) ||
	    !retention_covers(h->retention, m->retention, miss) ||
	    !bool_covers(h->training_use, m->training_use, "training_use",
	    miss) ||
	    !endpoint_covers(h, m->endpoint, miss))
		return 0;
	if (m->timeout_s > h->timeout_s) {
		snprintf(asked, sizeof(asked), "%lld", m->timeout_s);
		return miss_at(miss, "timeout_s", asked, "at most %lld",
		    h->timeout_s);
	}
	return price_covers(m, h, miss);
}

static int
autograph_covers(const ps_manifest *m, const ps_ceiling_autograph *g,
    verify_ceiling_miss *miss)
{
	return names_cover(&g->services, &m->services, 0, "services", miss) &&
	    names_cover(&g->tasks, &m->tasks, 0, "tasks", miss);
}

/* The formats `c` has a block for, "agentpack or holon", or "none". */
static int
no_block(const ps_ceiling *c, const ps_manifest *m, verify_ceiling_miss *miss)
{
	const int has[] = { c->agentpack.declared, c->soyapack.declared,
	    c->holon.declared, c->autograph.declared };
	static const char *const names[] = { "agentpack", "soyapack", "holon",
	    "autograph" };
	char text[VERIFY_CEILING_TEXT_MAX] = "";
	size_t i, used;

	for (i = 0; i < 4; i++) {
		used = strlen(text);
		if (has[i])
			snprintf(text + used, sizeof(text) - used, "%s%s",
			    used > 0 ? " or " : "", names[i]);
	}
	return miss_at(miss, "format", ps_format_name(m->format), "%s",
	    text[0] != '\0' ? text : "none (no block under may:)");
}

int
verify_ceiling_covers(const ps_manifest *m, const ps_ceiling *c,
    verify_ceiling_miss *miss)
{
	switch (m->format) {
	case PS_FORMAT_AGENTPACK:
		if (c->agentpack.declared)
			return agentpack_covers(m, &c->agentpack, miss);
		break;
	case PS_FORMAT_SOYAPACK:
		if (c->soyapack.declared)
			return soyapack_covers(m, &c->soyapack, miss);
		break;
	case PS_FORMAT_HOLON:
		if (c->holon.declared)
			return holon_covers(m, &c->holon, miss);
		break;
	case PS_FORMAT_AUTOGRAPH:
		if (c->autograph.declared)
			return autograph_covers(m, &c->autograph, miss);
		break;
	default:
		break;
	}
	return no_block(c, m, miss);
}

/* ------------------------------------------------------ the refusal */

/* "a, b": the signers' identities. */
static void
identities_text(const ps_trust_signer *const *signers, size_t count,
    char *out, size_t size)
{
	size_t i, used;

	out[0] = '\0';
	for (i = 0; i < count; i++) {
		used = strlen(out);
		snprintf(out + used, size - used, "%s%s", i > 0 ? ", " : "",
		    signers[i]->identity);
	}
}

/* One line for every signer: each one's permission, expected and found
 * in the message, the last one's as the error's expected and found, so
 * that the printed line reads the same for all of them. */
static int
refuse(const ps_trust_signer *const *signers, const verify_ceiling_miss *miss,
    size_t count, const char *subject, ps_error *err)
{
	char names[PS_ERROR_VALUE_MAX], text[PS_ERROR_TEXT_MAX];
	char expected[PS_ERROR_VALUE_MAX];
	size_t i, used;

	identities_text(signers, count, names, sizeof(names));
	snprintf(text, sizeof(text), "%s (%s)", CHECKED, names);
	for (i = 0; i < count; i++) {
		used = strlen(text);
		snprintf(text + used, sizeof(text) - used, "%s%s", i == 0 ?
		    ": " : "; ", miss[i].permission);
		used = strlen(text);
		if (i + 1 < count)
			snprintf(text + used, sizeof(text) - used,
			    ": expected %s (the ceiling of %s), found %s",
			    miss[i].expected,
			    signers[i]->identity, miss[i].found);
	}
	util_refuse(err, "permission_exceeds_policy", subject, "%s", text);
	snprintf(expected, sizeof(expected), "%s (the ceiling of %s)",
	    miss[count - 1].expected, signers[count - 1]->identity);
	return util_error_expect(err, expected, miss[count - 1].found);
}

int
verify_ceiling_check(const ps_manifest *m,
    const ps_trust_signer *const *signers, size_t count, const char *subject,
    ps_error *err)
{
	verify_ceiling_miss miss[SIGN_DSSE_MAX_SIGNATURES];
	size_t i;

	if (count == 0 || count > SIGN_DSSE_MAX_SIGNATURES) {
		util_refuse(err, "permission_exceeds_policy", subject, "%s",
		    CHECKED);
		return util_error_expect(err, "1 to 64 counted signers",
		    count == 0 ? "none" : "more");
	}
	for (i = 0; i < count; i++) {
		if (signers[i]->may == NULL ||
		    verify_ceiling_covers(m, signers[i]->may, &miss[i]))
			return 0;
	}
	return refuse(signers, miss, count, subject, err);
}

int
verify_ceilings(verify_vctx *v, ps_error *err)
{
	const ps_trust_signer *signers[SIGN_DSSE_MAX_SIGNATURES];
	const ps_verify_result *r = v->res;
	size_t i, n = 0;
	int applied = 1;

	for (i = 0; i < r->identity_count && n < SIGN_DSSE_MAX_SIGNATURES;
	    i++) {
		signers[n] = ps_trust_find_signer(v->o->trust,
		    r->identities[i].identity);
		if (signers[n] == NULL)
			continue;
		applied &= signers[n]->may != NULL;
		n++;
	}
	if (verify_ceiling_check(v->manifest, signers, n, v->path, err) != 0)
		return -1;
	v->res->ceilings_checked = applied && n > 0;
	return 0;
}
