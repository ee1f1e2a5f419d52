/* Internal header of install/: archives and signatures from a URL.
 *
 * What ps_install_url() and ps_fetch() share (docs/formats/install.md,
 * "From a URL"): the URL resolved once (a GitHub "latest" asset), the
 * archive's file name, the signature's URL, and the two downloads, the
 * signature bounded by the envelope limit, the archive hashed as it
 * arrives.  The transfers themselves are net/'s.
 */
#ifndef INSTALL_DOWNLOAD_H
#define INSTALL_DOWNLOAD_H

#include <stdint.h>

#include "packsign.h"

typedef struct install_download {
	const ps_fetch_options *o;
	char *url;                   /* what is requested (resolved) */
	char *sig_url;               /* NULL: the signature is a local file */
	char *public_url;            /* the caller's URL without user:password
	                              * and query: receipts, messages */
	char *name;                  /* the archive's file name, decoded */
	char *label;                 /* public URL ending in `name`: what
	                              * verification names */
} install_download;

/* Checks `url`, resolves a "latest" release URL (one request), names the
 * archive (url_name_invalid, and the name rules) and its signature
 * (`options->sig_url`, else `sig_path` when not NULL, else URL.sig). */
int install_download_prepare(const char *url, const ps_fetch_options *options,
    const char *sig_path, install_download *d, ps_error *err);
void install_download_clear(install_download *d);

/* The signature into `fd` (at most the envelope limit). */
int install_download_sig(install_download *d, int fd, ps_error *err);

/* A Sigstore bundle at the https `url` into `fd` (at most the envelope
 * limit; url_invalid for another URL). */
int install_download_bundle(install_download *d, const char *url, int fd,
    ps_error *err);

/* The archive into `fd`, its SHA-256 taken as it arrives; *received
 * the bytes kept (on failure too). */
int install_download_archive(install_download *d, int fd,
    unsigned char sha256[PS_SHA256_LEN], uint64_t *received, ps_error *err);

#endif
