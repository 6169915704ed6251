/*
 * instream.c - the bytes under the tokenizer.
 *
 * A file (or a memory buffer) is read in fixed chunks.  If it starts with
 * the gzip magic (1f 8b) it is inflated on the fly with zlib; members are
 * concatenated as gzip(1) does (inflateReset after each Z_STREAM_END while
 * input remains).  An end of input before a member's end is a truncated
 * stream, a bad CRC or length a corrupt one.  Nothing is ever held beyond
 * one compressed chunk.
 */
#include "trace_internal.h"

#include <errno.h>
#include <string.h>

static tlm_status src_read(tlm_instream *s, unsigned char *dst, size_t cap,
                           size_t *got, tlm_error *err)
{
    *got = 0;
    if (s->src_eof)
        return TLM_OK;
    if (s->mem) {
        size_t left = s->mem_size - s->mem_pos;
        size_t n = left < cap ? left : cap;
        memcpy(dst, s->mem + s->mem_pos, n);
        s->mem_pos += n;
        *got = n;
    } else {
        size_t n = fread(dst, 1, cap, s->fp);
        if (n < cap && ferror(s->fp))
            return tlm_error_set(err, TLM_EIO, s->name,
                                 (int64_t)s->bytes_out,
                                 "read error: %s", strerror(errno));
        *got = n;
    }
    if (*got == 0)
        s->src_eof = 1;
    s->bytes_in += *got;
    return TLM_OK;
}

static tlm_status open_common(tlm_instream *s, tlm_error *err)
{
    /* peek the first two bytes to recognise gzip */
    unsigned char magic[2];
    size_t got = 0, have = 0;
    s->zin = s->a->malloc_fn(s->a->ctx, s->chunk);
    if (!s->zin)
        return tlm_error_set(err, TLM_ENOMEM, s->name, -1, "out of memory");
    while (have < 2) {
        tlm_status st = src_read(s, magic + have, 2 - have, &got, err);
        if (st != TLM_OK)
            return st;
        if (got == 0)
            break;
        have += got;
    }
    if (have == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
        s->gzip = 1;
        memset(&s->zs, 0, sizeof s->zs);
        if (inflateInit2(&s->zs, 15 + 16) != Z_OK)
            return tlm_error_set(err, TLM_ENOMEM, s->name, -1,
                                 "zlib inflateInit2 failed");
        s->zinit = 1;
        s->members = 1;
        memcpy(s->zin, magic, 2);
        s->zs.next_in = s->zin;
        s->zs.avail_in = 2;
    } else {
        /* plain JSON: the peeked bytes are handed out first */
        memcpy(s->zin, magic, have);
        s->zs.next_in = s->zin;
        s->zs.avail_in = (uInt)have;
    }
    return TLM_OK;
}

tlm_status tlm_instream_open_file(tlm_instream *s, const char *path,
                                  size_t chunk, const tlm_alloc *a,
                                  tlm_error *err)
{
    memset(s, 0, sizeof *s);
    s->a = a;
    s->name = path;
    s->chunk = chunk ? chunk : 1;
    s->fp = fopen(path, "rb");
    if (!s->fp)
        return tlm_error_set(err, TLM_EIO, path, -1, "cannot open: %s",
                             strerror(errno));
    return open_common(s, err);
}

tlm_status tlm_instream_open_mem(tlm_instream *s, const void *data,
                                 size_t size, const char *name, size_t chunk,
                                 const tlm_alloc *a, tlm_error *err)
{
    static const unsigned char empty[1] = {0};
    memset(s, 0, sizeof *s);
    s->a = a;
    s->name = name ? name : "";
    s->chunk = chunk ? chunk : 1;
    s->mem = data ? data : empty;
    s->mem_size = data ? size : 0;
    return open_common(s, err);
}

/* Is there more compressed input?  Refills zin when empty. */
static tlm_status z_refill(tlm_instream *s, tlm_error *err)
{
    if (s->zs.avail_in > 0)
        return TLM_OK;
    size_t got;
    tlm_status st = src_read(s, s->zin, s->chunk, &got, err);
    if (st != TLM_OK)
        return st;
    s->zs.next_in = s->zin;
    s->zs.avail_in = (uInt)got;
    return TLM_OK;
}

static tlm_status read_gzip(tlm_instream *s, unsigned char *dst, size_t cap,
                            size_t *got, tlm_error *err)
{
    *got = 0;
    size_t want = cap < s->chunk ? cap : s->chunk;
    for (;;) {
        tlm_status st = z_refill(s, err);
        if (st != TLM_OK)
            return st;
        if (s->member_done) {
            /* another member follows, or the end */
            if (s->zs.avail_in == 0)
                return TLM_OK; /* clean end */
            if (s->zs.next_in[0] != 0x1f) {
                return tlm_error_set(err, TLM_EGZIP, s->name,
                                     (int64_t)s->bytes_out,
                                     "trailing garbage after gzip member "
                                     "%u", s->members);
            }
            if (inflateReset(&s->zs) != Z_OK)
                return tlm_error_set(err, TLM_EGZIP, s->name,
                                     (int64_t)s->bytes_out,
                                     "zlib inflateReset failed");
            s->member_done = 0;
            s->members++;
        }
        if (s->zs.avail_in == 0) {
            return tlm_error_set(err, TLM_EGZIP, s->name,
                                 (int64_t)s->bytes_out,
                                 "truncated gzip stream (member %u ends "
                                 "early)", s->members);
        }
        s->zs.next_out = dst;
        s->zs.avail_out = (uInt)want;
        int zr = inflate(&s->zs, Z_NO_FLUSH);
        size_t n = want - s->zs.avail_out;
        s->bytes_out += n;
        *got = n;
        if (zr == Z_STREAM_END) {
            s->member_done = 1;
        } else if (zr == Z_BUF_ERROR) {
            /* no progress possible: needs input (handled above) */
        } else if (zr != Z_OK) {
            return tlm_error_set(err, TLM_EGZIP, s->name,
                                 (int64_t)s->bytes_out,
                                 "corrupt gzip stream (member %u): %s",
                                 s->members,
                                 s->zs.msg ? s->zs.msg : "inflate error");
        }
        if (n > 0)
            return TLM_OK;
    }
}

tlm_status tlm_instream_read(tlm_instream *s, unsigned char *dst, size_t cap,
                             size_t *got, tlm_error *err)
{
    *got = 0;
    if (cap == 0)
        return TLM_OK;
    if (s->gzip)
        return read_gzip(s, dst, cap, got, err);
    size_t want = cap < s->chunk ? cap : s->chunk;
    if (s->zs.avail_in > 0) {
        /* the peeked magic bytes */
        size_t n = s->zs.avail_in < want ? s->zs.avail_in : want;
        memcpy(dst, s->zs.next_in, n);
        s->zs.next_in += n;
        s->zs.avail_in -= (uInt)n;
        s->bytes_out += n;
        *got = n;
        return TLM_OK;
    }
    tlm_status st = src_read(s, dst, want, got, err);
    s->bytes_out += *got;
    return st;
}

void tlm_instream_close(tlm_instream *s)
{
    if (s->zinit)
        inflateEnd(&s->zs);
    if (s->fp)
        fclose(s->fp);
    if (s->zin && s->a)
        s->a->free_fn(s->a->ctx, s->zin);
    s->zinit = 0;
    s->fp = NULL;
    s->zin = NULL;
}
