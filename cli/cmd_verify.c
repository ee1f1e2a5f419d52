/* packsign verify: checks signed archives against a trust policy. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"

const char cmd_verify_usage[] =
    "usage: packsign verify ARCHIVE... [--sig F] (--trust POLICY | -p KEY.pub)\n"
    "           [--signed-by ID] [--source-repo URL] [--source-commit HASH]\n"
    "           [--require-source] [--allow-dirty] [--rebuild-from GITDIR]\n"
    "           [--deep] [--at TIME] [--json]\n"
    "       packsign verify DIR --sig F (--trust POLICY | -p KEY.pub) ...\n"
    "\n"
    "Verifies each ARCHIVE against ARCHIVE.sig in the order of\n"
    "docs/formats/signature.md, section 3: signatures under the policy's keys\n"
    "(threshold of distinct identities), the statement, the archive's SHA-256,\n"
    "every entry, the manifest, signed_by, then provenance.  An unpacked\n"
    "directory is checked by its tree and prompt digests (the archive's own\n"
    "digest cannot be).  Each refusal is one line naming the check, the\n"
    "expected and the found value and a code; exit 1 if any archive is\n"
    "refused, 2 if the job could not be done.\n"
    "\n"
    "  --sig F              the signature (default ARCHIVE.sig; one ARCHIVE)\n"
    "  --trust POLICY       the trust policy (docs/formats/trust-policy.md)\n"
    "  -p KEY.pub           trust exactly this key, for every pack\n"
    "  --signed-by ID       require a counted signature by identity ID\n"
    "  --source-repo URL    the recorded repository must be URL (normalised)\n"
    "  --source-commit HASH the recorded commit must be HASH (full id)\n"
    "  --require-source     refuse a signature that records no source\n"
    "  --allow-dirty        accept a source signed from a dirty work tree\n"
    "  --rebuild-from GITDIR\n"
    "                       rebuild the tar from the recorded commit and path\n"
    "                       in GITDIR and compare its tar digest\n"
    "  --deep               also hash every file and compare the tree\n"
    "                       digest (default: the archive digest covers all)\n"
    "  --at TIME            judge key windows at TIME (YYYY-MM-DDTHH:MM:SSZ)\n"
    "  --json               print the full report as one JSON object\n";

struct verify_args {
	const char *policy, *pubkey;
	ps_verify_options o;
	int json;
	char **paths;
	int count;
};

enum { V_SIG = 256, V_TRUST, V_SIGNED_BY, V_REPO, V_COMMIT, V_REQUIRE,
    V_DIRTY, V_REBUILD, V_DEEP, V_AT, V_JSON };

static const struct option verify_options[] = {
	{ "sig", required_argument, NULL, V_SIG },
	{ "trust", required_argument, NULL, V_TRUST },
	{ "signed-by", required_argument, NULL, V_SIGNED_BY },
	{ "source-repo", required_argument, NULL, V_REPO },
	{ "source-commit", required_argument, NULL, V_COMMIT },
	{ "require-source", no_argument, NULL, V_REQUIRE },
	{ "allow-dirty", no_argument, NULL, V_DIRTY },
	{ "rebuild-from", required_argument, NULL, V_REBUILD },
	{ "deep", no_argument, NULL, V_DEEP },
	{ "at", required_argument, NULL, V_AT },
	{ "json", no_argument, NULL, V_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static int
take_option(struct verify_args *a, int c)
{
	switch (c) {
	case 'p': a->pubkey = optarg; break;
	case V_SIG: a->o.sig_path = optarg; break;
	case V_TRUST: a->policy = optarg; break;
	case V_SIGNED_BY: a->o.signed_by = optarg; break;
	case V_REPO: a->o.source_repo = optarg; break;
	case V_COMMIT: a->o.source_commit = optarg; break;
	case V_REQUIRE: a->o.require_source = 1; break;
	case V_DIRTY: a->o.allow_dirty = 1; break;
	case V_REBUILD: a->o.rebuild_from = optarg; break;
	case V_DEEP: a->o.deep = 1; break;
	case V_JSON: a->json = 1; break;
	case V_AT: return cli_parse_time("verify", optarg, &a->o.at);
	default: return cli_usage_error("verify", "unknown option");
	}
	return EXIT_OK;
}

/* Returns EXIT_OK, -1 after printing help, or a usage error's code. */
static int
parse_args(int argc, char **argv, struct verify_args *a)
{
	int c;

	memset(a, 0, sizeof(*a));
	ps_verify_options_init(&a->o);
	optind = 1;
	while ((c = getopt_long(argc, argv, "hp:", verify_options, NULL)) != -1) {
		if (c == 'h')
			return cli_print_help("verify") - 1;
		if (take_option(a, c) != EXIT_OK)
			return EXIT_FAILED;
	}
	a->paths = argv + optind;
	a->count = argc - optind;
	if (a->count == 0)
		return cli_usage_error("verify", "missing ARCHIVE");
	if (a->count > 1 && a->o.sig_path != NULL)
		return cli_usage_error("verify", "--sig names the signature of "
		    "one ARCHIVE, %d were given", a->count);
	if ((a->policy == NULL) == (a->pubkey == NULL))
		return cli_usage_error("verify", "give one of --trust POLICY and "
		    "-p KEY.pub");
	return EXIT_OK;
}

