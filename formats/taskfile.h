/* Internal header of formats/: what an autograph pack's Taskfile runs.
 *
 * Every task of the Taskfile is read into the model (ps_task): its shell
 * commands (cmds, cmd, the shorthand forms, defer), the tasks it calls
 * (`task:` in cmds or defer, deps) and the shell commands that decide
 * whether it runs (status, preconditions), as Task (taskfile.dev, v3)
 * reads them.  A value of one of those keys with a type or form Task
 * refuses is autograph_taskfile_invalid; includes, whose tasks are not
 * read, are autograph_taskfile_unresolved.  docs/formats/manifests.md,
 * "autograph", gives every rule.
 */
#ifndef FORMATS_TASKFILE_H
#define FORMATS_TASKFILE_H

#include "packsign.h"
#include "formats/check.h"
#include "util/yaml.h"

/* Reads the tasks of the Taskfile `path`, whose document root `root` is
 * a mapping, into ck->m (taskfile_tasks and the tasks names). */
void formats_taskfile_read(formats_check *ck, const char *path,
    const util_yaml_node *root);

/* Frees m->taskfile_tasks. */
void formats_taskfile_free(ps_manifest *m);

#endif
