/*
 * find_runs.c - the comparative findings of `tlmpi compare A.h5 B.h5`
 * (find_runs.h): the step time (R1), collectives (R2 regression, R3
 * improvement) and ops (R4, R5) whose time changed by at least
 * --min_impact_pct of B's step time, ranked by impact, and the straggler
 * (R6: new in B, gone, or the same rank).  Impact = absolute time change
 * x occurrences (per rank, per step when both runs have steps;
 * docs/compare-runs.md).  Wording states numbers, never a winner.  The
 * list, the order and the rows are find_list.c's.
 */
#include "find_runs.h"

#include "find_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A byte count as text ("-" when negative). */
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

typedef struct fctx {
    tlm_findings *f;
    const tlm_find_runs_in *in;
    double step_b;
    const char *per;
} fctx;

/* Severity of a change by its |pct| (NaN: low). */
static tlm_find_sev severity(const fctx *c, double pct)
{
    return fnd_sev(&c->f->o, fabs(pct));
}

/* A finding of rule with impact pct (% of B's step time). */
static tlm_finding *add(fctx *c, const char *rule, tlm_find_sev sev,
                        double pct)
{
    return fnd_add_pct(c->f, rule, "compare", sev, pct);
}

#define FMT(c, dst, ...) fnd_setf((c)->f, &(dst), __VA_ARGS__)

static int step_rule(fctx *c, const tlm_find_runs_in *r)
{
    double a = r->step_a, b = r->step_b;
    if (isnan(a) || isnan(b))
        return 0;
    double pct = r->step_pct;
    tlm_finding *f = add(c, "R1", TLM_FIND_INFO, pct);
    if (!f)
        return -1;
    f->lead = 1;
    const char *what = r->per_step ? "step time" : "GPU time per rank";
    FMT(c, f->subject, "%s", what);
    FMT(c, f->text, "%s %.3f ms in B vs %.3f ms in A (%+.1f %%)",
        what, b / 1e6, a / 1e6, pct);
    FMT(c, f->action_a,
        "start with the largest changes below");
    FMT(c, f->evidence,
        "summary:%s:a=%.0f;b=%.0f", r->per_step ? "step_time_ns"
                                                : "gpu_total_ns", a, b);
    return 0;
}

