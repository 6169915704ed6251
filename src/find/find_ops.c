/*
 * find_ops.c - the per-op rules of spec findings.md §4 over the analysis
 * set of unified_perf_summary rows: S6 low efficiency (with S13's
 * short-sequence cap, S14's baseline note, S18's projection, S19's
 * kernel library), S7 anomaly, S8 no model, S9 replay flags, S14 norm vs
 * the elementwise baseline, S17 variance, S19 generic kernels.
 */
#include <stdlib.h>
#include <string.h>

#include "find_internal.h"

#define T(c, n) ((c)->o->t[TLM_FIND_T_##n])

/* Byte-weighted bandwidth of large elementwise rows, % of peak; NaN when
 * there is none or no peak. */
static double baseline_eff(const fnd_ctx *c)
{
    static const char *const names[] = {"aten::add",   "aten::add_",
                                        "aten::mul",   "aten::mul_",
                                        "aten::copy_", "aten::fill_"};
    double bytes = 0, secs = 0;
    for (size_t i = 0; c->hw && i < c->uni->nrows; i++) {
        const char *nm = fnd_str(c->uni, i, "name");
        int hit = 0;
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
            hit |= !strcmp(nm, names[k]);
        double mb = fnd_num(c->uni, i, "Data Moved (MB)");
        double t = fnd_num(c->uni, i, FND_US);
        double n = fnd_num(c->uni, i, "operation_count");
        if (!hit || !(mb >= T(c, base_min_mb)) || !(t > 0) || isnan(n))
            continue;
        bytes += mb * 1048576.0 * n;
        secs += t * 1e-6;
    }
    if (!(secs > 0))
        return NAN;
    return 100.0 * bytes / secs / (c->hw->bw * 1e12);
}

/* S9: op names whose share of compute is above the threshold. */
typedef struct replay_set {
    const char **names;
    double *share;
    size_t n;
} replay_set;

static void replay_names(const fnd_ctx *c, replay_set *rs, tlm_findings *f)
{
    size_t nr = c->uni->nrows;
    rs->names = calloc(nr ? nr : 1, sizeof *rs->names);
    rs->share = calloc(nr ? nr : 1, sizeof *rs->share);
    rs->n = 0;
    if (!rs->names || !rs->share) {
        f->oom = 1;
        return;
    }
    size_t ng = 0;
    for (size_t i = 0; i < nr; i++) { /* distinct names, shares */
        const char *nm = fnd_str(c->uni, i, "name");
        double t = fnd_num(c->uni, i, FND_US);
        size_t k = 0;
        while (k < ng && strcmp(rs->names[k], nm))
            k++;
        if (k == ng)
            rs->names[ng++] = nm;
        if (!isnan(t) && c->cmp_us > 0)
            rs->share[k] += 100.0 * t / c->cmp_us;
    }
    for (size_t k = 0; k < ng; k++)
        if (rs->share[k] > T(c, replay_share)) {
            rs->names[rs->n] = rs->names[k];
            rs->share[rs->n++] = rs->share[k];
        }
}

static double replay_share(const replay_set *rs, const char *nm)
{
    for (size_t k = 0; k < rs->n; k++)
        if (!strcmp(rs->names[k], nm))
            return rs->share[k];
    return NAN;
}

/* S13: the usual eff_cmp band's low end for the row's N_Q, or NaN. */
static double sdpa_band_low(const fnd_ctx *c, size_t row, double *nq)
{
    const char *cat = fnd_str(c->uni, row, "op category");
    if (strncmp(cat, "SDPA", 4) != 0)
        return NAN;
    const char *p = strstr(fnd_str(c->uni, row, "perf_params"), "'N_Q':");
    if (!p)
        return NAN;
    *nq = strtod(p + 6, NULL);
    if (!(*nq > 0))
        return NAN;
    return *nq < 1024 ? 5 : *nq < 2048 ? 20 : *nq <= 4096 ? 40 : 50;
}

static void projection(const fnd_ctx *c, const fnd_rowm *m, tlm_sbuf *b)
{
    int any = 0;
    const double targets[] = {50, 80};
    for (size_t k = 0; k < 2; k++) {
        double X = targets[k];
        if (!(X > m->eff))
            continue;
        if (!any)
            tlm_sbuf_puts(b, "\n\n| Target efficiency | Time (ms) | E2E "
                             "reduction | speedup |\n|---:|---:|---:|---:|\n");
        any = 1;
        double tx = m->T * m->eff / X, save = m->T - tx;
        tlm_sbuf_printf(b, "| %.0f %% | %.3f | %.2f %% | %.3f\xc3\x97 |\n", X,
                        tx / 1000.0, 100.0 * save / c->e2e_us,
                        c->e2e_us / (c->e2e_us - save));
    }
}

