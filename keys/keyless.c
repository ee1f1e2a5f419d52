/*
 * A signer's `keyless:` entries and the policy's `trusted_roots:`
 * (docs/formats/trust-policy.md, "Keyless signers"): every field read
 * strictly, every error a policy error at the node (exit 2); the checks
 * that need the signer or the policy whole (roles, overlap).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys/keyless.h"
#include "keys/trustyaml.h"
#include "util/error.h"
#include "util/strings.h"
#include "util/yaml.h"

/* The fields an entry holds, in the order trust check prints them. */
enum kl_kind { KL_URL, KL_PATTERN, KL_DIGITS, KL_WORD };

static const struct kl_field {
	const char *name;
	size_t offset;
	enum kl_kind kind;
} kl_fields[] = {
	{ "issuer", offsetof(ps_trust_keyless, issuer), KL_URL },
	{ "subject", offsetof(ps_trust_keyless, subject), KL_PATTERN },
	{ "repository", offsetof(ps_trust_keyless, repository), KL_URL },
	{ "repository_id", offsetof(ps_trust_keyless, repository_id),
	    KL_DIGITS },
	{ "owner_id", offsetof(ps_trust_keyless, owner_id), KL_DIGITS },
	{ "ref", offsetof(ps_trust_keyless, ref), KL_PATTERN },
	{ "signer_workflow", offsetof(ps_trust_keyless, signer_workflow),
	    KL_PATTERN },
	{ "config_workflow", offsetof(ps_trust_keyless, config_workflow),
	    KL_PATTERN },
	{ "trigger", offsetof(ps_trust_keyless, trigger), KL_WORD },
	{ "runner", offsetof(ps_trust_keyless, runner), KL_WORD },
};
#define KL_FIELD_COUNT (sizeof(kl_fields) / sizeof(kl_fields[0]))

static char **
kl_slot(ps_trust_keyless *e, const struct kl_field *f)
{
	return (char **)(void *)((char *)e + f->offset);
}

static const char *
kl_value(const ps_trust_keyless *e, const struct kl_field *f)
{
	return *(char *const *)(const void *)((const char *)e + f->offset);
}

static int
printable(const char *s)
{
	for (; *s != '\0'; s++) {
		if ((unsigned char)*s < 0x21 || (unsigned char)*s > 0x7e)
			return 0;
	}
	return 1;
}

static int
word(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-");

	return n > 0 && n <= 64 && s[n] == '\0';
}

/* digits, 1 to 20 of them, no leading zero: the form Fulcio writes. */
static int
digits(const char *s)
{
	size_t n = strspn(s, "0123456789");

	return n > 0 && n <= 20 && s[n] == '\0' && (s[0] != '0' || n == 1);
}

static int
field_bad(keys_trust_ctx *ctx, const util_yaml_node *node,
    const struct kl_field *f)
{
	static const char *const rule[] = {
		[KL_URL] = "an https:// URL of printable ASCII without spaces",
		[KL_PATTERN] = ("a keyless pattern: printable ASCII without "
		    "spaces, '*' for one or more characters other than '/', "
		    "no '**'"),
		[KL_DIGITS] = ("a number in digits (the numeric id Fulcio "
		    "certifies), without leading zeros"),
		[KL_WORD] = "a word of a-z, 0-9, '_' and '-'",
	};

	return keys_trust_at(ctx, node, f->kind == KL_PATTERN ?
	    "trust_pattern" : "trust_keyless", "keyless '%s' must be %s, at "
	    "most %d bytes, found '%.64s'", f->name, rule[f->kind],
	    KEYS_KEYLESS_VALUE_MAX, node->kind == UTIL_YAML_SCALAR ?
	    node->value : util_yaml_describe(node));
}

static int
parse_field(keys_trust_ctx *ctx, const util_yaml_node *node,
    const struct kl_field *f, ps_trust_keyless *e)
{
	const char *v;
	int ok;

	if (node->kind != UTIL_YAML_SCALAR || (node->type != UTIL_YAML_STRING &&
	    !(f->kind == KL_DIGITS && node->type == UTIL_YAML_INT)))
		return field_bad(ctx, node, f);
	v = node->value;
	ok = node->length <= KEYS_KEYLESS_VALUE_MAX && strlen(v) == node->length;
	if (ok && f->kind == KL_URL)
		ok = strncmp(v, "https://", 8) == 0 && v[8] != '\0' &&
		    printable(v);
	else if (ok && f->kind == KL_PATTERN)
		ok = keys_keyless_pattern_valid(v);
	else if (ok && f->kind == KL_DIGITS)
		ok = digits(v);
	else if (ok)
		ok = word(v);
	if (!ok)
		return field_bad(ctx, node, f);
	return util_strdup(kl_slot(e, f), v, ctx->name, ctx->err);
}

