/* Internal header of formats/: license tables.
 *
 * SPDX and OSI license identifiers, generated from the .txt files by
 * scripts/gen-licenses.
 */
#ifndef FORMATS_LICENSES_H
#define FORMATS_LICENSES_H

int formats_license_is_osi(const char *id);
/* 1 listed, 2 listed but deprecated, 0 not listed; *canonical receives the
 * listed spelling when the match ignored case. */
int formats_license_spdx(const char *id, const char **canonical);

#endif
