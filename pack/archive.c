/*
 * Digests of an archive: one pass over its bytes.  For the tar family the
 * file is decompressed here (pack/decompress.c), the tar stream hashed (the
 * tar digest), its headers read by packsign's own scan (pack/tarscan.c)
 * and only then fed to libarchive's tar reader; a zip's end record and
 * central directory are read and checked (pack/zipscan.c) before
 * libarchive's seekable zip reader reads it.  Each entry is checked, its
 * name compared with what the scan found, hashed, and re-written by a
 * hash-only canonical writer (pack/rebuild.h), so the tar is canonical
 * exactly when the rebuilt stream equals the input.  In pass 2 of two
 * (the archive digest known) the files' digests and the re-encoding run
 * on the hasher thread, which would otherwise be idle, while this one
 * decompresses, scans and parses.  The limits hold throughout.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "pack/archivename.h"
#include "pack/archive.h"
#include "pack/decompress.h"
#include "pack/items.h"
#include "pack/limits.h"
#include "pack/rebuild.h"
#include "pack/tarscan.h"
#include "pack/tarwrite.h"
#include "pack/walk.h"
#include "pack/zipscan.h"
#include "util/chunkread.h"
#include "util/chunks.h"
#include "util/copy.h"
#include "util/lease.h"
#include "util/error.h"
#include "util/fdio.h"
#include "util/locale.h"
#include "util/pathname.h"
#include "util/sha256.h"
#include "util/worker.h"

#define READ_BUFFER (256 * 1024)
/* A small archive's reads need no buffer of READ_BUFFER or of a whole
 * chunk: its size and one byte more (to see the end), but not under
 * this, which malloc takes from the heap instead of mapping pages for
 * (a small pack's verify mapped and unmapped 2.5 MiB it never used). */
#define SMALL_READ_MIN (4 * 1024)
#define HASHER_SLOTS 8
/* Up to this size an archive is hashed on the reading thread: a thread's
 * start, hand-overs and join cost more than hashing a small pack (a
 * registry verifying thousands of them notices). */
#define HASH_INLINE_MAX (1024 * 1024)
/* A hasher record's tag: its kind in the low bits, then a file's data's
 * flags, then a file's item index. */
enum {
	HASH_ARCHIVE, HASH_STREAM, FILE_DATA, FILE_END, REBUILD_INPUT,
	REBUILD_ENTRY, TAG_KINDS = 8
};
#define DATA_HASHED (1u << 3)   /* into the file's digest */
#define DATA_REBUILT (1u << 4)  /* into the re-encoding */
#define TAG_INDEX_SHIFT 5
/* Chunks (1 MiB each) in the read-ahead ring: the one the decoder parses,
 * the next ones checked, some waiting for the archive digest, one being
 * read. */
#define READ_AHEAD_CHUNKS 16

struct file_digest {
	size_t index;
	unsigned char sha256[PS_SHA256_LEN];
};

struct reader {
	const char *label;
	ps_source_kind kind;
	int fd;
	int hash_reads;             /* fd reads feed the archive digest */
	unsigned char *buffer;
	size_t read_size;           /* of each read: at most READ_BUFFER */
	util_sha256 *archive_hash;
	util_sha256 *stream_hash;     /* decompressed tar stream */
	/* Both hashes run on a worker thread while the caller's parses
	 * (records tagged HASH_ARCHIVE or HASH_STREAM). */
	util_worker *hasher;
	ps_error hash_error;
	ps_progress status;         /* bytes of the file, entries */
	int stream_is_file;         /* no compression: the stream is the file */
	int hashing;                /* the current file's content is hashed */
	int partial;                /* some file was not hashed */
	util_sha256 *file_hash;     /* the hasher's, with offload */
	/* Pass 2 of two (the archive digest known): files are hashed and the
	 * tar re-encoded on the hasher thread while this one parses; the
	 * files' digests, in item order, wait in file_digests (the hasher's
	 * until it finishes, as is `rebuild`). */
	int offload;
	util_locale_scope hasher_locale;  /* the re-encoding names entries */
	size_t file_index;          /* the item being read */
	struct file_digest *file_digests;
	size_t file_digests_len, file_digests_cap;
	ps_compression compression; /* of a tar, from the file name */
	pack_decoder *decoder;      /* the tar stream */
	pack_tarscan *scan;         /* its headers, read before libarchive */
	pack_zipscan *zip;          /* a zip's central directory */
	int fd_private;             /* no one else can write the file */
	int leased;                 /* it holds a read lease, checked after
	                             * every read (PACK_FD_LEASED) */
	/* a tar's signed chunk digests: each chunk read whole into
	 * chunk_buf and compared before the decoder sees it */
	const pack_chunk_list *chunks;
	util_chunks chunk_check;
	unsigned char *chunk_buf;
	size_t chunk_size;          /* its size: the one chunk and a byte */
	/* or, past one chunk, read and compared on a second thread a few
	 * chunks ahead of the decoder (chunk_check is then that thread's) */
	util_chunkread *ahead;
	int ahead_hashes;           /* it takes the archive digest too */
	util_copy copy;             /* a zip's private copy: fd reads it */
	const unsigned char *known; /* its digest, already taken; or NULL */
	ps_error stream_error;      /* why the stream stopped, when it did */
	int stream_failed;
	const ps_extract_limits *limits;
	pack_budget budget;         /* the limits */
	uint64_t scan_counted;      /* extended headers' data and the NULs
	                             * after a tar's end, counted so far */
	struct archive *inner;      /* tar or zip entries */
	pack_items items;
	pack_rebuild rebuild;
	int canonical;              /* so far; the re-encoding decides */
	/* Set by the hasher thread once its re-encoding differs from the
	 * input: this one then stops copying bytes over for it. */
	atomic_int rebuild_differs;
	size_t entries_seen;
	size_t roots_seen;          /* "./" entries, which are not items */
	char *last_copy;
	const pack_archive_visitor *visitor;
	int read_errno;             /* a failed read(2) of the archive */
};

static void
report(struct reader *r, int done)
{
	const ps_progress_sink *s = r->visitor != NULL ?
	    r->visitor->progress : NULL;

	if (s == NULL || s->fn == NULL)
		return;
	r->status.what = "reading";
	r->status.done = done;
	s->fn(s->ctx, &r->status);
}

static la_ssize_t
read_fd(struct archive *a, void *ctx, const void **out)
{
	struct reader *r = ctx;
	ssize_t n = util_read_full(r->fd, r->buffer, r->read_size);
	char reason[UTIL_STRERROR_MAX];

	if (n < 0) {
		r->read_errno = errno;
		archive_set_error(a, r->read_errno, "read: %s",
		    util_strerror(r->read_errno, reason, sizeof(reason)));
		return -1;
	}
	if (r->hash_reads && n > 0 && util_worker_push(r->hasher, HASH_ARCHIVE,
	    r->buffer, (size_t)n, &r->hash_error) != 0) {
		archive_set_error(a, EIO, "SHA-256 failed");
		return -1;
	}
	*out = r->buffer;
	r->status.bytes += (uint64_t)n;
	report(r, 0);
	return n;
}

