/*
 * compare_runs_find.c - the comparative findings of `tlmpi compare A.h5
 * B.h5` (pure): the step time (R1), collectives (R2 regression, R3
 * improvement) and ops (R4, R5) whose time changed by at least
 * --min_impact_pct of B's step time, ranked by impact, and the straggler
 * (R6: new in B, gone, or the same rank).  Impact = absolute time change
 * x occurrences (per rank, per step when both runs have steps;
 * docs/compare-runs.md).  Wording states numbers, never a winner.
 */
#include "compare_runs.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *hbytes(int64_t b, char *buf, size_t cap)
{
    double v = (double)b;
    if (b < 0)
        snprintf(buf, cap, "-");
    else if (b < 1024)
        snprintf(buf, cap, "%lld B", (long long)b);
    else if (v < 1048576.0)
        snprintf(buf, cap, "%.1f KiB", v / 1024.0);
    else if (v < 1073741824.0)
        snprintf(buf, cap, "%.1f MiB", v / 1048576.0);
    else
        snprintf(buf, cap, "%.2f GiB", v / 1073741824.0);
    return buf;
}

/* A number, or "-" when it is NaN. */
static void num(char *buf, size_t cap, const char *fm, double v)
{
    if (isfinite(v))
        snprintf(buf, cap, fm, v);
    else
        snprintf(buf, cap, "-");
}

static const char *severity(double pct)
{
    double p = fabs(pct);
    return isnan(p) ? "low" : p >= 5 ? "high" : p >= 1 ? "medium" : "low";
}

typedef struct fctx {
    tlm_cr_result *res;
    size_t cap;
    double step_b;
    const char *per;
} fctx;

static tlm_row_finding *add(fctx *c, const char *rule, const char *sev,
                            double pct)
{
    if (c->res->n_find == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 16;
        void *p = realloc(c->res->find, cap * sizeof *c->res->find);
        if (!p)
            return NULL;
        c->res->find = p;
        c->cap = cap;
    }
    tlm_row_finding *f = &c->res->find[c->res->n_find++];
    memset(f, 0, sizeof *f);
    tlm_strset(f->rule, sizeof f->rule, rule);
    tlm_strset(f->mode, sizeof f->mode, "compare");
    tlm_strset(f->severity, sizeof f->severity, sev);
    f->pct_e2e = f->impact_low = f->impact_mid = f->impact_high = pct;
    f->eff = NAN;
    return f;
}

static void fmt(char *dst, size_t cap, const char *fm, ...)
    TLM_PRINTF(3, 4);
static void fmt(char *dst, size_t cap, const char *fm, ...)
{
    va_list ap;
    va_start(ap, fm);
    char buf[1024];
    vsnprintf(buf, sizeof buf, fm, ap);
    va_end(ap);
    tlm_strset(dst, cap, buf);
}

static int step_rule(fctx *c, const tlm_cr_result *r)
{
    double a = r->step_a, b = r->step_b;
    if (isnan(a) || isnan(b))
        return 0;
    double pct = tlm_cr_pct(a, b);
    tlm_row_finding *f = add(c, "R1", "info", pct);
    if (!f)
        return -1;
    const char *what = r->per_step ? "step time" : "GPU time per rank";
    fmt(f->subject, sizeof f->subject, "%s", what);
    fmt(f->text, sizeof f->text, "%s %.3f ms in B vs %.3f ms in A (%+.1f %%)",
        what, b / 1e6, a / 1e6, pct);
    fmt(f->action_a, sizeof f->action_a,
        "start with the largest changes below");
    fmt(f->evidence, sizeof f->evidence,
        "summary:%s:a=%.0f;b=%.0f", r->per_step ? "step_time_ns"
                                                : "gpu_total_ns", a, b);
    return 0;
}

