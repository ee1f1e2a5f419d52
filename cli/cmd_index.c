/* packsign index: publish a signed pack index (build, yank, remove,
 * refresh) and verify one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "cli/checks.h"
#include "cli/cli.h"
#include "cli/download_options.h"
#include "cli/index_source.h"
#include "cli/json.h"
#include "cli/key_files.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/secrets.h"

const struct cli_usage cmd_index_usage = {
	.name = "index",
	.text =
    "usage: packsign index build ARCHIVE... -o INDEX -s KEY [--previous OLD]\n"
    "                 [--base-url URL] [--url-prefix PREFIX] [--identity ID]\n"
    "                 [--trust POLICY | -p KEY.pub] [--expires DURATION]\n"
    "                 [--bundle FILE]... (with one ARCHIVE)\n"
    "                 [--at TIME] [--passphrase-file F | --passphrase-fd N]\n"
    "       packsign index yank INDEX ID@VERSION --reason TEXT -o OUT -s KEY\n"
    "       packsign index remove INDEX ID@VERSION -o OUT -s KEY\n"
    "       packsign index refresh INDEX -o OUT -s KEY\n"
    "                 (yank, remove, refresh: also --expires, --at,\n"
    "                 --identity and the passphrase options)\n"
    "       packsign index verify INDEX|URL (--trust POLICY | -p KEY.pub)\n"
    "                 [--at TIME] [--record] [--require-index-state]\n"
    "                 [--data-dir DIR] [--json] " CLI_DOWNLOAD_USAGE "\n"
    "       (every subcommand: [-q])\n"
    "\n"
    "A signed pack index (docs/formats/index.md) lists, per pack id and\n"
    "version, where its archive is, its SHA-256 and size, its tree digest,\n"
    "its signers' key fingerprints and when it was published, and whether\n"
    "it was yanked; it has a version, an expiry and a publisher, the\n"
    "identity of the key that signs it.  Every command that writes one\n"
    "makes a new version: build (ARCHIVE... verified with --trust or -p,\n"
    "default the index key, and added or replaced; --previous is verified\n"
    "with -s's public key and carried forward), yank (the version stays\n"
    "listed, marked, and is not installed), remove, refresh (new version\n"
    "and expiry, same entries).  The same inputs and time give the same\n"
    "bytes.  verify checks the signature (a key with the index role),\n"
    "publisher, scope, expiry and the data directory's state of that\n"
    "publisher: an older version than seen is index_rollback, the same\n"
    "version with other bytes index_equivocation; --record stores it.\n"
    "\n"
    "  -o OUT               the new index (replaced atomically)\n"
    "  -s, --secret-key KEY the index key (minisign secret key); default\n"
    "                       $PACKSIGN_SECRET_KEY (the key's text)\n"
    "  --identity ID        the publisher (default: the identity in NAME.pub\n"
    "                       beside NAME.key)\n"
    "  --previous OLD       the index this one follows (build)\n"
    "  --base-url URL       https URL ending in '/' that relative archive\n"
    "                       URLs are appended to (kept from --previous)\n"
    "  --url-prefix PREFIX  new entries' URL: PREFIX + the file name\n"
    "                       (an https URL or a relative path ending in '/')\n"
    "  --bundle FILE        build: a Sigstore bundle (keyless or key-based)\n"
    "                       that verifies the one ARCHIVE instead of its\n"
    "                       .sig; listed as PREFIX + its file name\n"
    "                       (repeatable, at most 8)\n"
    "  --expires DURATION   ISO 8601, from now (default P30D)\n"
    "  --at TIME            now (YYYY-MM-DDTHH:MM:SSZ); default\n"
    "                       $SOURCE_DATE_EPOCH, else the clock\n"
    "  --reason TEXT        why a version is yanked (printable ASCII and\n"
    "                       spaces, at most 1024 bytes)\n"
    "  --trust POLICY, -p KEY.pub\n"
    "                       build: whose pack signatures count (default: the\n"
    "                       index key's); verify: who may sign an index\n"
    "  --record             verify: store this index as seen\n"
    "  --require-index-state\n"
    "                       verify: refuse when nothing was seen of the\n"
    "                       publisher and the policy gives no floor\n"
    "  --data-dir DIR       the data directory whose state is used\n"
    "  --json               verify: print one JSON object\n"
    CLI_QUIET_HELP
    CLI_DOWNLOAD_FLAGS_HELP
    "\n"
    "Exit status: 0 written or verified, 1 refused (signature, role, scope,\n"
    "expired, rollback, an archive that does not verify), 2 the job could\n"
    "not be done (usage, I/O, a download, a damaged state file).\n",
};

enum index_sub { SUB_BUILD, SUB_YANK, SUB_REMOVE, SUB_REFRESH, SUB_VERIFY };
static const char *const index_subs[] = { "build", "yank", "remove",
    "refresh", "verify" };

struct index_args {
	enum index_sub sub;
	const char *out, *key, *identity, *previous, *base_url, *url_prefix;
	const char *expires, *reason, *policy, *pubkey, *data_dir;
	int64_t at;
	int record, require_state, json, quiet;
	struct cli_passphrase_opts pass;
	ps_fetch_options fetch;
	const char *bundles[PS_INDEX_MAX_BUNDLES];
	size_t bundle_count;
	char **operands;
	int operand_count;
};

/* Operands each subcommand takes: build one or more archives, verify and
 * refresh one index, yank and remove an index and ID@VERSION. */
