/*
 * audit_rows.c - a run's row of /runs and its rows of /scaling/collectives
 * from the results of its analysis (tlm_out_results, the same rank 0
 * writes report.md from).  Pure, no MPI.  Definitions:
 * docs/metrics-audit.md.
 */
#include "audit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cause.h"
#include "grow.h"
#include "jobinfo.h"

/* A run's row: identity columns, every metric unknown. */
void tlm_audit_row_init(tlm_arow_run *row, int32_t index, const char *run,
                        const char *job)
{
    memset(row, 0, sizeof *row);
    row->index = index;
    tlm_strset(row->run, sizeof row->run, run);
    tlm_strset(row->job, sizeof row->job, job);
    tlm_strset(row->status, sizeof row->status, "failed");
    int64_t *i64[] = {&row->world_size, &row->ranks_read, &row->n_files,
                      &row->bytes_on_disk, &row->instances, &row->incomplete,
                      &row->mismatch, &row->latency_suspect,
                      &row->unmatched, &row->n_steps, &row->step_time_ns,
                      &row->gpu_total_ns, &row->comm_ns,
                      &row->exposed_comm_ns, &row->exposed_transfer_ns,
                      &row->exposed_waiting_ns, &row->exposed_unknown_ns,
                      &row->max_start_skew_ns,
                      &row->p95_start_skew_ns, &row->clock_offset_max_ns,
                      &row->straggler_wait_ns, &row->straggler_cost_ns};
    for (size_t i = 0; i < sizeof i64 / sizeof i64[0]; i++)
        *i64[i] = -1;
    double *f64[] = {&row->comm_share, &row->busbw_allreduce_gbps,
                     &row->busbw_allgather_gbps,
                     &row->busbw_reducescatter_gbps,
                     &row->busbw_alltoall_gbps, &row->busbw_broadcast_gbps,
                     &row->busbw_p2p_gbps, &row->straggler_cost_share};
    for (size_t i = 0; i < sizeof f64 / sizeof f64[0]; i++)
        *f64[i] = NAN;
    row->straggler_rank = TLM_OUT_NO_STRAGGLER;
}

/* The busbw column of a kind. */
static double *kind_col(tlm_arow_run *row, int k)
{
    double *cols[TLM_AUDIT_N_KINDS] = {
        &row->busbw_allreduce_gbps,     &row->busbw_allgather_gbps,
        &row->busbw_reducescatter_gbps, &row->busbw_alltoall_gbps,
        &row->busbw_broadcast_gbps,     &row->busbw_p2p_gbps};
    return cols[k];
}

/* The audit kind of a collective type, or -1. */
static int kind_of(int coll)
{
    switch (coll) {
    case TLM_COLL_ALLREDUCE: return TLM_AUDIT_K_allreduce;
    case TLM_COLL_ALLGATHER: return TLM_AUDIT_K_allgather;
    case TLM_COLL_REDUCESCATTER: return TLM_AUDIT_K_reducescatter;
    case TLM_COLL_ALLTOALL:
    case TLM_COLL_ALLTOALLV: return TLM_AUDIT_K_alltoall;
    case TLM_COLL_BROADCAST: return TLM_AUDIT_K_broadcast;
    case TLM_COLL_SEND:
    case TLM_COLL_RECV:
    case TLM_COLL_SENDRECV: return TLM_AUDIT_K_p2p;
    default: return -1;
    }
}

/* An instance whose bandwidth is trusted: not set aside (the one rule of
 * tlm_coll_inst_aside: every member there, one signature, a latency that
 * fits the clocks) and a latency. */
static int complete(const tlm_coll_instance *in)
{
    return tlm_coll_inst_aside(in->flags) == TLM_COLL_ASIDE_NONE &&
           in->comm_latency_ns > 0;
}

