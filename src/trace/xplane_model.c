/*
 * xplane_model.c - one unpacked XPlane (protobuf-c's TlmXp__XPlaneLazy)
 * into the flat model of tlm_xplane.h: the plane, and for a GPU plane its
 * lines and events with the names and the hlo_op stat the trace viewer
 * would show (display names first; event-metadata stats, then the
 * event's own, the later winning, as xprof's conversion does).  Events
 * arrive as their bytes (already checked by xplane_wire.c) and are
 * decoded here: fields 1 (metadata_id), 2 (offset_ps), 3 (duration_ps),
 * 4 (stats), 5 (num_occurrences; the oneof's last field wins, as in
 * protobuf); every read still bounded by the event's bytes.
 */
#include "xplane_internal.h"

#include "xplane.pb-c.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "mem_internal.h"

/* A metadata map sorted by key (the last entry of a key wins, as a
 * protobuf map's does). */
typedef struct kv {
    int64_t key;
    size_t idx;
} kv;

static int kv_cmp(const void *a, const void *b)
{
    const kv *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The last entry with key k, or -1. */
static long kv_find(const kv *v, size_t n, int64_t k)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* first index with key > k */
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].key <= k)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || v[lo - 1].key != k)
        return -1;
    return (long)v[lo - 1].idx;
}

/* What a plane's maps resolve to. */
typedef struct pmaps {
    const TlmXp__XPlaneLazy *p;
    kv *emd, *smd;
    size_t n_emd, n_smd;
    uint32_t *emd_name;   /* per event_metadata entry: interned name */
    uint32_t *emd_hlo;    /* per entry: interned hlo_op of its stats, 0 */
    uint8_t *smd_is_hlo;  /* per stat_metadata entry: named "hlo_op" */
    int64_t hlo_id[4];    /* the keys named "hlo_op" (n_hlo_id <= 4) */
    int n_hlo_id;         /* -1: more than 4, look them up */
    long *emd_dense;      /* keys emd_lo .. emd_lo + n_dense - 1: entry
                             index or -1; NULL when the keys are sparse */
    int64_t emd_lo;
    size_t n_dense;
} pmaps;

static void maps_free(pmaps *m)
{
    free(m->emd);
    free(m->smd);
    free(m->emd_name);
    free(m->emd_hlo);
    free(m->smd_is_hlo);
    free(m->emd_dense);
}

/* When the event metadata keys are dense (the usual 1 .. n), a table
 * from key to entry replaces the binary search; left NULL otherwise. */
static void dense_build(pmaps *m)
{
    if (m->n_emd == 0)
        return;
    int64_t lo = m->emd[0].key; /* sorted: the span cannot wrap */
    uint64_t span = (uint64_t)m->emd[m->n_emd - 1].key - (uint64_t)lo;
    if (span >= 2 * (uint64_t)m->n_emd + 64)
        return;
    size_t n = (size_t)span + 1;
    long *d = malloc(n * sizeof *d);
    if (!d)
        return; /* kv_find does the same, slower */
    for (size_t i = 0; i < n; i++)
        d[i] = -1;
    for (size_t i = 0; i < m->n_emd; i++) /* sorted: the last one wins */
        d[(uint64_t)m->emd[i].key - (uint64_t)lo] = (long)m->emd[i].idx;
    m->emd_dense = d;
    m->emd_lo = lo;
    m->n_dense = n;
}

/* The event metadata entry of key k, or -1. */
static long emd_find(const pmaps *m, int64_t k)
{
    if (m->emd_dense) {
        uint64_t i = (uint64_t)k - (uint64_t)m->emd_lo;
        return k >= m->emd_lo && i < m->n_dense ? m->emd_dense[i] : -1;
    }
    return kv_find(m->emd, m->n_emd, k);
}

static const char *smd_name(const pmaps *m, int64_t id)
{
    long i = kv_find(m->smd, m->n_smd, id);
    if (i < 0 || !m->p->stat_metadata[i]->value)
        return NULL;
    return m->p->stat_metadata[i]->value->name;
}

static int stat_is_hlo(const pmaps *m, int64_t id)
{
    if (m->n_hlo_id >= 0) {
        for (int k = 0; k < m->n_hlo_id; k++)
            if (m->hlo_id[k] == id)
                return 1;
        return 0;
    }
    long i = kv_find(m->smd, m->n_smd, id);
    return i >= 0 && m->smd_is_hlo[i];
}

