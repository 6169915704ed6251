/*
 * xplane_model.c - one XPlane into the flat model of tlm_xplane.h: the
 * plane (its header unpacked by protobuf-c, TlmXp__XPlaneHead), its
 * metadata maps resolved (names, display names first; the hlo_op of each
 * event metadata's stats), and for a GPU plane its lines and events
 * through xplane_line.c; the lines of other planes are counted, and their
 * events checked, by the wire pass.
 */
#include "xplane_internal.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "mem_internal.h"
#include "search.h"

/* A metadata map sorted by key (the last entry of a key wins, as a
 * protobuf map's does). */
typedef struct tlm_xp_kv {
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
    /* first index with key > k */
    size_t lo = tlm_upper_bound_i64_at(v, n, sizeof *v, offsetof(kv, key), k);
    if (lo == 0 || v[lo - 1].key != k)
        return -1;
    return (long)v[lo - 1].idx;
}

static void maps_free(tlm_xp_maps *m)
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
static void dense_build(tlm_xp_maps *m)
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

long tlm_xp_emd_find_slow(const tlm_xp_maps *m, int64_t k)
{
    return kv_find(m->emd, m->n_emd, k);
}

static const char *smd_name(const tlm_xp_maps *m, int64_t id)
{
    long i = kv_find(m->smd, m->n_smd, id);
    if (i < 0 || !m->p->stat_metadata[i]->value)
        return NULL;
    return m->p->stat_metadata[i]->value->name;
}

int tlm_xp_stat_is_hlo_slow(const tlm_xp_maps *m, int64_t id)
{
    long i = kv_find(m->smd, m->n_smd, id);
    return i >= 0 && m->smd_is_hlo[i];
}

uint32_t tlm_xp_stat_value(tlm_xplane *x, const tlm_xp_maps *m,
                           const TlmXp__XStat *s, int *oom)
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
static uint32_t hlo_of(tlm_xplane *x, const tlm_xp_maps *m, TlmXp__XStat **st,
                       size_t n, uint32_t keep, int *oom)
{
    for (size_t i = 0; i < n; i++)
        if (tlm_xp_stat_is_hlo(m, st[i]->metadata_id))
            keep = tlm_xp_stat_value(x, m, st[i], oom);
    return keep;
}

static tlm_status maps_build(tlm_xplane *x, const TlmXp__XPlaneHead *p,
                             tlm_xp_maps *m)
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

/* The next XPlane.lines entry of the (checked) plane bytes [*p, e) into
 * *l; 0 at the end. */
static int next_line(const unsigned char **p, const unsigned char *e,
                     tlm_xp_span *l)
{
    while (*p < e) {
        uint64_t key, len = 0;
        *p += tlm_xpw_varint(*p, e, &key); /* checked: cannot fail */
        unsigned wt = (unsigned)(key & 7);
        if (wt == 1 || wt == 5) {
            *p += wt == 1 ? 8 : 4;
            continue;
        }
        *p += tlm_xpw_varint(*p, e, &len);
        if (wt != 2)
            continue; /* a varint: read as the length */
        *p += len;
        if (key == 0x1a) {
            *l = (tlm_xp_span){*p - len, (size_t)len};
            return 1;
        }
    }
    return 0;
}

/* The lines of a plane that is not a GPU's: counted, their events
 * checked (the shallow wire pass left them). */
static tlm_status other_lines(tlm_xp_plane *pl, tlm_xp_span plane,
                              tlm_xpw_ctx *cx)
{
    const unsigned char *p = plane.p, *e = plane.p + plane.n;
    tlm_xp_span l;
    while (next_line(&p, e, &l)) {
        tlm_xpw_counts c = {0};
        tlm_status st = tlm_xpw_check(l.p, l.n, TLM_XPW_LINE,
                                      cx->base + (l.p - cx->b0), &c, 1,
                                      cx->file, cx->err);
        if (st != TLM_OK)
            return st;
        pl->n_lines++;
        pl->n_events += c.events;
    }
    return TLM_OK;
}

tlm_status tlm_xplane_add_plane(tlm_xplane *x, const TlmXp__XPlaneHead *p,
                                tlm_xp_span plane, tlm_xpw_ctx *cx,
                                int64_t off)
{
    const char *file = cx->file;
    tlm_error *err = cx->err;
    if (tlm_grow((void **)&x->planes, &x->cap_planes, x->n_planes + 1,
                 sizeof *x->planes, 8) != TLM_OK)
        return tlm_error_set(err, TLM_ENOMEM, file, off, "out of memory");
    uint32_t sid = tlm_intern_add(&x->strs, p->name, strlen(p->name));
    if (sid == UINT32_MAX)
        return tlm_error_set(err, TLM_ENOMEM, file, off, "out of memory");
    size_t ip = x->n_planes++;
    tlm_xp_plane *pl = &x->planes[ip];
    memset(pl, 0, sizeof *pl);
    pl->id = p->id;
    pl->name = tlm_xplane_str(x, sid);
    pl->gpu = is_gpu_plane(p->name);
    pl->pid = (uint32_t)(1 + (uint64_t)p->id);
    x->stats.n_planes++;
    tlm_status st = TLM_OK;
    if (!pl->gpu) {
        st = other_lines(pl, plane, cx);
        x->stats.n_events += pl->n_events;
        return st;
    }
    x->stats.n_gpu_planes++;
    tlm_xp_maps m;
    st = maps_build(x, p, &m);
    uint64_t n_ev = 0;
    uint32_t n_lines = 0;
    const unsigned char *lp = plane.p;
    tlm_xp_span l;
    while (st == TLM_OK && next_line(&lp, plane.p + plane.n, &l)) {
        uint64_t k = 0;
        st = tlm_xp_gpu_line(x, &m, cx, l, off, &k);
        n_ev += k;
        n_lines++;
    }
    maps_free(&m);
    x->planes[ip].n_lines = n_lines;
    x->planes[ip].n_events = n_ev;
    x->stats.n_events += n_ev;
    if (st == TLM_ENOMEM)
        tlm_error_set(err, TLM_ENOMEM, file, off, "out of memory");
    return st;
}
