/*
 * Trust policies (docs/formats/trust-policy.md): parsed from the safe YAML
 * tree, every error at FILE:LINE:COL; and the one question verification
 * asks: which trusted identity owns this key for this pack, now.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys/keyless.h"
#include "keys/keys.h"
#include "keys/trustmay.h"
#include "keys/trustyaml.h"
#include "util/error.h"
#include "util/strings.h"
#include "util/yaml.h"

#define REASON_MAX 1024

static int
parse_key(keys_trust_ctx *ctx, const util_yaml_node *node, ps_pubkey **out)
{
	ps_error inner;

	*out = NULL;
	if (keys_trust_expect_kind(ctx, node, UTIL_YAML_SCALAR, "'key'") != 0)
		return -1;
	if (ps_pubkey_parse(node->value, node->length, "key", out, &inner) != 0)
		return keys_trust_at(ctx, node, "trust_key", "not a usable "
		    "ed25519 public key: %s (%s)", inner.message, inner.code);
	return 0;
}

/* The same public key anywhere else in the policy's signers. */
static const ps_trust_signer *
owner_of(const ps_trust *policy, const ps_pubkey *key,
    const ps_trust_key **found)
{
	size_t i, j;

	for (i = 0; i < policy->signer_count; i++) {
		for (j = 0; j < policy->signers[i].key_count; j++) {
			*found = &policy->signers[i].keys[j];
			if ((*found)->key != NULL &&
			    ps_pubkey_equal((*found)->key, key))
				return &policy->signers[i];
		}
	}
	return NULL;
}

static int
check_unique_key(keys_trust_ctx *ctx, const util_yaml_node *node,
    const ps_pubkey *key)
{
	const ps_trust_signer *owner;
	const ps_trust_key *first;
	char fp[PS_FINGERPRINT_MAX] = "";

	owner = owner_of(ctx->policy, key, &first);
	if (owner == NULL)
		return 0;
	ps_pubkey_fingerprint(key, fp);
	return keys_trust_at(ctx, node, "trust_duplicate_key", "key %s is "
	    "already listed for identity '%s' at line %u; a key belongs to "
	    "one identity, once", fp, owner->identity, first->line);
}

static int
parse_signer_key(keys_trust_ctx *ctx, const util_yaml_node *map,
    ps_trust_key *tk)
{
	static const char *const fields[] = { "key", "not_before",
	    "not_after", NULL };
	const util_yaml_node *node;
	ps_pubkey *key;

	tk->not_before = PS_TIME_NONE_BEFORE;
	tk->not_after = PS_TIME_NONE_AFTER;
	tk->line = map->line;
	tk->column = map->column;
	if (keys_trust_expect_kind(ctx, map, UTIL_YAML_MAPPING,
	    "a 'keys' item") != 0 ||
	    keys_trust_only_fields(ctx, map, "a key", fields) != 0 ||
	    (node = keys_trust_field(ctx, map, "key", "a key")) == NULL)
		return -1;
	if (parse_key(ctx, node, &key) != 0)
		return -1;
	if (check_unique_key(ctx, node, key) != 0) {
		ps_pubkey_free(key);
		return -1;
	}
	tk->key = key;
	return keys_trust_window(ctx, map, "key", &tk->not_before,
	    &tk->not_after);
}

static int
parse_signer_keys(keys_trust_ctx *ctx, const util_yaml_node *list,
    ps_trust_signer *signer)
{
	ps_trust_key *tk;
	size_t i;

	if (keys_trust_expect_kind(ctx, list, UTIL_YAML_SEQUENCE,
	    "'keys'") != 0)
		return -1;
	if (list->count == 0)
		return keys_trust_at(ctx, list, "trust_missing_field",
		    "'keys' must list at least one key");
	for (i = 0; i < list->count; i++) {
		tk = keys_trust_grow(ctx, (void **)&signer->keys,
		    &signer->key_count, sizeof(*tk));
		if (tk == NULL ||
		    parse_signer_key(ctx, list->items[i], tk) != 0)
			return -1;
	}
	return 0;
}

