/*
 * job_check.c - the checks of a job's set of traces, on every process
 * alike (the driver's check phase, mpi/phase_check.c, runs them on the
 * all-gathered results, so that every rank decides the same without
 * another message): bad traces (named in file order, the first 20, then
 * how many more), the same rank in several files, the world size
 * (--world_size, the traces' distributedInfo.world_size, or inferred from
 * the highest rank found) and ranks without a trace (an error unless
 * --allow_missing; the analysis then runs on the traces found), warnings
 * about odd input.  Messages go to the caller's say callback (rank 0
 * prints them); nothing here grows with the world size.  The results stay
 * sorted by trace rank: a rank's position there (binary search,
 * tlm_job_rank_pos) indexes every per-trace array.
 */
#include "job.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search.h"

/* One message to the caller (format as printf). */
static void say(const tlm_job_check *c, const char *fmt, ...)
    TLM_PRINTF(2, 3);

static void say(const tlm_job_check *c, const char *fmt, ...)
{
    if (!c->say)
        return;
    va_list ap;
    va_start(ap, fmt);
    c->say(c->arg, fmt, ap);
    va_end(ap);
}

/* A list of names or numbers for one message: the first TLM_JOB_LIST_MAX
 * items (as many as fit), then "and N more". */
#define TLM_JOB_LIST_MAX 20

typedef struct namelist {
    char buf[1400];
    size_t len, shown, total;
} namelist;

static void nl_init(namelist *l)
{
    l->buf[0] = '\0';
    l->len = l->shown = l->total = 0;
}

static void nl_add(namelist *l, const char *item)
{
    l->total++;
    if (l->shown >= TLM_JOB_LIST_MAX || l->shown < l->total - 1)
        return;
    size_t need = strlen(item) + (l->shown ? 2 : 0);
    if (l->len + need + 24 >= sizeof l->buf)
        return; /* counted in "and N more" */
    l->len += (size_t)snprintf(l->buf + l->len, sizeof l->buf - l->len,
                               "%s%s", l->shown ? ", " : "", item);
    l->shown++;
}

static void nl_add_i64(namelist *l, int64_t v)
{
    char t[24];
    snprintf(t, sizeof t, "%lld", (long long)v);
    nl_add(l, t);
}

/* The list, with " and N more" when items were left out. */
static const char *nl_text(namelist *l)
{
    if (l->total > l->shown)
        snprintf(l->buf + l->len, sizeof l->buf - l->len, " and %zu more",
                 l->total - l->shown);
    return l->buf;
}

/* Rank 0: one line per kind of odd input the traces had, with its count,
 * the number of traces and what it did to the numbers (per trace:
 * /traces), never the list of files.  "warning: " when it changed the
 * numbers (a run's reason in tlmpi audit keeps it), "note: " when not. */
void tlm_job_warn_traces(const tlm_job_check *c)
{
    int64_t tot[3] = {0, 0, 0}, unlinked = 0;
    size_t nt[3] = {0, 0, 0};
    for (size_t i = 0; i < c->n_res; i++) {
        const tlm_row_trace *r = &c->res[i].row;
        const int64_t v[3] = {r->n_bad_time, r->n_flow_warnings,
                              r->n_lone_surrogates};
        for (int k = 0; k < 3; k++)
            if (v[k] > 0) {
                tot[k] += v[k];
                nt[k]++;
            }
        if (r->n_gpu_unlinked > 0 && r->n_flow_warnings > 0)
            unlinked += r->n_gpu_unlinked;
    }
    if (nt[0])
        say(c, "warning: %lld events without a valid ts/dur (missing, or "
               "dur < 0) left out, in %zu trace%s (per trace: /traces "
               "n_bad_time)",
            (long long)tot[0], nt[0], nt[0] == 1 ? "" : "s");
    if (nt[1] && unlinked)
        say(c, "warning: %lld ac2g flows pointing to no GPU event or "
               "missing a half, in %zu trace%s; %lld GPU events are left "
               "unlinked to a launch: their time counts in the timeline "
               "but no op is charged with it (per trace: /traces "
               "n_flow_warnings, n_gpu_unlinked)",
            (long long)tot[1], nt[1], nt[1] == 1 ? "" : "s",
            (long long)unlinked);
    else if (nt[1])
        say(c, "note: %lld ac2g flows pointing to no GPU event or missing "
               "a half, in %zu trace%s; no effect: every GPU event is "
               "linked to its launch (per trace: /traces n_flow_warnings)",
            (long long)tot[1], nt[1], nt[1] == 1 ? "" : "s");
    if (nt[2])
        say(c, "warning: %lld lone surrogate escapes replaced by U+FFFD, "
               "in %zu trace%s (per trace: /traces n_lone_surrogates)",
            (long long)tot[2], nt[2], nt[2] == 1 ? "" : "s");
}

