/*
 * instream.c - the bytes under the tokenizer.
 *
 * A file (or a memory buffer) is read in fixed chunks.  If it starts with
 * the gzip magic (1f 8b) it is inflated on the fly with zlib; members are
 * concatenated as gzip(1) does (inflateReset after each Z_STREAM_END while
 * input remains).  An end of input before a member's end is a truncated
 * stream, a bad CRC or length a corrupt one.  Nothing is ever held beyond
 * one compressed chunk.
 *
 * Built with libdeflate (TLM_HAVE_LIBDEFLATE), a single-member gzip input of
 * at most TLM_INFLATE_WHOLE_MAX bytes, compressed and inflated (its ISIZE),
 * is instead inflated whole at open, two to three times faster than zlib,
 * with libdeflate's own CRC-32 and ISIZE checks, and handed out from that
 * buffer.  Anything libdeflate does not take cleanly (several members, a
 * bad CRC, a truncated stream, trailing bytes, an ISIZE that lies) is read
 * again from its start with zlib streaming, so every message and byte
 * offset stays zlib's.
 *
 * Built with ISA-L (TLM_HAVE_ISAL; CMake then leaves libdeflate out: ISA-L
 * streaming beats it at every size), a gzip input from a regular file or
 * memory is inflated streaming with ISA-L's
 * igzip (isal_inflate with ISAL_GZIP: it parses each member's header and
 * checks its CRC-32 and ISIZE), about three times faster than zlib, one
 * member after another (isal_inflate_reset) as above.  Anything ISA-L
 * refuses or does not finish (an error, a truncated member, bytes after a
 * member that do not start another) is read again from its start with zlib,
 * the bytes already handed out skipped (s->skip_out), so every message and
 * byte offset is zlib's.
 *
 * Inflating runs at about the tokenizer's speed, so for gzip input a helper
 * thread can inflate into a small ring of blocks while the caller tokenizes
 * (tlm_instream_start_thread); for a plain file (16 MiB or more) it does
 * the read() calls, whose copies out of the page cache are a tenth of the
 * reader's time.
 * Errors found by the thread travel with its blocks and surface, in order,
 * when the caller reaches them.
 */
#define _DEFAULT_SOURCE /* madvise */
#include "trace_internal.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef TLM_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif
#ifdef TLM_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

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

#ifdef TLM_HAVE_LIBDEFLATE
/* Size of the whole compressed input, or 0 when unknown (not a regular
 * file) or over the cap. */
static size_t whole_csize(const tlm_instream *s)
{
    uint64_t n;
    if (s->mem) {
        n = s->mem_size;
    } else {
        struct stat sb;
        if (fstat(fileno(s->fp), &sb) != 0 || !S_ISREG(sb.st_mode) ||
            sb.st_size < 0)
            return 0;
        n = (uint64_t)sb.st_size;
    }
    if (n < 18 || n > (uint64_t)TLM_INFLATE_WHOLE_MAX)
        return 0;
    return (size_t)n;
}

/* Inflates the whole gzip input (magic already read) with libdeflate into
 * s->whole.  Returns 1 on success, -1 when a buffer cannot be allocated
 * (TLM_ENOMEM, as everywhere in the reader); 0 leaves the source where it
 * was after the magic, for zlib streaming. */