/* The stat's value as the trace viewer prints it, interned; 0 for none. */
static uint32_t stat_value(tlm_xplane *x, const pmaps *m, const TlmXp__XStat *s,
                           int *oom)
{
    char buf[64];
    const char *v = buf;
    switch (s->value_case) {
    case TLM_XP__XSTAT__VALUE_STR_VALUE:
        v = s->str_value;
        break;
    case TLM_XP__XSTAT__VALUE_REF_VALUE:
        v = smd_name(m, (int64_t)s->ref_value);
        break;
    case TLM_XP__XSTAT__VALUE_INT64_VALUE:
        snprintf(buf, sizeof buf, "%" PRId64, s->int64_value);
        break;
    case TLM_XP__XSTAT__VALUE_UINT64_VALUE:
        snprintf(buf, sizeof buf, "%" PRIu64, s->uint64_value);
        break;
    case TLM_XP__XSTAT__VALUE_DOUBLE_VALUE:
        snprintf(buf, sizeof buf, "%.17g", s->double_value);
        break;
    default:
        return 0;
    }
    if (!v || !*v)
        return 0;
    uint32_t id = tlm_intern_add(&x->strs, v, strlen(v));
    if (id == UINT32_MAX)
        *oom = 1;
    return id == UINT32_MAX ? 0 : id;
}

/* The hlo_op among stats (the last one wins), or keep. */
static uint32_t hlo_of(tlm_xplane *x, const pmaps *m, TlmXp__XStat **st,
                       size_t n, uint32_t keep, int *oom)
{
    for (size_t i = 0; i < n; i++)
        if (stat_is_hlo(m, st[i]->metadata_id))
            keep = stat_value(x, m, st[i], oom);
    return keep;
}

static tlm_status maps_build(tlm_xplane *x, const TlmXp__XPlaneLazy *p,
                             pmaps *m)
{
    memset(m, 0, sizeof *m);
    m->p = p;
    m->n_emd = p->n_event_metadata;
    m->n_smd = p->n_stat_metadata;
    m->emd = malloc((m->n_emd + 1) * sizeof *m->emd);
    m->smd = malloc((m->n_smd + 1) * sizeof *m->smd);
    m->emd_name = calloc(m->n_emd + 1, sizeof *m->emd_name);
    m->emd_hlo = calloc(m->n_emd + 1, sizeof *m->emd_hlo);
    m->smd_is_hlo = calloc(m->n_smd + 1, 1);
    if (!m->emd || !m->smd || !m->emd_name || !m->emd_hlo || !m->smd_is_hlo)
        return TLM_ENOMEM;
    for (size_t i = 0; i < m->n_smd; i++) {
        m->smd[i] = (kv){p->stat_metadata[i]->key, i};
        const TlmXp__XStatMetadata *v = p->stat_metadata[i]->value;
        m->smd_is_hlo[i] = v && strcmp(v->name, "hlo_op") == 0;
    }
    qsort(m->smd, m->n_smd, sizeof *m->smd, kv_cmp);
    for (size_t i = 0; i < m->n_smd && m->n_hlo_id >= 0; i++) {
        int64_t k = m->smd[i].key; /* the last entry of a key counts */
        if (i + 1 < m->n_smd && m->smd[i + 1].key == k)
            continue;
        if (!m->smd_is_hlo[m->smd[i].idx])
            continue;
        if (m->n_hlo_id == 4)
            m->n_hlo_id = -1;
        else
            m->hlo_id[m->n_hlo_id++] = k;
    }
    int oom = 0;
    for (size_t i = 0; i < m->n_emd; i++) {
        m->emd[i] = (kv){p->event_metadata[i]->key, i};
        const TlmXp__XEventMetadata *v = p->event_metadata[i]->value;
        if (!v)
            continue;
        const char *nm = v->display_name[0] ? v->display_name : v->name;
        uint32_t id = tlm_intern_add(&x->strs, nm, strlen(nm));
        oom |= id == UINT32_MAX;
        m->emd_name[i] = id == UINT32_MAX ? 0 : id;
        m->emd_hlo[i] = hlo_of(x, m, v->stats, v->n_stats, 0, &oom);
    }
    qsort(m->emd, m->n_emd, sizeof *m->emd, kv_cmp);
    dense_build(m);
    return oom ? TLM_ENOMEM : TLM_OK;
}

/* A decoded event. */
typedef struct xev {
    int64_t mid, off, dur;
    long mi; /* index of its metadata entry, or -1 */
    uint32_t hlo;
} xev;

static uint64_t rd_varint(const unsigned char **p, const unsigned char *e)
{
    uint64_t v = 0;
    size_t k = tlm_xpw_varint(*p, e, &v);
    *p = k ? *p + k : e; /* checked before: a cut value ends the event */
    return v;
}

