/*
 * job_rows.c - rank 0's results as the flat rows of the HDF5 tables
 * (tables.h): traces and their GPU timelines with the estimated clock
 * offsets, and the collective instances, unmatched records, summary, clock
 * and straggler tables of tlm_coll.h with their enums as text, fixed
 * strings cut at whole UTF-8 characters and fixed-point credits as
 * doubles (the driver's write phase and the collective findings use
 * them).  Other ranks hold no such rows and contribute none.
 */
#include "job.h"

#include <stdlib.h>
#include <string.h>

/* Copies a fixed string field into another (truncating whole UTF-8
 * characters, NUL-padding). */
#define FIXSTR(dst, src) tlm_strnset((dst), sizeof(dst), (src), sizeof(src))

/* Copies field f, of the same name in the source and the row. */
#define SAME_(f) o->f = s->f;

static const char *seq_src_name(int s)
{
    switch (s) {
    case TLM_COLL_SEQ_TRACE:
        return "trace";
    case TLM_COLL_SEQ_CONCRETE:
        return "concrete";
    case TLM_COLL_SEQ_P2P:
        return "p2p";
    default:
        return "ordinal";
    }
}

static const char *unm_reason(int r)
{
    switch (r) {
    case TLM_COLL_UNM_SIG_MISMATCH:
        return "sig_mismatch";
    case TLM_COLL_UNM_NO_OVERLAP:
        return "no_overlap";
    case TLM_COLL_UNM_DUPLICATE:
        return "duplicate";
    default:
        return "";
    }
}

static void fill_stat(double *dst, const tlm_coll_stat *s)
{
    dst[0] = s->mean;
    dst[1] = s->median;
    dst[2] = s->min;
    dst[3] = s->max;
    dst[4] = s->p95;
}

/* Numeric fields /collectives/instances takes as they are. */
#define INSTANCE_SAME(X)                                                    \
    X(seq) X(group_size) X(n_members) X(in_nelems) X(out_nelems) X(bytes)   \
    X(first_start_ns) X(last_start_ns) X(first_end_ns) X(last_end_ns)       \
    X(comm_latency_ns) X(max_dur_ns) X(start_skew_ns) X(end_skew_ns)        \
    X(wait_sum_ns) X(wall_ns) X(start_skew_corr_ns) X(end_skew_corr_ns)     \
    X(wait_sum_corr_ns) X(wall_corr_ns) X(send_bytes_total)                 \
    X(recv_bytes_total) X(algbw_gbps) X(busbw_gbps) X(throughput_gbps)      \
    X(send_imbalance) X(recv_imbalance) X(first_rank) X(last_rank)          \
    X(n_last) X(first_rank_corr) X(last_rank_corr) X(n_last_corr)           \
    X(flags) X(match_key) X(pg_hash)

static void instance_row(const tlm_coll_instance *s, tlm_row_instance *o)
{
    FIXSTR(o->pg_name, s->pg_name);
    FIXSTR(o->pg_desc, s->pg_desc);
    tlm_strset(o->seq_src, sizeof o->seq_src, seq_src_name(s->seq_src));
    tlm_strset(o->coll, sizeof o->coll,
                   tlm_coll_type_name((tlm_coll_type)s->coll));
    FIXSTR(o->coll_name, s->coll_name);
    FIXSTR(o->dtype, s->dtype_name);
    FIXSTR(o->algo, s->algo);
    INSTANCE_SAME(SAME_)
    o->match_seq = s->seq; /* p2p: seq is the trace's Seq where it has one */
    if ((s->flags & TLM_COLL_INST_P2P) && s->trace_seq >= 0)
        o->seq = s->trace_seq;
    o->incomplete = (s->flags & TLM_COLL_INST_INCOMPLETE) != 0;
    tlm_strset(o->set_aside, sizeof o->set_aside,
               tlm_coll_aside_name(tlm_coll_inst_aside(s->flags)));
}

static void unmatched_row(const tlm_coll_unmatched *s, tlm_row_unmatched *o)
{
    o->trace_rank = s->trace_rank;
    FIXSTR(o->pg_name, s->pg_name);
    o->seq = s->seq;
    tlm_strset(o->coll, sizeof o->coll,
                   tlm_coll_type_name((tlm_coll_type)s->coll));
    tlm_strset(o->reason, sizeof o->reason, unm_reason(s->reason));
    o->start_ns = s->start_ns;
    o->dur_ns = s->dur_ns;
    o->event_index = (int64_t)s->event_index;
    o->match_key = s->match_key;
}

/* Numeric fields /collectives/summary takes as they are. */
#define SUMMARY_SAME(X)                                                     \
    X(bytes) X(group_size) X(in_nelems) X(out_nelems) X(count)              \
    X(n_incomplete) X(n_mismatch) X(n_suspect) X(total_latency_ns)          \
    X(total_wall_ns) X(pg_hash)