static int
parse_packs(keys_trust_ctx *ctx, const util_yaml_node *list,
    ps_trust_signer *signer)
{
	const util_yaml_node *item;
	char **slot;
	size_t i;

	if (keys_trust_expect_kind(ctx, list, UTIL_YAML_SEQUENCE,
	    "'packs'") != 0)
		return -1;
	if (list->count == 0)
		return keys_trust_at(ctx, list, "trust_missing_field",
		    "'packs' must list at least one pattern (\"*\" for every "
		    "pack)");
	for (i = 0; i < list->count; i++) {
		item = list->items[i];
		if (keys_trust_expect_kind(ctx, item, UTIL_YAML_SCALAR,
		    "a pack pattern") != 0)
			return -1;
		if (!keys_trust_pattern_valid(item->value))
			return keys_trust_at(ctx, item, "trust_pattern",
			    "pattern '%.64s' must be 1 to %d printable ASCII "
			    "characters without spaces, '[', ']' or '\\'",
			    item->value,
			    KEYS_TRUST_PATTERN_MAX);
		slot = keys_trust_grow(ctx, (void **)&signer->packs,
		    &signer->pack_count, sizeof(*slot));
		if (slot == NULL || util_strdup(slot, item->value, ctx->name,
		    ctx->err) != 0)
			return -1;
	}
	return 0;
}

static const char *const role_names[] = { "pack", "index" };
static const unsigned role_bits[] = { PS_ROLE_PACK, PS_ROLE_INDEX };
#define ROLE_COUNT (sizeof(role_bits) / sizeof(role_bits[0]))
#define ROLES_TEXT_MAX 32

/* "[pack, index]": the roles in the order of role_names. */
static void
roles_text(unsigned roles, char *out, size_t size)
{
	size_t i, used = 0;

	used += (size_t)snprintf(out, size, "[");
	for (i = 0; i < ROLE_COUNT && used < size; i++) {
		if ((roles & role_bits[i]) != 0)
			used += (size_t)snprintf(out + used, size - used, "%s%s",
			    used > 1 ? ", " : "", role_names[i]);
	}
	if (used < size)
		snprintf(out + used, size - used, "]");
}

/* One item of `roles:`: its PS_ROLE_* bit, or 0 after an error. */
static unsigned
parse_role(keys_trust_ctx *ctx, const util_yaml_node *item, unsigned seen)
{
	size_t i;

	if (item->kind != UTIL_YAML_SCALAR || item->type != UTIL_YAML_STRING) {
		keys_trust_at(ctx, item, "trust_role", "a role must be the "
		    "string pack or index, found %s", util_yaml_describe(item));
		return 0;
	}
	for (i = 0; i < ROLE_COUNT; i++) {
		if (strcmp(item->value, role_names[i]) != 0)
			continue;
		if ((seen & role_bits[i]) == 0)
			return role_bits[i];
		keys_trust_at(ctx, item, "trust_role", "role '%s' is listed "
		    "twice", role_names[i]);
		return 0;
	}
	keys_trust_at(ctx, item, "trust_role", "unknown role '%.64s': a role "
	    "is pack or index", item->value);
	return 0;
}

/* `roles:`, absent meaning [pack]. */
static int
parse_roles(keys_trust_ctx *ctx, const util_yaml_node *list,
    ps_trust_signer *signer)
{
	unsigned bit;
	size_t i;

	signer->roles = PS_ROLE_PACK;
	if (list == NULL)
		return 0;
	if (list->kind != UTIL_YAML_SEQUENCE)
		return keys_trust_at(ctx, list, "trust_role", "'roles' must "
		    "be a list of pack and index, found %s",
		    util_yaml_describe(list));
	if (list->count == 0)
		return keys_trust_at(ctx, list, "trust_role", "'roles' must "
		    "list at least one role (pack, index); leave it out for "
		    "[pack]");
	signer->roles = 0;
	for (i = 0; i < list->count; i++) {
		bit = parse_role(ctx, list->items[i], signer->roles);
		if (bit == 0)
			return -1;
		signer->roles |= bit;
	}
	return 0;
}

