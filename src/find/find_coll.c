/*
 * find_coll.c - the collective findings of the analysis (rules M1-M4 of
 * find_coll.h) over rank 0's HDF5 rows, through the findings list of
 * find_list.c (record, severity, order, P-numbers, /findings rows).  The
 * Markdown is rank 0's (src/out/findings_md.c).  docs/compare-runs.md,
 * "Findings of the analysis".
 */
#include "find_coll.h"

#include "find_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tlm_find_coll_opts_init(tlm_find_coll_opts *o)
{
    o->link_peak_gbps = 0;
    o->skew_pct = TLM_FIND_SKEW_PCT;
    o->skew_min_us = TLM_FIND_SKEW_MIN_US;
    o->busbw_pct = TLM_FIND_BUSBW_PCT;
    o->busbw_min_bytes = TLM_FIND_BUSBW_MIN_BYTES;
    o->exposed_pct = TLM_FIND_EXPOSED_PCT;
    o->gpus_per_node = -1;
}

/* Per-GPU bus bandwidth peaks inside a node (GB/s, one direction):
 * NVLink 3/4/5 and AMD Infinity Fabric (xGMI, 7 links); NVLink 2 of the
 * V100 for NVLink (datasheet: 300 GB/s both directions); PCIe of the
 * PCIe cards (V100: Gen3, datasheet 32 GB/s both directions; A10, A40,
 * L4, L40S: Gen4, datasheets 64 GB/s both directions).  MI250X and MI210
 * have none here (their Infinity Fabric depends on the board's links):
 * M3 needs --link_peak_gbps for them. */
static const struct {
    const char *arch;
    double gbps;
} peaks[] = {
    {"A100", 300.0},   {"H100", 450.0},   {"H200", 450.0},
    {"B200", 900.0},   {"MI300X", 448.0}, {"MI325X", 448.0},
    {"MI355X", 537.6}, {"V100-SXM2", 150.0}, {"V100-PCIe", 16.0},
    {"A10", 32.0},     {"A40", 32.0},     {"L4", 32.0},
    {"L40S", 32.0},
};

double tlm_find_link_peak(const tlm_find_coll_opts *o, const char *gpu_arch,
                          int32_t group_size)
{
    if (o->link_peak_gbps > 0)
        return o->link_peak_gbps;
    long per_node = o->gpus_per_node > 0 ? o->gpus_per_node : 8;
    if (group_size > per_node)
        return TLM_FIND_INTER_GBPS;
    for (size_t i = 0; gpu_arch && i < sizeof peaks / sizeof peaks[0]; i++) {
        size_t n = strlen(peaks[i].arch); /* "A10" is no "A100" prefix */
        if (!strncmp(gpu_arch, peaks[i].arch, n) &&
            !isalnum((unsigned char)gpu_arch[n]))
            return peaks[i].gbps;
    }
    return 0;
}

/* The list and the job's time: the mean GPU timeline span over ranks;
 * the means over ranks of the exposed communication's split (xsplit). */
typedef struct flist {
    tlm_findings *f;
    double t_ns;
    double ex, tr, wt, un; /* exposed: transfer, waiting, unknown (ns) */
} flist;

/* A finding of rule with impact pct (% of t_ns), its severity from it. */
static tlm_finding *add(flist *l, const char *rule, double pct)
{
    return fnd_add_pct(l->f, rule, "mpi", fnd_sev(&l->f->o, pct), pct);
}

#define FMT(l, dst, ...) fnd_setf((l)->f, &(dst), __VA_ARGS__)

static void mib(char *buf, size_t cap, int64_t b)
{
    if (b >= 1048576)
        snprintf(buf, cap, "%.1f MiB", (double)b / 1048576.0);
    else if (b >= 1024)
        snprintf(buf, cap, "%.1f KiB", (double)b / 1024.0);
    else
        snprintf(buf, cap, "%lld B", (long long)b);
}

/* "allreduce 16.0 MiB BFloat16 on mesh_tp (pg 1, 4 ranks)"; without a
 * description "allreduce 64.0 MiB on pg size8 (8 ranks)" */
