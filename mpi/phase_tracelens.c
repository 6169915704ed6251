/*
 * phase_tracelens.c - the TraceLens parity tables of the multi-rank
 * collective report (nccl_implicit_sync, nccl_long, their summaries and
 * straggler_summary), computed like the collective phase: every rank
 * votes on TraceLens's simplified mode (no process group names anywhere),
 * records go to their TraceLens owner key, owners match them, rank 0
 * gathers the rows in canonical order and summarises them.  One module of
 * the driver (module.h, its row tlm_mpi_mod_tracelens at the end); its
 * tables live in tlm_mpi_ctx.k beside the collectives'.
 */
#include "driver.h"
#include "module.h"

#include <stdlib.h>
#include <string.h>

#include "exchange.h"

static int cmp_tl_long(const void *a, const void *b)
{
    const tlm_out_tl_long *x = a, *y = b;
    if (x->row.rank != y->row.rank)
        return x->row.rank < y->row.rank ? -1 : 1;
    return x->row.event_index < y->row.event_index
               ? -1
               : (x->row.event_index > y->row.event_index);
}

/* Simplified-mode vote: per trace, OR over all ranks. */
static int vote_simplified(const tlm_mpi_ctx *c)
{
    tlm_coll_tl_vote v = {0, 0};
    size_t i0 = 0;
    while (i0 < c->n_recs) {
        size_t i1 = i0;
        while (i1 < c->n_recs &&
               c->recs[i1].trace_rank == c->recs[i0].trace_rank)
            i1++;
        tlm_coll_tl_vote_records(c->recs + i0, i1 - i0, &v);
        i0 = i1;
    }
    int32_t lv[2] = {v.any_pg ? 1 : 0, v.multi_stream ? 1 : 0}, gv[2];
    MPI_Allreduce(lv, gv, 2, MPI_INT32_T, MPI_MAX, c->comm);
    v.any_pg = gv[0];
    v.multi_stream = gv[1];
    return tlm_coll_tl_simplified(&v);
}

/* An nccl_long row with the fields of its record that TraceLens prints
 * next to it ("" / -1 where TraceLens has None). */
static void long_row(const tlm_coll_tl_long_row *row,
                     const tlm_coll_record *r, tlm_out_tl_long *e)
{
    e->row = *row;
    int km = (r->flags & TLM_COLL_REC_KMETA) != 0;
    int kpg = (r->flags & TLM_COLL_REC_KPG) != 0;
    tlm_strnset(e->pg_ranks, sizeof e->pg_ranks,
                    kpg ? r->pg_ranks_text : "", sizeof r->pg_ranks_text);
    tlm_strnset(e->coll_name, sizeof e->coll_name,
                    km ? r->coll_name : "", sizeof r->coll_name);
    tlm_strnset(e->dtype, sizeof e->dtype, km ? r->dtype_name : "",
                    sizeof r->dtype_name);
    tlm_strnset(e->in_split, sizeof e->in_split, r->in_split,
                    sizeof r->in_split);
    tlm_strnset(e->out_split, sizeof e->out_split, r->out_split,
                    sizeof r->out_split);
    e->group_size = km ? r->group_size : -1;
    e->in_nelems = km ? r->in_nelems : -1;
    e->out_nelems = km ? r->out_nelems : -1;
    e->stream = r->stream;
}

/* The trace ranks of c->res, in order (n_res entries; NULL: out of
 * memory): the ranks beside the arrays that follow the traces found. */
static int32_t *res_ranks(const tlm_mpi_ctx *c)
{
    int32_t *rk = malloc((c->n_res ? c->n_res : 1) * sizeof *rk);
    for (size_t i = 0; rk && i < c->n_res; i++)
        rk[i] = c->res[i].row.trace_rank;
    return rk;
}

/* Adds the local traces' NCCL durations into rdur (rdur[i]: the trace of
 * c->res[i], whose rank is rk[i]), routes the
 * records to their TraceLens owners and releases them (their last use:
 * memory stays bounded by one copy), matches them there (*tr, rows of
 * rr) and gathers the sync, member and long rows on rank 0. */
