/* Opening the index of --index: read, verified, held against the state
 * (cli/index_source.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/download_options.h"
#include "cli/index_source.h"
#include "cli/output.h"

static int
verified(const struct cli_index_source *src, ps_index **out)
{
	ps_index_verify_options vo;
	unsigned char *bytes = NULL;
	char shown[PS_INDEX_MAX_URL + 1];
	const char *label = cli_url_shown(src->where, shown, sizeof(shown));
	size_t len;
	ps_error err;
	int rc;

	if (ps_index_read(src->where, src->fetch, &bytes, &len, &err) != 0)
		return cli_report(&err);
	ps_index_verify_options_init(&vo);
	vo.trust = src->trust;
	if (src->at != 0)
		vo.at = src->at;
	rc = ps_index_verify(bytes, len, label, &vo, out, &err);
	free(bytes);
	return rc != 0 ? cli_report(&err) : EXIT_OK;
}

static void
warn_first_use(const ps_index *ix)
{
	fputs("packsign: warning: no index state for ", stderr);
	cli_put_safe(stderr, ix->publisher);
	fputs(": rollback cannot be checked on first use\n", stderr);
}

/* Against the state: rollback, equivocation, a first use. */
static int
checked(const struct cli_index_source *src, struct cli_index *out)
{
	ps_error err;

	if (ps_index_state_load(src->data_dir, out->index->publisher,
	    &out->seen, &out->state_found, &err) != 0 ||
	    ps_index_state_check(out->state_found ? &out->seen : NULL,
	    out->index, &err) != 0)
		return cli_report(&err);
	if (out->state_found)
		return EXIT_OK;
	/* A policy floor is the state of a first use. */
	if (ps_index_state_require(src->trust, out->index, &err) == 0)
		return EXIT_OK;
	if (src->require_state)
		return cli_report(&err);
	if (!src->quiet)
		warn_first_use(out->index);
	return EXIT_OK;
}

int
cli_index_open(const struct cli_index_source *src, struct cli_index *out)
{
	ps_error err;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = verified(src, &out->index);
	if (rc != EXIT_OK || src->data_dir == NULL)
		return rc;
	rc = checked(src, out);
	if (rc == EXIT_OK && src->record && ps_index_state_record(src->data_dir,
	    out->index, (int64_t)time(NULL), &out->recorded, &err) != 0)
		rc = cli_report(&err);
	return rc;
}

void
cli_index_close(struct cli_index *index)
{
	ps_index_free(index->index);
	index->index = NULL;
}

json_t *
cli_index_state_json(const struct cli_index *ci)
{
	char sha[PS_SHA256_STRING_LEN], at[PS_TIME_TEXT_LEN];

	if (!ci->state_found || ps_time_format(ci->seen.first_seen, at) != 0)
		return json_null();
	return json_pack("{s:I,s:s,s:s}", "version",
	    (json_int_t)ci->seen.version, "index_sha256",
	    ps_sha256_string(ci->seen.payload_sha256, sha), "first_seen", at);
}
