/*
 * find_compare.c - the comparative rules of spec findings.md §5, target
 * vs reference: C1 timeline deltas, C2 slowdowns the hardware does not
 * explain, C3 explained ones, C4 latency-bound gaps, C5 one-sided ops,
 * C6 call-count mismatches.  Unified rows are matched on the compare
 * tool's key (name, Input type, Input Dims, Input Strides, Concrete
 * Inputs).
 */
#include <stdlib.h>
#include <string.h>

#include "find_internal.h"

#define T(c, n) ((c)->o->t[TLM_FIND_T_##n])

static const char *const key_cols[] = {"name", "Input type", "Input Dims",
                                       "Input Strides", "Concrete Inputs"};

static int same_key(const tlm_tab *a, size_t i, const tlm_tab *b, size_t j)
{
    for (size_t k = 0; k < 5; k++)
        if (strcmp(fnd_str(a, i, key_cols[k]), fnd_str(b, j, key_cols[k])))
            return 0;
    return 1;
}

/* Index of b's row matching a's row i, or -1. */
static long match(const tlm_tab *a, size_t i, const tlm_tab *b)
{
    for (size_t j = 0; b && j < b->nrows; j++)
        if (same_key(a, i, b, j))
            return (long)j;
    return -1;
}

/* Roofline time (s) of one call of row i on a side, NaN if unknown. */
static double roof(const fnd_ctx *c, const tlm_tab *u, size_t i)
{
    if (!c->hw || fnd_bool(u, i, "has_perf_model") != 1)
        return NAN;
    double F = fnd_num(u, i, "GFLOPS") * 1e9;
    double B = fnd_num(u, i, "Data Moved (MB)") * 1048576.0;
    double pk = tlm_find_hw_peak(c->hw, fnd_str(u, i, "Compute Spec"));
    if (isnan(F) || isnan(B) || (F > 0 && isnan(pk)))
        return NAN;
    double r = fmax(F > 0 ? F / (pk * 1e12) : 0, B / (c->hw->bw * 1e12));
    return r > 0 ? r : NAN;
}

/* "12.345 ms (+1.2 % vs reference)"; "unknown" without a value, no
 * percentage of a zero or unknown reference. */
static void ms_vs(tlm_sbuf *s, double t, double r)
{
    if (isnan(t)) {
        tlm_sbuf_puts(s, "unknown");
        return;
    }
    tlm_sbuf_printf(s, "%.3f ms", t);
    if (!isnan(r) && r != 0.0)
        tlm_sbuf_printf(s, " (%+.1f %% vs reference)", 100.0 * (t - r) / r);
}

