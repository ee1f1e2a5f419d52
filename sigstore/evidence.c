/* The result of a Sigstore verification: what each step verified. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sigstore/evidence.h"
#include "sigstore/fulcio.h"
#include "util/error.h"
#include "util/sha256.h"

void
ps_sigstore_result_free(ps_sigstore_result *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->log_entry_count; i++) {
		free(r->log_entries[i].log_url);
		free(r->log_entries[i].checkpoint_origin);
	}
	free(r->log_entries);
	for (i = 0; i < r->timestamp_count; i++) {
		free(r->timestamps[i].authority);
		free(r->timestamps[i].reason);
	}
	free(r->timestamps);
	free(r->signing_times);
	free(r->payload_type);
	free(r->payload);
	sigstore_fulcio_clear(&r->certificate);
	free(r);
}

int
sigstore_evidence_alloc(sigstore_run *run, ps_error *err)
{
	ps_sigstore_result *r = run->r;
	const sigstore_bundle *b = run->b;

	r->bundle_version = b->minor;
	r->keyless = b->material != SIGSTORE_MATERIAL_KEY;
	r->dsse = b->dsse;
	r->log_entries = calloc(b->entry_count + 1, sizeof(*r->log_entries));
	r->timestamps = calloc(b->timestamp_count + 1, sizeof(*r->timestamps));
	r->signing_times = calloc(SIGSTORE_TIMES_MAX, sizeof(*r->signing_times));
	if (r->log_entries == NULL || r->timestamps == NULL ||
	    r->signing_times == NULL ||
	    (b->dsse && (r->payload_type = strdup(b->payload_type)) == NULL))
		return util_fail_oom(err, run->subject);
	return 0;
}

static void
hex(const unsigned char *b, size_t len, char *out)
{
	size_t i;

	for (i = 0; i < len; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	out[2 * len] = '\0';
}

void
sigstore_evidence_key(sigstore_run *run)
{
	unsigned char digest[PS_SHA256_LEN];

	snprintf(run->r->key_details, sizeof(run->r->key_details), "%s",
	    sigstore_pkey_details(run->key));
	if (util_sha256_buffer(run->key->spki, run->key->spki_len, digest) == 0)
		hex(digest, sizeof(digest), run->r->key_sha256);
}

int
sigstore_evidence_entry(sigstore_run *run, size_t i, ps_error *err)
{
	const sigstore_entry *e = &run->b->entries[i];
	const sigstore_tlog_proof *p = &run->proofs[i];
	ps_sigstore_log_entry *out = &run->r->log_entries[i];

	out->log_url = strdup(p->log->base_url);
	if (out->log_url == NULL)
		return util_fail_oom(err, run->subject);
	hex(e->log_id, e->log_id_len, out->log_id);
	out->log_index = e->log_index;
	snprintf(out->kind, sizeof(out->kind), "%s", e->kind);
	snprintf(out->version, sizeof(out->version), "%s", e->version);
	out->rekor_version = p->rekor_version;
	out->set_verified = p->set_verified;
	out->has_integrated_time = p->set_verified;
	out->integrated_time = p->set_verified ? e->integrated_time : 0;
	out->proof_verified = p->proof_verified;
	if (p->proof_verified) {
		out->tree_size = e->tree_size;
		hex(e->root_hash, 32, out->root_hash);
		out->checkpoint_origin = strdup(p->checkpoint.origin);
		if (out->checkpoint_origin == NULL)
			return util_fail_oom(err, run->subject);
	}
	run->r->log_entry_count = i + 1;
	return 0;
}

int
sigstore_evidence_timestamp(sigstore_run *run, size_t i, sigstore_time t,
    const sigstore_authority *tsa, const ps_error *e, ps_error *err)
{
	ps_sigstore_timestamp *out = &run->r->timestamps[i];

	run->r->timestamp_count = i + 1;
	out->verified = e == NULL;
	if (e != NULL) {
		snprintf(out->code, sizeof(out->code), "%s", e->code);
		out->reason = strdup(e->message);
		return out->reason == NULL ? util_fail_oom(err, run->subject) : 0;
	}
	out->time = t.sec;
	out->nanoseconds = t.nsec;
	if (tsa->uri != NULL && (out->authority = strdup(tsa->uri)) == NULL)
		return util_fail_oom(err, run->subject);
	return 0;
}

int
sigstore_evidence_times(sigstore_run *run, ps_error *err)
{
	size_t i;

	(void)err;
	for (i = 0; i < run->time_count; i++)
		run->r->signing_times[i] = run->times[i].sec;
	run->r->signing_time_count = run->time_count;
	return 0;
}
