/* Internal header of cli/: installed packs and re-checks of their trees
 * as list, uninstall and verify --installed print them.
 */
#ifndef CLI_INSTALLED_REPORT_H
#define CLI_INSTALLED_REPORT_H

#include <stdio.h>

#include "packsign.h"

struct json_t;
/* An installed pack's receipt; what re-checking its tree found. */
struct json_t *cli_installed_json(const ps_installed *pack);
struct json_t *cli_check_json(const ps_installed_check *check);
/* "modified: PATH", "added: PATH", "missing: PATH" lines, each after
 * `indent`. */
void cli_print_changes(FILE *out, const char *indent,
    const ps_installed_check *check);
/* The regular files of an installed tree, by its receipt (which also
 * lists empty directories): the count reports call "files". */
size_t cli_installed_file_count(const ps_installed *pack);
/* "ID VERSION", escaped. */
void cli_print_pack_name(FILE *out, const ps_installed *pack);

#endif