/* `min_index_version:` digits only, 1 to 2^63-1, index role only. */
static int
parse_min_index_version(keys_trust_ctx *ctx, const util_yaml_node *node,
    ps_trust_signer *signer)
{
	char roles[ROLES_TEXT_MAX];
	long long n;

	if (node == NULL)
		return 0;
	if (node->kind != UTIL_YAML_SCALAR || node->type != UTIL_YAML_INT ||
	    strspn(node->value, "0123456789") != node->length ||
	    util_yaml_int(node, &n) != 0 || n < 1 ||
	    (unsigned long long)n > PS_INDEX_VERSION_MAX)
		return keys_trust_at(ctx, node, "trust_type",
		    "'min_index_version' must be a whole number from 1 to "
		    "9007199254740991 (2^53 - 1, the highest index version) "
		    "written in digits, found '%.64s'",
		    node->kind == UTIL_YAML_SCALAR ? node->value :
		    util_yaml_describe(node));
	if ((signer->roles & PS_ROLE_INDEX) == 0) {
		roles_text(signer->roles, roles, sizeof(roles));
		return keys_trust_at(ctx, node, "trust_role",
		    "'min_index_version' is the floor of index versions, but "
		    "identity '%s' has roles %s: add index to its roles or "
		    "leave the field out", signer->identity, roles);
	}
	signer->min_index_version = (uint64_t)n;
	return 0;
}

static int
parse_identity(keys_trust_ctx *ctx, const util_yaml_node *map,
    ps_trust_signer *signer)
{
	const util_yaml_node *node = keys_trust_field(ctx, map, "identity",
	    "a signer");

	if (node == NULL || keys_trust_expect_kind(ctx, node,
	    UTIL_YAML_SCALAR, "'identity'") != 0)
		return -1;
	if (!ps_identity_valid(node->value))
		return keys_trust_at(ctx, node, "trust_identity", "identity "
		    "'%.64s' must be 1 to %d characters from A-Z a-z 0-9 . _ @ "
		    "+ : / -", node->value, PS_IDENTITY_MAX);
	if (ps_trust_find_signer(ctx->policy, node->value) != NULL)
		return keys_trust_at(ctx, node, "trust_duplicate_identity",
		    "identity '%s' is listed twice; list all its keys under "
		    "one entry", node->value);
	return util_strdup(&signer->identity, node->value, ctx->name,
	    ctx->err);
}

/* `keys:`, `keyless:` or both; at least one of them. */
static int
parse_signer_material(keys_trust_ctx *ctx, const util_yaml_node *map,
    ps_trust_signer *signer)
{
	const util_yaml_node *keys = util_yaml_get(map, "keys");
	const util_yaml_node *keyless = util_yaml_get(map, "keyless");

	if (keys == NULL && keyless == NULL)
		return keys_trust_at(ctx, map, "trust_missing_field", "a signer "
		    "needs 'keys', 'keyless' or both (its public keys, its "
		    "keyless certificate identities)");
	if (keys != NULL && parse_signer_keys(ctx, keys, signer) != 0)
		return -1;
	return keyless != NULL ? keys_keyless_parse(ctx, keyless, signer) : 0;
}

static int
parse_signer(keys_trust_ctx *ctx, const util_yaml_node *map,
    ps_trust_signer *signer)
{
	static const char *const fields[] = { "identity", "keys", "keyless",
	    "packs", "first_party", "may", "roles", "min_index_version",
	    NULL };
	const util_yaml_node *node;

	signer->line = map->line;
	signer->column = map->column;
	if (keys_trust_expect_kind(ctx, map, UTIL_YAML_MAPPING,
	    "a signer") != 0 ||
	    keys_trust_only_fields(ctx, map, "a signer", fields) != 0 ||
	    parse_identity(ctx, map, signer) != 0 ||
	    parse_signer_material(ctx, map, signer) != 0 ||
	    (node = keys_trust_field(ctx, map, "packs", "a signer")) == NULL ||
	    parse_packs(ctx, node, signer) != 0 ||
	    parse_roles(ctx, util_yaml_get(map, "roles"), signer) != 0 ||
	    keys_keyless_check_roles(ctx, map, signer) != 0 ||
	    parse_min_index_version(ctx, util_yaml_get(map,
	    "min_index_version"), signer) != 0)
		return -1;
	node = util_yaml_get(map, "first_party");
	if (node != NULL && util_yaml_bool(node, &signer->first_party) != 0)
		return keys_trust_at(ctx, node, "trust_type",
		    "'first_party' must be true or false, found %s",
		    util_yaml_describe(node));
	node = util_yaml_get(map, "may");
	return node != NULL ? keys_may_parse(ctx, node, signer) : 0;
}

