/*
 * An index entry installed (docs/formats/index.md, "Installing"): the
 * archive the index lists, and no other, however genuinely signed the
 * other is.  The entry's digest, its pack and its signers are compared
 * before a byte of the archive is parsed.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "install/indexed.h"
#include "install/indexstate.h"
#include "util/error.h"
#include "util/sha256.h"

int
install_indexed_state(const install_datadir *dd, const install_indexed *x,
    const ps_trust *trust, int dry_run, int64_t now, ps_error *err)
{
	ps_index_seen seen;
	int found, recorded;

	if (install_index_state_load(dd, x->index->publisher, &seen, &found,
	    err) != 0)
		return -1;
	if (!found && x->o->require_state &&
	    ps_index_state_require(trust, x->index, err) != 0)
		return -1;
	if (!x->o->record_state || dry_run)
		return ps_index_state_check(found ? &seen : NULL, x->index, err);
	return install_index_state_record(dd, x->index, now, &recorded, err);
}

/* The index's own entry that is `entry` by identity: a caller's entry
 * from another copy of the index (or another index) is never taken for
 * whatever sits at its place in this one. */
static const ps_index_entry *
own_entry(const ps_index *index, const ps_index_entry *entry)
{
	const ps_index_entry *e;
	size_t i;

	for (i = 0; i < index->entry_count; i++) {
		e = &index->entries[i];
		if (e->format == entry->format && strcmp(e->id, entry->id) == 0 &&
		    strcmp(e->version, entry->version) == 0 &&
		    memcmp(e->sha256, entry->sha256, PS_SHA256_LEN) == 0)
			return e;
	}
	return NULL;
}

int
install_indexed_entry(const ps_index *index, const ps_index_entry *entry,
    int allow_yanked, const ps_index_entry **own, ps_error *err)
{
	char sha[PS_SHA256_STRING_LEN], found[PS_ERROR_VALUE_MAX];

	*own = own_entry(index, entry);
	if (*own == NULL) {
		snprintf(found, sizeof(found), "%s %s@%s (%s)",
		    ps_format_name(entry->format), entry->id, entry->version,
		    ps_sha256_string(entry->sha256, sha));
		util_fail(err, "invalid_argument", entry->archive_url, "the entry "
		    "is not one of index version %llu of '%s' (compared format, "
		    "id, version and archive digest): pass an entry of the index "
		    "given", (unsigned long long)index->version, index->publisher);
		return util_error_expect(err, "an entry of this index", found);
	}
	if ((*own)->yanked == NULL || allow_yanked)
		return 0;
	util_refuse(err, "version_yanked", (*own)->id, "%s was yanked by its "
	    "publisher: %s (ps_index_install_options.allow_yanked installs it "
	    "anyway)",
	    (*own)->version, (*own)->yanked);
	return util_error_expect(err, "a version that is not yanked",
	    (*own)->version);
}

static int
mismatch(const install_indexed *x, const char *label, const char *what,
    const char *expected, const char *found, ps_error *err)
{
	util_refuse(err, "index_mismatch", label, "%s is not the one index "
	    "version %llu of '%s' lists for %s@%s", what,
	    (unsigned long long)x->index->version, x->index->publisher,
	    x->entry->id, x->entry->version);
	return util_error_expect(err, expected, found);
}

/* A local archive's size (its file's, before it is copied: a file of
 * another size is not copied at all) against the entry's. */
int
install_indexed_size(const install_indexed *x, const char *label,
    uint64_t size, ps_error *err)
{
	char want[32], got[32];

	if (size == x->entry->size)
		return 0;
	snprintf(want, sizeof(want), "%llu bytes",
	    (unsigned long long)x->entry->size);
	snprintf(got, sizeof(got), "%llu bytes", (unsigned long long)size);
	return mismatch(x, label, "the archive's size", want, got, err);
}

/* The entry's size binds both ways: the download is capped at it (so a
 * longer body is cut off as fetch_too_large), and a shorter one is as
 * much the publisher's data disagreeing with the server's. */
