/*
 * coll_tl.c - TraceLens parity mode for the multi-rank collective report.
 *
 * Reproduces AMD-AGI/TraceLens NcclAnalyser (171dd747) as specified in
 * [collectives] §2 and 3.2-3.4, including its weaknesses,
 * so the CSVs can be compared number for number:
 *
 *   - it sees only the kernel's own args (records flagged KMETA / KPG);
 *     kernels without "Process Group Name" share the label "Unknown_Group";
 *   - collective_id = "<pg>_<k>", k = 0-based order of GPU start within
 *     (pg, rank), ties by file order; in simplified mode (no kernel has a PG
 *     name and no rank has more than one NCCL stream) pg = "all" and the id
 *     is "<k>";
 *   - the first row (lowest rank) decides the name and the metadata;
 *   - TraceLens's dtype table (MiB = bytes / 1024^2), GiB/s bandwidth
 *     (MiB / 1024 per second), microseconds;
 *   - tie rules: earliest arrival = argmax wait with ties to the highest
 *     rank, arrived last = argmin wait with ties to the lowest rank.
 *
 * The one deliberate difference: a metadata mismatch inside an id is
 * counted in meta_mismatch instead of aborting the report.
 */
#include "coll_internal.h"
#include "search.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MARK: - TraceLens view of a record */

typedef enum tl_type {
    TL_NONE = 0,
    TL_ALLREDUCE,
    TL_REDUCESCATTER,
    TL_ALLGATHER,
    TL_ALLTOALL,
    TL_ALLTOALLV
} tl_type;

/* collective_type2name of TraceLens (exact strings).  Its own table, not
 * dtype.c's c10d names: parity needs TraceLens's shorter list. */
static tl_type tl_type_of(const char *name)
{
    static const struct {
        const char *n;
        tl_type t;
    } tab[] = {
        {"allreduce", TL_ALLREDUCE},
        {"allreduce_coalesced", TL_ALLREDUCE},
        {"reducescatter", TL_REDUCESCATTER},
        {"_reduce_scatter_base", TL_REDUCESCATTER},
        {"reduce_scatter_tensor_coalesced", TL_REDUCESCATTER},
        {"allgather", TL_ALLGATHER},
        {"all_gather", TL_ALLGATHER},
        {"_allgather_base", TL_ALLGATHER},
        {"all_gather_into_tensor_coalesced", TL_ALLGATHER},
        {"allgather_into_tensor_coalesced", TL_ALLGATHER},
        {"all_to_all", TL_ALLTOALL},
        {"all_to_allv", TL_ALLTOALLV},
    };
    if (!name || !name[0])
        return TL_NONE;
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (strcmp(tab[i].n, name) == 0)
            return tab[i].t;
    return TL_NONE;
}

static double tl_factor(tl_type t, int64_t n)
{
    if (n <= 0)
        return NAN;
    double dn = (double)n;
    switch (t) {
    case TL_ALLREDUCE:
        return 2.0 * (dn - 1.0) / dn;
    case TL_REDUCESCATTER:
    case TL_ALLGATHER:
    case TL_ALLTOALL:
        return (dn - 1.0) / dn;
    default:
        return NAN;
    }
}

typedef struct tl_view {
    const tlm_coll_record *r;
    size_t idx;          /* index in the caller's array */
    const char *pg;      /* label */
    const char *cname;   /* "" = None */
    const char *dtype;   /* "" = None */
    const char *ranks;   /* "" = None */
    int64_t in, out, gsize;
    double in_mib, out_mib;
    int64_t k;           /* index_in_group */
} tl_view;

static void tl_view_of(const tlm_coll_record *r, size_t idx, int simplified,
                       tl_view *v)
{
    memset(v, 0, sizeof *v);
    v->r = r;
    v->idx = idx;
    int km = (r->flags & TLM_COLL_REC_KMETA) != 0;
    int kp = (r->flags & TLM_COLL_REC_KPG) != 0;
    v->pg = simplified ? "all" : (kp ? r->pg_name : "Unknown_Group");
    v->cname = km ? r->coll_name : "";
    if (!v->cname[0] && (r->flags & TLM_COLL_REC_CUSTOM))
        v->cname = "allreduce";
    v->dtype = km ? r->dtype_name : "";
    v->ranks = kp ? r->pg_ranks_text : "";
    v->in = km ? r->in_nelems : -1;
    v->out = km ? r->out_nelems : -1;
    v->gsize = km ? r->group_size : -1;
    int bpe = tlm_dtype_tl_size(tlm_dtype_from_name(v->dtype,
                                                    strlen(v->dtype)));
    /* TraceLens: dtype2bytes.get(dtype) on the exact string */
    if (bpe && strcmp(tlm_dtype_name(tlm_dtype_from_name(
                          v->dtype, strlen(v->dtype))), v->dtype) != 0)
        bpe = 0;
    v->in_mib = (bpe && v->in >= 0) ? (double)v->in * bpe / 1048576.0 : NAN;
    v->out_mib = (bpe && v->in >= 0 && v->out >= 0)
                     ? (double)v->out * bpe / 1048576.0
                     : NAN;
}