static int
parse_signers(keys_trust_ctx *ctx, const util_yaml_node *list)
{
	ps_trust *policy = ctx->policy;
	ps_trust_signer *signer;
	size_t i;

	if (keys_trust_expect_kind(ctx, list, UTIL_YAML_SEQUENCE,
	    "'signers'") != 0)
		return -1;
	if (list->count == 0)
		return keys_trust_at(ctx, list, "trust_missing_field",
		    "'signers' must list at least one signer");
	for (i = 0; i < list->count; i++) {
		signer = keys_trust_grow(ctx, (void **)&policy->signers,
		    &policy->signer_count, sizeof(*signer));
		if (signer == NULL ||
		    parse_signer(ctx, list->items[i], signer) != 0)
			return -1;
	}
	return 0;
}

/* C0, DEL and C1 (as UTF-8): nothing that could drive a terminal. */
static int
has_control_chars(const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p < 0x20 || *p == 0x7f ||
		    (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			return 1;
	}
	return 0;
}

static int
parse_revoked_item(keys_trust_ctx *ctx, const util_yaml_node *map,
    ps_trust_revoked *rev)
{
	static const char *const fields[] = { "key", "reason", "since", NULL };
	const util_yaml_node *node;

	rev->since = PS_TIME_NONE_BEFORE;
	if (keys_trust_expect_kind(ctx, map, UTIL_YAML_MAPPING,
	    "a 'revoked' item") != 0 ||
	    keys_trust_only_fields(ctx, map, "a revoked key", fields) != 0 ||
	    (node = keys_trust_field(ctx, map, "key",
	    "a revoked key")) == NULL ||
	    parse_key(ctx, node, &rev->key) != 0 ||
	    keys_trust_time(ctx, map, "since", &rev->since) != 0)
		return -1;
	node = util_yaml_get(map, "reason");
	if (node == NULL)
		return 0;
	if (keys_trust_expect_kind(ctx, node, UTIL_YAML_SCALAR,
	    "'reason'") != 0)
		return -1;
	if (node->length > REASON_MAX)
		return keys_trust_at(ctx, node, "trust_type",
		    "'reason' is longer than %d bytes", REASON_MAX);
	if (has_control_chars(node->value))
		return keys_trust_at(ctx, node, "trust_type",
		    "'reason' holds a control character; it is printed in "
		    "refusals and must be plain text");
	return util_strdup(&rev->reason, node->value, ctx->name, ctx->err);
}

static int
parse_revoked(keys_trust_ctx *ctx, const util_yaml_node *list)
{
	ps_trust *policy = ctx->policy;
	ps_trust_revoked *rev;
	size_t i;

	if (list == NULL)
		return 0;
	if (keys_trust_expect_kind(ctx, list, UTIL_YAML_SEQUENCE,
	    "'revoked'") != 0)
		return -1;
	for (i = 0; i < list->count; i++) {
		rev = keys_trust_grow(ctx, (void **)&policy->revoked,
		    &policy->revoked_count, sizeof(*rev));
		if (rev == NULL ||
		    parse_revoked_item(ctx, list->items[i], rev) != 0)
			return -1;
	}
	return 0;
}

static int
parse_version(keys_trust_ctx *ctx, const util_yaml_node *root)
{
	const util_yaml_node *node = keys_trust_field(ctx, root, "version",
	    "the policy");
	long long version;

	if (node == NULL)
		return -1;
	if (util_yaml_int(node, &version) != 0 || version != 1) {
		keys_trust_at(ctx, node, "trust_version",
		    "unsupported policy version");
		return util_error_expect(ctx->err, "1", node->kind ==
		    UTIL_YAML_SCALAR ? node->value : util_yaml_describe(node));
	}
	return 0;
}

static int
parse_threshold(keys_trust_ctx *ctx, const util_yaml_node *root)
{
	const util_yaml_node *node = util_yaml_get(root, "threshold");
	long long n;

	ctx->policy->threshold = 1;
	if (node == NULL)
		return 0;
	if (util_yaml_int(node, &n) != 0 || n < 1)
		return keys_trust_at(ctx, node, "trust_threshold",
		    "'threshold' must be a whole number of identities, at "
		    "least 1");
	if ((unsigned long long)n > ctx->policy->signer_count)
		return keys_trust_at(ctx, node, "trust_threshold",
		    "'threshold' %lld can never be met: the policy lists %zu "
		    "identities", n,
		    ctx->policy->signer_count);
	ctx->policy->threshold = (unsigned)n;
	return 0;
}