static int whole_inflate(tlm_instream *s, size_t csize)
{
    const tlm_alloc *a = s->a;
    unsigned char *in = NULL;
    const unsigned char *src = s->mem;
    unsigned char *out = NULL;
    int ok = 0;
    if (!s->mem) {
        /* the ISIZE first (pread leaves the stream where it is): an input
         * that inflates past the cap is not read twice */
        unsigned char t4[4];
        if (pread(fileno(s->fp), t4, 4, (off_t)(csize - 4)) != 4 ||
            ((size_t)t4[0] | (size_t)t4[1] << 8 | (size_t)t4[2] << 16 |
             (size_t)t4[3] << 24) > (size_t)TLM_INFLATE_WHOLE_MAX)
            return 0;
        in = a->malloc_fn(a->ctx, csize);
        if (!in)
            return -1;
        in[0] = 0x1f;
        in[1] = 0x8b;
        if (fread(in + 2, 1, csize - 2, s->fp) != csize - 2)
            goto done;
        src = in;
    }
    const unsigned char *t = src + csize - 4;
    size_t isize = (size_t)t[0] | (size_t)t[1] << 8 | (size_t)t[2] << 16 |
                   (size_t)t[3] << 24;
    if (isize > (size_t)TLM_INFLATE_WHOLE_MAX)
        goto done;
    out = a->malloc_fn(a->ctx, isize ? isize : 1);
    if (!out) {
        ok = -1;
        goto done;
    }
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    if (!d) {
        if (d)
            libdeflate_free_decompressor(d);
        goto done;
    }
    size_t in_used = 0, out_got = 0;
    enum libdeflate_result r = libdeflate_gzip_decompress_ex(
        d, src, csize, out, isize, &in_used, &out_got);
    libdeflate_free_decompressor(d);
    ok = r == LIBDEFLATE_SUCCESS && in_used == csize && out_got == isize;
done:
    if (in)
        a->free_fn(a->ctx, in);
    if (ok > 0) {
        s->whole = out;
        s->whole_size = isize;
        s->whole_pos = 0;
        s->bytes_in = csize;
        s->src_eof = 1;
        return 1;
    }
    if (out)
        a->free_fn(a->ctx, out);
    if (ok < 0)
        return -1;
    /* back to just after the magic */
    if (s->mem) {
        s->mem_pos = 2;
    } else if (fseek(s->fp, 2, SEEK_SET) != 0) {
        return 0; /* zlib then reports what it finds */
    }
    s->bytes_in = 2;
    s->src_eof = 0;
    return 0;
}
#endif

#ifdef TLM_HAVE_ISAL
/* ISA-L's output is handed out ISAL_HOLD bytes behind it (read_isal),
 * inflated ISAL_STEP bytes at a time. */
#define ISAL_HOLD ((size_t)256 << 10)
#define ISAL_STEP ((size_t)1 << 20)

/* A new ISA-L state for a gzip member, its input where next_in says. */
static void isal_member(struct inflate_state *st)
{
    uint8_t *in = st->next_in;
    uint32_t n = st->avail_in;
    isal_inflate_reset(st);
    st->crc_flag = ISAL_GZIP; /* header parsed, CRC-32 and ISIZE checked */
    st->next_in = in;
    st->avail_in = n;
}

/* Starts ISA-L on a gzip input whose 2 magic bytes are in s->zin, when the
 * source can be read again from its start (a regular file or memory): 1,
 * 0 for zlib, -1 when a buffer cannot be allocated (TLM_ENOMEM). */
static int isal_open(tlm_instream *s)
{
    struct stat sb;
    if (!s->mem &&
        (fstat(fileno(s->fp), &sb) != 0 || !S_ISREG(sb.st_mode)))
        return 0;
    struct inflate_state *st = s->a->malloc_fn(s->a->ctx, sizeof *st);
    if (!st)
        return -1;
    s->iob = s->a->malloc_fn(s->a->ctx, ISAL_HOLD + ISAL_STEP);
    if (!s->iob) {
        s->a->free_fn(s->a->ctx, st);
        return -1;
    }
    isal_inflate_init(st);
    st->next_in = s->zin;
    st->avail_in = 2;
    isal_member(st);
    s->isal = st;
    return 1;
}

/* ISA-L refused the input or did not finish it: zlib reads it again from
 * its start, skipping the s->bytes_out bytes already handed out (the same
 * bytes: a member's bytes are what its deflate data says), and reports
 * whatever it finds with its own message and offset. */
static tlm_status isal_refuse(tlm_instream *s, tlm_error *err)
{
    s->a->free_fn(s->a->ctx, s->isal);
    s->a->free_fn(s->a->ctx, s->iob);
    s->isal = NULL;
    s->iob = NULL;
    s->skip_out = s->bytes_out;
    s->bytes_out = 0;
    s->bytes_in = 0;
    s->src_eof = 0;
    s->member_done = 0;
    s->members = 1;
    if (s->mem) {
        s->mem_pos = 0;
    } else if (fseek(s->fp, 0, SEEK_SET) != 0) {
        return tlm_error_set(err, TLM_EIO, s->name, (int64_t)s->skip_out,
                             "read error: %s", strerror(errno));
    }
    memset(&s->zs, 0, sizeof s->zs);
    if (inflateInit2(&s->zs, 15 + 16) != Z_OK)
        return tlm_error_set(err, TLM_ENOMEM, s->name, -1,
                             "zlib inflateInit2 failed");
    s->zinit = 1;
    return TLM_OK;
}