static void common_fields(const fnd_ctx *c, tlm_findings *f, tlm_finding *x,
                          size_t row, const fnd_rowm *m)
{
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    fnd_subject(&b, c->uni, row);
    fnd_setb(f, &x->subject, &b);
    tlm_sbuf_reset(&b);
    tlm_sbuf_printf(&b, "unified:ex_UID=%.0f:%s=%.4f",
                    fnd_num(c->uni, row, "ex_UID"), FND_US, m->T);
    if (!isnan(m->tbs))
        tlm_sbuf_printf(&b, ";unified:ex_UID=%.0f:TB/s_mean=%.4f",
                        fnd_num(c->uni, row, "ex_UID"), m->tbs);
    fnd_setb(f, &x->evidence, &b);
    tlm_sbuf_free(&b);
    x->pct_e2e = m->pct_e2e;
    if (m->defined)
        x->eff = m->eff;
    snprintf(x->bound, sizeof x->bound, "%s", m->bound);
}

static void s6(const fnd_ctx *c, tlm_findings *f, size_t row,
               const fnd_rowm *m, double base_eff, const replay_set *rs)
{
    double gap = fmax(0.0, 1.0 - m->eff / 100.0), hi = gap * m->pct_e2e;
    double mid = 0.875 * hi;
    if (!(m->eff < T(c, eff_low) ||
          (m->eff < T(c, eff_ok) && mid >= T(c, sev_medium))))
        return;
    tlm_finding *x = fnd_add(f, "S6", TLM_FIND_LOW);
    if (!x)
        return;
    fnd_impact(x, c->o, 0.75 * hi, mid, hi, 1);
    common_fields(c, f, x, row, m);
    int mem = strcmp(m->bound, "compute") != 0;
    if (m->eff >= T(c, eff_low))
        x->sev = TLM_FIND_LOW;
    double nq = NAN, blow = sdpa_band_low(c, row, &nq);
    int usual = !isnan(blow) && m->eff_cmp >= blow;
    if (usual)
        x->sev = TLM_FIND_LOW;
    const char *lib = fnd_kernel_library(
        fnd_str(c->uni, row, "name"),
        fnd_str(c->uni, row, "kernel_details_summary"));
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_sbuf_printf(&b, "%s (%.0f calls, %.3f ms, %.1f %% of E2E) is "
                        "%s-bound (FLOPS/Byte %.1f",
                    x->subject, fnd_num(c->uni, row, "operation_count"),
                    m->T / 1000.0, m->pct_e2e, m->bound, m->fpb);
    if (!isnan(m->ridge))
        tlm_sbuf_printf(&b, ", ridge %.0f", m->ridge);
    tlm_sbuf_printf(&b, ") and reaches %.1f %% of the roofline (%.2f TB/s "
                        "of %.2f",
                    m->eff, m->tbs, c->hw->bw);
    if (!isnan(m->tfs) && !isnan(m->peak))
        tlm_sbuf_printf(&b, ", %.1f TFLOP/s of %.0f", m->tfs, m->peak);
    tlm_sbuf_printf(&b, ") \xe2\x80\x94 %s: low efficiency \xe2\x80\x94 "
                        "profile the replay with a kernel profiler.",
                    fnd_band(c->o, m->eff));
    if (lib)
        tlm_sbuf_printf(&b, " Kernel library: %s.", lib);
    const char *kd = fnd_str(c->uni, row, "trunc_kernel_details");
    if (*kd)
        tlm_sbuf_printf(&b, " Kernels: %.300s", kd);
    if (usual)
        tlm_sbuf_printf(&b, " Within the usual range for sequence length "
                            "%.0f.", nq);
    if (mem && !isnan(base_eff) && base_eff < T(c, base_low))
        tlm_sbuf_printf(&b, " Even simple elementwise ops reach only %.0f %% "
                            "here (small tensors / launch overhead).",
                        base_eff);
    double share = replay_share(rs, fnd_str(c->uni, row, "name"));
    if (!isnan(share) && m->eff < T(c, replay_eff)) {
        x->replay = 1;
        tlm_sbuf_printf(&b, " Replay artefact recommended for the kernel "
                            "team (%.1f %% of compute).",
                        share);
    }
    fnd_setb(f, &x->text, &b);
    fnd_set(f, &x->action_a, mem ? "Fuse it with its neighbours to cut "
                                   "memory traffic."
                                 : "Batch small GEMMs / use lower precision "
                                   "if the model tolerates it.");
    fnd_set(f, &x->action_b,
            mem ? "Kernel tuning candidate: hand the replay artefact to the "
                  "kernel team (memory access pattern)."
                : "Tile-size / kernel-selection tuning for these shapes.");
    tlm_sbuf_reset(&b);
    tlm_sbuf_printf(&b, "%s: eff_mem %.1f %%, eff_cmp %.1f %%, band %s.",
                    x->subject, m->eff_mem, m->eff_cmp,
                    fnd_band(c->o, m->eff));
    projection(c, m, &b);
    fnd_setb(f, &x->detail, &b);
    tlm_sbuf_free(&b);
}

