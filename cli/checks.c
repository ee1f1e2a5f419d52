/* What verify and install share: the check flags and the JSON report of a
 * verification. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"

int
cli_check_flag(const char *command, int c, const char *arg,
    struct cli_checks *checks)
{
	ps_verify_options *o = &checks->verify;

	switch (c) {
	case 'p': checks->pubkey = arg; break;
	case 'q': checks->quiet = 1; break;
	case CLI_OPT_SIG: o->sig_path = arg; break;
	case CLI_OPT_TRUST: checks->policy = arg; break;
	case CLI_OPT_SIGNED_BY: o->signed_by = arg; break;
	case CLI_OPT_SOURCE_REPO: o->source_repo = arg; break;
	case CLI_OPT_SOURCE_COMMIT: o->source_commit = arg; break;
	case CLI_OPT_REQUIRE_SOURCE: o->require_source = 1; break;
	case CLI_OPT_ALLOW_DIRTY: o->allow_dirty = 1; break;
	case CLI_OPT_AT: return cli_parse_time(command, arg, &o->at);
	default: return -1;
	}
	return EXIT_OK;
}

int
cli_checks_load_policy(struct cli_checks *checks, ps_trust **policy)
{
	ps_error err;

	*policy = NULL;
	if (checks->policy == NULL && checks->pubkey == NULL)
		return EXIT_OK;
	if (cli_load_policy(checks->policy, checks->pubkey, policy, &err) != 0)
		return cli_report(&err);
	checks->verify.trust = *policy;
	return EXIT_OK;
}

struct json_t *
cli_json_digest(int has, const unsigned char digest[PS_SHA256_LEN])
{
	char text[PS_SHA256_STRING_LEN];

	return has ? json_string(ps_sha256_string(digest, text)) : json_null();
}

/* Bytes of invalid UTF-8 become '?': jansson refuses them, and a report
 * must not lose a field. */
struct json_t *
cli_json_text(const char *s)
{
	json_t *j;
	char *copy;
	size_t i;

	if (s == NULL)
		return json_null();
	if ((j = json_string(s)) != NULL)
		return j;
	if ((copy = strdup(s)) == NULL)
		return json_null();
	for (i = 0; copy[i] != '\0'; i++) {
		if ((unsigned char)copy[i] >= 0x80)
			copy[i] = '?';
	}
	j = json_string(copy);
	free(copy);
	return j != NULL ? j : json_null();
}

struct json_t *
cli_json_strings(const ps_strings *list)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < list->count; i++)
		json_array_append_new(a, cli_json_text(list->items[i]));
	return a;
}

struct json_t *
cli_json_lines(const char *text)
{
	json_t *a = json_array();
	const char *p = text;
	size_t n;
	char *line;

	while (a != NULL && p != NULL && *p != '\0') {
		n = strcspn(p, "\n");
		line = strndup(p, n);
		json_array_append_new(a, cli_json_text(line));
		free(line);
		p += n + (p[n] == '\n');
	}
	return a;
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
		    cli_json_text(s->keyid), "fingerprint", s->fingerprint[0] !=
		    '\0' ? json_string(s->fingerprint) : json_null(), "identity",
		    cli_json_text(s->identity), "counted", s->counted, "code",
		    s->code[0] != '\0' ? json_string(s->code) : json_null(),
		    "reason", cli_json_text(s->reason)));
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
		    cli_json_text(r->identities[i].identity), "fingerprint",
		    r->identities[i].fingerprint));
	return list;
}

static json_t *
source_json(const ps_verify_result *r)
{
	if (!r->has_source)
		return json_null();
	return json_pack("{s:o,s:o,s:o,s:b,s:o}", "repository",
	    cli_json_text(r->source_repository), "commit",
	    cli_json_text(r->source_commit), "path",
	    cli_json_text(r->source_path), "dirty", r->source_dirty,
	    "manifestRef", cli_json_text(r->source_manifest_ref));
}

static json_t *
checks_json(const ps_verify_result *r)
{
	return json_pack("{s:b,s:b,s:b,s:b,s:b,s:b,s:b}", "directory",
	    r->directory, "subject", r->subject_checked, "tree",
	    r->tree_checked, "canonical", r->canonical_checked, "deep", r->deep,
	    "source", r->source_checked, "rebuild", r->rebuild_checked);
}

static const char *
error_text(int rc, const char *text)
{
	return rc != 0 && text[0] != '\0' ? text : NULL;
}

void
cli_json_error(struct json_t *o, int rc, const ps_error *err)
{
	json_object_set_new(o, "ok", json_boolean(rc == 0));
	json_object_set_new(o, "exit", json_integer(rc == 0 ? EXIT_OK :
	    err->status == PS_STATUS_REFUSED ? EXIT_REFUSED : EXIT_FAILED));
	json_object_set_new(o, "code", cli_json_text(rc == 0 ? NULL :
	    err->code));
	json_object_set_new(o, "subject", cli_json_text(rc == 0 ? NULL :
	    err->subject));
	json_object_set_new(o, "message", cli_json_text(rc == 0 ? NULL :
	    err->message));
	json_object_set_new(o, "expected", cli_json_text(error_text(rc,
	    err->expected)));
	json_object_set_new(o, "found", cli_json_text(error_text(rc,
	    err->found)));
}

void
cli_verify_json(struct json_t *o, const ps_verify_result *r)
{
	json_object_set_new(o, "sig", cli_json_text(r->sig_path));
	json_object_set_new(o, "format", r->id != NULL ?
	    json_string(ps_format_name(r->format)) : json_null());
	json_object_set_new(o, "id", cli_json_text(r->id));
	json_object_set_new(o, "version", cli_json_text(r->version));
	json_object_set_new(o, "name", cli_json_text(r->name));
	json_object_set_new(o, "threshold", json_integer(r->threshold));
	json_object_set_new(o, "identities", identities_json(r));
	json_object_set_new(o, "signatures", signatures_json(r));
	json_object_set_new(o, "digests", json_pack("{s:o,s:o,s:o}",
	    "archive", cli_json_digest(r->has_archive_digest,
	    r->archive_digest), "tar", cli_json_digest(r->has_tar_digest,
	    r->tar_digest), "tree", cli_json_digest(r->has_tree_digest,
	    r->tree_digest)));
	json_object_set_new(o, "source", source_json(r));
	json_object_set_new(o, "prompt_files",
	    json_integer((json_int_t)r->prompt_count));
	json_object_set_new(o, "checks", checks_json(r));
}

void
cli_print_signers(FILE *out, const ps_verify_result *r)
{
	size_t i;

	for (i = 0; i < r->identity_count; i++) {
		fputs(i > 0 ? ", " : "", out);
		cli_put_safe(out, r->identities[i].identity);
		fprintf(out, " (%s)", r->identities[i].fingerprint);
	}
}
