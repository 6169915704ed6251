/*
 * xplane_read.c - an XSpace file into the flat model (tlm_xplane.h).
 *
 * 1. load: the file into memory, inflated when it starts with the gzip
 *    magic (concatenated members too), never more than max_bytes;
 * 2. check: the bounded wire-format pass of xplane_wire.c over the whole
 *    XSpace but the insides of the XLine.events entries (offsets and
 *    field names in its errors; xplane_line.c checks each event as it
 *    decodes it, with the same errors);
 * 3. unpack: each XSpace.planes entry on its own: its fields other than
 *    the lines (id, name, metadata maps, stats) copied out and unpacked
 *    with protobuf-c (TlmXp__XPlaneHead), through an arena allocator
 *    (blocks of 4 MiB, freed at once) that refuses to hold more than a
 *    multiple of those bytes (protobuf-c's structs are larger than their
 *    wire form; the cap bounds a hostile file all the same); its lines
 *    handed to the model (xplane_model.c, xplane_line.c) as their bytes.
 */
#include "xplane_internal.h"

#include "xplane.pb-c.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "grow.h"
#include "mem_internal.h"

/* protobuf-c may hold this many bytes per byte of the plane, plus a
 * floor (an empty XEvent is 2 bytes on the wire, ~80 in memory). */
#define XP_ALLOC_RATIO 64
#define XP_ALLOC_FLOOR (1u << 20)

void tlm_xplane_opts_init(tlm_xplane_opts *o)
{
    o->max_bytes = (uint64_t)8 << 30;
}

/* ------------------------------------------------------------ loading */

typedef struct buf {
    unsigned char *p;
    size_t n, cap;
} buf;

static tlm_status put(buf *b, const unsigned char *s, size_t n,
                      uint64_t max, const char *file, tlm_error *err)
{
    if ((uint64_t)b->n + n > max)
        return tlm_error_set(err, TLM_ELIMIT, file, (int64_t)b->n,
                             "XPlane larger than %llu bytes (the reader's "
                             "max_bytes)", (unsigned long long)max);
    if (tlm_grow((void **)&b->p, &b->cap, b->n + n, 1, 1 << 16) != TLM_OK)
        return tlm_error_set(err, TLM_ENOMEM, file, (int64_t)b->n,
                             "out of memory reading the XPlane");
    memcpy(b->p + b->n, s, n);
    b->n += n;
    return TLM_OK;
}

/* Inflates src (gzip members back to back) into b. */
static tlm_status inflate_all(const unsigned char *src, size_t n, buf *b,
                              uint64_t max, const char *file, tlm_error *err)
{
    z_stream z;
    unsigned char out[1 << 16];
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK)
        return tlm_error_set(err, TLM_ENOMEM, file, -1, "zlib cannot start");
    z.next_in = (unsigned char *)(uintptr_t)src;
    tlm_status st = TLM_OK;
    size_t left = n;
    int rc = Z_OK;
    while (st == TLM_OK) {
        if (z.avail_in == 0) {
            uInt step = left > (1u << 30) ? (1u << 30) : (uInt)left;
            z.avail_in = step;
            left -= step;
        }
        z.next_out = out;
        z.avail_out = sizeof out;
        rc = inflate(&z, Z_NO_FLUSH);
        st = put(b, out, sizeof out - z.avail_out, max, file, err);
        if (st != TLM_OK)
            break;
        if (rc == Z_STREAM_END) {
            if (z.avail_in == 0 && left == 0)
                break;
            if (z.next_in[0] != 0x1f) {
                st = tlm_error_set(err, TLM_EGZIP, file, (int64_t)b->n,
                                   "trailing bytes after the gzip stream");
                break;
            }
            inflateReset(&z);
        } else if (rc == Z_BUF_ERROR && z.avail_in == 0 && left == 0) {
            st = tlm_error_set(err, TLM_EGZIP, file, (int64_t)b->n,
                               "truncated gzip stream (the file ends "
                               "inside it)");
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            st = tlm_error_set(err, TLM_EGZIP, file, (int64_t)b->n,
                               "corrupt gzip data (%s)",
                               z.msg ? z.msg : "zlib error");
        }
    }
    inflateEnd(&z);
    return st;
}

