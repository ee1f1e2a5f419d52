/* packsign trust check: validates a trust policy and prints what it says. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "cli/checks.h"
#include "cli/cli.h"
#include "cli/json.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/sigstore_report.h"
#include "cli/trust_may.h"

const struct cli_usage cmd_trust_usage = {
	.name = "trust",
	.text =
    "usage: packsign trust check [--trust FILE | -p KEY.pub]\n"
    "           [--sigstore | --trusted-root F] [--at TIME] [--json] [-q]\n"
    "\n"
    "Validates the trust policy FILE (docs/formats/trust-policy.md) and\n"
    "prints its consent classes, then, per identity, the packs it may sign,\n"
    "its roles (pack, index; and min_index_version when set), its\n"
    "permission ceiling (each format's block with every key, what it leaves\n"
    "out shown denied; or 'no ceiling'), its keys (key ids and\n"
    "fingerprints), each key's window and its status at TIME, its keyless\n"
    "entries (issuer, subject and every constraint, trusted roots), then\n"
    "the revoked keys and the policy's trusted_roots; a GitHub keyless\n"
    "entry without repository_id draws a warning on stderr.  Any error in the policy is reported as FILE:LINE:COL,\n"
    "exit 2.  With --sigstore or --trusted-root it also prints the Sigstore\n"
    "trusted root that verify-blob and verify --bundle use: the compiled-in\n"
    "public-good root (its source and date) or F, and every certificate\n"
    "authority, transparency log, CT log and timestamp authority in it with\n"
    "its validity (docs/formats/sigstore.md).\n"
    "\n"
    "  --trust FILE   the policy\n"
    "  -p KEY.pub     the one-key policy that -p means elsewhere: trust\n"
    "                 exactly this key for every pack, as the identity in its\n"
    "                 comment ('... for <ID>') or else as its key id\n"
    "  --sigstore     show the compiled-in Sigstore trusted root\n"
    "  --trusted-root F\n"
    "                 show the Sigstore trusted root F (trusted_root.json, or\n"
    "                 JSON Lines of several) instead\n"
    "  --at TIME      judge windows at TIME (YYYY-MM-DDTHH:MM:SSZ) instead\n"
    "                 of now\n"
    "  --json         print one JSON object\n"
    "  -q, --quiet    print nothing: the exit status says whether the\n"
    "                 policy (and the trusted root) is valid\n",
};

struct trust_args {
	const char *policy;
	const char *pubkey;
	const char *trusted_root;
	int sigstore;
	int64_t now;
	int json, quiet;
};

/* The subcommands: check alone, for now. */
static const char *const trust_subs[] = { "check" };

static int
parse_trust(int argc, char **argv, struct trust_args *a)
{
	const struct cli_option options[] = {
		CLI_STRING(0, "trust", &a->policy),
		CLI_CALLBACK(0, "at", &a->now, cli_parse_time),
		CLI_FLAG(0, "json", &a->json),
		CLI_FLAG('q', "quiet", &a->quiet),
		CLI_STRING('p', NULL, &a->pubkey),
		CLI_FLAG(0, "sigstore", &a->sigstore),
		CLI_STRING(0, "trusted-root", &a->trusted_root),
		CLI_END
	};
	struct cli_operands rest;
	size_t sub;
	int rc;

	memset(a, 0, sizeof(*a));
	a->now = (int64_t)time(NULL);
	rc = cli_parse_subcommand(&cmd_trust_usage, argc, argv, trust_subs,
	    sizeof(trust_subs) / sizeof(trust_subs[0]), &sub);
	if (rc == EXIT_OK)
		rc = cli_parse_options(&cmd_trust_usage, options, argc - 1,
		    argv + 1, &rest);
	if (rc != EXIT_OK)
		return rc;
	if (rest.count != 0)
		return cli_usage_error(&cmd_trust_usage, "unexpected argument "
		    "'%s'", rest.argv[0]);
	if (a->policy != NULL && a->pubkey != NULL)
		return cli_usage_error(&cmd_trust_usage,
		    "give one of --trust FILE and -p KEY.pub");
	if (a->sigstore && a->trusted_root != NULL)
		return cli_usage_error(&cmd_trust_usage,
		    "--sigstore shows the compiled-in root, --trusted-root F another");
	a->sigstore |= a->trusted_root != NULL;
	if (a->policy == NULL && a->pubkey == NULL && !a->sigstore)
		return cli_usage_error(&cmd_trust_usage, "give --trust FILE, "
		    "-p KEY.pub, --sigstore or --trusted-root F");
	return EXIT_OK;
}

