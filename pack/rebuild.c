/*
 * The canonical re-encoding of a tar being read, compared with its input
 * (pack/rebuild.h).
 */
#include <stdlib.h>
#include <string.h>

#include "pack/rebuild.h"

#define PENDING_START (16 * 1024)

void
pack_rebuild_abandon(pack_rebuild *rb)
{
	rb->differs = 1;
	free(rb->pending);
	rb->pending = NULL;
	rb->pending_head = rb->pending_len = rb->pending_cap = 0;
	rb->lent = NULL;
	rb->lent_head = rb->lent_len = 0;
}

/* Room for `len` more pending bytes after the ones kept; 0 / -1. */
static int
pending_room(pack_rebuild *rb, size_t len)
{
	unsigned char *grown;
	size_t cap;

	if (rb->pending_head > 0) {
		memmove(rb->pending, rb->pending + rb->pending_head,
		    rb->pending_len);
		rb->pending_head = 0;
	}
	if (rb->pending_len + len <= rb->pending_cap)
		return 0;
	if (rb->pending_len + len > PACK_REBUILD_LAG_MAX)
		return -1;
	/* From a small start: a small pack's input is a few KiB. */
	cap = rb->pending_cap == 0 ? PENDING_START : rb->pending_cap * 2;
	while (cap < rb->pending_len + len)
		cap *= 2;
	if ((grown = realloc(rb->pending, cap)) == NULL)
		return -1;
	rb->pending = grown;
	rb->pending_cap = cap;
	return 0;
}

/* Appends to the copied input, which must come before anything lent. */
static void
copy_input(pack_rebuild *rb, const void *buf, size_t len)
{
	if (len == 0)
		return;
	if (rb->pending_head + rb->pending_len + len > rb->pending_cap &&
	    pending_room(rb, len) != 0) {
		pack_rebuild_abandon(rb);
		return;
	}
	memcpy(rb->pending + rb->pending_head + rb->pending_len, buf, len);
	rb->pending_len += len;
}

void
pack_rebuild_keep(pack_rebuild *rb)
{
	const unsigned char *rest;
	size_t len;

	if (rb->lent == NULL)
		return;
	rest = rb->lent + rb->lent_head;
	len = rb->lent_len - rb->lent_head;
	rb->lent = NULL;
	rb->lent_head = rb->lent_len = 0;
	if (!rb->differs)
		copy_input(rb, rest, len);
}

void
pack_rebuild_input(pack_rebuild *rb, const void *buf, size_t len)
{
	pack_rebuild_keep(rb);
	if (!rb->differs)
		copy_input(rb, buf, len);
}

void
pack_rebuild_lend(pack_rebuild *rb, const void *buf, size_t len)
{
	pack_rebuild_keep(rb);
	if (rb->differs || len == 0)
		return;
	rb->lent = buf;
	rb->lent_head = 0;
	rb->lent_len = len;
}

/* The next `len` bytes not yet matched (copied, then lent) must be
 * `buf`'s; 0 / -1. */
static int
match(pack_rebuild *rb, const unsigned char *buf, size_t len)
{
	size_t copied = len < rb->pending_len ? len : rb->pending_len;
	const unsigned char *in_place;

	if (len > rb->pending_len + (rb->lent_len - rb->lent_head))
		return -1;
	if (copied > 0 &&
	    memcmp(rb->pending + rb->pending_head, buf, copied) != 0)
		return -1;
	rb->pending_head += copied;
	rb->pending_len -= copied;
	if ((len -= copied) == 0)
		return 0;
	in_place = rb->lent + rb->lent_head;
	/* Bytes at the very address of the input are the input. */
	if (in_place != buf + copied &&
	    memcmp(in_place, buf + copied, len) != 0)
		return -1;
	rb->lent_head += len;
	return 0;
}

/* The writer's output must equal the input's next bytes. */
static int
compare(void *ctx, const void *buf, size_t len, ps_error *err)
{
	pack_rebuild *rb = ctx;

	(void)err;
	if (!rb->differs && len > 0 && match(rb, buf, len) != 0)
		pack_rebuild_abandon(rb);
	return 0;
}

/* Entries the canonical writer cannot store make the tar non-canonical. */
static int
writer_can_store(const pack_rebuild *rb, const pack_rebuild_entry *entry,
    const char *path)
{
	return pack_tar_path_fits(path, entry->is_dir) &&
	    entry->size < PACK_TAR_SIZE_LIMIT &&
	    (rb->writer != NULL ||
	    (entry->mtime >= 0 && entry->mtime <= PS_MTIME_MAX));
}

void
pack_rebuild_add_entry(pack_rebuild *rb, const pack_rebuild_entry *entry,
    const char *path)
{
	pack_output_tap tap = { rb, compare };
	ps_error ignored;
	int rc;

	if (rb->differs)
		return;
	if (!writer_can_store(rb, entry, path)) {
		pack_rebuild_abandon(rb);
		return;
	}
	if (rb->writer == NULL) {
		if (pack_tar_writer_new(-1, PS_COMPRESS_NONE, entry->mtime,
		    &rb->writer, &ignored) != 0) {
			pack_rebuild_abandon(rb);
			return;
		}
		pack_tar_writer_set_stream_tap(rb->writer, &tap);
	}
	rc = entry->is_dir ? pack_tar_write_dir(rb->writer, path, &ignored) :
	    pack_tar_write_file(rb->writer, path, entry->size,
	    entry->executable, &ignored);
	if (rc != 0)
		pack_rebuild_abandon(rb);
}

void
pack_rebuild_data(pack_rebuild *rb, const void *buf, size_t len)
{
	ps_error ignored;

	if (!rb->differs && rb->writer != NULL &&
	    pack_tar_write_data(rb->writer, buf, len, &ignored) != 0)
		pack_rebuild_abandon(rb);
}

int
pack_rebuild_finish(pack_rebuild *rb)
{
	unsigned char ignored_digest[PS_SHA256_LEN];
	ps_error ignored;

	if (rb->differs || rb->writer == NULL ||
	    pack_tar_writer_finish(rb->writer, ignored_digest, &ignored) != 0)
		return 0;
	return !rb->differs && rb->pending_len == 0 &&
	    rb->lent_head == rb->lent_len;
}

void
pack_rebuild_free(pack_rebuild *rb)
{
	/* Freeing the writer closes it, and its end-of-archive blocks must
	 * not be compared: the lent input may be gone by now. */
	pack_rebuild_abandon(rb);
	pack_tar_writer_free(rb->writer);
	memset(rb, 0, sizeof(*rb));
}
