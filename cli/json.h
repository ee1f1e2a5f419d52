/* Internal header of cli/: printing --json reports and the pieces several
 * reports share.
 */
#ifndef CLI_JSON_H
#define CLI_JSON_H

#include "packsign.h"

struct json_t;

/* Prints `json` on one line of stdout (JSON Lines) and flushes it;
 * returns an exit code (io_error once reported). */
int cli_print_json_line(struct json_t *json);
/* Dumps `json` (sorted keys, indented) and a newline to stdout; returns
 * an exit code. */
int cli_print_json(struct json_t *json);
/* cli_print_json() of a report built by the caller, then freed; a NULL
 * report (jansson ran out of memory) is a json_output failure about
 * `subject`.  Exit code. */
int cli_print_report(struct json_t *report, const char *subject);

/* Text from inputs (NULL gives null), a digest (null unless `has`), a list
 * of strings. */
struct json_t *cli_json_text(const char *s);
struct json_t *cli_json_digest(int has,
    const unsigned char digest[PS_SHA256_LEN]);
struct json_t *cli_json_strings(const ps_strings *list);
/* One string per line of `text` (NULL gives an empty list). */
struct json_t *cli_json_lines(const char *text);
/* Diagnostics as objects: file, line, column, severity, code, message. */
struct json_t *cli_json_diags(const ps_diags *diags);
/* Sets ok, exit, code, subject, message, expected, found on `o` from the
 * return value `rc` of a library call and its error. */
void cli_json_error(struct json_t *o, int rc, const ps_error *err);

#endif
