/*
 * phase_steps.c - the per-step tables (docs/metrics-steps.md).  While a
 * trace is read, its owner keeps the rows of its ProfilerStep#N spans
 * (tlm_steps_compute, those --steps selects); the steps phase puts the
 * local rows in (trace_rank, step) order for the segmented write of
 * /steps/per_rank, gathers every row on rank 0 and summarises each step
 * across ranks there (/steps/summary, report.md).  Rows are matched by
 * step number, never by time, so no clock correction is involved.  One
 * module of the driver (module.h, its row tlm_mpi_mod_steps at the end).
 */
#include "driver.h"
#include "module.h"

#include <stdlib.h>
#include <string.h>

#include "exchange.h"
#include "grow.h"

static void row_of(const tlm_step_row *s, tlm_row_step *r)
{
    memset(r, 0, sizeof *r);
    r->trace_rank = s->trace_rank;
    r->step = s->step;
    r->start_ns = s->start_ns;
    r->dur_ns = s->dur_ns;
    r->gpu_busy_ns = s->gpu_busy_ns;
    r->compute_ns = s->compute_ns;
    r->comm_ns = s->comm_ns;
    r->exposed_comm_ns = s->exposed_comm_ns;
    r->idle_ns = s->idle_ns;
    r->n_gpu_events = s->n_gpu_events;
}

static void step_of(const tlm_row_step *r, tlm_step_row *s)
{
    memset(s, 0, sizeof *s);
    s->trace_rank = r->trace_rank;
    s->step = r->step;
    s->start_ns = r->start_ns;
    s->dur_ns = r->dur_ns;
    s->gpu_busy_ns = r->gpu_busy_ns;
    s->compute_ns = r->compute_ns;
    s->comm_ns = r->comm_ns;
    s->exposed_comm_ns = r->exposed_comm_ns;
    s->idle_ns = r->idle_ns;
    s->n_gpu_events = r->n_gpu_events;
}

static void sum_of(const tlm_step_summary *s, tlm_row_step_sum *r)
{
    memset(r, 0, sizeof *r);
    r->step = s->step;
    r->n_ranks = s->n_ranks;
    r->slowest_rank = s->slowest_rank;
    r->dur_min_ns = s->dur_min_ns;
    r->dur_median_ns = s->dur_median_ns;
    r->dur_max_ns = s->dur_max_ns;
    r->gpu_busy_median_ns = s->gpu_busy_median_ns;
    r->exposed_comm_max_ns = s->exposed_comm_max_ns;
    r->comm_max_ns = s->comm_max_ns;
    r->vs_median = s->vs_median;
    r->outlier = s->outlier;
}

/* The collect hook: the ProfilerStep#N rows of one trace (those --steps
 * selects) appended to c->steps.rows. */
static tlm_status steps_tree(tlm_mpi_ctx *c, void **sp,
                             const tlm_mpi_trace_in *in, tlm_error *err)
{
    (void)sp;
    const tlm_tree *tree = in->tree;
    int32_t rank = in->fr->row.trace_rank;
    tlm_step_sel sel;
    tlm_status st = tlm_step_sel_parse(c->o.steps, &sel, err);
    if (st != TLM_OK)
        return st; /* checked by the option parser: not reached */
    tlm_step_row *rows = NULL;
    size_t n = 0;
    st = tlm_steps_compute(tree, rank, &sel, &rows, &n, err);
    if (st != TLM_OK)
        return st;
    tlm_mpi_steps *s = &c->steps;
    if (n > 0 && tlm_grow((void **)&s->rows, &s->cap_rows, s->n_rows + n,
                          sizeof *s->rows, 64)) {
        free(rows);
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                             "out of memory keeping %zu step rows", n);
    }
    for (size_t i = 0; i < n; i++)
        row_of(&rows[i], &s->rows[s->n_rows++]);
    free(rows);
    return TLM_OK;
}

/* The free hook. */
static void steps_free(tlm_mpi_ctx *c, void **sp)
{
    (void)sp;
    tlm_mpi_steps *s = &c->steps;
    free(s->rows);
    free(s->all);
    free(s->sum);
    memset(s, 0, sizeof *s);
}

