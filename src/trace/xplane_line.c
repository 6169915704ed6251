/*
 * xplane_line.c - a GPU plane's XLine and its events, decoded from the
 * wire into the flat model (tlm_xplane.h), each event checked as it is
 * decoded: the shallow wire pass (xplane_wire.c) has checked the line's
 * own fields and bounded each XLine.events entry, and this decoder makes
 * the checks of the deep pass inside the entry.  The common one-byte keys
 * with their expected wire types are read straight, every varint and
 * length bounded by the message; anything else (an unknown field, a key
 * of more bytes, any fault) goes through tlm_xpw_field, which checks it
 * as the wire pass does and names the offset and "XEvent.field (number)"
 * or "XStat.field (number)" of a fault.
 *
 * What is read: XLine id (1), name (2), timestamp_ns (3), events (4),
 * display_id (10), display_name (11); XEvent metadata_id (1), offset_ps
 * (2), duration_ps (3), stats (4), num_occurrences (5: the oneof's last
 * field wins, as in protobuf); of each XStat, the hlo_op (its metadata
 * named "hlo_op"; a stat whose first metadata_id is not hlo_op is not
 * one).  The event's own hlo_op stats come after its metadata's, the
 * last winning, as xprof's conversion does.
 */
#include "xplane_internal.h"

#include <inttypes.h>
#include <string.h>

#include "grow.h"

enum { K_CACHE = 64 }; /* hlo_op strings remembered per line */

/* Decoder state of one line. */
typedef struct dec {
    tlm_xplane *x;
    const tlm_xp_maps *m;
    tlm_xpw_ctx *cx;
    int oom;
    uint32_t cache[K_CACHE]; /* interned ids of recent hlo_op strings */
} dec;

/* A varint at p, bounded by e: past it, or NULL (the caller's slow path
 * names the fault). */
static inline const unsigned char *vget(const unsigned char *p,
                                        const unsigned char *e, uint64_t *v)
{
    size_t k = tlm_xpw_varint(p, e, v);
    return k ? p + k : NULL;
}

/* A length-delimited value at p: its payload [*s, return), or NULL when
 * the length is bad or runs past e. */
static inline const unsigned char *lget(const unsigned char *p,
                                        const unsigned char *e,
                                        const unsigned char **s)
{
    uint64_t n;
    size_t k = tlm_xpw_varint(p, e, &n);
    if (!k || n > (uint64_t)(e - p - (ptrdiff_t)k))
        return NULL;
    *s = p + k;
    return p + k + n;
}

/* A checked varint value (of tlm_xpw_field) at p. */
static uint64_t vval(const unsigned char *p, const unsigned char *e)
{
    uint64_t v = 0;
    (void)tlm_xpw_varint(p, e, &v);
    return v;
}

/* The id of the string s[0..n), interned through a small cache (the same
 * hlo_op names recur event after event). */
static uint32_t intern_hlo(dec *d, const unsigned char *s, size_t n)
{
    unsigned h = (unsigned)(n * 31u + s[0] * 7u + s[n - 1] * 13u +
                            s[n / 2]) % K_CACHE;
    uint32_t id = d->cache[h];
    if (id) {
        const tlm_strent *en = &d->x->strs.ents[id];
        if (en->len == n && memcmp(en->s, s, n) == 0)
            return id;
    }
    id = tlm_intern_add(&d->x->strs, (const char *)s, n);
    if (id == UINT32_MAX) {
        d->oom = 1;
        return 0;
    }
    d->cache[h] = id;
    return id;
}

/* A stat as read: its metadata and value (the oneof's last field: vf
 * its field number, 0 for none; the number in u, the string in s). */
typedef struct xst {
    int64_t mid;
    int seen_mid, not_hlo; /* not_hlo: the first metadata_id is not */
    unsigned vf;
    uint64_t u;
    const unsigned char *s;
    size_t sn;
} xst;