/* One isal_inflate call into s->iob past iob_end (member boundaries, the
 * header check, refills done here).  1: went on (end: *end set at a clean
 * end of input); 0: zlib must take over (refused, truncated, stuck); -1 with
 * *res: a read error. */
static int isal_step(tlm_instream *s, int *end, tlm_status *res,
                     tlm_error *err)
{
    struct inflate_state *st = s->isal;
    for (;;) {
        if (st->avail_in == 0 && !s->src_eof) {
            size_t n;
            if ((*res = src_read(s, s->zin, s->chunk, &n, err)) != TLM_OK)
                return -1;
            st->next_in = s->zin;
            st->avail_in = (uint32_t)n;
        }
        if (s->member_done) {
            if (st->avail_in == 0)
                return *end = 1; /* clean end */
            if (st->next_in[0] != 0x1f)
                return 0; /* trailing garbage: zlib says so */
            isal_member(st);
            s->hdr_got = 0;
            s->member_done = 0;
            s->members++;
        }
        uint32_t in0 = st->avail_in, h = 0;
        if (s->hdr_got < 4) { /* a member's first bytes: ID1 ID2 CM FLG */
            h = 4 - s->hdr_got < in0 ? 4 - s->hdr_got : in0;
            memcpy(s->hdr + s->hdr_got, st->next_in, h);
            s->hdr_got += h;
            /* zlib refuses FLG's reserved bits, ISA-L does not; zlib
             * checks a header CRC (FHCRC): both go to zlib */
            if (s->hdr_got == 4 && (s->hdr[2] != 8 || (s->hdr[3] & 0xe2)))
                return 0;
        }
        size_t room = ISAL_HOLD + ISAL_STEP - s->iob_end;
        st->next_out = s->iob + s->iob_end;
        st->avail_out = (uint32_t)room;
        if (isal_inflate(st) != ISAL_DECOMP_OK)
            return 0;
        if (in0 - st->avail_in < h) /* not all taken: seen again */
            s->hdr_got -= h - (in0 - st->avail_in);
        size_t n = room - st->avail_out;
        s->iob_end += n;
        if (st->block_state == ISAL_BLOCK_FINISH) {
            s->member_done = 1;
            s->iob_safe = s->iob_end; /* checked: no need to hold it */
        }
        if (n > 0 || s->member_done)
            return 1;
        if (st->avail_in == in0 && (in0 > 0 || s->src_eof))
            return 0; /* no progress: truncated (or stuck) */
    }
}

/* read_gzip with ISA-L.  Its bytes go out ISAL_HOLD behind ISA-L, except
 * those of members that it has checked to the end: near a truncation or
 * a corrupt block ISA-L may decode a little further than zlib would, and
 * those bytes must still be retractable when zlib takes over.  Returns 1
 * with *res when it has an answer, 0 when zlib takes over. */
static int read_isal(tlm_instream *s, unsigned char *dst, size_t want,
                     size_t *got, tlm_status *res, tlm_error *err)
{
    for (;;) {
        size_t lim = s->iob_end > ISAL_HOLD ? s->iob_end - ISAL_HOLD : 0;
        if (lim < s->iob_safe)
            lim = s->iob_safe;
        if (lim > s->iob_beg) {
            size_t n = lim - s->iob_beg < want ? lim - s->iob_beg : want;
            memcpy(dst, s->iob + s->iob_beg, n);
            s->iob_beg += n;
            s->bytes_out += n;
            *got = n;
            return *res = TLM_OK, 1;
        }
        if (s->iob_beg > 0) { /* what is held to the front */
            memmove(s->iob, s->iob + s->iob_beg, s->iob_end - s->iob_beg);
            s->iob_end -= s->iob_beg;
            s->iob_safe = s->iob_safe > s->iob_beg ? s->iob_safe - s->iob_beg
                                                   : 0;
            s->iob_beg = 0;
        }
        int end = 0, k = isal_step(s, &end, res, err);
        if (k < 0)
            return 1;
        if (end)
            return *res = TLM_OK, 1; /* all out: at the end, all safe */
        if (k == 0)
            break;
    }
    *got = 0;
    *res = isal_refuse(s, err);
    return *res != TLM_OK;
}
#endif

