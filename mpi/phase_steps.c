/*
 * phase_steps.c - the per-step tables (docs/metrics-steps.md).  While a
 * trace is read, its owner keeps the rows of its ProfilerStep#N spans
 * (src/job/job_steps.c, those --steps selects); the steps phase puts the
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

/* The collect hook: the ProfilerStep#N rows of one trace (those --steps
 * selects) appended to c->steps.rows (src/job/job_steps.c). */
static tlm_status steps_tree(tlm_mpi_ctx *c, void **sp,
                             const tlm_job_trace_in *in, tlm_error *err)
{
    (void)sp;
    return tlm_job_steps_keep(&c->steps, in->tree, in->fr->row.trace_rank,
                              c->o.steps, err);
}

/* The free hook. */
static void steps_free(tlm_mpi_ctx *c, void **sp)
{
    (void)sp;
    tlm_job_steps_free(&c->steps);
}

/* The exchange hook: the phase. */
static tlm_status steps_phase(tlm_mpi_ctx *c, void **sp)
{
    (void)sp;
    tlm_error err;
    tlm_error_clear(&err);
    tlm_job_steps *s = &c->steps;
    tlm_job_steps_sort(s->rows, s->n_rows);
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
    if (c->me == 0) /* gathered by MPI rank: back in rank order */
        tlm_job_steps_sort(s->all, n);
    if (c->me == 0)
        st = tlm_job_steps_summarize(s, (double)c->o.step_outlier_pct /
                                            100.0);
    st = tlm_mpi_agree(st, c->comm);
    if (st != TLM_OK)
        tlm_mpi_say0(c, "error: out of memory summarising the steps");
    return st;
}

/* The write hook: /steps/per_rank (the rows of the traces read here) and
 * /steps/summary (rank 0). */
static tlm_status steps_h5(tlm_mpi_ctx *c, void **sp, tlm_job_rows *h,
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
                          tlm_out_results *r)
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