/* qsort order of results: trace rank, then discovery order. */
static int cmp_res(const void *a, const void *b)
{
    const tlm_job_fileres *x = a, *y = b;
    if (x->row.trace_rank != y->row.trace_rank)
        return x->row.trace_rank < y->row.trace_rank ? -1 : 1;
    return x->file_idx < y->file_idx ? -1 : (x->file_idx > y->file_idx);
}

/* Rank 0 names the bad traces, one message each (in file order), the
 * first TLM_JOB_LIST_MAX of them, then how many more. */
size_t tlm_job_name_bad(const tlm_job_check *c)
{
    size_t n_bad = 0;
    for (size_t i = 0; i < c->n_res; i++) {
        if (c->res[i].status == TLM_OK)
            continue;
        size_t k = n_bad++;
        if (k < TLM_JOB_LIST_MAX) {
            const char *m = k < c->n_bad_msg ? c->bad_msg[k] : NULL;
            say(c, "error: %s", m ? m : "a trace could not be read");
        }
    }
    if (n_bad > TLM_JOB_LIST_MAX)
        say(c, "error: and %zu more traces could not be read",
                     n_bad - TLM_JOB_LIST_MAX);
    return n_bad;
}

/* The order bad traces are named in: by the rank in the file name (files
 * without one last), then in discovery order. */
static int cmp_res_file(const void *a, const void *b)
{
    const tlm_job_fileres *x = a, *y = b;
    int64_t rx = x->row.name_rank >= 0 ? x->row.name_rank : INT64_MAX;
    int64_t ry = y->row.name_rank >= 0 ? y->row.name_rank : INT64_MAX;
    if (rx != ry)
        return rx < ry ? -1 : 1;
    return x->file_idx < y->file_idx ? -1 : (x->file_idx > y->file_idx);
}

/* Names every trace rank that appears in more than one file, one message
 * per rank with all its files (c->res sorted by rank). */
tlm_status tlm_job_check_duplicates(const tlm_job_check *c)
{
    size_t n_dup = 0;
    for (size_t i = 1; i < c->n_res;) {
        if (c->res[i].row.trace_rank != c->res[i - 1].row.trace_rank) {
            i++;
            continue;
        }
        size_t j = i - 1;
        namelist files;
        nl_init(&files);
        while (j < c->n_res &&
               c->res[j].row.trace_rank == c->res[i - 1].row.trace_rank)
            nl_add(&files, c->res[j++].row.file);
        int rank = (int)c->res[i - 1].row.trace_rank;
        if (n_dup++ < TLM_JOB_LIST_MAX) {
            if (files.total == 2)
                say(c, "error: rank %d appears twice: %s and %s",
                             rank, c->res[i - 1].row.file,
                             c->res[i].row.file);
            else
                say(c, "error: rank %d appears in %zu files: %s",
                             rank, files.total, nl_text(&files));
        }
        i = j + 1;
    }
    if (n_dup > TLM_JOB_LIST_MAX)
        say(c, "error: and %zu more ranks appear in several files",
                     n_dup - TLM_JOB_LIST_MAX);
    return n_dup ? TLM_EMISMATCH : TLM_OK;
}

