/* Internal header of install/: pins of installed ids (install.md,
 * "Pins"). */
#ifndef INSTALL_PINS_H
#define INSTALL_PINS_H

#include <stddef.h>
#include <stdint.h>

#include "packsign.h"
#include "install/datadir.h"

#define INSTALL_DATADIR_PINS "pins"

/* "pins/<layout dir>/<id>.json", the id's components checked. */
int install_pins_path(ps_format format, const char *id, char *out,
    size_t size, ps_error *err);

/* Parses a pins file's `len` bytes (install.md, "Pins"); pins_invalid
 * naming `label`. */
int install_pins_parse(const char *text, size_t len, const char *label,
    ps_pins **out, ps_error *err);

/* The pins of `id`; *out NULL when it has none.  pins_invalid. */
int install_pins_load(const install_datadir *dd, ps_format format,
    const char *id, ps_pins **out, ps_error *err);

/* Stages `pins` as "<id>.json.next", durable (through `work_fd`, a
 * directory of DIR/.tmp); current once its version's tree is in place. */
int install_pins_stage(const install_datadir *dd, int work_fd,
    const ps_pins *pins, int64_t now, ps_error *err);

/* Renames the staged pins over the pins and syncs the directory. */
int install_pins_commit(const install_datadir *dd, ps_format format,
    const char *id, ps_error *err);

/* Removes the pins of `id`; none is no error. */
int install_pins_forget(const install_datadir *dd, ps_format format,
    const char *id, ps_error *err);

#endif
