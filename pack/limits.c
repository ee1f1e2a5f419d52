#include <stdio.h>

#include "pack/limits.h"
#include "util/error.h"

void
ps_extract_limits_init(ps_extract_limits *limits)
{
	limits->max_total_size = PS_EXTRACT_DEFAULT_MAX_SIZE;
	limits->max_entries = PS_EXTRACT_DEFAULT_MAX_ENTRIES;
	limits->max_ratio = PS_EXTRACT_DEFAULT_MAX_RATIO;
	limits->ratio_floor = PS_EXTRACT_DEFAULT_RATIO_FLOOR;
	limits->copies = NULL;
}

void
pack_budget_init(pack_budget *b, const ps_extract_limits *limits,
    uint64_t archive_size)
{
	if (limits != NULL)
		b->limits = *limits;
	else
		ps_extract_limits_init(&b->limits);
	b->archive_size = archive_size;
	b->entries = 0;
	b->total = 0;
}

int
pack_budget_entry(pack_budget *b, const char *path, ps_error *err)
{
	char limit[32], found[32];

	b->entries++;
	if (b->limits.max_entries == 0 || b->entries <= b->limits.max_entries)
		return 0;
	snprintf(limit, sizeof(limit), "at most %llu",
	    (unsigned long long)b->limits.max_entries);
	snprintf(found, sizeof(found), "%llu so far",
	    (unsigned long long)b->entries);
	util_refuse(err, "extract_too_many_entries", path, "counted the files "
	    "and directories of the archive (raise with --max-entries)");
	return util_error_expect(err, limit, found);
}

int
pack_budget_implied(pack_budget *b, const char *label, uint64_t n,
    ps_error *err)
{
	char limit[32], found[64];

	b->entries += n;
	if (b->limits.max_entries == 0 || b->entries <= b->limits.max_entries)
		return 0;
	snprintf(limit, sizeof(limit), "at most %llu",
	    (unsigned long long)b->limits.max_entries);
	snprintf(found, sizeof(found), "%llu, %llu of them implied directories",
	    (unsigned long long)b->entries, (unsigned long long)n);
	util_refuse(err, "extract_too_many_entries", label, "counted the files "
	    "and directories of the archive, the directories its paths imply "
	    "included (raise with --max-entries)");
	return util_error_expect(err, limit, found);
}

int
pack_budget_declared(pack_budget *b, const char *path, uint64_t size,
    ps_error *err)
{
	uint64_t max = b->limits.max_total_size;
	char limit[64], found[64];

	if (max == 0 || (size <= max && b->total <= max - size))
		return 0;
	snprintf(limit, sizeof(limit), "at most %llu bytes in all",
	    (unsigned long long)max);
	snprintf(found, sizeof(found), "%llu + %llu bytes",
	    (unsigned long long)b->total, (unsigned long long)size);
	util_refuse(err, "extract_too_large", path, "declares %llu bytes after "
	    "%llu already read (raise with --max-size)",
	    (unsigned long long)size, (unsigned long long)b->total);
	return util_error_expect(err, limit, found);
}

int
pack_budget_bytes(pack_budget *b, const char *path, uint64_t n,
    ps_error *err)
{
	const ps_extract_limits *l = &b->limits;
	char limit[64], found[64];

	b->total += n;
	if (l->max_total_size != 0 && b->total > l->max_total_size) {
		snprintf(limit, sizeof(limit), "at most %llu bytes in all",
		    (unsigned long long)l->max_total_size);
		snprintf(found, sizeof(found), "%llu bytes so far",
		    (unsigned long long)b->total);
		util_refuse(err, "extract_too_large", path, "holds more bytes "
		    "than the limit (raise with --max-size)");
		return util_error_expect(err, limit, found);
	}
	if (l->max_ratio == 0 || b->total <= l->ratio_floor ||
	    b->total / l->max_ratio <= b->archive_size)
		return 0;
	snprintf(limit, sizeof(limit), "at most %llu:1",
	    (unsigned long long)l->max_ratio);
	snprintf(found, sizeof(found), "%llu bytes from a %llu-byte archive",
	    (unsigned long long)b->total, (unsigned long long)b->archive_size);
	util_refuse(err, "extract_ratio_exceeded", path, "compared the bytes "
	    "read with the archive's size: a decompression bomb? (raise with "
	    "--max-ratio)");
	return util_error_expect(err, limit, found);
}
