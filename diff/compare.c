/*
 * ps_diff_compare(): the trust and file groups of docs/formats/diff.md,
 * and the permissions group by diff/perms.c.  Files are compared by
 * digest, in one merge walk of the two sides' sorted entries: linear in
 * the entries, the prompt files' text diffs bounded by their lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"
#include "diff/textdiff.h"
#include "formats/codepath.h"
#include "pack/items.h"
#include "util/error.h"
#include "util/strings.h"

/* ---------------------------------------------------------------- trust */

static const diff_signer *
find_signer(const ps_diff_side *s, const char *identity)
{
	size_t i;

	for (i = 0; i < s->signer_count; i++) {
		if (strcmp(s->signers[i].identity, identity) == 0)
			return &s->signers[i];
	}
	return NULL;
}

/* A new identity widens whom the user trusts; a signer that left does
 * not, and a new key for an identity a policy file binds it to is a
 * rotation (shown, neutral).  Under -p the name is the key's own claim:
 * a new key is then a new signer, widening. */
static int
compare_signers(ps_diff *d, const ps_diff_side *o, const ps_diff_side *n,
    ps_error *err)
{
	const diff_signer *was, *is;
	size_t i;

	for (i = 0; i < n->signer_count; i++) {
		is = &n->signers[i];
		was = find_signer(o, is->identity);
		if (was == NULL) {
			if (diff_add(d, "signer", is->identity, PS_DIFF_ADDED, NULL,
			    is->fingerprint, 1, err) != 0)
				return -1;
		} else if (strcmp(was->fingerprint, is->fingerprint) != 0 &&
		    diff_add(d, "signer.key", is->identity, PS_DIFF_CHANGED,
		    was->fingerprint, is->fingerprint, !(o->identities_bound &&
		    n->identities_bound), err) != 0)
			return -1;
	}
	for (i = 0; i < o->signer_count; i++) {
		was = &o->signers[i];
		if (find_signer(n, was->identity) == NULL &&
		    diff_add(d, "signer", was->identity, PS_DIFF_REMOVED,
		    was->fingerprint, NULL, 0, err) != 0)
			return -1;
	}
	return 0;
}

static int
any_first_party(const ps_diff_side *s)
{
	size_t i;

	for (i = 0; i < s->signer_count; i++) {
		if (s->signers[i].first_party)
			return 1;
	}
	return 0;
}