static void coll_subject(flist *l, tlm_finding *f, const tlm_row_summary *s)
{
    char b[32], n[24] = "";
    mib(b, sizeof b, s->bytes);
    if (s->group_size > 0)
        snprintf(n, sizeof n, ", %d ranks", (int)s->group_size);
    if (s->pg_desc[0]) {
        FMT(l, f->subject, "%.16s %s%s%.24s on %.32s (pg %.64s%s)", s->coll,
            b, s->dtype[0] ? " " : "", s->dtype, s->pg_desc, s->pg_name, n);
        return;
    }
    /* no description: the group by its name (and size) */
    FMT(l, f->subject, "%.16s %s%s%.24s on %s%.64s%s%s%s", s->coll, b,
        s->dtype[0] ? " " : "", s->dtype,
        s->pg_name[0] ? "pg " : "an unnamed group", s->pg_name,
        n[0] ? " (" : "", n[0] ? n + 2 : "", n[0] ? ")" : "");
}

static int rule_straggler(flist *l, const tlm_find_coll_in *in)
{
    if (in->straggler_rank < 0)
        return 0;
    const tlm_row_straggler *s = NULL;
    for (size_t i = 0; i < in->n_strag && !s; i++)
        if (in->strag[i].overall &&
            in->strag[i].trace_rank == in->straggler_rank)
            s = &in->strag[i];
    if (!s)
        return 0;
    double cost = (double)s->wait_caused_corr_ns;
    double pct = 100.0 * cost / ((double)in->n_tl * l->t_ns);
    tlm_finding *f = add(l, "M1", isfinite(pct) ? pct : 0);
    if (!f)
        return -1;
    FMT(l, f->subject, "rank %d", s->trace_rank);
    FMT(l, f->text,
        "straggler rank %d: the other ranks waited %.3f ms for it in total "
        "(%.1f us per collective it joined; last alone %lld times of %lld)",
        s->trace_rank, cost / 1e6, (double)in->straggler_wait_ns / 1e3,
        (long long)s->times_last_corr, (long long)s->n_instances);
    FMT(l, f->action_a,
        "look at what rank %d does before its collectives (its host, data "
        "loading, a slower GPU): tlmpi report on its trace", s->trace_rank);
    FMT(l, f->action_b,
        "compare its step time and GPU busy time with the others "
        "(/steps/per_rank, /timeline)");
    FMT(l, f->evidence,
        "stragglers:trace_rank=%d:wait_caused_corr_ns=%lld;n_instances=%lld;"
        "times_last_corr=%lld", s->trace_rank,
        (long long)s->wait_caused_corr_ns, (long long)s->n_instances,
        (long long)s->times_last_corr);
    return 0;
}

typedef struct cand {
    const tlm_row_summary *s;
    double pct, v;
} cand;

static int cmp_cand(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->pct != y->pct)
        return x->pct > y->pct ? -1 : 1;
    return strcmp(x->s->pg_name, y->s->pg_name);
}

static int rule_skew(flist *l, const tlm_find_coll_in *in,
                     const tlm_find_coll_opts *o, cand *c)
{
    size_t nc = 0;
    for (size_t i = 0; i < in->n_sum; i++) {
        const tlm_row_summary *s = &in->sum[i];
        double sk = s->start_skew_corr_ns_mean, lat = s->latency_ns_mean;
        if (s->count <= 0 || !(sk >= o->skew_min_us * 1e3) ||
            !(sk > o->skew_pct / 100.0 * lat))
            continue;
        c[nc++] = (cand){s, 100.0 * sk * (double)s->count / l->t_ns, sk};
    }
    qsort(c, nc, sizeof *c, cmp_cand);
    for (size_t i = 0; i < nc && i < TLM_FIND_MAX_PER_RULE; i++) {
        const tlm_row_summary *s = c[i].s;
        tlm_finding *f = add(l, "M2", isfinite(c[i].pct) ? c[i].pct : 0);
        if (!f)
            return -1;
        coll_subject(l, f, s);
        FMT(l, f->text,
            "%s: ranks start %.1f us apart on average (corrected clocks), "
            "%.1fx its %.1f us latency, over %lld calls; over all "
            "collectives the ranks' kernels wait exposed for late ranks "
            "%.3f ms per rank (mean exposed waiting, %.1f %% of the GPU "
            "time, not in M4)", f->subject, c[i].v / 1e3,
            c[i].v / s->latency_ns_mean, s->latency_ns_mean / 1e3,
            (long long)s->count, l->wt / 1e6, 100.0 * l->wt / l->t_ns);
        FMT(l, f->action_a,
            "find the rank that arrives last (/collectives/instances "
            "last_rank_corr) and what delays it");
        FMT(l, f->action_b,
            "balance the work before this collective across the group");
        FMT(l, f->evidence,
            "collectives/summary:pg_name=%.64s:start_skew_corr_ns_mean=%.0f;"
            "latency_ns_mean=%.0f;count=%lld", s->pg_name, c[i].v,
            s->latency_ns_mean, (long long)s->count);
    }
    return 0;
}