static tlm_status slurp(const char *path, buf *raw, tlm_error *err)
{
    FILE *f;
    tlm_status st = tlm_fopen_input(path, &f, err);
    if (st != TLM_OK)
        return st;
    struct stat sb;
    size_t k;
    if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
        (uint64_t)sb.st_size < SIZE_MAX) {
        /* one buffer of the file's size, its pages populated in one
         * request (read() would fault them in one by one) */
        raw->cap = (size_t)sb.st_size + 1;
        if (!(raw->p = tlm_malloc_warm(raw->cap)))
            st = tlm_error_set(err, TLM_ENOMEM, path, -1,
                               "out of memory reading the XPlane");
    }
    while (st == TLM_OK && raw->cap > raw->n &&
           (k = fread(raw->p + raw->n, 1, raw->cap - raw->n, f)) > 0)
        raw->n += k;
    unsigned char chunk[1 << 16]; /* a file that grew, or a pipe */
    while (st == TLM_OK && (k = fread(chunk, 1, sizeof chunk, f)) > 0)
        st = put(raw, chunk, k, UINT64_MAX, path, err);
    if (st == TLM_OK && ferror(f))
        st = tlm_error_set(err, TLM_EIO, path, (int64_t)raw->n,
                           "read error: %s", strerror(errno));
    fclose(f);
    return st;
}

/* ------------------------------------------------------------ unpacking */

/* protobuf-c's allocations for one plane: bumped from blocks (a plane
 * is millions of small structs, freed all at once), their total capped. */
typedef struct arena_blk {
    struct arena_blk *next;
    size_t used, cap;
    max_align_t data[];
} arena_blk;

typedef struct arena {
    arena_blk *head;  /* blocks in use, the newest first */
    arena_blk *spare; /* blocks of an earlier plane, to reuse */
    size_t total, cap;
    int over;
} arena;

#define ARENA_BLOCK (4u << 20)

static void *arena_alloc(void *ud, size_t n)
{
    arena *a = ud;
    size_t need = (n + 15) & ~(size_t)15;
    arena_blk *b = a->head;
    if (need < n)
        return NULL;
    if (!b || b->cap - b->used < need) {
        size_t left = a->cap - a->total;
        size_t bc = need > ARENA_BLOCK ? need : ARENA_BLOCK;
        if (need > left) {
            a->over = 1;
            return NULL;
        }
        if (bc > left)
            bc = left; /* the last block: what the cap leaves */
        if (a->spare && a->spare->cap >= need && a->spare->cap <= left) {
            b = a->spare; /* pages already touched: no clearing */
            a->spare = b->next;
            bc = b->cap;
        } else if (!(b = malloc(sizeof *b + bc))) {
            return NULL;
        }
        b->next = a->head;
        b->used = 0;
        b->cap = bc;
        a->head = b;
        a->total += bc;
    }
    void *p = (char *)b->data + b->used;
    b->used += need;
    return p;
}

static void arena_nofree(void *ud, void *p)
{
    (void)ud;
    (void)p; /* the arena goes as a whole */
}

/* Empties the arena for the next plane, its blocks kept for reuse. */
static void arena_reset(arena *a, size_t cap)
{
    while (a->head) {
        arena_blk *n = a->head->next;
        a->head->next = a->spare;
        a->spare = a->head;
        a->head = n;
    }
    a->total = 0;
    a->cap = cap;
    a->over = 0;
}

static void arena_free(arena *a)
{
    arena_reset(a, 0);
    while (a->spare) {
        arena_blk *n = a->spare->next;
        free(a->spare);
        a->spare = n;
    }
}

/* A plane's fields other than its lines, copied out (a message of their
 * own, for protobuf-c): reused from plane to plane, never more than the
 * plane's bytes.  The lines stay where they lie. */
typedef struct split {
    unsigned char *head;
    size_t n_head, cap_head;
} split;

/* The fields of the (checked) plane [p, p + n) but its lines into s. */
static tlm_status split_plane(split *s, const unsigned char *p, size_t n)
{
    const unsigned char *e = p + n;
    s->n_head = 0;
    while (p < e) {
        const unsigned char *f = p;
        uint64_t kv, len = 0;
        p += tlm_xpw_varint(p, e, &kv); /* checked: cannot fail */
        unsigned wt = (unsigned)(kv & 7);
        if (wt == 0)
            p += tlm_xpw_varint(p, e, &len);
        else if (wt == 1 || wt == 5)
            p += wt == 1 ? 8 : 4;
        else {
            p += tlm_xpw_varint(p, e, &len);
            p += len;
        }
        if (kv == 0x1a) /* XPlane.lines */
            continue;
        if (tlm_grow((void **)&s->head, &s->cap_head,
                     s->n_head + (size_t)(p - f), 1, 1 << 12) != TLM_OK)
            return TLM_ENOMEM;
        memcpy(s->head + s->n_head, f, (size_t)(p - f));
        s->n_head += (size_t)(p - f);
    }
    return TLM_OK;
}

