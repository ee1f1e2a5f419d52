/* The ps_digest object. */
#include <stdlib.h>
#include <string.h>

#include "packsign.h"

void
ps_digest_free(ps_digest *digest)
{
	size_t i;

	if (digest == NULL)
		return;
	for (i = 0; i < digest->entry_count; i++)
		free(digest->entries[i].path);
	free(digest->entries);
	free(digest->manifest_path);
	free(digest);
}

static int
compare_entry_path(const void *key, const void *entry)
{
	return strcmp(key, ((const ps_entry *)entry)->path);
}

const ps_entry *
ps_digest_find(const ps_digest *digest, const char *path)
{
	return bsearch(path, digest->entries, digest->entry_count,
	    sizeof(ps_entry), compare_entry_path);
}
