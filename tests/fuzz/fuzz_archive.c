/*
 * The archive reader and the digest of an archive (one target: for an
 * archive, ps_digest_path() is pack_archive_read() without a visitor).  Byte
 * 0 picks the name (.tar, .tar.gz, .tar.zst, .zip); the rest is written to
 * a temporary file.  The archive is read three ways -- ps_digest_path(),
 * pack_archive_read() with a visitor, and ps_pack_files_archive_open()
 * followed by manifest validation, as verify reads it -- which must agree.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "formats/paths.h"
#include "pack/archive.h"

struct visit {
	size_t files, dirs;
	uint64_t declared, seen, total;
	int open;
};

static int
visit_file(void *ctx, const ps_entry *entry, ps_error *err)
{
	struct visit *v = ctx;

	(void)err;
	if (v->open && v->seen != v->declared)
		fuzz_fail("visitor", "file data shorter than its size");
	if (formats_path_is_canonical(entry->path) != 0)
		fuzz_fail("visitor", "non-canonical path handed out");
	v->files++;
	v->declared = entry->size;
	v->seen = 0;
	v->open = 1;
	return 0;
}

static int
visit_data(void *ctx, const void *buf, size_t len, ps_error *err)
{
	struct visit *v = ctx;

	(void)buf;
	(void)err;
	v->seen += len;
	v->total += len;
	if (!v->open || v->seen > v->declared)
		fuzz_fail("visitor", "more data than the file's size");
	return 0;
}

static int
visit_dir(void *ctx, const char *path, ps_error *err)
{
	struct visit *v = ctx;

	(void)err;
	if (formats_path_is_canonical(path) != 0)
		fuzz_fail("visitor", "non-canonical directory handed out");
	v->dirs++;
	return 0;
}

static void
check_digest(const ps_digest *d)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < d->entry_count; i++) {
		if (formats_path_is_canonical(d->entries[i].path) != 0)
			fuzz_fail("digest", "non-canonical entry path");
		if (i > 0 && strcmp(d->entries[i - 1].path,
		    d->entries[i].path) >= 0)
			fuzz_fail("digest", "entries not in strict order");
		if (d->entries[i].type == PS_ENTRY_FILE)
			total += d->entries[i].size;
	}
	if (total != d->total_size)
		fuzz_fail("digest", "total size is not the sum of sizes");
	if (d->manifest_path != NULL &&
	    ps_digest_find(d, d->manifest_path) == NULL)
		fuzz_fail("digest", "manifest not among the entries");
}

static void
check_same(const ps_digest *a, const ps_digest *b, const char *what)
{
	if (a->entry_count != b->entry_count ||
	    a->total_size != b->total_size ||
	    memcmp(a->archive_digest, b->archive_digest, PS_SHA256_LEN) != 0 ||
	    a->has_tar_digest != b->has_tar_digest ||
	    (a->has_tar_digest && memcmp(a->tar_digest, b->tar_digest,
	    PS_SHA256_LEN) != 0) || a->canonical != b->canonical)
		fuzz_fail(what, "digests disagree");
	if (!a->partial && !b->partial && memcmp(a->tree_digest,
	    b->tree_digest, PS_SHA256_LEN) != 0)
		fuzz_fail(what, "tree digests disagree");
}

static void
check_visited(const char *path, const ps_digest *d)
{
	pack_archive_visitor visitor;
	struct visit v;
	ps_digest *d2 = NULL;
	ps_error err;

	memset(&v, 0, sizeof(v));
	memset(&visitor, 0, sizeof(visitor));
	visitor.ctx = &v;
	visitor.file = visit_file;
	visitor.data = visit_data;
	visitor.dir = visit_dir;
	ps_error_clear(&err);
	if (pack_archive_read(path, &visitor, NULL, &d2, &err) != 0)
		fuzz_fail("pack_archive_read with a visitor", err.code);
	if (v.total != d->total_size)
		fuzz_fail("visitor", "bytes seen differ from total size");
	check_same(d, d2, "pack_archive_read with a visitor");
	ps_digest_free(d2);
}

static void
check_manifest(const char *path, const ps_digest *d)
{
	ps_pack_files files;
	ps_validate_options vo;
	ps_manifest *m = NULL;
	ps_digest *d2 = NULL;
	ps_diags diags;
	ps_error err;

	ps_error_clear(&err);
	if (ps_pack_files_archive_open(path, &files, &d2, &err) != 0)
		fuzz_fail("ps_pack_files_archive_open", err.code);
	check_same(d, d2, "ps_pack_files_archive_open");
	ps_validate_options_init(&vo);
	ps_diags_init(&diags);
	if (ps_manifest_load(&files, &vo, &m, &diags, &err) != 0)
		fuzz_check_error(&err, "ps_manifest_load");
	fuzz_check_diags(&diags);
	fuzz_note("ps_manifest_load", m != NULL &&
	    ps_manifest_valid(&diags, 0) ? "valid" : "invalid");
	ps_manifest_free(m);
	ps_diags_free(&diags);
	ps_pack_files_close(&files);
	ps_digest_free(d2);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ps_pack_options po;
	ps_digest *d = NULL;
	ps_error err;
	char path[128];

	if (size < 1)
		return 0;
	snprintf(path, sizeof(path), "%s/in%s", fuzz_tmpdir(),
	    fuzz_archive_suffix(data[0]));
	fuzz_write_file(path, data + 1, size - 1);
	ps_pack_options_init(&po);
	ps_error_clear(&err);
	if (ps_digest_path(path, &po, &d, &err) != 0) {
		fuzz_check_error(&err, "ps_digest_path");
		if (d != NULL)
			fuzz_fail("ps_digest_path", "digest set on failure");
	} else {
		fuzz_note("ps_digest_path", d->canonical ? "canonical" : "ok");
		check_digest(d);
		check_visited(path, d);
		check_manifest(path, d);
		ps_digest_free(d);
	}
	remove(path);
	return 0;
}
