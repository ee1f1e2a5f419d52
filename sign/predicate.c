/* sign --predicate-out FILE: the statement's predicate for other tools
 * (sign/predicate.h). */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "sign/predicate.h"
#include "util/error.h"
#include "util/fdio.h"

int
sign_write_predicate(const char *path, const unsigned char *payload,
    size_t len, ps_error *err)
{
	json_t *st = json_loadb((const char *)payload, len,
	    JSON_REJECT_DUPLICATES, NULL);
	json_t *pred = json_object_get(st, "predicate");
	ps_atomic_file *f = NULL;
	char *text = NULL;
	int rc = -1;

	if (!json_is_object(pred))
		util_fail(err, "internal_error", path, "the signed statement "
		    "has no predicate");
	else if ((text = json_dumps(pred, JSON_SORT_KEYS | JSON_INDENT(2) |
	    JSON_ENSURE_ASCII)) == NULL)
		util_fail_oom(err, path);
	else if (ps_atomic_open(path, 0644, 0, &f, err) == 0) {
		rc = util_write_all(ps_atomic_fd(f), text, strlen(text), path,
		    err) == 0 && util_write_all(ps_atomic_fd(f), "\n", 1, path,
		    err) == 0 ? 0 : -1;
		if (rc == 0)
			rc = ps_atomic_commit(f, err);
		else
			ps_atomic_abort(f);
	}
	free(text);
	json_decref(st);
	return rc;
}
