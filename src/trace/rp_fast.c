/*
 * rp_fast.c - whole-record fast paths of the rocprofv3 reader (rp_rec.h).
 *
 * rocprofv3 writes millions of small buffer records in one plain shape:
 * keys without escapes, non-negative integers, a few nested objects.  A
 * record lying wholly in the lexer's window is read here in one pass on
 * local pointers, without a token struct, a callback per member or the
 * path bookkeeping of the error messages.
 *
 * Anything else -- a record cut by the window's end, an escape or a
 * non-ASCII byte, a negative, fractional or long number, a value of an
 * unexpected type, bad syntax, nesting near the limit -- makes the fast
 * path give up (NULL) without touching the lexer, and rocprof.c reads
 * the record again token by token, which accepts or refuses it with the
 * exact message.  So the fast path accepts a subset of what the slow one
 * accepts, and yields the same record for it.
 */
#include "rp_rec.h"

#include "rp_lex.h"

typedef const unsigned char uc;

void rp_timed_init(rp_timed *t)
{
    memset(t, 0, sizeof *t);
}

void rp_kd_init(rp_kd *d)
{
    memset(d, 0, sizeof *d);
    for (int j = 0; j < 3; j++)
        d->k.grid[j] = d->k.block[j] = 1;
}

void rp_mc_init(rp_mc *m)
{
    memset(m, 0, sizeof *m);
}

/* Deeper skipped values go to the slow path (bounds the recursion). */
#define FAST_SKIP_DEPTH 32

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && \
    (defined(__GNUC__) || defined(__clang__))
#define RP_SWAR 1 /* word-at-a-time paths (little-endian loads, ctz) */
#endif

#define ONES UINT64_C(0x0101010101010101)

/* 0x80 in each byte of x that is not zero. */
static inline uint64_t nonzero_bytes(uint64_t x)
{
    const uint64_t low7 = ONES * 0x7f;
    return (x | ((x & low7) + low7)) & ~low7;
}

