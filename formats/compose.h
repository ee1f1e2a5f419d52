/* Internal header of formats/: what an autograph pack's compose files let
 * it do.
 *
 * Every service of a compose file is read into the model (ps_service):
 * image, ports, named volumes and host mounts, privileged, the host's
 * network, PID and IPC namespaces, added capabilities, devices, security
 * options and user, in the short and the long syntax of the Compose
 * Specification.  Other keys are ignored.  A value of a key read with a
 * type or form Compose refuses is autograph_compose_invalid; a value that
 * depends on what packsign does not read (the environment, extends,
 * include) is autograph_compose_unresolved and counts as granting what it
 * could grant.  docs/formats/manifests.md, "autograph", gives every rule.
 */
#ifndef FORMATS_COMPOSE_H
#define FORMATS_COMPOSE_H

#include "packsign.h"
#include "formats/check.h"
#include "formats/text.h"
#include "util/yaml.h"

/* Appends the services of the compose file `path` (canonical, in the
 * pack), whose document root is `root` and whose `services` is a
 * mapping, to ck->m (compose_services and the services names). */
void formats_compose_read(formats_check *ck, const char *path,
    const util_yaml_node *root);

/* The sentences of the summary on what the services may do to the host:
 * host mounts, privileged services, host namespaces, capabilities,
 * devices; each only when some service has it. */
void formats_compose_describe(formats_text *t, const ps_manifest *m);

/* Frees m->compose_services. */
void formats_compose_free(ps_manifest *m);

#endif