static int
parse_root(keys_trust_ctx *ctx, const util_yaml_node *root)
{
	static const char *const fields[] = { "version", "signers", "revoked",
	    "threshold", "consent", "trusted_roots", NULL };
	const util_yaml_node *node;

	if (root == NULL)
		return keys_trust_at(ctx, NULL, "trust_missing_field",
		    "the policy is empty; it needs 'version' and 'signers'");
	if (keys_trust_expect_kind(ctx, root, UTIL_YAML_MAPPING,
	    "the policy") != 0 ||
	    parse_version(ctx, root) != 0 ||
	    keys_trust_only_fields(ctx, root, "the policy", fields) != 0 ||
	    (node = keys_trust_field(ctx, root, "signers",
	    "the policy")) == NULL ||
	    parse_signers(ctx, node) != 0 ||
	    keys_keyless_check_overlap(ctx) != 0 ||
	    ((node = util_yaml_get(root, "trusted_roots")) != NULL &&
	    keys_keyless_parse_roots(ctx, node, &ctx->policy->trusted_roots,
	    &ctx->policy->trusted_root_count) != 0) ||
	    parse_revoked(ctx, util_yaml_get(root, "revoked")) != 0 ||
	    keys_may_parse_consent(ctx, util_yaml_get(root, "consent")) != 0)
		return -1;
	return parse_threshold(ctx, root);
}

void
ps_trust_free(ps_trust *policy)
{
	ps_trust_signer *s;
	size_t i, j;

	if (policy == NULL)
		return;
	for (i = 0; i < policy->signer_count; i++) {
		s = &policy->signers[i];
		for (j = 0; j < s->key_count; j++)
			ps_pubkey_free(s->keys[j].key);
		for (j = 0; j < s->pack_count; j++)
			free(s->packs[j]);
		free(s->keys);
		free(s->packs);
		free(s->identity);
		keys_may_free(s->may);
		keys_keyless_free(s->keyless, s->keyless_count);
	}
	keys_keyless_free_roots(policy->trusted_roots,
	    policy->trusted_root_count);
	for (i = 0; i < policy->revoked_count; i++) {
		ps_pubkey_free(policy->revoked[i].key);
		free(policy->revoked[i].reason);
	}
	free(policy->signers);
	free(policy->revoked);
	free(policy->name);
	free(policy);
}

static ps_trust *
trust_alloc(const char *name, ps_error *err)
{
	ps_trust *policy = calloc(1, sizeof(*policy));

	if (policy != NULL && (policy->name = strdup(name)) != NULL)
		return policy;
	free(policy);
	util_fail_oom(err, name);
	return NULL;
}

static int
finish_load(util_yaml_doc *doc, const char *name, ps_trust **out,
    ps_error *err)
{
	keys_trust_ctx ctx;

	ctx.name = name;
	ctx.err = err;
	ctx.policy = trust_alloc(name, err);
	if (ctx.policy == NULL || parse_root(&ctx, util_yaml_root(doc)) != 0) {
		ps_trust_free(ctx.policy);
		util_yaml_free(doc);
		return -1;
	}
	util_yaml_free(doc);
	*out = ctx.policy;
	return 0;
}

/* A policy the operator gave is broken: the job cannot be done (exit 2). */
static int
yaml_failed(ps_error *err)
{
	if (err != NULL)
		err->status = PS_STATUS_FAILED;
	return -1;
}

/* A policy file that does not load but reads as a public key (minisign,
 * OpenSSH, PEM) was given where a key file belongs: say so, instead of
 * the YAML error its second line makes. */
static int
public_key_given(const char *data, size_t len, const char *path,
    ps_error *err)
{
	ps_pubkey *key = NULL;
	ps_error ignored;

	if (err == NULL || ps_error_is(err, PS_CODE_NOT_FOUND) || (data != NULL ?
	    ps_pubkey_parse(data, len, path, &key, &ignored) :
	    ps_pubkey_load_file(path, &key, &ignored)) != 0)
		return -1;
	ps_pubkey_free(key);
	util_fail(err, "trust_public_key", path, "is a public key, not a trust "
	    "policy (trust this key alone with -p %s, ps_trust_from_pubkey; or "
	    "list it in a policy, under a signer's keys)", path);
	return util_error_expect(err, "a trust policy (YAML, version: 1)",
	    "a public key file");
}

