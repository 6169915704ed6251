/*
 * timeline.c - GPU timeline ([perfreport] §3): how the GPU time of a
 * trace splits into computation, exposed communication, exposed memcpy and
 * idle time.
 *
 * GPU events (linked ones unless asked otherwise) go into buckets COMP,
 * COMM, MEMCPY and ALL; each bucket is merged into sorted disjoint
 * intervals (touching intervals merge) and the exposed parts are interval
 * differences.  All devices and streams of the trace are pooled, as
 * TraceLens does for PyTorch traces.  Arithmetic is TraceLens's: double
 * microseconds, lengths summed left to right over the merged list.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

#include "ivl.h"

/* ROCm 7.1 legacy copy / fill kernel names (§1.5): 1 copy, 2 fill. */
int tlm_rocm_legacy_kind(const char *nm)
{
    static const char *copy[] = {"MEMORY_COPY_HOST_TO_DEVICE",
                                 "MEMORY_COPY_DEVICE_TO_HOST",
                                 "MEMORY_COPY_DEVICE_TO_DEVICE",
                                 "__amd_rocclr_copyBuffer",
                                 "__amd_rocclr_copyBufferAligned",
                                 "__amd_rocclr_copyBufferRect",
                                 "__amd_rocclr_copyBufferRectAligned"};
    static const char *fill[] = {"__amd_rocclr_fillBuffer",
                                 "__amd_rocclr_fillBufferAligned"};
    size_t ln = strlen(nm);
    if (ln > 3 && !strcmp(nm + ln - 3, ".kd"))
        ln -= 3;
    for (size_t i = 0; i < sizeof copy / sizeof copy[0]; i++)
        if (strlen(copy[i]) == ln && !strncmp(nm, copy[i], ln))
            return 1;
    for (size_t i = 0; i < sizeof fill / sizeof fill[0]; i++)
        if (strlen(fill[i]) == ln && !strncmp(nm, fill[i], ln))
            return 2;
    return 0;
}

/* The timeline bucket of GPU event e: 1 computation, 2 communication,
 * 3 memcpy/memset; bucket[] caches kernels by name id (nnames of them). */
static uint8_t gpu_bucket(const tlm_trace *tr, const tlm_event *e,
                          uint8_t *bucket, uint32_t nnames)
{
    if (e->cat == TLM_CAT_GPU_MEMCPY)
        return 3;
    uint8_t k = e->name < nnames ? bucket[e->name] : 0;
    int is_k = e->cat == TLM_CAT_KERNEL;
    if (!k || !is_k) {
        const char *nm = tlm_trace_str(tr, e->name, NULL);
        int leg = is_k ? tlm_rocm_legacy_kind(nm) : 0;
        k = leg == 1   ? 3
            : leg == 2 ? 1
            : tlm_kernel_is_communication(nm) ? 2
                                              : 1;
        if (is_k && e->name < nnames)
            bucket[e->name] = k;
    }
    return k;
}

/* The timeline of the GPU events i with sel[i] == want (every one when
 * sel is NULL). */