static int
parse_entry(keys_trust_ctx *ctx, const util_yaml_node *map,
    ps_trust_keyless *e)
{
	static const char *const fields[] = { "issuer", "subject",
	    "repository", "repository_id", "owner_id", "ref",
	    "signer_workflow", "config_workflow", "trigger", "runner",
	    "trusted_roots", "not_before", "not_after", NULL };
	const util_yaml_node *node;
	size_t i;

	e->line = map->line;
	e->column = map->column;
	if (keys_trust_expect_kind(ctx, map, UTIL_YAML_MAPPING,
	    "a 'keyless' item") != 0 ||
	    keys_trust_only_fields(ctx, map, "a keyless entry", fields) != 0 ||
	    keys_trust_field(ctx, map, "issuer", "a keyless entry") == NULL ||
	    keys_trust_field(ctx, map, "subject", "a keyless entry") == NULL)
		return -1;
	for (i = 0; i < KL_FIELD_COUNT; i++) {
		node = util_yaml_get(map, kl_fields[i].name);
		if (node != NULL && parse_field(ctx, node, &kl_fields[i], e) != 0)
			return -1;
	}
	if (keys_trust_window(ctx, map, "keyless entry", &e->not_before,
	    &e->not_after) != 0)
		return -1;
	node = util_yaml_get(map, "trusted_roots");
	return node == NULL ? 0 : keys_keyless_parse_roots(ctx, node,
	    &e->trusted_roots, &e->trusted_root_count);
}

static size_t
policy_entries(const ps_trust *policy)
{
	size_t i, n = 0;

	for (i = 0; i < policy->signer_count; i++)
		n += policy->signers[i].keyless_count;
	return n;
}

int
keys_keyless_parse(keys_trust_ctx *ctx, const util_yaml_node *list,
    ps_trust_signer *signer)
{
	ps_trust_keyless *e;
	size_t i;

	if (keys_trust_expect_kind(ctx, list, UTIL_YAML_SEQUENCE,
	    "'keyless'") != 0)
		return -1;
	if (list->count == 0)
		return keys_trust_at(ctx, list, "trust_missing_field",
		    "'keyless' must list at least one entry (or leave it out)");
	for (i = 0; i < list->count; i++) {
		if (policy_entries(ctx->policy) >= KEYS_KEYLESS_MAX)
			return keys_trust_at(ctx, list->items[i],
			    "trust_keyless", "a policy holds at most %d "
			    "keyless entries", KEYS_KEYLESS_MAX);
		e = keys_trust_grow(ctx, (void **)&signer->keyless,
		    &signer->keyless_count, sizeof(*e));
		if (e == NULL || parse_entry(ctx, list->items[i], e) != 0)
			return -1;
	}
	return 0;
}

/* `path` against the directory of the policy's name. */
static int
resolve(keys_trust_ctx *ctx, const char *path, char **out)
{
	const char *slash = strrchr(ctx->name, '/');
	size_t dir = slash != NULL ? (size_t)(slash - ctx->name) + 1 : 0;
	size_t len = strlen(path);

	if (path[0] == '/')
		dir = 0;
	*out = malloc(dir + len + 1);
	if (*out == NULL)
		return keys_trust_oom(ctx);
	memcpy(*out, ctx->name, dir);
	memcpy(*out + dir, path, len + 1);
	return 0;
}

static int
root_bad(keys_trust_ctx *ctx, const util_yaml_node *node)
{
	return keys_trust_at(ctx, node, "trust_keyless", "a 'trusted_roots' "
	    "item must be the name of a trusted root file (1 to %d bytes, no "
	    "control characters), found '%.64s'", KEYS_KEYLESS_PATH_MAX,
	    node->kind == UTIL_YAML_SCALAR ? node->value :
	    util_yaml_describe(node));
}

