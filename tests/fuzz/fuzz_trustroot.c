/*
 * Sigstore trusted roots (sigstore/trustroot.c): the input is parsed as a
 * trusted root or JSON Lines of several.  A refusal is exit 2 (a root is
 * operator input); a parsed root's every entry reads back, a log with a
 * key has a non-empty base URL and log id, and every authority a chain of
 * 1 to SIGSTORE_CHAIN_MAX certificates; validity windows never end before
 * they start.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "sigstore/trustroot.h"

static void
check_logs(const sigstore_log *logs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (logs[i].base_url[0] == '\0' || logs[i].log_id_len == 0)
			fuzz_fail("log", "no base URL or log id");
		if (logs[i].valid.has_end && sigstore_time_cmp(logs[i].valid.end,
		    logs[i].valid.start) < 0)
			fuzz_fail("log", "window ends before it starts");
	}
}

static void
check_authorities(const sigstore_authority *a, size_t n)
{
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		k = sk_X509_num(a[i].chain);
		if (k < 1 || k > SIGSTORE_CHAIN_MAX)
			fuzz_fail("authority", "chain length");
		if (a[i].valid.has_end && sigstore_time_cmp(a[i].valid.end,
		    a[i].valid.start) < 0)
			fuzz_fail("authority", "window ends before it starts");
	}
}

static void
check_entries(const ps_sigstore_root *root)
{
	ps_sigstore_root_info info;
	ps_sigstore_root_entry e;
	size_t k, i;

	ps_sigstore_root_get_info(root, &info);
	if (info.documents < 1 || info.documents > SIGSTORE_ROOT_MAX_DOCUMENTS)
		fuzz_fail("root", "document count");
	for (k = 0; k < 4; k++) {
		if (info.count[k] > SIGSTORE_ROOT_MAX_ENTRIES)
			fuzz_fail("root", "entry count");
		for (i = 0; i < info.count[k]; i++) {
			if (ps_sigstore_root_entry_get(root, (ps_sigstore_kind)k, i,
			    &e) != 0)
				fuzz_fail("root", "entry missing");
		}
		if (ps_sigstore_root_entry_get(root, (ps_sigstore_kind)k, i,
		    &e) == 0)
			fuzz_fail("root", "entry past the count");
	}
	check_logs(root->tlogs, root->tlog_count);
	check_logs(root->ctlogs, root->ctlog_count);
	check_authorities(root->cas, root->ca_count);
	check_authorities(root->tsas, root->tsa_count);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ps_sigstore_root *root = NULL;
	ps_error err;

	ps_error_clear(&err);
	if (ps_sigstore_root_parse(data, size, "fuzz.json", &root, &err) != 0) {
		fuzz_check_error(&err, "ps_sigstore_root_parse");
		if (err.status != PS_STATUS_FAILED)
			fuzz_fail("ps_sigstore_root_parse", "a root error is exit 2");
		if (root != NULL)
			fuzz_fail("ps_sigstore_root_parse", "root set on failure");
		return 0;
	}
	fuzz_note("ps_sigstore_root_parse", "ok");
	check_entries(root);
	ps_sigstore_root_free(root);
	return 0;
}
