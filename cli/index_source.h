/* Internal header of cli/: a signed index named by --index FILE|URL, as
 * install, outdated, update and index verify open it.
 */
#ifndef CLI_INDEX_SOURCE_H
#define CLI_INDEX_SOURCE_H

#include "packsign.h"

struct cli_index_source {
	const char *where;           /* FILE or https URL */
	const ps_trust *trust;
	int64_t at;
	const ps_fetch_options *fetch;
	const char *data_dir;        /* whose state is read; NULL: none */
	int require_state;           /* --require-index-state */
	int quiet;                   /* no first-use warning (JSON output) */
	int record;                  /* then record it as seen (under the
	                              * data directory's lock) */
};

/* A verified index and what the data directory had seen of its
 * publisher. */
struct cli_index {
	ps_index *index;
	int state_found;
	ps_index_seen seen;
	int recorded;                /* `record` wrote the state */
};

/*
 * Reads and verifies the index, then checks it against the state: a
 * refusal is reported; nothing seen warns once on stderr ("no index state
 * for ID: rollback cannot be checked on first use") or, with
 * require_state, is refused; with `record`, records it.  Returns an exit
 * code.
 */
int cli_index_open(const struct cli_index_source *src, struct cli_index *out);
void cli_index_close(struct cli_index *index);

struct json_t;
/* What the state had seen of the publisher: {version, index_sha256,
 * first_seen}, or null on first use. */
struct json_t *cli_index_state_json(const struct cli_index *index);

#endif
