/*
 * compare_runs_sum.c - the job-level metrics of `tlmpi compare A.h5 B.h5`
 * (comparison.h5's /summary: step time, GPU timeline means, collective
 * time and waiting, the straggler) and tlm_cr_compare, which runs the
 * joins and the comparative findings.  Pure.
 */
#include "compare_runs.h"
#include "find_runs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* qsort order of doubles. */
static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median over steps of a step column (dur_max_ns or dur_median_ns). */
static double step_median(const tlm_cr_run *r, int use_max)
{
    if (!r->n_steps)
        return NAN;
    double *v = malloc(r->n_steps * sizeof *v);
    if (!v)
        return NAN;
    for (size_t i = 0; i < r->n_steps; i++)
        v[i] = use_max ? (double)r->steps[i].dur_max_ns
                       : r->steps[i].dur_median_ns;
    qsort(v, r->n_steps, sizeof *v, cmp_dbl);
    size_t n = r->n_steps;
    double m = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    free(v);
    return m;
}

/* Mean over ranks of a timeline column. */
static double tl_mean(const tlm_cr_run *r, size_t off)
{
    if (!r->n_tl)
        return NAN;
    double s = 0;
    for (size_t i = 0; i < r->n_tl; i++) {
        int64_t v = *(const int64_t *)(const void *)((const char *)&r->tl[i] +
                                                     off);
        if (v < 0)
            return NAN; /* unknown: a file without the column */
        s += (double)v;
    }
    return s / (double)r->n_tl;
}

/* Sums over complete instances: latency and member waits per rank. */
static void coll_time(const tlm_cr_run *r, double s, double *lat,
                      double *wait)
{
    double l = 0, w = 0;
    for (size_t i = 0; i < r->n_inst; i++) {
        if (r->inst[i].incomplete)
            continue;
        l += (double)r->inst[i].comm_latency_ns * r->inst[i].n_members;
        w += (double)r->inst[i].wait_sum_corr_ns;
    }
    double n = r->n_tl ? (double)r->n_tl : NAN;
    *lat = l / n / s;
    *wait = w / n / s;
}

/* Adds a /summary row (metric, unit, A, B, diff, pct). */
static void add(tlm_cr_result *res, const char *metric, const char *unit,
                double a, double b)
{
    tlm_cr_sum *o = &res->sum[res->n_sum++];
    memset(o, 0, sizeof *o);
    tlm_strset(o->metric, sizeof o->metric, metric);
    tlm_strset(o->unit, sizeof o->unit, unit);
    o->a = a;
    o->b = b;
    o->diff = tlm_cr_diff(a, b);
    o->pct = tlm_cr_pct(a, b);
}

#define NSUM 21