static void s7(const fnd_ctx *c, tlm_findings *f, size_t row,
               const fnd_rowm *m)
{
    tlm_finding *x = fnd_add(f, "S7", TLM_FIND_INFO);
    if (!x)
        return;
    common_fields(c, f, x, row, m);
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_sbuf_printf(&b, "%s exceeds the peak by %.1f %% \xe2\x80\x94 check "
                        "the peak values or the measurement.",
                    x->subject, m->eff - 100.0);
    fnd_setb(f, &x->text, &b);
    tlm_sbuf_free(&b);
}

static void s8(const fnd_ctx *c, tlm_findings *f, size_t row,
               const fnd_rowm *m, const replay_set *rs)
{
    tlm_finding *x = fnd_add(f, "S8", TLM_FIND_LOW);
    if (!x)
        return;
    fnd_impact(x, c->o, 0.15 * m->pct_e2e, 0.30 * m->pct_e2e,
               0.45 * m->pct_e2e, 1);
    common_fields(c, f, x, row, m);
    const char *nm = fnd_str(c->uni, row, "name");
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    if (strstr(nm, "(Synthetic Op)"))
        tlm_sbuf_printf(&b, "%s takes %.1f %% of E2E: kernels not "
                            "attributed to a modelled op.",
                        x->subject, m->pct_e2e);
    else
        tlm_sbuf_printf(&b, "%s takes %.1f %% of E2E but has no performance "
                            "model, so its efficiency is unknown%s%s.",
                        x->subject, m->pct_e2e, m->why ? " (" : "",
                        m->why ? "no peak for its Compute Spec)" : "");
    if (!isnan(replay_share(rs, nm))) {
        x->replay = 1;
        tlm_sbuf_printf(&b, " Replay artefact recommended for the kernel "
                            "team (%.1f %% of compute).",
                        replay_share(rs, nm));
    }
    fnd_setb(f, &x->text, &b);
    fnd_set(f, &x->action_a,
            "Add a FLOP/byte model for it (a TraceLens perf-model extension "
            "or a tlmpi model) before judging it; replay it to time it in "
            "isolation.");
    tlm_sbuf_free(&b);
}

static void s14(const fnd_ctx *c, tlm_findings *f, size_t row,
                const fnd_rowm *m, double base_eff)
{
    const char *nm = fnd_str(c->uni, row, "name");
    const char *cat = fnd_str(c->uni, row, "op category");
    if (isnan(base_eff) || strcmp(m->bound, "memory") != 0 ||
        !(strstr(nm, "norm") || !strncmp(cat, "NORM_", 5)) ||
        !(m->eff_mem < T(c, norm_eff)) || !(base_eff >= T(c, base_eff)))
        return;
    tlm_finding *x = fnd_add(f, "S14", TLM_FIND_HIGH);
    if (!x)
        return;
    common_fields(c, f, x, row, m);
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_sbuf_printf(&b, "%s reaches %.1f %% of peak bandwidth while simple "
                        "elementwise ops reach %.0f %%: the kernel, not the "
                        "hardware, is the limit.",
                    x->subject, m->eff_mem, base_eff);
    fnd_setb(f, &x->text, &b);
    fnd_set(f, &x->action_b, "Replay artefact + kernel tuning.");
    tlm_sbuf_reset(&b);
    projection(c, m, &b);
    if (b.len)
        fnd_setb(f, &x->detail, &b);
    tlm_sbuf_free(&b);
}

