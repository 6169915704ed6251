/*
 * phase_merge.c - the per-trace report tables (ops_summary,
 * ops_unique_args, kernel_summary rows kept by trace_tables.c) are put in
 * trace-rank order on each rank, ready for the segmented HDF5 write, and
 * the ops of every trace are merged by name on rank 0 (/ops/merged and
 * report.md's top ops).  One module of the driver (module.h, its row
 * tlm_mpi_mod_merge at the end): while reading it keeps each trace's rows
 * (trace_tables.c).
 */
#include "driver.h"
#include "module.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exchange.h"

static int cmp_lres_rank(const void *a, const void *b)
{
    const tlm_mpi_fileres *x = *(const tlm_mpi_fileres *const *)a;
    const tlm_mpi_fileres *y = *(const tlm_mpi_fileres *const *)b;
    return x->row.trace_rank - y->row.trace_rank;
}

/* Concatenates the rows of table k (TLM_MPI_SPAN_*) of the local traces in
 * trace-rank order. */
static void *order_rows(const tlm_mpi_ctx *c,
                        const tlm_mpi_fileres *const *by_rank, int k,
                        const void *base, size_t n, size_t sz)
{
    char *out = malloc(n ? n * sz : 1);
    if (!out)
        return NULL;
    size_t at = 0;
    for (size_t i = 0; i < c->n_lres; i++) {
        const int64_t *sp = by_rank[i]->span[k];
        if (sp[1] == 0)
            continue; /* base may be NULL when there are no rows */
        memcpy(out + at * sz, (const char *)base + (size_t)sp[0] * sz,
               (size_t)sp[1] * sz);
        at += (size_t)sp[1];
    }
    return out;
}

/* c->ord_ops, c->ord_ua, c->ord_kn from c->rt. */
static tlm_status order_local_rows(tlm_mpi_ctx *c)
{
    const tlm_mpi_fileres **by = malloc((c->n_lres ? c->n_lres : 1) *
                                        sizeof *by);
    tlm_status st = TLM_OK;
    if (by) {
        for (size_t i = 0; i < c->n_lres; i++)
            by[i] = &c->lres[i];
        qsort(by, c->n_lres, sizeof *by, cmp_lres_rank);
        c->ord_ops = order_rows(c, by, TLM_MPI_SPAN_OPS, c->rt.ops,
                                c->rt.n_ops, sizeof *c->rt.ops);
        c->ord_ua = order_rows(c, by, TLM_MPI_SPAN_UARGS, c->rt.ua,
                               c->rt.n_ua, sizeof *c->rt.ua);
        c->ord_kn = order_rows(c, by, TLM_MPI_SPAN_KERNELS, c->rt.kn,
                               c->rt.n_kn, sizeof *c->rt.kn);
    }
    if (!by || !c->ord_ops || !c->ord_ua || !c->ord_kn)
        st = TLM_ENOMEM;
    free(by);
    st = tlm_mpi_agree(st, c->comm);
    if (st != TLM_OK)
        tlm_mpi_say0(c, "error: out of memory ordering report tables");
    return st;
}

static int cmp_op_name(const void *a, const void *b)
{
    const tlm_row_op *x = a, *y = b;
    int cmp = strncmp(x->name, y->name, sizeof x->name);
    if (cmp)
        return cmp;
    return x->trace_rank - y->trace_rank;
}

static int cmp_mop(const void *a, const void *b)
{
    const tlm_row_op_merged *x = a, *y = b;
    if (x->direct_kernel_ns != y->direct_kernel_ns)
        return x->direct_kernel_ns > y->direct_kernel_ns ? -1 : 1;
    return strncmp(x->name, y->name, sizeof x->name);
}

static double nz(double v)
{
    return isnan(v) ? 0.0 : v;
}

/* Rank 0: merges every trace's ops (all, n rows) by name into c->mops,
 * sorted by direct kernel time, descending. */
