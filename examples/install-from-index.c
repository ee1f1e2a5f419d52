/*
 * install-from-index: what an installer's "install by name" embeds.
 * Reads a signed pack index (a file or an https URL), verifies it against
 * a trust policy, holds it against what the data directory has seen of
 * its publisher, picks the newest version of ID that satisfies SPEC, and
 * installs it from the URL the index lists, through libpacksign's public
 * header alone.
 *
 *   usage: install-from-index INDEX POLICY DATA_DIR ID [SPEC] [CA_FILE]
 *
 * SPEC is a version or a range (default "*"); CA_FILE, when given,
 * replaces the system's CAs for the downloads.  Exit status as
 * packsign's: 0 installed (or already installed), 1 refused, 2 the job
 * could not be done.
 *
 * Build it against an installed libpacksign:
 *   cc install-from-index.c $(pkg-config --cflags --libs packsign)
 */
#include <stdio.h>
#include <stdlib.h>

#include <packsign.h>

static void
put_safe(FILE *out, const char *text)
{
	const unsigned char *p;

	for (p = (const unsigned char *)text; *p != '\0'; p++) {
		if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\x%02x", *p);
		else
			fputc(*p, out);
	}
}

/* A refusal says what was checked, what was expected, what was found. */
static int
report(const ps_error *err)
{
	fputs("install-from-index: ", stderr);
	put_safe(stderr, err->subject);
	fputs(": ", stderr);
	put_safe(stderr, err->message);
	fprintf(stderr, "\n  code:     %s\n", err->code);
	if (err->expected[0] != '\0') {
		fputs("  expected: ", stderr);
		put_safe(stderr, err->expected);
		fputs("\n  found:    ", stderr);
		put_safe(stderr, err->found);
		fputc('\n', stderr);
	}
	return err->status == PS_STATUS_REFUSED ? 1 : 2;
}

/* The index, verified, and not older than what DATA_DIR has seen. */
static int
open_index(const char *where, const ps_trust *trust, const char *data_dir,
    const ps_fetch_options *fetch, ps_index **index, ps_error *err)
{
	ps_index_verify_options options;
	unsigned char *bytes = NULL;
	ps_index_seen seen;
	size_t len;
	int found, rc;

	if (ps_index_read(where, fetch, &bytes, &len, err) != 0)
		return -1;
	ps_index_verify_options_init(&options);
	options.trust = trust;
	rc = ps_index_verify(bytes, len, where, &options, index, err);
	free(bytes);
	if (rc != 0 || ps_index_state_load(data_dir, (*index)->publisher, &seen,
	    &found, err) != 0 || ps_index_state_check(found ? &seen : NULL,
	    *index, err) != 0)
		return -1;
	if (!found) {
		fputs("warning: no index state for ", stderr);
		put_safe(stderr, (*index)->publisher);
		fputs(": rollback cannot be checked on first use\n", stderr);
	}
	return 0;
}

static int
install(const ps_index *index, const ps_index_entry *entry,
    const ps_trust *trust, const char *data_dir,
    const ps_fetch_options *fetch)
{
	ps_index_install_options index_options;
	ps_install_options options;
	ps_install_result *result = NULL;
	ps_error err;
	int code = 0;

	ps_index_install_options_init(&index_options);
	ps_install_options_init(&options);
	options.verify.trust = trust;
	options.data_dir = data_dir;
	if (ps_install_indexed(index, entry, &index_options, &options, fetch,
	    &result, &err) != 0)
		code = report(&err);
	else {
		fputs(result->already_installed ? "already installed: " :
		    "installed ", stdout);
		put_safe(stdout, result->id);
		fputc(' ', stdout);
		put_safe(stdout, result->version);
		fputs("\nfrom: ", stdout);
		put_safe(stdout, entry->archive_url);
		fputc('\n', stdout);
	}
	ps_install_result_free(result);
	return code;
}

int
main(int argc, char **argv)
{
	const ps_index_entry *entry;
	ps_fetch_options fetch;
	ps_index *index = NULL;
	ps_trust *trust = NULL;
	ps_error err;
	int code;

	if (argc < 5 || argc > 7) {
		fputs("usage: install-from-index INDEX POLICY DATA_DIR ID [SPEC] "
		    "[CA_FILE]\n", stderr);
		return 2;
	}
	ps_error_clear(&err);
	ps_fetch_options_init(&fetch);
	fetch.ca_file = argc > 6 ? argv[6] : NULL;
	if (ps_trust_load_file(argv[2], &trust, &err) != 0)
		return report(&err);
	if (open_index(argv[1], trust, argv[3], &fetch, &index, &err) != 0 ||
	    ps_index_resolve(index, argv[4], argc > 5 ? argv[5] : NULL, 0,
	    &entry, &err) != 0)
		code = report(&err);
	else
		code = install(index, entry, trust, argv[3], &fetch);
	ps_index_free(index);
	ps_trust_free(trust);
	return code;
}
