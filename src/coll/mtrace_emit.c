/*
 * mtrace_emit.c - the compressed text of the merged trace (tlm_mtrace.h):
 * raw deflate segments that join into one gzip member, the part records
 * turned back into JSON with their corrected times, and the flow events.
 *
 * Joining: each segment is its own raw deflate stream ended by
 * Z_SYNC_FLUSH (an empty stored block: byte-aligned, not final), so the
 * segments of every MPI rank can be written one after the other; the last
 * one ends with Z_FINISH (the final block).  The gzip trailer's CRC is the
 * segments' CRCs combined (crc32_combine), its length their sum: the same
 * bytes a single deflate of the whole text would decompress to, as pigz
 * does for its blocks.
 */
#include "tlmpi/tlm_mtrace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "grow.h"

#define ZBUF (1u << 18)

static tlm_status zfail(tlm_mtrace_z *z, tlm_error *err, const char *what)
{
    (void)z;
    if (errno && ferror(z->out))
        return tlm_error_set(err, TLM_EIO, NULL, -1,
                             "merged trace: %s: %s", what, strerror(errno));
    return tlm_error_set(err, TLM_EGZIP, NULL, -1, "merged trace: %s", what);
}

tlm_status tlm_mtrace_z_open(tlm_mtrace_z *z, FILE *out, int level,
                             tlm_error *err)
{
    memset(z, 0, sizeof *z);
    z->out = out;
    z_stream *s = calloc(1, sizeof *s);
    z->buf = malloc(2 * ZBUF);
    if (!s || !z->buf) {
        free(s);
        free(z->buf);
        z->buf = NULL;
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                             "out of memory starting the merged trace");
    }
    if (deflateInit2(s, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK) {
        free(s);
        free(z->buf);
        z->buf = NULL;
        return tlm_error_set(err, TLM_EGZIP, NULL, -1,
                             "merged trace: deflateInit2 failed");
    }
    z->zs = s;
    z->crc = (uint32_t)crc32(0L, Z_NULL, 0);
    return TLM_OK;
}

/* Deflates the waiting text with flush mode fl, writing what comes out. */
static tlm_status pump(tlm_mtrace_z *z, int fl, tlm_error *err)
{
    z_stream *s = z->zs;
    unsigned char *ob = z->buf + ZBUF;
    s->next_in = z->buf;
    s->avail_in = (uInt)z->fill;
    z->crc = (uint32_t)crc32(z->crc, z->buf, (uInt)z->fill);
    z->in_bytes += z->fill;
    int rc;
    do {
        s->next_out = ob;
        s->avail_out = ZBUF;
        rc = deflate(s, fl);
        if (rc == Z_STREAM_ERROR)
            return zfail(z, err, "deflate failed");
        size_t have = ZBUF - s->avail_out;
        errno = 0;
        if (have && fwrite(ob, 1, have, z->out) != have)
            return zfail(z, err, "writing");
        z->out_bytes += have;
    } while (s->avail_out == 0 || (fl == Z_FINISH && rc != Z_STREAM_END));
    z->fill = 0;
    return TLM_OK;
}

tlm_status tlm_mtrace_z_write(tlm_mtrace_z *z, const void *p, size_t n,
                              tlm_error *err)
{
    const unsigned char *c = p;
    while (n > 0) {
        size_t k = ZBUF - z->fill < n ? ZBUF - z->fill : n;
        memcpy(z->buf + z->fill, c, k);
        z->fill += k;
        c += k;
        n -= k;
        if (z->fill == ZBUF) {
            tlm_status st = pump(z, Z_NO_FLUSH, err);
            if (st != TLM_OK)
                return st;
        }
    }
    return TLM_OK;
}

void tlm_mtrace_z_abort(tlm_mtrace_z *z)
{
    if (z->zs) {
        deflateEnd(z->zs);
        free(z->zs);
    }
    free(z->buf);
    z->zs = NULL;
    z->buf = NULL;
}

tlm_status tlm_mtrace_z_close(tlm_mtrace_z *z, int last, tlm_error *err)
{
    tlm_status st = pump(z, last ? Z_FINISH : Z_SYNC_FLUSH, err);
    tlm_mtrace_z_abort(z);
    return st;
}

/* ---------------------------------------------------------------- parts */

typedef struct rec_hdr {
    int64_t ts;
    uint32_t len, kind;
} rec_hdr;