int
keys_keyless_parse_roots(keys_trust_ctx *ctx, const util_yaml_node *list,
    char ***roots, size_t *count)
{
	const util_yaml_node *item;
	const unsigned char *p;
	char **slot;
	size_t i;

	if (list->kind != UTIL_YAML_SEQUENCE || list->count == 0 ||
	    list->count > KEYS_KEYLESS_ROOTS_MAX)
		return keys_trust_at(ctx, list, "trust_keyless",
		    "'trusted_roots' must be a list of 1 to %d trusted root "
		    "files, found %s", KEYS_KEYLESS_ROOTS_MAX,
		    util_yaml_describe(list));
	for (i = 0; i < list->count; i++) {
		item = list->items[i];
		if (item->kind != UTIL_YAML_SCALAR ||
		    item->type != UTIL_YAML_STRING || item->length == 0 ||
		    item->length > KEYS_KEYLESS_PATH_MAX ||
		    strlen(item->value) != item->length)
			return root_bad(ctx, item);
		for (p = (const unsigned char *)item->value; *p != '\0'; p++)
			if (*p < 0x20 || *p == 0x7f)
				return root_bad(ctx, item);
		slot = keys_trust_grow(ctx, (void **)roots, count,
		    sizeof(*slot));
		if (slot == NULL || resolve(ctx, item->value, slot) != 0)
			return -1;
	}
	return 0;
}

int
keys_keyless_check_roles(keys_trust_ctx *ctx, const util_yaml_node *map,
    const ps_trust_signer *signer)
{
	const util_yaml_node *at = util_yaml_get(map, "roles");

	if (signer->keyless_count == 0)
		return 0;
	if (at == NULL)
		at = map;
	if ((signer->roles & PS_ROLE_PACK) == 0)
		return keys_trust_at(ctx, at, "trust_role", "identity '%s' has "
		    "keyless entries but not the pack role: a keyless signer "
		    "signs packs only (an index stays key-signed)",
		    signer->identity);
	if ((signer->roles & PS_ROLE_INDEX) != 0 && signer->key_count == 0)
		return keys_trust_at(ctx, at, "trust_role", "identity '%s' has "
		    "the index role but only keyless entries: an index is "
		    "signed with a key of 'keys:' (keyless signers sign packs "
		    "only)", signer->identity);
	return 0;
}

void
keys_keyless_free_roots(char **roots, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		free(roots[i]);
	free(roots);
}

void
keys_keyless_free(ps_trust_keyless *entries, size_t count)
{
	size_t i, j;

	for (i = 0; i < count; i++) {
		for (j = 0; j < KL_FIELD_COUNT; j++)
			free(*kl_slot(&entries[i], &kl_fields[j]));
		keys_keyless_free_roots(entries[i].trusted_roots,
		    entries[i].trusted_root_count);
	}
	free(entries);
}

/* `uri` up to its first '@' into `out` (the whole when it has none). */
static void
before_at(const char *uri, char *out, size_t size)
{
	size_t n = strcspn(uri, "@");

	if (n >= size)
		n = size - 1;
	memcpy(out, uri, n);
	out[n] = '\0';
}

/* Two workflow constraints: a value without '@' names every ref. */
static int
workflows_meet(const char *a, const char *b)
{
	char pa[KEYS_KEYLESS_VALUE_MAX + 1], pb[KEYS_KEYLESS_VALUE_MAX + 1];

	if (strchr(a, '@') != NULL && strchr(b, '@') != NULL)
		return keys_keyless_meet(a, b);
	before_at(a, pa, sizeof(pa));
	before_at(b, pb, sizeof(pb));
	return keys_keyless_meet(pa, pb);
}

/* Whether one certificate could match both entries, field by field:
 * they are disjoint when some field both constrain cannot hold for both. */
static int
entries_meet(const ps_trust_keyless *x, const ps_trust_keyless *y)
{
	const char *a, *b;
	size_t i;

	for (i = 0; i < KL_FIELD_COUNT; i++) {
		a = kl_value(x, &kl_fields[i]);
		b = kl_value(y, &kl_fields[i]);
		if (a == NULL || b == NULL)
			continue;
		if (kl_fields[i].kind != KL_PATTERN) {
			if (strcmp(a, b) != 0)
				return 0;
		} else if (strcmp(kl_fields[i].name, "signer_workflow") == 0 ||
		    strcmp(kl_fields[i].name, "config_workflow") == 0) {
			if (!workflows_meet(a, b))
				return 0;
		} else if (!keys_keyless_meet(a, b)) {
			return 0;
		}
	}
	return 1;
}

static int
overlap_error(keys_trust_ctx *ctx, const ps_trust_signer *first,
    const ps_trust_keyless *fe, const ps_trust_signer *second,
    const ps_trust_keyless *se)
{
	util_yaml_node at;

	memset(&at, 0, sizeof(at));
	at.line = se->line;
	at.column = se->column;
	keys_trust_at(ctx, &at, "trust_keyless_overlap", "a keyless entry of "
	    "'%s' and one of '%s' (line %u) could match the same certificate "
	    "(issuer %s, subject %s and %s): a signature belongs to one "
	    "identity; make them differ in a field both constrain (subject, "
	    "repository_id, ...)", second->identity, first->identity,
	    fe->line, se->issuer, fe->subject, se->subject);
	return util_error_expect(ctx->err, "keyless entries of different "
	    "identities that no certificate matches both", "an overlap");
}

