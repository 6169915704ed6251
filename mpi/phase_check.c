/*
 * phase_check.c - every rank gets every file's result (all-gather) and
 * checks the set of traces the same way, so every rank decides alike
 * without another message: bad traces (each named by rank 0), the same
 * rank twice, the world size (--world_size, distributedInfo.world_size or
 * the highest rank) and ranks without a trace (an error unless
 * --allow_missing).  Then it indexes the traces by rank: which MPI rank
 * holds trace rank r, and where r is in the sorted results.
 */
#include "driver.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exchange.h"

/* Rank 0: one line per kind of odd input the traces had, with a count and
 * the first file (counts per trace are in /traces). */
static void warn_traces(const tlm_mpi_ctx *c, size_t n)
{
    static const struct {
        size_t off;
        const char *what;
    } kinds[] = {
        {offsetof(tlm_row_trace, n_bad_time),
         "events without a valid ts/dur (missing, or dur < 0) left out"},
        {offsetof(tlm_row_trace, n_flow_warnings),
         "ac2g flows pointing to no GPU event or missing a half"},
        {offsetof(tlm_row_trace, n_lone_surrogates),
         "lone surrogate escapes replaced by U+FFFD"},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        int64_t total = 0;
        size_t traces = 0;
        const char *first = NULL;
        for (size_t i = 0; i < n; i++) {
            int64_t v;
            memcpy(&v, (const char *)&c->res[i].row + kinds[k].off,
                   sizeof v);
            if (v > 0) {
                total += v;
                if (traces++ == 0)
                    first = c->res[i].row.file;
            }
        }
        if (traces > 0)
            tlm_mpi_say0(c, "warning: %lld %s, in %zu trace%s (first: %s)",
                         (long long)total, kinds[k].what, traces,
                         traces == 1 ? "" : "s", first);
    }
}

static int cmp_res(const void *a, const void *b)
{
    const tlm_mpi_fileres *x = a, *y = b;
    if (x->row.trace_rank != y->row.trace_rank)
        return x->row.trace_rank < y->row.trace_rank ? -1 : 1;
    return x->file_idx < y->file_idx ? -1 : (x->file_idx > y->file_idx);
}

/* All-gathers the per-file results into c->res; names every bad trace. */
static tlm_status gather_results(tlm_mpi_ctx *c)
{
    tlm_error err;
    tlm_error_clear(&err);
    void *all = NULL;
    size_t n_all = 0;
    tlm_status st = tlm_mpi_allgather(c->lres, c->n_lres,
                                      sizeof(tlm_mpi_fileres), c->comm, &all,
                                      &n_all, &err);
    if (st != TLM_OK) {
        tlm_mpi_say0(c, "error: %s", err.msg);
        return st;
    }
    c->res = all;
    c->n_res = n_all;
    size_t n_bad = 0;
    for (size_t i = 0; i < n_all; i++) {
        if (c->res[i].status != TLM_OK) {
            tlm_mpi_say0(c, "error: %s", c->res[i].msg);
            n_bad++;
        }
    }
    if (n_bad) {
        tlm_mpi_say0(c, "%zu of %zu traces could not be analysed; no output "
                        "written", n_bad, n_all);
        return TLM_EFORMAT;
    }
    return TLM_OK;
}

/* Names every trace rank that appears twice (c->res sorted by rank). */
static tlm_status check_duplicates(const tlm_mpi_ctx *c)
{
    size_t n_dup = 0;
    for (size_t i = 1; i < c->n_res; i++) {
        if (c->res[i].row.trace_rank == c->res[i - 1].row.trace_rank) {
            tlm_mpi_say0(c, "error: rank %d appears twice: %s and %s",
                         (int)c->res[i].row.trace_rank,
                         c->res[i - 1].row.file, c->res[i].row.file);
            n_dup++;
        }
    }
    return n_dup ? TLM_EMISMATCH : TLM_OK;
}

/* Without --world_size: the largest distributedInfo.world_size or the
 * highest rank + 1, with a warning when the traces disagree.  *wsrc says
 * where it came from. */
static int64_t guess_world(const tlm_mpi_ctx *c, int64_t maxr,
                           const char **wsrc)
{
    int64_t w = maxr + 1;
    *wsrc = "the highest trace rank";
    size_t at = 0;
    for (size_t i = 0; i < c->n_res; i++) {
        if (c->res[i].row.dist_world_size > w) {
            w = c->res[i].row.dist_world_size;
            *wsrc = "distributedInfo.world_size";
            at = i;
        }
    }
    for (size_t i = 0; i < c->n_res; i++) {
        int64_t dw = c->res[i].row.dist_world_size;
        if (dw > 0 && dw != w) {
            tlm_mpi_say0(c, "warning: traces disagree on world_size: %s "
                            "says %lld, %s says %lld (using %lld)",
                         c->res[i].row.file, (long long)dw,
                         c->res[at].row.file, (long long)w, (long long)w);
            break;
        }
    }
    return w;
}

