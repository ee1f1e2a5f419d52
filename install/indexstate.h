/* Internal header of install/: the client state of signed indexes.
 *
 * DIR/index-state.json (docs/formats/install.md, "Index state"): what
 * install, update, outdated and `index verify --record` read and write
 * under DIR/.lock.
 */
#ifndef INSTALL_INDEXSTATE_H
#define INSTALL_INDEXSTATE_H

#include "install/datadir.h"
#include "packsign.h"

#define INSTALL_INDEX_STATE "index-state.json"

/* What the state records of `publisher`; *found 0 when nothing. */
int install_index_state_load(const install_datadir *dd, const char *publisher,
    ps_index_seen *seen, int *found, ps_error *err);
/* Under the lock, DIR/.tmp open: checks `index` against the state and
 * records it when its version is higher (*recorded 1). */
int install_index_state_record(const install_datadir *dd,
    const ps_index *index, int64_t now, int *recorded, ps_error *err);

#endif
