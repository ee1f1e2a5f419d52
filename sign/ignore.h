/*
 * .packsignignore at the pack root: one glob pattern a line
 * (docs/formats/canonical-tar.md, "Ignored paths").
 */
#ifndef PS_SIGN_IGNORE_H
#define PS_SIGN_IGNORE_H

#include <stddef.h>

#include "packsign.h"

#define PS_IGNORE_FILE ".packsignignore"
#define PS_IGNORE_MAX_BYTES (64 * 1024)
#define PS_IGNORE_MAX_RULES 1024

typedef struct ps_ignore ps_ignore;

/* Parses the file's text; syntax errors are refused as FILE:LINE. */
int ps_ignore_parse(const char *text, size_t len, ps_ignore **out,
    ps_error *err);
/* Reads PS_IGNORE_FILE below `rootfd`, if any (no file: no rules). */
int ps_ignore_load(int rootfd, ps_ignore **out, ps_error *err);
/* 1 when `path` (canonical, relative) is ignored. */
int ps_ignore_match(const ps_ignore *rules, const char *path, int is_dir);
void ps_ignore_free(ps_ignore *rules);

#endif