static int coll_rule(fctx *c, const tlm_cr_coll *k)
{
    double pct = 100.0 * k->impact_ns / c->step_b;
    tlm_row_finding *f = add(c, k->impact_ns > 0 ? "R2" : "R3",
                             k->impact_ns > 0 ? severity(pct) : "info", pct);
    if (!f)
        return -1;
    char hb[32], side[96] = "";
    hbytes(k->bytes, hb, sizeof hb);
    fmt(f->subject, sizeof f->subject, "%s %s %s on %s", k->coll, hb,
        k->dtype, k->group);
    if (strcmp(k->status, "both") != 0)
        fmt(side, sizeof side, "; present only in %s",
            k->status[5] == 'a' ? "A" : "B");
    const char *verb = k->impact_ns > 0 ? "costs" : "saves";
    double imp = fabs(k->impact_ns) / 1e6;
    char wa[24], wb[24], la[24], lb[24], ba[24], bb[24], bp[24];
    num(wa, sizeof wa, "%.1f", k->wait_ns_a / 1e3);
    num(wb, sizeof wb, "%.1f", k->wait_ns_b / 1e3);
    num(la, sizeof la, "%.1f", k->latency_ns_a / 1e3);
    num(lb, sizeof lb, "%.1f", k->latency_ns_b / 1e3);
    num(ba, sizeof ba, "%.1f", k->busbw_gbps_a);
    num(bb, sizeof bb, "%.1f", k->busbw_gbps_b);
    num(bp, sizeof bp, "%+.0f", k->busbw_gbps_pct);
    if (fabs(k->wait_ns_diff) > fabs(k->latency_ns_diff) ||
        (!side[0] && isnan(k->wait_ns_a) && k->wait_ns_b > 0))
        fmt(f->text, sizeof f->text,
            "%s: wait %s -> %s us per call, latency %s -> %s us, bus "
            "bandwidth A %s GB/s -> B %s GB/s%s; %s %.3f ms per rank %s",
            f->subject, wa, wb, la, lb, ba, bb, side, verb, imp, c->per);
    else
        fmt(f->text, sizeof f->text,
            "%s: bus bandwidth %s %% (A %s GB/s -> B %s GB/s), latency %s "
            "-> %s us, wait %s -> %s us per call%s; %s %.3f ms per rank %s",
            f->subject, bp, ba, bb, la, lb, wa, wb, side, verb, imp, c->per);
    if (side[0])
        fmt(f->action_a, sizeof f->action_a,
            "the runs issue different collectives here (message size, "
            "dtype or group layout): compare the parallel configuration");
    else if (k->wait_ns_diff > fabs(k->latency_ns_diff) ||
             (isnan(k->wait_ns_a) && k->wait_ns_b > 0))
        fmt(f->action_a, sizeof f->action_a,
            "the wait grew more than the transfer: look for the rank "
            "arriving last (B: rank %d)", k->last_rank_b);
    else
        fmt(f->action_a, sizeof f->action_a,
            "the transfer itself changed: compare the NCCL/RCCL algorithm, "
            "topology and group placement of the two runs");
    fmt(f->evidence, sizeof f->evidence,
        "collectives:%s/%s/%s/%lld:busbw_gbps_a=%.3f;busbw_gbps_b=%.3f;"
        "latency_ns_a=%.0f;latency_ns_b=%.0f;wait_ns_a=%.0f;wait_ns_b=%.0f;"
        "impact_ns=%.0f", k->coll, k->group, k->dtype, (long long)k->bytes,
        k->busbw_gbps_a, k->busbw_gbps_b, k->latency_ns_a, k->latency_ns_b,
        k->wait_ns_a, k->wait_ns_b, k->impact_ns);
    return 0;
}

static int op_rule(fctx *c, const tlm_cr_op *k)
{
    double pct = 100.0 * k->impact_ns / c->step_b;
    tlm_row_finding *f = add(c, k->impact_ns > 0 ? "R4" : "R5",
                             k->impact_ns > 0 ? severity(pct) : "info", pct);
    if (!f)
        return -1;
    fmt(f->subject, sizeof f->subject, "%s", k->name);
    char ma[24], mb[24], mp[24], ca[24], cb[24];
    num(ma, sizeof ma, "%.3f", k->mean_rank_ns_a / 1e6);
    num(mb, sizeof mb, "%.3f", k->mean_rank_ns_b / 1e6);
    num(mp, sizeof mp, "%+.1f", k->mean_rank_ns_pct);
    num(ca, sizeof ca, "%.1f", k->count_a);
    num(cb, sizeof cb, "%.1f", k->count_b);
    fmt(f->text, sizeof f->text,
        "%s: GPU time per rank %s -> %s ms (%s %%), %s -> %s calls%s; %s "
        "%.3f ms per rank %s", k->name, ma, mb, mp, ca, cb,
        strcmp(k->status, "both") ? (k->status[5] == 'a' ? "; only in A"
                                                          : "; only in B")
                                  : "",
        k->impact_ns > 0 ? "costs" : "saves", fabs(k->impact_ns) / 1e6,
        c->per);
    fmt(f->action_a, sizeof f->action_a,
        "compare its kernels in the two runs (tlmpi compare on the "
        "slowest rank's traces, tlmpi diff)");
    fmt(f->evidence, sizeof f->evidence,
        "ops:%s:mean_rank_ns_a=%.0f;mean_rank_ns_b=%.0f;max_rank_b=%d",
        k->name, k->mean_rank_ns_a, k->mean_rank_ns_b, k->max_rank_b);
    return 0;
}

static const tlm_cr_strag *strag_of(const tlm_cr_result *r, int64_t rank)
{
    for (size_t i = 0; i < r->n_strag; i++)
        if (r->strag[i].trace_rank == rank)
            return &r->strag[i];
    return NULL;
}

