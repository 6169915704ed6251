/*
 * job_merge.c - the per-trace report rows of a job put together, without
 * MPI: a process's rows of ops_summary, ops_unique_args and kernel_summary
 * (job_tables.c) in trace-rank order, ready for the segmented HDF5 write,
 * and every trace's ops merged by name (/ops/merged, report.md's top
 * ops), which the driver's merge module (mpi/phase_merge.c) does on rank 0
 * from every process's rows streamed to it in (name, trace rank) order
 * (tlm_job_merger_*: one row at a time, the same sums in the same order),
 * so that rank 0 holds no row per trace.
 */
#include "job.h"
#include "grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* qsort order of results: trace rank. */
static int cmp_lres_rank(const void *a, const void *b)
{
    const tlm_job_fileres *x = *(const tlm_job_fileres *const *)a;
    const tlm_job_fileres *y = *(const tlm_job_fileres *const *)b;
    return x->row.trace_rank - y->row.trace_rank;
}

/* Concatenates the rows of table k (TLM_JOB_SPAN_*) of the local traces in
 * trace-rank order. */
static void *order_rows(size_t n_lres,
                        const tlm_job_fileres *const *by_rank, int k,
                        const void *base, size_t n, size_t sz)
{
    char *out = malloc(n ? n * sz : 1);
    if (!out)
        return NULL;
    size_t at = 0;
    for (size_t i = 0; i < n_lres; i++) {
        const int64_t *sp = by_rank[i]->span[k];
        if (sp[1] == 0)
            continue; /* base may be NULL when there are no rows */
        memcpy(out + at * sz, (const char *)base + (size_t)sp[0] * sz,
               (size_t)sp[1] * sz);
        at += (size_t)sp[1];
    }
    return out;
}

tlm_status tlm_job_order_rows(const tlm_job_fileres *lres, size_t n_lres,
                              const tlm_job_rtabs *rt, tlm_row_op **ops,
                              tlm_row_uargs **ua, tlm_row_kernel **kn)
{
    const tlm_job_fileres **by = malloc((n_lres ? n_lres : 1) * sizeof *by);
    if (by) {
        for (size_t i = 0; i < n_lres; i++)
            by[i] = &lres[i];
        qsort(by, n_lres, sizeof *by, cmp_lres_rank);
        *ops = order_rows(n_lres, by, TLM_JOB_SPAN_OPS, rt->ops, rt->n_ops,
                          sizeof *rt->ops);
        *ua = order_rows(n_lres, by, TLM_JOB_SPAN_UARGS, rt->ua, rt->n_ua,
                         sizeof *rt->ua);
        *kn = order_rows(n_lres, by, TLM_JOB_SPAN_KERNELS, rt->kn, rt->n_kn,
                         sizeof *rt->kn);
    }
    tlm_status st = by && *ops && *ua && *kn ? TLM_OK : TLM_ENOMEM;
    free(by);
    return st;
}

/* qsort order of op rows: name, then trace rank. */
static int cmp_op_name(const void *a, const void *b)
{
    const tlm_row_op *x = a, *y = b;
    int cmp = strncmp(x->name, y->name, sizeof x->name);
    if (cmp)
        return cmp;
    return x->trace_rank - y->trace_rank;
}

/* qsort order of merged ops: direct kernel time descending, name. */
static int cmp_mop(const void *a, const void *b)
{
    const tlm_row_op_merged *x = a, *y = b;
    if (x->direct_kernel_ns != y->direct_kernel_ns)
        return x->direct_kernel_ns > y->direct_kernel_ns ? -1 : 1;
    return strncmp(x->name, y->name, sizeof x->name);
}

/* NaN as 0. */
static double nz(double v)
{
    return isnan(v) ? 0.0 : v;
}

void tlm_job_merger_init(tlm_job_op_merger *g)
{
    memset(g, 0, sizeof *g);
}

tlm_status tlm_job_merger_add(tlm_job_op_merger *g, const tlm_row_op *r)
{
    tlm_row_op_merged *m = g->n ? &g->m[g->n - 1] : NULL;
    if (!m || strncmp(m->name, r->name, sizeof m->name) != 0) {
        if (tlm_grow((void **)&g->m, &g->cap, g->n + 1, sizeof *g->m, 64))
            return TLM_ENOMEM;
        m = &g->m[g->n++];
        memset(m, 0, sizeof *m);
        memcpy(m->name, r->name, sizeof m->name);
        memcpy(m->categories, r->categories, sizeof m->categories);
        m->min_rank_ns = INFINITY;
        m->max_rank_ns = -INFINITY;
    }
    double d = nz(r->direct_kernel_ns);
    m->n_ranks++;
    m->count += r->count > 0 ? r->count : 0;
    m->direct_kernel_ns += d;
    m->subtree_kernel_ns += nz(r->subtree_kernel_ns);
    if (d < m->min_rank_ns) {
        m->min_rank_ns = d;
        m->min_rank = r->trace_rank;
    }
    if (d > m->max_rank_ns) {
        m->max_rank_ns = d;
        m->max_rank = r->trace_rank;
    }
    g->total += d;
    return TLM_OK;
}

tlm_status tlm_job_merger_finish(tlm_job_op_merger *g,
                                 tlm_row_op_merged **out, size_t *n_out)
{
    for (size_t i = 0; i < g->n; i++) {
        tlm_row_op_merged *m = &g->m[i];
        m->mean_rank_ns = m->direct_kernel_ns / m->n_ranks;
        m->percent = g->total > 0 ? 100.0 * m->direct_kernel_ns / g->total
                                  : NAN;
    }
    if (g->n > 1)
        qsort(g->m, g->n, sizeof *g->m, cmp_mop);
    *out = g->m ? g->m : calloc(1, sizeof **out);
    *n_out = g->n;
    memset(g, 0, sizeof *g);
    return *out ? TLM_OK : TLM_ENOMEM;
}

int tlm_job_op_before(const tlm_row_op *a, const tlm_row_op *b)
{
    return cmp_op_name(a, b) < 0;
}

tlm_status tlm_job_merge_ops(tlm_row_op *all, size_t n,
                             tlm_row_op_merged **out, size_t *n_out)
{
    qsort(all, n, sizeof *all, cmp_op_name);
    tlm_job_op_merger g;
    tlm_job_merger_init(&g);
    *out = NULL;
    *n_out = 0;
    for (size_t i = 0; i < n; i++)
        if (tlm_job_merger_add(&g, &all[i]) != TLM_OK) {
            free(g.m);
            return TLM_ENOMEM;
        }
    return tlm_job_merger_finish(&g, out, n_out);
}