/* qsort order of int64 values. */
static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Median of v[0..n) (sorted here); mean of the middle two, rounded down. */
static int64_t median_i64(int64_t *v, size_t n)
{
    if (!n)
        return -1;
    qsort(v, n, sizeof *v, cmp_i64);
    if (n % 2)
        return v[n / 2];
    return v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

/* Step time and communication share. */
static tlm_status step_cols(tlm_arow_run *row, const tlm_out_results *r)
{
    int64_t tot = 0, comm = 0, exp = 0, xtr = 0, xwt = 0, xun = 0;
    for (size_t i = 0; i < r->n_traces; i++) {
        tot += r->timeline[i].total_ns;
        comm += r->timeline[i].total_comm_ns;
        exp += r->timeline[i].exposed_comm_ns;
        xtr += r->timeline[i].exposed_transfer_ns;
        xwt += r->timeline[i].exposed_waiting_ns;
        xun += r->timeline[i].exposed_unknown_ns;
    }
    if (r->n_traces) {
        int64_t n = (int64_t)r->n_traces;
        row->gpu_total_ns = tot / n;
        row->comm_ns = comm / n;
        row->exposed_comm_ns = exp / n;
        row->exposed_transfer_ns = xtr / n;
        row->exposed_waiting_ns = xwt / n;
        row->exposed_unknown_ns = xun / n;
        row->comm_share = tot > 0 ? (double)exp / (double)tot : NAN;
    }
    row->n_steps = (int64_t)r->n_step_sum;
    if (!r->n_step_sum)
        return TLM_OK;
    int64_t *v = malloc(r->n_step_sum * sizeof *v);
    if (!v)
        return TLM_ENOMEM;
    double sd = 0, se = 0;
    for (size_t i = 0; i < r->n_step_sum; i++) {
        v[i] = r->step_sum[i].dur_max_ns;
        sd += (double)r->step_sum[i].dur_max_ns;
        se += (double)r->step_sum[i].exposed_comm_max_ns;
    }
    row->step_time_ns = median_i64(v, r->n_step_sum);
    if (sd > 0)
        row->comm_share = se / sd;
    free(v);
    return TLM_OK;
}

/* Bandwidth per kind and arrival skew. */
static tlm_status coll_cols(tlm_arow_run *row, const tlm_out_results *r)
{
    double bw[TLM_AUDIT_N_KINDS] = {0}, lat[TLM_AUDIT_N_KINDS] = {0};
    int64_t *sk = malloc((r->n_inst ? r->n_inst : 1) * sizeof *sk);
    if (!sk)
        return TLM_ENOMEM;
    size_t ns = 0, why[4] = {0};
    for (size_t i = 0; i < r->n_inst; i++) {
        const tlm_coll_instance *in = &r->inst[i];
        why[tlm_coll_inst_aside(in->flags)]++;
        if (!complete(in))
            continue;
        int k = kind_of(in->coll);
        if (k >= 0 && isfinite(in->busbw_gbps)) {
            bw[k] += in->busbw_gbps * (double)in->comm_latency_ns;
            lat[k] += (double)in->comm_latency_ns;
        }
        if (tlm_coll_type_implicit_sync((tlm_coll_type)in->coll) &&
            in->n_members >= 2)
            sk[ns++] = in->start_skew_corr_ns;
    }
    for (int k = 0; k < TLM_AUDIT_N_KINDS; k++)
        *kind_col(row, k) = lat[k] > 0 ? bw[k] / lat[k] : NAN;
    row->instances = (int64_t)r->n_inst;
    row->incomplete = (int64_t)why[TLM_COLL_ASIDE_INCOMPLETE];
    row->mismatch = (int64_t)why[TLM_COLL_ASIDE_MISMATCH];
    row->latency_suspect = (int64_t)why[TLM_COLL_ASIDE_SUSPECT];
    row->unmatched = (int64_t)r->n_unmatched;
    if (ns) {
        qsort(sk, ns, sizeof *sk, cmp_i64);
        row->max_start_skew_ns = sk[ns - 1];
        size_t p = (size_t)ceil(0.95 * (double)ns);
        row->p95_start_skew_ns = sk[p ? p - 1 : 0];
    }
    free(sk);
    return TLM_OK;
}

/* Straggler verdict and cost; the per-rank rows kept for the job. */
static tlm_status strag_cols(tlm_audit_acc *acc, size_t run,
                             tlm_arow_run *row, const tlm_out_results *r,
                             double threshold_us)
{
    int64_t wait = 0;
    int32_t top = -1;
    row->straggler_rank =
        tlm_out_straggler_pick(r->strag, r->n_strag, threshold_us, &wait, &top);
    int64_t tot = 0;
    for (size_t i = 0; i < r->n_traces; i++)
        tot += r->timeline[i].total_ns;
    for (size_t i = 0; i < r->n_strag; i++) {
        const tlm_coll_straggler_row *s = &r->strag[i];
        if (!s->overall)
            continue;
        if (s->trace_rank == top) {
            row->straggler_wait_ns = wait;
            row->straggler_cost_ns = s->wait_caused_corr_ns;
            row->straggler_cost_share =
                tot > 0 ? (double)s->wait_caused_corr_ns / (double)tot : NAN;
        }
        if (tlm_grow((void **)&acc->sr, &acc->cap_sr, acc->n_sr + 1,
                     sizeof *acc->sr, 64) != TLM_OK)
            return TLM_ENOMEM;
        tlm_audit_srank *o = &acc->sr[acc->n_sr++];
        o->run = (int32_t)run;
        o->trace_rank = s->trace_rank;
        o->named = s->trace_rank == row->straggler_rank;
        o->top = s->trace_rank == top;
        o->wait_caused_ns = s->wait_caused_corr_ns;
        o->n_instances = s->n_instances;
    }
    return TLM_OK;
}

/* Signature order: coll, pg_desc, dtype, bytes, group size, latency. */
static int sig_cmp(const tlm_coll_instance *a, const tlm_coll_instance *b,
                   int with_latency)
{
    int c = strcmp(tlm_coll_type_name((tlm_coll_type)a->coll),
                   tlm_coll_type_name((tlm_coll_type)b->coll));
    if (!c)
        c = strncmp(a->pg_desc, b->pg_desc, sizeof a->pg_desc);
    if (!c)
        c = strncmp(a->dtype_name, b->dtype_name, sizeof a->dtype_name);
    if (!c)
        c = (a->bytes > b->bytes) - (a->bytes < b->bytes);
    if (!c)
        c = (a->group_size > b->group_size) - (a->group_size < b->group_size);
    if (!c && with_latency)
        c = (a->comm_latency_ns > b->comm_latency_ns) -
            (a->comm_latency_ns < b->comm_latency_ns);
    return c;
}

/* qsort order of instance pointers by signature, then latency. */
static int cmp_inst_ptr(const void *a, const void *b)
{
    return sig_cmp(*(const tlm_coll_instance *const *)a,
                   *(const tlm_coll_instance *const *)b, 1);
}

/* One signature's row from its instances g[0..n) (sorted by latency):
 * those set aside counted by reason, the others used. */
static void sig_row(tlm_arow_coll *o, const tlm_arow_run *row,
                    const tlm_coll_instance **all, size_t n_all,
                    double lat_all)
{
    const tlm_coll_instance *f = all[0];
    const tlm_coll_instance **g = all; /* the used ones compacted in front,
                                        * latency order kept */
    size_t n = 0;
    int64_t why[4] = {0};
    for (size_t i = 0; i < n_all; i++) {
        if (complete(all[i]))
            g[n++] = all[i];
        else
            why[tlm_coll_inst_aside(all[i]->flags)]++;
    }
    memset(o, 0, sizeof *o);
    tlm_strset(o->job, sizeof o->job, row->job);
    tlm_strset(o->run, sizeof o->run, row->run);
    o->world_size = row->world_size;
    tlm_strset(o->coll, sizeof o->coll,
                   tlm_coll_type_name((tlm_coll_type)f->coll));
    tlm_strnset(o->pg_desc, sizeof o->pg_desc, f->pg_desc,
                    sizeof f->pg_desc);
    tlm_strnset(o->dtype, sizeof o->dtype, f->dtype_name,
                    sizeof f->dtype_name);
    o->bytes = f->bytes;
    o->group_size = f->group_size;
    o->count = (int64_t)n;
    o->n_incomplete = why[TLM_COLL_ASIDE_INCOMPLETE];
    o->n_mismatch = why[TLM_COLL_ASIDE_MISMATCH];
    o->n_suspect = why[TLM_COLL_ASIDE_SUSPECT];
    o->base_busbw_gbps = NAN;
    o->busbw_ratio = NAN;
    if (!n) { /* every instance set aside: counted, no figure */
        o->latency_median_ns = -1;
        o->busbw_gbps = o->algbw_gbps = o->time_share = NAN;
        return;
    }
    o->latency_median_ns =
        n % 2 ? g[n / 2]->comm_latency_ns
              : g[n / 2 - 1]->comm_latency_ns +
                    (g[n / 2]->comm_latency_ns - g[n / 2 - 1]->comm_latency_ns) /
                        2;
    double lat = 0, bw = 0, alg = 0;
    for (size_t i = 0; i < n; i++) {
        double l = (double)g[i]->comm_latency_ns;
        lat += l;
        if (isfinite(g[i]->busbw_gbps))
            bw += g[i]->busbw_gbps * l;
        if (isfinite(g[i]->algbw_gbps))
            alg += g[i]->algbw_gbps * l;
    }
    o->busbw_gbps = lat > 0 && bw > 0 ? bw / lat : NAN;
    o->algbw_gbps = lat > 0 && alg > 0 ? alg / lat : NAN;
    o->time_share = lat_all > 0 ? lat / lat_all : NAN;
}

/* The run's /scaling/collectives rows. */
static tlm_status sig_rows(tlm_audit_acc *acc, const tlm_arow_run *row,
                           const tlm_out_results *r)
{
    const tlm_coll_instance **g =
        malloc((r->n_inst ? r->n_inst : 1) * sizeof *g);
    if (!g)
        return TLM_ENOMEM;
    size_t n = 0;
    double lat_all = 0;
    for (size_t i = 0; i < r->n_inst; i++)
        if (kind_of(r->inst[i].coll) >= 0) {
            g[n++] = &r->inst[i];
            if (complete(&r->inst[i]))
                lat_all += (double)r->inst[i].comm_latency_ns;
        }
    qsort(g, n, sizeof *g, cmp_inst_ptr);
    tlm_status st = TLM_OK;
    for (size_t a = 0, b; st == TLM_OK && a < n; a = b) {
        for (b = a + 1; b < n && sig_cmp(g[a], g[b], 0) == 0; b++)
            ;
        st = tlm_grow((void **)&acc->colls, &acc->cap_colls,
                      acc->n_colls + 1, sizeof *acc->colls, 64);
        if (st == TLM_OK)
            sig_row(&acc->colls[acc->n_colls++], row, g + a, b - a, lat_all);
    }
    free(g);
    return st;
}

/* The sentences of why the run's straggler is late (cause.c), under the
 * run's name, appended to acc->causes_md. */
static tlm_status cause_text(tlm_audit_acc *acc, const tlm_arow_run *row,
                             const tlm_out_results *r)
{
    if (!r->n_cause)
        return TLM_OK;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return TLM_ENOMEM;
    fputs("Run ", f);
    tlm_out_md_cell(f, row->run, sizeof row->run);
    fputs(":\n\n", f);
    tlm_out_cause_md(f, r->cause, r->n_cause);
    fputc('\n', f);
    if (fclose(f) != 0 || !buf) {
        free(buf);
        return TLM_ENOMEM;
    }
    char *n = realloc(acc->causes_md, acc->n_causes_md + len + 1);
    if (!n) {
        free(buf);
        return TLM_ENOMEM;
    }
    memcpy(n + acc->n_causes_md, buf, len + 1);
    acc->causes_md = n;
    acc->n_causes_md += len;
    free(buf);
    return TLM_OK;
}

/* The audit kind's name of a collective type, else the type's own. */
static const char *kind_name(int coll)
{
    static const char *const names[TLM_AUDIT_N_KINDS] = {
#define TLM_X_(k) #k,
        TLM_AUDIT_KINDS(TLM_X_)
#undef TLM_X_
    };
    int k = kind_of(coll);
    return k >= 0 ? names[k] : tlm_coll_type_name((tlm_coll_type)coll);
}

/* qsort order of C strings. */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The run's collective signature: its "kind/dtype" pairs, sorted. */
static void sig_colls(tlm_audit_sig *s, const tlm_out_results *r)
{
    enum { MAXP = 32 };
    char pair[MAXP][64];
    const char *v[MAXP];
    size_t n = 0;
    for (size_t i = 0; i < r->n_inst; i++) {
        const tlm_coll_instance *in = &r->inst[i];
        char p[64];
        int nd = (int)strnlen(in->dtype_name, sizeof in->dtype_name);
        snprintf(p, sizeof p, "%s/%.*s", kind_name(in->coll), nd ? nd : 1,
                 nd ? in->dtype_name : "?");
        size_t j = 0;
        while (j < n && strcmp(pair[j], p) != 0)
            j++;
        if (j == n && n < MAXP) {
            memcpy(pair[n], p, sizeof p);
            v[n] = pair[n];
            n++;
        }
    }
    qsort(v, n, sizeof *v, cmp_str);
    size_t len = 0;
    s->coll[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        int w = snprintf(s->coll + len, sizeof s->coll - len, "%s%s",
                         i ? " " : "", v[i]);
        if (w < 0 || (size_t)w >= sizeof s->coll - len)
            break; /* cut: both runs cut alike */
        len += (size_t)w;
    }
}

/* Whether an op is communication (its kernels are the collectives, in
 * the collective signature already). */
static int comm_op(const char *name)
{
    return !strncmp(name, "nccl:", 5) || !strncmp(name, "c10d::", 6) ||
           !strncmp(name, "record_param_comms", 18) ||
           !strncmp(name, "ProfilerStep#", 13);
}

/* FNV-1a of a bounded name. */
static uint64_t name_hash(const char *s, size_t cap)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < cap && s[i]; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* The run's op signature: its ops of most kernel time (r->ops comes in
 * that order) and their shares. */