static la_int64_t
seek_fd(struct archive *a, void *ctx, la_int64_t offset, int whence)
{
	struct reader *r = ctx;
	off_t pos = lseek(r->fd, (off_t)offset, whence);

	(void)a;
	return pos < 0 ? ARCHIVE_FATAL : (la_int64_t)pos;
}

/* The re-encoding is fed only while the tar may still be canonical. */
static void
not_canonical(struct reader *r)
{
	r->canonical = 0;
}

/* Offloaded, the re-encoding learns first that the tar is not canonical
 * (a byte compared on the hasher thread): every record copied over for
 * it after that is wasted. */
static int
still_canonical(struct reader *r)
{
	if (r->canonical && r->offload &&
	    atomic_load_explicit(&r->rebuild_differs, memory_order_relaxed))
		not_canonical(r);
	return r->canonical;
}

/* Stream bytes, in order, for the re-encoding to match: on this thread
 * lent until the next read (stream_step), on the hasher's a copy. */
static int
rebuild_input(struct reader *r, const void *buf, size_t len, ps_error *err)
{
	if (len == 0 || !still_canonical(r))
		return 0;
	if (r->offload)
		return util_worker_push(r->hasher, REBUILD_INPUT, buf, len, err);
	pack_rebuild_lend(&r->rebuild, buf, len);
	return 0;
}

/*
 * Where the next bytes of the file are read.  An uncompressed tar's are
 * read straight into the hasher's ring (one copy fewer, issue 22): the
 * record is handed to the hasher only at the next reservation, which
 * comes with the next read, once the scan and libarchive are done with
 * these bytes, and nothing else is queued meanwhile (no stream records:
 * the stream is the file).  A decoder keeps its input across calls while
 * it queues its output, so compressed input is read into the reader's
 * buffer and copied.
 */
static unsigned char *
input_room(struct reader *r, ps_error *err)
{
	return r->stream_is_file && r->hash_reads ?
	    util_worker_reserve(r->hasher, r->read_size, err) : r->buffer;
}

/* A leased file's bytes count only while the lease holds: a break
 * (F_GETLEASE no longer F_RDLCK) means a process opened the file for
 * writing or truncated it, and nothing read since is parsed. */
static int
refuse_lease_broken(struct reader *r, ps_error *err)
{
	util_refuse(err, "subject_changed", r->label, "checked the archive's "
	    "read lease after a read: it was broken (a process opened the file "
	    "for writing or truncated it), so its bytes may no longer be those "
	    "that matched the signed subject");
	return util_error_expect(err, "the read lease held (F_RDLCK)",
	    "broken");
}

/* A chunk whose SHA-256 is not the signed one, a file longer or
 * shorter than the list: refused before the decoder sees the chunk. */
static int
refuse_chunk(struct reader *r, ps_error *err)
{
	const util_chunks *c = &r->chunk_check;
	uint64_t from = (uint64_t)c->bad_index * UTIL_CHUNK_SIZE;
	char want[PS_SHA256_STRING_LEN], got[PS_SHA256_STRING_LEN + 32];

	util_refuse(err, "subject_mismatch", r->label, "compared the SHA-256 "
	    "of chunk %zu (bytes from %llu) with the signed chunk digest, "
	    "before parsing it", c->bad_index, (unsigned long long)from);
	if (c->bad_index >= r->chunks->count)
		snprintf(got, sizeof(got), "more than %llu bytes",
		    (unsigned long long)r->chunks->size);
	else if (c->count <= c->bad_index)
		snprintf(got, sizeof(got), "the file ended at %llu bytes",
		    (unsigned long long)c->size);
	else
		ps_sha256_string(c->bad_digest, got);
	return util_error_expect(err, c->bad_index < r->chunks->count ?
	    ps_sha256_string(r->chunks->digests[c->bad_index], want) :
	    "no more bytes", got);
}

/* The file's size is not the signed archiveSize (chunks that match
 * cannot tell a size one byte off inside the last one). */
static int
refuse_size(struct reader *r, int ended, ps_error *err)
{
	char want[32], got[48];

	util_refuse(err, "subject_mismatch", r->label, "compared the archive's "
	    "size with the signed chunks.archiveSize, before parsing its last "
	    "chunk");
	snprintf(want, sizeof(want), "%llu bytes",
	    (unsigned long long)r->chunks->size);
	snprintf(got, sizeof(got), ended ? "%llu bytes" : "more than %llu",
	    (unsigned long long)(ended ? r->chunk_check.size : r->chunks->size));
	return util_error_expect(err, want, got);
}

/* A chunk just read (`n` bytes; fewer only for the last): the read lease
 * still held, its SHA-256 the signed one, the bytes so far within the
 * signed size.  With a read-ahead thread, on whichever of the two checks
 * it (util/chunkread.h), one at a time, in order. */
static int
check_chunk(void *ctx, const unsigned char *buf, size_t n, ps_error *err)
{
	struct reader *r = ctx;
	int last = n < UTIL_CHUNK_SIZE;

	if (r->leased && !util_lease_held(r->fd))
		return refuse_lease_broken(r, err);
	if (util_chunks_update(&r->chunk_check, buf, n) != 0 ||
	    (last && util_chunks_finish(&r->chunk_check) != 0))
		return util_fail(err, "crypto_error", NULL, "SHA-256 failed");
	if (r->chunk_check.bad)
		return refuse_chunk(r, err);
	if (r->chunk_check.size > r->chunks->size ||
	    (last && r->chunk_check.size != r->chunks->size))
		return refuse_size(r, last, err);
	return 0;
}

/* A checked chunk into the archive's digest, on whichever of the two
 * threads is free (util/chunkread.h): the decoder's when the parse is
 * light, the read-ahead one's when the parse keeps the decoder's busy;
 * never a third thread sharing two cores with them. */
static int
absorb_chunk(void *ctx, const unsigned char *buf, size_t n, ps_error *err)
{
	struct reader *r = ctx;

	if (r->ahead_hashes && util_sha256_update(r->archive_hash, buf, n) != 0)
		return util_fail(err, "crypto_error", NULL, "SHA-256 failed");
	return 0;
}

static const util_chunkread_ops chunk_ops = { check_chunk, absorb_chunk };

/* The next chunk, read whole and checked (here, or ahead on the second
 * thread): only then hashed for the archive digest and handed on. */
