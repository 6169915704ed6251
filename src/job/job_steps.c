/*
 * job_steps.c - the per-step rows of a job without MPI
 * (docs/metrics-steps.md): each trace's ProfilerStep#N rows (those --steps
 * selects, tlm_steps_compute) as rows of /steps/per_rank, kept by the
 * process that reads the trace; their (trace_rank, step) order; and the
 * summary of each step across ranks (/steps/summary), which the driver's
 * steps module (mpi/phase_steps.c) makes on rank 0 from every rank's rows.
 */
#include "job.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"

/* One step row of the report layer as a row of /steps/per_rank. */
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

/* ... and back. */
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

/* One step's summary as a row of /steps/summary. */
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

tlm_status tlm_job_steps_keep(tlm_job_steps *s, const tlm_tree *tree,
                              int32_t rank, const char *steps_opt,
                              tlm_error *err)
{
    tlm_step_sel sel;
    tlm_status st = tlm_step_sel_parse(steps_opt, &sel, err);
    if (st != TLM_OK)
        return st; /* checked by the option parser: not reached */
    tlm_step_row *rows = NULL;
    size_t n = 0;
    st = tlm_steps_compute(tree, rank, &sel, &rows, &n, err);
    if (st != TLM_OK)
        return st;
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

void tlm_job_steps_free(tlm_job_steps *s)
{
    free(s->rows);
    free(s->all);
    free(s->sum);
    memset(s, 0, sizeof *s);
}

/* qsort order of step rows: trace rank, then step. */
static int cmp_rank_step(const void *a, const void *b)
{
    const tlm_row_step *x = a, *y = b;
    if (x->trace_rank != y->trace_rank)
        return x->trace_rank < y->trace_rank ? -1 : 1;
    return (x->step > y->step) - (x->step < y->step);
}

void tlm_job_steps_sort(tlm_row_step *rows, size_t n)
{
    if (n > 1)
        qsort(rows, n, sizeof *rows, cmp_rank_step);
}

tlm_status tlm_job_steps_summarize(tlm_job_steps *s, double outlier)
{
    size_t n = s->n_all;
    tlm_step_row *in = malloc((n ? n : 1) * sizeof *in);
    if (!in)
        return TLM_ENOMEM;
    for (size_t i = 0; i < n; i++)
        step_of(&s->all[i], &in[i]);
    tlm_step_summary *sum = NULL;
    size_t ns = 0;
    tlm_status st = tlm_steps_summarize(in, n,
                                        outlier,
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