static void sig_ops(tlm_audit_sig *s, const tlm_out_results *r)
{
    double tot = 0;
    for (size_t i = 0; i < r->n_ops; i++)
        if (!comm_op(r->ops[i].name) && r->ops[i].direct_kernel_ns > 0)
            tot += r->ops[i].direct_kernel_ns;
    s->n_ops = 0;
    for (size_t i = 0; i < r->n_ops && s->n_ops < TLM_AUDIT_SIG_OPS; i++) {
        const tlm_row_op_merged *o = &r->ops[i];
        if (comm_op(o->name) || !(o->direct_kernel_ns > 0))
            continue;
        s->op_hash[s->n_ops] = name_hash(o->name, sizeof o->name);
        s->op_share[s->n_ops++] = o->direct_kernel_ns / tot;
    }
}

/* The run's signatures, kept in acc->sig (allocated for every run at the
 * first call). */
static tlm_status sig_fill(tlm_audit_acc *acc, size_t run,
                           const tlm_out_results *r)
{
    if (!acc->sig) {
        acc->sig = calloc(acc->n_runs ? acc->n_runs : 1, sizeof *acc->sig);
        if (!acc->sig)
            return TLM_ENOMEM;
    }
    tlm_audit_sig *s = &acc->sig[run];
    sig_colls(s, r);
    sig_ops(s, r);
    s->set = 1;
    return TLM_OK;
}