static int
chunked_input(struct reader *r, const void **buf, size_t *len, ps_error *err)
{
	const unsigned char *p = r->chunk_buf;
	size_t n, off, piece;
	ssize_t got;

	*len = 0;
	if (r->ahead != NULL) {
		if (util_chunkread_next(r->ahead, &p, &n, err) != 0)
			return -1;
	} else {
		if ((got = util_read_full(r->fd, r->chunk_buf,
		    r->chunk_size)) < 0)
			return util_fail_errno(err, "io_error", r->label,
			    "read", errno);
		n = (size_t)got;
		if (check_chunk(r, p, n, err) != 0)
			return -1;
	}
	for (off = 0; r->hash_reads && off < n; off += piece) {
		piece = n - off < r->read_size ? n - off : r->read_size;
		if (util_worker_push(r->hasher, HASH_ARCHIVE, p + off, piece,
		    err) != 0)
			return -1;
	}
	*buf = p;
	*len = n;
	r->status.bytes += (uint64_t)n;
	report(r, 0);
	return 0;
}

/* The decoder's input: the file's bytes, hashed as they are read. */
static int
decoder_input(void *ctx, const void **buf, size_t *len, ps_error *err)
{
	struct reader *r = ctx;
	unsigned char *room;
	ssize_t n;

	if (r->chunks != NULL)
		return chunked_input(r, buf, len, err);
	room = input_room(r, err);
	*len = 0;
	if (room == NULL)
		return -1;
	if ((n = util_read_full(r->fd, room, r->read_size)) < 0)
		return util_fail_errno(err, "io_error", r->label, "read", errno);
	if (r->leased && !util_lease_held(r->fd))
		return refuse_lease_broken(r, err);
	if (n > 0 && r->hash_reads && r->stream_is_file)
		util_worker_commit(r->hasher, HASH_ARCHIVE, (size_t)n);
	else if (n > 0 && r->hash_reads && util_worker_push(r->hasher,
	    HASH_ARCHIVE, room, (size_t)n, err) != 0)
		return -1;
	*buf = room;
	*len = (size_t)n;
	r->status.bytes += (uint64_t)n;
	report(r, 0);
	return 0;
}

/* Decompressed bytes into the tar digest; offloaded, the same record is
 * the re-encoding's input too (*rebuilt), not a second copy. */
static int
hash_stream(struct reader *r, const void *buf, size_t len, int *rebuilt,
    ps_error *err)
{
	uint64_t tag = HASH_STREAM;

	*rebuilt = 0;
	if (r->stream_is_file || len == 0)
		return 0;
	if (r->offload && still_canonical(r)) {
		tag |= DATA_REBUILT;
		*rebuilt = 1;
	}
	return util_worker_push(r->hasher, tag, buf, len, err);
}

/* The next bytes of the tar stream, as libarchive's tar reader pulls
 * them: decompressed, hashed, and read by the header scan before
 * libarchive sees them. */
static int
stream_step(struct reader *r, const void **out, size_t *size, ps_error *e)
{
	uint64_t counted;
	int rebuilt;

	/* The decoder may reuse what it returned last: see rebuild_input(). */
	if (!r->offload)
		pack_rebuild_keep(&r->rebuild);
	if (pack_decoder_read(r->decoder, out, size, e) != 0 ||
	    hash_stream(r, *out, *size, &rebuilt, e) != 0 ||
	    pack_tarscan_feed(r->scan, *out, *size, e) != 0 ||
	    (*size == 0 && pack_tarscan_finish(r->scan, e) != 0))
		return -1;
	/* Extended headers and NUL bytes after the end count as content: no
	 * free bomb there. */
	counted = pack_tarscan_counted(r->scan);
	if (counted > r->scan_counted && pack_budget_bytes(&r->budget,
	    r->label, counted - r->scan_counted, e) != 0)
		return -1;
	r->scan_counted = counted;
	return rebuilt ? 0 : rebuild_input(r, *out, *size, e);
}

/* A refusal stops the stream; the reader then reports it instead of
 * libarchive's own error. */
static int
next_stream_bytes(struct reader *r, const void **out, size_t *size)
{
	if (stream_step(r, out, size, &r->stream_error) != 0) {
		r->stream_failed = 1;
		return -1;
	}
	return 0;
}

static la_ssize_t
read_stream(struct archive *a, void *ctx, const void **out)
{
	struct reader *r = ctx;
	size_t size = 0;

	if (r->stream_failed || next_stream_bytes(r, out, &size) != 0) {
		archive_set_error(a, EIO, "%s", r->stream_error.message);
		return -1;
	}
	return (la_ssize_t)size;
}

static int
refuse_archive(struct reader *r, struct archive *a, const char *what,
    ps_error *err)
{
	const char *msg = archive_error_string(a);

	if (r->stream_failed) {
		*err = r->stream_error;
		return -1;
	}
	if (r->read_errno != 0)
		return util_fail_errno(err, "io_error", r->label, "read",
		    r->read_errno);
	return util_refuse(err, "archive_corrupt", r->label, "%s: %s", what,
	    msg != NULL ? msg : "unreadable archive");
}

/* A tar: its compression is the one its name gives. */
static int
open_stream(struct reader *r, ps_error *err)
{
	if (pack_decoder_new(r->compression, r->label, decoder_input, r,
	    &r->decoder, err) != 0 ||
	    pack_tarscan_new(r->label, &r->scan, err) != 0)
		return -1;
	/* An uncompressed tar's stream is the file: hash its bytes once. */
	r->stream_is_file = r->compression == PS_COMPRESS_NONE;
	return 0;
}

static int
open_inner(struct reader *r, ps_error *err)
{
	int rc;

	r->inner = archive_read_new();
	if (r->inner == NULL)
		return util_fail_oom(err, r->label);
	if (r->kind == PS_SOURCE_ZIP) {
		rc = archive_read_support_format_zip_seekable(r->inner);
		if (rc == ARCHIVE_OK)
			rc = archive_read_set_seek_callback(r->inner, seek_fd);
		if (rc == ARCHIVE_OK)
			rc = archive_read_open(r->inner, r, NULL, read_fd, NULL);
	} else {
		rc = archive_read_support_format_tar(r->inner);
		if (rc == ARCHIVE_OK)
			rc = archive_read_open(r->inner, r, NULL, read_stream,
			    NULL);
	}
	if (rc != ARCHIVE_OK)
		return refuse_archive(r, r->inner, "cannot read", err);
	return 0;
}

/* The stored name as a pack path (pack_entry_name_strip), in NFC (NFD
 * names are accepted and normalised, as libarchive does for pax and zip
 * names; a plain ustar name too); *root for the pack root.  NULL with
 * errno EILSEQ when it is not UTF-8. */