static json_t *
time_json(int64_t t, int64_t none)
{
	char text[PS_TIME_TEXT_LEN];

	if (t == none || ps_time_format(t, text) != 0)
		return json_null();
	return json_string(text);
}

/* Revoked at `now`: a revocation with `since` applies from then on. */
static int
is_revoked(const ps_trust *policy, const ps_pubkey *key, int64_t now)
{
	size_t i;

	for (i = 0; i < policy->revoked_count; i++) {
		if (ps_pubkey_equal(policy->revoked[i].key, key) &&
		    now >= policy->revoked[i].since)
			return 1;
	}
	return 0;
}

static const char *
key_status(const ps_trust *policy, const ps_trust_key *tk, int64_t now)
{
	if (is_revoked(policy, tk->key, now))
		return "revoked";
	if (now < tk->not_before)
		return "not_yet_valid";
	if (now > tk->not_after)
		return "expired";
	return "valid";
}

static json_t *
key_json(const ps_pubkey *key)
{
	char hex[PS_KEY_ID_HEX_LEN + 1], fp[PS_FINGERPRINT_MAX] = "";

	ps_key_id_hex(key->key_id, hex);
	ps_pubkey_fingerprint(key, fp);
	return json_pack("{s:s,s:s,s:s,s:s}", "key_id", hex, "fingerprint", fp,
	    "format", ps_key_source_name(key->source), "algorithm",
	    ps_key_algorithm_name(key->alg));
}

/* ["pack", "index"]: the PS_ROLE_* bits by name. */
static json_t *
roles_json(unsigned roles)
{
	json_t *list = json_array();

	if ((roles & PS_ROLE_PACK) != 0)
		json_array_append_new(list, json_string("pack"));
	if ((roles & PS_ROLE_INDEX) != 0)
		json_array_append_new(list, json_string("index"));
	return list;
}

static json_t *
strings_json(char *const *items, size_t count)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; i < count; i++)
		json_array_append_new(list, json_string(items[i]));
	return list;
}

/* A keyless entry: every constraint by its policy name, null when absent. */
static json_t *
keyless_json(const ps_trust_keyless *e)
{
	const struct { const char *name; const char *value; } f[] = {
		{ "issuer", e->issuer }, { "subject", e->subject },
		{ "repository", e->repository },
		{ "repository_id", e->repository_id },
		{ "owner_id", e->owner_id }, { "ref", e->ref },
		{ "signer_workflow", e->signer_workflow },
		{ "config_workflow", e->config_workflow },
		{ "trigger", e->trigger }, { "runner", e->runner },
	};
	json_t *out = json_object();
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		json_object_set_new(out, f[i].name, f[i].value != NULL ?
		    json_string(f[i].value) : json_null());
	json_object_set_new(out, "not_before", time_json(e->not_before,
	    PS_TIME_NONE_BEFORE));
	json_object_set_new(out, "not_after", time_json(e->not_after,
	    PS_TIME_NONE_AFTER));
	json_object_set_new(out, "trusted_roots", e->trusted_root_count > 0 ?
	    strings_json(e->trusted_roots, e->trusted_root_count) :
	    json_null());
	return out;
}

static json_t *
signer_keyless_json(const ps_trust_signer *s)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; i < s->keyless_count; i++)
		json_array_append_new(list, keyless_json(&s->keyless[i]));
	return list;
}

static json_t *
signer_json(const ps_trust *policy, const ps_trust_signer *s, int64_t now)
{
	json_t *keys = json_array(), *packs = json_array(), *k, *out;
	size_t i;

	for (i = 0; i < s->pack_count; i++)
		json_array_append_new(packs, json_string(s->packs[i]));
	for (i = 0; i < s->key_count; i++) {
		k = key_json(s->keys[i].key);
		json_object_set_new(k, "not_before", time_json(
		    s->keys[i].not_before, PS_TIME_NONE_BEFORE));
		json_object_set_new(k, "not_after", time_json(
		    s->keys[i].not_after, PS_TIME_NONE_AFTER));
		json_object_set_new(k, "status", json_string(key_status(policy,
		    &s->keys[i], now)));
		json_array_append_new(keys, k);
	}
	out = json_pack("{s:s,s:b,s:o,s:o,s:o,s:o}", "identity", s->identity,
	    "first_party", s->first_party, "packs", packs, "roles",
	    roles_json(s->roles), "may", cli_may_json(s->may), "keys", keys);
	json_object_set_new(out, "min_index_version",
	    s->min_index_version != 0 ?
	    json_integer((json_int_t)s->min_index_version) : json_null());
	json_object_set_new(out, "keyless", signer_keyless_json(s));
	return out;
}