/* Share of a's kept op time in ops that b keeps too. */
static double op_overlap(const tlm_audit_sig *a, const tlm_audit_sig *b)
{
    double in = 0, all = 0;
    for (size_t i = 0; i < a->n_ops; i++) {
        all += a->op_share[i];
        for (size_t j = 0; j < b->n_ops; j++)
            if (a->op_hash[i] == b->op_hash[j]) {
                in += a->op_share[i];
                break;
            }
    }
    return all > 0 ? in / all : 1.0;
}

int tlm_audit_sig_match(const tlm_audit_sig *a, const tlm_audit_sig *b,
                        char *why, size_t cap)
{
    if (why && cap)
        why[0] = '\0';
    if (!a->set || !b->set)
        return 0;
    if (strcmp(a->coll, b->coll) != 0) {
        if (why && cap)
            snprintf(why, cap, "collectives differ");
        return 0;
    }
    if (!a->n_ops && !b->n_ops)
        return 1;
    double ab = op_overlap(a, b), ba = op_overlap(b, a);
    if (a->n_ops && b->n_ops && ab >= TLM_AUDIT_SIG_OP_SHARE &&
        ba >= TLM_AUDIT_SIG_OP_SHARE)
        return 1;
    if (why && cap)
        snprintf(why, cap, "ops differ: ops of both make %.0f %% and "
                           "%.0f %% of their kernel time",
                 100 * ab, 100 * ba);
    return 0;
}

