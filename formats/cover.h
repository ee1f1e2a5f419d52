/* Internal header of formats/: whether one permission covers another
 * (trust-policy.md, "Permission ceilings"; diff.md, "Widening"). */
#ifndef FORMATS_COVER_H
#define FORMATS_COVER_H

#include "packsign.h"

/* Hosts "*", "*.S" or a name: "*" covers all; "*.S" the names below S
 * at any depth and "*.D" when D is S or below it, never S itself nor
 * "*"; a name only itself (ASCII case-insensitive). */
int formats_host_covers(const char *c, const char *p);

/* The host covers, and a missing port or protocol of `c` means any; a
 * missing one of `p` means any too, which only a missing one covers. */
int formats_egress_covers(const ps_egress *c, const ps_egress *p);

/* Absolute paths by component prefix: "/w/out" covers "/w/out/x", not
 * "/w/outside"; "/" covers every path. */
int formats_path_covers(const char *c, const char *p);

/* "host[:port][/protocol]": a rule as packsign prints and compares it. */
void formats_egress_text(const ps_egress *e, char *out, size_t size);

#endif
