/*
 * job_merge.c - the per-trace report rows of a job put together, without
 * MPI: a process's rows of ops_summary, ops_unique_args and kernel_summary
 * (job_tables.c) in trace-rank order, ready for the segmented HDF5 write,
 * and every trace's ops merged by name (/ops/merged, report.md's top
 * ops), which the driver's merge module (mpi/phase_merge.c) does on rank 0
 * with the gathered rows, or, when every time is an exact integer, from
 * each process's parts (one row per op name), so that rank 0 holds no row
 * per trace.
 */
#include "job.h"

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

tlm_status tlm_job_merge_ops(tlm_row_op *all, size_t n,
                             tlm_row_op_merged **out, size_t *n_out)
{
    qsort(all, n, sizeof *all, cmp_op_name);
    tlm_row_op_merged *mops = calloc(n ? n : 1, sizeof *mops);
    size_t n_mops = 0;
    *out = mops;
    *n_out = 0;
    if (!mops)
        return TLM_ENOMEM;
    double total = 0;
    for (size_t i = 0; i < n; i++) {
        tlm_row_op_merged *m = n_mops ? &mops[n_mops - 1] : NULL;
        if (!m || strncmp(m->name, all[i].name, sizeof m->name) != 0) {
            m = &mops[n_mops++];
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
    for (size_t i = 0; i < n_mops; i++) {
        tlm_row_op_merged *m = &mops[i];
        m->mean_rank_ns = m->direct_kernel_ns / m->n_ranks;
        m->percent = total > 0 ? 100.0 * m->direct_kernel_ns / total : NAN;
    }
    if (n_mops > 1)
        qsort(mops, n_mops, sizeof *mops, cmp_mop);
    *n_out = n_mops;
    return TLM_OK;
}


/* Exact integer times: magnitudes of at most 2^52, so that every partial
 * sum in any order below that bound is exact in a double. */
#define EXACT_MAX 4503599627370496.0

/* Is v (a time, NaN read as 0) an integer of at most EXACT_MAX? */
static int exact_time(double v)
{
    return fabs(v) <= EXACT_MAX && v == trunc(v);
}

/* qsort order of row pointers: name, then trace rank. */
static int cmp_op_ptr(const void *a, const void *b)
{
    return cmp_op_name(*(const tlm_row_op *const *)a,
                       *(const tlm_row_op *const *)b);
}

/* Folds row r (of trace rank r->trace_rank) into part p (a new part when
 * fresh). */
static void part_add(tlm_job_op_part *p, const tlm_row_op *r, int fresh)
{
    double d = nz(r->direct_kernel_ns), s = nz(r->subtree_kernel_ns);
    if (fresh) {
        memset(p, 0, sizeof *p);
        memcpy(p->m.name, r->name, sizeof p->m.name);
        memcpy(p->m.categories, r->categories, sizeof p->m.categories);
        p->cat_rank = r->trace_rank;
        p->exact = 1;
        p->m.min_rank_ns = INFINITY;
        p->m.max_rank_ns = -INFINITY;
    }
    p->m.n_ranks++;
    p->m.count += r->count > 0 ? r->count : 0;
    if (!exact_time(d) || !exact_time(s))
        p->exact = 0;
    else {
        p->direct_sum += (int64_t)d;
        p->subtree_sum += (int64_t)s;
    }
    p->direct_abs += fabs(d);
    p->subtree_abs += fabs(s);
    if (d < p->m.min_rank_ns) {
        p->m.min_rank_ns = d;
        p->m.min_rank = r->trace_rank;
    }
    if (d > p->m.max_rank_ns) {
        p->m.max_rank_ns = d;
        p->m.max_rank = r->trace_rank;
    }
}

tlm_status tlm_job_op_parts(const tlm_row_op *ops, size_t n,
                            tlm_job_op_part **out, size_t *n_out,
                            int *exact)
{
    const tlm_row_op **by = malloc((n ? n : 1) * sizeof *by);
    tlm_job_op_part *parts = calloc(n ? n : 1, sizeof *parts);
    *out = NULL;
    *n_out = 0;
    *exact = 1;
    if (!by || !parts) {
        free(by);
        free(parts);
        return TLM_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        by[i] = &ops[i];
    qsort(by, n, sizeof *by, cmp_op_ptr);
    size_t np = 0;
    for (size_t i = 0; i < n; i++) {
        int fresh = np == 0 || strncmp(parts[np - 1].m.name, by[i]->name,
                                       sizeof parts[0].m.name) != 0;
        if (fresh)
            np++;
        part_add(&parts[np - 1], by[i], fresh);
    }
    for (size_t i = 0; i < np; i++)
        *exact &= parts[i].exact && parts[i].direct_abs <= EXACT_MAX &&
                  parts[i].subtree_abs <= EXACT_MAX;
    free(by);
    *out = parts;
    *n_out = np;
    return TLM_OK;
}

/* qsort order of parts: name, then lowest trace rank. */
static int cmp_part(const void *a, const void *b)
{
    const tlm_job_op_part *x = a, *y = b;
    int cmp = strncmp(x->m.name, y->m.name, sizeof x->m.name);
    if (cmp)
        return cmp;
    return (x->cat_rank > y->cat_rank) - (x->cat_rank < y->cat_rank);
}

/* Folds part q into the merged row m (its first part when fresh); ties
 * of the minimum and maximum go to the lower rank, as in the row order. */
static void part_fold(tlm_job_op_part *m, const tlm_job_op_part *q,
                      int fresh)
{
    if (fresh) {
        *m = *q;
        return;
    }
    m->m.n_ranks += q->m.n_ranks;
    m->m.count += q->m.count;
    m->direct_sum += q->direct_sum;
    m->subtree_sum += q->subtree_sum;
    m->direct_abs += q->direct_abs;
    m->subtree_abs += q->subtree_abs;
    if (q->m.min_rank_ns < m->m.min_rank_ns ||
        (q->m.min_rank_ns == m->m.min_rank_ns &&
         q->m.min_rank < m->m.min_rank)) {
        m->m.min_rank_ns = q->m.min_rank_ns;
        m->m.min_rank = q->m.min_rank;
    }
    if (q->m.max_rank_ns > m->m.max_rank_ns ||
        (q->m.max_rank_ns == m->m.max_rank_ns &&
         q->m.max_rank < m->m.max_rank)) {
        m->m.max_rank_ns = q->m.max_rank_ns;
        m->m.max_rank = q->m.max_rank;
    }
}

tlm_status tlm_job_op_parts_merge(tlm_job_op_part *all, size_t n,
                                  tlm_row_op_merged **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    double abs_total = 0;
    for (size_t i = 0; i < n; i++) {
        if (!all[i].exact)
            return TLM_EINVAL;
        abs_total += all[i].direct_abs + all[i].subtree_abs;
    }
    if (abs_total > EXACT_MAX)
        return TLM_EINVAL; /* a sum (the total too) might round */
    qsort(all, n, sizeof *all, cmp_part);
    size_t nm = 0;
    for (size_t i = 0; i < n; i++) {
        int fresh = nm == 0 || strncmp(all[nm - 1].m.name, all[i].m.name,
                                       sizeof all[0].m.name) != 0;
        if (fresh)
            nm++;
        part_fold(&all[nm - 1], &all[i], fresh);
    }
    tlm_row_op_merged *mops = calloc(nm ? nm : 1, sizeof *mops);
    if (!mops)
        return TLM_ENOMEM;
    int64_t total = 0;
    for (size_t i = 0; i < nm; i++)
        total += all[i].direct_sum;
    for (size_t i = 0; i < nm; i++) {
        tlm_row_op_merged *m = &mops[i];
        *m = all[i].m;
        m->direct_kernel_ns = (double)all[i].direct_sum;
        m->subtree_kernel_ns = (double)all[i].subtree_sum;
        m->mean_rank_ns = m->direct_kernel_ns / m->n_ranks;
        m->percent = total > 0 ? 100.0 * m->direct_kernel_ns / (double)total
                               : NAN;
    }
    if (nm > 1)
        qsort(mops, nm, sizeof *mops, cmp_mop);
    *out = mops;
    *n_out = nm;
    return TLM_OK;
}
