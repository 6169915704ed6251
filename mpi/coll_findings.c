/*
 * coll_findings.c - the collective findings of the analysis (rules M1-M4
 * of coll_findings.h) over rank 0's HDF5 rows, and their Markdown.  Pure:
 * no MPI, no HDF5 calls.  docs/compare-runs.md, "Findings of the
 * analysis".
 */
#include "coll_findings.h"

#include "report0.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void tlm_mpi_find_opts_init(tlm_mpi_find_opts *o)
{
    o->link_peak_gbps = 0;
    o->skew_pct = TLM_FIND_SKEW_PCT;
    o->skew_min_us = TLM_FIND_SKEW_MIN_US;
    o->busbw_pct = TLM_FIND_BUSBW_PCT;
    o->busbw_min_bytes = TLM_FIND_BUSBW_MIN_BYTES;
    o->exposed_pct = TLM_FIND_EXPOSED_PCT;
    o->gpus_per_node = -1;
}

void tlm_mpi_find_opts_of(const tlm_cli_opts *o, tlm_mpi_find_opts *fo)
{
    tlm_mpi_find_opts_init(fo);
    fo->link_peak_gbps = o->link_peak_gbps;
    fo->skew_pct = o->findings_skew_pct;
    fo->skew_min_us = o->findings_skew_min_us;
    fo->busbw_pct = o->findings_busbw_pct;
    fo->busbw_min_bytes = o->findings_busbw_min_bytes;
    fo->exposed_pct = o->findings_exposed_comm_pct;
    fo->gpus_per_node = o->gpus_per_node;
}

/* Per-GPU bus bandwidth peaks inside a node (GB/s, one direction):
 * NVLink 3/4/5 and AMD Infinity Fabric (xGMI, 7 links). */
static const struct {
    const char *arch;
    double gbps;
} peaks[] = {
    {"A100", 300.0},   {"H100", 450.0},   {"H200", 450.0},
    {"B200", 900.0},   {"MI300X", 448.0}, {"MI325X", 448.0},
    {"MI355X", 537.6},
};

double tlm_mpi_link_peak(const tlm_mpi_find_opts *o, const char *gpu_arch,
                         int32_t group_size)
{
    if (o->link_peak_gbps > 0)
        return o->link_peak_gbps;
    long per_node = o->gpus_per_node > 0 ? o->gpus_per_node : 8;
    if (group_size > per_node)
        return TLM_FIND_INTER_GBPS;
    for (size_t i = 0; gpu_arch && i < sizeof peaks / sizeof peaks[0]; i++)
        if (!strncmp(gpu_arch, peaks[i].arch, strlen(peaks[i].arch)))
            return peaks[i].gbps;
    return 0;
}

typedef struct flist {
    tlm_row_finding *v;
    size_t n, cap;
    double t_ns; /* mean GPU timeline span over ranks */
} flist;

static const char *severity(double pct)
{
    return pct >= 5 ? "high" : pct >= 1 ? "medium" : "low";
}

static tlm_row_finding *add(flist *l, const char *rule, double pct)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        void *p = realloc(l->v, cap * sizeof *l->v);
        if (!p)
            return NULL;
        l->v = p;
        l->cap = cap;
    }
    tlm_row_finding *f = &l->v[l->n++];
    memset(f, 0, sizeof *f);
    tlm_strset(f->rule, sizeof f->rule, rule);
    tlm_strset(f->mode, sizeof f->mode, "mpi");
    tlm_strset(f->severity, sizeof f->severity, severity(pct));
    f->pct_e2e = f->impact_low = f->impact_mid = f->impact_high = pct;
    f->eff = NAN;
    return f;
}

static void fmt(char *dst, size_t cap, const char *fm, ...)
    TLM_PRINTF(3, 4);
static void fmt(char *dst, size_t cap, const char *fm, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fm);
    vsnprintf(buf, sizeof buf, fm, ap);
    va_end(ap);
    tlm_strset(dst, cap, buf);
}

static void mib(char *buf, size_t cap, int64_t b)
{
    if (b >= 1048576)
        snprintf(buf, cap, "%.1f MiB", (double)b / 1048576.0);
    else if (b >= 1024)
        snprintf(buf, cap, "%.1f KiB", (double)b / 1024.0);
    else
        snprintf(buf, cap, "%lld B", (long long)b);
}

/* "allreduce 16.0 MiB BFloat16 on mesh_tp (pg 1, 4 ranks)" */
static void coll_subject(char *dst, size_t cap, const tlm_row_summary *s)
{
    char b[32], n[24] = "";
    mib(b, sizeof b, s->bytes);
    if (s->group_size > 0)
        snprintf(n, sizeof n, ", %d ranks", (int)s->group_size);
    fmt(dst, cap, "%.16s %s%s%.24s on %.32s (pg %.64s%s)", s->coll, b,
        s->dtype[0] ? " " : "", s->dtype, s->pg_desc[0] ? s->pg_desc : "-",
        s->pg_name, n);
}