static void summary_row(const tlm_coll_summary_row *s, tlm_row_summary *o)
{
    FIXSTR(o->pg_name, s->pg_name);
    FIXSTR(o->pg_desc, s->pg_desc);
    tlm_strset(o->coll, sizeof o->coll,
                   tlm_coll_type_name((tlm_coll_type)s->coll));
    FIXSTR(o->coll_name, s->coll_name);
    FIXSTR(o->dtype, s->dtype_name);
    SUMMARY_SAME(SAME_)
    fill_stat(&o->latency_ns_mean, &s->latency_ns);
    fill_stat(&o->start_skew_ns_mean, &s->start_skew_ns);
    fill_stat(&o->start_skew_corr_ns_mean, &s->start_skew_corr_ns);
    fill_stat(&o->end_skew_ns_mean, &s->end_skew_ns);
    fill_stat(&o->algbw_gbps_mean, &s->algbw_gbps);
    fill_stat(&o->busbw_gbps_mean, &s->busbw_gbps);
}

/* /collectives/clock takes every field as it is. */
#define CLOCK_SAME(X)                                                       \
    X(trace_rank) X(domain) X(reference_rank) X(offset_ns)                  \
    X(end_estimate_ns) X(lo_ns) X(hi_ns) X(mad_ns) X(median_skew_ns)        \
    X(n_samples) X(n_causality_violations) X(flags)

static void clock_row(const tlm_coll_clock *s, tlm_row_clock *o)
{
    CLOCK_SAME(SAME_)
    o->n_offset_samples = s->n_offset_samples;
    o->few_samples = (s->flags & TLM_COLL_CLOCK_FEW_SAMPLES) != 0;
}

/* Numeric fields /stragglers takes as they are. */
#define STRAGGLER_SAME(X)                                                   \
    X(trace_rank) X(overall) X(n_instances) X(times_last) X(times_first)    \
    X(wait_suffered_ns) X(wait_caused_ns) X(times_last_corr)                \
    X(wait_suffered_corr_ns) X(wait_caused_corr_ns) X(dur_sum_ns)           \
    X(pg_hash)

static void straggler_row(const tlm_coll_straggler_row *s,
                          tlm_row_straggler *o)
{
    STRAGGLER_SAME(SAME_)
    FIXSTR(o->pg_name, s->pg_name);
    /* credits are fixed point, 1e6 per instance */
    o->last_credit = (double)s->last_credit_u / 1e6;
    o->last_credit_corr = (double)s->last_credit_corr_u / 1e6;
}

/* Allocates every row array (at least one row each, zeroed). */
static int alloc_rows(tlm_job_rows *h)
{
    h->tr = calloc(h->n ? h->n : 1, sizeof *h->tr);
    h->tl = calloc(h->n ? h->n : 1, sizeof *h->tl);
    h->ir = calloc(h->ni ? h->ni : 1, sizeof *h->ir);
    h->ur = calloc(h->nu ? h->nu : 1, sizeof *h->ur);
    h->sr = calloc(h->ns ? h->ns : 1, sizeof *h->sr);
    h->cr = calloc(h->nc ? h->nc : 1, sizeof *h->cr);
    h->gr = calloc(h->ng ? h->ng : 1, sizeof *h->gr);
    return h->tr && h->tl && h->ir && h->ur && h->sr && h->cr && h->gr;
}

tlm_status tlm_job_rows_build(const tlm_job_rows_in *in, tlm_job_rows *h)
{
    memset(h, 0, sizeof *h);
    h->n = in->n_res;
    h->ni = in->n_inst;
    h->nu = in->n_unm;
    h->ns = in->n_sum;
    h->nc = in->n_clk;
    h->ng = in->n_strag;
    if (!alloc_rows(h))
        return TLM_ENOMEM;
    for (size_t i = 0; i < h->n; i++) {
        h->tr[i] = in->res[i].row;
        h->tr[i].clock_offset_ns = in->offsets ? in->offsets[i] : 0;
        h->tl[i] = in->res[i].tl;
    }
    for (size_t i = 0; i < h->ni; i++)
        instance_row(&in->inst[i], &h->ir[i]);
    for (size_t i = 0; i < h->nu; i++)
        unmatched_row(&in->unm[i], &h->ur[i]);
    for (size_t i = 0; i < h->ns; i++)
        summary_row(&in->sum[i], &h->sr[i]);
    for (size_t i = 0; i < h->nc; i++)
        clock_row(&in->clk[i], &h->cr[i]);
    for (size_t i = 0; i < h->ng; i++)
        straggler_row(&in->strag[i], &h->gr[i]);
    return TLM_OK;
}

void tlm_job_rows_free(tlm_job_rows *h)
{
    free(h->tr);
    free(h->tl);
    free(h->ir);
    free(h->ur);
    free(h->sr);
    free(h->cr);
    free(h->gr);
    memset(h, 0, sizeof *h);
}