static json_t *
digest_json(int has, const unsigned char d[PS_SHA256_LEN])
{
	char text[PS_SHA256_STRING_LEN];

	return has ? json_string(ps_sha256_string(d, text)) : json_null();
}

/* Text from inputs as a JSON string, or null: bytes of invalid UTF-8
 * become '?' (jansson refuses them, and a report must not lose a field). */
static json_t *
opt_string(const char *s)
{
	json_t *j = s != NULL ? json_string(s) : json_null();
	char *copy;
	size_t i;

	if (j != NULL || (copy = strdup(s)) == NULL)
		return j != NULL ? j : json_null();
	for (i = 0; copy[i] != '\0'; i++) {
		if ((unsigned char)copy[i] >= 0x80)
			copy[i] = '?';
	}
	j = json_string(copy);
	free(copy);
	return j != NULL ? j : json_null();
}

static json_t *
signatures_json(const ps_verify_result *r)
{
	json_t *list = json_array();
	const ps_verify_signature *s;
	size_t i;

	for (i = 0; i < r->signature_count; i++) {
		s = &r->signatures[i];
		json_array_append_new(list, json_pack("{s:I,s:o,s:o,s:o,s:b,s:o,"
		    "s:o}", "index", (json_int_t)s->index, "keyid",
		    opt_string(s->keyid), "fingerprint", s->fingerprint[0] != '\0' ?
		    json_string(s->fingerprint) : json_null(), "identity",
		    opt_string(s->identity), "counted", s->counted, "code",
		    s->code[0] != '\0' ? json_string(s->code) : json_null(),
		    "reason", opt_string(s->reason)));
	}
	return list;
}

static json_t *
identities_json(const ps_verify_result *r)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; i < r->identity_count; i++)
		json_array_append_new(list, json_pack("{s:o,s:s}", "identity",
		    opt_string(r->identities[i].identity), "fingerprint",
		    r->identities[i].fingerprint));
	return list;
}

static json_t *
source_json(const ps_verify_result *r)
{
	if (!r->has_source)
		return json_null();
	return json_pack("{s:o,s:o,s:o,s:b,s:o}", "repository",
	    opt_string(r->source_repository), "commit",
	    opt_string(r->source_commit), "path", opt_string(r->source_path),
	    "dirty", r->source_dirty, "manifestRef",
	    opt_string(r->source_manifest_ref));
}

static json_t *
checks_json(const ps_verify_result *r)
{
	return json_pack("{s:b,s:b,s:b,s:b,s:b,s:b,s:b}", "directory",
	    r->directory, "subject", r->subject_checked, "tree",
	    r->tree_checked, "canonical", r->canonical_checked, "deep", r->deep,
	    "source", r->source_checked, "rebuild", r->rebuild_checked);
}

static json_t *
error_json(json_t *o, int rc, const ps_error *err)
{
	json_object_set_new(o, "ok", json_boolean(rc == 0));
	json_object_set_new(o, "exit", json_integer(rc == 0 ? EXIT_OK :
	    err->status == PS_STATUS_REFUSED ? EXIT_REFUSED : EXIT_FAILED));
	json_object_set_new(o, "code", opt_string(rc == 0 ? NULL : err->code));
	json_object_set_new(o, "subject", opt_string(rc == 0 ? NULL :
	    err->subject));
	json_object_set_new(o, "message", opt_string(rc == 0 ? NULL :
	    err->message));
	json_object_set_new(o, "expected", opt_string(rc != 0 &&
	    err->expected[0] != '\0' ? err->expected : NULL));
	json_object_set_new(o, "found", opt_string(rc != 0 &&
	    err->found[0] != '\0' ? err->found : NULL));
	return o;
}