/* Hands the pages of the whole buffer that the tokenizer has had back to
 * the kernel (in 4 MiB steps), so that the inflated bytes and the events
 * built from them are not both resident; the pages are never read again. */
static void whole_release(tlm_instream *s)
{
    const size_t step = (size_t)4 << 20, pg = 4096;
    if (s->whole_pos - s->whole_freed < step)
        return;
    uintptr_t b = (uintptr_t)(s->whole + s->whole_freed);
    uintptr_t e = (uintptr_t)(s->whole + s->whole_pos);
    b = (b + pg - 1) & ~(uintptr_t)(pg - 1);
    e &= ~(uintptr_t)(pg - 1);
    if (e > b)
        (void)madvise((void *)b, e - b, MADV_DONTNEED);
    s->whole_freed = s->whole_pos;
}

/* Copies the next bytes of the whole inflated input; frees it at the end. */
static void whole_read(tlm_instream *s, unsigned char *dst, size_t cap,
                       size_t *got)
{
    size_t want = cap < s->chunk ? cap : s->chunk;
    size_t left = s->whole_size - s->whole_pos;
    size_t n = left < want ? left : want;
    memcpy(dst, s->whole + s->whole_pos, n);
    s->whole_pos += n;
    s->bytes_out += n;
    *got = n;
    whole_release(s);
    if (s->whole_pos == s->whole_size) {
        s->a->free_fn(s->a->ctx, s->whole);
        s->whole = NULL;
        s->whole_size = s->whole_pos = s->whole_freed = 0;
    }
}