/* /summary: the job-level metrics of both runs. */
static tlm_status summary(const tlm_cr_run *a, const tlm_cr_run *b,
                          double sa, double sb, tlm_cr_result *res)
{
    res->sum = calloc(NSUM, sizeof *res->sum);
    if (!res->sum)
        return TLM_ENOMEM;
    add(res, "world_size", "", (double)a->world_size, (double)b->world_size);
    add(res, "n_traces", "", (double)a->n_traces, (double)b->n_traces);
    add(res, "n_steps", "", (double)a->n_steps, (double)b->n_steps);
    add(res, "step_time_ns", "ns", step_median(a, 1), step_median(b, 1));
    add(res, "step_median_ns", "ns", step_median(a, 0), step_median(b, 0));
    const struct {
        const char *name;
        size_t off;
    } tl[] = {
        {"gpu_total_ns", offsetof(tlm_row_timeline, total_ns)},
        {"gpu_busy_ns", offsetof(tlm_row_timeline, busy_ns)},
        {"computation_ns", offsetof(tlm_row_timeline, computation_ns)},
        {"total_comm_ns", offsetof(tlm_row_timeline, total_comm_ns)},
        {"exposed_comm_ns", offsetof(tlm_row_timeline, exposed_comm_ns)},
        {"exposed_transfer_ns",
         offsetof(tlm_row_timeline, exposed_transfer_ns)},
        {"exposed_waiting_ns",
         offsetof(tlm_row_timeline, exposed_waiting_ns)},
        {"exposed_unknown_ns",
         offsetof(tlm_row_timeline, exposed_unknown_ns)},
        {"idle_ns", offsetof(tlm_row_timeline, idle_ns)},
    };
    for (size_t i = 0; i < sizeof tl / sizeof tl[0]; i++)
        add(res, tl[i].name, "ns", tl_mean(a, tl[i].off),
            tl_mean(b, tl[i].off));
    double la, wa, lb, wb;
    coll_time(a, sa, &la, &wa);
    coll_time(b, sb, &lb, &wb);
    add(res, "coll_latency_ns", "ns", la, lb);
    add(res, "coll_wait_ns", "ns", wa, wb);
    add(res, "n_instances", "", (double)a->n_inst, (double)b->n_inst);
    add(res, "straggler_rank", "", (double)a->straggler_rank,
        (double)b->straggler_rank);
    add(res, "straggler_wait_ns", "ns", (double)a->straggler_wait_ns,
        (double)b->straggler_wait_ns);
    res->sum[res->n_sum - 2].diff = res->sum[res->n_sum - 2].pct = NAN;
    return TLM_OK;
}

/* The comparative findings R1-R6 (src/find/find_runs.c) of the joins. */
static tlm_status findings(const tlm_cr_run *a, const tlm_cr_run *b,
                           const tlm_cr_opts *o, tlm_cr_result *res)
{
    tlm_find_runs_in in = {
        res->per_step, res->step_a, res->step_b,
        tlm_cr_pct(res->step_a, res->step_b), res->colls, res->n_colls,
        res->ops, res->n_ops, res->strag, res->n_strag, a->straggler_rank,
        b->straggler_rank, a->straggler_wait_ns, b->straggler_wait_ns,
        b->n_traces, (int64_t)b->n_steps};
    tlm_find_runs_opts fo = {o->min_impact_pct, o->top};
    return tlm_find_runs_build(&in, &fo, &res->find, &res->n_find);
}

/* The joins, the summary and the findings (compare_runs.h). */
tlm_status tlm_cr_compare(const tlm_cr_run *a, const tlm_cr_run *b,
                          const tlm_cr_opts *o, tlm_cr_result *res,
                          tlm_error *err)
{
    memset(res, 0, sizeof *res);
    res->per_step = a->n_steps > 0 && b->n_steps > 0;
    double sa = res->per_step ? (double)a->n_steps : 1.0;
    double sb = res->per_step ? (double)b->n_steps : 1.0;
    res->step_a = res->per_step ? step_median(a, 1)
                                : tl_mean(a, offsetof(tlm_row_timeline,
                                                      total_ns));
    res->step_b = res->per_step ? step_median(b, 1)
                                : tl_mean(b, offsetof(tlm_row_timeline,
                                                      total_ns));
    tlm_status st = summary(a, b, sa, sb, res);
    if (st == TLM_OK)
        st = tlm_cr_join_colls(a, b, sa, sb, res);
    if (st == TLM_OK)
        st = tlm_cr_join_ops(a, b, sa, sb, res);
    if (st == TLM_OK)
        st = tlm_cr_join_strag(a, b, res);
    if (st == TLM_OK)
        st = findings(a, b, o, res);
    if (st != TLM_OK) {
        tlm_cr_result_free(res);
        return tlm_error_set(err, st, NULL, -1,
                             "out of memory comparing %s and %s", a->path,
                             b->path);
    }
    return TLM_OK;
}

/* Frees every table of res. */
void tlm_cr_result_free(tlm_cr_result *res)
{
    free(res->sum);
    free(res->colls);
    free(res->ops);
    free(res->strag);
    free(res->find);
    memset(res, 0, sizeof *res);
}