static tlm_status unpack_plane(tlm_xplane *x, arena *ar, split *sp,
                               tlm_xpw_ctx *cx, const unsigned char *p,
                               size_t n, int64_t off)
{
    if (split_plane(sp, p, n) != TLM_OK)
        return tlm_error_set(cx->err, TLM_ENOMEM, cx->file, off,
                             "out of memory");
    size_t hn = sp->n_head;
    arena_reset(ar, hn > SIZE_MAX / XP_ALLOC_RATIO - XP_ALLOC_FLOOR
                        ? SIZE_MAX : hn * XP_ALLOC_RATIO + XP_ALLOC_FLOOR);
    ProtobufCAllocator a = {arena_alloc, arena_nofree, ar};
    TlmXp__XPlaneHead *pl = tlm_xp__xplane_head__unpack(
        &a, hn, sp->head ? sp->head : (const uint8_t *)"");
    if (!pl && ar->over)
        return tlm_error_set(cx->err, TLM_ELIMIT, cx->file, off,
                             "XPlane: decoding the plane would need more "
                             "than %zu bytes of memory (%d x its %zu bytes "
                             "of header)", ar->cap, XP_ALLOC_RATIO, hn);
    if (!pl)
        return tlm_error_set(cx->err, TLM_EFORMAT, cx->file, off,
                             "XPlane: protobuf-c cannot decode the plane "
                             "(%zu bytes)", n);
    return tlm_xplane_add_plane(x, pl, (tlm_xp_span){p, n}, cx, off);
    /* the arena goes at once: no free_unpacked pass */
}

/* Each XSpace.planes entry of the (checked) buffer. */
static tlm_status unpack_planes(tlm_xplane *x, const unsigned char *b,
                                size_t n, const char *file, tlm_error *err)
{
    const unsigned char *p = b, *e = b + n;
    arena ar = {0};
    split sp = {0};
    tlm_xpw_ctx cx = {b, 0, NULL, 1, file, err};
    tlm_status st = TLM_OK;
    while (st == TLM_OK && p < e) {
        uint64_t kv, len = 0;
        p += tlm_xpw_varint(p, e, &kv); /* checked: cannot fail */
        unsigned wt = (unsigned)(kv & 7);
        if (wt == 0) {
            p += tlm_xpw_varint(p, e, &len);
            continue;
        }
        if (wt == 1 || wt == 5) {
            p += wt == 1 ? 8 : 4;
            continue;
        }
        p += tlm_xpw_varint(p, e, &len);
        if ((kv >> 3) == 1)
            st = unpack_plane(x, &ar, &sp, &cx, p, (size_t)len,
                              (int64_t)(p - b));
        p += len;
    }
    arena_free(&ar);
    free(sp.head);
    return st;
}

static tlm_status unpack_checked(tlm_xplane *x, const unsigned char *b,
                                 size_t n, const tlm_xpw_counts *c,
                                 const char *file, tlm_error *err);

static tlm_status decode(tlm_xplane *x, const unsigned char *b, size_t n,
                         const char *file, tlm_error *err)
{
    if (n == 0)
        return tlm_error_set(err, TLM_EFORMAT, file, 0,
                             "XPlane: empty XSpace (no planes)");
    tlm_xpw_counts c = {0};
    tlm_status st = tlm_xpw_check(b, n, TLM_XPW_SPACE, 0, &c, 0, file, err);
    if (st == TLM_OK)
        st = unpack_checked(x, b, n, &c, file, err);
    if (st == TLM_EFORMAT || st == TLM_ELIMIT) {
        /* the first wire fault in file order, as one deep pass finds it
         * (the shallow pass and the decoders may meet a later one first) */
        tlm_error deep;
        tlm_error_clear(&deep);
        if (tlm_xpw_check(b, n, TLM_XPW_SPACE, 0, NULL, 1, file, &deep) !=
            TLM_OK) {
            st = deep.code;
            if (err)
                *err = deep;
        }
    }
    return st;
}