int
install_indexed_download(const install_indexed *x, const char *label,
    int downloaded, uint64_t size, const unsigned char sha256[PS_SHA256_LEN],
    ps_error *err)
{
	char want[PS_SHA256_STRING_LEN], got[PS_SHA256_STRING_LEN];

	if (!downloaded && !ps_error_is(err, PS_CODE_FETCH_TOO_LARGE))
		return -1;
	snprintf(want, sizeof(want), "%llu bytes (the entry's size)",
	    (unsigned long long)x->entry->size);
	if (!downloaded) {
		snprintf(got, sizeof(got), "more: the transfer was cut off at "
		    "%llu", (unsigned long long)x->entry->size);
		return mismatch(x, label, "the downloaded archive", want, got,
		    err);
	}
	if (size != x->entry->size) {
		snprintf(got, sizeof(got), "%llu bytes", (unsigned long long)size);
		return mismatch(x, label, "the downloaded archive", want, got,
		    err);
	}
	if (memcmp(sha256, x->entry->sha256, PS_SHA256_LEN) == 0)
		return 0;
	return mismatch(x, label, "the archive",
	    ps_sha256_string(x->entry->sha256, want),
	    ps_sha256_string(sha256, got), err);
}

static int
signer_listed(const ps_index_entry *e, const ps_verify_result *v)
{
	size_t i, j;

	for (i = 0; i < v->signature_count; i++) {
		if (!v->signatures[i].counted)
			continue;
		for (j = 0; j < e->signer_count; j++) {
			if (strcmp(v->signatures[i].fingerprint, e->signers[j]) == 0)
				return 1;
		}
	}
	return 0;
}

/* The pack the entry names, and a counted signer it lists. */
static int
same_pack(const install_indexed *x, const char *label, ps_format format,
    const char *id, const char *version,
    const unsigned char tree_digest[PS_SHA256_LEN],
    const ps_verify_result *v, ps_error *err)
{
	const ps_index_entry *e = x->entry;
	char want[PS_ERROR_VALUE_MAX], got[PS_ERROR_VALUE_MAX];

	if (format != e->format || strcmp(id, e->id) != 0 ||
	    strcmp(version, e->version) != 0) {
		snprintf(want, sizeof(want), "%s %s@%s", ps_format_name(e->format),
		    e->id, e->version);
		snprintf(got, sizeof(got), "%s %s@%s", ps_format_name(format), id,
		    version);
		return mismatch(x, label, "the signed pack", want, got, err);
	}
	if (memcmp(tree_digest, e->tree_digest, PS_SHA256_LEN) != 0) {
		ps_sha256_string(e->tree_digest, want);
		ps_sha256_string(tree_digest, got);
		return mismatch(x, label, "the signed tree", want, got, err);
	}
	if (signer_listed(e, v))
		return 0;
	snprintf(want, sizeof(want), "%s%s", e->signers[0], e->signer_count > 1 ?
	    ", ..." : "");
	return mismatch(x, label, "the signers that counted", want,
	    "none of them", err);
}

int
install_indexed_statement(const install_indexed *x, const char *label,
    const sign_statement *st, const ps_verify_result *v, ps_error *err)
{
	return same_pack(x, label, st->format, st->pack_id, st->pack_version,
	    st->tree_digest, v, err);
}

int
install_indexed_fetch_options(const ps_index_entry *entry,
    const ps_fetch_options *fetch, ps_fetch_options *capped, ps_error *err)
{
	if (fetch == NULL)
		ps_fetch_options_init(capped);
	else
		*capped = *fetch;
	if (capped->max_download != 0 && capped->max_download < entry->size) {
		util_fail(err, "fetch_too_large", entry->archive_url, "the index "
		    "lists an archive larger than the download limit");
		return util_error_expect(err, "at most --max-download bytes",
		    "more");
	}
	capped->max_download = entry->size;
	capped->sig_url = NULL;
	return 0;
}