static int
check_operands(const struct index_args *a)
{
	static const int wanted[] = { -1, 2, 2, 1, 1 };
	int n = wanted[a->sub];

	if (n < 0 ? a->operand_count < 1 : a->operand_count != n)
		return cli_usage_error(&cmd_index_usage, "index %s takes %s",
		    index_subs[a->sub], n < 0 ? "ARCHIVE..." : n == 1 ?
		    "one INDEX" : "INDEX and ID@VERSION");
	if (a->bundle_count > 0 && a->operand_count != 1)
		return cli_usage_error(&cmd_index_usage, "index build --bundle "
		    "takes one ARCHIVE");
	if (a->sub == SUB_VERIFY) {
		if ((a->policy == NULL) == (a->pubkey == NULL))
			return cli_usage_error(&cmd_index_usage, "index verify "
			    "needs one of --trust POLICY and -p KEY.pub");
		return EXIT_OK;
	}
	if (a->out == NULL || (a->key == NULL &&
	    getenv("PACKSIGN_SECRET_KEY") == NULL))
		return cli_usage_error(&cmd_index_usage, "index %s needs -o OUT "
		    "and -s KEY (or the key's text in PACKSIGN_SECRET_KEY)",
		    index_subs[a->sub]);
	if (a->sub == SUB_YANK && a->reason == NULL)
		return cli_usage_error(&cmd_index_usage,
		    "index yank needs --reason TEXT");
	if (a->policy != NULL && a->pubkey != NULL)
		return cli_usage_error(&cmd_index_usage, "give one of --trust "
		    "POLICY and -p KEY.pub");
	return cli_check_passphrase_options(&cmd_index_usage, &a->pass, 0);
}

/* The options, as bits of what a subcommand takes. */
enum {
	O_OUT = 1 << 0, O_KEY = 1 << 1, O_IDENTITY = 1 << 2, O_PREVIOUS = 1 << 3,
	O_URLS = 1 << 4, O_EXPIRES = 1 << 5, O_REASON = 1 << 6,
	O_TRUST = 1 << 7, O_STATE = 1 << 8, O_AT = 1 << 9, O_JSON = 1 << 10,
	O_PASS = 1 << 11, O_DOWNLOAD = 1 << 12, O_QUIET = 1 << 13,
	O_BUNDLE = 1 << 14
};
#define O_WRITE (O_OUT | O_KEY | O_IDENTITY | O_EXPIRES | O_AT | O_PASS | \
    O_QUIET)

static const unsigned index_takes[] = {
	O_WRITE | O_PREVIOUS | O_URLS | O_TRUST |         /* build */
	    O_BUNDLE,
	O_WRITE | O_REASON,                               /* yank */
	O_WRITE, O_WRITE,                                 /* remove, refresh */
	O_TRUST | O_STATE | O_AT | O_JSON | O_DOWNLOAD |  /* verify */
	    O_QUIET,
};
#define INDEX_OPTIONS 22