int
ps_trust_load(const char *data, size_t len, const char *name,
    ps_trust **out, ps_error *err)
{
	util_yaml_doc *doc = NULL;

	int rc;

	*out = NULL;
	if (util_yaml_load(data, len, name, &doc, err) != 0)
		rc = yaml_failed(err);
	else
		rc = finish_load(doc, name, out, err);
	if (rc != 0)
		(void)public_key_given(data, len, name, err);
	return rc;
}

int
ps_trust_load_file(const char *path, ps_trust **out, ps_error *err)
{
	util_yaml_doc *doc = NULL;
	int rc;

	*out = NULL;
	if (util_yaml_load_file(path, path, &doc, err) != 0)
		rc = yaml_failed(err);
	else
		rc = finish_load(doc, path, out, err);
	if (rc != 0)
		(void)public_key_given(NULL, 0, path, err);
	return rc;
}

int
ps_trust_from_pubkey(const ps_pubkey *key, const char *name, ps_trust **out,
    ps_error *err)
{
	char hex[PS_KEY_ID_HEX_LEN + 1];
	ps_trust *policy;
	ps_trust_signer *s;

	*out = NULL;
	ps_key_id_hex(key->key_id, hex);
	if ((policy = trust_alloc(name, err)) == NULL)
		return -1;
	policy->threshold = 1;
	policy->consent = PS_CONSENT_DEFAULT;
	policy->one_key = 1;
	policy->signers = s = calloc(1, sizeof(*s));
	policy->signer_count = s != NULL;
	/* Counts follow allocations so that ps_trust_free() can clean up;
	 * the always-false count tests only sequence the assignments. */
	if (s == NULL || (s->keys = calloc(1, sizeof(*s->keys))) == NULL ||
	    (s->key_count = 1) != 1 || /* cppcheck-suppress knownConditionTrueFalse */
	    (s->packs = calloc(1, sizeof(*s->packs))) == NULL ||
	    /* cppcheck-suppress knownConditionTrueFalse */
	    (s->pack_count = 1) != 1 || (s->packs[0] = strdup("*")) == NULL ||
	    (s->identity = strdup(key->identity != NULL ? key->identity :
	    hex)) == NULL || ps_pubkey_copy(key, &s->keys[0].key, err) != 0) {
		ps_trust_free(policy);
		return util_fail_oom(err, name);
	}
	s->roles = PS_ROLE_PACK | PS_ROLE_INDEX;
	s->keys[0].not_before = PS_TIME_NONE_BEFORE;
	s->keys[0].not_after = PS_TIME_NONE_AFTER;
	*out = policy;
	return 0;
}

const ps_trust_signer *
ps_trust_find_signer(const ps_trust *policy, const char *identity)
{
	size_t i;

	for (i = 0; i < policy->signer_count; i++) {
		if (policy->signers[i].identity != NULL &&
		    strcmp(policy->signers[i].identity, identity) == 0)
			return &policy->signers[i];
	}
	return NULL;
}

/* "KEY ID (SHA256:...)" for messages. */
static void
describe_key(const ps_pubkey *key, char *out, size_t size)
{
	char hex[PS_KEY_ID_HEX_LEN + 1], fp[PS_FINGERPRINT_MAX] = "";

	ps_key_id_hex(key->key_id, hex);
	ps_pubkey_fingerprint(key, fp);
	snprintf(out, size, "%s (%s)", hex, fp);
}

static int
check_revoked(const ps_trust *policy, const ps_pubkey *key, int64_t now,
    const char *desc, ps_error *err)
{
	size_t i;

	for (i = 0; i < policy->revoked_count; i++) {
		/* a revocation with `since` applies from that second on */
		if (!ps_pubkey_equal(policy->revoked[i].key, key) ||
		    now < policy->revoked[i].since)
			continue;
		util_refuse(err, "key_revoked", policy->name, "key %s is "
		    "revoked (%s)", desc, policy->revoked[i].reason != NULL ?
		    policy->revoked[i].reason : "no reason given");
		return util_error_expect(err, "a key that is not revoked", desc);
	}
	return 0;
}