static tlm_status open_common(tlm_instream *s, tlm_error *err)
{
    /* peek the first two bytes to recognise gzip */
    unsigned char magic[2];
    size_t got = 0, have = 0;
    /* at least 2 bytes: the peeked magic is parked here */
    s->zin = s->a->malloc_fn(s->a->ctx, s->chunk < 2 ? 2 : s->chunk);
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
#ifdef TLM_HAVE_LIBDEFLATE
        size_t csize = whole_csize(s);
        int w = csize && s->bytes_in == 2 ? whole_inflate(s, csize) : 0;
        if (w < 0)
            return tlm_error_set(err, TLM_ENOMEM, s->name, -1,
                                 "out of memory");
        if (w > 0) {
            s->members = 1;
            return TLM_OK;
        }
#endif
        s->members = 1;
        memcpy(s->zin, magic, 2);
#ifdef TLM_HAVE_ISAL
        int k = isal_open(s);
        if (k < 0)
            return tlm_error_set(err, TLM_ENOMEM, s->name, -1,
                                 "out of memory");
        if (k > 0)
            return TLM_OK;
#endif
        memset(&s->zs, 0, sizeof s->zs);
        if (inflateInit2(&s->zs, 15 + 16) != Z_OK)
            return tlm_error_set(err, TLM_ENOMEM, s->name, -1,
                                 "zlib inflateInit2 failed");
        s->zinit = 1;
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
    tlm_status st = tlm_fopen_input(path, &s->fp, err);
    if (st == TLM_ENOTFOUND) { /* a missing trace is a read error here */
        if (err)
            err->code = TLM_EIO;
        return TLM_EIO;
    }
    if (st != TLM_OK)
        return st;
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


static tlm_status read_zlib(tlm_instream *s, unsigned char *dst, size_t cap,
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

/* The next inflated bytes: ISA-L's while it goes, else zlib's, past the
 * bytes a refused ISA-L read had already handed out. */
static tlm_status read_gzip(tlm_instream *s, unsigned char *dst, size_t cap,
                            size_t *got, tlm_error *err)
{
    *got = 0;
#ifdef TLM_HAVE_ISAL
    if (s->isal) {
        tlm_status st;
        if (read_isal(s, dst, cap < s->chunk ? cap : s->chunk, got, &st, err))
            return st;
    }
#endif
    while (s->bytes_out < s->skip_out) {
        uint64_t left = s->skip_out - s->bytes_out;
        tlm_status st = read_zlib(s, dst, left < cap ? (size_t)left : cap,
                                  got, err);
        if (st != TLM_OK || *got == 0)
            return st;
        *got = 0;
    }
    return read_zlib(s, dst, cap, got, err);
}

/* ------------------------------------------------------------------ MARK:
 * Inflating (or reading) thread. */

static tlm_status read_direct(tlm_instream *s, unsigned char *dst, size_t cap,
                              size_t *got, tlm_error *err);

#define ZT_BLOCKS 4

typedef struct zblock {
    unsigned char *data;
    size_t len, pos;
    int last;          /* no block follows (end of input or error) */
    int lazy;          /* [pos, len) not read yet: the file's bytes from
                        * off + pos (tlm_instream_lazy_plan) */
    uint64_t off;
    tlm_status st;     /* error found after this block's data */
    tlm_error err;
} zblock;

struct tlm_zthread {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    zblock blk[ZT_BLOCKS];
    size_t size;       /* bytes per block */
    unsigned head;     /* next block the consumer reads */
    unsigned filled;   /* blocks ready for the consumer */
    int stop;          /* consumer gone: the thread ends */
    int done;          /* consumer has seen the last block */
    int held;          /* the head block is lent (tlm_instream_view) */
    unsigned period;   /* tlm_instream_lazy_plan (0: every block read) */
    uint64_t plan_size;
};

/* Whether the thread passes block j (tlm_instream_lazy_plan): then it
 * sets b up for the caller to read, seeks past it and returns 1. */
static int zthread_lazy(tlm_instream *s, const struct tlm_zthread *z,
                        unsigned period, uint64_t size, uint64_t j,
                        zblock *b)
{
    uint64_t off = j * z->size;
    if (period < 2 || j % period == 0 || off + z->size > size ||
        s->bytes_out != off ||
        fseeko(s->fp, (off_t)(off + z->size), SEEK_SET) != 0)
        return 0;
    b->lazy = 1;
    b->off = off;
    b->len = z->size;
    s->bytes_in += z->size;
    s->bytes_out += z->size;
    return 1;
}

static void *zthread_main(void *arg)
{
    tlm_instream *s = arg;
    struct tlm_zthread *z = s->zt;
    unsigned tail = 0;
    for (uint64_t j = 0;; j++) {
        pthread_mutex_lock(&z->mu);
        while (z->filled == ZT_BLOCKS && !z->stop)
            pthread_cond_wait(&z->cv, &z->mu);
        int stop = z->stop;
        unsigned period = z->period;
        uint64_t psize = z->plan_size;
        pthread_mutex_unlock(&z->mu);
        if (stop)
            return NULL;
        zblock *b = &z->blk[tail];
        b->len = b->pos = 0;
        b->last = b->lazy = 0;
        b->st = TLM_OK;
        tlm_error_clear(&b->err);
        if (!zthread_lazy(s, z, period, psize, j, b))
            while (b->len < z->size) {
                size_t got = 0;
                b->st = read_direct(s, b->data + b->len, z->size - b->len,
                                    &got, &b->err);
                if (b->st != TLM_OK || got == 0) {
                    b->last = 1;
                    break;
                }
                b->len += got;
            }
        pthread_mutex_lock(&z->mu);
        z->filled++;
        pthread_cond_broadcast(&z->cv);
        pthread_mutex_unlock(&z->mu);
        if (b->last)
            return NULL;
        tail = (tail + 1) % ZT_BLOCKS;
    }
}

void tlm_instream_start_thread(tlm_instream *s)
{
    if (s->zt || s->whole)
        return;
    /* gzip not inflated whole; a plain file of 16 MiB or more (its read()
     * copies: a tenth of the reader's time on a page-cached file; on a
     * small one the thread and its blocks cost more); not a buffer */
    struct stat sb;
    if (s->gzip ? !s->zinit && !s->isal
                : s->mem != NULL || fstat(fileno(s->fp), &sb) != 0 ||
                      sb.st_size < ((off_t)16 << 20))
        return;
    struct tlm_zthread *z = s->a->malloc_fn(s->a->ctx, sizeof *z);
    if (!z)
        return;
    memset(z, 0, sizeof *z);
    z->size = s->chunk < 65536 ? 65536 : s->chunk;
    for (int i = 0; i < ZT_BLOCKS; i++) {
        z->blk[i].data = s->a->malloc_fn(s->a->ctx, z->size);
        if (!z->blk[i].data)
            goto fail;
    }
    if (pthread_mutex_init(&z->mu, NULL) != 0)
        goto fail;
    if (pthread_cond_init(&z->cv, NULL) != 0) {
        pthread_mutex_destroy(&z->mu);
        goto fail;
    }
    s->zt = z;
    if (pthread_create(&z->th, NULL, zthread_main, s) != 0) {
        s->zt = NULL;
        pthread_cond_destroy(&z->cv);
        pthread_mutex_destroy(&z->mu);
        goto fail;
    }
    return;
fail:
    for (int i = 0; i < ZT_BLOCKS; i++)
        s->a->free_fn(s->a->ctx, z->blk[i].data);
    s->a->free_fn(s->a->ctx, z);
}

/* Gives the head block back to the inflating thread. */
static void zthread_next(struct tlm_zthread *z)
{
    pthread_mutex_lock(&z->mu);
    z->filled--;
    z->head = (z->head + 1) % ZT_BLOCKS;
    pthread_cond_broadcast(&z->cv);
    pthread_mutex_unlock(&z->mu);
}

/* The block the consumer reads now (a block lent whole before given
 * back), once the thread has filled it; NULL after the last one. */
static zblock *zthread_head(struct tlm_zthread *z)
{
    if (z->held) {
        z->held = 0;
        if (z->blk[z->head].pos == z->blk[z->head].len)
            zthread_next(z);
    }
    if (z->done)
        return NULL;
    pthread_mutex_lock(&z->mu);
    while (z->filled == 0)
        pthread_cond_wait(&z->cv, &z->mu);
    pthread_mutex_unlock(&z->mu);
    return &z->blk[z->head];
}

int tlm_pread_full(int fd, void *buf, size_t n, uint64_t off, size_t *got)
{
    unsigned char *p = buf;
    size_t done = 0;
    int rc = 0;
    while (done < n) {
        ssize_t k = pread(fd, p + done, n - done, (off_t)(off + done));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (k == 0)
                errno = 0;
            rc = -1;
            break;
        }
        done += (size_t)k;
    }
    if (got)
        *got = done;
    return rc;
}

/* Reads want bytes of the lazy block b at pos (tlm_instream_lazy_plan)
 * in this thread.  On failure the stream ends here (as after the error of
 * a last block). */
static tlm_status zthread_fill(tlm_instream *s, zblock *b, size_t want,
                               tlm_error *err)
{
    size_t got = 0;
    if (tlm_pread_full(fileno(s->fp), b->data + b->pos, want,
                       b->off + b->pos, &got) == 0)
        return TLM_OK;
    int e = errno;
    int64_t at = (int64_t)(b->off + b->pos + got);
    s->zt->done = 1;
    if (e)
        return tlm_error_set(err, TLM_EIO, s->name, at, "read error: %s",
                             strerror(e));
    return tlm_error_set(err, TLM_EIO, s->name, at,
                         "the file is shorter than when its read began");
}

/* Lends the rest of the head block (the block given back at the next
 * call); the last block is kept until the thread stops.  A lazy block is
 * read here, its first TLM_INSTREAM_LAZY_HEAD bytes lent first. */
static tlm_status zthread_view(tlm_instream *s, unsigned char **p,
                               size_t *n, tlm_error *err)
{
    struct tlm_zthread *z = s->zt;
    *n = 0;
    zblock *b = zthread_head(z);
    if (!b)
        return TLM_OK;
    size_t k = b->len - b->pos;
    if (b->lazy) {
        if (b->pos == 0 && k > TLM_INSTREAM_LAZY_HEAD)
            k = TLM_INSTREAM_LAZY_HEAD;
        tlm_status st = zthread_fill(s, b, k, err);
        if (st != TLM_OK)
            return st;
    }
    *p = b->data + b->pos;
    *n = k;
    b->pos += k;
    if (b->pos < b->len) { /* the rest of a lazy block at the next call */
        z->held = 1;
        return TLM_OK;
    }
    b->lazy = 0;
    if (!b->last) {
        z->held = 1;
        return TLM_OK;
    }
    z->done = 1;
    if (b->st != TLM_OK && err)
        *err = b->err;
    return b->st;
}

void tlm_instream_lazy_plan(tlm_instream *s, unsigned period, uint64_t size)
{
    struct tlm_zthread *z = s->zt;
    if (!z || s->gzip || !s->fp)
        return;
    pthread_mutex_lock(&z->mu);
    z->period = period;
    z->plan_size = size;
    pthread_mutex_unlock(&z->mu);
}

int tlm_instream_view_pass(tlm_instream *s, uint64_t max, size_t *passed)
{
    struct tlm_zthread *z = s->zt;
    *passed = 0;
    zblock *b = z ? zthread_head(z) : NULL;
    if (!b || b->last || b->len - b->pos > max)
        return 0;
    *passed = b->len - b->pos;
    b->pos = b->len;
    b->lazy = 0;
    z->held = 1;
    return 1;
}

size_t tlm_instream_view_size(const tlm_instream *s)
{
    return s->zt ? s->zt->size : 0;
}

tlm_status tlm_instream_view(tlm_instream *s, unsigned char **p, size_t *n,
                             tlm_error *err)
{
    *n = 0;
    if (!s->zt)
        return tlm_error_set(err, TLM_EINVAL, s->name, -1,
                             "no blocks to lend (internal error)");
    return zthread_view(s, p, n, err);
}

static tlm_status zthread_read(tlm_instream *s, unsigned char *dst,
                               size_t cap, size_t *got, tlm_error *err)
{
    struct tlm_zthread *z = s->zt;
    *got = 0;
    zblock *b = zthread_head(z);
    if (!b)
        return TLM_OK;
    size_t n = b->len - b->pos;
    if (n > cap)
        n = cap;
    if (b->lazy) {
        tlm_status st = zthread_fill(s, b, n, err);
        if (st != TLM_OK)
            return st;
    }
    memcpy(dst, b->data + b->pos, n);
    b->pos += n;
    *got = n;
    if (b->pos < b->len)
        return TLM_OK;
    if (b->last) {
        z->done = 1;
        if (b->st != TLM_OK) {
            if (err)
                *err = b->err;
            return b->st;
        }
        return TLM_OK;
    }
    zthread_next(z);
    return TLM_OK;
}

static void zthread_stop(tlm_instream *s)
{
    struct tlm_zthread *z = s->zt;
    if (!z)
        return;
    pthread_mutex_lock(&z->mu);
    z->stop = 1;
    pthread_cond_broadcast(&z->cv);
    pthread_mutex_unlock(&z->mu);
    pthread_join(z->th, NULL);
    pthread_cond_destroy(&z->cv);
    pthread_mutex_destroy(&z->mu);
    for (int i = 0; i < ZT_BLOCKS; i++)
        s->a->free_fn(s->a->ctx, z->blk[i].data);
    s->a->free_fn(s->a->ctx, z);
    s->zt = NULL;
}

tlm_status tlm_instream_read(tlm_instream *s, unsigned char *dst, size_t cap,
                             size_t *got, tlm_error *err)
{
    *got = 0;
    if (cap == 0)
        return TLM_OK;
    if (s->zt)
        return zthread_read(s, dst, cap, got, err);
    return read_direct(s, dst, cap, got, err);
}

/* The next bytes, read (and inflated) in the calling thread. */
static tlm_status read_direct(tlm_instream *s, unsigned char *dst, size_t cap,
                              size_t *got, tlm_error *err)
{
    *got = 0;
    if (s->whole)
        return whole_read(s, dst, cap, got), TLM_OK;
    if (s->gzip && !s->zinit && !s->isal)
        return TLM_OK; /* inflated whole and handed out */
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
    zthread_stop(s);
    if (s->zinit)
        inflateEnd(&s->zs);
    if (s->fp)
        fclose(s->fp);
    if (s->zin && s->a)
        s->a->free_fn(s->a->ctx, s->zin);
    if (s->whole && s->a)
        s->a->free_fn(s->a->ctx, s->whole);
    if (s->isal && s->a) {
        s->a->free_fn(s->a->ctx, s->isal);
        s->a->free_fn(s->a->ctx, s->iob);
    }
    s->isal = NULL;
    s->iob = NULL;
    s->whole = NULL;
    s->zinit = 0;
    s->fp = NULL;
    s->zin = NULL;
}