static int
parse_bundle(const struct cli_usage *cmd, const struct cli_option *opt,
    const char *arg)
{
	struct index_args *a = opt->value;

	if (a->bundle_count >= PS_INDEX_MAX_BUNDLES)
		return cli_usage_error(cmd, "at most %d --bundle files",
		    PS_INDEX_MAX_BUNDLES);
	if (arg[0] == '\0')
		return cli_usage_error(cmd, "--bundle names a file");
	a->bundles[a->bundle_count++] = arg;
	return EXIT_OK;
}

/* Every option of index, those the subcommand does not take refused. */
static void
index_options(struct index_args *a, struct cli_option table[INDEX_OPTIONS + 1])
{
	const struct { unsigned bit; struct cli_option option; } all[] = {
		{ O_OUT, CLI_STRING('o', NULL, &a->out) },
		{ O_KEY, CLI_STRING('s', "secret-key", &a->key) },
		{ O_IDENTITY, CLI_STRING(0, "identity", &a->identity) },
		{ O_PREVIOUS, CLI_STRING(0, "previous", &a->previous) },
		{ O_URLS, CLI_STRING(0, "base-url", &a->base_url) },
		{ O_URLS, CLI_STRING(0, "url-prefix", &a->url_prefix) },
		{ O_EXPIRES, CLI_STRING(0, "expires", &a->expires) },
		{ O_REASON, CLI_STRING(0, "reason", &a->reason) },
		{ O_TRUST, CLI_STRING(0, "trust", &a->policy) },
		{ O_TRUST, CLI_STRING('p', NULL, &a->pubkey) },
		{ O_STATE, CLI_STRING(0, "data-dir", &a->data_dir) },
		{ O_STATE, CLI_FLAG(0, "record", &a->record) },
		{ O_STATE, CLI_FLAG(0, "require-index-state", &a->require_state) },
		{ O_AT, CLI_CALLBACK(0, "at", &a->at, cli_parse_time) },
		{ O_JSON, CLI_FLAG(0, "json", &a->json) },
		{ O_PASS, CLI_STRING(0, "passphrase-file", &a->pass.file) },
		{ O_PASS, CLI_STRING(0, "passphrase-fd", &a->pass.fd) },
		{ O_DOWNLOAD, CLI_STRING(0, "ca-file", &a->fetch.ca_file) },
		{ O_DOWNLOAD, CLI_CALLBACK(0, "max-download",
		    &a->fetch.max_download, cli_parse_limit) },
		{ O_DOWNLOAD, CLI_CALLBACK(0, "timeout", &a->fetch.timeout,
		    cli_parse_seconds) },
		{ O_QUIET, CLI_FLAG('q', "quiet", &a->quiet) },
		{ O_BUNDLE, CLI_CALLBACK(0, "bundle", a, parse_bundle) },
	};
	const struct cli_option end = CLI_END;
	size_t i;

	_Static_assert(sizeof(all) / sizeof(all[0]) == INDEX_OPTIONS,
	    "INDEX_OPTIONS counts the options");
	for (i = 0; i < INDEX_OPTIONS; i++) {
		table[i] = all[i].option;
		table[i].refused = (all[i].bit & index_takes[a->sub]) == 0;
	}
	table[INDEX_OPTIONS] = end;
}

static int
parse_index(int argc, char **argv, struct index_args *a)
{
	struct cli_option options[INDEX_OPTIONS + 1];
	struct cli_operands rest;
	size_t sub;
	int rc;

	memset(a, 0, sizeof(*a));
	a->pass.env = "PACKSIGN_PASSPHRASE";
	ps_fetch_options_init(&a->fetch);
	rc = cli_parse_subcommand(&cmd_index_usage, argc, argv, index_subs,
	    sizeof(index_subs) / sizeof(index_subs[0]), &sub);
	if (rc != EXIT_OK)
		return rc;
	a->sub = (enum index_sub)sub;
	index_options(a, options);
	rc = cli_parse_options(&cmd_index_usage, options, argc - 1, argv + 1,
	    &rest);
	if (rc != EXIT_OK)
		return rc;
	a->operands = rest.argv;
	a->operand_count = rest.count;
	return check_operands(a);
}


/* ------------------------------------------------------------- writing */