static tlm_status timeline_of(tlm_tree *tree, int include_unlinked,
                              double micro_idle_thresh_us,
                              const uint8_t *sel, int want,
                              tlm_gpu_timeline *out, tlm_error *err)
{
    const tlm_trace *tr = tlm_tree_trace(tree);
    size_t n = 0;
    const tlm_event *ev = tlm_trace_events(tr, &n);
    tlm_ivld_vec comp = {0}, comm = {0}, mcp = {0}, all = {0}, t1 = {0},
                 t2 = {0};
    tlm_status st = TLM_OK;
    uint32_t nnames = tlm_trace_str_count(tr);
    uint8_t *bucket = calloc(nnames ? nnames : 1, 1);
    memset(out, 0, sizeof *out);
    if (!bucket)
        goto oom;
    for (size_t i = 0; i < n; i++) {
        const tlm_event *e = &ev[i];
        if (!tlm_ev_gpu(e))
            continue;
        if (!include_unlinked &&
            !(tlm_nd(tree, (int32_t)i)->flags & TLM_NODE_TREE))
            continue;
        if (sel && (sel[i] != 0) != (want != 0))
            continue;
        double s = tlm_ev_ts_us(e), en = tlm_ev_end_us(e);
        uint8_t k = gpu_bucket(tr, e, bucket, nnames);
        tlm_ivld_vec *b = k == 3 ? &mcp : k == 2 ? &comm : &comp;
        if (tlm_ivld_push(b, s, en))
            goto oom;
        out->n_events++;
    }
    if (!out->n_events) {
        const tlm_tree_stats *ts = tlm_tree_stats_get(tree);
        if (!include_unlinked && ts->n_gpu > 0)
            st = tlm_error_set(err, TLM_ENOTFOUND, tlm_trace_path(tr), -1,
                               "timeline: none of the %llu GPU events is "
                               "linked to a launch (flows or correlation "
                               "ids; --include_unlinked_kernels uses them "
                               "anyway)",
                               (unsigned long long)ts->n_gpu);
        else
            st = tlm_error_set(err, TLM_ENOTFOUND, tlm_trace_path(tr), -1,
                               "timeline: no GPU events found in the "
                               "trace%s",
                               ts->n_no_time ? " (events without a valid "
                                               "ts/dur were left out)"
                                             : "");
        goto done;
    }
    comp.n = tlm_ivld_union(comp.v, comp.n);
    comm.n = tlm_ivld_union(comm.v, comm.n);
    mcp.n = tlm_ivld_union(mcp.v, mcp.n);
    /* every event's interval: the union of the three unions (the same
     * merged intervals as the union of the events, from far fewer
     * entries than one per event: a lower peak while the tables build) */
    for (int k = 0; k < 3; k++) {
        const tlm_ivld_vec *b = k == 0 ? &comp : k == 1 ? &comm : &mcp;
        for (size_t i = 0; i < b->n; i++)
            if (tlm_ivld_push(&all, b->v[i].s, b->v[i].e))
                goto oom;
    }
    all.n = tlm_ivld_union(all.v, all.n);
    out->total_us = all.v[all.n - 1].e - all.v[0].s;
    out->computation_us = tlm_ivld_length(comp.v, comp.n);
    out->total_comm_us = tlm_ivld_length(comm.v, comm.n);
    /* exposed: comm minus comp; memcpy minus comp minus comm */
    if (tlm_ivld_subtract(comm.v, comm.n, comp.v, comp.n, &t1))
        goto oom;
    out->exposed_comm_us = tlm_ivld_length(t1.v, t1.n);
    out->total_memcpy_us = tlm_ivld_length(mcp.v, mcp.n);
    if (tlm_ivld_subtract(mcp.v, mcp.n, comp.v, comp.n, &t1) ||
        tlm_ivld_subtract(t1.v, t1.n, comm.v, comm.n, &t2))
        goto oom;
    out->exposed_memcpy_us = tlm_ivld_length(t2.v, t2.n);
    out->busy_us = tlm_ivld_length(all.v, all.n);
    out->idle_us = out->total_us - out->busy_us;
    if (micro_idle_thresh_us >= 0.0) {
        tlm_ivld whole = {all.v[0].s, all.v[all.n - 1].e};
        if (tlm_ivld_subtract(&whole, 1, all.v, all.n, &t1))
            goto oom;
        out->has_micro_idle = 1;
        for (size_t i = 0; i < t1.n; i++) {
            double g = t1.v[i].e - t1.v[i].s;
            if (g < micro_idle_thresh_us)
                out->micro_idle_us += g;
            else
                out->macro_idle_us += g;
        }
    }
    goto done;
oom:
    st = tlm_error_set(err, TLM_ENOMEM, tlm_trace_path(tr), -1,
                       "timeline: out of memory");
done:
    free(bucket);
    free(comp.v);
    free(comm.v);
    free(mcp.v);
    free(all.v);
    free(t1.v);
    free(t2.v);
    return st;
}

tlm_status tlm_gpu_timeline_compute(tlm_tree *tree, int include_unlinked,
                                    double micro_idle_thresh_us,
                                    tlm_gpu_timeline *out, tlm_error *err)
{
    return timeline_of(tree, include_unlinked, micro_idle_thresh_us, NULL, 0,
                       out, err);
}

/* a + b, saturated at the int64 range (times from an untrusted trace). */
static int64_t sat_add(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b)
        return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b)
        return INT64_MIN;
    return a + b;
}