/* Order within (pg label, rank): ts, then file order.  (This file's
 * comparators look alike but each orders its own type's fields: qsort
 * takes a plain function per order.) */
static int cmp_view_group(const void *a, const void *b)
{
    const tl_view *x = a, *y = b;
    int c = strcmp(x->pg, y->pg);
    if (!c)
        c = tlm_coll_cmp_i64(x->r->trace_rank, y->r->trace_rank);
    if (!c)
        c = tlm_coll_cmp_i64(x->r->ts_ns, y->r->ts_ns);
    if (!c)
        c = tlm_coll_cmp_u64(x->r->event_index, y->r->event_index);
    return c;
}

/* Order by id: (pg label, k, rank). */
static int cmp_view_id(const void *a, const void *b)
{
    const tl_view *x = a, *y = b;
    int c = strcmp(x->pg, y->pg);
    if (!c)
        c = tlm_coll_cmp_i64(x->k, y->k);
    if (!c)
        c = tlm_coll_cmp_i64(x->r->trace_rank, y->r->trace_rank);
    return c;
}

static void make_id(char *dst, const char *pg, int64_t k, int simplified)
{
    if (simplified)
        snprintf(dst, TLM_COLL_TL_ID_LEN, "%lld", (long long)k);
    else
        snprintf(dst, TLM_COLL_TL_ID_LEN, "%s_%lld", pg, (long long)k);
}

/* MARK: - votes and per-rank durations */

void tlm_coll_tl_vote_records(const tlm_coll_record *recs, size_t n,
                              tlm_coll_tl_vote *v)
{
    if (!v || !recs)
        return;
    /* streams are compared within each run of records of one rank */
    int have = 0;
    int64_t s0 = 0;
    int32_t rank = 0;
    for (size_t i = 0; i < n; i++) {
        const tlm_coll_record *r = &recs[i];
        if (!(r->flags & TLM_COLL_REC_TL_KEPT))
            continue;
        if (r->flags & TLM_COLL_REC_KPG)
            v->any_pg = 1;
        if (r->stream < 0)
            continue;
        if (!have || r->trace_rank != rank) {
            have = 1;
            rank = r->trace_rank;
            s0 = r->stream;
        } else if (r->stream != s0) {
            v->multi_stream = 1;
        }
    }
}

int tlm_coll_tl_simplified(const tlm_coll_tl_vote *v)
{
    return v && !v->any_pg && !v->multi_stream;
}

/* Index of rank r in the ascending ranks rk[0..n), or -1. */
static ptrdiff_t rank_index(const int32_t *rk, size_t n, int32_t r)
{
    size_t lo = tlm_lower_bound_i32_at(rk, n, sizeof *rk, 0, r);
    return lo < n && rk[lo] == r ? (ptrdiff_t)lo : -1;
}

void tlm_coll_tl_rank_dur(const tlm_coll_record *recs, size_t n,
                          double *dur_us, size_t n_ranks)
{
    tlm_coll_tl_rank_dur_by(recs, n, NULL, dur_us, n_ranks);
}

void tlm_coll_tl_rank_dur_by(const tlm_coll_record *recs, size_t n,
                             const int32_t *ranks, double *dur_us,
                             size_t n_ranks)
{
    if (!recs || !dur_us)
        return;
    for (size_t i = 0; i < n; i++) {
        const tlm_coll_record *r = &recs[i];
        if (!(r->flags & TLM_COLL_REC_TL_KEPT) || r->trace_rank < 0)
            continue;
        ptrdiff_t k = ranks ? rank_index(ranks, n_ranks, r->trace_rank)
                            : ((size_t)r->trace_rank < n_ranks
                                   ? (ptrdiff_t)r->trace_rank
                                   : -1);
        if (k >= 0)
            dur_us[k] += (double)r->dur_ns / 1000.0;
    }
}

/* MARK: - matching and the implicit-sync table */

void tlm_coll_tl_result_free(tlm_coll_tl_result *res)
{
    if (!res)
        return;
    tlm_coll_mfree(res->alloc, res->lng);
    tlm_coll_mfree(res->alloc, res->sync);
    tlm_coll_mfree(res->alloc, res->smem);
    memset(res, 0, sizeof *res);
}

/* One qsort comparator per table below: each row type has its own key,
 * and qsort needs a plain function per type. */

static int cmp_long(const void *a, const void *b)
{
    const tlm_coll_tl_long_row *x = a, *y = b;
    int c = tlm_coll_cmp_i64(x->rank, y->rank);
    return c ? c : tlm_coll_cmp_u64(x->event_index, y->event_index);
}

static int cmp_sync(const void *a, const void *b)
{
    const tlm_coll_tl_sync_row *x = a, *y = b;
    int c = tlm_coll_cmp_u64(x->pg_hash, y->pg_hash);
    if (!c)
        c = strcmp(x->pg_name, y->pg_name);
    if (!c)
        c = tlm_coll_cmp_i64(x->index_in_group, y->index_in_group);
    return c;
}