/* --at, else SOURCE_DATE_EPOCH, else the clock. */
static int
now_of(const struct index_args *a, int64_t *now)
{
	const char *env = getenv("SOURCE_DATE_EPOCH");
	long long value;

	if (a->at != 0) {
		*now = a->at;
		return EXIT_OK;
	}
	if (env == NULL || env[0] == '\0') {
		*now = (int64_t)time(NULL);
		return EXIT_OK;
	}
	if (cli_parse_int64(env, 0, PS_MTIME_MAX, &value) != 0)
		return cli_fail("invalid_time", "SOURCE_DATE_EPOCH", "not whole "
		    "seconds since the epoch: '%s'", env);
	*now = (int64_t)value;
	return EXIT_OK;
}

/* The publishing key, its public half named as the publisher. */
struct publisher {
	ps_seckey *key;
	ps_pubkey *pub;
	ps_trust *self;              /* trusts exactly that key */
};

static void
publisher_clear(struct publisher *p)
{
	ps_seckey_free(p->key);
	ps_pubkey_free(p->pub);
	ps_trust_free(p->self);
}

/* NAME.key -> NAME.pub's identity, when there is one (none for a key
 * from PACKSIGN_SECRET_KEY). */
static int
identity_beside(const char *key, ps_pubkey *pub)
{
	size_t n;
	ps_pubkey *beside = NULL;
	ps_error err;
	char *path;
	int rc = -1;

	if (key == NULL || (n = strlen(key)) < 4 ||
	    strcmp(key + n - 4, ".key") != 0 || (path = strdup(key)) == NULL)
		return -1;
	memcpy(path + n - 4, ".pub", 4);
	if (ps_pubkey_load_file(path, &beside, &err) == 0 &&
	    ps_pubkey_equal(beside, pub) && beside->identity != NULL)
		rc = ps_pubkey_set_identity(pub, beside->identity, &err);
	ps_pubkey_free(beside);
	free(path);
	return rc;
}

static int
load_publisher(const struct index_args *a, struct publisher *p)
{
	ps_error err;
	int rc;

	memset(p, 0, sizeof(*p));
	rc = cli_load_seckey(&cmd_index_usage, a->key, &a->pass, &p->key, NULL);
	if (rc != EXIT_OK)
		return rc;
	if (ps_seckey_public(p->key, &p->pub, &err) != 0)
		return cli_report(&err);
	if (a->identity != NULL ? ps_pubkey_set_identity(p->pub, a->identity,
	    &err) != 0 : a->key == NULL || identity_beside(a->key, p->pub) != 0)
		return a->identity != NULL ? cli_report(&err) :
		    cli_usage_error(&cmd_index_usage, "no publisher identity: "
		    "give --identity ID (or NAME.pub with one beside NAME.key)");
	if (ps_trust_from_pubkey(p->pub, "-s KEY", &p->self, &err) != 0)
		return cli_report(&err);
	return EXIT_OK;
}

/* The index this one follows, verified with the publisher's own key
 * (an expired one too: it is being replaced). */
static int
load_previous(const char *path, const struct publisher *p, int64_t now,
    ps_index **out)
{
	ps_index_verify_options vo;
	unsigned char *bytes;
	size_t len;
	ps_error err;
	int rc;

	if (ps_index_read(path, NULL, &bytes, &len, &err) != 0)
		return cli_report(&err);
	ps_index_verify_options_init(&vo);
	vo.trust = p->self;
	vo.at = now;
	vo.allow_expired = 1;
	rc = ps_index_verify(bytes, len, path, &vo, out, &err);
	free(bytes);
	return rc != 0 ? cli_report(&err) : EXIT_OK;
}

/* The ID@VERSION operand. */
static int
split_version(const char *target, char **id, const char **version)
{
	const char *at;
	int rc = cli_split_target(&cmd_index_usage, target, &at);

	if (rc != EXIT_OK)
		return rc;
	if (at == NULL)
		return cli_usage_error(&cmd_index_usage, "'%s' needs @VERSION",
		    target);
	if ((*id = strndup(target, (size_t)(at - target))) == NULL)
		return cli_fail_oom();
	*version = at + 1;
	return EXIT_OK;
}

