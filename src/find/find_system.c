/*
 * find_system.c - the system rules of spec findings.md §4: S1 GPU
 * utilisation, S2 idle, S3 exposed communication, S4 exposed memory
 * copies, S10 launch-bound, and the executive summary with S5's top
 * operations.
 */
#include <string.h>

#include "find_internal.h"

#define T(c, n) ((c)->o->t[TLM_FIND_T_##n])

typedef struct tl_shares {
    double cmp, idle, comm, mc, e2e_ms, idle_ms, comm_ms, comm_tot_ms, mc_ms;
} tl_shares;

static void shares(const fnd_ctx *c, tl_shares *s)
{
    double ms;
    fnd_timeline(c->tl, "computation_time", &ms, &s->cmp);
    fnd_timeline(c->tl, "idle_time", &s->idle_ms, &s->idle);
    fnd_timeline(c->tl, "exposed_comm_time", &s->comm_ms, &s->comm);
    fnd_timeline(c->tl, "exposed_memcpy_time", &s->mc_ms, &s->mc);
    fnd_timeline(c->tl, "total_comm_time", &s->comm_tot_ms, &ms);
    s->e2e_ms = c->e2e_us / 1000.0;
}

static void s1(const fnd_ctx *c, tlm_findings *f, const tl_shares *s)
{
    if (!(s->cmp < T(c, compute_target)))
        return;
    tlm_finding *x = fnd_add(f, "S1",
                             s->cmp < T(c, compute_high) ? TLM_FIND_HIGH
                                                         : TLM_FIND_MEDIUM);
    if (!x)
        return;
    const char *largest = "idle time";
    double big = s->idle;
    if (s->comm > big)
        largest = "exposed communication", big = s->comm;
    if (s->mc > big)
        largest = "exposed memory copies";
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_sbuf_printf(&b,
                    "GPU kernels compute for %.1f %% of the %.3f ms window "
                    "(target >= %.0f %%); the rest is idle %.1f %%, exposed "
                    "communication %.1f %%, exposed memory copies %.1f %%.",
                    s->cmp, s->e2e_ms, T(c, compute_target), s->idle,
                    s->comm, s->mc);
    fnd_setb(f, &x->text, &b);
    tlm_sbuf_reset(&b);
    tlm_sbuf_printf(&b, "Start with the largest non-compute share (%s); "
                        "see its finding.", largest);
    fnd_setb(f, &x->action_a, &b);
    tlm_sbuf_reset(&b);
    tlm_sbuf_printf(&b, "gpu_timeline:computation_time:percent=%.4f", s->cmp);
    fnd_setb(f, &x->evidence, &b);
    fnd_set(f, &x->subject, "computation_time");
    x->pct_e2e = s->cmp;
    tlm_sbuf_free(&b);
}

static void s2(const fnd_ctx *c, tlm_findings *f, const tl_shares *s)
{
    if (!(s->idle > T(c, idle)))
        return;
    tlm_finding *x = fnd_add(f, "S2", s->idle > T(c, idle_high)
                                          ? TLM_FIND_HIGH
                                          : TLM_FIND_LOW);
    if (!x)
        return;
    fnd_impact(x, c->o, 0.25 * s->idle, 0.5 * s->idle, s->idle, 0);
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_sbuf_printf(&b, "The GPU is idle %.1f %% of the time (%.3f ms).",
                    s->idle, s->idle_ms);
    fnd_setb(f, &x->text, &b);
    fnd_set(f, &x->action_a,
            "Reduce host-side gaps: capture steady-state steps as a GPU "
            "graph, or compile the model to cut launches.");
    fnd_set(f, &x->action_b,
            "Look at the gaps between kernels in a timeline viewer "
            "(Perfetto) to see whether they follow synchronisations, data "
            "loading or CPU-heavy ops.");
    tlm_sbuf_reset(&b);
    tlm_sbuf_printf(&b, "gpu_timeline:idle_time:percent=%.4f", s->idle);
    fnd_setb(f, &x->evidence, &b);
    fnd_set(f, &x->subject, "idle_time");
    x->pct_e2e = s->idle;
    tlm_sbuf_free(&b);
}

static void top_colls(const fnd_ctx *c, tlm_sbuf *b)
{
    const tlm_tab *t = c->coll;
    size_t idx[3] = {0}, n = 0;
    for (size_t i = 0; t && i < t->nrows; i++) {
        double d = fnd_num(t, i, "dur_sum");
        size_t k = n < 3 ? n++ : 3;
        while (k > 0 && fnd_num(t, idx[k - 1], "dur_sum") < d) {
            if (k < 3)
                idx[k] = idx[k - 1];
            k--;
        }
        if (k < 3)
            idx[k] = i;
    }
    for (size_t q = 0; q < n; q++)
        tlm_sbuf_printf(b, "%s%s %s %.1f MB \xc3\x97%.0f", q ? "; " : "",
                        fnd_str(t, idx[q], "Collective name"),
                        fnd_str(t, idx[q], "dtype"),
                        fnd_num(t, idx[q], "In msg size (MB)_first"),
                        fnd_num(t, idx[q], "operation_count"));
    if (!n)
        tlm_sbuf_puts(b, "no coll_analysis table");
}

