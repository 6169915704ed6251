/*
 * phase_read.c - every rank reads the traces assigned to it (trace.c does
 * one), in list order.  Unless --quiet, each finished trace is reported to
 * rank 0 (a small message: its size and status), which prints a progress
 * line at most once a second and at the end.  Reading never fails the job
 * here: a bad trace is recorded in its result and named by the check
 * phase.
 */
#include "driver.h"

#include <stdio.h>
#include <stdlib.h>

#include "exchange.h"

#define TAG_PROGRESS 4242

typedef struct progress {
    size_t done, total;
    uint64_t bytes;
    double last;
} progress;

static void progress_print(const tlm_mpi_ctx *c, progress *p, int force)
{
    double t = tlm_mpi_now();
    if (!force && t - p->last < 1.0)
        return;
    p->last = t;
    double el = t - c->t0;
    fprintf(stderr,
            "tlmpi: %zu/%zu traces read, %.1f MB on disk, %.1f MB/s\n",
            p->done, p->total, (double)p->bytes / 1e6,
            el > 0 ? (double)p->bytes / 1e6 / el : 0.0);
    fflush(stderr);
}

/* Rank 0: counts the progress messages that arrived (block: until every
 * trace is done). */
static void progress_drain(const tlm_mpi_ctx *c, progress *p, int block)
{
    for (;;) {
        int flag = 0;
        MPI_Status ms;
        if (block && p->done < p->total) {
            MPI_Probe(MPI_ANY_SOURCE, TAG_PROGRESS, c->comm, &ms);
            flag = 1;
        } else {
            MPI_Iprobe(MPI_ANY_SOURCE, TAG_PROGRESS, c->comm, &flag, &ms);
        }
        if (!flag)
            return;
        int64_t msg[2];
        MPI_Recv(msg, 2, MPI_INT64_T, ms.MPI_SOURCE, TAG_PROGRESS, c->comm,
                 MPI_STATUS_IGNORE);
        p->done++;
        p->bytes += (uint64_t)msg[0];
        progress_print(c, p, p->done == p->total);
        if (p->done >= p->total)
            return;
    }
}

tlm_status tlm_mpi_phase_read(tlm_mpi_ctx *c)
{
    size_t n = 0;
    for (size_t i = 0; i < c->fl.n; i++)
        n += c->owner[i] == c->me;
    tlm_mpi_heap_bound(n);
    c->lres = calloc(n ? n : 1, sizeof *c->lres);
    tlm_status st = tlm_mpi_agree(c->lres ? TLM_OK : TLM_ENOMEM, c->comm);
    if (st != TLM_OK) {
        tlm_mpi_say0(c, "error: out of memory");
        return st;
    }
    int show = !c->o.quiet;
    progress p = {0, c->fl.n, 0, tlm_mpi_now()};
    int64_t (*msgs)[2] = show && c->me != 0 ? calloc(n ? n : 1, sizeof *msgs)
                                            : NULL;
    MPI_Request *reqs = show && c->me != 0 ? calloc(n ? n : 1, sizeof *reqs)
                                           : NULL;
    int can_send = !show || c->me == 0 || (msgs && reqs);
    size_t k = 0;
    /* own files in list order (the assignment balanced their sizes) */
    for (size_t i = 0; i < c->fl.n; i++) {
        if (c->owner[i] != c->me)
            continue;
        tlm_mpi_read_trace(c, i, &c->lres[k]);
        c->bytes_read += (uint64_t)c->fl.size[i];
        if (show && c->me == 0) {
            p.done++;
            p.bytes += (uint64_t)c->fl.size[i];
            progress_print(c, &p, p.done == p.total);
            progress_drain(c, &p, 0);
        } else if (show && can_send) {
            msgs[k][0] = c->fl.size[i];
            msgs[k][1] = c->lres[k].status;
            MPI_Isend(msgs[k], 2, MPI_INT64_T, 0, TAG_PROGRESS, c->comm,
                      &reqs[k]);
        } else if (show) {
            /* no memory for messages: send blocking */
            int64_t one[2] = {c->fl.size[i], c->lres[k].status};
            MPI_Send(one, 2, MPI_INT64_T, 0, TAG_PROGRESS, c->comm);
        }
        k++;
    }
    c->n_lres = k;
    if (show && c->me == 0)
        progress_drain(c, &p, 1);
    else if (show && can_send && k > 0)
        MPI_Waitall((int)k, reqs, MPI_STATUSES_IGNORE);
    free(msgs);
    free(reqs);
    return TLM_OK;
}
