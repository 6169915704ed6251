/*
 * cause.c - why the straggler is late, in the analysis driver
 * (cause_mpi.h, docs/straggler-causes.md): the windows kept while reading,
 * their route to the owners, the straggler broadcast, the owners' tables
 * merged on rank 0.  The numbers come from src/coll (coll_window.c,
 * coll_cause.c); this file only moves them.  Rank 0's rows and sentences
 * are src/out/cause.c.
 */
#include "cause_mpi.h"

#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "exchange.h"
#include "jobinfo.h"

tlm_status tlm_mpi_cause_keep(tlm_mpi_ctx *c, const tlm_trace *tr,
                              const tlm_coll_record *recs, size_t n,
                              tlm_error *err)
{
    tlm_coll_window *w = NULL;
    size_t nw = 0;
    tlm_status st = tlm_coll_windows(tr, recs, n, NULL, &w, &nw, err);
    if (st != TLM_OK || nw == 0) {
        tlm_coll_free(NULL, w);
        return st;
    }
    tlm_coll_window *nwin = realloc(c->wins, (c->n_wins + nw) * sizeof *nwin);
    if (!nwin) {
        tlm_coll_free(NULL, w);
        return tlm_error_set(err, TLM_ENOMEM, NULL, -1,
                             "out of memory keeping %zu collective windows",
                             nw);
    }
    memcpy(nwin + c->n_wins, w, nw * sizeof *w);
    c->wins = nwin;
    c->n_wins += nw;
    tlm_coll_free(NULL, w);
    return TLM_OK;
}

tlm_status tlm_mpi_cause_phase(tlm_mpi_ctx *c, tlm_error *err)
{
    tlm_mpi_colls *k = &c->k;
    tlm_status st = TLM_OK;
    void *tmp = NULL, *all = NULL;
    size_t n_rw = 0, n_all = 0;
    tlm_coll_cause_row *rows = NULL;
    size_t n_rows = 0;
    int *dest = malloc((c->n_wins ? c->n_wins : 1) * sizeof *dest);
    TLM_MPI_CHECK(dest ? TLM_OK : TLM_ENOMEM);
    for (size_t i = 0; i < c->n_wins; i++)
        dest[i] = (int)(c->wins[i].owner_key % (uint64_t)c->np);
    TLM_MPI_CHECK(tlm_mpi_route(c->wins, c->n_wins, sizeof *c->wins, dest,
                                c->comm, &tmp, &n_rw, err));
    free(c->wins);
    c->wins = NULL;
    c->n_wins = 0;
    int32_t s = TLM_OUT_NO_STRAGGLER;
    if (c->me == 0) {
        int64_t wait = 0;
        int32_t top = -1;
        s = tlm_out_straggler_pick(k->strag, k->n_strag,
                                   c->o.straggler_threshold_us, &wait, &top);
    }
    MPI_Bcast(&s, 1, MPI_INT32_T, 0, c->comm);
    TLM_MPI_CHECK(tlm_coll_cause_compute(k->mr.inst, k->mr.n_inst, k->mr.mem,
                                         k->mr.n_mem, tmp, n_rw, s, NULL,
                                         &rows, &n_rows, err));
    TLM_MPI_CHECK(tlm_mpi_gather(rows, n_rows, sizeof *rows, 0, c->comm,
                                 &all, &n_all, err));
    k->cause = all;
    k->n_cause = n_all;
    all = NULL;
    if (c->me == 0)
        tlm_coll_cause_merge(k->cause, &k->n_cause);
done:
    free(dest);
    free(tmp);
    free(all);
    tlm_coll_free(NULL, rows);
    return st;
}
