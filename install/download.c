/*
 * Archives and signatures from an https URL (docs/formats/install.md,
 * "From a URL"): the signature is fetched first, by the caller before it
 * verifies; the archive only once the signature verified, into the fd
 * its caller made (install: the private anonymous copy), hashed as it
 * arrives, so that no byte of it is parsed before its digest matched.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "install/download.h"
#include "net/fetch.h"
#include "net/httpsurl.h"
#include "pack/archivename.h"
#include "sign/dsse.h"
#include "util/error.h"
#include "util/pathname.h"
#include "util/sha256.h"
#include "util/strings.h"

void
install_download_clear(install_download *d)
{
	free(d->url);
	free(d->sig_url);
	free(d->public_url);
	free(d->name);
	free(d->label);
	memset(d, 0, sizeof(*d));
}

/* A "latest" asset URL is resolved once, so that the signature and the
 * archive come from one release even if another is published between
 * the two downloads. */
static int
resolve(const char *url, install_download *d, ps_error *err)
{
	const char *seg;
	char *asset = NULL;
	size_t len;
	int rc;

	if (!net_url_is_latest(url))
		return util_strdup(&d->url, url, "URL", err);
	if (net_resolve(d->o, url, &d->url, err) != 0)
		return -1;
	net_url_last_segment(url, &seg, &len);
	if ((asset = strndup(seg, len)) == NULL)
		return util_fail_oom(err, d->public_url);
	rc = net_url_is_release_asset(d->url, asset) ? 0 : -1;
	if (rc != 0) {
		util_fail(err, "fetch_redirect", d->public_url, "resolved the "
		    "latest release: its redirect does not name the same asset "
		    "of a release (.../releases/download/TAG/%s)", asset);
		util_error_expect(err, "/releases/download/TAG/ASSET",
		    "another path");
	}
	free(asset);
	return rc;
}

/* The public URL with its last segment decoded: verification takes the
 * archive's name (the signed subject's) from its end. */
static int
make_label(install_download *d, ps_error *err)
{
	const char *slash = strrchr(d->public_url, '/');
	int n = slash != NULL ? (int)(slash - d->public_url) + 1 : 0;

	if (asprintf(&d->label, "%.*s%s", n, d->public_url, d->name) < 0) {
		d->label = NULL;
		return util_fail_oom(err, d->public_url);
	}
	return 0;
}

/* The name rules' refusal, as url_name_invalid: what the rule found. */
static int
name_refused(const install_download *d, ps_error *err)
{
	char found[PS_ERROR_VALUE_MAX];

	snprintf(found, sizeof(found), "%.400s (%.40s)", err->message,
	    err->code);
	util_refuse(err, "url_name_invalid", d->public_url, "took the "
	    "archive's file name from the URL's last path segment, "
	    "percent-decoded: it breaks the name rules");
	return util_error_expect(err, "a file name under the name rules",
	    found);
}

int
install_download_prepare(const char *url, const ps_fetch_options *o,
    const char *sig_path, install_download *d, ps_error *err)
{
	memset(d, 0, sizeof(*d));
	d->o = o;
	if (net_url_check(url, err) != 0 ||
	    net_url_public(url, &d->public_url, err) != 0 ||
	    net_url_name(url, &d->name, err) != 0)
		return -1;
	if (util_path_check(d->name, d->public_url, err) != 0)
		return name_refused(d, err);
	if (pack_archive_name_readable(d->name, d->public_url, err) == NULL ||
	    make_label(d, err) != 0 || resolve(url, d, err) != 0)
		return -1;
	if (o->sig_url != NULL) {
		if (net_url_check(o->sig_url, err) != 0)
			return -1;
		return util_strdup(&d->sig_url, o->sig_url, "URL", err);
	}
	if (sig_path != NULL)
		return 0;
	return net_url_sig(d->url, &d->sig_url, err);
}

int
install_download_sig(install_download *d, int fd, ps_error *err)
{
	char *shown = NULL, missing[PS_ERROR_TEXT_MAX];
	net_sink sink = { fd, NULL, SIGN_DSSE_MAX_BYTES, 1, "a signature "
	    "envelope may hold", NULL, 0, 0, 0, NULL };
	int rc;

	if (net_url_public(d->sig_url, &shown, err) != 0)
		return -1;
	snprintf(missing, sizeof(missing), "no signature at %s (an unsigned "
	    "archive?)", shown);
	free(shown);
	sink.missing = missing;
	rc = net_fetch(d->o, d->sig_url, &sink, err);
	return rc;
}

int
install_download_bundle(install_download *d, const char *url, int fd,
    ps_error *err)
{
	net_sink sink = { fd, NULL, SIGN_DSSE_MAX_BYTES, 1, "a Sigstore "
	    "bundle may hold", NULL, 0, 0, 0, NULL };

	if (net_url_check(url, err) != 0)
		return -1;
	return net_fetch(d->o, url, &sink, err);
}

int
install_download_archive(install_download *d, int fd,
    unsigned char sha256[PS_SHA256_LEN], uint64_t *received, ps_error *err)
{
	net_sink sink = { fd, NULL, d->o->max_download, 0, "the download "
	    "limit (max_download) allows", NULL, 1, 0, 0, NULL };
	int rc;

	if ((sink.hash = util_sha256_new()) == NULL)
		return util_fail_oom(err, d->label);
	rc = net_fetch(d->o, d->url, &sink, err);
	*received = sink.received;
	if (rc == 0 && util_sha256_final(sink.hash, sha256) != 0)
		rc = util_fail(err, "internal_error", d->label, "SHA-256 failed");
	util_sha256_free(sink.hash);
	return rc;
}
