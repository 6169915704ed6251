/*
 * phase_merge.c - the per-trace report tables (ops_summary,
 * ops_unique_args, kernel_summary rows kept by src/job/job_tables.c) stay
 * where they were kept, in read order: the write phase writes each
 * trace's span as a segment (phase_write.c, write_spans); the ops of every
 * trace are merged by name, each process its own into one part per name,
 * the parts combined on rank 0 (/ops/merged and report.md's top ops;
 * src/job/job_merge.c).  One module of the driver (module.h, its row
 * tlm_mpi_mod_merge at the end): while reading it keeps each trace's rows
 * (src/job/job_tables.c).
 */
#include "driver.h"
#include "module.h"

#include <stdlib.h>
#include <string.h>

#include "exchange.h"

/* Rank 0: every trace's ops rows gathered and merged (the fallback when
 * a time is not an exact integer). */
static tlm_status merge_rows(tlm_mpi_ctx *c, tlm_error *err)
{
    void *tmp = NULL;
    size_t n = 0;
    tlm_status st = tlm_mpi_gather(c->rt.ops, c->rt.n_ops, sizeof *c->rt.ops,
                                   0, c->comm, &tmp, &n, err);
    if (st != TLM_OK)
        return st;
    if (c->me == 0 && n > 0)
        st = tlm_job_merge_ops(tmp, n, &c->mops, &c->n_mops);
    free(tmp);
    return st;
}

/* The ops merged by name: each process merges its own traces' rows into
 * one part per op name (src/job/job_merge.c), rank 0 gathers the parts
 * and combines them, so that it holds no row per trace; the result is the
 * merge of every row (exact integer sums), else every row is gathered. */
static tlm_status merge_ops(tlm_mpi_ctx *c, tlm_error *err)
{
    tlm_job_op_part *parts = NULL;
    size_t n_parts = 0;
    int exact = 0;
    tlm_status st = tlm_job_op_parts(c->rt.ops, c->rt.n_ops, &parts,
                                     &n_parts, &exact);
    double abs_sum = 0;
    for (size_t i = 0; i < n_parts; i++)
        abs_sum += parts[i].direct_abs + parts[i].subtree_abs;
    int all_exact = 0;
    double all_abs = 0;
    MPI_Allreduce(&exact, &all_exact, 1, MPI_INT, MPI_MIN, c->comm);
    MPI_Allreduce(&abs_sum, &all_abs, 1, MPI_DOUBLE, MPI_SUM, c->comm);
    st = tlm_mpi_agree(st, c->comm);
    if (st == TLM_OK && (!all_exact || all_abs > 4503599627370496.0)) {
        free(parts);
        return merge_rows(c, err);
    }
    void *all = NULL;
    size_t n_all = 0;
    if (st == TLM_OK)
        st = tlm_mpi_gather(parts, n_parts, sizeof *parts, 0, c->comm, &all,
                            &n_all, err);
    free(parts);
    if (st == TLM_OK && c->me == 0 && n_all > 0)
        st = tlm_job_op_parts_merge(all, n_all, &c->mops, &c->n_mops);
    free(all);
    return st;
}

/* The exchange hook: the phase. */
static tlm_status merge_phase(tlm_mpi_ctx *c, void **sp)
{
    (void)sp;
    tlm_error err;
    tlm_error_clear(&err);
    tlm_status st = merge_ops(c, &err);
    if (err.code != TLM_OK && err.msg[0]) {
        tlm_mpi_say0(c, "error: %s", err.msg);
        return tlm_mpi_agree(st, c->comm);
    }
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
        {&tlm_tab_ops, c->rt.ops, c->rt.n_ops, 2 + TLM_JOB_SPAN_OPS},
        {&tlm_tab_ops_merged, c->mops, c->me == 0 ? c->n_mops : 0, 0},
        {&tlm_tab_uargs, c->rt.ua, c->rt.n_ua, 2 + TLM_JOB_SPAN_UARGS},
        {&tlm_tab_kernels, c->rt.kn, c->rt.n_kn, 2 + TLM_JOB_SPAN_KERNELS},
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
