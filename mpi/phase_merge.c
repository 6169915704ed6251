/*
 * phase_merge.c - the per-trace report tables (ops_summary,
 * ops_unique_args, kernel_summary rows kept by src/job/job_tables.c) are
 * put in trace-rank order on each rank, ready for the segmented HDF5
 * write, and the ops of every trace are gathered and merged by name on
 * rank 0 (/ops/merged and report.md's top ops; src/job/job_merge.c).  One module of the driver (module.h, its row
 * tlm_mpi_mod_merge at the end): while reading it keeps each trace's rows
 * (src/job/job_tables.c).
 */
#include "driver.h"
#include "module.h"

#include <stdlib.h>
#include <string.h>

#include "exchange.h"

/* The exchange hook: the phase. */
static tlm_status merge_phase(tlm_mpi_ctx *c, void **sp)
{
    (void)sp;
    tlm_error err;
    tlm_error_clear(&err);
    tlm_status st = tlm_job_order_rows(c->lres, c->n_lres, &c->rt, &c->ord_ops,
                                       &c->ord_ua, &c->ord_kn);
    st = tlm_mpi_agree(st, c->comm);
    if (st != TLM_OK) {
        tlm_mpi_say0(c, "error: out of memory ordering report tables");
        return st;
    }
    void *tmp = NULL;
    size_t n = 0;
    st = tlm_mpi_gather(c->ord_ops, c->rt.n_ops, sizeof *c->ord_ops, 0,
                        c->comm, &tmp, &n, &err);
    if (st != TLM_OK) {
        tlm_mpi_say0(c, "error: %s", err.msg);
        return st;
    }
    if (c->me == 0 && n > 0)
        st = tlm_job_merge_ops(tmp, n, &c->mops, &c->n_mops);
    free(tmp);
    st = tlm_mpi_agree(st, c->comm);
    if (st != TLM_OK)
        tlm_mpi_say0(c, "error: out of memory merging ops");
    return st;
}

/* The collect hook: the trace's ops and kernel rows (src/job/job_tables.c). */
static tlm_status merge_tree(tlm_mpi_ctx *c, void **sp,
                             const tlm_job_trace_in *in, tlm_error *err)
{
    (void)sp;
    if (!in->rep) /* no GPU events: no rows */
        return TLM_OK;
    tlm_status st = tlm_job_keep_report_rows(&c->rt, in->rep,
                                             in->fr->row.trace_rank, in->fr);
    if (st != TLM_OK)
        return tlm_error_set(err, st, in->path, -1,
                             "out of memory keeping report tables");
    return TLM_OK;
}

/* The write hook: /ops/per_rank, /ops/merged, /ops/unique_args,
 * /kernels. */
static tlm_status merge_h5(tlm_mpi_ctx *c, void **sp, tlm_job_rows *h,
                           tlm_mpi_dataset *sets, size_t *n)
{
    (void)sp;
    (void)h;
    const tlm_mpi_dataset mine[] = {
        {&tlm_tab_ops, c->ord_ops, c->rt.n_ops, 1},
        {&tlm_tab_ops_merged, c->mops, c->me == 0 ? c->n_mops : 0, 0},
        {&tlm_tab_uargs, c->ord_ua, c->rt.n_ua, 1},
        {&tlm_tab_kernels, c->ord_kn, c->rt.n_kn, 1},
    };
    for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++)
        if (*n < TLM_MPI_MAX_DATASETS)
            sets[(*n)++] = mine[i];
    return TLM_OK;
}

/* report.md's top ops. */
static void merge_results(const tlm_mpi_ctx *c, void *const *sp,
                          tlm_out_results *r)
{
    (void)sp;
    r->ops = c->mops;
    r->n_ops = c->n_mops;
}

/* The free hook. */
static void merge_free(tlm_mpi_ctx *c, void **sp)
{
    (void)sp;
    tlm_job_rtabs_free(&c->rt);
    free(c->ord_ops);
    free(c->ord_ua);
    free(c->ord_kn);
    c->ord_ops = NULL;
    c->ord_ua = NULL;
    c->ord_kn = NULL;
    free(c->mops);
    c->mops = NULL;
    c->n_mops = 0;
}

const tlm_mpi_module tlm_mpi_mod_merge = {
    .name = "merge",
    .mark = TLM_MPI_T_TABLES,
    .on_tree = merge_tree,
    .exchange = merge_phase,
    .h5_tables = merge_h5,
    .results = merge_results,
    .free = merge_free,
};
