/*
 * compare_runs_join.c - the joins of `tlmpi compare A.h5 B.h5` (pure, no
 * HDF5 calls).  Collectives are joined on (coll, group, dtype, bytes):
 * group is the process group's role, its pg_desc ("mesh_dp", "TP"), or
 * "size<N>" when the trace gives none, so that the data-parallel
 * all-reduce of a 64-rank job meets the one of a 128-rank job although
 * their groups differ in ranks and size; the process groups of one key
 * are summed (count-weighted means).  Ops are joined on their name,
 * stragglers on the trace rank.  Docs: docs/compare-runs.md.
 */
#include "compare_runs.h"
#include "search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* B - A, NaN when either is NaN. */
double tlm_cr_diff(double a, double b)
{
    return isnan(a) || isnan(b) ? NAN : b - a;
}

/* 100 (B - A) / A, NaN when either is NaN or A is 0. */
double tlm_cr_pct(double a, double b)
{
    return isnan(a) || isnan(b) || a == 0.0 ? NAN : 100.0 * (b - a) / a;
}

/* The four columns of a metric. */
#define SET4(row, m, va, vb)                                                \
    do {                                                                    \
        (row)->m##_a = (va);                                                \
        (row)->m##_b = (vb);                                                \
        (row)->m##_diff = tlm_cr_diff((va), (vb));                          \
        (row)->m##_pct = tlm_cr_pct((va), (vb));                            \
    } while (0)

/* ------------------------------------------------------------------ *
 * MARK: - collectives
 * ------------------------------------------------------------------ */

typedef struct agg {
    char coll[16], group[32], dtype[24];
    int64_t bytes;
    int32_t gsize, last_rank;
    uint64_t pg_hash;
    int64_t n_groups, count;
    double lat_sum, algbw_w, busbw_w, skew_w, wait_sum, members;
} agg;

/* Order of the collective key (coll, group, dtype, bytes). */
static int cmp_key(const agg *x, const agg *y)
{
    int c = strcmp(x->coll, y->coll);
    if (!c)
        c = strcmp(x->group, y->group);
    if (!c)
        c = strcmp(x->dtype, y->dtype);
    if (!c)
        c = x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
    return c;
}

/* qsort order of aggregates: the key, then the process group. */
static int cmp_agg_pg(const void *a, const void *b)
{
    const agg *x = a, *y = b;
    int c = cmp_key(x, y);
    return c ? c : (x->pg_hash < y->pg_hash ? -1 : x->pg_hash > y->pg_hash);
}

/* Sets an aggregate's key; group: pg_desc, else size<N>. */
static void set_key(agg *g, const char *coll, const char *desc,
                    int32_t gsize, const char *dtype, int64_t bytes)
{
    tlm_strnset(g->coll, sizeof g->coll, coll, 16);
    if (desc[0])
        tlm_strnset(g->group, sizeof g->group, desc, 32);
    else
        snprintf(g->group, sizeof g->group, "size%d", (int)gsize);
    tlm_strnset(g->dtype, sizeof g->dtype, dtype, 24);
    g->bytes = bytes;
}

