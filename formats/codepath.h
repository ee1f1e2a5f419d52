/* Internal header of formats/: which files of a pack are code
 * (docs/formats/diff.md, "Code"). */
#ifndef FORMATS_CODEPATH_H
#define FORMATS_CODEPATH_H

#include "packsign.h"

/* 1 when `path` (canonical, relative) decides what the pack runs or
 * builds: by suffix or name for every format, and by the format's own
 * places (the AgentPack entrypoint and agent configs, autograph's
 * agent/plugins/). */
int formats_code_path(const ps_manifest *m, const char *path);

#endif