static int coll_rule(fctx *c, const tlm_cr_coll *k)
{
    double pct = 100.0 * k->impact_ns / c->step_b;
    tlm_finding *f = add(c, k->impact_ns > 0 ? "R2" : "R3",
                         k->impact_ns > 0 ? severity(c, pct) : TLM_FIND_INFO,
                         pct);
    if (!f)
        return -1;
    char hb[32], side[96] = "";
    hbytes(k->bytes, hb, sizeof hb);
    FMT(c, f->subject, "%s %s %s on %s", k->coll, hb,
        k->dtype, k->group);
    if (strcmp(k->status, "both") != 0)
        snprintf(side, sizeof side, "; present only in %s",
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
        FMT(c, f->text,
            "%s: wait %s -> %s us per call, latency %s -> %s us, bus "
            "bandwidth A %s GB/s -> B %s GB/s%s; %s %.3f ms per rank %s",
            f->subject, wa, wb, la, lb, ba, bb, side, verb, imp, c->per);
    else
        FMT(c, f->text,
            "%s: bus bandwidth %s %% (A %s GB/s -> B %s GB/s), latency %s "
            "-> %s us, wait %s -> %s us per call%s; %s %.3f ms per rank %s",
            f->subject, bp, ba, bb, la, lb, wa, wb, side, verb, imp, c->per);
    if (side[0])
        FMT(c, f->action_a,
            "the runs issue different collectives here (message size, "
            "dtype or group layout): compare the parallel configuration");
    else if (k->wait_ns_diff > fabs(k->latency_ns_diff) ||
             (isnan(k->wait_ns_a) && k->wait_ns_b > 0))
        FMT(c, f->action_a,
            "the wait grew more than the transfer: look for the rank "
            "arriving last (B: rank %d)", k->last_rank_b);
    else
        FMT(c, f->action_a,
            "the transfer itself changed: compare the NCCL/RCCL algorithm, "
            "topology and group placement of the two runs");
    FMT(c, f->evidence,
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
    tlm_finding *f = add(c, k->impact_ns > 0 ? "R4" : "R5",
                         k->impact_ns > 0 ? severity(c, pct) : TLM_FIND_INFO,
                         pct);
    if (!f)
        return -1;
    FMT(c, f->subject, "%s", k->name);
    char ma[24], mb[24], mp[24], ca[24], cb[24];
    num(ma, sizeof ma, "%.3f", k->mean_rank_ns_a / 1e6);
    num(mb, sizeof mb, "%.3f", k->mean_rank_ns_b / 1e6);
    num(mp, sizeof mp, "%+.1f", k->mean_rank_ns_pct);
    num(ca, sizeof ca, "%.1f", k->count_a);
    num(cb, sizeof cb, "%.1f", k->count_b);
    FMT(c, f->text,
        "%s: GPU time per rank %s -> %s ms (%s %%), %s -> %s calls%s; %s "
        "%.3f ms per rank %s", k->name, ma, mb, mp, ca, cb,
        strcmp(k->status, "both") ? (k->status[5] == 'a' ? "; only in A"
                                                          : "; only in B")
                                  : "",
        k->impact_ns > 0 ? "costs" : "saves", fabs(k->impact_ns) / 1e6,
        c->per);
    FMT(c, f->action_a,
        "compare its kernels in the two runs (tlmpi compare on the "
        "slowest rank's traces, tlmpi diff)");
    FMT(c, f->evidence,
        "ops:%s:mean_rank_ns_a=%.0f;mean_rank_ns_b=%.0f;max_rank_b=%d",
        k->name, k->mean_rank_ns_a, k->mean_rank_ns_b, k->max_rank_b);
    return 0;
}

static const tlm_cr_strag *strag_of(const tlm_find_runs_in *r, int64_t rank)
{
    for (size_t i = 0; i < r->n_strag; i++)
        if (r->strag[i].trace_rank == rank)
            return &r->strag[i];
    return NULL;
}

static int strag_rule(fctx *c)
{
    const tlm_find_runs_in *in = c->in;
    int64_t ra = in->straggler_rank_a, rb = in->straggler_rank_b;
    int64_t wa = in->straggler_wait_ns_a, wb = in->straggler_wait_ns_b;
    if (ra < 0 && rb < 0)
        return 0;
    const tlm_cr_strag *s = strag_of(in, rb >= 0 ? rb : ra);
    double caused = s ? (rb >= 0 ? s->wait_caused_ns_b : s->wait_caused_ns_a)
                      : NAN;
    double nb = in->n_traces_b > 0 ? (double)in->n_traces_b : NAN;
    double steps = in->per_step ? (double)in->n_steps_b : 1.0;
    double pct = rb >= 0 ? 100.0 * caused / nb / steps / c->step_b : 0.0;
    tlm_find_sev sev = rb < 0 ? TLM_FIND_INFO : severity(c, pct);
    tlm_finding *f = add(c, "R6", sev, pct);
    if (!f)
        return -1;
    if (rb >= 0 && rb != ra) {
        char was[48] = "no straggler";
        if (ra >= 0)
            snprintf(was, sizeof was, "rank %lld", (long long)ra);
        FMT(c, f->subject, "rank %lld", (long long)rb);
        FMT(c, f->text,
            "straggler rank %lld new in B: the others wait %.1f us for it "
            "per collective it joins, summed over them (A: %s)",
            (long long)rb, (double)wb / 1e3, was);
    } else if (rb >= 0) {
        FMT(c, f->subject, "rank %lld", (long long)rb);
        FMT(c, f->text,
            "straggler rank %lld in both runs: wait caused per collective "
            "%.1f us in A, %.1f us in B", (long long)rb,
            (double)wa / 1e3,
            (double)wb / 1e3);
    } else {
        FMT(c, f->subject, "rank %lld", (long long)ra);
        FMT(c, f->text,
            "straggler rank %lld of A is not a straggler in B (it made the "
            "others wait %.1f us per collective in A)", (long long)ra,
            (double)wa / 1e3);
    }
    FMT(c, f->action_a,
        "look at what the rank does before its collectives (its host, data "
        "loading, a slower GPU): tlmpi report on its trace");
    FMT(c, f->evidence,
        "attrs:straggler_rank:a=%lld;b=%lld;straggler_wait_ns_a=%lld;"
        "straggler_wait_ns_b=%lld", (long long)ra, (long long)rb,
        (long long)wa, (long long)wb);
    return 0;
}

tlm_status tlm_find_runs_build(const tlm_find_runs_in *in,
                               const tlm_find_runs_opts *o,
                               tlm_row_finding **rows, size_t *n)
{
    fctx c = {fnd_list_new_rows(1), in, in->step_b > 0 ? in->step_b : NAN,
              in->per_step ? "per step" : "over the profile"};
    *rows = NULL;
    *n = 0;
    if (!c.f)
        return TLM_ENOMEM;
    int rc = step_rule(&c, in);
    int top = o->top > 0 ? o->top : 10, k = 0;
    for (size_t i = 0; rc == 0 && i < in->n_colls && k < top; i++) {
        double pct = 100.0 * fabs(in->colls[i].impact_ns) / c.step_b;
        if (pct >= o->min_impact_pct) {
            rc = coll_rule(&c, &in->colls[i]);
            k++;
        }
    }
    k = 0;
    for (size_t i = 0; rc == 0 && i < in->n_ops && k < top; i++) {
        double pct = 100.0 * fabs(in->ops[i].impact_ns) / c.step_b;
        if (pct >= o->min_impact_pct) {
            rc = op_rule(&c, &in->ops[i]);
            k++;
        }
    }
    if (rc == 0)
        rc = strag_rule(&c);
    tlm_status st = TLM_ENOMEM;
    if (rc == 0) {
        fnd_finish(c.f);
        st = fnd_rows(c.f, rows, n);
    }
    tlm_findings_free(c.f);
    return st;
}
