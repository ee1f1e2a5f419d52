/* Internal header of cli/: the options of commands that download
 * (install URL, fetch).
 */
#ifndef CLI_DOWNLOAD_OPTIONS_H
#define CLI_DOWNLOAD_OPTIONS_H

#include "packsign.h"
#include "cli/options.h"

/* Callback: --timeout SECONDS (0: none) into a long. */
int cli_parse_seconds(const struct cli_usage *cmd, const struct cli_option *opt,
    const char *arg);

#define CLI_DOWNLOAD_OPTIONS(f) \
	CLI_STRING(0, "ca-file", &(f)->ca_file), \
	CLI_CALLBACK(0, "max-download", &(f)->max_download, cli_parse_limit), \
	CLI_CALLBACK(0, "timeout", &(f)->timeout, cli_parse_seconds)
#define CLI_DOWNLOAD_USAGE "[--ca-file FILE] [--max-download BYTES] " \
    "[--timeout SECONDS]"
#define CLI_DOWNLOAD_FLAGS_HELP \
    "  --ca-file FILE       trust the CAs of FILE (PEM) instead of the\n" \
    "                       system's, for https downloads\n" \
    "  --max-download BYTES most archive bytes to download (default 16 GiB;\n" \
    "                       0: no limit); a .sig holds at most 4 MiB\n" \
    "  --timeout SECONDS    most time for each download (default: none; a\n" \
    "                       connection waits 30 s, a stall of 60 s ends it)\n"

/* 1 when `arg` looks like a URL (holds "://"): install downloads it, and
 * refuses every scheme but https. */
int cli_is_url(const char *arg);

/* `url` without user:password@, query and fragment, in `buf` (`url`
 * itself when it is no URL): what output shows. */
const char *cli_url_shown(const char *url, char *buf, size_t size);

/* The proxy of https_proxy (else HTTPS_PROXY) and no_proxy (else
 * NO_PROXY) into `f`. */
void cli_download_proxy(ps_fetch_options *f);
/* cli_download_proxy(), and an --sig that is a URL into f->sig_url, taken
 * out of `verify`. */
void cli_download_setup(ps_fetch_options *f, ps_verify_options *verify);

#endif
