/*
 * steps.c - per-step analysis (docs/metrics-steps.md): the CPU user
 * annotations ProfilerStep#N of a trace are its training steps; for each,
 * the step time and what the GPU did inside it, with the GPU timeline's
 * buckets (timeline.c: linked GPU events, every device and stream pooled,
 * communication kernels by name, memcpy apart) as int64 nanosecond
 * interval unions clipped to the step.  Then, across ranks, each step's
 * spread and whether it is an outlier among the steps.
 *
 * The definitions follow HTA's temporal breakdown ([hta]): busy = union of
 * every GPU event, exposed communication = communication time not
 * overlapped by computation, idle = step time - busy.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"
#include "ivl.h"
#include "search.h"

/* ---- step selection */

static const char *sel_number(const char *p, int64_t *v)
{
    if (!isdigit((unsigned char)*p))
        return NULL;
    char *end = NULL;
    errno = 0;
    long long x = strtoll(p, &end, 10);
    if (errno)
        return NULL;
    *v = (int64_t)x;
    return end;
}

tlm_status tlm_step_sel_parse(const char *text, tlm_step_sel *sel,
                              tlm_error *err)
{
    memset(sel, 0, sizeof *sel);
    if (!text || !*text)
        return TLM_OK;
    const char *p = text;
    for (;;) {
        int64_t lo = 0, hi = 0;
        const char *q = sel_number(p, &lo);
        hi = lo;
        if (q && *q == '-')
            q = sel_number(q + 1, &hi);
        if (!q || (*q && *q != ',') || hi < lo ||
            sel->n == TLM_STEP_SEL_MAX) {
            memset(sel, 0, sizeof *sel);
            return tlm_error_set(err, TLM_EINVAL, NULL, -1,
                                 "--steps '%s': expected step numbers and "
                                 "ranges such as 3,5-7 (at most %d items)",
                                 text, TLM_STEP_SEL_MAX);
        }
        sel->lo[sel->n] = lo;
        sel->hi[sel->n] = hi;
        sel->n++;
        if (!*q)
            return TLM_OK;
        p = q + 1;
    }
}