static char *
normal_name(const char *raw, int is_dir, int *changed, int *root)
{
	size_t skip, len = pack_entry_name_strip(raw, strlen(raw), is_dir,
	    &skip, root);
	char *nfc = util_path_nfc(raw + skip, len);

	if (skip > 0 || *root)
		*changed = 1;
	if (nfc != NULL && (strlen(nfc) != len ||
	    memcmp(nfc, raw + skip, len) != 0))
		*changed = 1;
	return nfc;
}

static char *
entry_path(struct archive_entry *e, int *changed, int *root)
{
	const char *raw = archive_entry_pathname(e);

	if (raw == NULL) {
		errno = EILSEQ;
		return NULL;
	}
	return normal_name(raw, archive_entry_filetype(e) == AE_IFDIR, changed,
	    root);
}

static const char *
entry_kind(struct archive_entry *e)
{
	switch (archive_entry_filetype(e)) {
	case AE_IFLNK: return "a symbolic link";
	case AE_IFCHR: return "a character device";
	case AE_IFBLK: return "a block device";
	case AE_IFIFO: return "a FIFO";
	case AE_IFSOCK: return "a socket";
	default: return "of an unknown type";
	}
}

static int
check_entry_type(struct reader *r, struct archive_entry *e, const char *path,
    ps_error *err)
{
	char where[PS_ERROR_TEXT_MAX];
	unsigned type = archive_entry_filetype(e);

	snprintf(where, sizeof(where), "%s: %s", r->label, path);
	if (archive_entry_hardlink(e) != NULL)
		return util_refuse(err, "hardlink_refused", where,
		    "is a hard link to '%s'; packs hold only regular files and "
		    "directories", archive_entry_hardlink(e));
	if (type != AE_IFREG && type != AE_IFDIR) {
		util_refuse(err, type == AE_IFLNK ? "symlink_refused" :
		    "special_file_refused", where, "is %s; packs hold only "
		    "regular files and directories", entry_kind(e));
		return util_error_expect(err, "a regular file or a directory",
		    entry_kind(e));
	}
	if ((archive_entry_perm(e) & 07000) != 0)
		return util_refuse(err, "unsafe_mode", where,
		    "has the setuid, setgid or sticky bit (mode %04o)",
		    (unsigned)archive_entry_perm(e));
	/* Readers that restore modes (GNU tar as root) would make it so. */
	if ((archive_entry_perm(e) & 0002) != 0)
		return util_refuse(err, "unsafe_mode", where,
		    "is world-writable (mode %04o)",
		    (unsigned)archive_entry_perm(e));
	if (archive_entry_sparse_count(e) > 0)
		return util_refuse(err, "unsupported_entry", where,
		    "is a sparse file");
	if (type == AE_IFREG && archive_entry_size_is_set(e) &&
	    (uint64_t)archive_entry_size(e) >= PACK_TAR_SIZE_LIMIT)
		return util_refuse(err, "file_too_large", where,
		    "declares %lld bytes; the limit is 8 GiB",
		    (long long)archive_entry_size(e));
	return 0;
}

/* "a directory" or "a file of N bytes", into `buf`. */
static const char *
zip_entry_kind(char *buf, size_t n, int is_dir, uint64_t size)
{
	if (is_dir)
		return "a directory";
	snprintf(buf, n, "a file of %llu bytes", (unsigned long long)size);
	return buf;
}

static int
refuse_zip_type(const char *path, int is_dir, uint64_t size, int central_dir,
    uint64_t central_size, ps_error *err)
{
	char want[64], got[64];

	util_refuse(err, "zip_header_mismatch", path, "compared what libarchive "
	    "reads (its local header and extra fields) with the central "
	    "directory, which every other reader follows");
	return util_error_expect(err, zip_entry_kind(want, sizeof(want),
	    central_dir, central_size), zip_entry_kind(got, sizeof(got), is_dir,
	    size));
}

/* The name libarchive reports must be the one every other reader takes:
 * the tar headers' (tarscan), the zip's central directory (zipscan). */
static int
check_name_source(struct reader *r, const char *path, int is_dir,
    uint64_t size, ps_error *err)
{
	const char *want;
	char *normal;
	int same, ignored = 0, ignored_root, central_dir;
	uint64_t central_size;

	if (r->zip != NULL) {
		if (!pack_zipscan_take(r->zip, path, &central_dir, &central_size))
			return util_refuse(err, "zip_header_mismatch", r->label,
			    "'%s' is not an entry of the central directory, or is "
			    "read twice (libarchive reads the local headers)", path);
		/* libarchive may also take a type from an extra field (its own
		 * 'xl'); every other reader goes by the name. */
		if (central_dir != (is_dir != 0) || (!is_dir &&
		    central_size != size))
			return refuse_zip_type(path, is_dir, size, central_dir,
			    central_size, err);
		return 0;
	}
	want = pack_tarscan_next_name(r->scan);
	if (want == NULL)
		return util_refuse(err, "tar_name_conflict", r->label, "'%s' is "
		    "an entry the tar headers do not hold", path);
	normal = normal_name(want, is_dir, &ignored, &ignored_root);
	if (normal == NULL)
		return util_refuse(err, "name_not_utf8", r->label, "an entry's "
		    "name in the tar headers is not valid UTF-8");
	same = strcmp(normal, path) == 0;
	if (!same)
		util_refuse(err, "tar_name_conflict", r->label, "libarchive reads "
		    "'%s' where the headers give '%s'", path, normal);
	free(normal);
	return same ? 0 : -1;
}

/* Limits every name obeys beyond the name rules: it fits a canonical
 * tar's header (as when packing), and the entry counts in the limits. */
static int
check_entry_limits(struct reader *r, const char *path, int is_dir,
    uint64_t size, ps_error *err)
{
	char where[PS_ERROR_TEXT_MAX];

	if (!pack_tar_path_fits(path, is_dir)) {
		snprintf(where, sizeof(where), "%s: %s", r->label, path);
		return util_refuse(err, "name_too_long", where,
		    "path does not fit a tar header without truncation "
		    "(see canonical-tar.md, \"Names in headers\")");
	}
	if (pack_budget_entry(&r->budget, path, err) != 0)
		return -1;
	return is_dir ? 0 : pack_budget_declared(&r->budget, path, size, err);
}

/* What `pack` skips must not hide in an archive either. */
static int
check_no_vcs(struct reader *r, const char *path, ps_error *err)
{
	char component[UTIL_NAME_MAX + 1];
	const char *p = path;
	size_t len;

	while (*p != '\0') {
		len = strcspn(p, "/");
		/* As snprintf("%.*s") cut it, without formatting per entry. */
		memcpy(component, p, len < sizeof(component) ? len :
		    sizeof(component) - 1);
		component[len < sizeof(component) ? len :
		    sizeof(component) - 1] = '\0';
		if (pack_is_vcs_name(component))
			return util_refuse(err, "vcs_metadata_refused", r->label,
			    "'%s' holds version-control metadata (%s), which "
			    "packs leave out", path, component);
		p += len + (p[len] == '/');
	}
	return 0;
}