static void c1(const fnd_ctx *t, const fnd_ctx *r, tlm_findings *f)
{
    static const char *const rows[] = {"computation_time",
                                       "exposed_comm_time",
                                       "exposed_memcpy_time", "idle_time",
                                       "total_time"};
    tlm_sbuf *b = &f->summary;
    tlm_sbuf_puts(b, "| type | Reference (ms) | Target (ms) | \xce\x94 ms | "
                     "\xce\x94 % | Reference % | Target % |\n"
                     "|---|---:|---:|---:|---:|---:|---:|\n");
    double tms[5], rms[5], tp[5], rp[5];
    for (size_t k = 0; k < 5; k++) {
        fnd_timeline(t->tl, rows[k], &tms[k], &tp[k]);
        fnd_timeline(r->tl, rows[k], &rms[k], &rp[k]);
        if (isnan(tms[k]) || isnan(rms[k])) { /* no such row (rocprof) */
            tlm_sbuf_printf(b, "| %s | - | - | - | - | - | - |\n", rows[k]);
            continue;
        }
        tlm_sbuf_printf(b, "| %s | %.3f | %.3f | %+.3f | ", rows[k], rms[k],
                        tms[k], tms[k] - rms[k]);
        if (rms[k] != 0.0) /* no percentage of nothing */
            tlm_sbuf_printf(b, "%+.1f", 100.0 * (tms[k] - rms[k]) / rms[k]);
        else
            tlm_sbuf_puts(b, "-");
        tlm_sbuf_printf(b, " | %.2f | %.2f |\n", rp[k], tp[k]);
    }
    tlm_sbuf_putc(b, '\n');
    tlm_finding *x = fnd_add(f, "C1", TLM_FIND_INFO);
    if (!x)
        return;
    tlm_sbuf s;
    tlm_sbuf_init(&s);
    tlm_sbuf_puts(&s, "Target compute time is ");
    ms_vs(&s, tms[0], rms[0]);
    tlm_sbuf_puts(&s, "; total ");
    ms_vs(&s, tms[4], rms[4]);
    tlm_sbuf_putc(&s, '.');
    fnd_setb(f, &x->text, &s);
    fnd_set(f, &x->subject, "computation_time");
    x->ratio = tms[0] / rms[0];
    for (size_t k = 1; k < 4; k++) {
        if (!(tp[k] - rp[k] >= T(t, timeline_points)))
            continue;
        tlm_finding *y = fnd_add(f, "C1", TLM_FIND_MEDIUM);
        if (!y)
            break;
        tlm_sbuf_reset(&s);
        tlm_sbuf_printf(&s, "Target %s is %.1f %% of its window vs %.1f %% "
                            "on the reference (%+.1f points).",
                        rows[k], tp[k], rp[k], tp[k] - rp[k]);
        fnd_setb(f, &y->text, &s);
        fnd_set(f, &y->subject, rows[k]);
        y->pct_e2e = tp[k];
        tlm_sbuf_reset(&s);
        tlm_sbuf_printf(&s, "gpu_timeline:%s:percent=%.4f/%.4f", rows[k],
                        tp[k], rp[k]);
        fnd_setb(f, &y->evidence, &s);
        fnd_set(f, &y->action_a, "See the target's standalone finding for "
                                 "this share.");
    }
    tlm_sbuf_free(&s);
}

/* Collective (name, dtype, size) present on one side only: one line. */
static void coll_sets(const fnd_ctx *t, const fnd_ctx *r, tlm_findings *f)
{
    if (!t->coll || !r->coll)
        return;
    size_t only = 0;
    const fnd_ctx *side[2] = {t, r};
    for (int s = 0; s < 2; s++) {
        const tlm_tab *a = side[s]->coll, *b = side[1 - s]->coll;
        for (size_t i = 0; i < a->nrows; i++) {
            int hit = 0;
            for (size_t j = 0; j < b->nrows && !hit; j++)
                hit = !strcmp(fnd_str(a, i, "Collective name"),
                              fnd_str(b, j, "Collective name")) &&
                      !strcmp(fnd_str(a, i, "dtype"), fnd_str(b, j, "dtype")) &&
                      fnd_num(a, i, "In msg size (MB)_first") ==
                          fnd_num(b, j, "In msg size (MB)_first");
            if (hit)
                continue;
            only++;
            tlm_sbuf_printf(&f->analysis, "- C1: collective on the %s only: ",
                            s ? "reference" : "target");
            tlm_sbuf_md(&f->analysis, fnd_str(a, i, "Collective name"), 60,
                        TLM_MD_TEXT);
            tlm_sbuf_printf(&f->analysis, " %s %.3f MB\n",
                            fnd_str(a, i, "dtype"),
                            fnd_num(a, i, "In msg size (MB)_first"));
        }
    }
    if (!only)
        tlm_sbuf_puts(&f->analysis, "- C1: same collectives on both "
                                    "sides.\n");
}

typedef struct pair {
    size_t ti, ri;
    double ratio, expected, excess, mt, mr, Tt, Tref_scaled, pct;
    const char *kind;
} pair;

static void kernels_of(const tlm_tab *u, size_t i, tlm_sbuf *b)
{
    const char *k = fnd_str(u, i, "trunc_kernel_details");
    tlm_sbuf_printf(b, "%.200s", *k ? k : "unknown");
}