tlm_status tlm_mtrace_emit_part(FILE *part, uint64_t from, uint64_t to,
                                int64_t shift_ns, tlm_mtrace_z *z,
                                tlm_error *err)
{
    char head[64];
    char *text = malloc(1u << 16);
    size_t tcap = 1u << 16;
    tlm_status st = TLM_OK;
    if (!text)
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                             "out of memory in the merged trace");
    if (fseeko(part, (off_t)from, SEEK_SET) != 0) {
        free(text);
        return tlm_error_set(err, TLM_EIO, NULL, -1,
                             "merged trace: seeking its part file: %s",
                             strerror(errno));
    }
    for (uint64_t at = from; at < to && st == TLM_OK;) {
        rec_hdr h;
        if (fread(&h, sizeof h, 1, part) != 1 || h.kind > 1 ||
            h.len > to - at - sizeof h) {
            st = tlm_error_set(err, TLM_EFORMAT, NULL, (int64_t)at,
                               "merged trace: damaged part record");
            break;
        }
        if (tlm_grow((void **)&text, &tcap, h.len, 1, 1u << 16)) {
            st = TLM_ENOMEM;
            break;
        }
        if (fread(text, 1, h.len, part) != h.len) {
            st = tlm_error_set(err, TLM_EIO, NULL, (int64_t)at,
                               "merged trace: reading its part file");
            break;
        }
        size_t hl = 0;
        if (h.kind == 0) {
            memcpy(head, ",\n{\"ts\":", 8);
            hl = 8;
            tlm_mtrace_json_us(head, sizeof head, &hl, h.ts + shift_ns);
            head[hl++] = ',';
        } else {
            memcpy(head, ",\n{", 3);
            hl = 3;
        }
        st = tlm_mtrace_z_write(z, head, hl, err);
        if (st == TLM_OK)
            st = tlm_mtrace_z_write(z, text, h.len, err);
        at += sizeof h + h.len;
    }
    if (st == TLM_ENOMEM && err && err->code == TLM_OK)
        tlm_error_set(err, st, NULL, -1, "out of memory in the merged trace");
    free(text);
    return st;
}

/* ---------------------------------------------------------------- flows */

tlm_status tlm_mtrace_emit_flows(const tlm_mtrace_anchor *a, size_t n,
                                 int64_t (*shift_of)(void *arg, int32_t rank),
                                 void *arg, tlm_mtrace_z *z, tlm_error *err)
{
    char b[256];
    if (!shift_of)
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "merged trace: no clock shift for the flows");
    for (size_t i = 0; i < n; i++) {
        if (a[i].role == TLM_MTRACE_ROLE_NONE)
            continue;
        size_t o = 0;
        memcpy(b, ",\n{\"ts\":", 8);
        o = 8;
        tlm_mtrace_json_us(b, sizeof b, &o,
                           a[i].ts_ns + shift_of(arg, a[i].trace_rank));
        int w = snprintf(b + o, sizeof b - o,
                         ",\"ph\":\"%c\",\"bp\":\"e\",\"id\":%llu,"
                         "\"pid\":%ld,\"tid\":%lu,\"name\":\"collective\","
                         "\"cat\":\"tlmpi.collective\"}",
                         (char)a[i].role, (unsigned long long)a[i].flow_id,
                         (long)a[i].trace_rank, (unsigned long)a[i].tid);
        if (w < 0 || (size_t)w >= sizeof b - o)
            return tlm_error_set(err, TLM_ELIMIT, NULL, -1,
                                 "merged trace: flow event too long");
        tlm_status st = tlm_mtrace_z_write(z, b, o + (size_t)w, err);
        if (st != TLM_OK)
            return st;
    }
    return TLM_OK;
}

/* ---------------------------------------------------------------- gzip */

void tlm_mtrace_gzip_header(unsigned char out[10])
{
    static const unsigned char h[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
    memcpy(out, h, 10);
}

void tlm_mtrace_gzip_trailer(uint32_t crc, uint64_t len, unsigned char out[8])
{
    for (int i = 0; i < 4; i++) {
        out[i] = (unsigned char)(crc >> (8 * i));
        out[4 + i] = (unsigned char)((uint32_t)len >> (8 * i));
    }
}

uint32_t tlm_mtrace_crc_combine(uint32_t crc1, uint32_t crc2, uint64_t len2)
{
    return (uint32_t)crc32_combine((uLong)crc1, (uLong)crc2, (z_off_t)len2);
}