/* Order and layout rules a canonical tar follows besides its bytes. */
static void
note_order(struct reader *r, const pack_item *item)
{
	int first = r->entries_seen == 1;

	if (first) {
		if (item->entry.type != PS_ENTRY_FILE ||
		    ps_format_by_manifest(item->entry.path) == PS_FORMAT_UNKNOWN)
			not_canonical(r);
		return;
	}
	if (r->last_copy != NULL && strcmp(r->last_copy, item->entry.path) >= 0)
		not_canonical(r);
	free(r->last_copy);
	r->last_copy = strdup(item->entry.path);
	if (r->last_copy == NULL)
		not_canonical(r);
}

/* An entry's header into the re-encoding; on the hasher thread a copy
 * travels: the entry as a pack_rebuild_entry, then its NUL-ended path. */
static int
rebuild_entry(struct reader *r, struct archive_entry *e, const pack_item *item,
    ps_error *err)
{
	pack_rebuild_entry entry = {
		item->entry.size, (int64_t)archive_entry_mtime(e),
		item->entry.type == PS_ENTRY_DIR, item->entry.executable
	};
	size_t path_len = strlen(item->entry.path) + 1;
	unsigned char *room;

	if (!r->offload) {
		pack_rebuild_add_entry(&r->rebuild, &entry, item->entry.path);
		return 0;
	}
	room = util_worker_reserve(r->hasher, sizeof(entry) + path_len, err);
	if (room == NULL)
		return -1;
	memcpy(room, &entry, sizeof(entry));
	memcpy(room + sizeof(entry), item->entry.path, path_len);
	util_worker_commit(r->hasher, REBUILD_ENTRY, sizeof(entry) + path_len);
	return 0;
}

/* On the hasher thread when offloading: an entry's header. */
static void
take_rebuild_entry(struct reader *r, const unsigned char *buf, size_t len)
{
	pack_rebuild_entry entry;

	if (len <= sizeof(entry) || buf[len - 1] != '\0') {
		pack_rebuild_abandon(&r->rebuild);
		return;
	}
	memcpy(&entry, buf, sizeof(entry));
	pack_rebuild_add_entry(&r->rebuild, &entry,
	    (const char *)buf + sizeof(entry));
}

/* A file's data: into its digest, the re-encoding, or both (`flags`). */
static int
take_file_data(struct reader *r, unsigned flags, const void *buf, size_t len,
    ps_error *err)
{
	if ((flags & DATA_HASHED) != 0 &&
	    util_sha256_update(r->file_hash, buf, len) != 0)
		return util_fail(err, "crypto_error", NULL, "SHA-256 failed");
	if ((flags & DATA_REBUILT) != 0)
		pack_rebuild_data(&r->rebuild, buf, len);
	return 0;
}

static int
file_data(struct reader *r, const void *buf, size_t size, ps_error *err)
{
	unsigned flags = (r->hashing ? DATA_HASHED : 0) |
	    (still_canonical(r) ? DATA_REBUILT : 0);

	if (flags == 0)
		return 0;
	if (r->offload)
		return util_worker_push(r->hasher, FILE_DATA | flags, buf, size,
		    err);
	return take_file_data(r, flags, buf, size, err);
}

static int
file_end(struct reader *r, pack_item *item, ps_error *err)
{
	if (r->offload)
		return util_worker_push(r->hasher, FILE_END |
		    (uint64_t)r->file_index << TAG_INDEX_SHIFT, NULL, 0, err);
	if (util_sha256_final(r->file_hash, item->entry.sha256) != 0)
		return util_fail(err, "crypto_error", NULL, "SHA-256 failed");
	return 0;
}

static int
hash_block(struct reader *r, const void *buf, size_t size, ps_error *err)
{
	if (file_data(r, buf, size, err) != 0)
		return -1;
	if (r->visitor != NULL && r->visitor->data(r->visitor->ctx, buf, size,
	    err) != 0)
		return -1;
	return 0;
}

static int
read_content(struct reader *r, pack_item *item, int size_known, ps_error *err)
{
	const void *buf;
	size_t size;
	la_int64_t offset;
	uint64_t total = 0;
	int rc;

	r->hashing = r->visitor == NULL || r->visitor->want_hash == NULL ||
	    r->visitor->want_hash(r->visitor->ctx, item->entry.path);
	if (!r->hashing)
		r->partial = 1;
	r->file_index = (size_t)(item - r->items.items);
	if (r->hashing && !r->offload && util_sha256_reset(r->file_hash) != 0)
		return util_fail(err, "crypto_error", NULL, "SHA-256 failed");
	while ((rc = archive_read_data_block(r->inner, &buf, &size,
	    &offset)) == ARCHIVE_OK) {
		if ((uint64_t)offset != total)
			return util_refuse(err, "unsupported_entry", item->entry.path,
			    "has holes (sparse data)");
		if (pack_budget_bytes(&r->budget, item->entry.path, size,
		    err) != 0 || hash_block(r, buf, size, err) != 0)
			return -1;
		total += size;
		if (total >= PACK_TAR_SIZE_LIMIT)
			return util_refuse(err, "file_too_large", item->entry.path,
			    "holds 8 GiB or more");
	}
	if (rc != ARCHIVE_EOF)
		return refuse_archive(r, r->inner, item->entry.path, err);
	if (size_known && total != item->entry.size) {
		util_refuse(err, "size_mismatch", item->entry.path,
		    "the entry's data does not match its declared size");
		return util_error_expect(err, "the declared size", "other");
	}
	item->entry.size = total;
	return r->hashing ? file_end(r, item, err) : 0;
}