static int cmp_smem(const void *a, const void *b)
{
    const tlm_coll_tl_sync_member *x = a, *y = b;
    int c = tlm_coll_cmp_u64(x->pg_hash, y->pg_hash);
    if (!c)
        c = strcmp(x->collective_id, y->collective_id);
    if (!c)
        c = tlm_coll_cmp_i64(x->index_in_group, y->index_in_group);
    if (!c)
        c = tlm_coll_cmp_i64(x->rank, y->rank);
    return c;
}

void tlm_coll_tl_sync_sort(tlm_coll_tl_sync_row *rows, size_t n)
{
    if (rows && n > 1)
        qsort(rows, n, sizeof *rows, cmp_sync);
}

void tlm_coll_tl_smem_sort(tlm_coll_tl_sync_member *m, size_t n)
{
    if (m && n > 1)
        qsort(m, n, sizeof *m, cmp_smem);
}

static int same_d(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

/* The long table: one row per kept collective, by rank and event. */
static void long_rows(const tl_view *v, size_t nv, int simplified,
                      tlm_coll_tl_long_row *lng)
{
    for (size_t i = 0; i < nv; i++) {
        tlm_coll_tl_long_row *L = &lng[i];
        memset(L, 0, sizeof *L);
        make_id(L->collective_id, v[i].pg, v[i].k, simplified);
        tlm_coll_strlcpy(L->pg_name, sizeof L->pg_name, v[i].pg,
                         strlen(v[i].pg));
        L->index_in_group = v[i].k;
        L->event_index = v[i].r->event_index;
        L->rank = v[i].r->trace_rank;
        L->record = (int32_t)v[i].idx;
        L->in_mib = v[i].in_mib;
        L->out_mib = v[i].out_mib;
        L->ts_us = (double)v[i].r->ts_ns / 1000.0;
        L->dur_us = (double)v[i].r->dur_ns / 1000.0;
    }
    qsort(lng, nv, sizeof *lng, cmp_long);
}

/* One row of the implicit-sync table from the views v[i..j) of one
 * collective (type t, in rank order), and its j - i members into sm:
 * metadata mismatches, skews, waits, latency and bandwidths. */
static void sync_row(const tl_view *v, size_t i, size_t j, tl_type t,
                     int simplified, tlm_coll_tl_sync_row *s,
                     tlm_coll_tl_sync_member *sm)
{
    const tl_view *f = &v[i];
    memset(s, 0, sizeof *s);
    make_id(s->collective_id, f->pg, f->k, simplified);
    tlm_coll_strlcpy(s->pg_name, sizeof s->pg_name, f->pg,
                     strlen(f->pg));
    s->pg_hash = tlm_hash64(f->pg, strlen(f->pg));
    tlm_coll_strlcpy(s->pg_ranks, sizeof s->pg_ranks, f->ranks,
                     strlen(f->ranks));
    tlm_coll_strlcpy(s->coll_name, sizeof s->coll_name, f->cname,
                     strlen(f->cname));
    tlm_coll_strlcpy(s->dtype, sizeof s->dtype, f->dtype,
                     strlen(f->dtype));
    s->group_size = f->gsize;
    s->in_nelems = f->in;
    s->out_nelems = f->out;
    s->in_mib = f->in_mib;
    s->out_mib = f->out_mib;
    s->full_mib = t == TL_ALLGATHER ? f->out_mib : f->in_mib;
    s->index_in_group = f->k;
    s->n_ranks = (int32_t)(j - i);
    s->first_rank = f->r->trace_rank; /* v[i..j) is in rank order */
    s->first_event = f->r->event_index;
    s->mem_off = -1;
    if (simplified) {
        /* the metadata check is skipped in simplified mode */
    } else {
        for (size_t q = i + 1; q < j; q++) {
            const tl_view *x = &v[q];
            s->meta_mismatch +=
                strcmp(x->ranks, f->ranks) != 0 ||
                strcmp(x->cname, f->cname) != 0 ||
                x->gsize != f->gsize || strcmp(x->dtype, f->dtype) != 0 ||
                x->in != f->in || x->out != f->out ||
                !same_d(x->in_mib, f->in_mib) ||
                !same_d(x->out_mib, f->out_mib);
        }
    }
    int64_t L = INT64_MIN, Ee = INT64_MAX, Le = INT64_MIN,
            lat = INT64_MAX;
    for (size_t q = i; q < j; q++) {
        int64_t st = v[q].r->ts_ns;
        int64_t en = tlm_coll_sat_add(st, v[q].r->dur_ns);
        if (st > L)
            L = st;
        if (en < Ee)
            Ee = en;
        if (en > Le)
            Le = en;
        if (v[q].r->dur_ns < lat)
            lat = v[q].r->dur_ns;
    }
    int64_t wmax = INT64_MIN, wmin = INT64_MAX;
    double wsum = 0;
    int32_t first = -1, last = -1;
    for (size_t q = i; q < j; q++) {
        int64_t w = tlm_coll_sat_sub(L, v[q].r->ts_ns);
        int32_t rk = v[q].r->trace_rank;
        /* rows are in rank order: >= keeps the highest rank on ties,
         * < keeps the lowest */
        if (w >= wmax) {
            wmax = w;
            first = rk;
        }
        if (w < wmin) {
            wmin = w;
            last = rk;
        }
        wsum += (double)w / 1000.0;
        tlm_coll_tl_sync_member *m = &sm[q - i];
        memset(m, 0, sizeof *m);
        memcpy(m->collective_id, s->collective_id,
               sizeof m->collective_id);
        m->pg_hash = s->pg_hash;
        m->index_in_group = f->k;
        m->rank = rk;
        m->ts_us = (double)v[q].r->ts_ns / 1000.0;
        m->dur_us = (double)v[q].r->dur_ns / 1000.0;
        m->wait_us = (double)w / 1000.0;
    }
    s->comm_latency_us = (double)lat / 1000.0;
    s->skew_start_us = (double)wmax / 1000.0;
    s->earliest_arrival_rank = first;
    s->last_arrival_rank = last;
    s->avg_wait_us = wsum / (double)(j - i);
    s->skew_end_us = (double)tlm_coll_sat_sub(Le, Ee) / 1000.0;
    s->algbw_gibps = NAN;
    s->busbw_gibps = NAN;
    if (t != TL_NONE && !isnan(s->in_mib) && !isnan(s->out_mib) &&
        s->comm_latency_us > 0) {
        s->algbw_gibps = (s->full_mib / 1024.0) /
                         (s->comm_latency_us / 1e6);
        s->busbw_gibps = s->algbw_gibps * tl_factor(t, s->group_size);
    }
}

tlm_status tlm_coll_tl_match(const tlm_coll_record *recs, size_t n,
                             int simplified, const tlm_alloc *a,
                             tlm_coll_tl_result *res, tlm_error *err)
{
    if (!res || (!recs && n))
        return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                             "tlm_coll_tl_match: NULL argument");
    memset(res, 0, sizeof *res);
    res->alloc = a;
    tl_view *v = tlm_coll_malloc(a, (n ? n : 1) * sizeof *v);
    tlm_coll_tl_long_row *lng = NULL;
    tlm_coll_tl_sync_row *sync = NULL;
    tlm_coll_tl_sync_member *sm = NULL;
    size_t nv = 0, nsync = 0, cap_sync = 0, nsm = 0, cap_sm = 0;
    if (!v)
        goto nomem;
    for (size_t i = 0; i < n; i++)
        if (recs[i].flags & TLM_COLL_REC_TL_KEPT)
            tl_view_of(&recs[i], i, simplified, &v[nv++]);
    qsort(v, nv, sizeof *v, cmp_view_group);
    for (size_t i = 0; i < nv; i++) {
        if (i > 0 && strcmp(v[i].pg, v[i - 1].pg) == 0 &&
            v[i].r->trace_rank == v[i - 1].r->trace_rank)
            v[i].k = v[i - 1].k + 1;
        else
            v[i].k = 0;
    }
    lng = tlm_coll_malloc(a, (nv ? nv : 1) * sizeof *lng);
    if (!lng)
        goto nomem;
    long_rows(v, nv, simplified, lng);
    /* wide table */
    qsort(v, nv, sizeof *v, cmp_view_id);
    for (size_t i = 0; i < nv;) {
        size_t j = i + 1;
        while (j < nv && strcmp(v[j].pg, v[i].pg) == 0 && v[j].k == v[i].k)
            j++;
        const tl_view *f = &v[i];
        tl_type t = tl_type_of(f->cname);
        int include = simplified ? t != TL_ALLTOALLV
                                 : (t == TL_ALLREDUCE ||
                                    t == TL_REDUCESCATTER ||
                                    t == TL_ALLGATHER || t == TL_ALLTOALL);
        if (!include) {
            i = j;
            continue;
        }
        if (!tlm_coll_grow(a, (void **)&sync, &cap_sync, nsync + 1,
                           sizeof *sync) ||
            !tlm_coll_grow(a, (void **)&sm, &cap_sm, nsm + (j - i),
                           sizeof *sm))
            goto nomem;
        sync_row(v, i, j, t, simplified, &sync[nsync++], &sm[nsm]);
        nsm += j - i;
        i = j;
    }
    tlm_coll_mfree(a, v);
    tlm_coll_tl_sync_sort(sync, nsync);
    tlm_coll_tl_smem_sort(sm, nsm);
    res->lng = lng;
    res->n_long = nv;
    res->sync = sync;
    res->n_sync = nsync;
    res->smem = sm;
    res->n_smem = nsm;
    return TLM_OK;
nomem:
    tlm_coll_mfree(a, v);
    tlm_coll_mfree(a, lng);
    tlm_coll_mfree(a, sync);
    tlm_coll_mfree(a, sm);
    return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                         "out of memory in the TraceLens parity mode");
}