/* Past one value of wire type wt. */
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

/* One XStat [p, e): the hlo_op value when its metadata is hlo_op. */
static uint32_t stat_hlo(tlm_xplane *x, const pmaps *m,
                         const unsigned char *p, const unsigned char *e,
                         uint32_t keep, int *oom)
{
    TlmXp__XStat st = TLM_XP__XSTAT__INIT;
    const unsigned char *sp = NULL;
    size_t sn = 0;
    while (p < e) {
        uint64_t key = rd_varint(&p, e);
        unsigned wt = (unsigned)(key & 7);
        switch (key >> 3) {
        case 1:
            st.metadata_id = (int64_t)rd_varint(&p, e);
            if (!stat_is_hlo(m, st.metadata_id))
                return keep; /* not an hlo_op (a later field 1 could
                                 still make it one: protobuf's last
                                 wins; TraceLens's files write it once) */
            break;
        case 3: st.value_case = TLM_XP__XSTAT__VALUE_UINT64_VALUE;
                st.uint64_value = rd_varint(&p, e); break;
        case 4: st.value_case = TLM_XP__XSTAT__VALUE_INT64_VALUE;
                st.int64_value = (int64_t)rd_varint(&p, e); break;
        case 7: st.value_case = TLM_XP__XSTAT__VALUE_REF_VALUE;
                st.ref_value = rd_varint(&p, e); break;
        case 5:
            sn = (size_t)rd_varint(&p, e);
            sn = sn <= (size_t)(e - p) ? sn : (size_t)(e - p);
            sp = p;
            p += sn;
            st.value_case = TLM_XP__XSTAT__VALUE_STR_VALUE;
            break;
        case 2:
            if (e - p >= 8) {
                uint64_t b = 0;
                for (int i = 7; i >= 0; i--)
                    b = b << 8 | p[i];
                memcpy(&st.double_value, &b, sizeof b);
                st.value_case = TLM_XP__XSTAT__VALUE_DOUBLE_VALUE;
            }
            skip(&p, e, wt);
            break;
        default: skip(&p, e, wt); break;
        }
    }
    if (!stat_is_hlo(m, st.metadata_id))
        return keep;
    if (st.value_case != TLM_XP__XSTAT__VALUE_STR_VALUE)
        return stat_value(x, m, &st, oom);
    if (sn == 0)
        return 0;
    uint32_t id = tlm_intern_add(&x->strs, (const char *)sp, sn);
    *oom |= id == UINT32_MAX;
    return id == UINT32_MAX ? 0 : id;
}

static void decode_event(tlm_xplane *x, const pmaps *m,
                         const ProtobufCBinaryData *b, xev *ev, int *oom)
{
    const unsigned char *p = b->data, *e = b->data + b->len;
    memset(ev, 0, sizeof *ev);
    const unsigned char *stats[64];
    size_t slen[64], ns = 0;
    while (p < e) {
        uint64_t key = rd_varint(&p, e);
        unsigned wt = (unsigned)(key & 7);
        switch (key >> 3) {
        case 1: ev->mid = (int64_t)rd_varint(&p, e); break;
        case 2: ev->off = (int64_t)rd_varint(&p, e); break;
        case 5: rd_varint(&p, e); ev->off = 0; break; /* num_occurrences */
        case 3: ev->dur = (int64_t)rd_varint(&p, e); break;
        case 4: {
            size_t n = (size_t)rd_varint(&p, e);
            n = n <= (size_t)(e - p) ? n : (size_t)(e - p);
            if (ns < 64) {
                stats[ns] = p;
                slen[ns++] = n;
            } else { /* many stats: the hlo_op is looked at at once */
                ev->hlo = stat_hlo(x, m, p, p + n, ev->hlo, oom);
            }
            p += n;
            break;
        }
        default: skip(&p, e, wt); break;
        }
    }
    long mi = ev->mi = emd_find(m, ev->mid);
    uint32_t hlo = mi >= 0 ? m->emd_hlo[mi] : 0;
    for (size_t i = 0; i < ns; i++) /* the event's stats after its
                                       metadata's, the later winning */
        hlo = stat_hlo(x, m, stats[i], stats[i] + slen[i], hlo, oom);
    ev->hlo = ns >= 64 && ev->hlo ? ev->hlo : hlo;
}