/* A run of whitespace from p (spaces eight at a time). */
static uc *ws_run(uc *p, uc *e)
{
    for (;;) {
#ifdef RP_SWAR
        while (e - p >= 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            uint64_t x = w ^ (ONES * ' ');
            if (x) {
                p += (unsigned)__builtin_ctzll(nonzero_bytes(x)) / 8;
                break;
            }
            p += 8;
        }
#endif
        if (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
            p++;
        else
            return p;
    }
}

/* Whitespace: none, or one space or newline (rocprofv3 writes a member
 * per line, without indentation), inline; longer runs by ws_run. */
static inline uc *ws(uc *p, uc *e)
{
    if (p < e && *p > ' ')
        return p;
    if (e - p >= 2 && (*p == ' ' || *p == '\n') && p[1] > ' ')
        return p + 1;
    return ws_run(p, e);
}

static inline int num_byte(unsigned char c)
{
    return (unsigned)(c - '0') < 10 || c == '-' || c == '+' || c == '.' ||
           c == 'e' || c == 'E';
}

/* A string without escapes or non-ASCII bytes at p ('"'): the byte
 * after its closing quote, or NULL. */
static inline uc *str_end(const rp_fast *f, uc *p)
{
    uc *q = rp_str_stop(p + 1, f->end, f->attn);
    if (q >= f->end || *q != '"' || (size_t)(q - p - 1) > f->max_str)
        return NULL;
    return q + 1;
}

/* The bytes in w equal to '"', as 0x80 in their byte (exact up to and
 * including the first: later flags may be false). */
static inline uint64_t quote_bytes(uint64_t w)
{
    uint64_t x = w ^ (ONES * '"');
    return (x - ONES) & ~x & (ONES * 0x80);
}

/* A key of the word table (rp_keys.h) at p ('"'): its entry, and in *q
 * the byte after its closing quote; -1 when the key is not in the table. */
static inline int word_key(const rp_fast *f, uc *p, uc **q)
{
#ifdef RP_SWAR
    uint64_t w[3], m[3];
    if (f->end - p < RP_FKEY_MAX + 3)
        return -1;
    memcpy(w, p + 1, sizeof w);
    unsigned n;
    if ((m[0] = quote_bytes(w[0])) != 0) {
        n = (unsigned)__builtin_ctzll(m[0]) / 8;
    } else if ((m[1] = quote_bytes(w[1])) != 0) {
        n = 8 + (unsigned)__builtin_ctzll(m[1]) / 8;
    } else if ((m[2] = quote_bytes(w[2])) != 0) {
        n = 16 + (unsigned)__builtin_ctzll(m[2]) / 8;
    } else {
        return -1;
    }
    w[0] = rp_word_prefix(w[0], n);
    w[1] = rp_word_prefix(w[1], n > 8 ? n - 8 : 0);
    w[2] = rp_word_prefix(w[2], n > 16 ? n - 16 : 0);
    unsigned i = f->keys->fslot[rp_fkey_hash(f->keys, w)];
    const rp_fkey *k = &f->keys->fast[i];
    if (k->len != n || k->w[0] != w[0] || k->w[1] != w[1] || k->w[2] != w[2])
        return -1;
    *q = p + n + 2;
    return (int)i;
#else
    (void)f;
    (void)p;
    (void)q;
    return -1;
#endif
}

/* The key the prediction *slot names, at p: its entry, or -1. */
static inline int predicted_key(const rp_fast *f, uc *p, unsigned slot)
{
#ifdef RP_SWAR
    const rp_fkey *k = &f->keys->fast[slot];
    uint64_t w[3];
    if (f->end - p < RP_FKEY_MAX + 3)
        return -1;
    memcpy(w, p + 1, sizeof w);
    if ((((w[0] ^ k->wq[0]) & k->mq[0]) | ((w[1] ^ k->wq[1]) & k->mq[1]) |
         ((w[2] ^ k->wq[2]) & k->mq[2])) != 0)
        return -1;
    return (int)slot;
#else
    (void)f;
    (void)p;
    (void)slot;
    return -1;
#endif
}

/* A key, ':' and the whitespace after: the value's first byte.  *pred:
 * the entry expected here, updated when another came; *ent: the key's
 * entry (0 when not in the table). */
static inline uc *key(const rp_fast *f, uc *p, int *id, unsigned char *pred,
                      unsigned *ent)
{
    uc *q;
    if (p >= f->end || *p != '"')
        return NULL;
    int e = predicted_key(f, p, *pred);
    if (e < 0) {
        if ((e = word_key(f, p, &q)) < 0) {
            if (!(q = str_end(f, p)))
                return NULL;
            e = 0;
            *id = rp_key_id(f->keys, (const char *)p + 1,
                            (size_t)(q - p - 2));
        } else {
            *id = f->keys->fast[e].id;
        }
        *pred = (unsigned char)e;
    } else {
        q = p + f->keys->fast[e].len + 2;
        *id = f->keys->fast[e].id;
    }
    *ent = (unsigned)e;
    if (q < f->end && *q == ':')
        return ws(q + 1, f->end);
    q = ws(q, f->end);
    if (q >= f->end || *q != ':')
        return NULL;
    return ws(q + 1, f->end);
}

/* A non-negative integer that fits int64 followed by a delimiter inside
 * the window (what rp_lex reads as RP_INT too). */
static inline uc *uint_val(const rp_fast *f, uc *p, int64_t *v)
{
    uc *e = f->end, *s = p;
    uint64_t x = 0;
    if (p < e && *p == '0') {
        p++;
    } else {
        /* 19 digits fit uint64; more are not an int64 */
        while (p < e && (unsigned)(*p - '0') < 10 && p - s < 19)
            x = x * 10 + (unsigned)(*p++ - '0');
        if (p == s || x > INT64_MAX)
            return NULL;
    }
    if (p >= e || num_byte(*p))
        return NULL;
    *v = (int64_t)x;
    return p;
}

/* After a member's value: 1 and p on the next key, 0 and p past the
 * closing '}', -1 on anything else. */
static inline int member_end(const rp_fast *f, uc **pp)
{
    uc *p = ws(*pp, f->end);
    if (p >= f->end)
        return -1;
    if (*p == '}') {
        *pp = p + 1;
        return 0;
    }
    if (*p != ',')
        return -1;
    *pp = ws(p + 1, f->end);
    return 1;
}

static uc *skip_val(const rp_fast *f, uc *p, unsigned left);

/* The rest of an object or array after its opening byte. */
static uc *skip_container(const rp_fast *f, uc *p, int obj, unsigned left)
{
    unsigned char close = obj ? '}' : ']';
    unsigned prev = 0;
    p = ws(p, f->end);
    if (p < f->end && *p == close)
        return p + 1;
    for (;;) {
        if (obj) {
            int id;
            unsigned char *pred =
                &f->pred[RP_SITE_SKIPPED * RP_FKEY_N + prev];
            if (!(p = key(f, p, &id, pred, &prev)))
                return NULL;
        }
        if (!(p = skip_val(f, p, left)))
            return NULL;
        p = ws(p, f->end);
        if (p >= f->end)
            return NULL;
        if (*p == close)
            return p + 1;
        if (*p != ',')
            return NULL;
        p = ws(p + 1, f->end);
    }
}

/* Any value at p that may open left more levels (as rp_skip; left is
 * capped at FAST_SKIP_DEPTH by the caller). */
static uc *skip_val(const rp_fast *f, uc *p, unsigned left)
{
    uc *e = f->end, *s = p;
    if (p >= e)
        return NULL;
    switch (*p) {
    case '"':
        return str_end(f, p);
    case '{':
    case '[':
        if (left == 0)
            return NULL;
        return skip_container(f, p + 1, *p == '{', left - 1);
    case 't':
        return e - p > 4 && !memcmp(p, "true", 4) ? p + 4 : NULL;
    case 'f':
        return e - p > 5 && !memcmp(p, "false", 5) ? p + 5 : NULL;
    case 'n':
        return e - p > 4 && !memcmp(p, "null", 4) ? p + 4 : NULL;
    default: {
        int64_t v;
        uc *q = uint_val(f, p, &v);
        if (q)
            return q;
        while (p < e && num_byte(*p))
            p++;
        if (p >= e || p - s > 64 || (size_t)(p - s) > f->max_str ||
            !rp_num_syntax(s, p))
            return NULL;
        return p;
    }
    }
}

/* How many levels a value skipped in an object at level may open. */
static inline unsigned left_at(const rp_fast *f, unsigned level)
{
    unsigned l = f->max_depth - level;
    return l > FAST_SKIP_DEPTH ? FAST_SKIP_DEPTH : l;
}

typedef uc *(*member_fn)(const rp_fast *f, uc *p, int id, unsigned level,
                         void *ud);

/* The members of an object from just after its '{' (at level), each
 * value read by fn; inline, so that fn is a direct call. */
RP_INLINE uc *obj_body(const rp_fast *f, uc *p, unsigned level,
                       member_fn fn, void *ud, int site)
{
    unsigned prev = 0;
    p = ws(p, f->end);
    if (p < f->end && *p == '}')
        return p + 1;
    for (;;) {
        int id;
        unsigned char *pred = &f->pred[site * RP_FKEY_N + prev];
        if (!(p = key(f, p, &id, pred, &prev)) ||
            !(p = fn(f, p, id, level, ud)))
            return NULL;
        int r = member_end(f, &p);
        if (r <= 0)
            return r == 0 ? p : NULL;
    }
}

typedef struct one_int {
    int want;
    int64_t *v;
} one_int;

static uc *one_int_member(const rp_fast *f, uc *p, int id, unsigned level,
                          void *ud)
{
    const one_int *o = ud;
    if (id == o->want)
        return uint_val(f, p, o->v);
    return skip_val(f, p, left_at(f, level));
}

/* N, or {"<want>": N, ...} (a handle, a correlation id). */
static uc *int_or_obj(const rp_fast *f, uc *p, unsigned level, int want,
                      int64_t *v)
{
    if (p < f->end && *p == '{') {
        one_int o = {want, v};
        return obj_body(f, p + 1, level + 1, one_int_member, &o,
                        want == K_HANDLE ? RP_SITE_HANDLE : RP_SITE_CORR);
    }
    return uint_val(f, p, v);
}

static uc *dim_member(const rp_fast *f, uc *p, int id, unsigned level,
                      void *ud)
{
    int64_t *v = ud;
    if (id >= K_X && id <= K_Z)
        return uint_val(f, p, &v[id - K_X]);
    return skip_val(f, p, left_at(f, level));
}

/* {"x": .., "y": .., "z": ..} */
static uc *dims(const rp_fast *f, uc *p, unsigned level, int64_t *v)
{
    if (p >= f->end || *p != '{')
        return NULL;
    return obj_body(f, p + 1, level + 1, dim_member, v, RP_SITE_DIMS);
}

/* A member every timed record has; skip_val for any other. */
static uc *timed_member(const rp_fast *f, uc *p, int id, unsigned level,
                        void *ud)
{
    rp_timed *t = ud;
    switch (id) {
    case K_START_TIMESTAMP:
        t->seen |= 1;
        return uint_val(f, p, &t->start);
    case K_END_TIMESTAMP:
        t->seen |= 2;
        return uint_val(f, p, &t->end);
    case K_THREAD_ID:
        return uint_val(f, p, &t->thread_id);
    case K_CORRELATION_ID:
        return int_or_obj(f, p, level, K_INTERNAL, &t->corr);
    case K_OPERATION:
        return uint_val(f, p, &t->operation);
    case K_STREAM_ID:
        return int_or_obj(f, p, level, K_HANDLE, &t->stream);
    default:
        return skip_val(f, p, left_at(f, level));
    }
}

static uc *dinfo_member(const rp_fast *f, uc *p, int id, unsigned level,
                        void *ud)
{
    rp_kd *d = ud;
    switch (id) {
    case K_KERNEL_ID:
        d->has_kid = 1;
        return uint_val(f, p, &d->k.kernel_id);
    case K_DISPATCH_ID:
        return uint_val(f, p, &d->k.dispatch_id);
    case K_AGENT_ID:
        return int_or_obj(f, p, level, K_HANDLE, &d->k.agent);
    case K_QUEUE_ID:
        return int_or_obj(f, p, level, K_HANDLE, &d->k.queue);
    case K_GRID_SIZE:
        return dims(f, p, level, d->k.grid);
    case K_WORKGROUP_SIZE:
        return dims(f, p, level, d->k.block);
    default:
        return skip_val(f, p, left_at(f, level));
    }
}

static uc *kd_member(const rp_fast *f, uc *p, int id, unsigned level,
                     void *ud)
{
    rp_kd *d = ud;
    if (id != K_DISPATCH_INFO)
        return timed_member(f, p, id, level, &d->t);
    if (p >= f->end || *p != '{')
        return NULL;
    return obj_body(f, p + 1, level + 1, dinfo_member, d,
                    RP_SITE_DINFO);
}

static uc *mc_member(const rp_fast *f, uc *p, int id, unsigned level,
                     void *ud)
{
    rp_mc *m = ud;
    switch (id) {
    case K_BYTES:
        return uint_val(f, p, &m->c.bytes);
    case K_SRC_AGENT_ID:
        return int_or_obj(f, p, level, K_HANDLE, &m->c.src_agent);
    case K_DST_AGENT_ID:
        return int_or_obj(f, p, level, K_HANDLE, &m->c.dst_agent);
    default:
        return timed_member(f, p, id, level, &m->t);
    }
}

const unsigned char *rp_fast_kd(const rp_fast *f, const unsigned char *p,
                                unsigned level, rp_kd *d)
{
    return obj_body(f, p, level, kd_member, d, RP_SITE_KD);
}

const unsigned char *rp_fast_mc(const rp_fast *f, const unsigned char *p,
                                unsigned level, rp_mc *m)
{
    return obj_body(f, p, level, mc_member, m, RP_SITE_MC);
}

const unsigned char *rp_fast_api(const rp_fast *f, const unsigned char *p,
                                 unsigned level, rp_timed *t)
{
    return obj_body(f, p, level, timed_member, t, RP_SITE_API);
}