static int rule_straggler(flist *l, const tlm_mpi_find_in *in)
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
    tlm_row_finding *f = add(l, "M1", isfinite(pct) ? pct : 0);
    if (!f)
        return -1;
    fmt(f->subject, sizeof f->subject, "rank %d", s->trace_rank);
    fmt(f->text, sizeof f->text,
        "straggler rank %d: the other ranks waited %.3f ms for it in total "
        "(%.1f us per collective it joined; last alone %lld times of %lld)",
        s->trace_rank, cost / 1e6, (double)in->straggler_wait_ns / 1e3,
        (long long)s->times_last_corr, (long long)s->n_instances);
    fmt(f->action_a, sizeof f->action_a,
        "look at what rank %d does before its collectives (its host, data "
        "loading, a slower GPU): tlmpi report on its trace", s->trace_rank);
    fmt(f->action_b, sizeof f->action_b,
        "compare its step time and GPU busy time with the others "
        "(/steps/per_rank, /timeline)");
    fmt(f->evidence, sizeof f->evidence,
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

static int rule_skew(flist *l, const tlm_mpi_find_in *in,
                     const tlm_mpi_find_opts *o, cand *c)
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
        tlm_row_finding *f = add(l, "M2", isfinite(c[i].pct) ? c[i].pct : 0);
        if (!f)
            return -1;
        coll_subject(f->subject, sizeof f->subject, s);
        fmt(f->text, sizeof f->text,
            "%s: ranks start %.1f us apart on average (corrected clocks), "
            "%.1fx its %.1f us latency, over %lld calls", f->subject,
            c[i].v / 1e3, c[i].v / s->latency_ns_mean,
            s->latency_ns_mean / 1e3, (long long)s->count);
        fmt(f->action_a, sizeof f->action_a,
            "find the rank that arrives last (/collectives/instances "
            "last_rank_corr) and what delays it");
        fmt(f->action_b, sizeof f->action_b,
            "balance the work before this collective across the group");
        fmt(f->evidence, sizeof f->evidence,
            "collectives/summary:pg_name=%.64s:start_skew_corr_ns_mean=%.0f;"
            "latency_ns_mean=%.0f;count=%lld", s->pg_name, c[i].v,
            s->latency_ns_mean, (long long)s->count);
    }
    return 0;
}

static int rule_busbw(flist *l, const tlm_mpi_find_in *in,
                      const tlm_mpi_find_opts *o, cand *c)
{
    size_t nc = 0;
    for (size_t i = 0; i < in->n_sum; i++) {
        const tlm_row_summary *s = &in->sum[i];
        double peak = tlm_mpi_link_peak(o, in->gpu_arch, s->group_size);
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
        tlm_row_finding *f = add(l, "M3", isfinite(c[i].pct) ? c[i].pct : 0);
        if (!f)
            return -1;
        f->eff = 100.0 * s->busbw_gbps_mean / peak;
        coll_subject(f->subject, sizeof f->subject, s);
        fmt(f->text, sizeof f->text,
            "%s: bus bandwidth %.1f GB/s, %.0f %% of the link's %.0f GB/s "
            "peak, over %lld calls (%.3f ms)", f->subject,
            s->busbw_gbps_mean, f->eff, peak, (long long)s->count,
            (double)s->total_latency_ns / 1e6);
        fmt(f->action_a, sizeof f->action_a,
            "check the NCCL/RCCL algorithm and protocol, the transport "
            "(NVLink/xGMI, PCIe, network) and the NCCL_* environment");
        fmt(f->action_b, sizeof f->action_b,
            "if the group spans nodes, give --link_peak_gbps the network's "
            "per-GPU figure");
        fmt(f->evidence, sizeof f->evidence,
            "collectives/summary:pg_name=%.64s:busbw_gbps_mean=%.3f;"
            "peak_gbps=%.1f;bytes=%lld", s->pg_name, s->busbw_gbps_mean,
            peak, (long long)s->bytes);
    }
    return 0;
}

static int rule_exposed(flist *l, const tlm_mpi_find_in *in,
                        const tlm_mpi_find_opts *o)
{
    if (!in->n_tl)
        return 0;
    double ex = 0, comm = 0;
    for (size_t i = 0; i < in->n_tl; i++) {
        ex += (double)in->tl[i].exposed_comm_ns;
        comm += (double)in->tl[i].total_comm_ns;
    }
    ex /= (double)in->n_tl;
    comm /= (double)in->n_tl;
    double pct = 100.0 * ex / l->t_ns;
    if (!(pct > o->exposed_pct))
        return 0;
    tlm_row_finding *f = add(l, "M4", pct);
    if (!f)
        return -1;
    fmt(f->subject, sizeof f->subject, "exposed communication");
    fmt(f->text, sizeof f->text,
        "exposed communication is %.1f %% of the GPU time: %.3f of %.3f ms "
        "per rank (mean); communication %.3f ms, %.0f %% of it overlapped",
        pct, ex / 1e6, l->t_ns / 1e6, comm / 1e6,
        comm > 0 ? 100.0 * (1.0 - ex / comm) : 0.0);
    fmt(f->action_a, sizeof f->action_a,
        "overlap communication with computation (gradient bucketing, FSDP "
        "prefetch, asynchronous tensor parallelism)");
    fmt(f->action_b, sizeof f->action_b,
        "reduce the volume: larger buckets, lower precision for gradients");
    fmt(f->evidence, sizeof f->evidence,
        "timeline:mean:exposed_comm_ns=%.0f;total_comm_ns=%.0f;total_ns=%.0f",
        ex, comm, l->t_ns);
    return 0;
}