tlm_status tlm_gpu_exposed_comm_ns(const tlm_tree *tree,
                                   int include_unlinked, int64_t base_ns,
                                   int64_t **iv, size_t *n_iv)
{
    const tlm_trace *tr = tlm_tree_trace(tree);
    size_t n = 0;
    const tlm_event *ev = tlm_trace_events(tr, &n);
    uint32_t nnames = tlm_trace_str_count(tr);
    uint8_t *bucket = calloc(nnames ? nnames : 1, 1);
    tlm_ivl_vec comp = {0}, comm = {0}, x = {0};
    tlm_status st = bucket ? TLM_OK : TLM_ENOMEM;
    *iv = NULL;
    *n_iv = 0;
    for (size_t i = 0; st == TLM_OK && i < n; i++) {
        const tlm_event *e = &ev[i];
        if (!tlm_ev_gpu(e) ||
            (!include_unlinked &&
             !(tlm_nd(tree, (int32_t)i)->flags & TLM_NODE_TREE)))
            continue;
        uint8_t k = gpu_bucket(tr, e, bucket, nnames);
        if (k == 3)
            continue;
        st = tlm_ivl_push(k == 2 ? &comm : &comp, e->ts,
                          sat_add(e->ts, tlm_ev_dur(e)));
    }
    if (st == TLM_OK) {
        comp.n = tlm_ivl_union(comp.v, comp.n);
        comm.n = tlm_ivl_union(comm.v, comm.n);
        st = tlm_ivl_subtract(comm.v, comm.n, comp.v, comp.n, &x);
    }
    if (st == TLM_OK && x.n) {
        *iv = malloc(2 * x.n * sizeof **iv);
        st = *iv ? TLM_OK : TLM_ENOMEM;
        for (size_t i = 0; st == TLM_OK && i < x.n; i++) {
            (*iv)[2 * i] = sat_add(x.v[i].s, base_ns);
            (*iv)[2 * i + 1] = sat_add(x.v[i].e, base_ns);
        }
        *n_iv = st == TLM_OK ? x.n : 0;
    }
    free(bucket);
    free(comp.v);
    free(comm.v);
    free(x.v);
    return st;
}

/* The rows of timeline g into t (with is_recompute rc in column 3 when
 * rc >= 0). */
static void timeline_rows(tlm_tab *t, const tlm_gpu_timeline *g, int rc)
{
    struct {
        const char *name;
        double v;
        int on;
    } rows[] = {
        {"computation_time", g->computation_us, 1},
        {"exposed_comm_time", g->exposed_comm_us, 1},
        {"exposed_memcpy_time", g->exposed_memcpy_us, 1},
        {"busy_time", g->busy_us, 1},
        {"idle_time", g->idle_us, !g->has_micro_idle},
        {"micro_idle_time", g->micro_idle_us, g->has_micro_idle},
        {"macro_idle_time", g->macro_idle_us, g->has_micro_idle},
        {"total_time", g->total_us, 1},
        {"total_comm_time", g->total_comm_us, 1},
        {"total_memcpy_time", g->total_memcpy_us, 1},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (!rows[i].on)
            continue;
        long r = tlm_tab_add_row(t);
        if (r < 0)
            break;
        tlm_tab_set_s(t, (size_t)r, 0, rows[i].name, strlen(rows[i].name));
        tlm_tab_set_f(t, (size_t)r, 1, rows[i].v / 1e3);
        tlm_tab_set_f(t, (size_t)r, 2, rows[i].v / g->total_us * 100.0);
        if (rc >= 0)
            tlm_tab_set_b(t, (size_t)r, 3, rc);
    }
}

tlm_status tlm_rctx_timeline(tlm_rctx *ctx, tlm_error *err)
{
    tlm_status st = tlm_gpu_timeline_compute(
        ctx->tree, ctx->opts.include_unlinked_kernels,
        ctx->opts.micro_idle_thresh_us, &ctx->tl, err);
    if (st != TLM_OK)
        return st;
    ctx->has_timeline = 1;
    static const char *const cols[] = {"type", "time ms", "percent",
                                       "is_recompute"};
    static const tlm_coltype ty[] = {TLM_COL_STR, TLM_COL_F64, TLM_COL_F64,
                                     TLM_COL_BOOL};
    tlm_tab *t = tlm_tab_new("gpu_timeline", ctx->rc ? 4 : 3, cols, ty);
    if (!t)
        return TLM_ENOMEM;
    if (!ctx->rc) {
        timeline_rows(t, &ctx->tl, -1);
        return tlm_rctx_add_tab(ctx, t);
    }
    /* --detect_recompute: each subset on its own (its own total_time);
     * a subset without GPU events has no rows.  The whole timeline
     * (ctx->tl) stays the denominator of the kernel tables and report.md */
    for (int rc = 0; rc <= 1; rc++) {
        tlm_gpu_timeline g;
        tlm_error e2;
        tlm_error_clear(&e2);
        st = timeline_of(ctx->tree, ctx->opts.include_unlinked_kernels,
                         ctx->opts.micro_idle_thresh_us, ctx->rc, rc, &g,
                         &e2);
        if (st == TLM_ENOTFOUND)
            continue;
        if (st != TLM_OK) {
            tlm_tab_free(t);
            return st;
        }
        timeline_rows(t, &g, rc);
    }
    return tlm_rctx_add_tab(ctx, t);
}
