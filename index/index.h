/* Internal header of index/: the signed pack index.
 *
 * The index model's canonical payload (docs/formats/index.md) and the
 * rules every entry obeys, shared by the reader (verify.c), the writer
 * (build.c) and the resolver (resolve.c).  The public interface is the
 * "index" sections of include/packsign.h.
 */
#ifndef INDEX_INDEX_H
#define INDEX_INDEX_H

#include <stddef.h>

#include "packsign.h"
#include "sign/dsse.h"

#define INDEX_FORMAT_VERSION 1          /* "packsign_index" */
#define INDEX_MAX_SIGNATURES 8          /* of one index envelope */
/* The most payload packsign signs (the DSSE writer's limit, half the
 * envelope's: base64 and the signatures fit around it). */
#define INDEX_MAX_PAYLOAD (SIGN_DSSE_MAX_BYTES / 2)

/* Canonical JSON of the payload: sorted keys, no whitespace, ASCII, no
 * final newline.  *out is malloc'ed. */
int index_payload_write(const ps_index *index, char **out, size_t *len,
    ps_error *err);
/* Parses a verified payload (index_invalid, naming the field); the
 * entries are checked, sorted and their archive URLs composed. */
int index_payload_parse(const unsigned char *bytes, size_t len,
    const char *label, ps_index **out, ps_error *err);

/* Sorts the entries (id, format name, version precedence) and refuses
 * two of one id, format and precedence (index_invalid). */
int index_sort(ps_index *index, const char *label, ps_error *err);
/* The order of that sort: <0, 0, >0. */
int index_entry_compare(const ps_index_entry *a, const ps_index_entry *b);
void index_entry_clear(ps_index_entry *entry);

/* A base URL: absolute https, ending in '/', no query or fragment, at
 * most PS_INDEX_MAX_URL bytes (index_url_invalid). */
int index_base_url_check(const char *url, const char *label, ps_error *err);
/* An entry's url: absolute (as a base URL, not ending in '/') or relative
 * (segments of unreserved and percent-encoded bytes, no "." or ".."
 * segment, no leading '/'); sets entry->archive_url from `base_url`
 * (relative without one: index_url_invalid). */
int index_entry_compose_url(ps_index_entry *entry, const char *base_url,
    const char *label, ps_error *err);

/* The entry's bundles[k] (absolute, or relative to `base_url`, under
 * the url rules, its name ending in .json) composed into bundle_urls[k],
 * which must be on the archive URL's https host and port
 * (index_url_invalid).  After index_entry_compose_url(). */
int index_entry_compose_bundle(ps_index_entry *entry, size_t k,
    const char *base_url, const char *label, ps_error *err);

/* Printable ASCII (0x20-0x7e) of 1 to `max` bytes; 0 / -1. */
int index_text_valid(const char *s, size_t max, int allow_space);

#endif
