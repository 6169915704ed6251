/*
 * exposed.c - each rank's exposed communication split into exposed
 * transfer, exposed waiting and unknown (exposed_mpi.h): kept per trace
 * while reading, split on the MPI rank holding the trace once the owners
 * know every member's wait, the splits summed into every rank's copy of
 * the timeline rows (MPI_Allreduce).
 */
#include "exposed_mpi.h"

#include "driver.h"
#include "exchange.h"
#include "grow.h"
#include "tlmpi/tlm_report.h"
#include "tlmpi/tlm_trace.h"

#include <stdlib.h>
#include <string.h>

tlm_status tlm_mpi_exposed_keep(tlm_mpi_exposed **x,
                                const tlm_job_trace_in *in, tlm_error *err)
{
    if (!in->rep || !in->tree)
        return TLM_OK;
    if (!*x && !(*x = calloc(1, sizeof **x)))
        return tlm_error_set(err, TLM_ENOMEM, in->path, -1,
                             "out of memory keeping exposed communication");
    tlm_mpi_exposed *e = *x;
    tlm_report_opts ro;
    tlm_report_opts_init(&ro); /* the options job_trace.c's report has */
    const tlm_trace_meta *m = tlm_trace_meta_get(in->tr);
    int64_t base = m && m->has_base_time ? m->base_time_ns : 0;
    int64_t *iv = NULL;
    size_t n = 0;
    tlm_status st = tlm_gpu_exposed_comm_ns(
        in->tree, ro.include_unlinked_kernels, base, &iv, &n);
    if (st == TLM_OK &&
        tlm_grow((void **)&e->t, &e->cap, e->n + 1, sizeof *e->t, 8))
        st = TLM_ENOMEM;
    if (st != TLM_OK) {
        free(iv);
        return tlm_error_set(err, st, in->path, -1,
                             "out of memory keeping exposed communication");
    }
    e->t[e->n].trace_rank = in->fr->tl.trace_rank;
    e->t[e->n].iv = iv;
    e->t[e->n++].n = n;
    return TLM_OK;
}

static int cmp_span(const void *a, const void *b)
{
    const tlm_coll_xspan *x = a, *y = b;
    return (x->trace_rank > y->trace_rank) - (x->trace_rank < y->trace_rank);
}

/* Each kept trace's split into v (3 per trace of c->res, at its
 * position), from the spans sp[0..n) held here, sorted by rank. */
static tlm_status split_local(const tlm_mpi_ctx *c, const tlm_mpi_exposed *x,
                              const tlm_coll_xspan *sp, size_t n, int64_t *v)
{
    for (size_t i = 0; x && i < x->n; i++) {
        const struct tlm_mpi_xtrace *t = &x->t[i];
        int64_t at = tlm_mpi_rank_pos(c, t->trace_rank);
        if (at < 0)
            continue;
        size_t a = 0, b;
        while (a < n && sp[a].trace_rank < t->trace_rank)
            a++;
        for (b = a; b < n && sp[b].trace_rank == t->trace_rank; b++)
            ;
        tlm_coll_xsplit s;
        if (tlm_coll_exposed_split(t->iv, t->n, sp + a, b - a, &s) != TLM_OK)
            return TLM_ENOMEM;
        v[3 * at] = s.transfer_ns;
        v[3 * at + 1] = s.waiting_ns;
        v[3 * at + 2] = 1; /* split here */
    }
    return TLM_OK;
}

/* The splits into c->res[].tl: unknown is what transfer and waiting leave
 * of the row's exposed communication (its rounding included). */
static void set_rows(tlm_mpi_ctx *c, const int64_t *v)
{
    for (size_t i = 0; i < c->n_res; i++) {
        tlm_row_timeline *t = &c->res[i].tl;
        int64_t ex = t->exposed_comm_ns > 0 ? t->exposed_comm_ns : 0;
        int64_t tr = v[3 * i + 2] ? v[3 * i] : 0;
        int64_t wt = v[3 * i + 2] ? v[3 * i + 1] : 0;
        tr = tr < ex ? tr : ex;
        wt = wt < ex - tr ? wt : ex - tr;
        t->exposed_transfer_ns = tr;
        t->exposed_waiting_ns = wt;
        t->exposed_unknown_ns = ex - tr - wt;
    }
}

tlm_status tlm_mpi_exposed_phase(tlm_mpi_ctx *c, const tlm_mpi_exposed *x,
                                 const tlm_coll_xspan *sp, size_t n,
                                 const int *dest, tlm_error *err)
{
    tlm_status st = TLM_OK;
    void *tmp = NULL;
    size_t n_here = 0;
    int64_t *v = calloc(3 * (c->n_res ? c->n_res : 1), sizeof *v);
    TLM_MPI_CHECK(v ? TLM_OK : TLM_ENOMEM);
    TLM_MPI_CHECK(tlm_mpi_route(sp, n, sizeof *sp, dest, c->comm, &tmp,
                                &n_here, err));
    if (n_here)
        qsort(tmp, n_here, sizeof *sp, cmp_span);
    st = split_local(c, x, tmp, n_here, v);
    if (st != TLM_OK)
        tlm_error_set(err, st, NULL, -1,
                      "out of memory splitting exposed communication");
    TLM_MPI_CHECK(st);
    MPI_Allreduce(MPI_IN_PLACE, v, (int)(3 * c->n_res), MPI_INT64_T, MPI_SUM,
                  c->comm);
    set_rows(c, v);
done:
    free(tmp);
    free(v);
    return st;
}

void tlm_mpi_exposed_free(tlm_mpi_exposed **x)
{
    if (!*x)
        return;
    for (size_t i = 0; i < (*x)->n; i++)
        free((*x)->t[i].iv);
    free((*x)->t);
    free(*x);
    *x = NULL;
}