/* MARK: - nccl_summary_implicit_sync */

static const char *or_unknown(const char *s)
{
    return (s && s[0]) ? s : "Unknown";
}

/* Group key order: name, dtype, In msg nelems (numbers before
 * "Unknown").  Like every comparator here, a plain function per row type
 * for qsort. */
static int cmp_sum_key(const tlm_coll_tl_sync_row *x,
                       const tlm_coll_tl_sync_row *y)
{
    int c = strcmp(or_unknown(x->coll_name), or_unknown(y->coll_name));
    if (!c)
        c = strcmp(or_unknown(x->dtype), or_unknown(y->dtype));
    if (!c) {
        int ux = x->in_nelems < 0, uy = y->in_nelems < 0;
        c = ux != uy ? (ux - uy) : tlm_coll_cmp_i64(x->in_nelems,
                                                     y->in_nelems);
    }
    return c;
}

static int cmp_sum_ptr(const void *a, const void *b)
{
    const tlm_coll_tl_sync_row *x = *(const tlm_coll_tl_sync_row *const *)a;
    const tlm_coll_tl_sync_row *y = *(const tlm_coll_tl_sync_row *const *)b;
    int c = cmp_sum_key(x, y);
    /* inside a group: the order given (tlm_coll_tl_order: TraceLens's) */
    if (!c)
        c = (x > y) - (x < y);
    return c;
}