/* The world size (*w), checked against the ranks of the traces. */
static tlm_status world_size(const tlm_mpi_ctx *c, int64_t *w,
                             const char **wsrc)
{
    size_t n_all = c->n_res;
    int64_t maxr = n_all ? c->res[n_all - 1].row.trace_rank : -1;
    *w = c->o.world_size;
    *wsrc = "--world_size";
    if (*w < 0)
        *w = guess_world(c, maxr, wsrc);
    if (c->o.world_size > 0) {
        for (size_t i = 0; i < n_all; i++) {
            int64_t dw = c->res[i].row.dist_world_size;
            if (dw > 0 && dw != *w) {
                tlm_mpi_say0(c, "warning: %s says world_size %lld, "
                                "--world_size is %lld",
                             c->res[i].row.file, (long long)dw,
                             (long long)*w);
                break;
            }
        }
    }
    if (maxr >= *w) {
        tlm_mpi_say0(c, "error: %s has rank %lld, outside world size %lld "
                        "(%s)",
                     c->res[n_all - 1].row.file, (long long)maxr,
                     (long long)*w, *wsrc);
        return TLM_EMISMATCH;
    }
    if (*w > TLM_MPI_MAX_WORLD) {
        tlm_mpi_say0(c, "error: world size %lld is too large", (long long)*w);
        return TLM_ERANGE;
    }
    return TLM_OK;
}

/* Ranks below w without a trace: an error, or a warning with
 * --allow_missing. */
static tlm_status check_missing(const tlm_mpi_ctx *c, int64_t w,
                                const char *wsrc)
{
    size_t n_all = c->n_res;
    if ((int64_t)n_all >= w)
        return TLM_OK;
    char list[400] = "";
    size_t len = 0, nm = 0, k = 0;
    for (int64_t r = 0; r < w; r++) {
        while (k < n_all && c->res[k].row.trace_rank < r)
            k++;
        if (k < n_all && c->res[k].row.trace_rank == r)
            continue;
        nm++;
        if (len < 320) {
            int wr = snprintf(list + len, sizeof list - len, "%s%lld",
                              nm > 1 ? ", " : "", (long long)r);
            if (wr > 0)
                len += (size_t)wr;
        } else if (len < 390) {
            len += (size_t)snprintf(list + len, sizeof list - len, ", ...");
        }
    }
    if (!c->o.allow_missing) {
        tlm_mpi_say0(c, "error: %zu of %lld ranks have no trace (world size "
                        "from %s): %s; --allow_missing goes on without them",
                     nm, (long long)w, wsrc, list);
        return TLM_ENOTFOUND;
    }
    tlm_mpi_say0(c, "warning: %zu of %lld ranks have no trace: %s", nm,
                 (long long)w, list);
    return TLM_OK;
}

/* c->holder and c->pos for trace ranks 0..w-1 (-1: no trace). */
static tlm_status index_ranks(tlm_mpi_ctx *c, int64_t w)
{
    c->world = w;
    c->holder = malloc((size_t)w * sizeof *c->holder);
    c->pos = malloc((size_t)w * sizeof *c->pos);
    tlm_status st =
        tlm_mpi_agree(c->holder && c->pos ? TLM_OK : TLM_ENOMEM, c->comm);
    if (st != TLM_OK) {
        tlm_mpi_say0(c, "error: out of memory");
        return st;
    }
    for (int64_t r = 0; r < w; r++) {
        c->holder[r] = -1;
        c->pos[r] = -1;
    }
    for (size_t i = 0; i < c->n_res; i++) {
        c->holder[c->res[i].row.trace_rank] = c->res[i].owner;
        c->pos[c->res[i].row.trace_rank] = (int64_t)i;
    }
    return TLM_OK;
}

tlm_status tlm_mpi_phase_check(tlm_mpi_ctx *c)
{
    tlm_status st = gather_results(c);
    if (st != TLM_OK)
        return st;
    qsort(c->res, c->n_res, sizeof *c->res, cmp_res);
    warn_traces(c, c->n_res);
    st = check_duplicates(c);
    if (st != TLM_OK)
        return st;
    int64_t w = 0;
    const char *wsrc = NULL;
    st = world_size(c, &w, &wsrc);
    if (st == TLM_OK)
        st = check_missing(c, w, wsrc);
    if (st == TLM_OK)
        st = index_ranks(c, w);
    return st;
}