static void c2c3(const fnd_ctx *t, const fnd_ctx *r, tlm_findings *f,
                 const pair *p)
{
    tlm_finding *x = NULL;
    if (p->excess >= T(t, excess)) {
        int high = p->excess >= T(t, excess_high) ||
                   p->ratio >= T(t, ratio_high);
        x = fnd_add(f, "C2", high ? TLM_FIND_HIGH : TLM_FIND_MEDIUM);
        if (!x)
            return;
        double save = fmax(0.0, p->Tt - p->expected * p->Tref_scaled);
        double imp = 100.0 * save / t->e2e_us;
        fnd_impact(x, t->o, imp, imp, imp, 0);
        if (!(imp >= T(t, saving_pct)))
            x->appendix = 1;
    } else if (p->excess > T(t, explained_low)) {
        x = fnd_add(f, "C3", TLM_FIND_INFO);
        if (x)
            x->appendix = 1;
    } else {
        x = fnd_add(f, "C3", TLM_FIND_INFO);
        if (x)
            x->appendix = 1;
    }
    if (!x)
        return;
    x->ratio = p->ratio;
    x->expected = p->expected;
    x->excess = p->excess;
    x->pct_e2e = p->pct;
    snprintf(x->expected_kind, sizeof x->expected_kind, "%s", p->kind);
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    fnd_subject(&b, t->uni, p->ti);
    fnd_setb(f, &x->subject, &b);
    tlm_sbuf_reset(&b);
    if (!strcmp(x->rule, "C2")) {
        tlm_sbuf_printf(&b, "%s is %+.0f %% on the target (%.3f vs %.3f ms); "
                            "hardware ratio (%s) predicts %+.0f %%. Not "
                            "explained by the hardware.",
                        x->subject, 100.0 * (p->ratio - 1), p->Tt / 1000.0,
                        fnd_num(r->uni, p->ri, FND_US) / 1000.0, p->kind,
                        100.0 * (p->expected - 1));
        fnd_setb(f, &x->text, &b);
        tlm_sbuf_reset(&b);
        tlm_sbuf_puts(&b, "Generate a replay artefact; compare kernel "
                          "selection (reference kernels: ");
        kernels_of(r->uni, p->ri, &b);
        tlm_sbuf_puts(&b, "; target: ");
        kernels_of(t->uni, p->ti, &b);
        tlm_sbuf_puts(&b, ").");
        fnd_setb(f, &x->action_b, &b);
        fnd_set(f, &x->action_a, "If the target's lowering differs "
                                 "(different kernel count), check the "
                                 "dispatch path.");
    } else {
        tlm_sbuf_printf(&b, "%s: ratio %.3f vs expected %.3f (%s): %s",
                        x->subject, p->ratio, p->expected, p->kind,
                        p->excess > T(t, explained_low)
                            ? "consistent with the hardware ratio."
                            : "target beats the hardware ratio \xe2\x80\x94 "
                              "the reference may have an inefficiency.");
        fnd_setb(f, &x->text, &b);
    }
    tlm_sbuf_reset(&b);
    tlm_sbuf_printf(&b, "unified:target:%s_mean=%.4f;unified:reference:%s_"
                        "mean=%.4f",
                    FND_US, p->mt, FND_US, p->mr);
    fnd_setb(f, &x->evidence, &b);
    tlm_sbuf_free(&b);
}

static void c6(const fnd_ctx *t, const fnd_ctx *r, tlm_findings *f,
               const pair *p)
{
    double a = fnd_num(t->uni, p->ti, "operation_count");
    double b = fnd_num(r->uni, p->ri, "operation_count");
    if (isnan(a) || isnan(b) || a == b)
        return;
    tlm_finding *x = fnd_add(f, "C6", TLM_FIND_INFO);
    if (!x)
        return;
    tlm_sbuf s;
    tlm_sbuf_init(&s);
    fnd_subject(&s, t->uni, p->ti);
    fnd_setb(f, &x->subject, &s);
    tlm_sbuf_reset(&s);
    tlm_sbuf_printf(&s, "%s: called %.0f\xc3\x97 on target, %.0f\xc3\x97 on "
                        "reference \xe2\x80\x94 compare per-call times only.",
                    x->subject, a, b);
    fnd_setb(f, &x->text, &s);
    tlm_sbuf_free(&s);
}