/* A field of an XStat: number num, value at [v, ve) (checked). */
static inline void stat_set(const tlm_xp_maps *m, xst *t, uint64_t num,
                            const unsigned char *v, const unsigned char *ve)
{
    if (num == 1) {
        t->mid = (int64_t)vval(v, ve);
        if (!t->seen_mid) {
            t->seen_mid = 1;
            t->not_hlo = !tlm_xp_stat_is_hlo(m, t->mid);
        }
    } else if (num == 5) {
        t->vf = 5;
        t->s = v;
        t->sn = (size_t)(ve - v);
    } else if (num == 2) {
        t->vf = 2;
        t->u = 0;
        for (int i = 7; i >= 0; i--)
            t->u = t->u << 8 | v[i];
    } else if (num == 3 || num == 4 || num == 7) {
        t->vf = (unsigned)num;
        t->u = vval(v, ve);
    } else if (num == 6) {
        t->vf = 6;
    } /* else unknown: skipped */
}

/* The string id of a stat's value that is not a string. */
static uint32_t stat_number(dec *d, const xst *t)
{
    TlmXp__XStat v = TLM_XP__XSTAT__INIT;
    switch (t->vf) {
    case 2:
        memcpy(&v.double_value, &t->u, sizeof t->u);
        v.value_case = TLM_XP__XSTAT__VALUE_DOUBLE_VALUE;
        break;
    case 3:
        v.uint64_value = t->u;
        v.value_case = TLM_XP__XSTAT__VALUE_UINT64_VALUE;
        break;
    case 4:
        v.int64_value = (int64_t)t->u;
        v.value_case = TLM_XP__XSTAT__VALUE_INT64_VALUE;
        break;
    case 7:
        v.ref_value = t->u;
        v.value_case = TLM_XP__XSTAT__VALUE_REF_VALUE;
        break;
    default:
        return 0; /* none, or bytes */
    }
    return tlm_xp_stat_value(d->x, d->m, &v, &d->oom);
}

/* One XStat [p, e), checked; when it is an hlo_op, *hlo is its value's
 * string id (0: none) and *has is set. */
static tlm_status stat_dec(dec *d, const unsigned char *p,
                           const unsigned char *e, int *has, uint32_t *hlo)
{
    xst t;
    t.mid = 0;
    t.seen_mid = t.not_hlo = 0;
    t.vf = 0;
    t.u = 0;
    t.s = NULL;
    t.sn = 0;
    while (p < e) {
        const unsigned char *q, *s;
        uint64_t num = *p >> 3;
        switch (*p) {
        case 0x08: case 0x18: case 0x20: case 0x38: /* varints */
            if ((q = vget(p + 1, e, &(uint64_t){0}))) {
                stat_set(d->m, &t, num, p + 1, q);
                p = q;
                continue;
            }
            break;
        case 0x11: /* double_value */
            if (e - p > 8) {
                stat_set(d->m, &t, num, p + 1, p + 9);
                p += 9;
                continue;
            }
            break;
        case 0x2a: case 0x32: /* str_value, bytes_value */
            if ((q = lget(p + 1, e, &s))) {
                stat_set(d->m, &t, num, s, q);
                p = q;
                continue;
            }
            break;
        default:
            break;
        }
        tlm_xpw_fv f;
        tlm_status st = tlm_xpw_field(d->cx, &p, e, TLM_XPW_STAT, &f);
        if (st != TLM_OK)
            return st;
        stat_set(d->m, &t, f.num, f.v, f.ve);
    }
    if (t.not_hlo || !tlm_xp_stat_is_hlo(d->m, t.mid))
        return TLM_OK;
    *has = 1;
    if (t.vf != 5)
        *hlo = stat_number(d, &t);
    else
        *hlo = t.sn ? intern_hlo(d, t.s, t.sn) : 0;
    return TLM_OK;
}

/* A decoded event. */
typedef struct xev {
    int64_t mid, off, dur;
    int has_hlo;
    uint32_t hlo;
} xev;

/* A field of an XEvent other than its stats: number num, value at v. */
/* A varint field of XEvent: metadata_id (1), offset_ps (2), duration_ps
 * (3), num_occurrences (5: the oneof with the offset, no offset). */
static inline void event_num(xev *ev, uint64_t num, uint64_t v)
{
    switch (num) {
    case 1: ev->mid = (int64_t)v; break;
    case 2: ev->off = (int64_t)v; break;
    case 3: ev->dur = (int64_t)v; break;
    case 5: ev->off = 0; break;
    default: break;
    }
}

static void event_set(xev *ev, uint64_t num, const unsigned char *v,
                      const unsigned char *e)
{
    if (num == 1 || num == 2 || num == 3 || num == 5)
        event_num(ev, num, vval(v, e));
}