static tlm_status match_and_gather(tlm_mpi_ctx *c, tlm_coll_tl_result *tr,
                                   const int32_t *rk, double *rdur,
                                   tlm_error *err)
{
    tlm_mpi_colls *k = &c->k;
    tlm_status st = TLM_OK;
    void *rr = NULL, *tmp = NULL;
    size_t n_rr = 0;
    tlm_out_tl_long *ext = NULL;
    int *dest = malloc((c->n_recs ? c->n_recs : 1) * sizeof *dest);
    TLM_MPI_CHECK(dest && rk && rdur ? TLM_OK : TLM_ENOMEM);
    tlm_coll_tl_rank_dur_by(c->recs, c->n_recs, rk, rdur, c->n_res);
    for (size_t i = 0; i < c->n_recs; i++)
        dest[i] = (int)(tlm_coll_record_tl_owner_key(&c->recs[i],
                                                     k->simplified) %
                        (uint64_t)c->np);
    TLM_MPI_CHECK(tlm_mpi_route(c->recs, c->n_recs, sizeof *c->recs, dest,
                                c->comm, &rr, &n_rr, err));
    free(c->recs);
    c->recs = NULL;
    c->n_recs = 0;
    TLM_MPI_CHECK(tlm_coll_tl_match(rr, n_rr, k->simplified, NULL, tr, err));
    ext = calloc(tr->n_long ? tr->n_long : 1, sizeof *ext);
    TLM_MPI_CHECK(ext ? TLM_OK : TLM_ENOMEM);
    const tlm_coll_record *recs = rr;
    for (size_t i = 0; i < tr->n_long; i++)
        long_row(&tr->lng[i], &recs[tr->lng[i].record], &ext[i]);
    free(rr);
    rr = NULL;
    TLM_MPI_CHECK(tlm_mpi_gather(tr->sync, tr->n_sync, sizeof *tr->sync, 0,
                                 c->comm, &tmp, &k->n_tl_sync, err));
    k->tl_sync = tmp;
    tmp = NULL;
    TLM_MPI_CHECK(tlm_mpi_gather(tr->smem, tr->n_smem, sizeof *tr->smem, 0,
                                 c->comm, &tmp, &k->n_tl_smem, err));
    k->tl_smem = tmp;
    tmp = NULL;
    TLM_MPI_CHECK(tlm_mpi_gather(ext, tr->n_long, sizeof *ext, 0, c->comm,
                                 &tmp, &k->n_tl_long, err));
    k->tl_long = tmp;
done:
    free(dest);
    free(rr);
    free(ext);
    return st;
}

/* Total NCCL duration per rank (rdur: each trace added to its own entry,
 * summed on rank 0), then rank 0 sorts the rows and builds the summary and
 * straggler tables. */
static tlm_status summarise(tlm_mpi_ctx *c, const int32_t *rk,
                            const double *rdur, tlm_error *err)
{
    tlm_mpi_colls *k = &c->k;
    tlm_status st = TLM_OK;
    double *rdur0 = calloc(c->n_res ? c->n_res : 1, sizeof *rdur0);
    TLM_MPI_CHECK(rdur0 ? TLM_OK : TLM_ENOMEM);
    MPI_Reduce(rdur, rdur0, (int)c->n_res, MPI_DOUBLE, MPI_SUM, 0, c->comm);
    st = TLM_OK;
    if (c->me == 0) {
        /* TraceLens's order: rows as their ids first appear, members
         * row by row, "arrived last" ties by column order */
        st = tlm_coll_tl_order(k->tl_sync, k->n_tl_sync, k->tl_smem,
                               &k->n_tl_smem, NULL, err);
        if (k->n_tl_long)
            qsort(k->tl_long, k->n_tl_long, sizeof *k->tl_long, cmp_tl_long);
        if (st == TLM_OK)
            st = tlm_coll_tl_summary(k->tl_sync, k->n_tl_sync, NULL,
                                     &k->tl_sum, &k->n_tl_sum, err);
        if (st == TLM_OK && k->n_tl_sync > 0)
            st = tlm_coll_tl_straggler_by(k->tl_sync, k->n_tl_sync,
                                          k->tl_smem, k->n_tl_smem, rk,
                                          rdur0, c->n_res, NULL,
                                          &k->tl_strag, &k->n_tl_strag, err);
    }
    TLM_MPI_CHECK(st);
done:
    free(rdur0);
    return st;
}

/* The exchange hook: the phase. */
static tlm_status tracelens_phase(tlm_mpi_ctx *c, void **sp)
{
    (void)sp;
    tlm_error err;
    tlm_error_clear(&err);
    tlm_coll_tl_result tr;
    memset(&tr, 0, sizeof tr);
    c->k.simplified = vote_simplified(c);
    double *rdur = calloc(c->n_res ? c->n_res : 1, sizeof *rdur);
    int32_t *rk = res_ranks(c);
    tlm_status st = match_and_gather(c, &tr, rk, rdur, &err);
    tlm_coll_tl_result_free(&tr);
    if (st == TLM_OK)
        st = summarise(c, rk, rdur, &err);
    free(rdur);
    free(rk);
    return st;
}

/* What report.md and the CSVs show of the TraceLens tables. */
static void tracelens_results(const tlm_mpi_ctx *c, void *const *sp,
                              tlm_out_results *r)
{
    (void)sp;
    const tlm_mpi_colls *k = &c->k;
    r->tl_simplified = k->simplified;
    r->tl_sync = k->tl_sync;
    r->n_tl_sync = k->n_tl_sync;
    r->tl_smem = k->tl_smem;
    r->n_tl_smem = k->n_tl_smem;
    r->tl_long = k->tl_long;
    r->n_tl_long = k->n_tl_long;
    r->tl_sum = k->tl_sum;
    r->n_tl_sum = k->n_tl_sum;
    r->tl_strag = k->tl_strag;
    r->n_tl_strag = k->n_tl_strag;
}

const tlm_mpi_module tlm_mpi_mod_tracelens = {
    .name = "tracelens",
    .mark = TLM_MPI_T_COLLECTIVES,
    .exchange = tracelens_phase,
    .results = tracelens_results,
};