/* The checked buffer b[0..n) (c: what the shallow pass counted) into x. */
static tlm_status unpack_checked(tlm_xplane *x, const unsigned char *b,
                                 size_t n, const tlm_xpw_counts *c,
                                 const char *file, tlm_error *err)
{
    tlm_status st = TLM_OK;
    if (c->events > 0 &&
        c->events <= SIZE_MAX / sizeof *x->events) {
        /* room for every event at once (pages populated as the GPU
         * lines are decoded; no copying growth); failing, they grow */
        void *ev = malloc((size_t)c->events * sizeof *x->events);
        if (ev) {
            x->events = ev;
            x->cap_events = (size_t)c->events;
        }
    }
    st = unpack_planes(x, b, n, file, err);
    if (st == TLM_OK && x->stats.n_planes == 0)
        st = tlm_error_set(err, TLM_EFORMAT, file, 0,
                           "XPlane: the XSpace has no planes");
    return st;
}

static tlm_status xplane_new(tlm_xplane **out)
{
    tlm_xplane *x = calloc(1, sizeof *x);
    if (!x)
        return TLM_ENOMEM;
    if (tlm_intern_init(&x->strs, tlm_alloc_default()) != TLM_OK) {
        free(x);
        return TLM_ENOMEM;
    }
    *out = x;
    return TLM_OK;
}

static tlm_status read_bytes(const unsigned char *d, size_t n,
                             const char *name, const tlm_xplane_opts *o,
                             tlm_xplane **out, tlm_error *err)
{
    tlm_xplane_opts dflt;
    if (!o) {
        tlm_xplane_opts_init(&dflt);
        o = &dflt;
    }
    *out = NULL;
    tlm_xplane *x = NULL;
    if (xplane_new(&x) != TLM_OK)
        return tlm_error_set(err, TLM_ENOMEM, name, -1, "out of memory");
    buf inf = {0};
    const unsigned char *pb = d;
    size_t npb = n;
    tlm_status st = TLM_OK;
    x->stats.bytes_in = n;
    if (n >= 2 && d[0] == 0x1f && d[1] == 0x8b) {
        x->stats.gzip = 1;
        st = inflate_all(d, n, &inf, o->max_bytes, name, err);
        pb = inf.p;
        npb = inf.n;
    } else if (n > o->max_bytes) {
        st = tlm_error_set(err, TLM_ELIMIT, name, (int64_t)o->max_bytes,
                           "XPlane larger than %llu bytes (the reader's "
                           "max_bytes)", (unsigned long long)o->max_bytes);
    }
    x->stats.bytes_pb = npb;
    if (st == TLM_OK)
        st = decode(x, pb, npb, name, err);
    free(inf.p);
    if (st != TLM_OK) {
        tlm_xplane_free(x);
        return st;
    }
    *out = x;
    return TLM_OK;
}

tlm_status tlm_xplane_read_mem(const void *data, size_t n, const char *name,
                               const tlm_xplane_opts *o, tlm_xplane **out,
                               tlm_error *err)
{
    tlm_error_clear(err);
    return read_bytes(data, n, name ? name : "(memory)", o, out, err);
}

tlm_status tlm_xplane_read_file(const char *path, const tlm_xplane_opts *o,
                                tlm_xplane **out, tlm_error *err)
{
    char file[4096];
    tlm_error_clear(err);
    *out = NULL;
    tlm_status st = tlm_xplane_locate(path, file, sizeof file, err);
    if (st != TLM_OK)
        return st;
    buf raw = {0};
    st = slurp(file, &raw, err);
    if (st == TLM_OK)
        st = read_bytes(raw.p ? raw.p : (const unsigned char *)"", raw.n,
                        file, o, out, err);
    free(raw.p);
    return st;
}

void tlm_xplane_free(tlm_xplane *x)
{
    if (!x)
        return;
    tlm_intern_free(&x->strs);
    free(x->planes);
    free(x->lines);
    free(x->events);
    free(x);
}

const tlm_xp_plane *tlm_xplane_planes(const tlm_xplane *x, size_t *n)
{
    *n = x->n_planes;
    return x->planes;
}

const tlm_xp_line *tlm_xplane_lines(const tlm_xplane *x, size_t *n)
{
    *n = x->n_lines;
    return x->lines;
}

const tlm_xp_event *tlm_xplane_events(const tlm_xplane *x, size_t *n)
{
    *n = x->n_events;
    return x->events;
}

const char *tlm_xplane_str(const tlm_xplane *x, uint32_t id)
{
    if (id == 0 || id >= x->strs.n)
        return "";
    return x->strs.ents[id].s;
}

uint32_t tlm_xplane_str_count(const tlm_xplane *x)
{
    return x->strs.n;
}

const tlm_xplane_stats *tlm_xplane_stats_get(const tlm_xplane *x)
{
    return &x->stats;
}