/* Where the world size came from (in messages: "world size %s"). */
#define WS_OPTION "from --world_size"
#define WS_DIST "from the traces' distributedInfo.world_size"
#define WS_RANK "inferred from the highest trace rank found"

/* The traces that declare a world size other than w, with theirs. */
static void declaring_other(const tlm_job_check *c, int64_t w, namelist *other)
{
    nl_init(other);
    for (size_t i = 0; i < c->n_res; i++) {
        int64_t dw = c->res[i].row.dist_world_size;
        if (dw > 0 && dw != w) {
            char t[320];
            snprintf(t, sizeof t, "%s (%lld)", c->res[i].row.file,
                     (long long)dw);
            nl_add(other, t);
        }
    }
}

/* Without --world_size: the largest distributedInfo.world_size when it
 * covers every rank found, else the highest rank + 1; a warning names the
 * traces that declare another size.  *wsrc says where it came from. */
static int64_t guess_world(const tlm_job_check *c, int64_t maxr,
                           const char **wsrc)
{
    int64_t dmax = -1;
    size_t at = 0;
    for (size_t i = 0; i < c->n_res; i++) {
        if (c->res[i].row.dist_world_size > dmax) {
            dmax = c->res[i].row.dist_world_size;
            at = i;
        }
    }
    int64_t w = dmax > maxr ? dmax : maxr + 1;
    *wsrc = dmax > maxr ? WS_DIST : WS_RANK;
    namelist other;
    declaring_other(c, w, &other);
    if (other.total && dmax > maxr)
        say(c, "warning: traces disagree on world_size: %s says "
                        "%lld (used), %zu other%s say%s otherwise: %s",
                     c->res[at].row.file, (long long)w, other.total,
                     other.total == 1 ? "" : "s",
                     other.total == 1 ? "s" : "", nl_text(&other));
    else if (other.total)
        say(c, "warning: world size %lld inferred from the highest "
                        "trace rank found; %zu trace%s declare%s a smaller "
                        "one: %s",
                     (long long)w, other.total, other.total == 1 ? "" : "s",
                     other.total == 1 ? "s" : "", nl_text(&other));
    return w;
}

/* Warns when traces declare another world size than --world_size. */
static void warn_option_world(const tlm_job_check *c, int64_t w)
{
    namelist other;
    declaring_other(c, w, &other);
    if (other.total)
        say(c, "warning: --world_size is %lld; %zu trace%s "
                        "declare%s another in distributedInfo: %s",
                     (long long)w, other.total, other.total == 1 ? "" : "s",
                     other.total == 1 ? "s" : "", nl_text(&other));
}

/* The world size (*w), checked against the ranks of the traces: every
 * trace whose rank is outside it is named. */
tlm_status tlm_job_world_size(const tlm_job_check *c, int64_t *w,
                              const char **wsrc)
{
    size_t n_all = c->n_res;
    int64_t maxr = n_all ? c->res[n_all - 1].row.trace_rank : -1;
    *w = c->o->world_size;
    *wsrc = WS_OPTION;
    if (*w < 0)
        *w = guess_world(c, maxr, wsrc);
    else
        warn_option_world(c, *w);
    if (maxr >= *w) {
        namelist out;
        nl_init(&out);
        for (size_t i = 0; i < n_all; i++) {
            if (c->res[i].row.trace_rank < *w)
                continue;
            char t[320];
            snprintf(t, sizeof t, "%s (rank %d)", c->res[i].row.file,
                     (int)c->res[i].row.trace_rank);
            nl_add(&out, t);
        }
        say(c, "error: %zu trace%s outside world size %lld (%s): "
                        "%s",
                     out.total, out.total == 1 ? " has a rank" : "s have ranks",
                     (long long)*w, *wsrc, nl_text(&out));
        return TLM_EMISMATCH;
    }
    if (*w > TLM_JOB_MAX_WORLD) {
        say(c, "error: world size %lld (%s) is too large (at most "
                        "%d)",
                     (long long)*w, *wsrc, TLM_JOB_MAX_WORLD);
        return TLM_ERANGE;
    }
    return TLM_OK;
}