static json_t *
result_json(const char *path, const ps_verify_result *r, int rc,
    const ps_error *err)
{
	json_t *o = json_object();

	json_object_set_new(o, "path", opt_string(path));
	if (r != NULL) {
		json_object_set_new(o, "sig", opt_string(r->sig_path));
		json_object_set_new(o, "format", r->id != NULL ?
		    json_string(ps_format_name(r->format)) : json_null());
		json_object_set_new(o, "id", opt_string(r->id));
		json_object_set_new(o, "version", opt_string(r->version));
		json_object_set_new(o, "name", opt_string(r->name));
		json_object_set_new(o, "threshold", json_integer(r->threshold));
		json_object_set_new(o, "identities", identities_json(r));
		json_object_set_new(o, "signatures", signatures_json(r));
		json_object_set_new(o, "digests", json_pack("{s:o,s:o,s:o}",
		    "archive", digest_json(r->has_archive_digest,
		    r->archive_digest), "tar", digest_json(r->has_tar_digest,
		    r->tar_digest), "tree", digest_json(r->has_tree_digest,
		    r->tree_digest)));
		json_object_set_new(o, "source", source_json(r));
		json_object_set_new(o, "prompt_files",
		    json_integer((json_int_t)r->prompt_count));
		json_object_set_new(o, "checks", checks_json(r));
	}
	return error_json(o, rc, err);
}

static void
print_signers(const ps_verify_result *r)
{
	size_t i;

	for (i = 0; i < r->identity_count; i++) {
		fputs(i > 0 ? ", " : "", stdout);
		cli_put_safe(stdout, r->identities[i].identity);
		printf(" (%s)", r->identities[i].fingerprint);
	}
}

static void
print_source(const ps_verify_result *r)
{
	if (!r->has_source) {
		fputs("; no source recorded", stdout);
		return;
	}
	fputs(" from ", stdout);
	cli_put_safe(stdout, r->source_repository != NULL ?
	    r->source_repository : "(no repository recorded)");
	fputs(" @ ", stdout);
	cli_put_safe(stdout, r->source_commit);
	if (r->source_dirty)
		fputs(" (dirty)", stdout);
}

static void
print_good(const ps_verify_result *r)
{
	fputs("Good signature: ", stdout);
	cli_put_safe(stdout, r->id);
	fputc(' ', stdout);
	cli_put_safe(stdout, r->version);
	fputs(" by ", stdout);
	print_signers(r);
	print_source(r);
	printf("; %zu prompt file%s verified", r->prompt_count,
	    r->prompt_count == 1 ? "" : "s");
	if (r->directory)
		fputs("; directory: tree and prompt digests checked, the "
		    "archive's own digest cannot be", stdout);
	fputc('\n', stdout);
}

/* Verifies one path; returns its exit code and adds to `report`. */
static int
verify_one(const char *path, const struct verify_args *a, json_t *report)
{
	ps_verify_result *r = NULL;
	ps_error err;
	int rc, code;

	ps_error_clear(&err);
	rc = ps_verify(path, &a->o, &r, &err);
	code = rc == 0 ? EXIT_OK : err.status == PS_STATUS_REFUSED ?
	    EXIT_REFUSED : EXIT_FAILED;
	if (a->json)
		json_array_append_new(report, result_json(path, r, rc, &err));
	else if (rc == 0)
		print_good(r);
	else
		cli_report(&err);
	ps_verify_result_free(r);
	return code;
}

static int
verify_all(struct verify_args *a)
{
	json_t *results = json_array(), *report;
	int i, code, worst = EXIT_OK, good = 0;

	for (i = 0; i < a->count; i++) {
		code = verify_one(a->paths[i], a, results);
		good += code == EXIT_OK;
		worst = code > worst ? code : worst;
	}
	if (a->json) {
		report = json_pack("{s:b,s:i,s:i,s:o}", "ok", worst == EXIT_OK,
		    "verified", good, "total", a->count, "results", results);
		code = cli_print_json(report);
		json_decref(report);
		return code != EXIT_OK ? code : worst;
	}
	json_decref(results);
	if (a->count > 1)
		printf("%s: %d of %d verified\n", worst == EXIT_OK ? "All good" :
		    "FAILED", good, a->count);
	return worst;
}

int
cmd_verify(int argc, char **argv)
{
	struct verify_args a;
	ps_trust *policy = NULL;
	ps_error err;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc != EXIT_OK)
		return rc < 0 ? EXIT_OK : rc;
	if (cli_load_policy(a.policy, a.pubkey, &policy, &err) != 0)
		return cli_report(&err);
	a.o.trust = policy;
	rc = verify_all(&a);
	ps_trust_free(policy);
	return rc;
}