/* A refusal of an archive's signatures says which policy judged them:
 * with separate pack and index keys, a bare signature_untrusted hid that
 * the archives are verified with the index key unless -p/--trust says
 * otherwise. */
static int
report_add(const struct index_args *a, ps_error *err)
{
	static const char *const codes[] = { "signature_untrusted",
	    "signature_invalid", "signature_unchecked", "threshold_not_met",
	    "role_missing", "pack_out_of_scope", "key_untrusted", "key_revoked",
	    "key_expired", "key_not_yet_valid" };
	size_t i, used = strlen(err->message);

	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		if (strcmp(err->code, codes[i]) != 0)
			continue;
		if (a->policy != NULL || a->pubkey != NULL)
			snprintf(err->message + used, sizeof(err->message) - used,
			    " (index build verified the archive with %s %s)",
			    a->policy != NULL ? "--trust" : "-p", a->policy != NULL ?
			    a->policy : a->pubkey);
		else
			snprintf(err->message + used, sizeof(err->message) - used,
			    " (index build verifies the archives with the index "
			    "key -s unless -p KEY.pub or --trust POLICY names "
			    "their signers)");
		break;
	}
	return cli_report(err);
}

/* What each subcommand does to the new version. */
static int
edit(const struct index_args *a, ps_index *ix, ps_index_build_options *bo,
    const struct publisher *p)
{
	const char *version = NULL;
	ps_trust *packs = NULL;
	char *id = NULL;
	ps_error err;
	int i, rc = 0;

	if (a->sub == SUB_BUILD) {
		if ((a->policy != NULL || a->pubkey != NULL) && cli_load_policy(
		    a->policy, a->pubkey, &packs, &err) != 0)
			return cli_report(&err);
		bo->trust = packs != NULL ? packs : p->self;
		for (i = 0; rc == 0 && i < a->operand_count; i++)
			rc = ps_index_add(ix, a->operands[i], bo, &err);
		ps_trust_free(packs);
		return rc != 0 ? report_add(a, &err) : EXIT_OK;
	}
	if (a->sub == SUB_REFRESH)
		return EXIT_OK;
	if ((rc = split_version(a->operands[1], &id, &version)) != EXIT_OK)
		return rc;
	rc = a->sub == SUB_YANK ? ps_index_yank(ix, id, version, a->reason,
	    &err) : ps_index_remove(ix, id, version, &err);
	free(id);
	return rc != 0 ? cli_report(&err) : EXIT_OK;
}

static int
write_index(const struct index_args *a, const ps_index *ix,
    const struct publisher *p)
{
	char *text = NULL;
	size_t len;
	ps_error err;
	int rc;

	if (ps_index_sign(ix, p->key, &text, &len, &err) != 0)
		return cli_report(&err);
	rc = cli_write_output(a->out, text, len, 0644, 1);
	free(text);
	if (rc != EXIT_OK || a->quiet)
		return rc;
	printf("wrote ");
	cli_put_safe(stdout, a->out);
	printf(": index version %llu of %s, %zu entr%s\n",
	    (unsigned long long)ix->version, ix->publisher, ix->entry_count,
	    ix->entry_count == 1 ? "y" : "ies");
	return EXIT_OK;
}

static int
options_of(const struct index_args *a, const struct publisher *p,
    ps_index_build_options *bo)
{
	int rc;

	ps_index_build_options_init(bo);
	bo->publisher = p->pub->identity != NULL ? p->pub->identity :
	    p->self->signers[0].identity;
	bo->base_url = a->base_url;
	bo->url_prefix = a->url_prefix;
	bo->bundle_paths = a->bundles;
	bo->bundle_count = a->bundle_count;
	if ((rc = now_of(a, &bo->now)) != EXIT_OK)
		return rc;
	if (ps_index_duration_parse(a->expires != NULL ? a->expires :
	    PS_INDEX_DEFAULT_EXPIRES, &bo->expires_in) != 0)
		return cli_usage_error(&cmd_index_usage, "--expires is an ISO "
		    "8601 duration of 1 second to 10 years (P30D, PT12H), found "
		    "'%s'", a->expires);
	return EXIT_OK;
}