int tlm_step_sel_has(const tlm_step_sel *sel, int64_t step)
{
    if (!sel || sel->n == 0)
        return 1;
    for (size_t i = 0; i < sel->n; i++)
        if (step >= sel->lo[i] && step <= sel->hi[i])
            return 1;
    return 0;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* Elements of the sorted array a that are < x. */
static size_t count_below(const int64_t *a, size_t n, int64_t x)
{
    return tlm_lower_bound_i64(a, n, x);
}

/* ---- the steps of one trace */

/* N of "ProfilerStep#N", or -1. */
static int64_t step_number(const char *nm)
{
    static const char pre[] = "ProfilerStep#";
    if (!nm || strncmp(nm, pre, sizeof pre - 1) != 0)
        return -1;
    int64_t v = -1;
    const char *q = sel_number(nm + sizeof pre - 1, &v);
    return q && !*q ? v : -1;
}

static int cmp_row_step(const void *x, const void *y)
{
    const tlm_step_row *a = x, *b = y;
    if (a->step != b->step)
        return a->step < b->step ? -1 : 1;
    return (a->start_ns > b->start_ns) - (a->start_ns < b->start_ns);
}

/* The selected steps as rows with step, start_ns and dur_ns set, sorted by
 * step, one row per step number.  Steps are CPU annotations (older
 * PyTorch wrote them as cpu_op); the gpu_user_annotation copies are not. */
static tlm_status find_steps(const tlm_trace *tr, int32_t rank,
                             const tlm_step_sel *sel, tlm_step_row **rows,
                             size_t *n)
{
    size_t ne = 0, cap = 0;
    const tlm_event *ev = tlm_trace_events(tr, &ne);
    const unsigned both = TLM_EV_HAS_TS | TLM_EV_HAS_DUR;
    for (size_t i = 0; i < ne; i++) {
        const tlm_event *e = &ev[i];
        if ((e->cat != TLM_CAT_USER_ANNOTATION && e->cat != TLM_CAT_CPU_OP) ||
            e->ph != 'X' || (e->flags & both) != both || tlm_ev_dur(e) < 0)
            continue;
        int64_t k = step_number(tlm_trace_str(tr, e->name, NULL));
        if (k < 0 || !tlm_step_sel_has(sel, k))
            continue;
        if (tlm_grow((void **)rows, &cap, *n + 1, sizeof **rows, 16))
            return TLM_ENOMEM;
        tlm_step_row *r = &(*rows)[(*n)++];
        memset(r, 0, sizeof *r);
        r->trace_rank = rank;
        r->step = k;
        r->start_ns = e->ts;
        r->dur_ns = tlm_ev_dur(e);
    }
    if (*n > 1)
        qsort(*rows, *n, sizeof **rows, cmp_row_step);
    size_t w = 0; /* one row per step: first start to last end */
    for (size_t i = 1; i < *n; i++) {
        tlm_step_row *a = &(*rows)[w], *b = &(*rows)[i];
        if (b->step == a->step) {
            int64_t end = b->start_ns + b->dur_ns;
            if (end > a->start_ns + a->dur_ns)
                a->dur_ns = end - a->start_ns;
        } else {
            (*rows)[++w] = *b;
        }
    }
    if (*n > 0)
        *n = w + 1;
    return TLM_OK;
}

enum { B_COMP, B_COMM, B_MCPY, B_ALL, B_EXPOSED, B_N };

/* Bucket of a linked GPU event, as the GPU timeline sorts them; cache
 * holds 1 + the bucket of a kernel name id once known (0: not yet). */
static int gpu_bucket(const tlm_trace *tr, const tlm_event *e,
                      uint8_t *cache, uint32_t n_names)
{
    if (e->cat == TLM_CAT_GPU_MEMCPY)
        return B_MCPY;
    int is_k = e->cat == TLM_CAT_KERNEL;
    if (is_k && e->name < n_names && cache[e->name])
        return cache[e->name] - 1;
    const char *nm = tlm_trace_str(tr, e->name, NULL);
    int leg = is_k && nm ? tlm_rocm_legacy_kind(nm) : 0;
    int b = leg == 1                                    ? B_MCPY
            : leg == 0 && tlm_kernel_is_communication(nm) ? B_COMM
                                                          : B_COMP;
    if (is_k && e->name < n_names)
        cache[e->name] = (uint8_t)(b + 1);
    return b;
}

/* The merged buckets of the tree's linked GPU events and their sorted
 * start times (*starts, *n_starts). */
static tlm_status gpu_sets(const tlm_tree *tree, tlm_ivl_vec b[B_N],
                           int64_t **starts, size_t *n_starts)
{
    const tlm_trace *tr = tlm_tree_trace(tree);
    size_t ne = 0, cap = 0;
    const tlm_event *ev = tlm_trace_events(tr, &ne);
    uint32_t n_names = tlm_trace_str_count(tr);
    uint8_t *cache = calloc(n_names ? n_names : 1, 1);
    if (!cache)
        return TLM_ENOMEM;
    tlm_status st = TLM_OK;
    for (size_t i = 0; st == TLM_OK && i < ne; i++) {
        const tlm_event *e = &ev[i];
        if (!tlm_ev_gpu(e) ||
            !(tlm_nd(tree, (int32_t)i)->flags & TLM_NODE_TREE))
            continue;
        int64_t s = e->ts, en = e->ts + tlm_ev_dur(e);
        if (tlm_ivl_push(&b[gpu_bucket(tr, e, cache, n_names)], s, en) ||
            tlm_ivl_push(&b[B_ALL], s, en) ||
            tlm_grow((void **)starts, &cap, *n_starts + 1, sizeof **starts,
                     256))
            st = TLM_ENOMEM;
        else
            (*starts)[(*n_starts)++] = s;
    }
    free(cache);
    if (st != TLM_OK)
        return st;
    for (int k = 0; k < B_EXPOSED; k++)
        b[k].n = tlm_ivl_union(b[k].v, b[k].n);
    if (tlm_ivl_subtract(b[B_COMM].v, b[B_COMM].n, b[B_COMP].v, b[B_COMP].n,
                         &b[B_EXPOSED]))
        return TLM_ENOMEM;
    if (*n_starts > 1)
        qsort(*starts, *n_starts, sizeof **starts, cmp_i64);
    return TLM_OK;
}

static void fill_row(tlm_step_row *r, const tlm_ivl_vec b[B_N],
                     const int64_t *starts, size_t n_starts)
{
    int64_t s = r->start_ns, e = r->start_ns + r->dur_ns;
    r->gpu_busy_ns = tlm_ivl_clipped(b[B_ALL].v, b[B_ALL].n, s, e);
    r->compute_ns = tlm_ivl_clipped(b[B_COMP].v, b[B_COMP].n, s, e);
    r->comm_ns = tlm_ivl_clipped(b[B_COMM].v, b[B_COMM].n, s, e);
    r->exposed_comm_ns =
        tlm_ivl_clipped(b[B_EXPOSED].v, b[B_EXPOSED].n, s, e);
    r->idle_ns = r->dur_ns - r->gpu_busy_ns;
    r->n_gpu_events = (int64_t)(count_below(starts, n_starts, e) -
                                count_below(starts, n_starts, s));
}

tlm_status tlm_steps_compute(const tlm_tree *tree, int32_t rank,
                             const tlm_step_sel *sel, tlm_step_row **rows,
                             size_t *n, tlm_error *err)
{
    const tlm_trace *tr = tlm_tree_trace(tree);
    tlm_ivl_vec b[B_N];
    memset(b, 0, sizeof b);
    int64_t *starts = NULL;
    size_t n_starts = 0;
    *rows = NULL;
    *n = 0;
    tlm_status st = find_steps(tr, rank, sel, rows, n);
    if (st == TLM_OK && *n > 0)
        st = gpu_sets(tree, b, &starts, &n_starts);
    const tlm_trace_meta *md = tlm_trace_meta_get(tr);
    int64_t base = md && md->has_base_time ? md->base_time_ns : 0;
    for (size_t i = 0; st == TLM_OK && i < *n; i++) {
        fill_row(&(*rows)[i], b, starts, n_starts);
        (*rows)[i].start_ns += base; /* raw time, as the collectives' */
    }
    for (int k = 0; k < B_N; k++)
        free(b[k].v);
    free(starts);
    if (st != TLM_OK) {
        free(*rows);
        *rows = NULL;
        *n = 0;
        return tlm_error_set(err, st, tlm_trace_path(tr), -1,
                             "steps: out of memory");
    }
    return TLM_OK;
}

/* ---- across ranks */

static int cmp_step_rank(const void *x, const void *y)
{
    const tlm_step_row *a = x, *b = y;
    if (a->step != b->step)
        return a->step < b->step ? -1 : 1;
    return (a->trace_rank > b->trace_rank) - (a->trace_rank < b->trace_rank);
}

/* Summary of the rows r[0..k) of one step (sorted by rank); tmp holds k
 * doubles. */
static void summarize_one(const tlm_step_row *r, size_t k, double *tmp,
                          tlm_step_summary *o)
{
    memset(o, 0, sizeof *o);
    o->step = r[0].step;
    o->n_ranks = (int32_t)k;
    o->dur_min_ns = INT64_MAX;
    o->dur_max_ns = INT64_MIN;
    for (size_t i = 0; i < k; i++) {
        if (r[i].dur_ns < o->dur_min_ns)
            o->dur_min_ns = r[i].dur_ns;
        if (r[i].dur_ns > o->dur_max_ns) { /* ties: the lowest rank */
            o->dur_max_ns = r[i].dur_ns;
            o->slowest_rank = r[i].trace_rank;
        }
        if (r[i].exposed_comm_ns > o->exposed_comm_max_ns)
            o->exposed_comm_max_ns = r[i].exposed_comm_ns;
        if (r[i].comm_ns > o->comm_max_ns)
            o->comm_max_ns = r[i].comm_ns;
    }
    for (size_t i = 0; i < k; i++)
        tmp[i] = (double)r[i].dur_ns;
    o->dur_median_ns = tlm_np_median(tmp, k);
    for (size_t i = 0; i < k; i++)
        tmp[i] = (double)r[i].gpu_busy_ns;
    o->gpu_busy_median_ns = tlm_np_median(tmp, k);
}

/* vs_median and outlier of every step. */
static void flag_outliers(tlm_step_summary *s, size_t n, double threshold,
                          double *tmp)
{
    for (size_t i = 0; i < n; i++)
        tmp[i] = (double)s[i].dur_max_ns;
    double med = n ? tlm_np_median(tmp, n) : 0.0;
    for (size_t i = 0; i < n; i++) {
        s[i].vs_median = med > 0 ? (double)s[i].dur_max_ns / med : NAN;
        s[i].outlier = med > 0 && s[i].vs_median > 1.0 + threshold;
    }
}

tlm_status tlm_steps_summarize(const tlm_step_row *rows, size_t n,
                               double threshold, tlm_step_summary **out,
                               size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    if (n == 0)
        return TLM_OK;
    tlm_step_row *r = malloc(n * sizeof *r);
    double *tmp = malloc(n * sizeof *tmp);
    tlm_step_summary *s = malloc(n * sizeof *s);
    if (!r || !tmp || !s) {
        free(r);
        free(tmp);
        free(s);
        return TLM_ENOMEM;
    }
    memcpy(r, rows, n * sizeof *r);
    qsort(r, n, sizeof *r, cmp_step_rank);
    size_t ns = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && r[j].step == r[i].step)
            j++;
        summarize_one(r + i, j - i, tmp, &s[ns++]);
        i = j;
    }
    flag_outliers(s, ns, threshold, tmp);
    free(r);
    free(tmp);
    *out = s;
    *n_out = ns;
    return TLM_OK;
}