static void c4(const fnd_ctx *t, tlm_findings *f, const pair *v, size_t n)
{
    double gap = 0, calls = 0, wt = 0, wr = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(v[i].mt < T(t, latency_us) && v[i].mr < T(t, latency_us) &&
              v[i].ratio >= T(t, latency_ratio)))
            continue;
        k++;
        gap += v[i].Tt - v[i].Tref_scaled;
        calls += fnd_num(t->uni, v[i].ti, "operation_count");
        wt += v[i].Tt;
        wr += v[i].Tref_scaled;
    }
    double pct = 100.0 * gap / t->e2e_us;
    if (!k || !(pct >= T(t, latency_pct)))
        return;
    tlm_finding *x = fnd_add(f, "C4", pct >= T(t, latency_medium)
                                          ? TLM_FIND_MEDIUM
                                          : TLM_FIND_LOW);
    if (!x)
        return;
    fnd_impact(x, t->o, pct, pct, pct, 0);
    x->ratio = wt / wr;
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_sbuf_printf(&b, "%zu tiny ops (%.0f calls) take %.1f\xc3\x97 longer "
                        "per call on the target; at these sizes launch "
                        "latency, not bandwidth, dominates.",
                    k, calls, wt / wr);
    fnd_setb(f, &x->text, &b);
    fnd_set(f, &x->subject, "tiny ops");
    fnd_set(f, &x->action_a, "Fuse or graph-capture these ops.");
    tlm_sbuf_reset(&b);
    tlm_sbuf_printf(&b, "unified:gap_us=%.3f", gap);
    fnd_setb(f, &x->evidence, &b);
    tlm_sbuf_free(&b);
}


/* One C5 finding: nm (pct % of its side's time) has no counterpart on
 * the other side.  NULL when out of memory. */
static tlm_finding *c5_add(const fnd_ctx *a, tlm_findings *f, const char *nm,
                           double pct, int is_ref)
{
    tlm_finding *x = fnd_add(f, "C5", pct >= T(a, missing_medium)
                                          ? TLM_FIND_MEDIUM
                                          : TLM_FIND_LOW);
    if (!x)
        return NULL;
    x->pct_e2e = pct;
    fnd_set(f, &x->subject, nm);
    tlm_sbuf s;
    tlm_sbuf_init(&s);
    tlm_sbuf_printf(&s, "%s (%.1f %% of %s time) has no counterpart in the "
                        "%s: the two runs lower this part differently.",
                    nm, pct, is_ref ? "reference" : "target",
                    is_ref ? "target" : "reference");
    fnd_setb(f, &x->text, &s);
    tlm_sbuf_free(&s);
    fnd_set(f, &x->action_a, "Align the two call trees (TraceDiff "
                             "lowest-common-ancestor view) to compare the "
                             "differing subtrees as a whole.");
    return x;
}

/* C5: names of one side's unmatched rows (unified, then ops_summary). */
static void c5_side(const fnd_ctx *a, const fnd_ctx *b, int is_ref,
                    tlm_findings *f)
{
    const tlm_tab *u = a->uni;
    for (size_t i = 0; u && i < u->nrows; i++) {
        const char *nm = fnd_str(u, i, "name");
        size_t j = 0;
        while (j < i && strcmp(fnd_str(u, j, "name"), nm))
            j++;
        if (j < i)
            continue; /* name handled at its first row */
        double pct = 0;
        for (size_t r = i; r < u->nrows; r++)
            if (!strcmp(fnd_str(u, r, "name"), nm) &&
                match(u, r, b->uni) < 0)
                pct += 100.0 * fnd_num(u, r, FND_US) / a->e2e_us;
        if (!(pct >= T(a, missing_pct)))
            continue;
        if (!c5_add(a, f, nm, pct, is_ref))
            return;
    }
}

/* 1 when some unified row of side c is named nm. */
static int has_uni_name(const fnd_ctx *c, const char *nm)
{
    for (size_t i = 0; c->uni && i < c->uni->nrows; i++)
        if (!strcmp(fnd_str(c->uni, i, "name"), nm))
            return 1;
    return 0;
}

