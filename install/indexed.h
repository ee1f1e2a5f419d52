/* Internal header of install/: installing an index entry.
 *
 * What ps_install_indexed() adds to an install from a URL
 * (docs/formats/index.md, "Installing"): the client state under the lock,
 * and the checks that bind the downloaded archive and its verified
 * statement to the entry the index lists.
 */
#ifndef INSTALL_INDEXED_H
#define INSTALL_INDEXED_H

#include "install/datadir.h"
#include "packsign.h"
#include "sign/statement.h"

typedef struct install_indexed {
	const ps_index *index;
	const ps_index_entry *entry;
	const ps_index_install_options *o;
} install_indexed;

/* The entry of `index` that is `entry` by format, id, version and
 * archive digest (invalid_argument when none: an entry of another index
 * or copy), refused when yanked unless `allow_yanked` (version_yanked). */
int install_indexed_entry(const ps_index *index, const ps_index_entry *entry,
    int allow_yanked, const ps_index_entry **own, ps_error *err);
/* Under the lock: index_state_missing when asked for, then the state's
 * check and (not on a dry run) record. */
int install_indexed_state(const install_datadir *dd, const install_indexed *x,
    const ps_trust *trust, int dry_run, int64_t now, ps_error *err);
/* `fetch` (NULL: defaults) for the entry's archive: capped at its size;
 * fetch_too_large when the caller's own cap is lower. */
int install_indexed_fetch_options(const ps_index_entry *entry,
    const ps_fetch_options *fetch, ps_fetch_options *capped, ps_error *err);
/* A local archive's size (its file's, before it is copied) against the
 * entry's. */
int install_indexed_size(const install_indexed *x, const char *label,
    uint64_t size, ps_error *err);
/* The entry's archive download, `downloaded` 1 when it completed (else
 * err says why): its size, then its SHA-256, against the entry's; a body
 * over the entry's size (fetch_too_large: the cap is that size), shorter
 * or other is index_mismatch.  Other download errors pass through. */
int install_indexed_download(const install_indexed *x, const char *label,
    int downloaded, uint64_t size, const unsigned char sha256[PS_SHA256_LEN],
    ps_error *err);
/* The verified statement and counted signers against the entry. */
int install_indexed_statement(const install_indexed *x, const char *label,
    const sign_statement *st, const ps_verify_result *v, ps_error *err);

#endif