/* Ranks below w without a trace: an error, or a warning with
 * --allow_missing (the analysis then runs on the traces found).  Only the
 * first missing ranks are looked for: nothing here grows with w. */
tlm_status tlm_job_check_missing(const tlm_job_check *c, int64_t w,
                                 const char *wsrc)
{
    size_t n_all = c->n_res;
    if ((int64_t)n_all >= w)
        return TLM_OK;
    int64_t nm = w - (int64_t)n_all; /* ranks are distinct and below w */
    namelist list;
    nl_init(&list);
    size_t k = 0;
    for (int64_t r = 0; r < w && list.total < TLM_JOB_LIST_MAX; r++) {
        while (k < n_all && c->res[k].row.trace_rank < r)
            k++;
        if (!(k < n_all && c->res[k].row.trace_rank == r))
            nl_add_i64(&list, r);
    }
    list.total = (size_t)nm;
    if (!c->o->allow_missing) {
        /* --quiet printed no note of the skipped files at the start: the
         * error says them (a missing rank may be in one) */
        char more[1200] = "";
        if (c->o->quiet && c->fl->n_skipped)
            snprintf(more, sizeof more, "; %zu file%s of the folder %s: %s",
                     c->fl->n_skipped, c->fl->n_skipped == 1 ? "" : "s",
                     c->fl->n_skipped == 1
                         ? "is not a trace or could not be read"
                         : "are not traces or could not be read",
                     c->fl->skipped ? c->fl->skipped : "");
        char look[1200] = ""; /* a folder named like a trace (issue 34) */
        if (c->fl->lookalike)
            snprintf(look, sizeof look, "; named like a trace but a folder,"
                     " not read: %s", c->fl->lookalike);
        say(c, "error: %lld of %lld ranks have no trace (world size "
               "%s): %s%s; --allow_missing goes on without them%s",
            (long long)nm, (long long)w, wsrc, nl_text(&list), look, more);
        return TLM_ENOTFOUND;
    }
    say(c, "warning: %lld of %lld ranks have no trace (world size "
                    "%s): %s; going on with the %zu trace%s found",
                 (long long)nm, (long long)w, wsrc, nl_text(&list), n_all,
                 n_all == 1 ? "" : "s");
    return TLM_OK;
}

/* Rank 0: the sorted file order gave the ranks of traces without
 * distributedInfo.rank (--trace_dir, no rank in any name): say so once. */
void tlm_job_warn_order_ranks(const tlm_job_check *c)
{
    namelist files;
    nl_init(&files);
    if (!c->fl->order_ranks)
        return;
    for (size_t i = 0; i < c->n_res; i++)
        if (c->res[i].row.dist_rank < 0)
            nl_add(&files, c->res[i].row.file);
    if (files.total > 0)
        say(c, "warning: ranks taken from the sorted file order: "
                        "%s (no distributedInfo.rank in the trace%s, no "
                        "rank in the file names)",
                     nl_text(&files), files.total == 1 ? "" : "s");
}

void tlm_job_sort_by_file(tlm_job_fileres *res, size_t n)
{
    qsort(res, n, sizeof *res, cmp_res_file);
}

void tlm_job_sort_by_rank(tlm_job_fileres *res, size_t n)
{
    qsort(res, n, sizeof *res, cmp_res);
}

int64_t tlm_job_rank_pos(const tlm_job_fileres *res, size_t n, int64_t r)
{
    if (r < INT32_MIN || r > INT32_MAX)
        return -1; /* no trace_rank (int32) equals it */
    size_t lo = tlm_lower_bound_i32_at(res, n, sizeof *res,
                                       offsetof(tlm_job_fileres,
                                                row.trace_rank),
                                       (int32_t)r);
    return lo < n && res[lo].row.trace_rank == r ? (int64_t)lo : -1;
}