static void s17(const fnd_ctx *c, tlm_findings *f, size_t row,
                const fnd_rowm *m)
{
    double cov = fnd_num(c->uni, row, FND_US_STD) /
                 fnd_num(c->uni, row, FND_US_MEAN);
    if (!(fnd_num(c->uni, row, "operation_count") > T(c, var_count)) ||
        !(m->pct_e2e >= T(c, var_pct)) || !(cov > T(c, var_cov)))
        return;
    tlm_finding *x = fnd_add(f, "S17", TLM_FIND_LOW);
    if (!x)
        return;
    common_fields(c, f, x, row, m);
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_sbuf_printf(&b, "%s kernel time varies strongly (CoV %.2f); the mean "
                        "hides slow instances.",
                    x->subject, cov);
    fnd_setb(f, &x->text, &b);
    tlm_sbuf_free(&b);
}

static void s19(const fnd_ctx *c, tlm_findings *f, size_t row,
                const fnd_rowm *m)
{
    const char *cat = fnd_str(c->uni, row, "op category");
    if (strcmp(cat, "GEMM") && strncmp(cat, "CONV_", 5) &&
        strncmp(cat, "SDPA_", 5))
        return;
    const char *lib = fnd_kernel_library(
        fnd_str(c->uni, row, "name"),
        fnd_str(c->uni, row, "kernel_details_summary"));
    if (!lib || strcmp(lib, "PyTorch native") != 0)
        return;
    tlm_finding *x = fnd_add(f, "S19", TLM_FIND_LOW);
    if (!x)
        return;
    common_fields(c, f, x, row, m);
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_sbuf_printf(&b, "%s runs a generic framework kernel, not a vendor "
                        "library kernel.",
                    x->subject);
    fnd_setb(f, &x->text, &b);
    fnd_set(f, &x->action_b, "Check why the vendor GEMM library is not "
                             "selected for these shapes and dtypes.");
    tlm_sbuf_free(&b);
}

static void replay_analysis(const fnd_ctx *c, const replay_set *rs,
                            tlm_findings *f)
{
    for (size_t k = 0; k < rs->n; k++) {
        size_t n = 0;
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < c->uni->nrows; i++) {
            if (strcmp(fnd_str(c->uni, i, "name"), rs->names[k]))
                continue;
            fnd_rowm m;
            fnd_row_metrics(c, i, &m);
            if (m.defined && !(m.eff < T(c, replay_eff)))
                continue;
            n++;
            if (m.defined) {
                lo = fmin(lo, m.eff);
                hi = fmax(hi, m.eff);
            }
        }
        if (!n)
            continue;
        tlm_sbuf_puts(&f->analysis, "- S9: Replay artefact recommended for "
                                    "the kernel team: ");
        tlm_sbuf_printf(&f->analysis, "%zu shapes of ", n);
        tlm_sbuf_md(&f->analysis, rs->names[k], 120, TLM_MD_TEXT);
        tlm_sbuf_printf(&f->analysis, " (%.1f %% of compute", rs->share[k]);
        if (lo <= hi)
            tlm_sbuf_printf(&f->analysis, ", %.1f\xe2\x80\x93%.1f %% of "
                                          "roofline", lo, hi);
        tlm_sbuf_puts(&f->analysis, ").\n");
    }
}

void fnd_rules_ops(const fnd_ctx *c, tlm_findings *f)
{
    if (!c->uni || !(c->e2e_us > 0)) {
        fnd_skip(f, "S6-S9, S13, S14, S17-S19",
                 c->uni ? "no gpu_timeline table"
                        : "no unified_perf_summary table");
        return;
    }
    if (!c->hw)
        fnd_skip(f, "S6, S7, S13, S14, S18",
                 "no hardware peaks given (--platform or "
                 "--gpu_arch_json_path)");
    double base = baseline_eff(c);
    if (!isnan(base))
        tlm_sbuf_printf(&f->analysis, "- S14: elementwise baseline reaches "
                                      "%.1f %% of peak bandwidth.\n",
                        base);
    replay_set rs;
    replay_names(c, &rs, f);
    size_t taken = 0;
    for (size_t i = 0; i < c->uni->nrows && !f->oom; i++) {
        fnd_rowm m;
        fnd_row_metrics(c, i, &m);
        s17(c, f, i, &m);
        if (!(m.pct_e2e >= T(c, min_pct)) || taken >= (size_t)T(c, max_rows))
            continue;
        taken++;
        s19(c, f, i, &m);
        if (m.defined && m.anomaly)
            s7(c, f, i, &m);
        else if (m.defined) {
            s6(c, f, i, &m, base, &rs);
            s14(c, f, i, &m, base);
        } else if (fnd_bool(c->uni, i, "has_perf_model") != 1 || c->hw)
            s8(c, f, i, &m, &rs);
    }
    if (!f->oom)
        replay_analysis(c, &rs, f);
    free(rs.names);
    free(rs.share);
}