/* The summary rows of a run merged by key (sorted by key), *n keys. */
static agg *aggregate(const tlm_cr_run *r, size_t *n)
{
    agg *g = calloc(r->n_sum ? r->n_sum : 1, sizeof *g);
    if (!g)
        return NULL;
    for (size_t i = 0; i < r->n_sum; i++) {
        const tlm_row_summary *s = &r->sum[i];
        double c = (double)s->count;
        set_key(&g[i], s->coll, s->pg_desc, s->group_size, s->dtype,
                s->bytes);
        g[i].gsize = s->group_size;
        g[i].pg_hash = s->pg_hash;
        g[i].n_groups = 1;
        g[i].count = s->count;
        g[i].lat_sum = (double)s->total_latency_ns;
        g[i].algbw_w = isnan(s->algbw_gbps_mean) ? 0 : s->algbw_gbps_mean * c;
        g[i].busbw_w = isnan(s->busbw_gbps_mean) ? 0 : s->busbw_gbps_mean * c;
        g[i].skew_w = isnan(s->start_skew_corr_ns_mean)
                          ? 0 : s->start_skew_corr_ns_mean * c;
        g[i].last_rank = -1;
    }
    qsort(g, r->n_sum, sizeof *g, cmp_agg_pg);
    size_t k = 0;
    for (size_t i = 0; i < r->n_sum; i++) {
        if (k && cmp_key(&g[k - 1], &g[i]) == 0) {
            agg *d = &g[k - 1];
            d->n_groups += g[i].pg_hash != d->pg_hash;
            d->pg_hash = g[i].pg_hash;
            d->count += g[i].count;
            d->lat_sum += g[i].lat_sum;
            d->algbw_w += g[i].algbw_w;
            d->busbw_w += g[i].busbw_w;
            d->skew_w += g[i].skew_w;
            if (g[i].gsize > d->gsize)
                d->gsize = g[i].gsize;
        } else {
            g[k++] = g[i];
        }
    }
    *n = k;
    return g;
}

typedef struct rank_vote {
    size_t key;
    int32_t rank;
} rank_vote;