static int sev_rank(const char *s)
{
    return !strcmp(s, "high") ? 0 : !strcmp(s, "medium") ? 1 : 2;
}

static int cmp_find(const void *a, const void *b)
{
    const tlm_row_finding *x = a, *y = b;
    int c = sev_rank(x->severity) - sev_rank(y->severity);
    if (!c)
        c = x->pct_e2e > y->pct_e2e ? -1 : x->pct_e2e < y->pct_e2e;
    if (!c)
        c = strcmp(x->rule, y->rule);
    return c ? c : strcmp(x->subject, y->subject);
}

tlm_status tlm_mpi_findings_build(const tlm_mpi_find_in *in,
                                  const tlm_mpi_find_opts *o,
                                  tlm_row_finding **rows, size_t *n)
{
    flist l = {NULL, 0, 0, NAN};
    double t = 0;
    for (size_t i = 0; i < in->n_tl; i++)
        t += (double)in->tl[i].total_ns;
    l.t_ns = in->n_tl && t > 0 ? t / (double)in->n_tl : NAN;
    cand *c = malloc((in->n_sum ? in->n_sum : 1) * sizeof *c);
    int rc = c ? 0 : -1;
    if (rc == 0)
        rc = rule_straggler(&l, in);
    if (rc == 0)
        rc = rule_skew(&l, in, o, c);
    if (rc == 0)
        rc = rule_busbw(&l, in, o, c);
    if (rc == 0)
        rc = rule_exposed(&l, in, o);
    free(c);
    if (rc != 0) {
        free(l.v);
        *rows = NULL;
        *n = 0;
        return TLM_ENOMEM;
    }
    if (l.n)
        qsort(l.v, l.n, sizeof *l.v, cmp_find);
    for (size_t i = 0; i < l.n; i++)
        snprintf(l.v[i].id, sizeof l.v[i].id, "P%u",
                 (unsigned)(i + 1) % 1000000u);
    *rows = l.v;
    *n = l.n;
    return TLM_OK;
}

void tlm_mpi_findings_md(FILE *f, const tlm_row_finding *rows, size_t n,
                         const tlm_mpi_find_opts *o)
{
    (void)o;
    fputs("## Findings\n\nDeterministic rules over the tables (M1 "
          "straggler, M2 skew, M3 bus bandwidth against the link's peak, "
          "M4 exposed communication); impact in % of the GPU time (mean "
          "timeline span per rank); thresholds in the appendix, "
          "definitions in docs/compare-runs.md.\n\n", f);
    if (!n) {
        fputs("No finding.\n\n", f);
        return;
    }
    fputs("| id | rule | severity | impact % | finding | action |\n"
          "|---|---|---|---|---|---|\n", f);
    for (size_t i = 0; i < n; i++) {
        const tlm_row_finding *x = &rows[i];
        fprintf(f, "| %s | %s | %s | %.2f | ", x->id, x->rule, x->severity,
                x->pct_e2e);
        tlm_mpi_md_cell(f, x->text, sizeof x->text);
        fputs(" | ", f);
        tlm_mpi_md_cell(f, x->action_a, sizeof x->action_a);
        fputs(" |\n", f);
    }
    fputc('\n', f);
}

void tlm_mpi_findings_md_appendix(FILE *f, const tlm_mpi_find_opts *o)
{
    fputs("## Appendix: finding thresholds\n\n| option | value |\n"
          "|---|---|\n", f);
    if (o->link_peak_gbps > 0)
        fprintf(f, "| --link_peak_gbps | %g |\n", o->link_peak_gbps);
    else
        fprintf(f, "| --link_peak_gbps | 0 (per GPU: A100 300, H100/H200 "
                   "450, B200 900, MI300X/MI325X 448, MI355X 537.6; groups "
                   "larger than a node (--gpus_per_node, default 8) %g) |\n",
                TLM_FIND_INTER_GBPS);
    fprintf(f, "| --findings_skew_pct | %g |\n| --findings_skew_min_us | %g "
               "|\n| --findings_busbw_pct | %g |\n"
               "| --findings_busbw_min_bytes | %.0f |\n"
               "| --findings_exposed_comm_pct | %g |\n\n",
            o->skew_pct, o->skew_min_us, o->busbw_pct, o->busbw_min_bytes,
            o->exposed_pct);
}
