/*
 * phase_check.c - the check phase: every rank gets every file's result
 * (all-gather) and checks the set of traces the same way
 * (src/job/job_check.c), so every rank decides alike without another
 * message; rank 0 says what is wrong.  The results travel without a
 * failed file's message: rank 0 fetches the few it names (fetch_bad).
 * The results stay sorted by trace rank: a rank's position there (binary
 * search, tlm_mpi_rank_pos) indexes every per-trace array, which are
 * sized by the number of traces, never by a rank or the world size.
 */
#include "driver.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "exchange.h"

/* The say callback of the checks: rank 0's messages. */
static void say(void *arg, const char *fmt, va_list ap)
{
    const tlm_mpi_ctx *c = arg;
    if (c->me != 0)
        return;
    char msg[2048];
    vsnprintf(msg, sizeof msg, fmt, ap);
    tlm_mpi_say0(c, "%s", msg);
}

/* What the checks of src/job see of c. */
static tlm_job_check check_of(tlm_mpi_ctx *c)
{
    tlm_job_check k = {c->res, c->n_res, &c->o, &c->fl, say, c, NULL, 0};
    return k;
}

/* The message of a failed file on its way to rank 0. */
typedef struct bad_msg {
    int64_t file_idx;
    char msg[TLM_JOB_MSG_CAP];
} bad_msg;

/* This process's message of file file_idx ("" when none kept). */
static const char *local_msg(const tlm_mpi_ctx *c, int64_t file_idx)
{
    for (size_t k = 0; k < c->n_lres; k++)
        if (c->lres[k].file_idx == file_idx)
            return c->lmsg && c->lmsg[k] ? c->lmsg[k] : "";
    return "";
}

/* Rank 0 gets the messages of the first TLM_JOB_LIST_MAX bad files of
 * c->res (sorted by file), the ones tlm_job_name_bad prints, from the
 * processes that read them: at most TLM_JOB_LIST_MAX x TLM_JOB_MSG_CAP
 * bytes, whatever the number of files.  *all (rank 0) is in file order;
 * collective, called only when a file is bad (every process knows). */
static tlm_status fetch_bad(const tlm_mpi_ctx *c, bad_msg **all,
                            size_t *n_all, tlm_error *err)
{
    bad_msg *mine = calloc(TLM_JOB_LIST_MAX, sizeof *mine);
    size_t n = 0, seen = 0;
    for (size_t i = 0; mine && i < c->n_res && seen < TLM_JOB_LIST_MAX;
         i++) {
        const tlm_job_fileres *r = &c->res[i];
        if (r->status == TLM_OK)
            continue;
        seen++;
        if (r->owner != c->me)
            continue;
        mine[n].file_idx = r->file_idx;
        tlm_strset(mine[n].msg, sizeof mine[n].msg,
                   local_msg(c, r->file_idx));
        n++;
    }
    void *got = NULL;
    tlm_status st = tlm_mpi_gather(mine, n, sizeof *mine, 0, c->comm, &got,
                                   n_all, err);
    free(mine);
    *all = got;
    return st;
}

/* Rank 0: the fetched messages in the order tlm_job_name_bad names the
 * bad files (ptr[k]: the k-th bad file's, NULL when none came). */
static size_t order_bad(const tlm_mpi_ctx *c, const bad_msg *all,
                        size_t n_all, const char **ptr)
{
    size_t k = 0;
    for (size_t i = 0; i < c->n_res && k < TLM_JOB_LIST_MAX; i++) {
        if (c->res[i].status == TLM_OK)
            continue;
        ptr[k] = NULL;
        for (size_t j = 0; j < n_all; j++)
            if (all[j].file_idx == c->res[i].file_idx && all[j].msg[0])
                ptr[k] = all[j].msg;
        k++;
    }
    return k;
}

/* All-gathers the per-file results into c->res; names every bad trace. */
static tlm_status gather_results(tlm_mpi_ctx *c)
{
    tlm_error err;
    tlm_error_clear(&err);
    void *all = NULL;
    size_t n_all = 0;
    tlm_status st = tlm_mpi_allgather(c->lres, c->n_lres,
                                      sizeof(tlm_job_fileres), c->comm, &all,
                                      &n_all, &err);
    if (st != TLM_OK) {
        tlm_mpi_say0(c, "error: %s", err.msg);
        return st;
    }
    c->res = all;
    c->n_res = n_all;
    tlm_job_sort_by_file(c->res, c->n_res);
    tlm_job_check k = check_of(c);
    size_t n_bad = 0;
    for (size_t i = 0; i < c->n_res; i++)
        n_bad += c->res[i].status != TLM_OK;
    bad_msg *bm = NULL;
    size_t n_bm = 0;
    const char *ptr[TLM_JOB_LIST_MAX];
    if (n_bad && fetch_bad(c, &bm, &n_bm, &err) == TLM_OK) {
        k.bad_msg = ptr;
        k.n_bad_msg = order_bad(c, bm, n_bm, ptr);
    }
    if (n_bad)
        n_bad = tlm_job_name_bad(&k);
    free(bm);
    if (n_bad) {
        /* the closing line of the errors above: printed with them, also
         * under --quiet */
        int q = c->say_quiet;
        c->say_quiet = 0;
        tlm_mpi_say0(c, "%zu of %zu traces could not be analysed; no output "
                        "written", n_bad, n_all);
        c->say_quiet = q;
        return TLM_EFORMAT;
    }
    return TLM_OK;
}

int64_t tlm_mpi_rank_pos(const tlm_mpi_ctx *c, int64_t r)
{
    return tlm_job_rank_pos(c->res, c->n_res, r);
}

tlm_status tlm_mpi_phase_check(tlm_mpi_ctx *c)
{
    tlm_status st = gather_results(c);
    if (st != TLM_OK)
        return st;
    tlm_job_sort_by_rank(c->res, c->n_res);
    /* GPUs per node: the option, else deviceProperties (TraceLens's
     * rule); the phases after this one read it from c->o */
    c->o.gpus_per_node = tlm_job_gpus_per_node(
        c->res, c->n_res, c->o.gpus_per_node, &c->gpn_source);
    tlm_job_check k = check_of(c);
    tlm_job_warn_traces(&k);
    tlm_job_warn_order_ranks(&k);
    st = tlm_job_check_duplicates(&k);
    if (st != TLM_OK)
        return st;
    int64_t w = 0;
    const char *wsrc = NULL;
    st = tlm_job_world_size(&k, &w, &wsrc);
    if (st == TLM_OK)
        st = tlm_job_check_missing(&k, w, wsrc);
    if (st == TLM_OK) {
        /* the world size and the span of the ranks found; the traces are
         * indexed by their position in c->res, never by rank */
        c->world = w;
        c->nspan = c->n_res
                       ? (int64_t)c->res[c->n_res - 1].row.trace_rank + 1
                       : 0;
    }
    return st;
}