static int
read_entry(struct reader *r, struct archive_entry *e, ps_error *err)
{
	int is_dir = archive_entry_filetype(e) == AE_IFDIR, changed = 0, root = 0;
	char *path = entry_path(e, &changed, &root);
	pack_item *item;

	if (path == NULL && errno == ENOMEM)
		return util_fail_oom(err, r->label);
	if (path == NULL)
		return util_refuse(err, "name_not_utf8", r->label,
		    "an entry's name is missing or not valid UTF-8");
	if (check_entry_type(r, e, path[0] != '\0' ? path : ".", err) != 0 ||
	    check_name_source(r, path, is_dir, archive_entry_size_is_set(e) ?
	    (uint64_t)archive_entry_size(e) : 0, err) != 0) {
		free(path);
		return -1;
	}
	if (root) {
		free(path);              /* "./": the pack root itself */
		r->roots_seen++;
		not_canonical(r);
		return 0;
	}
	if (util_path_check(path, path[0] != '\0' ? NULL : r->label, err) != 0 ||
	    check_no_vcs(r, path, err) != 0 ||
	    (pack_is_appledouble_path(path) &&
	    pack_refuse_appledouble(r->label, path, 1, err) != 0) ||
	    check_entry_limits(r, path, is_dir, (uint64_t)archive_entry_size(e),
	    err) != 0) {
		free(path);
		return -1;
	}
	item = pack_items_add(&r->items, path, is_dir ? PS_ENTRY_DIR :
	    PS_ENTRY_FILE, err);
	if (item == NULL)
		return -1;
	r->entries_seen++;
	r->status.files++;
	if (changed)
		not_canonical(r);
	item->entry.executable = !is_dir && (archive_entry_perm(e) & 0100) != 0;
	item->entry.size = is_dir ? 0 : (uint64_t)archive_entry_size(e);
	note_order(r, item);
	if (still_canonical(r) && rebuild_entry(r, e, item, err) != 0)
		return -1;
	if (is_dir)
		return r->visitor != NULL && r->visitor->dir != NULL ?
		    r->visitor->dir(r->visitor->ctx, item->entry.path, err) : 0;
	if (r->visitor != NULL && r->visitor->file(r->visitor->ctx,
	    &item->entry, err) != 0)
		return -1;
	return read_content(r, item, archive_entry_size_is_set(e), err);
}

static int
read_entries(struct reader *r, ps_error *err)
{
	struct archive_entry *e;
	int rc;

	while ((rc = archive_read_next_header(r->inner, &e)) == ARCHIVE_OK) {
		if (read_entry(r, e, err) != 0)
			return -1;
	}
	if (rc != ARCHIVE_EOF)
		return refuse_archive(r, r->inner, "cannot read an entry", err);
	if (r->zip != NULL && r->entries_seen + r->roots_seen !=
	    pack_zipscan_count(r->zip))
		return util_refuse(err, "zip_header_mismatch", r->label,
		    "libarchive read %zu of the %zu entries the central "
		    "directory lists", r->entries_seen + r->roots_seen,
		    pack_zipscan_count(r->zip));
	return 0;
}

/* What follows the tar's end-of-archive blocks is read to the end of the
 * file: the scan accepts NUL bytes only, counted against the size limit,
 * and the decoder nothing after its one member or frame. */
static int
drain(struct reader *r, ps_error *err)
{
	const void *buf;
	size_t size;

	do {
		if (r->stream_failed || next_stream_bytes(r, &buf, &size) != 0) {
			*err = r->stream_error;
			return -1;
		}
	} while (size > 0);
	return 0;
}

/* Every parent directory must be an explicit entry of a canonical tar.
 * `items` must be sorted: the files of one directory follow each other,
 * and their parent is looked up once. */
static int
parents_explicit(const pack_items *items)
{
	char parent[UTIL_PATH_MAX + 1];
	const char *path, *slash, *checked = NULL;
	size_t i, len, checked_len = 0;

	for (i = 0; i < items->count; i++) {
		path = items->items[i].entry.path;
		slash = strrchr(path, '/');
		if (slash == NULL)
			continue;
		len = (size_t)(slash - path);
		if (checked != NULL && len == checked_len &&
		    memcmp(path, checked, len) == 0)
			continue;
		if (len > UTIL_PATH_MAX)
			return 0;
		memcpy(parent, path, len);
		parent[len] = '\0';
		if (pack_items_find(items, parent) < 0)
			return 0;
		checked = path;
		checked_len = len;
	}
	return 1;
}

/* Canonical: the re-encoding produced exactly the input stream (the
 * hasher, if it had the re-encoding, has finished). */
static void
finish_canonical(struct reader *r)
{
	if (r->kind == PS_SOURCE_ZIP || !r->canonical ||
	    !parents_explicit(&r->items) || !pack_rebuild_finish(&r->rebuild))
		not_canonical(r);
}

static ps_digest *
make_digest(struct reader *r, ps_error *err)
{
	unsigned char stream[PS_SHA256_LEN], archive[PS_SHA256_LEN];
	unsigned char tree[PS_SHA256_LEN];
	ps_format format;
	size_t manifest;
	ps_digest *d;

	if (r->ahead != NULL && util_chunkread_finish(r->ahead, err) != 0)
		return NULL;
	if ((r->known == NULL &&
	    util_sha256_final(r->archive_hash, archive) != 0) ||
	    (r->decoder != NULL && !r->stream_is_file &&
	    util_sha256_final(r->stream_hash, stream) != 0)) {
		util_fail(err, "crypto_error", NULL, "SHA-256 failed");
		return NULL;
	}
	if (r->known != NULL)
		memcpy(archive, r->known, sizeof(archive));
	if (r->stream_is_file)
		memcpy(stream, archive, sizeof(stream));
	pack_items_sort(&r->items);
	if (pack_budget_implied(&r->budget, r->label,
	    pack_items_implied_dirs(&r->items), err) != 0)
		return NULL;
	finish_canonical(r);
	memset(tree, 0, sizeof(tree));
	if (pack_items_check(&r->items, r->label, err) != 0 ||
	    (r->zip != NULL && pack_zipscan_check_readings(r->zip, err) != 0) ||
	    pack_items_find_manifest(&r->items, r->label, &manifest, &format,
	    err) != 0 ||
	    (!r->partial && pack_items_tree_digest(&r->items, tree, err) != 0))
		return NULL;
	d = pack_items_to_digest(&r->items, err);
	if (d == NULL)
		return NULL;
	d->source = r->kind;
	d->format = format;
	memcpy(d->tree_digest, tree, sizeof(tree));
	d->has_archive_digest = 1;
	memcpy(d->archive_digest, archive, sizeof(archive));
	d->has_tar_digest = r->decoder != NULL;
	if (d->has_tar_digest)
		memcpy(d->tar_digest, stream, sizeof(stream));
	d->canonical = r->canonical;
	d->partial = r->partial;
	return pack_digest_set_manifest(d, manifest, err);
}

/* On the hasher thread: a file's digest, kept for the reader. */
static int
keep_file_digest(struct reader *r, size_t index, ps_error *err)
{
	struct file_digest *grown;
	size_t cap;

	if (r->file_digests_len == r->file_digests_cap) {
		cap = r->file_digests_cap == 0 ? 1024 : r->file_digests_cap * 2;
		grown = realloc(r->file_digests, cap * sizeof(*grown));
		if (grown == NULL)
			return util_fail_oom(err, r->label);
		r->file_digests = grown;
		r->file_digests_cap = cap;
	}
	r->file_digests[r->file_digests_len].index = index;
	if (util_sha256_final(r->file_hash,
	    r->file_digests[r->file_digests_len].sha256) != 0 ||
	    util_sha256_reset(r->file_hash) != 0)
		return util_fail(err, "crypto_error", NULL, "SHA-256 failed");
	r->file_digests_len++;
	return 0;
}