static int
check_window(const ps_trust *policy, const ps_trust_key *tk, int64_t now,
    const char *desc, ps_error *err)
{
	char bound[PS_TIME_TEXT_LEN] = "?", when[PS_TIME_TEXT_LEN] = "?";
	char text[2 * PS_TIME_TEXT_LEN];

	ps_time_format(now, when);
	snprintf(text, sizeof(text), "time %s", when);
	if (now < tk->not_before) {
		ps_time_format(tk->not_before, bound);
		util_refuse(err, "key_not_yet_valid", policy->name,
		    "key %s is not valid yet", desc);
		return util_error_expect(err, bound, text);
	}
	if (now > tk->not_after) {
		ps_time_format(tk->not_after, bound);
		util_refuse(err, "key_expired", policy->name, "key %s has "
		    "expired (no signing time is trusted)", desc);
		return util_error_expect(err, bound, text);
	}
	return 0;
}

static int
check_scope(const ps_trust *policy, const ps_trust_signer *signer,
    const char *pack_id, ps_error *err)
{
	char expected[PS_ERROR_VALUE_MAX] = "";
	size_t i, used = 0;

	for (i = 0; i < signer->pack_count; i++) {
		if (ps_glob_match(signer->packs[i], pack_id))
			return 0;
		if (used < sizeof(expected))
			used += (size_t)snprintf(expected + used,
			    sizeof(expected) - used, "%s%s", i > 0 ? " or " : "",
			    signer->packs[i]);
	}
	util_refuse(err, "pack_out_of_scope", policy->name, "identity '%s' may "
	    "not sign this pack", signer->identity);
	return util_error_expect(err, expected, pack_id);
}

/* role_missing unless the owning identity has `role`. */
static int
check_role(const ps_trust *policy, const ps_trust_signer *signer,
    unsigned role, const char *desc, ps_error *err)
{
	char roles[ROLES_TEXT_MAX];

	if ((signer->roles & role) != 0)
		return 0;
	roles_text(signer->roles, roles, sizeof(roles));
	util_refuse(err, PS_CODE_ROLE_MISSING, policy->name, "key %s belongs "
	    "to '%s', whose roles are %s: it may not sign %s", desc,
	    signer->identity, roles, role == PS_ROLE_PACK ? "packs" :
	    "an index");
	return util_error_expect(err, role == PS_ROLE_PACK ? "the pack role" :
	    "the index role", roles);
}

/* The lookup both kinds of signed object share: revocation, ownership,
 * window and `role`, in that order. */
static int
lookup_for_role(const ps_trust *policy, const ps_pubkey *key, int64_t now,
    unsigned role, const ps_trust_signer **signer, ps_error *err)
{
	const ps_trust_signer *owner;
	const ps_trust_key *tk = NULL;
	char desc[PS_KEY_ID_HEX_LEN + PS_FINGERPRINT_MAX + 8];

	*signer = NULL;
	describe_key(key, desc, sizeof(desc));
	if (check_revoked(policy, key, now, desc, err) != 0)
		return -1;
	owner = owner_of(policy, key, &tk);
	if (owner == NULL) {
		util_refuse(err, "key_untrusted", policy->name, "checked the "
		    "signing key against the policy's signers");
		return util_error_expect(err, "a key listed for an identity",
		    desc);
	}
	if (check_window(policy, tk, now, desc, err) != 0 ||
	    check_role(policy, owner, role, desc, err) != 0)
		return -1;
	*signer = owner;
	return 0;
}

int
ps_trust_lookup(const ps_trust *policy, const ps_pubkey *key,
    const char *pack_id, int64_t now, const ps_trust_signer **signer,
    ps_error *err)
{
	const ps_trust_signer *owner;

	*signer = NULL;
	if (pack_id == NULL)
		return util_fail(err, "usage", policy->name,
		    "a trust lookup needs the pack id");
	if (lookup_for_role(policy, key, now, PS_ROLE_PACK, &owner, err) != 0 ||
	    check_scope(policy, owner, pack_id, err) != 0)
		return -1;
	*signer = owner;
	return 0;
}

int
ps_trust_lookup_index(const ps_trust *policy, const ps_pubkey *key,
    int64_t now, const ps_trust_signer **signer, ps_error *err)
{
	return lookup_for_role(policy, key, now, PS_ROLE_INDEX, signer, err);
}