/* Fills g from v[0..n) (NaN skipped; v is reordered and its first values
 * left sorted); returns the sum of the values used. */
static double agg_of(double *v, size_t n, tlm_coll_tl_agg *g)
{
    double s;
    size_t k = tlm_coll_sort_values(v, n, &s);
    if (k == 0) {
        g->mean = g->median = g->min = g->max = g->std = NAN;
        return s;
    }
    g->mean = s / (double)k;
    g->min = v[0];
    g->max = v[k - 1];
    g->median = tlm_coll_quantile_sorted(v, k, 0.5);
    if (k < 2) {
        g->std = NAN;
    } else {
        double ss = 0;
        for (size_t i = 0; i < k; i++)
            ss += (v[i] - g->mean) * (v[i] - g->mean);
        g->std = sqrt(ss / (double)(k - 1));
    }
    return s;
}

/* Stable insertion sort of n elements of size bytes by cmp; tmp holds one
 * element.  The tables sorted so are short (one row per group or rank). */
static void stable_sort(void *base, size_t n, size_t size,
                        int (*cmp)(const void *, const void *), void *tmp)
{
    char *b = base;
    for (size_t i = 1; i < n; i++) {
        memcpy(tmp, b + i * size, size);
        size_t k = i;
        while (k > 0 && cmp(b + (k - 1) * size, tmp) > 0)
            k--;
        memmove(b + (k + 1) * size, b + k * size, (i - k) * size);
        memcpy(b + k * size, tmp, size);
    }
}

static int cmp_tl_sum_row(const void *a, const void *b)
{
    const tlm_coll_tl_summary_row *x = a, *y = b;
    if (x->total_comm_latency_ms != y->total_comm_latency_ms)
        return x->total_comm_latency_ms > y->total_comm_latency_ms ? -1 : 1;
    return 0;
}

tlm_status tlm_coll_tl_summary(const tlm_coll_tl_sync_row *rows, size_t n,
                               const tlm_alloc *a,
                               tlm_coll_tl_summary_row **out, size_t *n_out,
                               tlm_error *err)
{
    tlm_status st = tlm_coll_outputs((void **)out, n_out, rows || !n,
                                     "tlm_coll_tl_summary", err);
    if (st != TLM_OK)
        return st;
    if (n == 0)
        return TLM_OK;
    const tlm_coll_tl_sync_row **p = tlm_coll_malloc(a, n * sizeof *p);
    double *v = tlm_coll_malloc(a, n * sizeof *v);
    tlm_coll_tl_summary_row *o = tlm_coll_calloc(a, n, sizeof *o);
    size_t no = 0;
    if (!p || !v || !o) {
        tlm_coll_mfree(a, p);
        tlm_coll_mfree(a, v);
        tlm_coll_mfree(a, o);
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                             "out of memory in the TraceLens summary");
    }
    for (size_t i = 0; i < n; i++)
        p[i] = &rows[i];
    qsort(p, n, sizeof *p, cmp_sum_ptr);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && cmp_sum_key(p[i], p[j]) == 0)
            j++;
        tlm_coll_tl_summary_row *r = &o[no++];
        const tlm_coll_tl_sync_row *f = p[i];
        snprintf(r->coll_name, sizeof r->coll_name, "%s",
                 or_unknown(f->coll_name));
        snprintf(r->dtype, sizeof r->dtype, "%s", or_unknown(f->dtype));
        if (f->in_nelems >= 0)
            snprintf(r->in_nelems, sizeof r->in_nelems, "%lld",
                     (long long)f->in_nelems);
        else
            snprintf(r->in_nelems, sizeof r->in_nelems, "Unknown");
        snprintf(r->pg_name, sizeof r->pg_name, "%s", f->pg_name);
        /* pandas first(): first non-null value of each column */
        r->group_size = -1;
        r->full_mib = NAN;
        for (size_t q = i; q < j; q++) {
            if (r->group_size < 0 && p[q]->group_size >= 0)
                r->group_size = p[q]->group_size;
            if (isnan(r->full_mib) && !isnan(p[q]->full_mib))
                r->full_mib = p[q]->full_mib;
        }