/* On the hasher thread. */
static int
consume_record(struct reader *r, uint64_t tag, const void *buf, size_t len,
    ps_error *err)
{
	switch (tag & (TAG_KINDS - 1)) {
	case FILE_DATA:
		return take_file_data(r, (unsigned)tag, buf, len, err);
	case FILE_END:
		return keep_file_digest(r, (size_t)(tag >> TAG_INDEX_SHIFT), err);
	case REBUILD_INPUT:
		pack_rebuild_input(&r->rebuild, buf, len);
		return 0;
	case REBUILD_ENTRY:
		take_rebuild_entry(r, buf, len);
		return 0;
	}
	if (util_sha256_update((tag & (TAG_KINDS - 1)) == HASH_ARCHIVE ?
	    r->archive_hash : r->stream_hash, buf, len) != 0)
		return util_fail(err, "crypto_error", NULL, "SHA-256 failed");
	if ((tag & DATA_REBUILT) != 0)
		pack_rebuild_input(&r->rebuild, buf, len);
	return 0;
}

/* Each record, then the reader's thread told once the re-encoding differs
 * (still_canonical()). */
static int
hash_record(void *ctx, uint64_t tag, const void *buf, size_t len,
    ps_error *err)
{
	struct reader *r = ctx;
	int rc = consume_record(r, tag, buf, len, err);

	/* Without offload the re-encoding is the reader thread's: not ours
	 * to read. */
	if (r->offload && r->rebuild.differs)
		atomic_store_explicit(&r->rebuild_differs, 1,
		    memory_order_relaxed);
	return rc;
}

/* The re-encoding names entries through libarchive: the hasher thread
 * needs the UTF-8 locale too. */
static int
hasher_begin(void *ctx, ps_error *err)
{
	return util_locale_enter(&((struct reader *)ctx)->hasher_locale, err);
}

static void
hasher_end(void *ctx)
{
	util_locale_leave(&((struct reader *)ctx)->hasher_locale);
}

/* Once the hasher has finished: the files' digests into their items. */
static void
take_file_digests(struct reader *r)
{
	size_t i;

	for (i = 0; i < r->file_digests_len; i++)
		memcpy(r->items.items[r->file_digests[i].index].entry.sha256,
		    r->file_digests[i].sha256, PS_SHA256_LEN);
}

static const util_worker_ops hash_ops = { hash_record, NULL, NULL };
static const util_worker_ops offload_ops = { hash_record, hasher_begin,
    hasher_end };

/* Hashes the file's bytes up to its size at open, writing them to `copy`
 * too unless it is -1; returns the bytes read, or -1. */
static int64_t
hash_and_copy(struct reader *r, int copy, ps_error *err)
{
	uint64_t left = r->status.bytes_total;
	ssize_t n;

	while (left > 0 && (n = util_read_full(r->fd, r->buffer, left <
	    r->read_size ? (size_t)left : r->read_size)) != 0) {
		if (n < 0)
			return util_fail_errno(err, "io_error", r->label, "read",
			    errno);
		if (util_sha256_update(r->archive_hash, r->buffer, (size_t)n) != 0)
			return util_fail(err, "crypto_error", NULL, "SHA-256 failed");
		if (copy >= 0 && util_write_all(copy, r->buffer, (size_t)n,
		    r->label, err) != 0)
			return -1;
		left -= (uint64_t)n;
	}
	return (int64_t)(r->status.bytes_total - left);
}

/*
 * A zip is read with seeks, so its bytes are hashed in a pass of their
 * own.  Unless no one else can write the file (install's private copy,
 * verify's), they are copied as they are hashed into a private copy
 * (util/copy.h: memory within the command's budget, else a file not on
 * tmpfs), which the scan and libarchive then read: the bytes parsed are
 * the bytes hashed, whatever a writer does to the file meanwhile.  No
 * place for the copy: refused (copy_unavailable), never parsed in place.
 */
static int
hash_whole_file(struct reader *r, ps_error *err)
{
	uint64_t size = r->status.bytes_total;
	int copy = -1;
	int64_t got;

	if (!r->fd_private) {
		if (util_copy_open(r->budget.limits.copies, size, r->label,
		    &r->copy, err) != 0)
			return -1;
		if (r->copy.kind == UTIL_COPY_NONE)
			return util_copy_refuse(r->budget.limits.copies, size,
			    r->label, "a zip is parsed from a private copy (its "
			    "bytes are read with seeks)", err);
		copy = r->copy.fd;
	}
	got = hash_and_copy(r, copy, err);
	if (got < 0)
		return -1;
	if (copy >= 0) {
		close(r->fd);
		r->fd = copy;
		r->copy.fd = -1;     /* the reader's descriptor now */
	}
	r->status.bytes_total = (uint64_t)got;
	if (lseek(r->fd, 0, SEEK_SET) != 0)
		return util_fail_errno(err, "io_error", r->label, "seek", errno);
	return 0;
}

/* No thread when there is little or nothing to hash: a small archive,
 * or an uncompressed one whose digest the chunk reader takes. */
static size_t
hasher_slots(const struct reader *r)
{
	if (r->status.bytes_total <= HASH_INLINE_MAX ||
	    (!r->hash_reads && !r->offload &&
	    r->compression == PS_COMPRESS_NONE))
		return 0;
	return HASHER_SLOTS;
}

static int
read_archive(struct reader *r, ps_digest **out, ps_error *err)
{
	pack_budget_init(&r->budget, r->limits, r->status.bytes_total);
	if (r->kind == PS_SOURCE_ZIP) {
		if ((r->known == NULL && hash_whole_file(r, err) != 0) ||
		    pack_zipscan_read(r->fd, r->status.bytes_total, r->label,
		    r->budget.limits.max_entries, &r->zip, err) != 0)
			return -1;
	} else {
		r->hash_reads = r->known == NULL && !r->ahead_hashes;
		/* pass 2 of two: the hasher would be idle, the files' digests
		 * and the re-encoding are half the work (a chunk reader is a
		 * thread already) */
		r->offload = r->known != NULL && r->ahead == NULL &&
		    r->status.bytes_total > HASH_INLINE_MAX;
		if (util_worker_new(r->offload ? &offload_ops : &hash_ops, r,
		    r->read_size, hasher_slots(r), &r->hasher, err) != 0 ||
		    open_stream(r, err) != 0)
			return -1;
	}
	if (open_inner(r, err) != 0 || read_entries(r, err) != 0)
		return -1;
	if (r->kind != PS_SOURCE_ZIP && (drain(r, err) != 0 ||
	    util_worker_finish(r->hasher, err) != 0))
		return -1;
	take_file_digests(r);
	*out = make_digest(r, err);
	if (*out != NULL)
		report(r, 1);
	return *out != NULL ? 0 : -1;
}