static int rule_busbw(flist *l, const tlm_find_coll_in *in,
                      const tlm_find_coll_opts *o, cand *c)
{
    size_t nc = 0;
    for (size_t i = 0; i < in->n_sum; i++) {
        const tlm_row_summary *s = &in->sum[i];
        double peak = tlm_find_link_peak(o, in->gpu_arch, s->group_size);
        double bw = s->busbw_gbps_mean;
        if (s->count <= 0 || (double)s->bytes < o->busbw_min_bytes ||
            !(peak > 0) || !(bw < o->busbw_pct / 100.0 * peak))
            continue;
        double lost = (double)s->total_latency_ns * (1.0 - bw / peak);
        c[nc++] = (cand){s, 100.0 * lost / l->t_ns, peak};
    }
    qsort(c, nc, sizeof *c, cmp_cand);
    for (size_t i = 0; i < nc && i < TLM_FIND_MAX_PER_RULE; i++) {
        const tlm_row_summary *s = c[i].s;
        double peak = c[i].v;
        tlm_finding *f = add(l, "M3", isfinite(c[i].pct) ? c[i].pct : 0);
        if (!f)
            return -1;
        f->eff = 100.0 * s->busbw_gbps_mean / peak;
        coll_subject(l, f, s);
        FMT(l, f->text,
            "%s: bus bandwidth %.1f GB/s, %.0f %% of the link's %.0f GB/s "
            "peak, over %lld calls (%.3f ms)", f->subject,
            s->busbw_gbps_mean, f->eff, peak, (long long)s->count,
            (double)s->total_latency_ns / 1e6);
        FMT(l, f->action_a,
            "check the NCCL/RCCL algorithm and protocol, the transport "
            "(NVLink/xGMI, PCIe, network) and the NCCL_* environment");
        FMT(l, f->action_b,
            "if the group spans nodes, give --link_peak_gbps the network's "
            "per-GPU figure");
        FMT(l, f->evidence,
            "collectives/summary:pg_name=%.64s:busbw_gbps_mean=%.3f;"
            "peak_gbps=%.1f;bytes=%lld", s->pg_name, s->busbw_gbps_mean,
            peak, (long long)s->bytes);
    }
    return 0;
}

/* The means over ranks of the exposed communication and its split into
 * l (a timeline without a split, all zero: all unknown). */
static void xsplit(flist *l, const tlm_find_coll_in *in)
{
    double ex = 0, tr = 0, wt = 0, un = 0;
    for (size_t i = 0; i < in->n_tl; i++) {
        const tlm_row_timeline *t = &in->tl[i];
        double e = (double)t->exposed_comm_ns;
        ex += e;
        if (t->exposed_transfer_ns > 0 || t->exposed_waiting_ns > 0 ||
            t->exposed_unknown_ns > 0) {
            tr += (double)t->exposed_transfer_ns;
            wt += (double)t->exposed_waiting_ns;
            un += (double)t->exposed_unknown_ns;
        } else {
            un += e;
        }
    }
    double n = in->n_tl ? (double)in->n_tl : 1.0;
    l->ex = ex / n;
    l->tr = tr / n;
    l->wt = wt / n;
    l->un = un / n;
}

/* M4's text when the exposed time is mostly unknown (instances lacking
 * ranks, unmatched kernels): no overlap advice, since it may be waiting. */
