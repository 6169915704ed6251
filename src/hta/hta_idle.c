/*
 * hta_idle.c - HTA's idle time breakdown (spec §3,
 * BreakdownAnalysis.get_idle_time_breakdown): per rank and stream, the
 * gap before each GPU operation is host_wait (the launch came after the
 * stream went idle), kernel_wait (a gap shorter than
 * --hta_consecutive_kernel_delay) or other; per category the sum of the
 * gaps with its share (idle_time_breakdown) and pandas' describe() of
 * them (idle_interval_stats).
 */
#include "hta_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const tlm_hta_col idle_cols[] = {
    {"rank", TLM_HTA_I64, "", NULL},
    {"stream", TLM_HTA_I64, "", NULL},
    {"idle_category", TLM_HTA_STR, "", NULL},
    {"idle_time", TLM_HTA_F64, "us", NULL},
    {"idle_time_ratio", TLM_HTA_F64, "", NULL},
};
const tlm_hta_tdef tlm_hta_def_idle = {
    "idle_time_breakdown",
    "HTA idle time per rank, stream and cause (spec/hta.md §3): sum of the "
    "gaps before each GPU operation and its share of the stream's gaps",
    idle_cols, sizeof idle_cols / sizeof idle_cols[0], 0, 0};

static const tlm_hta_col stats_cols[] = {
    {"rank", TLM_HTA_I64, "", NULL},        {"stream", TLM_HTA_I64, "", NULL},
    {"idle_category", TLM_HTA_STR, "", NULL}, {"count", TLM_HTA_F64, "", NULL},
    {"mean", TLM_HTA_F64, "us", NULL},      {"std", TLM_HTA_F64, "us", NULL},
    {"min", TLM_HTA_F64, "us", NULL},       {"25%", TLM_HTA_F64, "us", NULL},
    {"50%", TLM_HTA_F64, "us", NULL},       {"75%", TLM_HTA_F64, "us", NULL},
    {"max", TLM_HTA_F64, "us", NULL},
};
const tlm_hta_tdef tlm_hta_def_idle_stats = {
    "idle_interval_stats",
    "HTA idle intervals per rank, stream and cause (spec/hta.md §3): "
    "pandas describe() of the gaps",
    stats_cols, sizeof stats_cols / sizeof stats_cols[0], 0, 0};

static const char *const cat_names[3] = {"host_wait", "kernel_wait",
                                         "other"};

/* kernel, Kernel, gpu_memset, Memset, gpu_memcpy, Memcpy,
 * mtia_ccp_events */
static int idle_cat(const tlm_trace *t, const tlm_hta_ev *r)
{
    if (r->cat == TLM_CAT_KERNEL || r->cat == TLM_CAT_GPU_MEMSET ||
        r->cat == TLM_CAT_GPU_MEMCPY)
        return 1;
    if (r->cat != TLM_CAT_OTHER)
        return 0;
    static const char *const other[] = {"Kernel", "Memset", "Memcpy",
                                        "mtia_ccp_events"};
    size_t len;
    const char *s = tlm_trace_str(t, r->cat_str, &len);
    for (size_t i = 0; i < 4; i++) {
        if (strlen(other[i]) == len && memcmp(s, other[i], len) == 0)
            return 1;
    }
    return 0;
}

typedef struct gap {
    size_t row;   /* row in the event table */
    int cat;      /* 0 host_wait, 1 kernel_wait, 2 other */
    double gap;   /* us; NaN for the stream's first event */
} gap;

/* Stable order of a stream's rows by ts (row order breaks ties). */
static int row_le(const tlm_hta_events *ev, size_t a, size_t b)
{
    if (ev->ev[a].ts != ev->ev[b].ts)
        return ev->ev[a].ts < ev->ev[b].ts;
    return a <= b;
}

static void sort_rows(const tlm_hta_events *ev, size_t *a, size_t n,
                      size_t *tmp)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    sort_rows(ev, a, h, tmp);
    sort_rows(ev, a + h, n - h, tmp);
    size_t i = 0, j = h, o = 0;
    while (i < h && j < n)
        tmp[o++] = row_le(ev, a[i], a[j]) ? a[i++] : a[j++];
    while (i < h)
        tmp[o++] = a[i++];
    while (j < n)
        tmp[o++] = a[j++];
    memcpy(a, tmp, n * sizeof *a);
}