/* qsort order of votes: the key, then the rank. */
static int cmp_vote(const void *a, const void *b)
{
    const rank_vote *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* tlm_lower_bound's order: > 0 when aggregate elem sorts before key. */
static int key_after(const void *key, const void *elem)
{
    return cmp_key(elem, key) < 0;
}

/* Waits and the rank most often last, from the complete instances. */
static int add_instances(const tlm_cr_run *r, agg *g, size_t ng)
{
    rank_vote *v = malloc((r->n_inst ? r->n_inst : 1) * sizeof *v);
    if (!v)
        return -1;
    size_t nv = 0;
    for (size_t i = 0; i < r->n_inst; i++) {
        const tlm_row_instance *in = &r->inst[i];
        if (in->incomplete)
            continue;
        agg key;
        set_key(&key, in->coll, in->pg_desc, in->group_size, in->dtype,
                in->bytes);
        size_t lo = tlm_lower_bound(g, ng, sizeof *g, &key, key_after);
        if (lo == ng || cmp_key(&g[lo], &key) != 0)
            continue;
        g[lo].wait_sum += (double)in->wait_sum_corr_ns;
        g[lo].members += in->n_members;
        if (in->last_rank_corr >= 0 && in->n_last_corr == 1)
            v[nv++] = (rank_vote){lo, in->last_rank_corr};
    }
    qsort(v, nv, sizeof *v, cmp_vote);
    for (size_t i = 0, best = 0; i < nv;) {
        size_t j = i;
        while (j < nv && v[j].key == v[i].key && v[j].rank == v[i].rank)
            j++;
        if (i == 0 || v[i].key != v[i - 1].key)
            best = 0;
        if (j - i > best) {
            best = j - i;
            g[v[i].key].last_rank = v[i].rank;
        }
        i = j;
    }
    free(v);
    return 0;
}

/* A mean over the aggregate's instances, NaN without any. */
static double g_mean(const agg *g, double w)
{
    return g && g->count > 0 ? w / (double)g->count : NAN;
}

/* One output row from a's and b's aggregates (either may be NULL). */
static void coll_row(tlm_cr_coll *o, const agg *a, const agg *b, double sa,
                     double sb)
{
    const agg *k = a ? a : b;
    memset(o, 0, sizeof *o);
    memcpy(o->coll, k->coll, sizeof o->coll);
    memcpy(o->group, k->group, sizeof o->group);
    memcpy(o->dtype, k->dtype, sizeof o->dtype);
    o->bytes = k->bytes;
    snprintf(o->status, sizeof o->status, "%s",
             a && b ? "both" : a ? "only_a" : "only_b");
    o->group_size_a = a ? a->gsize : -1;
    o->group_size_b = b ? b->gsize : -1;
    o->n_groups_a = a ? a->n_groups : 0;
    o->n_groups_b = b ? b->n_groups : 0;
    double ca = a ? (double)a->count : NAN, cb = b ? (double)b->count : NAN;
    double pa = a ? ca / (double)a->n_groups / sa : NAN;
    double pb = b ? cb / (double)b->n_groups / sb : NAN;
    SET4(o, count, ca, cb);
    SET4(o, calls, pa, pb);
    SET4(o, latency_ns, g_mean(a, a ? a->lat_sum : 0),
         g_mean(b, b ? b->lat_sum : 0));
    SET4(o, total_latency_ns, a ? a->lat_sum : NAN, b ? b->lat_sum : NAN);
    SET4(o, algbw_gbps, g_mean(a, a ? a->algbw_w : 0),
         g_mean(b, b ? b->algbw_w : 0));
    SET4(o, busbw_gbps, g_mean(a, a ? a->busbw_w : 0),
         g_mean(b, b ? b->busbw_w : 0));
    SET4(o, skew_ns, g_mean(a, a ? a->skew_w : 0),
         g_mean(b, b ? b->skew_w : 0));
    double wa = a && a->members > 0 ? a->wait_sum / a->members : NAN;
    double wb = b && b->members > 0 ? b->wait_sum / b->members : NAN;
    SET4(o, wait_ns, wa, wb);
    o->last_rank_a = a ? a->last_rank : -1;
    o->last_rank_b = b ? b->last_rank : -1;
    double ta = a ? (o->latency_ns_a + (isnan(wa) ? 0 : wa)) * pa : 0;
    double tb = b ? (o->latency_ns_b + (isnan(wb) ? 0 : wb)) * pb : 0;
    o->impact_ns = (isnan(tb) ? 0 : tb) - (isnan(ta) ? 0 : ta);
}

/* Collective rows by |impact| descending, then the key. */
static int cmp_impact_coll(const void *x, const void *y)
{
    const tlm_cr_coll *a = x, *b = y;
    double ia = fabs(a->impact_ns), ib = fabs(b->impact_ns);
    if (ia != ib)
        return ia > ib ? -1 : 1;
    int c = strcmp(a->coll, b->coll);
    if (!c)
        c = strcmp(a->group, b->group);
    if (!c)
        c = strcmp(a->dtype, b->dtype);
    return c ? c : (a->bytes < b->bytes ? -1 : a->bytes > b->bytes);
}

/* /collectives: both runs' summary rows joined by key. */
tlm_status tlm_cr_join_colls(const tlm_cr_run *a, const tlm_cr_run *b,
                             double sa, double sb, tlm_cr_result *res)
{
    size_t na = 0, nb = 0;
    agg *ga = aggregate(a, &na), *gb = aggregate(b, &nb);
    tlm_cr_coll *o = malloc((na + nb ? na + nb : 1) * sizeof *o);
    tlm_status st = TLM_OK;
    if (!ga || !gb || !o || add_instances(a, ga, na) != 0 ||
        add_instances(b, gb, nb) != 0) {
        st = TLM_ENOMEM;
        goto done;
    }
    size_t i = 0, j = 0, k = 0;
    while (i < na || j < nb) {
        int c = i == na ? 1 : j == nb ? -1 : cmp_key(&ga[i], &gb[j]);
        coll_row(&o[k++], c <= 0 ? &ga[i] : NULL, c >= 0 ? &gb[j] : NULL, sa,
                 sb);
        i += c <= 0;
        j += c >= 0;
    }
    qsort(o, k, sizeof *o, cmp_impact_coll);
    res->colls = o;
    res->n_colls = k;
    o = NULL;
done:
    free(o);
    free(ga);
    free(gb);
    return st;
}

/* ------------------------------------------------------------------ *
 * MARK: - ops
 * ------------------------------------------------------------------ */

static int cmp_op_name(const void *x, const void *y)
{
    const tlm_row_op_merged *a = *(const tlm_row_op_merged *const *)x;
    const tlm_row_op_merged *b = *(const tlm_row_op_merged *const *)y;
    return strncmp(a->name, b->name, sizeof a->name);
}

/* A run's /ops/merged rows by name (malloc'd pointers). */
static const tlm_row_op_merged **by_name(const tlm_cr_run *r)
{
    const tlm_row_op_merged **p = malloc((r->n_ops ? r->n_ops : 1) *
                                         sizeof *p);
    if (!p)
        return NULL;
    for (size_t i = 0; i < r->n_ops; i++)
        p[i] = &r->ops[i];
    qsort(p, r->n_ops, sizeof *p, cmp_op_name);
    return p;
}

/* A value per rank (per step: s), NaN when the op is absent. */
static double per_rank(const tlm_row_op_merged *m, double v, double s)
{
    return m ? v / s : NAN;
}

/* One op's row from its rows in A and B (either may be NULL). */
static void op_row(tlm_cr_op *o, const tlm_row_op_merged *a,
                   const tlm_row_op_merged *b, double sa, double sb)
{
    const tlm_row_op_merged *k = a ? a : b;
    memset(o, 0, sizeof *o);
    tlm_strnset(o->name, sizeof o->name, k->name, sizeof k->name);
    tlm_strnset(o->categories, sizeof o->categories, k->categories,
                    sizeof k->categories);
    snprintf(o->status, sizeof o->status, "%s",
             a && b ? "both" : a ? "only_a" : "only_b");
    o->n_ranks_a = a ? a->n_ranks : 0;
    o->n_ranks_b = b ? b->n_ranks : 0;
    double ca = a && a->n_ranks > 0 ? (double)a->count / a->n_ranks : 0;
    double cb = b && b->n_ranks > 0 ? (double)b->count / b->n_ranks : 0;
    SET4(o, count, per_rank(a, ca, sa), per_rank(b, cb, sb));
    SET4(o, mean_rank_ns, per_rank(a, a ? a->mean_rank_ns : 0, sa),
         per_rank(b, b ? b->mean_rank_ns : 0, sb));
    SET4(o, max_rank_ns, per_rank(a, a ? a->max_rank_ns : 0, sa),
         per_rank(b, b ? b->max_rank_ns : 0, sb));
    o->max_rank_a = a ? a->max_rank : -1;
    o->max_rank_b = b ? b->max_rank : -1;
    o->impact_ns = (b ? o->mean_rank_ns_b : 0) - (a ? o->mean_rank_ns_a : 0);
}

/* Op rows by |impact| descending, then the name. */
static int cmp_impact_op(const void *x, const void *y)
{
    const tlm_cr_op *a = x, *b = y;
    double ia = fabs(a->impact_ns), ib = fabs(b->impact_ns);
    if (ia != ib)
        return ia > ib ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* /ops: both runs' ops joined by name. */
tlm_status tlm_cr_join_ops(const tlm_cr_run *a, const tlm_cr_run *b,
                           double sa, double sb, tlm_cr_result *res)
{
    const tlm_row_op_merged **pa = by_name(a), **pb = by_name(b);
    size_t na = a->n_ops, nb = b->n_ops, i = 0, j = 0, k = 0;
    tlm_cr_op *o = malloc((na + nb ? na + nb : 1) * sizeof *o);
    tlm_status st = pa && pb && o ? TLM_OK : TLM_ENOMEM;
    while (st == TLM_OK && (i < na || j < nb)) {
        int c = i == na ? 1 : j == nb ? -1 : cmp_op_name(&pa[i], &pb[j]);
        op_row(&o[k++], c <= 0 ? pa[i] : NULL, c >= 0 ? pb[j] : NULL, sa, sb);
        i += c <= 0;
        j += c >= 0;
    }
    if (st == TLM_OK) {
        qsort(o, k, sizeof *o, cmp_impact_op);
        res->ops = o;
        res->n_ops = k;
    } else {
        free(o);
    }
    free(pa);
    free(pb);
    return st;
}

/* ------------------------------------------------------------------ *
 * MARK: - stragglers
 * ------------------------------------------------------------------ */

static int cmp_strag_rank(const void *x, const void *y)
{
    const tlm_row_straggler *a = *(const tlm_row_straggler *const *)x;
    const tlm_row_straggler *b = *(const tlm_row_straggler *const *)y;
    return (a->trace_rank > b->trace_rank) - (a->trace_rank < b->trace_rank);
}

/* A run's overall straggler rows by rank (malloc'd pointers). */
static const tlm_row_straggler **overall(const tlm_cr_run *r, size_t *n)
{
    const tlm_row_straggler **p = malloc((r->n_strag ? r->n_strag : 1) *
                                         sizeof *p);
    *n = 0;
    if (!p)
        return NULL;
    for (size_t i = 0; i < r->n_strag; i++)
        if (r->strag[i].overall)
            p[(*n)++] = &r->strag[i];
    qsort(p, *n, sizeof *p, cmp_strag_rank);
    return p;
}

/* One rank's row from its rows in A and B (either may be NULL). */
static void strag_row(tlm_cr_strag *o, const tlm_row_straggler *a,
                      const tlm_row_straggler *b, const tlm_cr_run *ra,
                      const tlm_cr_run *rb)
{
    memset(o, 0, sizeof *o);
    o->trace_rank = a ? a->trace_rank : b->trace_rank;
    snprintf(o->status, sizeof o->status, "%s",
             a && b ? "both" : a ? "only_a" : "only_b");
    o->named_a = ra->straggler_rank >= 0 && ra->straggler_rank == o->trace_rank;
    o->named_b = rb->straggler_rank >= 0 && rb->straggler_rank == o->trace_rank;
#define V(s, f) ((s) ? (double)(s)->f : NAN)
    SET4(o, n_instances, V(a, n_instances), V(b, n_instances));
    SET4(o, times_last, V(a, times_last_corr), V(b, times_last_corr));
    SET4(o, wait_caused_ns, V(a, wait_caused_corr_ns),
         V(b, wait_caused_corr_ns));
#undef V
    double pa = a && a->n_instances > 0
                    ? (double)a->wait_caused_corr_ns / (double)a->n_instances
                    : NAN;
    double pb = b && b->n_instances > 0
                    ? (double)b->wait_caused_corr_ns / (double)b->n_instances
                    : NAN;
    SET4(o, wait_per_coll_ns, pa, pb);
}

/* /stragglers: both runs' overall rows joined by rank. */
tlm_status tlm_cr_join_strag(const tlm_cr_run *a, const tlm_cr_run *b,
                             tlm_cr_result *res)
{
    size_t na = 0, nb = 0, i = 0, j = 0, k = 0;
    const tlm_row_straggler **pa = overall(a, &na), **pb = overall(b, &nb);
    tlm_cr_strag *o = malloc((na + nb ? na + nb : 1) * sizeof *o);
    tlm_status st = pa && pb && o ? TLM_OK : TLM_ENOMEM;
    while (st == TLM_OK && (i < na || j < nb)) {
        int c = i == na ? 1 : j == nb ? -1 : cmp_strag_rank(&pa[i], &pb[j]);
        strag_row(&o[k++], c <= 0 ? pa[i] : NULL, c >= 0 ? pb[j] : NULL, a,
                  b);
        i += c <= 0;
        j += c >= 0;
    }
    if (st == TLM_OK) {
        res->strag = o;
        res->n_strag = k;
    } else {
        free(o);
    }
    free(pa);
    free(pb);
    return st;
}