static int cmp_rank_step(const void *a, const void *b)
{
    const tlm_row_step *x = a, *y = b;
    if (x->trace_rank != y->trace_rank)
        return x->trace_rank < y->trace_rank ? -1 : 1;
    return (x->step > y->step) - (x->step < y->step);
}

/* Rank 0: c->steps.sum from c->steps.all. */
static tlm_status summarize(tlm_mpi_ctx *c)
{
    tlm_mpi_steps *s = &c->steps;
    size_t n = s->n_all;
    tlm_step_row *in = malloc((n ? n : 1) * sizeof *in);
    if (!in)
        return TLM_ENOMEM;
    for (size_t i = 0; i < n; i++)
        step_of(&s->all[i], &in[i]);
    tlm_step_summary *sum = NULL;
    size_t ns = 0;
    tlm_status st = tlm_steps_summarize(in, n,
                                        (double)c->o.step_outlier_pct / 100.0,
                                        &sum, &ns);
    free(in);
    if (st == TLM_OK) {
        s->sum = malloc((ns ? ns : 1) * sizeof *s->sum);
        if (!s->sum)
            st = TLM_ENOMEM;
    }
    for (size_t i = 0; st == TLM_OK && i < ns; i++)
        sum_of(&sum[i], &s->sum[i]);
    if (st == TLM_OK)
        s->n_sum = ns;
    free(sum);
    return st;
}

/* The exchange hook: the phase. */
static tlm_status steps_phase(tlm_mpi_ctx *c, void **sp)
{
    (void)sp;
    tlm_error err;
    tlm_error_clear(&err);
    tlm_mpi_steps *s = &c->steps;
    if (s->n_rows > 1)
        qsort(s->rows, s->n_rows, sizeof *s->rows, cmp_rank_step);
    void *all = NULL;
    size_t n = 0;
    tlm_status st = tlm_mpi_gather(s->rows, s->n_rows, sizeof *s->rows, 0,
                                   c->comm, &all, &n, &err);
    if (st != TLM_OK) {
        tlm_mpi_say0(c, "error: %s", err.msg);
        return st;
    }
    s->all = all;
    s->n_all = n;
    if (c->me == 0 && n > 1) /* gathered by MPI rank: back in rank order */
        qsort(s->all, n, sizeof *s->all, cmp_rank_step);
    if (c->me == 0)
        st = summarize(c);
    st = tlm_mpi_agree(st, c->comm);
    if (st != TLM_OK)
        tlm_mpi_say0(c, "error: out of memory summarising the steps");
    return st;
}

/* The write hook: /steps/per_rank (the rows of the traces read here) and
 * /steps/summary (rank 0). */
static tlm_status steps_h5(tlm_mpi_ctx *c, void **sp, tlm_mpi_h5rows *h,
                           tlm_mpi_dataset *sets, size_t *n)
{
    (void)sp;
    (void)h;
    const tlm_mpi_dataset mine[] = {
        {&tlm_tab_steps, c->steps.rows, c->steps.n_rows, 1},
        {&tlm_tab_step_summary, c->steps.sum, c->steps.n_sum, 0},
    };
    for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++)
        if (*n < TLM_MPI_MAX_DATASETS)
            sets[(*n)++] = mine[i];
    return TLM_OK;
}

/* report.md's Steps section. */
static void steps_results(const tlm_mpi_ctx *c, void *const *sp,
                          tlm_mpi_results *r)
{
    (void)sp;
    r->steps = c->steps.all;
    r->n_steps = c->steps.n_all;
    r->step_sum = c->steps.sum;
    r->n_step_sum = c->steps.n_sum;
}

const tlm_mpi_module tlm_mpi_mod_steps = {
    .name = "steps",
    .mark = -1,
    .on_tree = steps_tree,
    .exchange = steps_phase,
    .h5_tables = steps_h5,
    .results = steps_results,
    .free = steps_free,
};