static int strag_rule(fctx *c, const tlm_cr_run *a, const tlm_cr_run *b)
{
    int64_t ra = a->straggler_rank, rb = b->straggler_rank;
    if (ra < 0 && rb < 0)
        return 0;
    const tlm_cr_strag *s = strag_of(c->res, rb >= 0 ? rb : ra);
    double caused = s ? (rb >= 0 ? s->wait_caused_ns_b : s->wait_caused_ns_a)
                      : NAN;
    double nb = b->n_traces > 0 ? (double)b->n_traces : NAN;
    double steps = c->res->per_step ? (double)b->n_steps : 1.0;
    double pct = rb >= 0 ? 100.0 * caused / nb / steps / c->step_b : 0.0;
    const char *sev = rb < 0 ? "info" : severity(pct);
    tlm_row_finding *f = add(c, "R6", sev, pct);
    if (!f)
        return -1;
    if (rb >= 0 && rb != ra) {
        char was[48] = "no straggler";
        if (ra >= 0)
            snprintf(was, sizeof was, "rank %lld", (long long)ra);
        fmt(f->subject, sizeof f->subject, "rank %lld", (long long)rb);
        fmt(f->text, sizeof f->text,
            "straggler rank %lld new in B: the others wait %.1f us for it "
            "per collective it joins, summed over them (A: %s)",
            (long long)rb, (double)b->straggler_wait_ns / 1e3, was);
    } else if (rb >= 0) {
        fmt(f->subject, sizeof f->subject, "rank %lld", (long long)rb);
        fmt(f->text, sizeof f->text,
            "straggler rank %lld in both runs: wait caused per collective "
            "%.1f us in A, %.1f us in B", (long long)rb,
            (double)a->straggler_wait_ns / 1e3,
            (double)b->straggler_wait_ns / 1e3);
    } else {
        fmt(f->subject, sizeof f->subject, "rank %lld", (long long)ra);
        fmt(f->text, sizeof f->text,
            "straggler rank %lld of A is not a straggler in B (it made the "
            "others wait %.1f us per collective in A)", (long long)ra,
            (double)a->straggler_wait_ns / 1e3);
    }
    fmt(f->action_a, sizeof f->action_a,
        "look at what the rank does before its collectives (its host, data "
        "loading, a slower GPU): tlmpi report on its trace");
    fmt(f->evidence, sizeof f->evidence,
        "attrs:straggler_rank:a=%lld;b=%lld;straggler_wait_ns_a=%lld;"
        "straggler_wait_ns_b=%lld", (long long)ra, (long long)rb,
        (long long)a->straggler_wait_ns, (long long)b->straggler_wait_ns);
    return 0;
}

static int sev_rank(const char *s)
{
    return !strcmp(s, "high") ? 0 : !strcmp(s, "medium") ? 1
           : !strcmp(s, "low") ? 2 : 3;
}

static int cmp_find(const void *x, const void *y)
{
    const tlm_row_finding *a = x, *b = y;
    int c = (!strcmp(a->rule, "R1") ? 0 : 1) - (!strcmp(b->rule, "R1") ? 0 : 1);
    if (!c)
        c = sev_rank(a->severity) - sev_rank(b->severity);
    if (!c) {
        double ia = fabs(a->pct_e2e), ib = fabs(b->pct_e2e);
        c = ia > ib ? -1 : ia < ib;
    }
    if (!c)
        c = strcmp(a->rule, b->rule);
    return c ? c : strcmp(a->subject, b->subject);
}

tlm_status tlm_cr_findings(const tlm_cr_run *a, const tlm_cr_run *b,
                           const tlm_cr_opts *o, tlm_cr_result *res)
{
    fctx c = {res, 0, res->step_b > 0 ? res->step_b : NAN,
              res->per_step ? "per step" : "over the profile"};
    int rc = step_rule(&c, res);
    int top = o->top > 0 ? o->top : 10, n = 0;
    for (size_t i = 0; rc == 0 && i < res->n_colls && n < top; i++) {
        double pct = 100.0 * fabs(res->colls[i].impact_ns) / c.step_b;
        if (pct >= o->min_impact_pct) {
            rc = coll_rule(&c, &res->colls[i]);
            n++;
        }
    }
    n = 0;
    for (size_t i = 0; rc == 0 && i < res->n_ops && n < top; i++) {
        double pct = 100.0 * fabs(res->ops[i].impact_ns) / c.step_b;
        if (pct >= o->min_impact_pct) {
            rc = op_rule(&c, &res->ops[i]);
            n++;
        }
    }
    if (rc == 0)
        rc = strag_rule(&c, a, b);
    if (rc != 0)
        return TLM_ENOMEM;
    if (res->n_find)
        qsort(res->find, res->n_find, sizeof *res->find, cmp_find);
    for (size_t i = 0; i < res->n_find; i++)
        snprintf(res->find[i].id, sizeof res->find[i].id, "P%u",
                 (unsigned)(i + 1) % 1000000u);
    return TLM_OK;
}
