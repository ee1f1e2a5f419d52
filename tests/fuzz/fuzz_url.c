/*
 * URLs and redirects (docs/formats/install.md, "From a URL"): the URL a
 * user or a script hands to install, and the Location a server answers a
 * "latest" request with.  Input: the URL, then after the first LF the
 * redirect target.  Nothing here touches the network: net/httpsurl.c is
 * pure string work, and these are its invariants.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fuzz.h"
#include "net/httpsurl.h"

static void
check_public(const char *url, const char *pub)
{
	ps_error err;
	const char *auth = pub + 8;
	size_t host_len = strcspn(auth, "/");

	if (strncasecmp(pub, "https://", 8) != 0 || strchr(pub, '?') != NULL ||
	    strchr(pub, '#') != NULL || memchr(auth, '@', host_len) != NULL)
		fuzz_fail("net_url_public", pub);
	if (net_url_check(pub, &err) != 0)
		fuzz_fail("net_url_public: not a valid URL", pub);
	if (strlen(pub) > strlen(url))
		fuzz_fail("net_url_public: longer than the URL", pub);
}

static void
check_sig(const char *pub, const char *sig)
{
	char *sig_pub = NULL;
	ps_error err;

	/* Only the 4 bytes of ".sig" may take it past the length limit. */
	if (net_url_check(sig, &err) != 0) {
		if (strlen(sig) <= NET_URL_MAX)
			fuzz_fail("net_url_sig: not a valid URL", sig);
		return;
	}
	if (net_url_public(sig, &sig_pub, &err) != 0)
		fuzz_fail("net_url_public of the .sig URL", err.code);
	if (strlen(sig_pub) != strlen(pub) + 4 ||
	    strncmp(sig_pub, pub, strlen(pub)) != 0 ||
	    strcmp(sig_pub + strlen(pub), ".sig") != 0)
		fuzz_fail("net_url_sig: not the URL's path + .sig", sig_pub);
	free(sig_pub);
}

static void
check_name(const char *url)
{
	ps_error err;
	char *name = NULL;

	if (net_url_name(url, &name, &err) != 0) {
		fuzz_check_error(&err, "net_url_name");
		if (name != NULL || strcmp(err.code, "url_name_invalid") != 0)
			fuzz_fail("net_url_name", err.code);
		return;
	}
	if (name[0] == '\0' || strchr(name, '/') != NULL ||
	    strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		fuzz_fail("net_url_name: not a file name", name);
	free(name);
}

/* A redirect accepted as the same asset of a release ends in it. */
static void
check_redirect(const char *url, const char *location)
{
	const char *seg, *lseg;
	size_t len, llen;
	char *asset;
	ps_error err;

	if (!net_url_is_latest(url))
		return;
	net_url_last_segment(url, &seg, &len);
	if (len == 0)
		fuzz_fail("net_url_is_latest: no asset", url);
	if ((asset = strndup(seg, len)) == NULL)
		abort();
	if (net_url_check(location, &err) == 0 &&
	    net_url_is_release_asset(location, asset)) {
		net_url_last_segment(location, &lseg, &llen);
		if (llen != len || memcmp(lseg, seg, len) != 0)
			fuzz_fail("net_url_is_release_asset", location);
	}
	free(asset);
}

static void
one_url(const char *url, const char *location)
{
	char *pub = NULL, *sig = NULL;
	ps_error err;

	if (net_url_check(url, &err) != 0) {
		fuzz_check_error(&err, "net_url_check");
		if (err.status != PS_STATUS_FAILED)
			fuzz_fail("net_url_check: not exit 2", err.code);
		return;
	}
	if (net_url_public(url, &pub, &err) != 0 ||
	    net_url_sig(url, &sig, &err) != 0)
		fuzz_fail("net_url_public/sig failed", err.code);
	check_public(url, pub);
	check_sig(pub, sig);
	check_name(url);
	check_redirect(url, location);
	free(pub);
	free(sig);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *nl;

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (strlen(text) == size) {
		nl = strchr(text, '\n');
		if (nl != NULL)
			*nl = '\0';
		one_url(text, nl != NULL ? nl + 1 : "");
	}
	free(text);
	return 0;
}