#define TLM_AGG_(field, member)                  \
    do {                                         \
        size_t k = 0;                            \
        for (size_t q = i; q < j; q++)           \
            v[k++] = p[q]->member;               \
        agg_of(v, k, &r->field);                 \
    } while (0)
        TLM_AGG_(comm_latency_us, comm_latency_us);
        TLM_AGG_(skew_start_us, skew_start_us);
        TLM_AGG_(skew_end_us, skew_end_us);
        TLM_AGG_(algbw_gibps, algbw_gibps);
        TLM_AGG_(busbw_gibps, busbw_gibps);
#undef TLM_AGG_
        r->count = (int64_t)(j - i);
        double tot = 0;
        for (size_t q = i; q < j; q++)
            tot += p[q]->comm_latency_us;
        r->total_comm_latency_ms = tot / 1000.0;
        i = j;
    }
    tlm_coll_tl_summary_row t;
    stable_sort(o, no, sizeof *o, cmp_tl_sum_row, &t);
    tlm_coll_mfree(a, p);
    tlm_coll_mfree(a, v);
    *out = o;
    *n_out = no;
    return TLM_OK;
}

/* MARK: - straggler_summary */

static double round1(double x)
{
    return nearbyint(x * 10.0) / 10.0;
}

/* By total wait ascending. */
static int cmp_total_wait(const void *a, const void *b)
{
    const tlm_coll_tl_straggler_row *x = a, *y = b;
    return (x->total_wait_time_us > y->total_wait_time_us) -
           (x->total_wait_time_us < y->total_wait_time_us);
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

/* The distinct ranks of the members, ascending, into *rk (new array). */
static size_t member_ranks(const tlm_coll_tl_sync_member *mem, size_t n_mem,
                           const tlm_alloc *a, int32_t **rk)
{
    *rk = tlm_coll_malloc(a, (n_mem ? n_mem : 1) * sizeof **rk);
    if (!*rk)
        return 0;
    for (size_t i = 0; i < n_mem; i++)
        (*rk)[i] = mem[i].rank;
    qsort(*rk, n_mem, sizeof **rk, cmp_i32);
    size_t nu = 0;
    for (size_t i = 0; i < n_mem; i++)
        if (nu == 0 || (*rk)[nu - 1] != (*rk)[i])
            (*rk)[nu++] = (*rk)[i];
    return nu;
}

/* rank_dur of rank r: by rank (dur_ranks NULL) or beside dur_ranks. */
static double rank_dur_of(const int32_t *dur_ranks, const double *rank_dur,
                          size_t n, int32_t r)
{
    ptrdiff_t k = dur_ranks ? rank_index(dur_ranks, n, r)
                            : (r >= 0 && (size_t)r < n ? r : -1);
    return rank_dur && k >= 0 ? round1(rank_dur[k]) : NAN;
}

tlm_status tlm_coll_tl_straggler(const tlm_coll_tl_sync_row *rows,
                                 size_t n_rows,
                                 const tlm_coll_tl_sync_member *mem,
                                 size_t n_mem, const double *rank_dur_us,
                                 size_t n_rank_dur, const tlm_alloc *a,
                                 tlm_coll_tl_straggler_row **out,
                                 size_t *n_out, tlm_error *err)
{
    return tlm_coll_tl_straggler_by(rows, n_rows, mem, n_mem, NULL,
                                    rank_dur_us, n_rank_dur, a, out, n_out,
                                    err);
}

/* Wait sums and counts per member rank (index in rk), in the canonical
 * member order.  Returns 0, or -1 out of memory. */
static int sum_waits(const tlm_coll_tl_sync_member *mem, size_t n_mem,
                     const int32_t *rk, size_t nr, const tlm_alloc *a,
                     double *sum, int64_t *cnt)
{
    tlm_coll_tl_sync_member *ms = tlm_coll_malloc(a, (n_mem ? n_mem : 1) *
                                                         sizeof *ms);
    if (!ms)
        return -1;
    if (n_mem)
        memcpy(ms, mem, n_mem * sizeof *ms);
    tlm_coll_tl_smem_sort(ms, n_mem);
    for (size_t i = 0; i < n_mem; i++) {
        ptrdiff_t k = rank_index(rk, nr, ms[i].rank);
        sum[k] += ms[i].wait_us;
        cnt[k]++;
    }
    tlm_coll_mfree(a, ms);
    return 0;
}

tlm_status tlm_coll_tl_straggler_by(const tlm_coll_tl_sync_row *rows,
                                    size_t n_rows,
                                    const tlm_coll_tl_sync_member *mem,
                                    size_t n_mem, const int32_t *dur_ranks,
                                    const double *rank_dur_us,
                                    size_t n_rank_dur, const tlm_alloc *a,
                                    tlm_coll_tl_straggler_row **out,
                                    size_t *n_out, tlm_error *err)
{
    tlm_status st = tlm_coll_outputs((void **)out, n_out,
                                     (rows || !n_rows) && (mem || !n_mem),
                                     "tlm_coll_tl_straggler", err);
    if (st != TLM_OK)
        return st;
    if (n_rows == 0)
        return TLM_OK;
    /* by the ranks present, not by the highest rank */
    int32_t *rk = NULL;
    size_t nr = member_ranks(mem, n_mem, a, &rk);
    tlm_coll_tl_straggler_row *o = tlm_coll_calloc(a, nr ? nr : 1,
                                                   sizeof *o);
    double *sum = tlm_coll_calloc(a, nr ? nr : 1, sizeof *sum);
    int64_t *cnt = tlm_coll_calloc(a, nr ? nr : 1, sizeof *cnt);
    if (!rk || !o || !sum || !cnt ||
        sum_waits(mem, n_mem, rk, nr, a, sum, cnt) != 0) {
        tlm_coll_mfree(a, rk);
        tlm_coll_mfree(a, o);
        tlm_coll_mfree(a, sum);
        tlm_coll_mfree(a, cnt);
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                             "out of memory in the TraceLens stragglers");
    }
    for (size_t r = 0; r < nr; r++)
        o[r].rank = rk[r];
    for (size_t i = 0; i < n_rows; i++) {
        ptrdiff_t kl = rank_index(rk, nr, rows[i].last_arrival_rank);
        ptrdiff_t ke = rank_index(rk, nr, rows[i].earliest_arrival_rank);
        if (kl >= 0)
            o[kl].times_arrived_last++;
        if (ke >= 0)
            o[ke].times_arrived_first++;
    }
    size_t no = 0;
    for (size_t r = 0; r < nr; r++) {
        if (cnt[r] == 0)
            continue;
        tlm_coll_tl_straggler_row x = o[r];
        x.total_wait_time_us = round1(sum[r]);
        x.mean_wait_time_us = round1(sum[r] / (double)cnt[r]);
        x.num_collectives = (int64_t)n_rows;
        x.pct_arrived_last = round1(100.0 * (double)x.times_arrived_last /
                                    (double)n_rows);
        x.total_nccl_dur_us =
            rank_dur_of(dur_ranks, rank_dur_us, n_rank_dur, rk[r]);
        o[no++] = x;
    }
    tlm_coll_tl_straggler_row t;
    stable_sort(o, no, sizeof *o, cmp_total_wait, &t);
    tlm_coll_mfree(a, rk);
    tlm_coll_mfree(a, sum);
    tlm_coll_mfree(a, cnt);
    *out = o;
    *n_out = no;
    return TLM_OK;
}

