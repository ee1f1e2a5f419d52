/* Internal header of sigstore/: times to the nanosecond.
 *
 * Protobuf's Timestamp in JSON (RFC 3339) and RFC 3161's genTime carry
 * fractions of a second; validity windows compare them exactly.
 */
#ifndef SIGSTORE_RFC3339_H
#define SIGSTORE_RFC3339_H

#include <stdint.h>

/* A time with nanoseconds (protobuf Timestamp, RFC 3161 genTime). */
typedef struct sigstore_time {
	int64_t sec;
	int32_t nsec;
} sigstore_time;

/*
 * RFC 3339 "YYYY-MM-DDTHH:MM:SS[.F{1,9}](Z|+HH:MM|-HH:MM)" (a lowercase t
 * or z too), years 1970 to 9999; 0 / -1.
 */
int sigstore_time_parse(const char *text, sigstore_time *out);
/* -1, 0, 1 as a is before, equal to, after b. */
int sigstore_time_cmp(sigstore_time a, sigstore_time b);
/* "YYYY-MM-DDTHH:MM:SS[.fffffffff]Z" into `out` (40 bytes). */
void sigstore_time_format(sigstore_time t, char out[40]);

#endif
