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

int
install_indexed_archive(const install_indexed *x, const char *label,
    const unsigned char sha256[PS_SHA256_LEN], ps_error *err)
{
	char want[PS_SHA256_STRING_LEN], got[PS_SHA256_STRING_LEN];

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

/* ps_fetch() of the entry, capped at its size, verified with --deep (the
 * tree digest the entry lists), then bound to it. */
int
ps_index_fetch_entry(const ps_index *index, const ps_index_entry *entry,
    const char *path, const ps_verify_options *verify,
    const ps_fetch_options *fetch, ps_verify_result **out, ps_error *err)
{
	const ps_index_install_options none = { 0, 0, 0 };
	install_indexed x = { index, entry, &none };
	ps_verify_options deep = *verify;
	ps_fetch_options capped;
	ps_verify_result *v;

	*out = NULL;
	deep.deep = 1;
	if (install_indexed_fetch_options(entry, fetch, &capped, err) != 0 ||
	    ps_fetch(entry->archive_url, path, &deep, &capped, out, err) != 0)
		return -1;
	v = *out;
	if (install_indexed_archive(&x, path, v->archive_digest, err) != 0 ||
	    same_pack(&x, path, v->format, v->id, v->version, v->tree_digest, v,
	    err) != 0) {
		(void)unlink(path);
		return -1;
	}
	return 0;
}