static void exposed_unknown_text(flist *l, tlm_finding *f, double pct)
{
    FMT(l, f->subject, "exposed communication (transfer or waiting?)");
    FMT(l, f->text,
        "%.3f ms of %.3f ms exposed communication per rank (mean; %.1f %% "
        "of the GPU time) cannot be split into transfer and waiting for "
        "late ranks: instances lacking ranks of their group, or kernels "
        "matched to no instance; known transfer %.3f ms, known waiting "
        "%.3f ms", l->un / 1e6, l->ex / 1e6, pct, l->tr / 1e6,
        l->wt / 1e6);
    FMT(l, f->action_a,
        "profile every rank of each group (or let tlmpi match the "
        "collective kernels) to tell transfer from waiting");
    FMT(l, f->action_b,
        "only if it is transfer: overlap communication with computation");
}

/* M4: the exposed transfer (bounded by the collectives' own latency) with
 * the overlap advice; the waiting is M1's and M2's.  Exposed time that
 * cannot be split (unknown) gets M4 without the advice when it alone is
 * over the threshold and the transfer is not. */
static int rule_exposed(flist *l, const tlm_find_coll_in *in,
                        const tlm_find_coll_opts *o)
{
    if (!in->n_tl)
        return 0;
    double comm = 0;
    for (size_t i = 0; i < in->n_tl; i++)
        comm += (double)in->tl[i].total_comm_ns;
    comm /= (double)in->n_tl;
    double ex = l->ex;
    double pct_tr = 100.0 * l->tr / l->t_ns;
    double pct_un = 100.0 * l->un / l->t_ns;
    int unknown = !(pct_tr > o->exposed_pct);
    if (unknown && !(pct_un > o->exposed_pct))
        return 0;
    tlm_finding *f = add(l, "M4", unknown ? pct_un : pct_tr);
    if (!f)
        return -1;
    if (unknown) {
        exposed_unknown_text(l, f, pct_un);
    } else {
        char un[160] = "";
        if (l->un > 0)
            snprintf(un, sizeof un, "; %.3f ms more cannot be split "
                     "(instances lacking ranks, unmatched kernels)",
                     l->un / 1e6);
        FMT(l, f->subject, "exposed communication");
        FMT(l, f->text,
            "exposed transfer is %.1f %% of the GPU time: transfer %.3f ms "
            "of %.3f ms exposed communication per rank (mean); %.3f ms "
            "(%.1f %%) is waiting for late ranks (M1/M2, not here)%s; "
            "communication %.3f ms, %.0f %% of it overlapped",
            pct_tr, l->tr / 1e6, ex / 1e6, l->wt / 1e6,
            100.0 * l->wt / l->t_ns, un, comm / 1e6,
            comm > 0 ? 100.0 * (1.0 - ex / comm) : 0.0);
        FMT(l, f->action_a,
            "overlap communication with computation (gradient bucketing, "
            "FSDP prefetch, asynchronous tensor parallelism)");
        FMT(l, f->action_b,
            "reduce the volume: larger buckets, lower precision for "
            "gradients");
    }
    FMT(l, f->evidence,
        "timeline:mean:exposed_comm_ns=%.0f;exposed_transfer_ns=%.0f;"
        "exposed_waiting_ns=%.0f;exposed_unknown_ns=%.0f;total_comm_ns=%.0f;"
        "total_ns=%.0f", ex, l->tr, l->wt, l->un, comm, l->t_ns);
    return 0;
}

tlm_status tlm_find_coll_build(const tlm_find_coll_in *in,
                               const tlm_find_coll_opts *o,
                               tlm_row_finding **rows, size_t *n)
{
    flist l = {fnd_list_new_rows(0), NAN, 0, 0, 0, 0};
    double t = 0;
    for (size_t i = 0; i < in->n_tl; i++)
        t += (double)in->tl[i].total_ns;
    l.t_ns = in->n_tl && t > 0 ? t / (double)in->n_tl : NAN;
    xsplit(&l, in);
    cand *c = malloc((in->n_sum ? in->n_sum : 1) * sizeof *c);
    int rc = c && l.f ? 0 : -1;
    if (rc == 0)
        rc = rule_straggler(&l, in);
    if (rc == 0)
        rc = rule_skew(&l, in, o, c);
    if (rc == 0)
        rc = rule_busbw(&l, in, o, c);
    if (rc == 0)
        rc = rule_exposed(&l, in, o);
    free(c);
    tlm_status st = TLM_ENOMEM;
    *rows = NULL;
    *n = 0;
    if (rc == 0) {
        fnd_finish(l.f);
        st = fnd_rows(l.f, rows, n);
    }
    tlm_findings_free(l.f);
    return st;
}
