/*
 * audit_scale.c - the audit's cross-run tables, once every run has its
 * row: scaling efficiency per job against its base run, the bandwidth of
 * each collective signature against the base run's, the ranks that
 * straggle in several runs, and the comparison with --baseline.  Pure, no
 * MPI.  Definitions: docs/metrics-audit.md.
 *
 * Runs are compared only within a series: the ok runs of one job whose
 * collective and op signatures (audit_rows.c) agree with the series'
 * first run.  Two runs of one folder that do different work are never
 * one scaling series, and their stragglers are never summed.
 */
#include "audit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sortutil.h"

/* Whether a run's analysis succeeded. */
static int is_ok(const tlm_arow_run *r)
{
    return strcmp(r->status, "ok") == 0;
}

/* Order of the ok runs for heading series: world size, then path (the
 * runs are sorted by path already). */
static int cmp_head(const void *ctx, size_t a, size_t b)
{
    const tlm_audit_acc *acc = ctx;
    const tlm_arow_run *x = &acc->runs[a], *y = &acc->runs[b];
    if (x->world_size != y->world_size)
        return x->world_size < y->world_size ? -1 : 1;
    return strcmp(x->run, y->run);
}

/* acc->series: each ok run joins the first series of its job whose first
 * run's signatures agree with its own, else heads a new one; runs are
 * taken by world size, then path, so a series' first run is its
 * smallest. */
static tlm_status make_series(tlm_audit_acc *acc)
{
    size_t n = acc->n_runs ? acc->n_runs : 1;
    acc->series = malloc(n * sizeof *acc->series);
    size_t *ord = malloc(n * sizeof *ord);
    if (!acc->series || !ord) {
        free(ord);
        return TLM_ENOMEM;
    }
    size_t m = 0;
    for (size_t i = 0; i < acc->n_runs; i++) {
        acc->series[i] = -1;
        if (is_ok(&acc->runs[i]))
            ord[m++] = i;
    }
    if (tlm_sort_idx(ord, m, cmp_head, acc) != TLM_OK) {
        free(ord);
        return TLM_ENOMEM;
    }
    for (size_t k = 0; k < m; k++) {
        size_t i = ord[k];
        acc->series[i] = (int32_t)i;
        for (size_t h = 0; h < k; h++) {
            size_t j = ord[h];
            if (acc->series[j] != (int32_t)j ||
                strcmp(acc->runs[j].job, acc->runs[i].job) != 0)
                continue;
            if (!acc->sig || tlm_audit_sig_match(&acc->sig[j],
                                                 &acc->sig[i], NULL, 0)) {
                acc->series[i] = (int32_t)j;
                break;
            }
        }
    }
    free(ord);
    return TLM_OK;
}

/* Base run of run i: --baseline's when it is of i's series, else the
 * first run of i's series. */
static int32_t base_of(const tlm_audit_acc *acc, size_t i)
{
    int32_t s = acc->series[i];
    if (acc->base_index >= 0 && s >= 0 && acc->series[acc->base_index] == s)
        return acc->base_index;
    return s;
}