/* The gaps of one stream's rows (sorted by ts). */
static void classify(const tlm_hta_events *ev, const size_t *rows, size_t n,
                     double delay_us, gap *g)
{
    for (size_t i = 0; i < n; i++) {
        const tlm_hta_ev *r = &ev->ev[rows[i]];
        g[i].row = rows[i];
        if (i == 0) {
            g[i].cat = 2;
            g[i].gap = NAN;
            continue;
        }
        const tlm_hta_ev *p = &ev->ev[rows[i - 1]];
        int64_t prev_end = p->ts + p->dur;
        double gp = tlm_hta_us(r->ts - prev_end);
        const tlm_hta_ev *rt = tlm_hta_events_find(ev, r->icorr);
        g[i].gap = gp;
        if (rt && rt->ts > prev_end)
            g[i].cat = 0;
        else if (gp < delay_us)
            g[i].cat = 1;
        else
            g[i].cat = 2;
    }
}

static tlm_status emit(const tlm_hta_events *ev, int64_t stream,
                       const gap *g, size_t n, tlm_hta_table *ti,
                       tlm_hta_table *ts)
{
    double sum[3] = {0, 0, 0};
    size_t cnt[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        cnt[g[i].cat]++;
        if (!isnan(g[i].gap))
            sum[g[i].cat] += g[i].gap;
    }
    double total = sum[0] + sum[1] + sum[2];
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return TLM_ENOMEM;
    tlm_status st = TLM_OK;
    for (int c = 0; c < 3 && st == TLM_OK; c++) {
        if (!cnt[c])
            continue;
        size_t row, m = 0;
        st = tlm_hta_row_add(ti, &row);
        if (st == TLM_OK)
            st = tlm_hta_set_str(ti, row, 2, cat_names[c],
                                 strlen(cat_names[c]));
        if (st != TLM_OK)
            break;
        tlm_hta_set_i64(ti, row, 0, ev->rank);
        tlm_hta_set_i64(ti, row, 1, stream);
        tlm_hta_set_f64(ti, row, 3, tlm_hta_round(sum[c], 2));
        tlm_hta_set_f64(ti, row, 4,
                        total != 0 ? tlm_hta_round(sum[c] / total, 2) : NAN);
        for (size_t i = 0; i < n; i++) {
            if (g[i].cat == c)
                v[m++] = g[i].gap;
        }
        tlm_hta_describe d;
        tlm_hta_describe_of(v, m, &d);
        st = tlm_hta_row_add(ts, &row);
        if (st == TLM_OK)
            st = tlm_hta_set_str(ts, row, 2, cat_names[c],
                                 strlen(cat_names[c]));
        if (st != TLM_OK)
            break;
        tlm_hta_set_i64(ts, row, 0, ev->rank);
        tlm_hta_set_i64(ts, row, 1, stream);
        const double vals[8] = {d.count, d.mean, d.std, d.min,
                                d.q25,   d.q50,  d.q75, d.max};
        for (size_t k = 0; k < 8; k++)
            tlm_hta_set_f64(ts, row, 3 + k,
                            k == 0 ? vals[k] : tlm_hta_round(vals[k], 2));
    }
    free(v);
    return st;
}

tlm_status tlm_hta_build_idle(const tlm_hta_events *ev,
                              const tlm_hta_opts *o, tlm_hta_result *r,
                              tlm_error *err)
{
    (void)err;
    tlm_hta_table *ti = tlm_hta_result_add(r, &tlm_hta_def_idle);
    tlm_hta_table *ts = ti ? tlm_hta_result_add(r, &tlm_hta_def_idle_stats)
                           : NULL;
    size_t n = ev->n ? ev->n : 1;
    size_t *rows = malloc(n * sizeof *rows), *tmp = malloc(n * sizeof *tmp);
    uint8_t *done = calloc(n, 1);
    gap *g = malloc(n * sizeof *g);
    tlm_status st = (ts && rows && tmp && done && g) ? TLM_OK : TLM_ENOMEM;
    for (size_t i = 0; i < ev->n && st == TLM_OK; i++) {
        const tlm_hta_ev *e = &ev->ev[i];
        if (done[i] || e->stream == -1 || !idle_cat(ev->trace, e))
            continue;
        /* a new stream, in order of first appearance */
        size_t m = 0;
        for (size_t j = i; j < ev->n; j++) {
            const tlm_hta_ev *f = &ev->ev[j];
            if (!done[j] && f->stream == e->stream &&
                idle_cat(ev->trace, f)) {
                done[j] = 1;
                rows[m++] = j;
            }
        }
        sort_rows(ev, rows, m, tmp);
        classify(ev, rows, m, o->consecutive_kernel_delay, g);
        st = emit(ev, e->stream, g, m, ti, ts);
    }
    free(rows);
    free(tmp);
    free(done);
    free(g);
    return st;
}
