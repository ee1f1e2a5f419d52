/*
 * Where an index comes from: a local file or an https URL, read whole and
 * bounded by the envelope limit before a byte of it is parsed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "net/fetch.h"
#include "net/httpsurl.h"
#include "sign/dsse.h"
#include "util/error.h"
#include "util/fdio.h"

static int
download(const char *url, const ps_fetch_options *fetch, int fd,
    ps_error *err)
{
	ps_fetch_options defaults;
	net_sink sink;

	if (fetch == NULL) {
		ps_fetch_options_init(&defaults);
		fetch = &defaults;
	}
	memset(&sink, 0, sizeof(sink));
	sink.fd = fd;
	sink.max = SIGN_DSSE_MAX_BYTES;
	sink.max_envelope = 1;
	sink.max_why = "the most an index may hold";
	sink.missing = "no index at this URL";
	if (net_fetch(fetch, url, &sink, err) != 0)
		return -1;
	return lseek(fd, 0, SEEK_SET) == 0 ? 0 : util_fail_errno(err,
	    "io_error", url, "seek", errno);
}

int
ps_index_read(const char *where, const ps_fetch_options *fetch,
    unsigned char **bytes, size_t *len, ps_error *err)
{
	int remote = strstr(where, "://") != NULL;
	char *shown = NULL;
	int fd, rc;

	*bytes = NULL;
	*len = 0;
	fd = remote ? memfd_create("packsign-index", MFD_CLOEXEC) :
	    util_open_file(where, err);
	if (fd < 0)
		return remote ? util_fail_errno(err, "io_error", where,
		    "memfd_create", errno) : -1;
	rc = remote ? download(where, fetch, fd, err) : 0;
	/* Messages name a URL without user:password and query. */
	if (rc == 0 && remote && net_url_public(where, &shown, err) != 0)
		rc = -1;
	if (rc == 0)
		rc = sign_dsse_read_bytes(fd, shown != NULL ? shown : where, bytes,
		    len, err);
	free(shown);
	close(fd);
	return rc;
}
