/* Internal header of formats/: ISO 8601 durations (holon data.retention).
 *
 * What validation accepts and what an upgrade compares: a retention grows
 * when its duration does, so both read it one way.
 */
#ifndef FORMATS_DURATION_H
#define FORMATS_DURATION_H

/*
 * PnYnMnDTnHnMnS (each part optional, at least one, in that order, a
 * fraction allowed) or PnW.  0 and, when `seconds` is not NULL, the
 * length in seconds counting a year as 365 days and a month as 30 (the
 * order of two durations is all anyone compares); -1 when it is not one.
 */
int formats_duration_seconds(const char *text, double *seconds);

#endif
