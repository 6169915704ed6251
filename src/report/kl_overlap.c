/*
 * kl_overlap.c - --include_overlap_info in the report (perfreport §4.11):
 * the overlap sweep over the trace's GPU events (overlap.c), and what the
 * table builders of the `*_kl_overlap` sheets ask of it: a row's
 * overlapping kernel names as a grouping key, and the three columns
 *
 *   overlapping_kernel_names      ['k1', 'k2']   (unique, first seen)
 *   overlapping_kernels_details   {'k1': {'dur': .., 'stream': ..,
 *                                  'overlap_pct': ..}, ..}
 *   overlap_pct_mean              mean over the group's rows of
 *                                 round(overlapped / busy, 2)
 *
 * The sweep is built once (ctx->ovl, shared, read-only); each thread's
 * context summarises with its own scratch (ctx->ovs).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overlap.h"
#include "report_internal.h"

static int32_t cpu_op_above(const tlm_rctx *ctx, int32_t g)
{
    for (int32_t a = tlm_nd(ctx->tree, g)->parent; a >= 0;
         a = tlm_nd(ctx->tree, a)->parent)
        if (tlm_nd(ctx->tree, a)->cat == TLM_CAT_CPU_OP)
            return a;
    return -1;
}

tlm_status tlm_rctx_overlap(tlm_rctx *ctx)
{
    tlm_ovl_in *in = malloc((ctx->ngpu + 1) * sizeof *in);
    tlm_ovl *o = calloc(1, sizeof *o);
    if (!in || !o) {
        free(in);
        free(o);
        return TLM_ENOMEM;
    }
    for (size_t j = 0; j < ctx->ngpu; j++) {
        int32_t g = ctx->gpu[j];
        const tlm_event *e = &ctx->ev[g];
        tlm_ovl_in *x = &in[j];
        int linked = (tlm_nd(ctx->tree, g)->flags & TLM_NODE_TREE) != 0;
        x->uid = g;
        x->name = e->name;
        x->ts = tlm_ev_ts_us(e);
        x->te = tlm_ev_end_us(e);
        x->has_stream = (uint8_t)tlm_event_arg_int(ctx->trace, e,
                                                   TLM_ARG_STREAM,
                                                   &x->stream);
        if (!x->has_stream)
            x->stream = 0;
        x->sweep = (uint8_t)(linked || ctx->opts.include_unlinked_kernels);
        x->anc = cpu_op_above(ctx, g);
    }
    /* bounded: comparisons between running events of different streams
     * (real traces make well under 1 per event: 0.1 to 0.5 on the shared
     * and synthesized ones), and so the pairs kept (72 bytes each) */
    uint64_t max_work = TLM_OVL_WORK_PER_EVENT * (uint64_t)ctx->ngpu +
                        TLM_OVL_WORK_BASE;
    tlm_status st = tlm_ovl_build(in, ctx->ngpu, ctx->n, max_work, o);
    free(in);
    if (st != TLM_OK) {
        free(o);
        return st;
    }
    ctx->ovl = o;
    return TLM_OK;
}

void tlm_rctx_overlap_free(tlm_rctx *ctx)
{
    if (ctx->ovl) {
        tlm_ovl_free(ctx->ovl);
        free(ctx->ovl);
        ctx->ovl = NULL;
    }
}

void tlm_rctx_ovs_free(tlm_rctx *ctx)
{
    if (ctx->ovs) {
        tlm_ovl_sum_free(ctx->ovs);
        free(ctx->ovs);
        ctx->ovs = NULL;
    }
}

tlm_status tlm_rctx_kl_eval(tlm_rctx *ctx, const int32_t *k, size_t nk)
{
    if (!ctx->ovs && !(ctx->ovs = calloc(1, sizeof *ctx->ovs)))
        return TLM_ENOMEM;
    return tlm_ovl_summarize(ctx->ovl, k, nk, ctx->ovs);
}

void tlm_rctx_kl_key(const tlm_rctx *ctx, tlm_sbuf *key)
{
    const tlm_ovl_sum *s = ctx->ovs;
    tlm_key_id(key, (int64_t)s->nnames);
    for (size_t i = 0; i < s->nnames; i++)
        tlm_key_id(key, (int64_t)s->names[i].name);
}

double tlm_rctx_kl_pct(const tlm_rctx *ctx)
{
    return ctx->ovs->pct;
}

static void put_name(const tlm_rctx *ctx, tlm_sbuf *b, uint32_t nm)
{
    size_t len;
    const char *s = tlm_trace_str(ctx->trace, nm, &len);
    tlm_sbuf_pystr(b, s, len);
}

/* ['k1', 'k2'] of the last summary. */
static void names_repr(const tlm_rctx *ctx, tlm_sbuf *b)
{
    const tlm_ovl_sum *s = ctx->ovs;
    tlm_sbuf_reset(b);
    tlm_sbuf_putc(b, '[');
    for (size_t i = 0; i < s->nnames; i++) {
        if (i)
            tlm_sbuf_puts(b, ", ");
        put_name(ctx, b, s->names[i].name);
    }
    tlm_sbuf_putc(b, ']');
}

/* {'k1': {'dur': mean, 'stream': s, 'overlap_pct': round(mean, 2)}}. */
static void details_repr(const tlm_rctx *ctx, tlm_sbuf *b)
{
    const tlm_ovl_sum *s = ctx->ovs;
    tlm_sbuf_reset(b);
    tlm_sbuf_putc(b, '{');
    for (size_t i = 0; i < s->nnames; i++) {
        const tlm_ovl_name *e = &s->names[i];
        if (i)
            tlm_sbuf_puts(b, ", ");
        put_name(ctx, b, e->name);
        tlm_sbuf_puts(b, ": {'dur': ");
        tlm_sbuf_pyfloat(b, e->dur_sum / (double)e->count);
        tlm_sbuf_puts(b, ", 'stream': ");
        if (e->has_stream)
            tlm_sbuf_printf(b, "%lld", (long long)e->stream);
        else
            tlm_sbuf_puts(b, "None");
        tlm_sbuf_puts(b, ", 'overlap_pct': ");
        tlm_sbuf_pyfloat(b, tlm_np_round2(e->frac_sum / (double)e->count));
        tlm_sbuf_putc(b, '}');
    }
    tlm_sbuf_putc(b, '}');
}

tlm_status tlm_rctx_kl_add_cols(tlm_tab *t, size_t *c0)
{
    *c0 = t->ncols;
    if (tlm_tab_append_col(t, TLM_COLNAME_KL_NAMES, TLM_COL_STR) ||
        tlm_tab_append_col(t, TLM_COLNAME_KL_DETAILS, TLM_COL_STR) ||
        tlm_tab_append_col(t, TLM_COLNAME_KL_PCT, TLM_COL_F64))
        return TLM_ENOMEM;
    return TLM_OK;
}

void tlm_rctx_kl_set(tlm_rctx *ctx, tlm_tab *t, size_t R, size_t c0,
                     double pct_mean)
{
    names_repr(ctx, &ctx->s2);
    tlm_tab_set_s(t, R, c0, ctx->s2.p, ctx->s2.len);
    details_repr(ctx, &ctx->s2);
    tlm_tab_set_s(t, R, c0 + 1, ctx->s2.p, ctx->s2.len);
    tlm_tab_set_f(t, R, c0 + 2, pct_mean);
    if (ctx->s2.oom)
        t->oom = 1;
}

void tlm_rctx_kl_name(const char *base, char *out, size_t size)
{
    snprintf(out, size, "%s%s", base, TLM_KL_SUFFIX);
}