static tlm_status add_line(tlm_xplane *x, const pmaps *m,
                           const TlmXp__XLineLazy *l, int64_t off,
                           const char *file, tlm_error *err)
{
    if (tlm_grow((void **)&x->lines, &x->cap_lines, x->n_lines + 1,
                 sizeof *x->lines, 64) != TLM_OK ||
        tlm_grow((void **)&x->events, &x->cap_events,
                 x->n_events + l->n_events, sizeof *x->events, 1024) !=
            TLM_OK)
        return TLM_ENOMEM;
    const char *nm = l->display_name[0] ? l->display_name : l->name;
    uint32_t sid = tlm_intern_add(&x->strs, nm, strlen(nm));
    if (sid == UINT32_MAX)
        return TLM_ENOMEM;
    tlm_xp_line *ln = &x->lines[x->n_lines];
    ln->plane = (uint32_t)(x->n_planes - 1);
    ln->tid = (uint32_t)(l->display_id ? l->display_id : l->id);
    ln->name = tlm_xplane_str(x, sid);
    int64_t t0;
    if (__builtin_mul_overflow(l->timestamp_ns, (int64_t)1000, &t0))
        return tlm_error_set(err, TLM_EFORMAT, file, off,
                             "XPlane: XLine.timestamp_ns %" PRId64
                             " out of range (line '%.60s')",
                             l->timestamp_ns, nm);
    int oom = 0;
    for (size_t i = 0; i < l->n_events; i++) {
        xev ev;
        decode_event(x, m, &l->events[i], &ev, &oom);
        tlm_xp_event *o = &x->events[x->n_events + i];
        int64_t end;
        if (__builtin_add_overflow(t0, ev.off, &o->ts_ps) || ev.dur < 0 ||
            __builtin_add_overflow(o->ts_ps, ev.dur, &end))
            return tlm_error_set(err, TLM_EFORMAT, file, off,
                                 "XPlane: line '%.60s' event %zu: offset_ps "
                                 "%" PRId64 " / duration_ps %" PRId64
                                 " out of range", nm, i, ev.off, ev.dur);
        o->dur_ps = ev.dur;
        o->line = (uint32_t)x->n_lines;
        o->pad_ = 0;
        o->name = ev.mi >= 0 ? m->emd_name[ev.mi] : 0;
        o->hlo_op = ev.hlo;
    }
    if (oom)
        return TLM_ENOMEM;
    x->n_events += l->n_events;
    x->n_lines++;
    return TLM_OK;
}

/* "/device:GPU:<digits>" */
static int is_gpu_plane(const char *name)
{
    static const char pre[] = "/device:GPU:";
    if (strncmp(name, pre, sizeof pre - 1) != 0)
        return 0;
    const char *d = name + sizeof pre - 1;
    if (!*d)
        return 0;
    for (; *d; d++)
        if (*d < '0' || *d > '9')
            return 0;
    return 1;
}

tlm_status tlm_xplane_add_plane(tlm_xplane *x, const void *plane,
                                int64_t off, const char *file,
                                tlm_error *err)
{
    const TlmXp__XPlaneLazy *p = plane;
    if (tlm_grow((void **)&x->planes, &x->cap_planes, x->n_planes + 1,
                 sizeof *x->planes, 8) != TLM_OK)
        return tlm_error_set(err, TLM_ENOMEM, file, off, "out of memory");
    uint32_t sid = tlm_intern_add(&x->strs, p->name, strlen(p->name));
    if (sid == UINT32_MAX)
        return tlm_error_set(err, TLM_ENOMEM, file, off, "out of memory");
    tlm_xp_plane *pl = &x->planes[x->n_planes++];
    memset(pl, 0, sizeof *pl);
    pl->id = p->id;
    pl->name = tlm_xplane_str(x, sid);
    pl->gpu = is_gpu_plane(p->name);
    pl->pid = (uint32_t)(1 + (uint64_t)p->id);
    pl->n_lines = (uint32_t)p->n_lines;
    for (size_t i = 0; i < p->n_lines; i++)
        pl->n_events += p->lines[i]->n_events;
    x->stats.n_planes++;
    x->stats.n_events += pl->n_events;
    if (!pl->gpu)
        return TLM_OK;
    x->stats.n_gpu_planes++;
    if (pl->n_events && x->cap_events - x->n_events >= pl->n_events)
        tlm_prefault(x->events + x->n_events,
                     pl->n_events * sizeof *x->events);
    pmaps m;
    tlm_status st = maps_build(x, p, &m);
    for (size_t i = 0; st == TLM_OK && i < p->n_lines; i++)
        st = add_line(x, &m, p->lines[i], off, file, err);
    maps_free(&m);
    if (st == TLM_ENOMEM)
        tlm_error_set(err, TLM_ENOMEM, file, off, "out of memory");
    return st;
}