/* One XEvent [p, e), checked. */
static tlm_status event_dec(dec *d, const unsigned char *p,
                            const unsigned char *e, xev *ev)
{
    memset(ev, 0, sizeof *ev);
    while (p < e) {
        const unsigned char *q, *s;
        uint64_t v;
        tlm_status st;
        switch (*p) {
        case 0x08: /* varint fields 1, 2, 3, 5 */
        case 0x10:
        case 0x18:
        case 0x28:
            if ((q = vget(p + 1, e, &v))) {
                event_num(ev, *p >> 3, v);
                p = q;
                continue;
            }
            break;
        case 0x22:
            if ((q = lget(p + 1, e, &s))) {
                st = stat_dec(d, s, q, &ev->has_hlo, &ev->hlo);
                if (st != TLM_OK)
                    return st;
                p = q;
                continue;
            }
            break;
        default:
            break;
        }
        tlm_xpw_fv f;
        st = tlm_xpw_field(d->cx, &p, e, TLM_XPW_EVENT, &f);
        if (st != TLM_OK)
            return st;
        if (f.num == 4) /* checked inside by tlm_xpw_field */
            st = stat_dec(d, f.v, f.ve, &ev->has_hlo, &ev->hlo);
        else
            event_set(ev, f.num, f.v, f.ve);
        if (st != TLM_OK)
            return st;
    }
    return TLM_OK;
}

/* ------------------------------------------------------------ the line */

/* A varint of a checked field at *p, *p moved past it (never past e). */
static uint64_t rd_varint(const unsigned char **p, const unsigned char *e)
{
    uint64_t v = 0;
    size_t k = tlm_xpw_varint(*p, e, &v);
    *p = k ? *p + k : e;
    return v;
}

/* Past one value of wire type wt at *p (never past e). */
static void skip(const unsigned char **p, const unsigned char *e,
                 unsigned wt)
{
    size_t left = (size_t)(e - *p), n = 0;
    if (wt == 0) {
        rd_varint(p, e);
        return;
    }
    if (wt == 1 || wt == 5)
        n = wt == 1 ? 8 : 4;
    else if (wt == 2)
        n = (size_t)rd_varint(p, e), left = (size_t)(e - *p);
    *p += n <= left ? n : left;
}

/* The line's own fields (all but its events; checked by the wire pass). */
typedef struct xline {
    int64_t id, disp, ts;
    const char *name, *dname; /* as C strings: up to a NUL */
    size_t name_n, dname_n;
    uint64_t n_events;
} xline;

static void line_head(const unsigned char *p, const unsigned char *e,
                      xline *l)
{
    memset(l, 0, sizeof *l);
    l->name = l->dname = "";
    while (p < e) {
        uint64_t key = rd_varint(&p, e); /* known fields: wire types
                                            checked by the wire pass */
        switch (key) {
        case 0x12:   /* name */
        case 0x5a: { /* display_name */
            uint64_t n = rd_varint(&p, e);
            n = n <= (uint64_t)(e - p) ? n : (uint64_t)(e - p);
            const unsigned char *z = memchr(p, 0, (size_t)n);
            size_t len = z ? (size_t)(z - p) : (size_t)n;
            if (key == 0x12)
                l->name = (const char *)p, l->name_n = len;
            else
                l->dname = (const char *)p, l->dname_n = len;
            p += n;
            break;
        }
        case 0x22: /* an event */
            l->n_events++;
            skip(&p, e, 2);
            break;
        case 0x08: l->id = (int64_t)rd_varint(&p, e); break;
        case 0x18: l->ts = (int64_t)rd_varint(&p, e); break;
        case 0x50: l->disp = (int64_t)rd_varint(&p, e); break;
        default: skip(&p, e, (unsigned)(key & 7)); break;
        }
    }
}

/* Room for k more events, populated ahead of their writes. */
static tlm_status room(tlm_xplane *x, uint64_t k)
{
    if (k > SIZE_MAX / sizeof *x->events - x->n_events ||
        tlm_grow((void **)&x->events, &x->cap_events,
                 x->n_events + (size_t)k, sizeof *x->events, 1024) !=
            TLM_OK ||
        tlm_grow((void **)&x->lines, &x->cap_lines, x->n_lines + 1,
                 sizeof *x->lines, 64) != TLM_OK)
        return TLM_ENOMEM;
    size_t sz = sizeof *x->events, used = x->n_events * sz;
    size_t cap = x->cap_events * sz, end = used + (size_t)k * sz;
    if (x->warm.base != x->events || end + TLM_WARM_STEP / 2 > x->warm.done)
        tlm_warm_upto(&x->warm, x->events, used,
                      cap - end > TLM_WARM_STEP ? end + TLM_WARM_STEP : cap);
    return TLM_OK;
}