/* Median step time of the ok runs of the same (series, world size). */
static double peer_median(const tlm_audit_acc *acc, size_t i)
{
    const tlm_arow_run *r = &acc->runs[i];
    double v[64];
    size_t n = 0;
    for (size_t j = 0; j < acc->n_runs && n < 64; j++) {
        const tlm_arow_run *o = &acc->runs[j];
        if (is_ok(o) && o->step_time_ns > 0 && o->world_size == r->world_size
            && acc->series[j] == acc->series[i])
            v[n++] = (double)o->step_time_ns;
    }
    for (size_t a = 1; a < n; a++) /* few: insertion sort */
        for (size_t b = a; b > 0 && v[b - 1] > v[b]; b--) {
            double t = v[b];
            v[b] = v[b - 1];
            v[b - 1] = t;
        }
    if (!n)
        return NAN;
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Base bandwidth of each signature row: the same (coll, pg_desc, dtype,
 * bytes) in the base run (the first such row when group sizes differ). */
static void coll_bases(tlm_audit_acc *acc, const int32_t *base)
{
    for (size_t i = 0; i < acc->n_colls; i++) {
        tlm_arow_coll *c = &acc->colls[i];
        size_t run = 0;
        while (run < acc->n_runs && strcmp(acc->runs[run].run, c->run) != 0)
            run++;
        if (run == acc->n_runs || base[run] < 0)
            continue;
        const char *brun = acc->runs[base[run]].run;
        for (size_t j = 0; j < acc->n_colls; j++) {
            const tlm_arow_coll *b = &acc->colls[j];
            if (strcmp(b->run, brun) || strcmp(b->coll, c->coll) ||
                strcmp(b->pg_desc, c->pg_desc) || strcmp(b->dtype, c->dtype) ||
                b->bytes != c->bytes)
                continue;
            c->base_busbw_gbps = b->busbw_gbps;
            c->busbw_ratio = c->busbw_gbps / b->busbw_gbps;
            break;
        }
    }
}

/* The stand-out bits of ok run ri (TLM_AUDIT_OUT_*). */
static uint32_t stand_out(const tlm_audit_acc *acc, size_t ri,
                          const tlm_arow_job *j, const tlm_audit_opts *o)
{
    const tlm_arow_run *r = &acc->runs[ri];
    uint32_t m = 0;
    if (r->straggler_rank >= 0)
        m |= TLM_AUDIT_OUT_STRAGGLER;
    double med = peer_median(acc, ri);
    if (r->step_time_ns > 0 && isfinite(med) &&
        (double)r->step_time_ns > med * (1 + o->a.step_outlier_pct / 100.0))
        m |= TLM_AUDIT_OUT_SLOW;
    if (isfinite(j->eff_weak) && j->eff_weak < o->min_efficiency)
        m |= TLM_AUDIT_OUT_EFFICIENCY;
    if (j->eff_weak > TLM_AUDIT_EFF_FLAG && j->eff_strong > TLM_AUDIT_EFF_FLAG)
        m |= TLM_AUDIT_OUT_ABOVE_ONE;
    for (size_t i = 0; i < acc->n_colls; i++) {
        const tlm_arow_coll *c = &acc->colls[i];
        if (!strcmp(c->run, r->run) && c->time_share >= 0.05 &&
            c->busbw_ratio < 1 - o->bw_drop_pct / 100.0)
            m |= TLM_AUDIT_OUT_BANDWIDTH;
    }
    if (r->instances > 0 && (double)r->incomplete > 0.05 * (double)r->instances)
        m |= TLM_AUDIT_OUT_INCOMPLETE;
    if (r->clock_offset_max_ns > 1000000)
        m |= TLM_AUDIT_OUT_CLOCK;
    return m;
}

/* /scaling/jobs order: job, series, world size, run. */
static int cmp_job(const void *a, const void *b)
{
    const tlm_arow_job *x = a, *y = b;
    int c = strcmp(x->job, y->job);
    if (!c)
        c = strcmp(x->series, y->series);
    if (!c)
        c = (x->world_size > y->world_size) - (x->world_size < y->world_size);
    return c ? c : strcmp(x->run, y->run);
}

/* /scaling/jobs: each ok run against the base run of its job. */
static tlm_status jobs_table(tlm_audit_acc *acc, const int32_t *base,
                             const tlm_audit_opts *o)
{
    acc->jobs = calloc(acc->n_runs ? acc->n_runs : 1, sizeof *acc->jobs);
    if (!acc->jobs)
        return TLM_ENOMEM;
    for (size_t i = 0; i < acc->n_runs; i++) {
        const tlm_arow_run *r = &acc->runs[i];
        if (!is_ok(r))
            continue;
        tlm_arow_job *j = &acc->jobs[acc->n_jobs++];
        tlm_strset(j->job, sizeof j->job, r->job);
        tlm_strset(j->series, sizeof j->series,
                   acc->runs[acc->series[i]].run);
        tlm_strset(j->run, sizeof j->run, r->run);
        j->world_size = r->world_size;
        j->step_time_ns = r->step_time_ns;
        j->comm_share = r->comm_share;
        j->base_world_size = j->base_step_time_ns = -1;
        j->eff_weak = j->eff_strong = j->comm_share_delta = NAN;
        if (base[i] >= 0) {
            const tlm_arow_run *b = &acc->runs[base[i]];
            tlm_strset(j->base_run, sizeof j->base_run, b->run);
            j->base_world_size = b->world_size;
            j->base_step_time_ns = b->step_time_ns;
            j->comm_share_delta = r->comm_share - b->comm_share;
            if (r->step_time_ns > 0 && b->step_time_ns > 0) {
                double t = (double)r->step_time_ns,
                       tb = (double)b->step_time_ns;
                j->eff_weak = tb / t;
                j->eff_strong = tb * (double)b->world_size /
                                (t * (double)r->world_size);
            }
        }
        j->stands_out = (int32_t)stand_out(acc, i, j, o);
    }
    qsort(acc->jobs, acc->n_jobs, sizeof *acc->jobs, cmp_job);
    return TLM_OK;
}

/* /scaling/stragglers order: job, series, runs named descending, wait
 * caused descending, trace rank. */
static int cmp_strag(const void *a, const void *b)
{
    const tlm_arow_strag *x = a, *y = b;
    int c = strcmp(x->job, y->job);
    if (!c)
        c = strcmp(x->series, y->series);
    if (!c)
        c = (x->runs_named < y->runs_named) - (x->runs_named > y->runs_named);
    if (!c)
        c = (x->wait_caused_ns < y->wait_caused_ns) -
            (x->wait_caused_ns > y->wait_caused_ns);
    return c ? c : (x->trace_rank > y->trace_rank) -
                       (x->trace_rank < y->trace_rank);
}

/* Adds one (run, rank) row to its (series, rank) row: never summed
 * across jobs or series. */
static tlm_status strag_add(tlm_audit_acc *acc, const tlm_audit_srank *s,
                            int64_t *n_inst, size_t cap)
{
    const tlm_arow_run *r = &acc->runs[s->run];
    int32_t ser = acc->series[s->run];
    if (ser < 0)
        return TLM_OK; /* not an ok run */
    const char *head = acc->runs[ser].run;
    size_t k = 0;
    while (k < acc->n_strag && (acc->strag[k].trace_rank != s->trace_rank ||
                                strcmp(acc->strag[k].job, r->job) != 0 ||
                                strcmp(acc->strag[k].series, head) != 0))
        k++;
    if (k == acc->n_strag) {
        if (k == cap)
            return TLM_ENOMEM;
        tlm_arow_strag *g = &acc->strag[acc->n_strag++];
        memset(g, 0, sizeof *g);
        tlm_strset(g->job, sizeof g->job, r->job);
        tlm_strset(g->series, sizeof g->series, head);
        g->trace_rank = s->trace_rank;
        n_inst[k] = 0;
        for (size_t j = 0; j < acc->n_runs; j++)
            g->runs += acc->series[j] == ser &&
                       acc->runs[j].world_size > s->trace_rank;
    }
    tlm_arow_strag *g = &acc->strag[k];
    g->runs_named += s->named;
    g->runs_top += s->top;
    g->wait_caused_ns += s->wait_caused_ns;
    n_inst[k] += s->n_instances;
    return TLM_OK;
}

/* /scaling/stragglers: the (run, rank) rows summed per (job, rank). */
static tlm_status strag_table(tlm_audit_acc *acc)
{
    size_t cap = acc->n_sr ? acc->n_sr : 1;
    acc->strag = calloc(cap, sizeof *acc->strag);
    int64_t *n_inst = calloc(cap, sizeof *n_inst);
    tlm_status st = acc->strag && n_inst ? TLM_OK : TLM_ENOMEM;
    for (size_t i = 0; st == TLM_OK && i < acc->n_sr; i++) {
        const tlm_audit_srank *s = &acc->sr[i];
        if (s->wait_caused_ns > 0 || s->named || s->top)
            st = strag_add(acc, s, n_inst, cap);
    }
    for (size_t k = 0; st == TLM_OK && k < acc->n_strag; k++) {
        tlm_arow_strag *g = &acc->strag[k];
        g->frequency = g->runs ? (double)g->runs_named / (double)g->runs : NAN;
        g->wait_per_coll_ns = n_inst[k] ? g->wait_caused_ns / n_inst[k] : 0;
    }
    free(n_inst);
    if (st == TLM_OK && acc->n_strag)
        qsort(acc->strag, acc->n_strag, sizeof *acc->strag, cmp_strag);
    return st;
}

/* The metrics of /comparison, in their order. */
static double metric(const tlm_arow_run *r, int m, const char **name)
{
    static const char *const names[] = {
        "step_time_ns", "comm_share", "busbw_allreduce_gbps",
        "busbw_allgather_gbps", "busbw_reducescatter_gbps",
        "busbw_alltoall_gbps", "busbw_broadcast_gbps", "busbw_p2p_gbps",
        "max_start_skew_ns", "straggler_cost_ns", "instances", NULL};
    *name = names[m];
    double i64 = NAN;
    switch (m) {
    case 0: i64 = (double)r->step_time_ns; break;
    case 1: return r->comm_share;
    case 2: return r->busbw_allreduce_gbps;
    case 3: return r->busbw_allgather_gbps;
    case 4: return r->busbw_reducescatter_gbps;
    case 5: return r->busbw_alltoall_gbps;
    case 6: return r->busbw_broadcast_gbps;
    case 7: return r->busbw_p2p_gbps;
    case 8: i64 = (double)r->max_start_skew_ns; break;
    case 9: i64 = (double)r->straggler_cost_ns; break;
    case 10: i64 = (double)r->instances; break;
    default: return NAN;
    }
    return i64 < 0 ? NAN : i64;
}

/* /comparison: each ok run's metrics against the --baseline run's. */
static tlm_status cmp_table(tlm_audit_acc *acc)
{
    enum { N_METRICS = 11 };
    if (acc->base_index < 0)
        return TLM_OK;
    acc->cmp = calloc(acc->n_runs * N_METRICS + 1, sizeof *acc->cmp);
    if (!acc->cmp)
        return TLM_ENOMEM;
    const tlm_arow_run *b = &acc->runs[acc->base_index];
    for (size_t i = 0; i < acc->n_runs; i++) {
        const tlm_arow_run *r = &acc->runs[i];
        if (!is_ok(r) || (int32_t)i == acc->base_index)
            continue;
        for (int m = 0; m < N_METRICS; m++) {
            tlm_arow_cmp *c = &acc->cmp[acc->n_cmp++];
            const char *name;
            c->value = metric(r, m, &name);
            c->baseline = metric(b, m, &name);
            tlm_strset(c->run, sizeof c->run, r->run);
            tlm_strset(c->metric, sizeof c->metric, name);
            c->delta = c->value - c->baseline;
            c->ratio = c->value / c->baseline;
        }
    }
    return TLM_OK;
}

/* The cross-run tables, once every run has its row. */
tlm_status tlm_audit_finish(tlm_audit_acc *acc, const tlm_audit_opts *o)
{
    acc->base_index = -1;
    for (size_t i = 0; o->baseline && i < acc->n_runs; i++)
        if (!strcmp(acc->runs[i].run, o->baseline) && is_ok(&acc->runs[i]))
            acc->base_index = (int32_t)i;
    free(acc->series);
    acc->series = NULL;
    if (make_series(acc) != TLM_OK)
        return TLM_ENOMEM;
    int32_t *base = malloc((acc->n_runs ? acc->n_runs : 1) * sizeof *base);
    if (!base)
        return TLM_ENOMEM;
    for (size_t i = 0; i < acc->n_runs; i++)
        base[i] = base_of(acc, i);
    coll_bases(acc, base);
    tlm_status st = jobs_table(acc, base, o);
    free(base);
    if (st == TLM_OK)
        st = strag_table(acc);
    if (st == TLM_OK)
        st = cmp_table(acc);
    return st;
}
