/*
 * phase_read.c - every rank reads the traces assigned to it (trace.c does
 * one, src/job/job_trace.c, and hands it to each module's collect hooks),
 * in list order.  Unless --quiet, each finished trace is reported to
 * rank 0 (a small message: its size and status), which counts traces,
 * bytes and the ranks that are done and hands them to its progress
 * display (progress.c: a line on a terminal, plain lines with --progress).
 * Reading never fails the job here: a bad trace is recorded in its result
 * and named by the check phase.
 */
#include "driver.h"
#include "module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exchange.h"

#define TAG_PROGRESS 4242

/* Rank 0's view of the reading: traces and bytes read, and per MPI rank
 * the traces it has still to read (from the assignment every rank has). */
typedef struct progress {
    size_t done, total;
    uint64_t bytes;
    int *left;               /* per MPI rank; NULL: ranks not counted */
    int ranks_done;
} progress;

static void progress_init(const tlm_mpi_ctx *c, progress *p)
{
    memset(p, 0, sizeof *p);
    p->total = c->fl.n;
    if (c->me != 0 || c->o.quiet)
        return;
    p->left = calloc((size_t)c->np, sizeof *p->left);
    if (!p->left)
        return; /* the display goes on without the rank count */
    for (size_t i = 0; i < c->fl.n; i++)
        p->left[c->owner[i]]++;
    for (int r = 0; r < c->np; r++)
        p->ranks_done += p->left[r] == 0;
}

/* Rank 0: one more trace read, by MPI rank src, of the given size. */
static void progress_add(const tlm_mpi_ctx *c, progress *p, int src,
                         uint64_t bytes)
{
    p->done++;
    p->bytes += bytes;
    if (p->left && src >= 0 && src < c->np && p->left[src] > 0 &&
        --p->left[src] == 0)
        p->ranks_done++;
    tlm_cli_progress_files(c->prog, p->done, p->total, p->bytes,
                           p->left ? p->ranks_done : 0,
                           p->left ? c->np : 0, tlm_mpi_now(),
                           p->done == p->total);
}

/* Rank 0: counts the progress messages that arrived (block: until every
 * trace is done). */
static void progress_drain(const tlm_mpi_ctx *c, progress *p, int block)
{
    while (p->done < p->total) {
        int flag = 0;
        MPI_Status ms;
        if (block) {
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
        progress_add(c, p, ms.MPI_SOURCE, (uint64_t)msg[0]);
    }
}

/* The collect callback of the reader: each module's hook of that kind
 * (on_tree, on_trace) in table order; the first failure ends it. */
static tlm_status collect(void *arg, int when, const tlm_job_trace_in *in,
                          tlm_error *err)
{
    tlm_mpi_ctx *c = arg;
    size_t nm = c->n_mods;
    const tlm_mpi_module *const *m = c->mods;
    tlm_status st = TLM_OK;
    for (size_t i = 0; st == TLM_OK && i < nm; i++) {
        tlm_status (*hook)(tlm_mpi_ctx *, void **, const tlm_job_trace_in *,
                           tlm_error *) =
            when == TLM_JOB_ON_TREE ? m[i]->on_tree : m[i]->on_trace;
        if (hook && tlm_mpi_module_on(m[i], c))
            st = hook(c, &c->mstate[i], in, err);
    }
    return st;
}

void tlm_mpi_read_trace(tlm_mpi_ctx *c, size_t fi, tlm_job_fileres *fr)
{
    char msg[TLM_JOB_MSG_CAP];
    msg[0] = '\0';
    tlm_job_reader rd = {&c->o,   &c->fl, c->me, &c->rt,
                         collect, c,      msg,   sizeof msg};
    tlm_job_read_trace(&rd, fi, fr);
    tlm_mpi_rows_pack(c, fr, msg, sizeof msg);
    /* the message of a failed file stays here (c->lmsg, parallel to
     * c->lres); the all-gathered results do not carry it */
    size_t k = (size_t)(fr - c->lres);
    if (fr->status != TLM_OK && c->lmsg && k < c->fl.n) {
        size_t len = strlen(msg);
        c->lmsg[k] = malloc(len + 1);
        if (c->lmsg[k])
            memcpy(c->lmsg[k], msg, len + 1);
    }
}

tlm_status tlm_mpi_phase_read(tlm_mpi_ctx *c)
{
    size_t n = 0;
    for (size_t i = 0; i < c->fl.n; i++)
        n += c->owner[i] == c->me;
    tlm_mpi_heap_bound(n);
    c->lres = calloc(n ? n : 1, sizeof *c->lres);
    c->lmsg = calloc(n ? n : 1, sizeof *c->lmsg);
    tlm_status st = tlm_mpi_agree(c->lres && c->lmsg ? TLM_OK : TLM_ENOMEM,
                                  c->comm);
    if (st != TLM_OK) {
        tlm_mpi_say0(c, "error: out of memory");
        return st;
    }
    /* every rank knows --quiet; only rank 0 knows how it shows progress */
    int show = !c->o.quiet;
    progress p;
    progress_init(c, &p);
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
            progress_add(c, &p, 0, (uint64_t)c->fl.size[i]);
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
    free(p.left);
    return TLM_OK;
}