static json_t *
policy_json(const ps_trust *policy, int64_t now)
{
	json_t *signers = json_array(), *revoked = json_array(), *k;
	size_t i;

	for (i = 0; i < policy->signer_count; i++)
		json_array_append_new(signers, signer_json(policy,
		    &policy->signers[i], now));
	for (i = 0; i < policy->revoked_count; i++) {
		k = key_json(policy->revoked[i].key);
		json_object_set_new(k, "reason", policy->revoked[i].reason !=
		    NULL ? json_string(policy->revoked[i].reason) : json_null());
		json_object_set_new(k, "since", time_json(policy->revoked[i].since,
		    PS_TIME_NONE_BEFORE));
		json_array_append_new(revoked, k);
	}
	return json_pack("{s:s,s:i,s:o,s:I,s:o,s:o,s:o,s:o}", "policy",
	    policy->name, "version", 1, "at", time_json(now,
	    PS_TIME_NONE_BEFORE), "threshold", (json_int_t)policy->threshold,
	    "consent", cli_consent_json(policy->consent), "signers", signers,
	    "revoked", revoked, "trusted_roots", policy->trusted_root_count > 0 ?
	    strings_json(policy->trusted_roots, policy->trusted_root_count) :
	    json_null());
}

static const char *
text_or(const json_t *v, const char *fallback)
{
	return json_is_string(v) ? json_string_value(v) : fallback;
}

static void
print_key(const json_t *k)
{
	printf("  key %s %s (%s)\n", text_or(json_object_get(k, "key_id"), "?"),
	    text_or(json_object_get(k, "fingerprint"), "?"),
	    text_or(json_object_get(k, "format"), "?"));
	if (json_object_get(k, "status") == NULL)
		return;
	printf("      window %s .. %s: %s\n",
	    text_or(json_object_get(k, "not_before"), "(open)"),
	    text_or(json_object_get(k, "not_after"), "(open)"),
	    text_or(json_object_get(k, "status"), "?"));
}

/* "  keyless ISSUER", then one line per constraint it sets. */
static void
print_keyless(const json_t *e)
{
	const char *name;
	json_t *v, *r;
	size_t i;

	printf("  keyless issuer %s\n", text_or(json_object_get(e, "issuer"),
	    "?"));
	json_object_foreach((json_t *)e, name, v) {
		if (json_is_string(v) && strcmp(name, "issuer") != 0 &&
		    strncmp(name, "not_", 4) != 0)
			printf("      %s %s\n", name, json_string_value(v));
	}
	if (json_is_string(json_object_get(e, "not_before")) ||
	    json_is_string(json_object_get(e, "not_after")))
		printf("      window %s .. %s\n",
		    text_or(json_object_get(e, "not_before"), "(open)"),
		    text_or(json_object_get(e, "not_after"), "(open)"));
	printf("      trusted_roots:");
	json_array_foreach(json_object_get(e, "trusted_roots"), i, r)
		printf("%s %s", i > 0 ? "," : "", json_string_value(r));
	printf("%s\n", json_is_array(json_object_get(e, "trusted_roots")) ?
	    "" : " (the policy's)");
}

static void
print_signer(const json_t *s)
{
	const json_t *packs = json_object_get(s, "packs");
	size_t i;
	json_t *v;

	printf("identity %s%s\n", text_or(json_object_get(s, "identity"), "?"),
	    json_is_true(json_object_get(s, "first_party")) ?
	    " (first party)" : "");
	printf("  packs:");
	json_array_foreach(packs, i, v)
		printf("%s %s", i > 0 ? "," : "", json_string_value(v));
	printf("\n  roles:");
	json_array_foreach(json_object_get(s, "roles"), i, v)
		printf("%s %s", i > 0 ? "," : "", json_string_value(v));
	printf("\n");
	if (json_is_integer(json_object_get(s, "min_index_version")))
		printf("  min_index_version: %lld\n",
		    (long long)json_integer_value(json_object_get(s,
		    "min_index_version")));
	cli_print_may(json_object_get(s, "may"));
	json_array_foreach(json_object_get(s, "keys"), i, v)
		print_key(v);
	json_array_foreach(json_object_get(s, "keyless"), i, v)
		print_keyless(v);
}