static void s3(const fnd_ctx *c, tlm_findings *f, const tl_shares *s)
{
    double ov = s->comm_tot_ms > 0 ? 1.0 - s->comm_ms / s->comm_tot_ms : 1.0;
    if (!(s->comm > T(c, comm) ||
          (s->comm_tot_ms >= T(c, comm_min_ms) && ov < T(c, overlap))))
        return;
    tlm_finding *x = fnd_add(f, "S3", s->comm > T(c, comm_high)
                                          ? TLM_FIND_HIGH
                                          : TLM_FIND_MEDIUM);
    if (!x)
        return;
    fnd_impact(x, c->o, 0.25 * s->comm, 0.5 * s->comm, s->comm, 0);
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_sbuf_printf(&b,
                    "Communication not hidden behind compute takes %.1f %% "
                    "of the window (%.3f of %.3f ms communication; %.0f %% "
                    "overlapped). Largest collectives: ",
                    s->comm, s->comm_ms, s->comm_tot_ms, 100.0 * ov);
    top_colls(c, &b);
    tlm_sbuf_puts(&b, ". Note: one rank shows collective types, sizes and "
                      "times only; waiting for late ranks is not separable "
                      "from transfer (see the multi-rank tables of tlmpi "
                      "--trace_dir).");
    fnd_setb(f, &x->text, &b);
    fnd_set(f, &x->action_a,
            "Overlap collectives with compute (bucketed all-reduce, "
            "separate stream) or reduce payload/frequency.");
    fnd_set(f, &x->action_b,
            "Check topology and collective configuration for these sizes.");
    tlm_sbuf_reset(&b);
    tlm_sbuf_printf(&b,
                    "gpu_timeline:exposed_comm_time:percent=%.4f;"
                    "gpu_timeline:total_comm_time:time ms=%.4f",
                    s->comm, s->comm_tot_ms);
    fnd_setb(f, &x->evidence, &b);
    fnd_set(f, &x->subject, "exposed_comm_time");
    x->pct_e2e = s->comm;
    tlm_sbuf_free(&b);
}

static void s4(const fnd_ctx *c, tlm_findings *f, const tl_shares *s)
{
    const char *dirs[] = {"D2H", "H2D"};
    int hit_dir = -1;
    double cnt[2] = {0, 0}, us[2] = {0, 0}, by[2] = {0, 0};
    for (size_t i = 0; c->mc && i < c->mc->nrows; i++)
        for (int d = 0; d < 2; d++)
            if (!strcmp(fnd_str(c->mc, i, "direction"), dirs[d])) {
                cnt[d] = fnd_num(c->mc, i, "count");
                us[d] = fnd_num(c->mc, i, "total_us");
                by[d] = fnd_num(c->mc, i, "bytes");
                if (hit_dir < 0 &&
                    (cnt[d] > T(c, memcpy_count) ||
                     100.0 * us[d] / c->e2e_us > T(c, memcpy_dir_pct)))
                    hit_dir = d;
            }
    if (!(s->mc > T(c, memcpy)) && hit_dir < 0)
        return;
    tlm_find_sev sev = s->mc > T(c, memcpy_high) ? TLM_FIND_HIGH
                       : s->mc > T(c, memcpy)    ? TLM_FIND_MEDIUM
                                                 : TLM_FIND_LOW;
    tlm_finding *x = fnd_add(f, "S4", sev);
    if (!x)
        return;
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_sbuf_printf(&b, "Memory copies not overlapped with compute take "
                        "%.1f %% (%.3f ms)",
                    s->mc, s->mc_ms);
    for (int d = 0; d < 2; d++)
        if (cnt[d] > 0)
            tlm_sbuf_printf(&b, "; %s: %.0f copies, %.3f ms, avg %.0f B",
                            dirs[d], cnt[d], us[d] / 1000.0,
                            by[d] / cnt[d]);
    tlm_sbuf_putc(&b, '.');
    fnd_setb(f, &x->text, &b);
    fnd_set(f, &x->action_a,
            "Remove host round-trips (`.item()`, `.cpu()`, printing "
            "tensors) from the step; keep data on the device.");
    fnd_set(f, &x->action_b,
            "Use pinned memory and non-blocking copies on a side stream.");
    tlm_sbuf_reset(&b);
    tlm_sbuf_printf(&b, "gpu_timeline:exposed_memcpy_time:percent=%.4f",
                    s->mc);
    if (hit_dir >= 0)
        tlm_sbuf_printf(&b, ";memcpy_summary:%s:count=%.0f", dirs[hit_dir],
                        cnt[hit_dir]);
    fnd_setb(f, &x->evidence, &b);
    fnd_set(f, &x->subject, "exposed_memcpy_time");
    x->pct_e2e = s->mc;
    tlm_sbuf_free(&b);
}