/* A run's row and signature rows from the results of its analysis. */
tlm_status tlm_audit_add_results(tlm_audit_acc *acc, size_t run,
                                 const tlm_out_results *r,
                                 double straggler_threshold_us)
{
    tlm_arow_run *row = &acc->runs[run];
    row->world_size = r->world_size;
    row->ranks_read = (int64_t)r->n_traces;
    row->bytes_on_disk = (int64_t)r->bytes_read;
    int64_t off = 0;
    for (size_t i = 0; i < r->n_traces; i++) {
        int64_t o = r->traces[i].clock_offset_ns;
        o = o < 0 ? -o : o;
        off = o > off ? o : off;
    }
    row->clock_offset_max_ns = r->n_traces ? off : -1;
    tlm_out_gpu_sum gs;
    tlm_out_gpu_summary(r->traces, r->n_traces, &gs);
    tlm_strset(row->gpu_arch, sizeof row->gpu_arch, gs.arch);
    tlm_status st = step_cols(row, r);
    if (st == TLM_OK)
        st = coll_cols(row, r);
    if (st == TLM_OK)
        st = strag_cols(acc, run, row, r, straggler_threshold_us);
    if (st == TLM_OK)
        st = sig_rows(acc, row, r);
    if (st == TLM_OK)
        st = cause_text(acc, row, r);
    if (st == TLM_OK)
        st = sig_fill(acc, run, r);
    return st;
}

/* Frees every table of acc. */
void tlm_audit_acc_free(tlm_audit_acc *acc)
{
    free(acc->runs);
    free(acc->colls);
    free(acc->sr);
    free(acc->jobs);
    free(acc->strag);
    free(acc->cmp);
    free(acc->causes_md);
    free(acc->sig);
    free(acc->series);
    memset(acc, 0, sizeof *acc);
}
