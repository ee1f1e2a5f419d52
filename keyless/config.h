/* Internal header of keyless/: where keyless signing sends its requests.
 *
 * Sigstore's SigningConfig v0.2 (protobuf-specs
 * dev.sigstore.trustroot.v1.SigningConfig, JSON): caUrls, rekorTlogUrls
 * and tsaUrls, each a list of services with a url, a majorApiVersion and
 * a validFor window.  docs/formats/signature.md, section 9.5, says which
 * entry is used; without a file, the public-good instance's.
 */
#ifndef KEYLESS_CONFIG_H
#define KEYLESS_CONFIG_H

#include <stdint.h>

#include "packsign.h"

#define KEYLESS_SIGNING_CONFIG_V02 \
	"application/vnd.dev.sigstore.signingconfig.v0.2+json"
#define KEYLESS_PUBLIC_FULCIO "https://fulcio.sigstore.dev"
#define KEYLESS_PUBLIC_REKOR "https://rekor.sigstore.dev"

typedef struct keyless_endpoints {
	char *fulcio;        /* base URL */
	char *rekor;         /* base URL */
	int rekor_version;   /* 1 or 2 */
	char *tsa;           /* the full URL; NULL: none */
} keyless_endpoints;

/*
 * The endpoints of the file at `path` as of `now`, or the public-good
 * defaults when `path` is NULL.  Codes: signing_config_invalid (exit 2:
 * unreadable, not v0.2, no usable CA or log), not_found, io_error.
 */
int keyless_endpoints_load(const char *path, int64_t now,
    keyless_endpoints *out, ps_error *err);
void keyless_endpoints_clear(keyless_endpoints *e);

#endif
