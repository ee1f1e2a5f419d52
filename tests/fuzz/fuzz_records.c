/*
 * The data directory's records (docs/formats/install.md, "Pins" and
 * "Receipt"): the pins file and the receipt, both JSON an installer reads
 * back from a directory anyone with the user's rights may have edited.
 * The first byte chooses the reader.  A record that parses must hold
 * what the format promises (1 to 64 signers, each with identity and
 * fingerprint; entries sorted and unique); a refusal must be the
 * format's code, exit 1, and leave nothing behind.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "install/pins.h"
#include "install/receipt.h"

static void
check_pins(const ps_pins *p)
{
	size_t i;

	if (p->id == NULL || p->version == NULL || p->signer_count == 0 ||
	    p->signer_count > 64)
		fuzz_fail("install_pins_parse", "pins without id, version or "
		    "1 to 64 signers");
	for (i = 0; i < p->signer_count; i++) {
		if (p->signers[i].identity == NULL ||
		    p->signers[i].fingerprint == NULL)
			fuzz_fail("install_pins_parse", "a signer without "
			    "identity or fingerprint");
	}
}

static void
check_receipt(const ps_installed *r)
{
	size_t i;

	if (r->signer_count == 0 || r->signer_count > 64 || r->id == NULL ||
	    r->version == NULL || r->signer == NULL)
		fuzz_fail("install_receipt_parse", "receipt without signers");
	for (i = 1; i < r->signer_count; i++) {
		if (strcmp(r->signers[i - 1].identity, r->signers[i].identity) >= 0)
			fuzz_fail("install_receipt_parse", "signers unsorted");
	}
	for (i = 1; i < r->entry_count; i++) {
		if (strcmp(r->entries[i - 1].path, r->entries[i].path) >= 0)
			fuzz_fail("install_receipt_parse", "entries unsorted");
	}
	if (r->consent.from_version != NULL && r->consent.by == NULL)
		fuzz_fail("install_receipt_parse", "consent without by");
}

static void
refused(const ps_error *err, const char *call, const char *code,
    const void *out)
{
	fuzz_check_error(err, call);
	if (out != NULL)
		fuzz_fail(call, "output set on failure");
	if (err->status == PS_STATUS_REFUSED && strcmp(err->code, code) != 0)
		fuzz_fail(call, "a refusal of another code");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ps_installed *receipt = NULL;
	ps_pins *pins = NULL;
	ps_error err;

	if (size < 1)
		return 0;
	ps_error_clear(&err);
	if ((data[0] & 1) == 0) {
		if (install_pins_parse((const char *)data + 1, size - 1, "fuzz",
		    &pins, &err) == 0) {
			fuzz_note("install_pins_parse", "ok");
			check_pins(pins);
		} else {
			refused(&err, "install_pins_parse", "pins_invalid", pins);
		}
		ps_pins_free(pins);
		return 0;
	}
	if (install_receipt_parse((const char *)data + 1, size - 1, "fuzz",
	    &receipt, &err) == 0) {
		fuzz_note("install_receipt_parse", "ok");
		check_receipt(receipt);
	} else {
		refused(&err, "install_receipt_parse", "receipt_invalid", receipt);
	}
	install_receipt_free(receipt);
	return 0;
}
