#include <stdlib.h>
#include <string.h>

#include <zlib.h>
#include <zstd.h>

#include "pack/decompress.h"
#include "util/error.h"

#define OUT_BUFFER (256 * 1024)

struct pack_decoder {
	ps_compression kind;
	const char *label;
	pack_decoder_input input;
	void *ctx;
	const unsigned char *in;     /* input not yet consumed */
	size_t in_len;
	int input_ended;
	int ended;                   /* the member or frame is complete */
	int started;                 /* the first input was looked at */
	z_stream z;
	int z_open;
	ZSTD_DCtx *zstd;
	unsigned char *out;
};

static int
corrupt(const pack_decoder *d, const char *what, const char *detail,
    ps_error *err)
{
	return util_refuse(err, "archive_corrupt", d->label, "%s%s%s", what,
	    detail != NULL ? ": " : "", detail != NULL ? detail : "");
}

static int
trailing(const pack_decoder *d, ps_error *err)
{
	util_refuse(err, "archive_trailing_data", d->label, "bytes follow the "
	    "%s; an archive is exactly one (other readers would read them "
	    "as more of the archive)", d->kind == PS_COMPRESS_GZIP ?
	    "gzip member" : "zstd frame");
	return util_error_expect(err, "the end of the file", "more bytes");
}

/* Refills the input when it is used up; 0 at the end is not an error. */
static int
pull(pack_decoder *d, ps_error *err)
{
	const void *buf;
	size_t len;

	while (d->in_len == 0 && !d->input_ended) {
		if (d->input(d->ctx, &buf, &len, err) != 0)
			return -1;
		d->in = buf;
		d->in_len = len;
		d->input_ended = len == 0;
	}
	return 0;
}

/* After the member or frame: the file must end. */
static int
check_end(pack_decoder *d, ps_error *err)
{
	if (d->in_len == 0 && pull(d, err) != 0)
		return -1;
	return d->in_len == 0 ? 0 : trailing(d, err);
}

int
pack_decoder_new(ps_compression compression, const char *label,
    pack_decoder_input input, void *ctx, pack_decoder **out, ps_error *err)
{
	pack_decoder *d = calloc(1, sizeof(*d));

	*out = NULL;
	/* A plain tar is handed on in its input's buffers. */
	if (d == NULL || (compression != PS_COMPRESS_NONE &&
	    (d->out = malloc(OUT_BUFFER)) == NULL)) {
		free(d);
		return util_fail_oom(err, label);
	}
	d->kind = compression;
	d->label = label;
	d->input = input;
	d->ctx = ctx;
	*out = d;
	if (compression == PS_COMPRESS_GZIP) {
		/* 16 + 15: a gzip wrapper only (not zlib or raw deflate). */
		if (inflateInit2(&d->z, 16 + MAX_WBITS) != Z_OK)
			return util_fail_oom(err, label);
		d->z_open = 1;
	} else if (compression == PS_COMPRESS_ZSTD) {
		d->zstd = ZSTD_createDCtx();
		if (d->zstd == NULL || ZSTD_isError(ZSTD_DCtx_setParameter(d->zstd,
		    ZSTD_d_windowLogMax, PACK_ZSTD_WINDOW_LOG_MAX)))
			return util_fail_oom(err, label);
	}
	return 0;
}

static int
read_plain(pack_decoder *d, const void **out, size_t *len, ps_error *err)
{
	if (pull(d, err) != 0)
		return -1;
	*out = d->in;
	*len = d->in_len;
	d->in_len = 0;
	return 0;
}

static int
read_gzip(pack_decoder *d, size_t *len, ps_error *err)
{
	uInt before;
	size_t used;
	int rc;

	d->z.next_out = d->out;
	d->z.avail_out = OUT_BUFFER;
	while (d->z.avail_out > 0 && !d->ended) {
		if (pull(d, err) != 0)
			return -1;
		if (d->in_len == 0)
			return corrupt(d, "the gzip member is truncated", NULL, err);
		d->z.next_in = (unsigned char *)d->in;
		d->z.avail_in = d->in_len > UINT32_MAX ? UINT32_MAX :
		    (uInt)d->in_len;
		before = d->z.avail_out;
		rc = inflate(&d->z, Z_NO_FLUSH);
		used = (size_t)(d->z.next_in - d->in);
		d->in_len -= used;
		d->in = d->z.next_in;
		if (rc == Z_STREAM_END)
			d->ended = 1;
		else if ((rc != Z_OK && rc != Z_BUF_ERROR) ||
		    (used == 0 && d->z.avail_out == before))
			return corrupt(d, "not a valid gzip member (a CRC-32, "
			    "length or deflate error)", d->z.msg, err);
	}
	*len = OUT_BUFFER - d->z.avail_out;
	return d->ended && *len == 0 ? check_end(d, err) : 0;
}

/* The file starts with a zstd frame, not a skippable frame or anything
 * else libzstd would step over. */
static int
check_zstd_magic(pack_decoder *d, ps_error *err)
{
	static const unsigned char magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };

	d->started = 1;
	if (pull(d, err) != 0)
		return -1;
	if (d->in_len < 4 || memcmp(d->in, magic, 4) != 0)
		return corrupt(d, "not a zstd frame (a skippable frame, or "
		    "not zstd at all)", NULL, err);
	return 0;
}

static int
read_zstd(pack_decoder *d, size_t *len, ps_error *err)
{
	ZSTD_outBuffer out = { d->out, OUT_BUFFER, 0 };
	ZSTD_inBuffer in;
	size_t rc;

	if (!d->started && check_zstd_magic(d, err) != 0)
		return -1;
	while (out.pos < out.size && !d->ended) {
		if (pull(d, err) != 0)
			return -1;
		if (d->in_len == 0)
			return corrupt(d, "the zstd frame is truncated", NULL, err);
		in = (ZSTD_inBuffer){ d->in, d->in_len, 0 };
		rc = ZSTD_decompressStream(d->zstd, &out, &in);
		d->in += in.pos;
		d->in_len -= in.pos;
		if (ZSTD_isError(rc))
			return corrupt(d, "not a valid zstd frame",
			    ZSTD_getErrorName(rc), err);
		d->ended = rc == 0;
	}
	*len = out.pos;
	return d->ended && *len == 0 ? check_end(d, err) : 0;
}

int
pack_decoder_read(pack_decoder *d, const void **out, size_t *len,
    ps_error *err)
{
	*out = d->out;
	*len = 0;
	switch (d->kind) {
	case PS_COMPRESS_GZIP:
		return read_gzip(d, len, err);
	case PS_COMPRESS_ZSTD:
		return read_zstd(d, len, err);
	default:
		return read_plain(d, out, len, err);
	}
}

void
pack_decoder_free(pack_decoder *d)
{
	if (d == NULL)
		return;
	if (d->z_open)
		inflateEnd(&d->z);
	ZSTD_freeDCtx(d->zstd);
	free(d->out);
	free(d);
}
