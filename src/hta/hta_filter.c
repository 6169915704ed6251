/*
 * hta_filter.c - HTA's iteration filter (spec §1.5,
 * Trace._filter_irrelevant_gpu_kernels): when the job has at least two
 * distinct ProfilerStep#N names, each rank keeps its CPU-side rows that
 * start before its last step (quirk Q4: the gpu_user_annotation copies are
 * CPU-side and count) and the GPU-side rows launched by one of them, once
 * per launching row.  A rank without a CPU-side step row keeps none of
 * its CPU rows (HTA bounds them by their own earliest ts then).
 */
#include "hta_internal.h"
#include "search.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Number of entries equal to key in the sorted array. */
static size_t count_of(const int64_t *a, size_t n, int64_t key)
{
    size_t lo = tlm_lower_bound_i64(a, n, key);
    size_t k = 0;
    while (lo + k < n && a[lo + k] == key)
        k++;
    return k;
}

/* The CPU bound: last step start (or, include_last, last step end). */
static int cpu_keeps(const tlm_hta_ev *r, int64_t bound, int include_last)
{
    return include_last ? r->ts <= bound : r->ts < bound;
}

static int64_t cpu_bound(const tlm_hta_events *ev, int include_last)
{
    int64_t b = INT64_MIN, any_min = INT64_MAX,
            any_end = INT64_MIN;
    int steps = 0;
    for (size_t i = 0; i < ev->n; i++) {
        const tlm_hta_ev *r = &ev->ev[i];
        if (r->gpu_side)
            continue;
        int64_t v = include_last ? r->ts + r->dur : r->ts;
        if (r->step) {
            steps = 1;
            if (v > b)
                b = v;
        }
        if (r->ts < any_min)
            any_min = r->ts;
        if (r->ts + r->dur > any_end)
            any_end = r->ts + r->dur;
    }
    if (steps)
        return b;
    return include_last ? any_end : any_min;
}

tlm_status tlm_hta_events_filter(tlm_hta_events *ev, size_t n_job_step_names,
                                 int include_last, tlm_error *err)
{
    if (n_job_step_names < 2 || ev->filtered)
        return TLM_OK;
    size_t n_cpu_all = 0;
    for (size_t i = 0; i < ev->n; i++)
        n_cpu_all += !ev->ev[i].gpu_side;
    if (n_cpu_all == 0)
        return TLM_OK; /* HTA returns such a rank unchanged */
    int64_t bound = cpu_bound(ev, include_last);
    int64_t *corrs = malloc((ev->n ? ev->n : 1) * sizeof *corrs);
    if (!corrs)
        goto oom;
    size_t nc = 0, n_out = 0;
    for (size_t i = 0; i < ev->n; i++) {
        const tlm_hta_ev *r = &ev->ev[i];
        if (!r->gpu_side && cpu_keeps(r, bound, include_last)) {
            corrs[nc++] = r->corr;
            n_out++;
        }
    }
    qsort(corrs, nc, sizeof *corrs, cmp_i64);
    for (size_t i = 0; i < ev->n; i++) {
        if (ev->ev[i].gpu_side)
            n_out += count_of(corrs, nc, ev->ev[i].corr);
    }
    tlm_hta_ev *rows = malloc((n_out ? n_out : 1) * sizeof *rows);
    if (!rows) {
        free(corrs);
        goto oom;
    }
    size_t o = 0;
    for (size_t i = 0; i < ev->n; i++) {
        if (!ev->ev[i].gpu_side)
            continue;
        size_t k = count_of(corrs, nc, ev->ev[i].corr);
        for (size_t j = 0; j < k; j++)
            rows[o++] = ev->ev[i];
    }
    for (size_t i = 0; i < ev->n; i++) {
        const tlm_hta_ev *r = &ev->ev[i];
        if (!r->gpu_side && cpu_keeps(r, bound, include_last))
            rows[o++] = *r;
    }
    free(corrs);
    free(ev->ev);
    ev->ev = rows;
    ev->n = n_out;
    ev->filtered = 1;
    ev->last_start = bound;
    return tlm_hta_reindex(ev);
oom:
    return tlm_error_set(err, TLM_ENOMEM, tlm_trace_path(ev->trace), -1,
                         "out of memory in the HTA iteration filter");
}