/* MARK: - nccl_summary_long */

/* The key of nccl_summary_long, read from a record or from the row made
 * from one (where pg_ranks_text is pg_ranks and dtype_name is dtype). */
typedef struct long_key {
    int64_t rank;
    const char *pg_name, *pg_ranks, *coll_name;
    int64_t group_size;
    const char *dtype;
    int64_t in_nelems, out_nelems;
    const char *in_split, *out_split;
    int64_t stream;
} long_key;

static int cmp_lkey(long_key x, long_key y)
{
    int c = tlm_coll_cmp_i64(x.rank, y.rank);
    if (!c)
        c = strcmp(x.pg_name, y.pg_name);
    if (!c)
        c = strcmp(x.pg_ranks, y.pg_ranks);
    if (!c)
        c = strcmp(x.coll_name, y.coll_name);
    if (!c)
        c = tlm_coll_cmp_i64(x.group_size, y.group_size);
    if (!c)
        c = strcmp(x.dtype, y.dtype);
    if (!c)
        c = tlm_coll_cmp_i64(x.in_nelems, y.in_nelems);
    if (!c)
        c = tlm_coll_cmp_i64(x.out_nelems, y.out_nelems);
    if (!c)
        c = strcmp(x.in_split, y.in_split);
    if (!c)
        c = strcmp(x.out_split, y.out_split);
    if (!c)
        c = tlm_coll_cmp_i64(x.stream, y.stream);
    return c;
}

/* One accessor per type (the same key under other field names). */
static long_key rec_lkey(const tlm_coll_record *r)
{
    return (long_key){r->trace_rank, r->pg_name,    r->pg_ranks_text,
                      r->coll_name,  r->group_size, r->dtype_name,
                      r->in_nelems,  r->out_nelems, r->in_split,
                      r->out_split,  r->stream};
}