static void s10(const fnd_ctx *c, tlm_findings *f, const tl_shares *s)
{
    if (!c->ks || !c->skh) {
        fnd_skip(f, "S10", "needs kernel_summary and short_kernel_histogram");
        return;
    }
    double shortn = fnd_sum(c->skh, "count");
    double n = fnd_sum(c->ks, "Kernel duration (\xc2\xb5s)_count");
    double busy_ms, pct;
    fnd_timeline(c->tl, "busy_time", &busy_ms, &pct);
    double frac = n > 0 ? shortn / n : 0, avg = n > 0 ? busy_ms * 1e3 / n : 0;
    if (!(s->idle > T(c, idle_high)) ||
        !(frac >= T(c, short_frac) || (n > 0 && avg < T(c, short_us))))
        return;
    tlm_finding *x = fnd_add(f, "S10", TLM_FIND_HIGH);
    if (!x)
        return;
    fnd_impact(x, c->o, 0.25 * s->idle, 0.5 * s->idle, s->idle, 0);
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_sbuf_printf(&b,
                    "%.0f of %.0f kernels (%.0f %%) run for less than %.0f "
                    "us while the GPU idles %.1f %%: the host cannot launch "
                    "work fast enough.",
                    shortn, n, 100.0 * frac, T(c, short_us), s->idle);
    fnd_setb(f, &x->text, &b);
    fnd_set(f, &x->action_a,
            "GPU graph capture; compile/fuse small ops (torch.compile).");
    fnd_set(f, &x->action_b,
            "Batch tiny launches; avoid per-op synchronisation.");
    tlm_sbuf_reset(&b);
    tlm_sbuf_printf(&b, "short_kernel_histogram:count=%.0f;kernel_summary:"
                        "count=%.0f;avg_us=%.2f",
                    shortn, n, avg);
    fnd_setb(f, &x->evidence, &b);
    fnd_set(f, &x->subject, "kernels");
    x->pct_e2e = s->idle;
    tlm_sbuf_free(&b);
}

void fnd_rules_system(const fnd_ctx *c, tlm_findings *f)
{
    if (!c->tl || !(c->e2e_us > 0)) {
        fnd_skip(f, "S1-S4, S10", "no gpu_timeline table");
        return;
    }
    tl_shares s;
    shares(c, &s);
    s1(c, f, &s);
    s2(c, f, &s);
    if (!c->coll)
        fnd_skip(f, "S3", "no coll_analysis table (collective list left out)");
    s3(c, f, &s);
    if (!c->mc)
        fnd_skip(f, "S4", "no memcpy_summary table (per-direction rule "
                          "left out)");
    s4(c, f, &s);
    s10(c, f, &s);
}

void fnd_summary(const fnd_ctx *c, tlm_findings *f)
{
    tlm_sbuf *b = &f->summary;
    if (c->tl && c->e2e_us > 0) {
        tl_shares s;
        shares(c, &s);
        tlm_sbuf_printf(b,
                        "| total time (ms) | compute %% | idle %% | exposed "
                        "comm %% | exposed memcpy %% |\n|---:|---:|---:|---:|"
                        "---:|\n| %.3f | %.1f | %.1f | %.1f | %.2f |\n\n",
                        s.e2e_ms, s.cmp, s.idle, s.comm, s.mc);
    }
    if (!c->ops || !c->ops->nrows) {
        fnd_skip(f, "S5", "no ops_summary table");
        return;
    }
    tlm_sbuf_puts(b, "| Rank | Operation | Time (ms) | % Compute |\n"
                     "|---:|---|---:|---:|\n");
    size_t n = c->ops->nrows;
    if (n > (size_t)T(c, top_ops))
        n = (size_t)T(c, top_ops);
    for (size_t i = 0; i < n; i++) {
        tlm_sbuf_printf(b, "| %zu | ", i + 1);
        tlm_sbuf_md(b, fnd_str(c->ops, i, "name"), 80, TLM_MD_TEXT);
        tlm_sbuf_printf(b, " | %.3f | %.1f |\n",
                        fnd_num(c->ops, i, "total_direct_kernel_time_ms"),
                        fnd_num(c->ops, i, "Percentage (%)"));
    }
    tlm_sbuf_putc(b, '\n');
}