/* The first event whose times are out of range. */
typedef struct bad_ev {
    size_t i; /* SIZE_MAX: none */
    int64_t off, dur;
} bad_ev;

/* The events of line l [p, e) into x->events from index first. */
static tlm_status line_events(dec *d, const unsigned char *p,
                              const unsigned char *e, size_t first,
                              int64_t t0, bad_ev *bad)
{
    tlm_xplane *x = d->x;
    tlm_xp_event *o = x->events + first;
    size_t i = 0;
    while (p < e) {
        uint64_t key = rd_varint(&p, e);
        unsigned wt = (unsigned)(key & 7);
        if (key != 0x22) {
            skip(&p, e, wt);
            continue;
        }
        uint64_t n = rd_varint(&p, e);
        const unsigned char *q = p + (n <= (uint64_t)(e - p) ? n : 0);
        xev ev;
        tlm_status st = event_dec(d, p, q, &ev);
        if (st != TLM_OK)
            return st;
        p = q;
        long mi = tlm_xp_emd_find(d->m, ev.mid);
        int64_t end;
        if ((__builtin_add_overflow(t0, ev.off, &o->ts_ps) || ev.dur < 0 ||
             __builtin_add_overflow(o->ts_ps, ev.dur, &end)) &&
            bad->i == SIZE_MAX) /* named once the line's wire is all
                                    checked */
            *bad = (bad_ev){i, ev.off, ev.dur};
        o->dur_ps = ev.dur;
        o->line = (uint32_t)x->n_lines;
        o->pad_ = 0;
        o->name = mi >= 0 ? d->m->emd_name[mi] : 0;
        o->hlo_op = ev.has_hlo ? ev.hlo : mi >= 0 ? d->m->emd_hlo[mi] : 0;
        o++;
        i++;
    }
    return TLM_OK;
}

tlm_status tlm_xp_gpu_line(tlm_xplane *x, const tlm_xp_maps *m,
                           tlm_xpw_ctx *cx, tlm_xp_span sp, int64_t off,
                           uint64_t *n_ev)
{
    const unsigned char *p = sp.p, *e = sp.p + sp.n;
    xline l;
    line_head(p, e, &l);
    *n_ev = 0;
    if (room(x, l.n_events) != TLM_OK)
        return TLM_ENOMEM;
    const char *nm = l.dname_n ? l.dname : l.name;
    size_t nn = l.dname_n ? l.dname_n : l.name_n;
    uint32_t sid = tlm_intern_add(&x->strs, nm, nn);
    if (sid == UINT32_MAX)
        return TLM_ENOMEM;
    nm = tlm_xplane_str(x, sid);
    tlm_xp_line *ln = &x->lines[x->n_lines];
    ln->plane = (uint32_t)(x->n_planes - 1);
    ln->tid = (uint32_t)(l.disp ? l.disp : l.id);
    ln->name = nm;
    int64_t t0;
    int t0_bad = __builtin_mul_overflow(l.ts, (int64_t)1000, &t0);
    dec d = {x, m, cx, 0, {0}};
    bad_ev bad = {SIZE_MAX, 0, 0};
    tlm_status st = line_events(&d, p, e, x->n_events, t0_bad ? 0 : t0,
                                &bad);
    if (st != TLM_OK)
        return st;
    if (d.oom)
        return TLM_ENOMEM;
    if (t0_bad)
        return tlm_error_set(cx->err, TLM_EFORMAT, cx->file, off,
                             "XPlane: XLine.timestamp_ns %" PRId64
                             " out of range (line '%.60s')", l.ts, nm);
    if (bad.i != SIZE_MAX)
        return tlm_error_set(cx->err, TLM_EFORMAT, cx->file, off,
                             "XPlane: line '%.60s' event %zu: offset_ps "
                             "%" PRId64 " / duration_ps %" PRId64
                             " out of range", nm, bad.i, bad.off, bad.dur);
    x->n_events += (size_t)l.n_events;
    x->n_lines++;
    *n_ev = l.n_events;
    return TLM_OK;
}
