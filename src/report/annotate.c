/*
 * annotate.c - the iteration annotation of vLLM attention ops
 * (TraceToTree.apply_annotation(["vllm::unified_attention_with_output"]),
 * addendum A4.4): for an op whose name starts with that string, the first
 * event, in ts order, whose "cat" contains "user_annotation" (so
 * gpu_user_annotation too [QUIRK]) with ann.ts <= e.ts and
 * e.ts + e.dur < ann.ts + ann.dur.  Its name is what the InferenceAttention
 * model parses.  No other op gets an annotation.
 */
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

#define VLLM_ATTN "vllm::unified_attention_with_output"

static int is_annotation(const tlm_rctx *ctx, const tlm_event *e)
{
    if (e->cat == TLM_CAT_USER_ANNOTATION ||
        e->cat == TLM_CAT_GPU_USER_ANNOTATION)
        return 1;
    if (e->cat != TLM_CAT_OTHER || !e->cat_str)
        return 0;
    const char *s = tlm_trace_str(ctx->trace, e->cat_str, NULL);
    return s && strstr(s, "user_annotation") != NULL;
}

static int timed(const tlm_event *e)
{
    return e->ph == 'X' && (e->flags & TLM_EV_HAS_TS) &&
           (e->flags & TLM_EV_HAS_DUR);
}

typedef struct ann_sort {
    const tlm_event *ev;
    const int32_t *v;
} ann_sort;

static int cmp_ann(const void *vc, size_t a, size_t b)
{
    const ann_sort *c = vc;
    double x = tlm_ev_ts_us(&c->ev[c->v[a]]), y = tlm_ev_ts_us(&c->ev[c->v[b]]);
    return x < y ? -1 : (x > y);
}

/* Sorts ctx->ann by ts (stable: UID order on ties). */
static tlm_status sort_ann(tlm_rctx *ctx)
{
    size_t n = ctx->nann;
    size_t *idx = malloc((n + 1) * sizeof *idx);
    int32_t *tmp = malloc((n + 1) * sizeof *tmp);
    tlm_status st = TLM_ENOMEM;
    if (idx && tmp) {
        for (size_t i = 0; i < n; i++)
            idx[i] = i;
        ann_sort c = {ctx->ev, ctx->ann};
        st = tlm_sort_idx(idx, n, cmp_ann, &c);
        for (size_t i = 0; st == TLM_OK && i < n; i++)
            tmp[i] = ctx->ann[idx[i]];
        if (st == TLM_OK)
            memcpy(ctx->ann, tmp, n * sizeof *tmp);
    }
    free(idx);
    free(tmp);
    return st;
}

tlm_status tlm_rctx_annotations(tlm_rctx *ctx)
{
    int want = 0;
    size_t cap = 0;
    ctx->ann = NULL;
    ctx->nann = 0;
    for (size_t i = 0; i < ctx->n; i++) {
        const tlm_event *e = &ctx->ev[i];
        if (!timed(e))
            continue;
        if (e->cat == TLM_CAT_CPU_OP && e->name &&
            !strncmp(tlm_rctx_name(ctx, (int32_t)i), VLLM_ATTN,
                     sizeof VLLM_ATTN - 1))
            want = 1;
        if (!is_annotation(ctx, e))
            continue;
        if (tlm_grow((void **)&ctx->ann, &cap, ctx->nann + 1,
                     sizeof *ctx->ann, 64) != TLM_OK)
            return TLM_ENOMEM;
        ctx->ann[ctx->nann++] = (int32_t)i;
    }
    if (!want) {
        free(ctx->ann);
        ctx->ann = NULL;
        ctx->nann = 0;
        return TLM_OK;
    }
    return sort_ann(ctx);
}

int32_t tlm_rctx_annotation(const tlm_rctx *ctx, int32_t u)
{
    if (!ctx->nann)
        return -1;
    const tlm_event *e = &ctx->ev[u];
    if (!timed(e) ||
        strncmp(tlm_rctx_name(ctx, u), VLLM_ATTN, sizeof VLLM_ATTN - 1))
        return -1;
    double ts = tlm_ev_ts_us(e), end = tlm_ev_end_us(e);
    for (size_t i = 0; i < ctx->nann; i++) {
        const tlm_event *a = &ctx->ev[ctx->ann[i]];
        if (tlm_ev_ts_us(a) > ts)
            break; /* sorted: no later one starts before e */
        if (end < tlm_ev_end_us(a))
            return ctx->ann[i];
    }
    return -1;
}