static void
reader_free(struct reader *r)
{
	util_chunkread_free(r->ahead);
	pack_decoder_free(r->decoder);
	pack_tarscan_free(r->scan);
	pack_zipscan_free(r->zip);
	if (r->inner != NULL)
		archive_read_free(r->inner);
	util_worker_free(r->hasher);
	pack_rebuild_free(&r->rebuild);
	pack_items_free(&r->items);
	util_sha256_free(r->archive_hash);
	util_sha256_free(r->stream_hash);
	util_sha256_free(r->file_hash);
	util_chunks_free(&r->chunk_check);
	free(r->chunk_buf);
	free(r->buffer);
	free(r->last_copy);
	free(r->file_digests);
	if (r->fd >= 0)
		close(r->fd);
	util_copy_close(&r->copy);
}

/* A buffer for reads of an input of `size` bytes: `most`, or less. */
static size_t
small_size(uint64_t size, size_t most)
{
	if (size >= most - 1)
		return most;
	return size + 1 > SMALL_READ_MIN ? (size_t)size + 1 : SMALL_READ_MIN;
}

/* The reader reads its own descriptor of the file open on `fd`, from the
 * start (a private copy's descriptor may be at its end); a tar whose
 * chunks are signed may also come on a pipe, read as it comes, its size
 * the signed one. */
static int
adopt_fd(struct reader *r, int fd, const pack_chunk_list *chunks,
    ps_error *err)
{
	int streamed = chunks != NULL && r->kind != PS_SOURCE_ZIP;
	struct stat st;

	if ((r->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0)
		return util_fail_errno(err, "io_error", r->label, "dup", errno);
	if (fstat(r->fd, &st) != 0 || (!S_ISREG(st.st_mode) &&
	    !(streamed && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))))
		return util_fail(err, "not_a_file", r->label,
		    "is not a regular file");
	if (S_ISREG(st.st_mode) && lseek(r->fd, 0, SEEK_SET) != 0)
		return util_fail_errno(err, "io_error", r->label, "seek", errno);
	r->status.bytes_total = S_ISREG(st.st_mode) ? (uint64_t)st.st_size :
	    chunks->size;
	r->read_size = small_size(r->status.bytes_total, READ_BUFFER);
	r->buffer = malloc(r->read_size);
	r->archive_hash = util_sha256_new();
	r->stream_hash = util_sha256_new();
	r->file_hash = util_sha256_new();
	if (r->buffer == NULL || r->archive_hash == NULL ||
	    r->stream_hash == NULL || r->file_hash == NULL)
		return util_fail_oom(err, r->label);
	return 0;
}

/* Chunk mode: the signed list, and a buffer for one chunk or, for more
 * than one chunk, the thread that reads and compares them ahead. */
static int
start_chunks(struct reader *r, const pack_chunk_list *chunks, ps_error *err)
{
	if (chunks == NULL || r->kind == PS_SOURCE_ZIP)
		return 0;
	r->chunks = chunks;
	if (util_chunks_compare(&r->chunk_check, chunks->digests,
	    chunks->count) != 0)
		return util_fail_oom(err, r->label);
	if (chunks->count > 1) {
		r->ahead_hashes = r->known == NULL;
		return util_chunkread_new(r->fd, UTIL_CHUNK_SIZE,
		    chunks->count < READ_AHEAD_CHUNKS ? chunks->count :
		    READ_AHEAD_CHUNKS, &chunk_ops, r, r->label, &r->ahead, err);
	}
	r->chunk_size = small_size(chunks->size, UTIL_CHUNK_SIZE);
	if ((r->chunk_buf = malloc(r->chunk_size)) == NULL)
		return util_fail_oom(err, r->label);
	return 0;
}

int
pack_archive_read_fd(int fd, int fd_private,
    const unsigned char *known_digest, const char *name, const char *label,
    const pack_archive_visitor *visitor, const ps_extract_limits *limits,
    ps_digest **out, ps_error *err)
{
	return pack_archive_read_fd_chunked(fd, fd_private, known_digest, NULL,
	    name, label, visitor, limits, out, err);
}

int
pack_archive_read_fd_chunked(int fd, int fd_private,
    const unsigned char *known_digest, const pack_chunk_list *chunks,
    const char *name, const char *label, const pack_archive_visitor *visitor,
    const ps_extract_limits *limits, ps_digest **out, ps_error *err)
{
	const pack_archive_name *kind;
	struct reader r;
	util_locale_scope scope;
	int rc = -1;

	memset(&r, 0, sizeof(r));
	atomic_init(&r.rebuild_differs, 0);
	r.fd = -1;
	r.copy.fd = -1;
	r.label = label;
	r.visitor = visitor;
	r.limits = limits;
	r.fd_private = fd_private;
	r.known = fd_private ? known_digest : NULL;
	*out = NULL;
	if ((kind = pack_archive_name_readable(name, label, err)) == NULL)
		return -1;
	r.leased = fd_private == PACK_FD_LEASED && kind->kind != PS_SOURCE_ZIP;
	if (fd_private == PACK_FD_LEASED && !r.leased) {
		r.fd_private = PACK_FD_SHARED;       /* a zip: from a copy */
		r.known = NULL;
	}
	r.kind = kind->kind;
	r.canonical = r.kind != PS_SOURCE_ZIP;  /* a zip never is */
	r.compression = kind->compression;
	if (adopt_fd(&r, fd, chunks, err) == 0 &&
	    start_chunks(&r, chunks, err) == 0 &&
	    util_locale_enter(&scope, err) == 0) {
		rc = read_archive(&r, out, err);
		util_locale_leave(&scope);
	}
	reader_free(&r);
	return rc;
}

int
pack_archive_read(const char *path, const pack_archive_visitor *visitor,
    const ps_extract_limits *limits, ps_digest **out, ps_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK), rc;

	*out = NULL;
	if (pack_archive_name_of(path) == NULL)
		return pack_archive_read_fd(-1, 0, NULL, path, path, visitor,
		    limits, out, err);
	if (fd < 0 && errno == ENOENT)
		return util_fail(err, "not_found", path, "no such file");
	if (fd < 0)
		return util_fail_errno(err, "io_error", path, "open", errno);
	rc = pack_archive_read_fd(fd, 0, NULL, path, path, visitor, limits, out,
	    err);
	close(fd);
	return rc;
}
