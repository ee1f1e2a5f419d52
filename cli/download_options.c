/* The options of commands that download: the CLI reads the proxy from the
 * environment and hands it to the library, which reads none. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/download_options.h"
#include "cli/cli.h"
#include "cli/output.h"

#define TIMEOUT_MAX (7L * 24 * 3600)

int
cli_parse_seconds(const struct cli_usage *cmd, const struct cli_option *opt,
    const char *arg)
{
	long long value;

	if (cli_parse_int64(arg, 0, TIMEOUT_MAX, &value) != 0)
		return cli_usage_error(cmd, "--%s must be whole seconds from 0 "
		    "(none) to %ld, found '%s'", opt->name, TIMEOUT_MAX, arg);
	*(long *)opt->value = (long)value;
	return EXIT_OK;
}

int
cli_is_url(const char *arg)
{
	return strstr(arg, "://") != NULL;
}

const char *
cli_url_shown(const char *url, char *buf, size_t size)
{
	const char *auth = strstr(url, "://"), *end, *at, *host;

	if (auth == NULL)
		return url;
	auth += 3;
	end = auth + strcspn(auth, "/?#");
	host = auth;
	while ((at = memchr(host, '@', (size_t)(end - host))) != NULL)
		host = at + 1;
	snprintf(buf, size, "%.*s%.*s", (int)(auth - url), url,
	    (int)(end + strcspn(end, "?#") - host), host);
	return buf;
}

static const char *
env_either(const char *lower, const char *upper)
{
	const char *v = getenv(lower);

	if (v == NULL || *v == '\0')
		v = getenv(upper);
	return v != NULL && *v != '\0' ? v : NULL;
}

void
cli_download_proxy(ps_fetch_options *f)
{
	f->proxy = env_either("https_proxy", "HTTPS_PROXY");
	f->no_proxy = env_either("no_proxy", "NO_PROXY");
}

void
cli_download_setup(ps_fetch_options *f, ps_verify_options *verify)
{
	cli_download_proxy(f);
	if (verify->sig_path != NULL && cli_is_url(verify->sig_path)) {
		f->sig_url = verify->sig_path;
		verify->sig_path = NULL;
	}
}