static int
same_or_null(const char *a, const char *b)
{
	return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

/* Another repository, or none where there was one, widens: what vouched
 * for the old version no longer does.  A new commit is an upgrade's
 * normal course, shown but never widening. */
static int
compare_source(ps_diff *d, const ps_diff_side *o, const ps_diff_side *n,
    ps_error *err)
{
	const char *or = o->has_source ? o->repository : NULL;
	const char *nr = n->has_source ? n->repository : NULL;
	ps_diff_kind kind;

	if (!same_or_null(or, nr)) {
		kind = or == NULL ? PS_DIFF_ADDED : nr == NULL ? PS_DIFF_REMOVED :
		    PS_DIFF_CHANGED;
		if (diff_add(d, "source.repository", NULL, kind, or, nr,
		    or != NULL, err) != 0)
			return -1;
	}
	if (or != NULL && nr != NULL && !same_or_null(o->commit, n->commit))
		return diff_add(d, "source.commit", NULL, PS_DIFF_CHANGED,
		    o->commit, n->commit, 0, err);
	return 0;
}

static int
compare_trust(ps_diff *d, const ps_diff_side *o, const ps_diff_side *n,
    ps_error *err)
{
	int of = any_first_party(o), nf = any_first_party(n);

	if (compare_signers(d, o, n, err) != 0)
		return -1;
	/* Losing first_party widens: no first-party signer vouches for
	 * the new version any more (the AgentPack shell rule relied on it). */
	if (of != nf && diff_add(d, "first_party", NULL, PS_DIFF_CHANGED,
	    of ? "true" : "false", nf ? "true" : "false", of, err) != 0)
		return -1;
	return compare_source(d, o, n, err);
}

/* ---------------------------------------------------------------- files */

/* The two entries of one path; either may be NULL. */
typedef struct file_pair {
	const ps_entry *o, *n;
	const char *path;
} file_pair;

/* The format's code places first: an AgentPack's agent configs are
 * prompts to the validator but decide what runs, and are code here. */
static const char *
field_of(const ps_diff_side *os, const ps_diff_side *ns, const file_pair *f)
{
	if (formats_code_path(ns->manifest, f->path) ||
	    formats_code_path(os->manifest, f->path))
		return "code";
	if (diff_side_is_prompt(os, f->path) || diff_side_is_prompt(ns, f->path))
		return "prompt";
	if ((f->o != NULL && f->o->executable) ||
	    (f->n != NULL && f->n->executable))
		return "code";
	return "file";
}

static void
digest_text(const ps_entry *e, char out[PS_SHA256_STRING_LEN])
{
	if (e->type == PS_ENTRY_DIR)
		snprintf(out, PS_SHA256_STRING_LEN, "directory");
	else
		ps_sha256_string(e->sha256, out);
}

static int
entries_differ(const ps_entry *a, const ps_entry *b)
{
	return a->type != b->type || (a->type == PS_ENTRY_FILE &&
	    memcmp(a->sha256, b->sha256, PS_SHA256_LEN) != 0);
}

static int
too_many_lines(const diff_text *t)
{
	size_t lines = 0;
	const char *p = t != NULL ? t->data : NULL;

	while (p != NULL && (p = memchr(p, '\n', t->len - (size_t)(p -
	    t->data))) != NULL && ++lines <= DIFF_TEXT_LINES_MAX)
		p++;
	return lines > DIFF_TEXT_LINES_MAX;
}

/* A side that holds the path without a text of its own (not a prompt
 * there, or a directory): no text diff, and nothing to say about it. */
static int
text_missing(const ps_entry *e, const diff_text *t)
{
	return e != NULL && t == NULL;
}

/* A side's file whose bytes were not kept (over a bound), or a text past
 * the lines bound: "too large for a text diff", never a diff against an
 * empty text. */
static int
text_too_large(const ps_entry *e, const diff_text *t)
{
	return (e != NULL && t->data == NULL) || too_many_lines(t);
}

static int
attach_text(ps_diff *d, const ps_diff_side *os, const ps_diff_side *ns,
    const file_pair *f, size_t max_lines, ps_error *err)
{
	const diff_text *ot = diff_side_text(os, f->path), *nt =
	    diff_side_text(ns, f->path);
	ps_diff_change *c = diff_last(d);
	diff_textdiff td;

	if (text_missing(f->o, ot) || text_missing(f->n, nt))
		return 0;
	if (text_too_large(f->o, ot) || text_too_large(f->n, nt)) {
		c->text_omitted = PS_DIFF_TEXT_TOO_LARGE;
		return 0;
	}
	if (diff_text_compare(ot != NULL ? ot->data : NULL, ot != NULL ?
	    ot->len : 0, nt != NULL ? nt->data : NULL, nt != NULL ? nt->len : 0,
	    max_lines, &td, err) != 0)
		return -1;
	c->text_diff = td.text;
	c->lines_added = td.added;
	c->lines_removed = td.removed;
	c->text_truncated = td.truncated;
	if (td.binary)
		c->text_omitted = PS_DIFF_TEXT_BINARY;
	return 0;
}

static int
compare_file(ps_diff *d, const ps_diff_side *os, const ps_diff_side *ns,
    const file_pair *f, size_t max_lines, ps_error *err)
{
	char ov[PS_SHA256_STRING_LEN], nv[PS_SHA256_STRING_LEN];
	const char *field = field_of(os, ns, f);
	ps_diff_kind kind = f->o == NULL ? PS_DIFF_ADDED : f->n == NULL ?
	    PS_DIFF_REMOVED : PS_DIFF_CHANGED;

	if (f->o != NULL)
		digest_text(f->o, ov);
	if (f->n != NULL)
		digest_text(f->n, nv);
	if (kind != PS_DIFF_CHANGED || entries_differ(f->o, f->n)) {
		if (diff_add(d, field, f->path, kind, f->o != NULL ? ov : NULL,
		    f->n != NULL ? nv : NULL, strcmp(field, "file") != 0 &&
		    kind != PS_DIFF_REMOVED, err) != 0)
			return -1;
		if (strcmp(field, "file") != 0 &&
		    attach_text(d, os, ns, f, max_lines, err) != 0)
			return -1;
	}
	if (f->o != NULL && f->n != NULL && f->o->executable != f->n->executable)
		return diff_add(d, "code.executable", f->path, PS_DIFF_CHANGED,
		    f->o->executable ? "executable" : "not executable",
		    f->n->executable ? "executable" : "not executable",
		    f->n->executable, err);
	return 0;
}

static int
compare_files(ps_diff *d, const ps_diff_side *os, const ps_diff_side *ns,
    size_t max_lines, ps_error *err)
{
	const ps_digest *a = os->digest, *b = ns->digest;
	size_t i = 0, j = 0;
	file_pair f;
	int c;

	while (i < a->entry_count || j < b->entry_count) {
		if (i == a->entry_count)
			c = 1;
		else if (j == b->entry_count)
			c = -1;
		else
			c = strcmp(a->entries[i].path, b->entries[j].path);
		f.o = f.n = NULL;
		if (c <= 0)
			f.o = &a->entries[i++];
		if (c >= 0)
			f.n = &b->entries[j++];
		f.path = c <= 0 ? a->entries[i - 1].path : b->entries[j - 1].path;
		/* A side's file list is what its tree digest lists: a
		 * directory with entries below it is not on it (NOTES, a file,
		 * becoming NOTES/a.md: NOTES removed, not "changed"). */
		if (f.o != NULL && f.o->type == PS_ENTRY_DIR &&
		    pack_digest_has_children(a, i - 1))
			f.o = NULL;
		if (f.n != NULL && f.n->type == PS_ENTRY_DIR &&
		    pack_digest_has_children(b, j - 1))
			f.n = NULL;
		/* Directories are named by the paths of their files; an
		 * empty one is not worth a line of an upgrade's question. */
		if ((f.o == NULL || f.o->type == PS_ENTRY_DIR) &&
		    (f.n == NULL || f.n->type == PS_ENTRY_DIR))
			continue;
		if (compare_file(d, os, ns, &f, max_lines, err) != 0)
			return -1;
	}
	return 0;
}

/* --------------------------------------------------------------- a diff */

static int
same_pack(const ps_manifest *o, const ps_manifest *n, ps_error *err)
{
	if (o->format == n->format && strcmp(o->id, n->id) == 0)
		return 0;
	util_refuse(err, "diff_mismatch", n->id, "compared the two sides' "
	    "formats and ids: a diff is between two versions of one pack");
	return util_error_expect(err, o->id, n->id);
}

static int
diff_new(ps_diff **out, const ps_manifest *o, const ps_manifest *n,
    ps_error *err)
{
	ps_diff *d = calloc(1, sizeof(*d));

	*out = d;
	if (d == NULL)
		return util_fail_oom(err, n->id);
	d->format = n->format;
	if (util_strdup(&d->id, n->id, NULL, err) != 0 ||
	    util_strdup(&d->old_version, o->version, NULL, err) != 0 ||
	    util_strdup(&d->new_version, n->version, NULL, err) != 0)
		return -1;
	return 0;
}

static int
compare_license(ps_diff *d, const ps_manifest *o, const ps_manifest *n,
    ps_error *err)
{
	if (same_or_null(o->license, n->license))
		return 0;
	return diff_add(d, "license", NULL, o->license == NULL ? PS_DIFF_ADDED :
	    n->license == NULL ? PS_DIFF_REMOVED : PS_DIFF_CHANGED, o->license,
	    n->license, 0, err);
}

static int
compare_groups(ps_diff *d, const ps_diff_side *o, const ps_diff_side *n,
    const ps_diff_options *options, ps_error *err)
{
	size_t lines = options != NULL && options->text_lines_max > 0 ?
	    options->text_lines_max : 200;

	if (d->trusted && compare_trust(d, o, n, err) != 0)
		return -1;
	if (diff_compare_permissions(d, o->manifest, n->manifest, err) != 0 ||
	    compare_files(d, o, n, lines, err) != 0)
		return -1;
	return compare_license(d, o->manifest, n->manifest, err);
}

int
ps_diff_compare(const ps_diff_side *o, const ps_diff_side *n,
    const ps_diff_options *options, ps_diff **out, ps_error *err)
{
	*out = NULL;
	if (o->manifest == NULL || n->manifest == NULL || o->digest == NULL ||
	    n->digest == NULL)
		return util_fail(err, "internal_error", NULL, "a side was not "
		    "opened");
	if (same_pack(o->manifest, n->manifest, err) != 0)
		return -1;
	if (diff_new(out, o->manifest, n->manifest, err) == 0) {
		(*out)->trusted = o->trusted && n->trusted;
		if (compare_groups(*out, o, n, options, err) == 0) {
			diff_finish(*out);
			return 0;
		}
	}
	ps_diff_free(*out);
	*out = NULL;
	return -1;
}

int
ps_diff_empty(const ps_diff *d)
{
	return d->change_count == 0;
}

size_t
ps_diff_consent_needed(const ps_diff *d, unsigned classes)
{
	size_t i, n = 0;

	for (i = 0; i < d->change_count; i++) {
		if (d->changes[i].widening && (d->changes[i].consent & classes) != 0)
			n++;
	}
	return n;
}

void
ps_diff_free(ps_diff *d)
{
	size_t i;

	if (d == NULL)
		return;
	for (i = 0; i < d->change_count; i++) {
		free(d->changes[i].subject);
		free(d->changes[i].old_value);
		free(d->changes[i].new_value);
		free(d->changes[i].text_diff);
	}
	free(d->changes);
	free(d->id);
	free(d->old_version);
	free(d->new_version);
	free(d);
}