static long_key row_lkey(const tlm_coll_tl_long_summary_row *r)
{
    return (long_key){r->rank,      r->pg_name,    r->pg_ranks,
                      r->coll_name, r->group_size, r->dtype,
                      r->in_nelems, r->out_nelems, r->in_split,
                      r->out_split, r->stream};
}

static int lkey_cmp(const tlm_coll_record *x, const tlm_coll_record *y)
{
    return cmp_lkey(rec_lkey(x), rec_lkey(y));
}

static int cmp_lkey_ptr(const void *a, const void *b)
{
    const tlm_coll_record *x = *(const tlm_coll_record *const *)a;
    const tlm_coll_record *y = *(const tlm_coll_record *const *)b;
    int c = lkey_cmp(x, y);
    if (!c)
        c = tlm_coll_cmp_u64(x->event_index, y->event_index);
    return c;
}

static int cmp_lrow(const void *a, const void *b)
{
    const tlm_coll_tl_long_summary_row *x = a, *y = b;
    if (x->dur_sum_us != y->dur_sum_us)
        return x->dur_sum_us > y->dur_sum_us ? -1 : 1;
    return cmp_lkey(row_lkey(x), row_lkey(y));
}

/* A kernel enters nccl_summary_long only when every key is known. */
static int lkeep(const tlm_coll_record *r)
{
    return (r->flags & TLM_COLL_REC_TL_KEPT) &&
           (r->flags & TLM_COLL_REC_KMETA) && (r->flags & TLM_COLL_REC_KPG) &&
           r->pg_ranks_text[0] && r->coll_name[0] && r->dtype_name[0] &&
           r->in_split[0] && r->out_split[0] && r->group_size >= 0 &&
           r->in_nelems >= 0 && r->out_nelems >= 0 && r->stream >= 0;
}

tlm_status tlm_coll_tl_long_summary(const tlm_coll_record *recs, size_t n,
                                    const tlm_alloc *a,
                                    tlm_coll_tl_long_summary_row **out,
                                    size_t *n_out, tlm_error *err)
{
    tlm_status st = tlm_coll_outputs((void **)out, n_out, recs || !n,
                                     "tlm_coll_tl_long_summary", err);
    if (st != TLM_OK)
        return st;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        m += lkeep(&recs[i]);
    if (m == 0)
        return TLM_OK;
    const tlm_coll_record **p = tlm_coll_malloc(a, m * sizeof *p);
    tlm_coll_tl_long_summary_row *o = tlm_coll_calloc(a, m, sizeof *o);
    double *v = tlm_coll_malloc(a, m * sizeof *v);
    if (!p || !o || !v) {
        tlm_coll_mfree(a, p);
        tlm_coll_mfree(a, o);
        tlm_coll_mfree(a, v);
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                             "out of memory in nccl_summary_long");
    }
    m = 0;
    for (size_t i = 0; i < n; i++)
        if (lkeep(&recs[i]))
            p[m++] = &recs[i];
    qsort(p, m, sizeof *p, cmp_lkey_ptr);
    size_t no = 0;
    for (size_t i = 0; i < m;) {
        size_t j = i + 1;
        while (j < m && lkey_cmp(p[i], p[j]) == 0)
            j++;
        const tlm_coll_record *f = p[i];
        tlm_coll_tl_long_summary_row *r = &o[no++];
        r->rank = f->trace_rank;
        memcpy(r->pg_name, f->pg_name, sizeof r->pg_name);
        memcpy(r->pg_ranks, f->pg_ranks_text, sizeof r->pg_ranks);
        memcpy(r->coll_name, f->coll_name, sizeof r->coll_name);
        memcpy(r->dtype, f->dtype_name, sizeof r->dtype);
        memcpy(r->in_split, f->in_split, sizeof r->in_split);
        memcpy(r->out_split, f->out_split, sizeof r->out_split);
        r->group_size = f->group_size;
        r->in_nelems = f->in_nelems;
        r->out_nelems = f->out_nelems;
        r->stream = f->stream;
        tl_view tv;
        tl_view_of(f, 0, 0, &tv);
        r->in_mib_first = tv.in_mib;
        r->out_mib_first = tv.out_mib;
        size_t k = 0;
        for (size_t q = i; q < j; q++)
            v[k++] = (double)p[q]->dur_ns / 1000.0;
        tlm_coll_tl_agg g;
        r->dur_sum_us = agg_of(v, k, &g);
        r->dur_mean_us = g.mean;
        r->dur_std_us = g.std;
        r->dur_min_us = g.min;
        r->dur_max_us = g.max;
        r->operation_count = (int64_t)(j - i);
        i = j;
    }
    qsort(o, no, sizeof *o, cmp_lrow);
    tlm_coll_mfree(a, p);
    tlm_coll_mfree(a, v);
    *out = o;
    *n_out = no;
    return TLM_OK;
}