static int
run_edit(const struct index_args *a)
{
	const char *previous = a->sub == SUB_BUILD ? a->previous :
	    a->operands[0];
	ps_index *old = NULL, *ix = NULL;
	ps_index_build_options bo;
	struct publisher p;
	ps_error err;
	int rc;

	rc = load_publisher(a, &p);
	if (rc == EXIT_OK)
		rc = options_of(a, &p, &bo);
	if (rc == EXIT_OK && previous != NULL)
		rc = load_previous(previous, &p, bo.now, &old);
	bo.previous = old;
	if (rc == EXIT_OK && ps_index_new(&bo, &ix, &err) != 0)
		rc = cli_report(&err);
	if (rc == EXIT_OK)
		rc = edit(a, ix, &bo, &p);
	if (rc == EXIT_OK)
		rc = write_index(a, ix, &p);
	ps_index_free(ix);
	ps_index_free(old);
	publisher_clear(&p);
	return rc;
}

/* ------------------------------------------------------------- verify */

static json_t *
entries_json(const ps_index *ix)
{
	json_t *list = json_array();
	char sha[PS_SHA256_STRING_LEN];
	const ps_index_entry *e;
	size_t i;

	for (i = 0; list != NULL && i < ix->entry_count; i++) {
		e = &ix->entries[i];
		json_array_append_new(list, json_pack("{s:s,s:s,s:s,s:s,s:s,"
		    "s:I,s:o}", "format", ps_format_name(e->format), "id", e->id,
		    "version", e->version, "url", e->archive_url,
		    "archive_digest", ps_sha256_string(e->sha256, sha), "size",
		    (json_int_t)e->size, "yanked", cli_json_text(e->yanked)));
	}
	return list;
}

static int
print_verified(const struct index_args *a, const struct cli_index *ci,
    int recorded)
{
	const ps_index *ix = ci->index;
	char issued[PS_TIME_TEXT_LEN], expires[PS_TIME_TEXT_LEN];
	char sha[PS_SHA256_STRING_LEN];

	ps_time_format(ix->issued, issued);
	ps_time_format(ix->expires, expires);
	ps_sha256_string(ix->payload_sha256, sha);
	if (a->json)
		return cli_print_report(json_pack("{s:b,s:s,s:I,s:s,s:s,s:s,"
		    "s:s,s:o,s:o,s:b}", "ok", 1, "publisher", ix->publisher,
		    "version", (json_int_t)ix->version, "issued", issued,
		    "expires", expires, "fingerprint", ix->fingerprint,
		    "index_sha256", sha, "index_state", cli_index_state_json(ci),
		    "packs", entries_json(ix), "recorded", recorded),
		    a->operands[0]);
	if (a->quiet)
		return EXIT_OK;
	printf("index version %llu of ", (unsigned long long)ix->version);
	cli_put_safe(stdout, ix->publisher);
	printf(" (%s): %zu entr%s, issued %s, expires %s%s\n",
	    ix->fingerprint, ix->entry_count, ix->entry_count == 1 ? "y" :
	    "ies", issued, expires, recorded ? "; recorded" : "");
	return EXIT_OK;
}

static int
run_verify(struct index_args *a)
{
	struct cli_index_source src;
	struct cli_index ci;
	ps_trust *policy = NULL;
	char *data_dir = NULL;
	ps_error err;
	int rc;

	memset(&ci, 0, sizeof(ci));
	cli_download_proxy(&a->fetch);
	if (cli_load_policy(a->policy, a->pubkey, &policy, &err) != 0)
		return cli_report(&err);
	rc = cli_data_dir(a->data_dir, &data_dir);
	src = (struct cli_index_source){ a->operands[0], policy, a->at,
	    &a->fetch, data_dir, a->require_state, a->json, a->record };
	if (rc == EXIT_OK)
		rc = cli_index_open(&src, &ci);
	if (rc == EXIT_OK)
		rc = print_verified(a, &ci, ci.recorded);
	cli_index_close(&ci);
	ps_trust_free(policy);
	free(data_dir);
	return rc;
}

int
cmd_index(int argc, char **argv)
{
	struct index_args a;
	int rc;

	rc = parse_index(argc, argv, &a);
	if (rc != EXIT_OK)
		return rc == CLI_HELP ? EXIT_OK : rc;
	return a.sub == SUB_VERIFY ? run_verify(&a) : run_edit(&a);
}
