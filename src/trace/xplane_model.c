/*
 * xplane_model.c - one unpacked XPlane (protobuf-c's TlmXp__XPlane) into
 * the flat model of tlm_xplane.h: the plane, and for a GPU plane its
 * lines and events with the names and the hlo_op stat the trace viewer
 * would show (display names first; event-metadata stats, then the
 * event's own, the later winning, as xprof's conversion does).
 */
#include "xplane_internal.h"

#include "xplane.pb-c.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

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
    const TlmXp__XPlane *p;
    kv *emd, *smd;
    size_t n_emd, n_smd;
    uint32_t *emd_name;   /* per event_metadata entry: interned name */
    uint32_t *emd_hlo;    /* per entry: interned hlo_op of its stats, 0 */
    uint8_t *smd_is_hlo;  /* per stat_metadata entry: named "hlo_op" */
} pmaps;

static void maps_free(pmaps *m)
{
    free(m->emd);
    free(m->smd);
    free(m->emd_name);
    free(m->emd_hlo);
    free(m->smd_is_hlo);
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

static tlm_status maps_build(tlm_xplane *x, const TlmXp__XPlane *p,
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
    return oom ? TLM_ENOMEM : TLM_OK;
}

static tlm_status add_line(tlm_xplane *x, const pmaps *m,
                           const TlmXp__XLine *l, int64_t off,
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
        const TlmXp__XEvent *ev = l->events[i];
        tlm_xp_event *o = &x->events[x->n_events + i];
        int64_t offp = ev->data_case == TLM_XP__XEVENT__DATA_OFFSET_PS
                           ? ev->offset_ps : 0;
        if (__builtin_add_overflow(t0, offp, &o->ts_ps) ||
            ev->duration_ps < 0 ||
            __builtin_add_overflow(o->ts_ps, ev->duration_ps,
                                   &(int64_t){0}))
            return tlm_error_set(err, TLM_EFORMAT, file, off,
                                 "XPlane: line '%.60s' event %zu: offset_ps "
                                 "%" PRId64 " / duration_ps %" PRId64
                                 " out of range", nm, i, offp,
                                 ev->duration_ps);
        o->dur_ps = ev->duration_ps;
        o->line = (uint32_t)x->n_lines;
        o->pad_ = 0;
        long mi = kv_find(m->emd, m->n_emd, ev->metadata_id);
        o->name = mi >= 0 ? m->emd_name[mi] : 0;
        o->hlo_op = hlo_of(x, m, ev->stats, ev->n_stats,
                           mi >= 0 ? m->emd_hlo[mi] : 0, &oom);
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
    const TlmXp__XPlane *p = plane;
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
    pmaps m;
    tlm_status st = maps_build(x, p, &m);
    for (size_t i = 0; st == TLM_OK && i < p->n_lines; i++)
        st = add_line(x, &m, p->lines[i], off, file, err);
    maps_free(&m);
    if (st == TLM_ENOMEM)
        tlm_error_set(err, TLM_ENOMEM, file, off, "out of memory");
    return st;
}