int
keys_keyless_check_overlap(keys_trust_ctx *ctx)
{
	const ps_trust *p = ctx->policy;
	size_t i, j, a, b;

	for (i = 0; i < p->signer_count; i++)
		for (j = i + 1; j < p->signer_count; j++)
			for (a = 0; a < p->signers[i].keyless_count; a++)
				for (b = 0; b < p->signers[j].keyless_count; b++)
					if (entries_meet(&p->signers[i].keyless[a],
					    &p->signers[j].keyless[b]))
						return overlap_error(ctx,
						    &p->signers[i],
						    &p->signers[i].keyless[a],
						    &p->signers[j],
						    &p->signers[j].keyless[b]);
	return 0;
}

int
ps_trust_warnings(const ps_trust *policy, ps_diags *out, ps_error *err)
{
	static const char github[] =
	    "https://token.actions.githubusercontent.com";
	const ps_trust_keyless *e;
	size_t i, j;

	for (i = 0; i < policy->signer_count; i++)
		for (j = 0; j < policy->signers[i].keyless_count; j++) {
			e = &policy->signers[i].keyless[j];
			if (strcmp(e->issuer, github) != 0 ||
			    e->repository_id != NULL)
				continue;
			if (ps_diags_add(out, PS_SEVERITY_WARNING,
			    "keyless_repository_id", policy->name, e->line,
			    e->column, "identity '%s': a GitHub keyless entry "
			    "without repository_id trusts whoever holds the "
			    "repository's name, a deleted and re-created "
			    "repository too; add its numeric repository_id",
			    policy->signers[i].identity) != 0)
				return util_fail_oom(err, policy->name);
		}
	return 0;
}

/* A workflow constraint: without '@', the part before the value's '@'. */
static int
workflow_matches(const char *pattern, const char *uri)
{
	char head[KEYS_KEYLESS_VALUE_MAX + 1];

	if (uri == NULL)
		return 0;
	if (strchr(pattern, '@') != NULL || strlen(uri) > KEYS_KEYLESS_VALUE_MAX)
		return keys_keyless_match(pattern, uri);
	before_at(uri, head, sizeof(head));
	return keys_keyless_match(pattern, head);
}

/* The first constraint of `e` the certificate fails: its name, what the
 * entry wants and what the certificate has ("none" when it lacks it). */
int
keys_keyless_explain(const ps_trust_keyless *e,
    const ps_sigstore_certificate *c, keys_keyless_miss *m)
{
	const struct { const char *name, *want, *have; int kind; } f[] = {
		{ "issuer", e->issuer, c->issuer, 0 },
		{ "subject", e->subject, c->san, 1 },
		{ "repository", e->repository, c->source_repository_uri, 0 },
		{ "repository_id", e->repository_id,
		    c->source_repository_identifier, 0 },
		{ "owner_id", e->owner_id, c->source_repository_owner_identifier,
		    0 },
		{ "ref", e->ref, c->source_repository_ref, 1 },
		{ "signer_workflow", e->signer_workflow, c->build_signer_uri, 2 },
		{ "config_workflow", e->config_workflow, c->build_config_uri, 2 },
		{ "trigger", e->trigger, c->build_trigger, 0 },
		{ "runner", e->runner, c->runner_environment, 0 },
	};
	size_t i;
	int ok;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (f[i].want == NULL)
			continue;
		ok = f[i].have != NULL && (f[i].kind == 0 ?
		    strcmp(f[i].want, f[i].have) == 0 : f[i].kind == 1 ?
		    keys_keyless_match(f[i].want, f[i].have) :
		    workflow_matches(f[i].want, f[i].have));
		if (ok)
			continue;
		m->field = f[i].name;
		m->want = f[i].want;
		m->found = f[i].have != NULL ? f[i].have : "none";
		return -1;
	}
	return 0;
}

int
ps_trust_keyless_match(const ps_trust_keyless *e,
    const ps_sigstore_certificate *c)
{
	keys_keyless_miss m;

	return e != NULL && c != NULL && c->san != NULL &&
	    keys_keyless_explain(e, c, &m) == 0;
}

int
ps_keyless_reusable_workflow(const ps_sigstore_certificate *c)
{
	size_t n;

	if (c == NULL || c->build_signer_uri == NULL ||
	    c->source_repository_uri == NULL)
		return 0;
	n = strlen(c->source_repository_uri);
	return strncmp(c->build_signer_uri, c->source_repository_uri, n) != 0 ||
	    c->build_signer_uri[n] != '/';
}
