/*
 * hta_queue.c - HTA's queue length summary (spec §5,
 * TraceCounters.get_queue_length_summary): per stream, the number of
 * launched GPU operations not yet started, sampled after each launch
 * (+1 at the launch's ts, once per GPU event of its correlation) and each
 * start (-1 at the GPU event's ts); describe() of the samples.  Equal
 * times: launch before start, then table order (quirk Q7: HTA leaves this
 * to an unstable sort).
 */
#include "hta_internal.h"
#include "search.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const tlm_hta_col queue_cols[] = {
    {"rank", TLM_HTA_I64, "", NULL},  {"stream", TLM_HTA_I64, "", NULL},
    {"count", TLM_HTA_F64, "", NULL}, {"mean", TLM_HTA_F64, "", NULL},
    {"std", TLM_HTA_F64, "", NULL},   {"min", TLM_HTA_F64, "", NULL},
    {"25%", TLM_HTA_F64, "", NULL},   {"50%", TLM_HTA_F64, "", NULL},
    {"75%", TLM_HTA_F64, "", NULL},   {"max", TLM_HTA_F64, "", NULL},
};
const tlm_hta_tdef tlm_hta_def_queue = {
    "queue_length_summary",
    "HTA queue length per rank and stream (spec/hta.md §5): launched GPU "
    "operations not yet started, describe() of the samples",
    queue_cols, sizeof queue_cols / sizeof queue_cols[0], 0, 0};

/* TraceSymbolTable.get_runtime_launch_events_mask */
static int is_queue_launch(const char *s, size_t len)
{
    static const char *const names[] = {
        "cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel",
        "cuLaunchKernelEx", "cudaMemcpyAsync", "cudaMemsetAsync",
        "hipLaunchKernel", "hipExtModuleLaunchKernel", "hipMemcpyAsync",
        "hipMemsetAsync", "hipMemcpyWithStream",
        "runFunction - job_prep_and_submit_for_execution"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strlen(names[i]) == len && memcmp(s, names[i], len) == 0)
            return 1;
    }
    return 0;
}

typedef tlm_hta_qstep qstep;

static int cmp_qstep(const void *a, const void *b)
{
    const qstep *x = a, *y = b;
    if (x->stream != y->stream)
        return x->stream < y->stream ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind - y->kind;
    return (x->row > y->row) - (x->row < y->row);
}

typedef struct crow {
    int64_t corr;
    size_t row;
} crow;

static int cmp_crow(const void *a, const void *b)
{
    const crow *x = a, *y = b;
    if (x->corr != y->corr)
        return x->corr < y->corr ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* First index of corr in the sorted array, or n. */
static size_t lower(const crow *a, size_t n, int64_t corr)
{
    return tlm_lower_bound_i64_at(a, n, sizeof *a, offsetof(crow, corr),
                                  corr);
}

static tlm_status steps_of(const tlm_hta_events *ev, qstep **out, size_t *n)
{
    size_t ng = 0, nl = 0, cap = 0;
    crow *gpu = malloc((ev->n ? ev->n : 1) * sizeof *gpu);
    crow *lau = malloc((ev->n ? ev->n : 1) * sizeof *lau);
    qstep *s = NULL;
    tlm_status st = (gpu && lau) ? TLM_OK : TLM_ENOMEM;
    for (size_t i = 0; i < ev->n && st == TLM_OK; i++) {
        const tlm_hta_ev *r = &ev->ev[i];
        size_t len;
        const char *nm = tlm_trace_str(ev->trace, r->name, &len);
        if (r->stream != -1)
            gpu[ng++] = (crow){r->corr, i};
        else if (r->icorr > 0 && is_queue_launch(nm, len))
            lau[nl++] = (crow){r->corr, i};
    }
    if (st == TLM_OK) {
        qsort(gpu, ng, sizeof *gpu, cmp_crow);
        qsort(lau, nl, sizeof *lau, cmp_crow);
        cap = 2 * ng + nl + 1;
        for (size_t i = 0; i < nl; i++) {
            size_t k = lower(gpu, ng, lau[i].corr), m = 0;
            while (k + m < ng && gpu[k + m].corr == lau[i].corr)
                m++;
            cap += m;
        }
        s = malloc(cap * sizeof *s);
        if (!s)
            st = TLM_ENOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < nl && st == TLM_OK; i++) {
        const tlm_hta_ev *l = &ev->ev[lau[i].row];
        for (size_t j = lower(gpu, ng, lau[i].corr);
             j < ng && gpu[j].corr == lau[i].corr; j++)
            s[k++] = (qstep){ev->ev[gpu[j].row].stream, l->ts, 0,
                             lau[i].row, 0};
    }
    for (size_t j = 0; j < ng && st == TLM_OK; j++) {
        size_t li = lower(lau, nl, gpu[j].corr);
        if (li < nl && lau[li].corr == gpu[j].corr) {
            const tlm_hta_ev *g = &ev->ev[gpu[j].row];
            s[k++] = (qstep){g->stream, g->ts, 1, gpu[j].row, 0};
        }
    }
    free(gpu);
    free(lau);
    if (st != TLM_OK) {
        free(s);
        return st;
    }
    qsort(s, k, sizeof *s, cmp_qstep);
    for (size_t i = 0, lo = 0; i < k; i++) {
        if (i == 0 || s[i].stream != s[i - 1].stream)
            lo = i;
        s[i].q = (i > lo ? s[i - 1].q : 0) + (s[i].kind == 0 ? 1 : -1);
    }
    *out = s;
    *n = k;
    return TLM_OK;
}

tlm_status tlm_hta_queue_steps(const tlm_hta_events *ev,
                               tlm_hta_qstep **out, size_t *n)
{
    return steps_of(ev, out, n);
}

tlm_status tlm_hta_build_queue(const tlm_hta_events *ev,
                               const tlm_hta_opts *o, tlm_hta_result *r,
                               tlm_error *err)
{
    (void)o;
    (void)err;
    tlm_hta_table *t = tlm_hta_result_add(r, &tlm_hta_def_queue);
    if (!t)
        return TLM_ENOMEM;
    qstep *s = NULL;
    size_t n = 0;
    tlm_status st = steps_of(ev, &s, &n);
    double *v = st == TLM_OK ? malloc((n ? n : 1) * sizeof *v) : NULL;
    if (st == TLM_OK && !v)
        st = TLM_ENOMEM;
    for (size_t lo = 0; lo < n && st == TLM_OK;) {
        size_t hi = lo;
        while (hi < n && s[hi].stream == s[lo].stream) {
            v[hi - lo] = (double)s[hi].q;
            hi++;
        }
        tlm_hta_describe d;
        tlm_hta_describe_of(v, hi - lo, &d);
        size_t row;
        st = tlm_hta_row_add(t, &row);
        if (st == TLM_OK) {
            const double vals[8] = {d.count, d.mean, d.std, d.min,
                                    d.q25,   d.q50,  d.q75, d.max};
            tlm_hta_set_i64(t, row, 0, ev->rank);
            tlm_hta_set_i64(t, row, 1, s[lo].stream);
            for (size_t k = 0; k < 8; k++)
                tlm_hta_set_f64(t, row, 2 + k, vals[k]);
        }
        lo = hi;
    }
    free(v);
    free(s);
    return st;
}
