/*
 * find_misc.c - the pattern rules of spec findings.md §4: S11 tiny
 * batched GEMMs, S12 unfused attention, S15 convolution layout
 * transposes, S16 host-side synchronisation per op category.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "find_internal.h"

#define T(c, n) ((c)->o->t[TLM_FIND_T_##n])

static void s11(const fnd_ctx *c, tlm_findings *f)
{
    const tlm_tab *g = c->gemm;
    for (size_t i = 0; g && i < g->nrows; i++) {
        double B = fnd_num(g, i, "param: B"), M = fnd_num(g, i, "param: M");
        double N = fnd_num(g, i, "param: N"), K = fnd_num(g, i, "param: K");
        double t = fnd_num(g, i, FND_US), pct = 100.0 * t / c->e2e_us;
        if (!(B >= T(c, gemm_batch)) || !(fmax(M, N) <= T(c, gemm_mn)) ||
            !(pct >= T(c, min_pct)))
            continue;
        tlm_finding *x = fnd_add(f, "S11", pct >= T(c, sev_high)
                                               ? TLM_FIND_HIGH
                                               : TLM_FIND_MEDIUM);
        if (!x)
            return;
        x->pct_e2e = pct;
        tlm_sbuf b;
        tlm_sbuf_init(&b);
        tlm_sbuf_printf(&b, "%s B=%.0f M=%.0f N=%.0f K=%.0f",
                        fnd_str(g, i, "name"), B, M, N, K);
        fnd_setb(f, &x->subject, &b);
        tlm_sbuf_reset(&b);
        double cnt = fnd_num(g, i, "name_count");
        tlm_sbuf_printf(&b, "%.0f batched GEMMs of %.0f\xc3\x97(%.0f\xc3\x97"
                            "%.0f)\xc2\xb7(%.0f\xc3\x97%.0f) take %.3f ms: "
                            "tiny matrices leave the GPU under-occupied.",
                        isnan(cnt) ? 1.0 : cnt, B, M, K, K, N, t / 1000.0);
        fnd_setb(f, &x->text, &b);
        fnd_set(f, &x->action_a, "Restructure to fewer, larger GEMMs (merge "
                                 "heads/batches).");
        fnd_set(f, &x->action_b, "Use a batched/grouped GEMM kernel tuned "
                                 "for small tiles.");
        tlm_sbuf_reset(&b);
        tlm_sbuf_printf(&b, "GEMM:param: B=%.0f:param: M=%.0f:param: N=%.0f",
                        B, M, N);
        fnd_setb(f, &x->evidence, &b);
        tlm_sbuf_free(&b);
    }
}

static void s12(const fnd_ctx *c, tlm_findings *f)
{
    if (!c->ops)
        return;
    for (size_t i = 0; c->uni && i < c->uni->nrows; i++) {
        const char *cat = fnd_str(c->uni, i, "op category");
        const char *nm = fnd_str(c->uni, i, "name");
        if (!strncmp(cat, "SDPA_", 5) || strstr(nm, "flash") ||
            strstr(nm, "fmha") || strstr(nm, "scaled_dot_product"))
            return;
    }
    double sm = 0, bmm = 0;
    for (size_t i = 0; i < c->ops->nrows; i++) {
        const char *nm = fnd_str(c->ops, i, "name");
        double p = fnd_num(c->ops, i, "Percentage (%)");
        if (strstr(nm, "flash") || strstr(nm, "fmha") ||
            strstr(nm, "scaled_dot_product"))
            return;
        if (isnan(p))
            continue;
        if (!strcmp(nm, "aten::_softmax") || !strcmp(nm, "aten::softmax"))
            sm += p;
        else if (!strcmp(nm, "aten::bmm") || !strcmp(nm, "aten::baddbmm"))
            bmm += p;
    }
    double share = sm + bmm;
    if (!(sm > 0) || !(bmm > 0) || !(share >= T(c, attn_share)))
        return;
    tlm_finding *x = fnd_add(f, "S12", share >= T(c, attn_high)
                                           ? TLM_FIND_HIGH
                                           : TLM_FIND_MEDIUM);
    if (!x)
        return;
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_sbuf_printf(&b, "Attention runs unfused (softmax + batched GEMMs, "
                        "%.1f %% of compute).",
                    share);
    fnd_setb(f, &x->text, &b);
    fnd_set(f, &x->subject, "attention");
    fnd_set(f, &x->action_a, "Use fused (flash) attention \xe2\x80\x94 "
                             "typically 3\xe2\x80\x93" "10\xc3\x97 on the "
                             "attention part.");
    fnd_set(f, &x->action_b, "Tuning the separate kernels gains ~10\xe2\x80"
                             "\x93" "30 %.");
    tlm_sbuf_reset(&b);
    tlm_sbuf_printf(&b, "ops_summary:softmax:Percentage (%%)=%.4f;"
                        "ops_summary:bmm:Percentage (%%)=%.4f",
                    sm, bmm);
    fnd_setb(f, &x->evidence, &b);
    tlm_sbuf_free(&b);
}

static int layout_kernel(const char *k)
{
    static const char *const m[] = {"batched_transpose", "nchw2nhwc",
                                    "nhwc2nchw", "transpose_nchw",
                                    "transpose_cnhw"};
    char low[256];
    size_t n = 0;
    for (; k[n] && n + 1 < sizeof low; n++)
        low[n] = (char)tolower((unsigned char)k[n]);
    low[n] = 0;
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (strstr(low, m[i]))
            return 1;
    return 0;
}

static void s15(const fnd_ctx *c, tlm_findings *f)
{
    const char *dur = "Kernel duration (\xc2\xb5s)_sum";
    double all = 0, lay = 0;
    for (size_t i = 0; c->ks && i < c->ks->nrows; i++) {
        if (strncmp(fnd_str(c->ks, i, "Parent op category"), "CONV", 4))
            continue;
        double v = fnd_num(c->ks, i, dur);
        if (isnan(v))
            continue;
        all += v;
        if (layout_kernel(fnd_str(c->ks, i, "Kernel name")))
            lay += v;
    }
    double pct = all > 0 ? 100.0 * lay / all : 0;
    if (!(pct > T(c, conv_layout)))
        return;
    tlm_finding *x = fnd_add(f, "S15", pct > T(c, conv_layout_high)
                                           ? TLM_FIND_HIGH
                                           : TLM_FIND_MEDIUM);
    if (!x)
        return;
    x->pct_e2e = 100.0 * lay / c->e2e_us;
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_sbuf_printf(&b, "Layout transposes take %.1f %% of convolution "
                        "kernel time (%.3f of %.3f ms).",
                    pct, lay / 1000.0, all / 1000.0);
    fnd_setb(f, &x->text, &b);
    fnd_set(f, &x->subject, "convolution layout");
    fnd_set(f, &x->action_a,
            "Run the model in channels-last memory format "
            "(`model.to(memory_format=torch.channels_last)`).");
    fnd_set(f, &x->action_b,
            "Use convolution kernels that accept the current layout.");
    tlm_sbuf_reset(&b);
    tlm_sbuf_printf(&b, "kernel_summary:CONV*:layout_us=%.3f;total_us=%.3f",
                    lay, all);
    fnd_setb(f, &x->evidence, &b);
    tlm_sbuf_free(&b);
}

static void s16(const fnd_ctx *c, tlm_findings *f)
{
    const tlm_tab *u = c->uni;
    for (size_t i = 0; u && i < u->nrows; i++) {
        const char *cat = fnd_str(u, i, "op category");
        size_t j = 0; /* first row of this category */
        while (j < i && strcmp(fnd_str(u, j, "op category"), cat))
            j++;
        if (j < i)
            continue;
        double sync = 0, tsum = 0;
        size_t n = 0;
        for (size_t r = i; r < u->nrows; r++) {
            if (strcmp(fnd_str(u, r, "op category"), cat))
                continue;
            double t = fnd_num(u, r, FND_US);
            double d = fnd_num(u, r, "total_duration_us");
            if (!isnan(t))
                tsum += t;
            if (t > 0 && d > T(c, sync_factor) * t) {
                sync += d - t;
                n++;
            }
        }
        double ms = sync / 1000.0;
        if (!(ms > T(c, sync_ms)) || !(ms > T(c, sync_frac) * tsum / 1000.0))
            continue;
        tlm_finding *x = fnd_add(f, "S16", TLM_FIND_LOW);
        if (!x)
            return;
        fnd_set(f, &x->subject, cat);
        tlm_sbuf b;
        tlm_sbuf_init(&b);
        tlm_sbuf_printf(&b, "%s ops spend %.3f ms on the CPU beyond their "
                            "GPU time (%zu shapes): host-side "
                            "synchronisation or launch overhead.",
                        *cat ? cat : "(no category)", ms, n);
        fnd_setb(f, &x->text, &b);
        fnd_set(f, &x->action_a, "Find the synchronising call in the op's "
                                 "call stack (tlmpi tree view).");
        tlm_sbuf_reset(&b);
        tlm_sbuf_printf(&b, "unified:op category=%s:sync_ms=%.4f", cat, ms);
        fnd_setb(f, &x->evidence, &b);
        tlm_sbuf_free(&b);
    }
}

void fnd_rules_misc(const fnd_ctx *c, tlm_findings *f)
{
    if (!(c->e2e_us > 0))
        return;
    if (c->gemm)
        s11(c, f);
    else
        fnd_skip(f, "S11", "no GEMM table");
    if (c->ops)
        s12(c, f);
    else
        fnd_skip(f, "S12", "no ops_summary table");
    if (c->ks)
        s15(c, f);
    else
        fnd_skip(f, "S15", "no kernel_summary table");
    if (c->uni)
        s16(c, f);
}
