/* Internal header of install/: install receipts.
 *
 * Install receipts (docs/formats/install.md, "Receipt"): the JSON record
 * beside each installed tree of what was verified when it was installed.
 */
#ifndef INSTALL_RECEIPT_H
#define INSTALL_RECEIPT_H

#include "packsign.h"

#define INSTALL_RECEIPT_VERSION 3
#define INSTALL_RECEIPT_MAX_BYTES (512 * 1024 * 1024)

/* The receipt's JSON text; caller frees. */
int install_receipt_format(const ps_installed *receipt, char **out, ps_error *err);
/* The same text written to `fd` as it is made (`label` names it in
 * errors): memory stays small whatever the number of files.  `url` (may
 * be NULL) is recorded as archive.url: where it was downloaded from. */
int install_receipt_write(int fd, const ps_installed *receipt,
    const char *url, const char *label, ps_error *err);

/*
 * Parses and checks a receipt: every field typed, digests well-formed,
 * paths obeying the name rules, entries sorted without duplicates.
 * Refuses receipt_invalid naming `label`.
 */
int install_receipt_parse(const char *text, size_t len, const char *label,
    ps_installed **out, ps_error *err);

/* Reads DIR/receipts/<rel>.json below `dirfd` and parses it. */
int install_receipt_load(int dirfd, const char *rel, const char *label,
    ps_installed **out, ps_error *err);

/* Frees what `receipt` holds, not the struct itself. */
void install_receipt_clear(ps_installed *receipt);
void install_receipt_free(ps_installed *receipt);

#endif