/* C5 over ops_summary: names on one side only (not already reported from
 * the unified rows), by their direct kernel time. */
static void c5_ops(const fnd_ctx *a, const fnd_ctx *b, int is_ref,
                   tlm_findings *f)
{
    for (size_t i = 0; a->ops && b->ops && i < a->ops->nrows; i++) {
        const char *nm = fnd_str(a->ops, i, "name");
        int other = 0;
        for (size_t j = 0; j < b->ops->nrows && !other; j++)
            other = !strcmp(fnd_str(b->ops, j, "name"), nm);
        if (other || has_uni_name(a, nm))
            continue;
        double pct = 100.0 * 1000.0 *
                     fnd_num(a->ops, i, "total_direct_kernel_time_ms") /
                     a->e2e_us;
        if (!(pct >= T(a, missing_pct)))
            continue;
        tlm_finding *x = c5_add(a, f, nm, pct, is_ref);
        if (!x)
            return;
        tlm_sbuf s;
        tlm_sbuf_init(&s);
        tlm_sbuf_printf(&s, "ops_summary:%s:total_direct_kernel_time_ms="
                            "%.4f",
                        is_ref ? "reference" : "target",
                        fnd_num(a->ops, i, "total_direct_kernel_time_ms"));
        fnd_setb(f, &x->evidence, &s);
        tlm_sbuf_free(&s);
    }
}

void fnd_rules_compare(const fnd_ctx *t, const fnd_ctx *r, tlm_findings *f)
{
    if (!t->tl || !r->tl || !(t->e2e_us > 0) || !(r->e2e_us > 0)) {
        fnd_skip(f, "C1-C6", "a side has no gpu_timeline table");
        return;
    }
    c1(t, r, f);
    coll_sets(t, r, f);
    c5_ops(t, r, 0, f);
    c5_ops(r, t, 1, f);
    if (!t->uni || !r->uni) {
        fnd_skip(f, "C2-C6", "a side has no unified_perf_summary table");
        return;
    }
    if (!t->hw || !r->hw)
        tlm_sbuf_puts(&f->analysis,
                      "- C2/C3: a side has no hardware peaks; rows are "
                      "compared as if both ran on the same GPU (expected "
                      "ratio 1).\n");
    pair *v = calloc(t->uni->nrows ? t->uni->nrows : 1, sizeof *v);
    if (!v) {
        f->oom = 1;
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < t->uni->nrows; i++) {
        long j = match(t->uni, i, r->uni);
        if (j < 0)
            continue;
        pair *p = &v[n];
        p->ti = i;
        p->ri = (size_t)j;
        p->mt = fnd_num(t->uni, i, FND_US_MEAN);
        p->mr = fnd_num(r->uni, (size_t)j, FND_US_MEAN);
        p->Tt = fnd_num(t->uni, i, FND_US);
        p->Tref_scaled = p->mr * fnd_num(t->uni, i, "operation_count");
        p->pct = 100.0 * p->Tt / t->e2e_us;
        p->ratio = p->mt / p->mr;
        double rt = roof(t, t->uni, i), rr = roof(r, r->uni, (size_t)j);
        if (!isnan(rt) && !isnan(rr)) {
            p->expected = rt / rr;
            p->kind = "roofline";
        } else if (t->hw && r->hw) {
            p->expected = r->hw->bw / t->hw->bw;
            p->kind = "bandwidth";
        } else {
            p->expected = 1.0;
            p->kind = "same GPU";
        }
        p->excess = p->ratio / p->expected;
        if (isnan(p->ratio) || !(p->mr > 0))
            continue;
        n++;
        c6(t, r, f, p);
        int latency = p->mt < T(t, latency_us) && p->mr < T(t, latency_us);
        if (p->pct >= T(t, min_pct) && !latency)
            c2c3(t, r, f, p);
    }
    c4(t, f, v, n);
    free(v);
    c5_side(t, r, 0, f);
    c5_side(r, t, 1, f);
}