static void
print_policy(const json_t *p)
{
	size_t i;
	json_t *v;

	fputs("policy ", stdout);
	cli_put_safe(stdout, text_or(json_object_get(p, "policy"), "?"));
	printf(": valid (version 1, threshold %lld, at %s)\n",
	    (long long)json_integer_value(json_object_get(p, "threshold")),
	    text_or(json_object_get(p, "at"), "?"));
	printf("consent:");
	json_array_foreach(json_object_get(p, "consent"), i, v)
		printf("%s %s", i > 0 ? "," : "", json_string_value(v));
	printf("%s\n", json_array_size(json_object_get(p, "consent")) == 0 ?
	    " none" : "");
	json_array_foreach(json_object_get(p, "signers"), i, v)
		print_signer(v);
	if (json_array_size(json_object_get(p, "revoked")) > 0)
		printf("revoked\n");
	json_array_foreach(json_object_get(p, "revoked"), i, v) {
		print_key(v);
		printf("      reason: %s\n", text_or(json_object_get(v,
		    "reason"), "(none given)"));
	}
	if (json_is_array(json_object_get(p, "trusted_roots"))) {
		printf("trusted_roots:");
		json_array_foreach(json_object_get(p, "trusted_roots"), i, v)
			printf("%s %s", i > 0 ? "," : "", json_string_value(v));
		printf("\n");
	}
}

/* Each warning on stderr, "packsign: warning: FILE:LINE:COL: ... [CODE]". */
static void
print_warnings(const ps_diags *warnings)
{
	const ps_diag *d;
	size_t i;

	for (i = 0; i < warnings->count; i++) {
		d = &warnings->items[i];
		fputs("packsign: warning: ", stderr);
		cli_put_safe(stderr, d->file);
		fprintf(stderr, ":%u:%u: ", d->line, d->column);
		cli_put_safe(stderr, d->message);
		fprintf(stderr, " [%s]\n", d->code);
	}
}

static int
load_sigstore_root(const struct trust_args *a, ps_sigstore_root **root)
{
	ps_error err;
	int rc;

	*root = NULL;
	if (!a->sigstore)
		return EXIT_OK;
	rc = a->trusted_root != NULL ? ps_sigstore_root_load(a->trusted_root,
	    root, &err) : ps_sigstore_root_public_good(root, &err);
	return rc == 0 ? EXIT_OK : cli_report(&err);
}

/* trust check: the policy, and the Sigstore root, as text or JSON. */
static int
run_trust(struct trust_args *a)
{
	ps_sigstore_root *root = NULL;
	ps_trust *policy = NULL;
	json_t *report = NULL;
	ps_diags warnings;
	ps_error err;
	int rc = EXIT_OK;

	if ((a->policy != NULL || a->pubkey != NULL) &&
	    cli_load_policy(a->policy, a->pubkey, &policy, &err) != 0)
		return cli_report(&err);
	if (load_sigstore_root(a, &root) != EXIT_OK) {
		ps_trust_free(policy);
		return EXIT_FAILED;
	}
	ps_diags_init(&warnings);
	if (policy != NULL && ps_trust_warnings(policy, &warnings, &err) != 0) {
		ps_trust_free(policy);
		ps_sigstore_root_free(root);
		return cli_report(&err);
	}
	report = policy != NULL ? policy_json(policy, a->now) : json_object();
	if (policy != NULL)
		json_object_set_new(report, "warnings",
		    cli_json_diags(&warnings));
	if (root != NULL)
		json_object_set_new(report, "sigstore_trusted_root",
		    cli_sigstore_root_json(root));
	if (a->json)
		rc = cli_print_json(report);
	else if (policy != NULL && !a->quiet)
		print_policy(report);
	if (!a->json && !a->quiet)
		print_warnings(&warnings);
	ps_diags_free(&warnings);
	if (!a->json && !a->quiet && root != NULL)
		cli_sigstore_root_print(stdout, root);
	json_decref(report);
	ps_trust_free(policy);
	ps_sigstore_root_free(root);
	return rc;
}

int
cmd_trust(int argc, char **argv)
{
	struct trust_args a;
	int rc;

	rc = parse_trust(argc, argv, &a);
	if (rc != EXIT_OK)
		return rc == CLI_HELP ? EXIT_OK : rc;
	return run_trust(&a);
}
