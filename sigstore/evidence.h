/* Internal header of sigstore/: the result's evidence.
 *
 * Allocating ps_sigstore_result and writing into it what each step
 * verified (include/packsign.h, "sigstore").
 */
#ifndef SIGSTORE_EVIDENCE_H
#define SIGSTORE_EVIDENCE_H

#include "packsign.h"
#include "sigstore/run.h"

/* A result with room for the bundle's entries and timestamps. */
int sigstore_evidence_alloc(sigstore_run *run, ps_error *err);
/* The signing key's details and SHA-256. */
void sigstore_evidence_key(sigstore_run *run);
/* Entry `i`, verified. */
int sigstore_evidence_entry(sigstore_run *run, size_t i, ps_error *err);
/* Timestamp `i`: verified (`e` NULL) or skipped for `e`. */
int sigstore_evidence_timestamp(sigstore_run *run, size_t i, sigstore_time t,
    const sigstore_authority *tsa, const ps_error *e, ps_error *err);
/* The verified signing times. */
int sigstore_evidence_times(sigstore_run *run, ps_error *err);

#endif