static tlm_status merge_ops(tlm_mpi_ctx *c, tlm_row_op *all, size_t n)
{
    qsort(all, n, sizeof *all, cmp_op_name);
    c->mops = calloc(n, sizeof *c->mops);
    if (!c->mops)
        return TLM_ENOMEM;
    double total = 0;
    for (size_t i = 0; i < n; i++) {
        tlm_row_op_merged *m = c->n_mops ? &c->mops[c->n_mops - 1] : NULL;
        if (!m || strncmp(m->name, all[i].name, sizeof m->name) != 0) {
            m = &c->mops[c->n_mops++];
            memcpy(m->name, all[i].name, sizeof m->name);
            memcpy(m->categories, all[i].categories, sizeof m->categories);
            m->min_rank_ns = INFINITY;
            m->max_rank_ns = -INFINITY;
        }
        double d = nz(all[i].direct_kernel_ns);
        m->n_ranks++;
        m->count += all[i].count > 0 ? all[i].count : 0;
        m->direct_kernel_ns += d;
        m->subtree_kernel_ns += nz(all[i].subtree_kernel_ns);
        if (d < m->min_rank_ns) {
            m->min_rank_ns = d;
            m->min_rank = all[i].trace_rank;
        }
        if (d > m->max_rank_ns) {
            m->max_rank_ns = d;
            m->max_rank = all[i].trace_rank;
        }
        total += d;
    }
    for (size_t i = 0; i < c->n_mops; i++) {
        tlm_row_op_merged *m = &c->mops[i];
        m->mean_rank_ns = m->direct_kernel_ns / m->n_ranks;
        m->percent = total > 0 ? 100.0 * m->direct_kernel_ns / total : NAN;
    }
    if (c->n_mops > 1)
        qsort(c->mops, c->n_mops, sizeof *c->mops, cmp_mop);
    return TLM_OK;
}

/* The exchange hook: the phase. */
static tlm_status merge_phase(tlm_mpi_ctx *c, void **sp)
{
    (void)sp;
    tlm_error err;
    tlm_error_clear(&err);
    tlm_status st = order_local_rows(c);
    if (st != TLM_OK)
        return st;
    void *tmp = NULL;
    size_t n = 0;
    st = tlm_mpi_gather(c->ord_ops, c->rt.n_ops, sizeof *c->ord_ops, 0,
                        c->comm, &tmp, &n, &err);
    if (st != TLM_OK) {
        tlm_mpi_say0(c, "error: %s", err.msg);
        return st;
    }
    if (c->me == 0 && n > 0)
        st = merge_ops(c, tmp, n);
    free(tmp);
    st = tlm_mpi_agree(st, c->comm);
    if (st != TLM_OK)
        tlm_mpi_say0(c, "error: out of memory merging ops");
    return st;
}

/* The collect hook: the trace's ops and kernel rows (trace_tables.c). */
static tlm_status merge_tree(tlm_mpi_ctx *c, void **sp,
                             const tlm_mpi_trace_in *in, tlm_error *err)
{
    (void)sp;
    if (!in->rep) /* no GPU events: no rows */
        return TLM_OK;
    tlm_status st =
        tlm_mpi_keep_report_rows(c, in->rep, in->fr->row.trace_rank, in->fr);
    if (st != TLM_OK)
        return tlm_error_set(err, st, in->path, -1,
                             "out of memory keeping report tables");
    return TLM_OK;
}

/* The write hook: /ops/per_rank, /ops/merged, /ops/unique_args,
 * /kernels. */
static tlm_status merge_h5(tlm_mpi_ctx *c, void **sp, tlm_mpi_h5rows *h,
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
                          tlm_mpi_results *r)
{
    (void)sp;
    r->ops = c->mops;
    r->n_ops = c->n_mops;
}

/* The free hook. */
static void merge_free(tlm_mpi_ctx *c, void **sp)
{
    (void)sp;
    free(c->rt.ops);
    free(c->rt.ua);
    free(c->rt.kn);
    memset(&c->rt, 0, sizeof c->rt);
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
