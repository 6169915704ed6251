/*
 * test_coll_match.c - matching, per-instance metrics, summaries, straggler
 * tables and the TraceLens parity mode, on "fake rank" record arrays.
 *
 *   - the TraceLens test vector (spec/collectives.md 3.9), number for number;
 *   - the same vector through the SI metrics;
 *   - a 2-node, 8-rank synthetic job with a known clock offset, a known
 *     straggler and clipped profiling windows (ordinal matching, uniform
 *     signatures): exact instances, offsets, corrected skews, stragglers;
 *   - p2p pairing per directed pair, with a clipped receiver;
 *   - all_to_allv volumes, throughput and imbalance;
 *   - seq-identified instances: signature mismatch, duplicates;
 *   - partition independence over 1/2/3/8 fake owners.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_internal.h"
#include "tlm_test_util.h"
#include "tlmpi/tlm_coll.h"

/* |a - b| <= eps, with both values printed on failure. */
#define assert_double_equal(a, b, eps)                                    \
    do {                                                                  \
        double a_ = (a), b_ = (b);                                        \
        if (!(fabs(a_ - b_) <= (eps))) {                                  \
            print_error("%s = %.17g, expected %.17g\n", #a, a_, b_);      \
            fail();                                                       \
        }                                                                 \
    } while (0)

/* MARK: - record builder */

static tlm_coll_record mkrec(int rank, const char *pg, const char *cname,
                             const char *dtype, int64_t nelems, int gsize,
                             int64_t ts_ns, int64_t dur_ns)
{
    tlm_coll_record r;
    memset(&r, 0, sizeof r);
    r.trace_rank = rank;
    snprintf(r.pg_name, sizeof r.pg_name, "%s", pg);
    snprintf(r.coll_name, sizeof r.coll_name, "%s", cname);
    snprintf(r.dtype_name, sizeof r.dtype_name, "%s", dtype);
    r.pg_hash = tlm_hash64(pg, strlen(pg));
    r.match_key = r.pg_hash;
    r.coll = (uint8_t)tlm_coll_type_from_name(cname, strlen(cname), NULL);
    r.dtype = (uint8_t)tlm_dtype_from_name(dtype, strlen(dtype));
    r.in_nelems = nelems;
    r.out_nelems = r.coll == TLM_COLL_ALLGATHER ? nelems * gsize : nelems;
    int bpe = tlm_dtype_size((tlm_dtype)r.dtype);
    r.bytes = (r.coll == TLM_COLL_ALLGATHER ? r.out_nelems : nelems) * bpe;
    r.group_size = gsize;
    r.ts_ns = ts_ns;
    r.start_ns = ts_ns;
    r.dur_ns = dur_ns;
    r.cpu_ts_ns = -1;
    r.send_bytes = r.recv_bytes = -1;
    r.max_peer_send_bytes = r.max_peer_recv_bytes = -1;
    r.stream = 7;
    r.link_id = -1;
    r.local_rank = -1;
    r.peer = -1;
    r.flags = TLM_COLL_REC_KMETA | TLM_COLL_REC_KPG | TLM_COLL_REC_TL_KEPT;
    r.seq_src = TLM_COLL_SEQ_ORDINAL;
    r.seq = -1;
    r.sig = tlm_coll_signature(r.coll, r.dtype, r.in_nelems, r.out_nelems);
    return r;
}

/* Ordinals per (match_key, rank) in start order, as the extractor does. */
static void assign_ordinals(tlm_coll_record *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (r[i].seq_src != TLM_COLL_SEQ_ORDINAL &&
            r[i].seq_src != TLM_COLL_SEQ_P2P)
            continue;
        int64_t k = 0;
        for (size_t j = 0; j < n; j++)
            if (r[j].match_key == r[i].match_key &&
                r[j].trace_rank == r[i].trace_rank &&
                r[j].seq_src == r[i].seq_src &&
                (r[j].start_ns < r[i].start_ns ||
                 (r[j].start_ns == r[i].start_ns && j < i)))
                k++;
        r[i].seq = k;
    }
}

static const tlm_coll_member *find_mem(const tlm_coll_match_result *res,
                                       const tlm_coll_instance *in, int rank)
{
    for (size_t i = 0; i < res->n_mem; i++)
        if (res->mem[i].match_key == in->match_key &&
            res->mem[i].seq == in->seq && res->mem[i].trace_rank == rank)
            return &res->mem[i];
    return NULL;
}

/* MARK: - the TraceLens test vector (3.9) */

static size_t vector_records(tlm_coll_record *r)
{
    static const int64_t ts0[4] = {100, 110, 130, 100};
    static const int64_t du0[4] = {50, 40, 20, 50};
    size_t n = 0;
    for (int k = 0; k < 4; k++)
        r[n++] = mkrec(k, "0", "allreduce", "Float", 1024, 4,
                       ts0[k] * 1000, du0[k] * 1000);
    for (int k = 0; k < 4; k++)
        r[n++] = mkrec(k, "0", "allreduce", "Float", 1024, 4, 1000 * 1000,
                       30 * 1000);
    for (size_t i = 0; i < n; i++)
        r[i].event_index = (uint64_t)(i < 4 ? 10 : 20);
    assign_ordinals(r, n);
    return n;
}

static void test_tl_vector(void **state)
{
    (void)state;
    tlm_coll_record r[8];
    size_t n = vector_records(r);
    tlm_coll_tl_vote vote = {0, 0};
    tlm_coll_tl_vote_records(r, n, &vote);
    assert_int_equal(vote.any_pg, 1);
    assert_int_equal(tlm_coll_tl_simplified(&vote), 0);
    tlm_coll_tl_result res;
    assert_int_equal(tlm_coll_tl_match(r, n, 0, NULL, &res, NULL), TLM_OK);
    assert_int_equal(res.n_long, 8);
    assert_int_equal(res.n_sync, 2);
    const tlm_coll_tl_sync_row *s0 = &res.sync[0], *s1 = &res.sync[1];
    assert_string_equal(s0->collective_id, "0_0");
    assert_string_equal(s1->collective_id, "0_1");
    assert_double_equal(s0->in_mib, 0.00390625, 1e-15);
    assert_double_equal(s0->comm_latency_us, 20, 1e-12);
    assert_double_equal(s0->skew_start_us, 30, 1e-12);
    assert_int_equal(s0->earliest_arrival_rank, 3);
    assert_double_equal(s0->avg_wait_us, 20, 1e-12);
    assert_double_equal(s0->skew_end_us, 0, 1e-12);
    assert_double_equal(s0->algbw_gibps, 0.190735, 1e-6);
    assert_double_equal(s0->busbw_gibps, 0.286102, 1e-6);
    assert_int_equal(s0->meta_mismatch, 0);
    assert_double_equal(s1->comm_latency_us, 30, 1e-12);
    assert_double_equal(s1->skew_start_us, 0, 1e-12);
    assert_int_equal(s1->earliest_arrival_rank, 3);
    assert_double_equal(s1->algbw_gibps, 0.127157, 1e-6);
    assert_double_equal(s1->busbw_gibps, 0.190735, 1e-6);
    /* per-rank waits of 0_0 */
    static const double w0[4] = {30, 20, 0, 30};
    int seen = 0;
    for (size_t i = 0; i < res.n_smem; i++)
        if (strcmp(res.smem[i].collective_id, "0_0") == 0) {
            assert_double_equal(res.smem[i].wait_us, w0[res.smem[i].rank],
                                1e-12);
            seen++;
        }
    assert_int_equal(seen, 4);

    /* straggler_summary */
    double dur[4] = {0, 0, 0, 0};
    tlm_coll_tl_rank_dur(r, n, dur, 4);
    tlm_coll_tl_straggler_row *sr = NULL;
    size_t nsr = 0;
    assert_int_equal(tlm_coll_tl_straggler(res.sync, res.n_sync, res.smem,
                                           res.n_smem, dur, 4, NULL, &sr,
                                           &nsr, NULL),
                     TLM_OK);
    assert_int_equal(nsr, 4);
    static const struct {
        int rank;
        double tot, mean;
        int last, first;
        double pct;
        double dur;
    } want[4] = {{2, 0, 0.0, 1, 0, 50.0, 50},
                 {1, 20, 10.0, 0, 0, 0.0, 70},
                 {0, 30, 15.0, 1, 0, 50.0, 80},
                 {3, 30, 15.0, 0, 2, 0.0, 80}};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(sr[i].rank, want[i].rank);
        assert_double_equal(sr[i].total_wait_time_us, want[i].tot, 1e-9);
        assert_double_equal(sr[i].mean_wait_time_us, want[i].mean, 1e-9);
        assert_int_equal(sr[i].times_arrived_last, want[i].last);
        assert_int_equal(sr[i].times_arrived_first, want[i].first);
        assert_double_equal(sr[i].pct_arrived_last, want[i].pct, 1e-9);
        assert_int_equal(sr[i].num_collectives, 2);
        assert_double_equal(sr[i].total_nccl_dur_us, want[i].dur, 1e-9);
    }
    tlm_coll_free(NULL, sr);

    /* nccl_summary_implicit_sync */
    tlm_coll_tl_summary_row *su = NULL;
    size_t nsu = 0;
    assert_int_equal(tlm_coll_tl_summary(res.sync, res.n_sync, NULL, &su,
                                         &nsu, NULL),
                     TLM_OK);
    assert_int_equal(nsu, 1);
    assert_string_equal(su[0].coll_name, "allreduce");
    assert_string_equal(su[0].dtype, "Float");
    assert_string_equal(su[0].in_nelems, "1024");
    assert_string_equal(su[0].pg_name, "0");
    assert_int_equal(su[0].group_size, 4);
    assert_double_equal(su[0].comm_latency_us.mean, 25, 1e-12);
    assert_double_equal(su[0].comm_latency_us.median, 25, 1e-12);
    assert_double_equal(su[0].comm_latency_us.min, 20, 1e-12);
    assert_double_equal(su[0].comm_latency_us.max, 30, 1e-12);
    assert_double_equal(su[0].skew_start_us.mean, 15, 1e-12);
    assert_double_equal(su[0].algbw_gibps.mean, 0.158946, 1e-6);
    assert_double_equal(su[0].busbw_gibps.mean, 0.238419, 1e-6);
    assert_int_equal(su[0].count, 2);
    assert_double_equal(su[0].total_comm_latency_ms, 0.05, 1e-15);
    tlm_coll_free(NULL, su);
    tlm_coll_tl_result_free(&res);

    /* nccl_summary_long: kernels whose split sizes or PG ranks are
     * missing are dropped (pandas dropna); with them one row per rank */
    tlm_coll_tl_long_summary_row *ls = NULL;
    size_t nls = 0;
    assert_int_equal(tlm_coll_tl_long_summary(r, n, NULL, &ls, &nls, NULL),
                     TLM_OK);
    assert_int_equal(nls, 0);
    for (size_t i = 0; i < n; i++) {
        snprintf(r[i].in_split, sizeof r[i].in_split, "[]");
        snprintf(r[i].out_split, sizeof r[i].out_split, "[]");
        snprintf(r[i].pg_ranks_text, sizeof r[i].pg_ranks_text,
                 "[0, 1, 2, 3]");
    }
    assert_int_equal(tlm_coll_tl_long_summary(r, n, NULL, &ls, &nls, NULL),
                     TLM_OK);
    assert_int_equal(nls, 4);
    static const int lorder[4] = {0, 3, 1, 2};
    static const double lsum[4] = {80, 80, 70, 50};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(ls[i].rank, lorder[i]);
        assert_double_equal(ls[i].dur_sum_us, lsum[i], 1e-12);
        assert_int_equal(ls[i].operation_count, 2);
        assert_double_equal(ls[i].in_mib_first, 0.00390625, 1e-15);
        assert_string_equal(ls[i].coll_name, "allreduce");
    }
    assert_double_equal(ls[2].dur_min_us, 30, 1e-12);
    assert_double_equal(ls[2].dur_max_us, 40, 1e-12);
    assert_double_equal(ls[2].dur_mean_us, 35, 1e-12);
    assert_double_equal(ls[2].dur_std_us, sqrt(50.0), 1e-12);
    tlm_coll_free(NULL, ls);
}

/* The same vector through the SI metrics: exact ns, GB/s = 1e9 B/s. */
static void test_si_vector(void **state)
{
    (void)state;
    tlm_coll_record r[8];
    size_t n = vector_records(r);
    tlm_coll_match_result res;
    assert_int_equal(tlm_coll_match(r, n, NULL, &res, NULL), TLM_OK);
    assert_int_equal(res.n_inst, 2);
    assert_int_equal(res.n_mem, 8);
    assert_int_equal(res.n_unm, 0);
    const tlm_coll_instance *a = &res.inst[0], *b = &res.inst[1];
    assert_int_equal(a->seq, 0);
    assert_int_equal(a->comm_latency_ns, 20000);
    assert_int_equal(a->start_skew_ns, 30000);
    assert_int_equal(a->end_skew_ns, 0);
    assert_int_equal(a->wait_sum_ns, 80000);
    assert_int_equal(a->last_rank, 2);
    assert_int_equal(a->n_last, 1);
    assert_int_equal(a->first_rank, 0); /* tie 0/3 -> lowest */
    assert_int_equal(a->bytes, 4096);
    assert_double_equal(a->algbw_gbps, 4096.0 / 20000.0, 1e-15);
    assert_double_equal(a->busbw_gbps, 4096.0 / 20000.0 * 1.5, 1e-15);
    assert_int_equal(a->flags & TLM_COLL_INST_INCOMPLETE, 0);
    assert_int_equal(b->comm_latency_ns, 30000);
    assert_int_equal(b->n_last, 4);
    assert_int_equal(find_mem(&res, a, 0)->wait_ns, 30000);
    assert_int_equal(find_mem(&res, a, 1)->wait_ns, 20000);
    assert_int_equal(find_mem(&res, a, 2)->wait_ns, 0);

    tlm_coll_straggler_row *sr = NULL;
    size_t nsr = 0;
    assert_int_equal(tlm_coll_straggler_compute(res.inst, res.n_inst,
                                                res.mem, res.n_mem, NULL,
                                                &sr, &nsr, NULL),
                     TLM_OK);
    /* 4 ranks x (pg row + overall row) */
    assert_int_equal(nsr, 8);
    for (size_t i = 0; i < nsr; i++) {
        const tlm_coll_straggler_row *x = &sr[i];
        assert_int_equal(x->overall, i >= 4);
        assert_int_equal(x->trace_rank, (int)(i % 4));
        assert_int_equal(x->n_instances, 2);
        /* instance 0: rank 2 alone last, caused 80 us; instance 1: a
         * 4-way tie, 250000 micro-credits each */
        int64_t credit = (x->trace_rank == 2 ? 1000000 : 0) + 250000;
        assert_int_equal(x->last_credit_u, credit);
        assert_int_equal(x->times_last, x->trace_rank == 2);
        assert_int_equal(x->wait_caused_ns, x->trace_rank == 2 ? 80000 : 0);
        static const int64_t ws[4] = {30000, 20000, 0, 30000};
        assert_int_equal(x->wait_suffered_ns, ws[x->trace_rank]);
        assert_int_equal(x->times_first, 0); /* 0 and 3 tie */
    }
    tlm_coll_free(NULL, sr);

    tlm_coll_summary_row *su = NULL;
    size_t nsu = 0;
    assert_int_equal(tlm_coll_summarize(res.inst, res.n_inst, 0, NULL, &su,
                                        &nsu, NULL),
                     TLM_OK);
    assert_int_equal(nsu, 1);
    assert_int_equal(su[0].count, 2);
    assert_double_equal(su[0].latency_ns.mean, 25000, 1e-9);
    assert_double_equal(su[0].latency_ns.median, 25000, 1e-9);
    assert_double_equal(su[0].latency_ns.p95, 29500, 1e-9);
    assert_double_equal(su[0].start_skew_ns.max, 30000, 1e-9);
    assert_int_equal(su[0].total_latency_ns, 50000);
    tlm_coll_free(NULL, su);
    tlm_coll_match_result_free(&res);
}

/* MARK: - synthetic 2-node job: clock offset, straggler, clipped windows */

#define JOB_R 8
#define JOB_C 40

/* True schedule: instance c starts around T_c = c * 1 ms; every rank
 * arrives at T_c + jitter(c, r), rank 5 always last (+ 50 us); all ranks
 * end at max arrival + transfer.  Node 1 (ranks 4..7) has a clock 37 us
 * ahead.  Rank 3's window misses the first 3 instances, rank 6's the
 * last 4.  event_index encodes the true instance for verification. */
static const int64_t job_theta[2] = {0, 37000};

static size_t job_records(tlm_coll_record *r, int seq_from_trace)
{
    size_t n = 0;
    for (int c = 0; c < JOB_C; c++) {
        int64_t T = (int64_t)c * 1000000 + (c % 3) * 7000;
        int64_t arr[JOB_R], last = 0;
        for (int k = 0; k < JOB_R; k++) {
            arr[k] = T + ((c * 7 + k * 13) % 11) * 1000;
            if (k == 5)
                arr[k] = T + 60000;
            if (arr[k] > last)
                last = arr[k];
        }
        int64_t xfer = 20000 + (c % 5) * 1000;
        /* two sizes alternate so signatures are not all equal */
        int64_t ne = (c % 4 == 3) ? 4096 : 1 << 20;
        for (int k = 0; k < JOB_R; k++) {
            if (k == 3 && c < 3)
                continue;
            if (k == 6 && c >= JOB_C - 4)
                continue;
            int64_t off = job_theta[k / 4];
            tlm_coll_record x = mkrec(k, "7", "allreduce", "BFloat16", ne,
                                      JOB_R, arr[k] + off,
                                      last + xfer - arr[k]);
            x.event_index = (uint64_t)c;
            if (seq_from_trace) {
                x.seq_src = TLM_COLL_SEQ_TRACE;
                x.seq = 500 + c;
            }
            r[n++] = x;
        }
    }
    assign_ordinals(r, n);
    return n;
}

static void check_job(const tlm_coll_match_result *res, int ordinal)
{
    assert_int_equal(res->n_inst, JOB_C);
    assert_int_equal(res->n_unm, 0);
    for (size_t i = 0; i < res->n_inst; i++) {
        const tlm_coll_instance *in = &res->inst[i];
        int c = ordinal ? (int)in->seq : (int)(in->seq - 500);
        /* every member carries the same true instance */
        int nm = 0;
        for (size_t q = 0; q < res->n_mem; q++) {
            const tlm_coll_member *m = &res->mem[q];
            if (m->match_key != in->match_key || m->seq != in->seq)
                continue;
            assert_int_equal((int)m->event_index, c);
            nm++;
        }
        int want = JOB_R - ((c < 3) ? 1 : 0) - ((c >= JOB_C - 4) ? 1 : 0);
        assert_int_equal(nm, want);
        assert_int_equal(in->n_members, want);
        assert_int_equal((in->flags & TLM_COLL_INST_INCOMPLETE) != 0,
                         want < JOB_R);
    }
}

static void test_job_ordinal_clipped(void **state)
{
    (void)state;
    tlm_coll_record *r = calloc(JOB_R * JOB_C, sizeof *r);
    assert_non_null(r);
    size_t n = job_records(r, 0);
    tlm_coll_match_result res;
    assert_int_equal(tlm_coll_match(r, n, NULL, &res, NULL), TLM_OK);
    check_job(&res, 1);

    /* clock offsets from all members, domains = nodes */
    int32_t dom[JOB_R] = {0, 0, 0, 0, 1, 1, 1, 1};
    tlm_coll_clock_opts co;
    tlm_coll_clock_opts_init(&co);
    co.domain_of_rank = dom;
    co.n_domain_of_rank = JOB_R;
    co.large_ratio = 0.3;
    tlm_coll_clock *clk = NULL;
    size_t nclk = 0;
    assert_int_equal(tlm_coll_clock_estimate(res.mem, res.n_mem, &co, &clk,
                                             &nclk, NULL),
                     TLM_OK);
    assert_int_equal(nclk, JOB_R);
    int64_t off[JOB_R];
    for (int k = 0; k < JOB_R; k++) {
        assert_int_equal(clk[k].offset_ns, job_theta[k / 4]);
        assert_int_equal(clk[k].reference_rank, 0);
        assert_int_equal(clk[k].n_causality_violations, 0);
        assert_int_equal(clk[k].mad_ns, 0);
    }
    assert_true(clk[0].flags & TLM_COLL_CLOCK_REFERENCE);
    assert_false(clk[1].flags & TLM_COLL_CLOCK_REFERENCE);
    /* 37 us against ~90 us median raw skews: large at ratio 0.3 */
    assert_true(clk[4].flags & TLM_COLL_CLOCK_LARGE);
    assert_false(clk[0].flags & TLM_COLL_CLOCK_LARGE);
    tlm_coll_clock_offsets(clk, nclk, off);
    tlm_coll_free(NULL, clk);

    tlm_coll_metrics_apply_offsets(&res, off, JOB_R, 0, 1000);
    for (size_t i = 0; i < res.n_inst; i++) {
        const tlm_coll_instance *in = &res.inst[i];
        /* corrected: everyone ends together, rank 5 arrived last */
        assert_int_equal(in->end_skew_corr_ns, 0);
        assert_int_equal(in->last_rank_corr, 5);
        assert_true(in->flags & TLM_COLL_INST_CORRECTED);
        assert_int_equal(in->end_skew_ns, 37000);
        int c = (int)in->seq;
        int64_t T = (int64_t)c * 1000000 + (c % 3) * 7000;
        /* earliest true arrival among present members */
        int64_t emin = INT64_MAX;
        for (int k = 0; k < JOB_R; k++) {
            if ((k == 3 && c < 3) || (k == 6 && c >= JOB_C - 4))
                continue;
            int64_t a = k == 5 ? T + 60000
                               : T + ((c * 7 + k * 13) % 11) * 1000;
            if (a < emin)
                emin = a;
        }
        assert_int_equal(in->start_skew_corr_ns, T + 60000 - emin);
        assert_int_equal(in->comm_latency_ns, 20000 + (c % 5) * 1000);
    }
    tlm_coll_straggler_row *sr = NULL;
    size_t nsr = 0;
    assert_int_equal(tlm_coll_straggler_compute(res.inst, res.n_inst,
                                                res.mem, res.n_mem, NULL,
                                                &sr, &nsr, NULL),
                     TLM_OK);
    int complete = JOB_C - 3 - 4;
    for (size_t i = 0; i < nsr; i++) {
        const tlm_coll_straggler_row *x = &sr[i];
        assert_int_equal(x->n_instances, complete);
        assert_int_equal(x->times_last_corr,
                         x->trace_rank == 5 ? complete : 0);
        assert_int_equal(x->last_credit_corr_u,
                         x->trace_rank == 5 ? 1000000LL * complete : 0);
        if (x->trace_rank == 5)
            assert_int_equal(x->wait_suffered_corr_ns, 0);
        else
            assert_true(x->wait_suffered_corr_ns >= 49000LL * complete);
    }
    tlm_coll_free(NULL, sr);
    tlm_coll_match_result_free(&res);

    /* matching with the offsets up front gives the same instances */
    tlm_coll_match_opts mo;
    tlm_coll_match_opts_init(&mo);
    mo.offset_ns = off;
    mo.n_offsets = JOB_R;
    assert_int_equal(tlm_coll_match(r, n, &mo, &res, NULL), TLM_OK);
    check_job(&res, 1);
    assert_int_equal(res.inst[5].end_skew_corr_ns, 0);
    tlm_coll_match_result_free(&res);

    /* the same job with Seq from the trace */
    n = job_records(r, 1);
    assert_int_equal(tlm_coll_match(r, n, NULL, &res, NULL), TLM_OK);
    check_job(&res, 0);
    tlm_coll_match_result_free(&res);
    free(r);
}

/* A clipped window whose first item would also fit one slot later (all
 * signatures equal): the time shape decides, nothing shifts. */
static void test_uniform_signatures_shifted_window(void **state)
{
    (void)state;
    tlm_coll_record r[64];
    size_t n = 0;
    /* irregular gaps */
    static const int64_t gap[12] = {0,      900000,  2100000, 2800000,
                                    4500000, 5000000, 6600000, 7000000,
                                    8800000, 9900000, 10500000, 12000000};
    for (int c = 0; c < 12; c++)
        for (int k = 0; k < 2; k++) {
            if (k == 1 && (c == 0 || c == 1))
                continue; /* rank 1 starts two collectives late */
            if (k == 0 && c == 11)
                continue; /* rank 0 stops one early */
            tlm_coll_record x = mkrec(k, "0", "allreduce", "Float", 64, 2,
                                      gap[c] + k * 3000 + 250000 * k,
                                      10000);
            x.event_index = (uint64_t)c;
            r[n++] = x;
        }
    assign_ordinals(r, n);
    tlm_coll_match_result res;
    assert_int_equal(tlm_coll_match(r, n, NULL, &res, NULL), TLM_OK);
    assert_int_equal(res.n_inst, 12);
    assert_int_equal(res.n_unm, 0);
    for (size_t i = 0; i < res.n_inst; i++) {
        int nm = 0;
        for (size_t q = 0; q < res.n_mem; q++)
            if (res.mem[q].seq == res.inst[i].seq) {
                assert_int_equal((int64_t)res.mem[q].event_index,
                                 res.inst[i].seq);
                nm++;
            }
        assert_int_equal(nm, (i < 2 || i == 11) ? 1 : 2);
    }
    tlm_coll_match_result_free(&res);
}

/* Windows clipped at both ends on different ranks: the consensus grows at
 * its head (rank 1 starts before the reference) and at its tail. */
static void test_head_and_tail_extension(void **state)
{
    (void)state;
    static const int win[4][2] = {{2, 12}, {0, 9}, {1, 12}, {3, 14}};
    static const int64_t clk[4] = {0, 400000, -250000, 90000};
    tlm_coll_record r[64];
    size_t n = 0;
    for (int k = 0; k < 4; k++)
        for (int c = win[k][0]; c < win[k][1]; c++) {
            /* irregular gaps, one size every third collective */
            int64_t T = (int64_t)c * 1000000 + (int64_t)(c * c % 7) * 90000;
            tlm_coll_record x = mkrec(k, "g", "allreduce", "Half",
                                      (c % 3) ? 64 : 128, 4,
                                      T + k * 1000 + clk[k],
                                      30000 - k * 1000);
            x.event_index = (uint64_t)c;
            r[n++] = x;
        }
    assign_ordinals(r, n);
    tlm_coll_match_result res;
    assert_int_equal(tlm_coll_match(r, n, NULL, &res, NULL), TLM_OK);
    assert_int_equal(res.n_unm, 0);
    assert_int_equal(res.n_inst, 14);
    for (size_t i = 0; i < res.n_inst; i++) {
        int c = (int)res.inst[i].seq, want = 0;
        for (int k = 0; k < 4; k++)
            want += c >= win[k][0] && c < win[k][1];
        assert_int_equal(res.inst[i].n_members, want);
        for (size_t q = 0; q < res.n_mem; q++)
            if (res.mem[q].seq == res.inst[i].seq)
                assert_int_equal((int)res.mem[q].event_index, c);
    }
    tlm_coll_match_result_free(&res);
}

/* A rank with an extra collective in the middle of its window (another
 * signature): reported unmatched, the rest still pairs. */
static void test_extra_item_unmatched(void **state)
{
    (void)state;
    tlm_coll_record r[32];
    size_t n = 0;
    for (int c = 0; c < 10; c++)
        for (int k = 0; k < 2; k++)
            r[n++] = mkrec(k, "0", "allreduce", "Float", 256, 2,
                           (int64_t)c * 1000000 + k * 1000, 5000);
    /* rank 1 aligned slot 4 holds a broadcast instead of the allreduce */
    r[9] = mkrec(1, "0", "broadcast", "Float", 256, 2, 4 * 1000000 + 1000,
                 5000);
    assign_ordinals(r, n);
    tlm_coll_match_result res;
    assert_int_equal(tlm_coll_match(r, n, NULL, &res, NULL), TLM_OK);
    assert_int_equal(res.n_inst, 10);
    assert_int_equal(res.n_unm, 1);
    assert_int_equal(res.unm[0].reason, TLM_COLL_UNM_SIG_MISMATCH);
    assert_int_equal(res.unm[0].trace_rank, 1);
    assert_int_equal(res.unm[0].coll, TLM_COLL_BROADCAST);
    assert_int_equal(res.inst[4].n_members, 1);
    assert_true(res.inst[4].flags & TLM_COLL_INST_INCOMPLETE);
    assert_int_equal(res.inst[5].n_members, 2);
    tlm_coll_match_result_free(&res);
}

/* MARK: - p2p */

static tlm_coll_record mkp2p(int rank, int send, int peer, int64_t nelems,
                             int64_t ts, int64_t dur)
{
    tlm_coll_record x = mkrec(rank, "0", send ? "send" : "recv", "Float",
                              nelems, 4, ts, dur);
    int src = send ? rank : peer, dst = send ? peer : rank;
    x.peer = peer;
    x.seq_src = TLM_COLL_SEQ_P2P;
    x.match_key = tlm_coll_mix(tlm_coll_mix(x.pg_hash ^ 0x9292u,
                                            (uint64_t)src),
                               (uint64_t)dst);
    if (send)
        x.send_bytes = x.max_peer_send_bytes = nelems * 4;
    else
        x.recv_bytes = x.max_peer_recv_bytes = nelems * 4;
    return x;
}

static void test_p2p(void **state)
{
    (void)state;
    tlm_coll_record r[32];
    size_t n = 0;
    /* 0 -> 1: 4 messages; rank 1's window misses the first recv */
    for (int i = 0; i < 4; i++) {
        int64_t t = (int64_t)i * 1000000 + (i == 2 ? 300000 : 0);
        r[n++] = mkp2p(0, 1, 1, 1000 + i, t, 8000);
        if (i > 0)
            r[n++] = mkp2p(1, 0, 0, 1000 + i, t + 2000, 6000);
        r[n - 1].event_index = (uint64_t)i;
    }
    r[0].event_index = 0;
    /* 1 -> 0 one message, 2 -> 3 one message */
    r[n++] = mkp2p(1, 1, 0, 77, 5000000, 4000);
    r[n++] = mkp2p(0, 0, 1, 77, 5001000, 3000);
    r[n++] = mkp2p(2, 1, 3, 5, 10, 1000);
    r[n++] = mkp2p(3, 0, 2, 5, 20, 500);
    assign_ordinals(r, n);
    tlm_coll_match_result res;
    assert_int_equal(tlm_coll_match(r, n, NULL, &res, NULL), TLM_OK);
    assert_int_equal(res.n_unm, 0);
    assert_int_equal(res.n_inst, 6);
    int complete = 0, partial = 0;
    for (size_t i = 0; i < res.n_inst; i++) {
        const tlm_coll_instance *in = &res.inst[i];
        assert_true(in->flags & TLM_COLL_INST_P2P);
        if (in->n_members == 2) {
            complete++;
            assert_false(in->flags & TLM_COLL_INST_INCOMPLETE);
            /* sender and receiver sizes agree; busbw = algbw */
            assert_double_equal(in->busbw_gbps, in->algbw_gbps, 1e-12);
            assert_double_equal(in->algbw_gbps,
                                (double)in->bytes /
                                    (double)in->comm_latency_ns,
                                1e-12);
            if (in->bytes == 1002 * 4) {
                assert_int_equal(in->send_bytes_total, -1);
                assert_int_equal(in->comm_latency_ns, 6000);
                assert_int_equal(in->start_skew_ns, 2000);
            }
        } else {
            partial++;
            assert_int_equal(in->bytes, 1000 * 4);
            assert_true(in->flags & TLM_COLL_INST_INCOMPLETE);
        }
    }
    assert_int_equal(complete, 5);
    assert_int_equal(partial, 1);
    tlm_coll_match_result_free(&res);
}

/* MARK: - all_to_allv */

static void test_alltoallv_metrics(void **state)
{
    (void)state;
    tlm_coll_record r[4];
    /* bytes to peers (self excluded), as the extractor computes them */
    static const int64_t send[4] = {3000, 1000, 1000, 3000};
    static const int64_t recv[4] = {2000, 2000, 2000, 2000};
    for (int k = 0; k < 4; k++) {
        r[k] = mkrec(k, "ep", "all_to_allv", "Float8_e4m3fn", 1000 + k, 4,
                     1000 + k * 100, 10000 - k * 100);
        r[k].send_bytes = send[k];
        r[k].recv_bytes = recv[k];
        r[k].max_peer_send_bytes = send[k] / 3;
    }
    assign_ordinals(r, 4);
    /* sizes differ per rank by design: one signature */
    assert_true(r[0].sig == r[3].sig);
    tlm_coll_match_result res;
    assert_int_equal(tlm_coll_match(r, 4, NULL, &res, NULL), TLM_OK);
    assert_int_equal(res.n_inst, 1);
    const tlm_coll_instance *in = &res.inst[0];
    assert_int_equal(in->n_members, 4);
    assert_int_equal(in->send_bytes_total, 8000);
    assert_int_equal(in->recv_bytes_total, 8000);
    assert_int_equal(in->max_send_bytes, 3000);
    assert_double_equal(in->send_imbalance, 1.5, 1e-15);
    assert_double_equal(in->recv_imbalance, 1.0, 1e-15);
    assert_int_equal(in->wall_ns, 10000);
    assert_double_equal(in->throughput_gbps, 0.8, 1e-15);
    assert_int_equal(in->comm_latency_ns, 9700);
    assert_double_equal(in->busbw_gbps, 3000.0 / 9700.0, 1e-15);
    assert_double_equal(in->algbw_gbps, 3000.0 / 9700.0 / 0.75, 1e-12);
    tlm_coll_match_result_free(&res);
}

/* MARK: - seq-identified instances */

static void test_seq_mismatch_and_duplicates(void **state)
{
    (void)state;
    tlm_coll_record r[8];
    for (int k = 0; k < 3; k++) {
        r[k] = mkrec(k, "1", "allreduce", "Half", 100, 3, 1000 + k, 500);
        r[k].seq_src = TLM_COLL_SEQ_CONCRETE;
        r[k].seq = 42;
        r[k].link_id = 10;
    }
    /* rank 2 recorded another size for seq 42: kept, flagged */
    r[2] = mkrec(2, "1", "allreduce", "Half", 200, 3, 1002, 500);
    r[2].seq_src = TLM_COLL_SEQ_CONCRETE;
    r[2].seq = 42;
    r[2].link_id = 10;
    /* rank 0: a second kernel of the same CPU op: merged */
    r[3] = r[0];
    r[3].part = 1;
    r[3].start_ns = 1600;
    r[3].dur_ns = 300;
    r[3].event_index = 99;
    /* rank 1: another collective claiming seq 42 (other CPU op) */
    r[4] = r[1];
    r[4].link_id = 11;
    r[4].start_ns = 5000;
    r[4].event_index = 77;
    tlm_coll_match_result res;
    assert_int_equal(tlm_coll_match(r, 5, NULL, &res, NULL), TLM_OK);
    assert_int_equal(res.n_inst, 1);
    const tlm_coll_instance *in = &res.inst[0];
    assert_int_equal(in->seq, 42);
    assert_int_equal(in->seq_src, TLM_COLL_SEQ_CONCRETE);
    assert_int_equal(in->n_members, 3);
    assert_int_equal(in->n_sig_mismatch, 1);
    assert_true(in->flags & TLM_COLL_INST_SIG_MISMATCH);
    assert_true(in->flags & TLM_COLL_INST_MULTI_KERNEL);
    assert_int_equal(in->in_nelems, 100);
    const tlm_coll_member *m0 = find_mem(&res, in, 0);
    assert_int_equal(m0->n_kernels, 2);
    assert_int_equal(m0->start_ns, 1000);
    assert_int_equal(m0->end_ns, 1900);
    assert_int_equal(m0->dur_ns, 800);
    assert_int_equal(find_mem(&res, in, 2)->sig_mismatch, 1);
    assert_int_equal(res.n_unm, 1);
    assert_int_equal(res.unm[0].reason, TLM_COLL_UNM_DUPLICATE);
    assert_int_equal(res.unm[0].event_index, 77);
    tlm_coll_match_result_free(&res);
}

/* MARK: - partition independence */

static size_t mixed_records(tlm_coll_record **out)
{
    tlm_coll_record *r = calloc(2048, sizeof *r);
    assert_non_null(r);
    size_t n = job_records(r, 0);
    /* another PG with Seq, different ranks and sizes */
    for (int c = 0; c < 25; c++)
        for (int k = 0; k < 4; k++) {
            tlm_coll_record x = mkrec(k * 2, "tp", "_allgather_base",
                                      "BFloat16", 512 + (c % 3), 4,
                                      (int64_t)c * 500000 + k * 700,
                                      9000 + k * 100);
            x.seq_src = TLM_COLL_SEQ_TRACE;
            x.seq = c;
            r[n++] = x;
        }
    for (int i = 0; i < 6; i++) {
        r[n++] = mkp2p(1, 1, 2, 64 + i, (int64_t)i * 300000, 5000);
        r[n++] = mkp2p(2, 0, 1, 64 + i, (int64_t)i * 300000 + 900, 4000);
    }
    r[n++] = mkrec(3, "solo", "broadcast", "Float", 9, 2, 77, 88);
    assign_ordinals(r, n);
    *out = r;
    return n;
}

static void test_partition_independence(void **state)
{
    (void)state;
    tlm_coll_record *r = NULL;
    size_t n = mixed_records(&r);
    tlm_coll_match_result ref;
    assert_int_equal(tlm_coll_match(r, n, NULL, &ref, NULL), TLM_OK);
    tlm_coll_straggler_row *rs = NULL;
    size_t nrs = 0;
    assert_int_equal(tlm_coll_straggler_compute(ref.inst, ref.n_inst,
                                                ref.mem, ref.n_mem, NULL,
                                                &rs, &nrs, NULL),
                     TLM_OK);
    tlm_coll_summary_row *su = NULL;
    size_t nsu = 0;
    assert_int_equal(tlm_coll_summarize(ref.inst, ref.n_inst, 1, NULL, &su,
                                        &nsu, NULL),
                     TLM_OK);
    assert_true(ref.n_inst > 40);
    static const int owners[4] = {1, 2, 3, 8};
    for (int oi = 0; oi < 4; oi++) {
        int P = owners[oi];
        tlm_coll_instance *inst = NULL;
        tlm_coll_member *mem = NULL;
        tlm_coll_unmatched *unm = NULL;
        tlm_coll_straggler_row *srow = NULL;
        size_t ni = 0, nm = 0, nu = 0, ns = 0;
        tlm_coll_record *part = calloc(n, sizeof *part);
        assert_non_null(part);
        for (int p = P - 1; p >= 0; p--) {
            /* owner p's share, given in reverse order */
            size_t np = 0;
            for (size_t i = n; i-- > 0;)
                if (tlm_coll_record_owner_key(&r[i]) % (uint64_t)P ==
                    (uint64_t)p)
                    part[np++] = r[i];
            tlm_coll_match_result res;
            assert_int_equal(tlm_coll_match(part, np, NULL, &res, NULL),
                             TLM_OK);
            tlm_coll_straggler_row *pr = NULL;
            size_t npr = 0;
            assert_int_equal(tlm_coll_straggler_compute(res.inst, res.n_inst,
                                                        res.mem, res.n_mem,
                                                        NULL, &pr, &npr,
                                                        NULL),
                             TLM_OK);
            inst = realloc(inst, (ni + res.n_inst + 1) * sizeof *inst);
            mem = realloc(mem, (nm + res.n_mem + 1) * sizeof *mem);
            unm = realloc(unm, (nu + res.n_unm + 1) * sizeof *unm);
            srow = realloc(srow, (ns + npr + 1) * sizeof *srow);
            assert_true(inst && mem && unm && srow);
            if (res.n_inst)
                memcpy(inst + ni, res.inst, res.n_inst * sizeof *inst);
            if (res.n_mem)
                memcpy(mem + nm, res.mem, res.n_mem * sizeof *mem);
            if (res.n_unm)
                memcpy(unm + nu, res.unm, res.n_unm * sizeof *unm);
            if (npr)
                memcpy(srow + ns, pr, npr * sizeof *srow);
            ni += res.n_inst;
            nm += res.n_mem;
            nu += res.n_unm;
            ns += npr;
            tlm_coll_free(NULL, pr);
            tlm_coll_match_result_free(&res);
        }
        tlm_coll_instances_sort(inst, ni);
        tlm_coll_members_sort(mem, nm);
        tlm_coll_unmatched_sort(unm, nu);
        tlm_coll_straggler_merge(srow, &ns);
        assert_int_equal(ni, ref.n_inst);
        assert_int_equal(nm, ref.n_mem);
        assert_int_equal(nu, ref.n_unm);
        assert_int_equal(ns, nrs);
        assert_memory_equal(inst, ref.inst, ni * sizeof *inst);
        assert_memory_equal(mem, ref.mem, nm * sizeof *mem);
        if (nu)
            assert_memory_equal(unm, ref.unm, nu * sizeof *unm);
        assert_memory_equal(srow, rs, ns * sizeof *srow);
        tlm_coll_summary_row *s2 = NULL;
        size_t ns2 = 0;
        /* the summary of the concatenation in any order */
        for (size_t i = 0; i + 1 < ni; i += 2) {
            tlm_coll_instance t = inst[i];
            inst[i] = inst[ni - 1 - i];
            inst[ni - 1 - i] = t;
        }
        assert_int_equal(tlm_coll_summarize(inst, ni, 1, NULL, &s2, &ns2,
                                            NULL),
                         TLM_OK);
        assert_int_equal(ns2, nsu);
        assert_memory_equal(s2, su, ns2 * sizeof *s2);
        tlm_coll_free(NULL, s2);
        free(inst);
        free(mem);
        free(unm);
        free(srow);
        free(part);
    }
    tlm_coll_free(NULL, rs);
    tlm_coll_free(NULL, su);
    tlm_coll_match_result_free(&ref);
    free(r);
}

/* Two-phase alignment (keys -> owners -> shifts -> records) gives exactly
 * the one-phase result, with keys spread over 3 owners and the records of
 * the second phase over 5. */
static void test_two_phase_alignment(void **state)
{
    (void)state;
    tlm_coll_record *r = NULL;
    size_t n = mixed_records(&r);
    /* one clipped rank that cannot be aligned at all: other signatures */
    for (int c = 0; c < 4; c++) {
        r[n] = mkrec(9, "7", "allreduce", "Double", 3 + c, JOB_R,
                     (int64_t)c * 1000, 10);
        r[n].seq = c;
        n++;
    }
    tlm_coll_match_result ref;
    assert_int_equal(tlm_coll_match(r, n, NULL, &ref, NULL), TLM_OK);
    assert_true(ref.n_unm >= 4);

    tlm_coll_align_key *keys = NULL;
    size_t nk = 0;
    assert_int_equal(tlm_coll_align_keys(r, n, NULL, &keys, &nk, NULL),
                     TLM_OK);
    assert_true(nk > 0 && nk < n);
    tlm_coll_align_shift *all = NULL;
    size_t nall = 0;
    for (int p = 0; p < 3; p++) {
        tlm_coll_align_key *mine = calloc(nk, sizeof *mine);
        size_t nm = 0;
        for (size_t i = 0; i < nk; i++)
            if (tlm_coll_align_key_owner(&keys[i]) % 3 == (uint64_t)p)
                mine[nm++] = keys[i];
        tlm_coll_align_shift *sh = NULL;
        size_t ns = 0;
        assert_int_equal(tlm_coll_align(mine, nm, NULL, &sh, &ns, NULL),
                         TLM_OK);
        all = realloc(all, (nall + ns + 1) * sizeof *all);
        if (ns)
            memcpy(all + nall, sh, ns * sizeof *sh);
        nall += ns;
        tlm_coll_free(NULL, sh);
        free(mine);
    }
    tlm_coll_align_shifts_sort(all, nall);
    tlm_coll_records_apply_shifts(r, n, all, nall);
    int unaligned = 0;
    for (size_t i = 0; i < n; i++)
        unaligned += (r[i].flags & TLM_COLL_REC_UNALIGNED) != 0;
    assert_int_equal(unaligned, 4);
    /* second phase over 5 owners, by the new owner keys */
    tlm_coll_instance *inst = NULL;
    tlm_coll_member *mem = NULL;
    tlm_coll_unmatched *unm = NULL;
    size_t ni = 0, nm = 0, nu = 0;
    tlm_coll_record *part = calloc(n, sizeof *part);
    for (int p = 0; p < 5; p++) {
        size_t np = 0;
        for (size_t i = 0; i < n; i++)
            if (tlm_coll_record_owner_key(&r[i]) % 5 == (uint64_t)p)
                part[np++] = r[i];
        tlm_coll_match_result res;
        assert_int_equal(tlm_coll_match(part, np, NULL, &res, NULL), TLM_OK);
        inst = realloc(inst, (ni + res.n_inst + 1) * sizeof *inst);
        mem = realloc(mem, (nm + res.n_mem + 1) * sizeof *mem);
        unm = realloc(unm, (nu + res.n_unm + 1) * sizeof *unm);
        if (res.n_inst)
            memcpy(inst + ni, res.inst, res.n_inst * sizeof *inst);
        if (res.n_mem)
            memcpy(mem + nm, res.mem, res.n_mem * sizeof *mem);
        if (res.n_unm)
            memcpy(unm + nu, res.unm, res.n_unm * sizeof *unm);
        ni += res.n_inst;
        nm += res.n_mem;
        nu += res.n_unm;
        tlm_coll_match_result_free(&res);
    }
    tlm_coll_instances_sort(inst, ni);
    tlm_coll_members_sort(mem, nm);
    tlm_coll_unmatched_sort(unm, nu);
    assert_int_equal(ni, ref.n_inst);
    assert_int_equal(nm, ref.n_mem);
    assert_int_equal(nu, ref.n_unm);
    assert_memory_equal(inst, ref.inst, ni * sizeof *inst);
    assert_memory_equal(mem, ref.mem, nm * sizeof *mem);
    assert_memory_equal(unm, ref.unm, nu * sizeof *unm);
    free(inst);
    free(mem);
    free(unm);
    free(part);
    free(all);
    tlm_coll_free(NULL, keys);
    tlm_coll_match_result_free(&ref);
    free(r);
}

/* MARK: - types and sizes */

static void test_dtypes_and_types(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        int size, tl;
    } dt[] = {{"Float", 4, 4},          {"Double", 8, 8},
              {"Half", 2, 2},           {"BFloat16", 2, 2},
              {"Float8_e4m3fn", 1, 0},  {"Float8_e5m2", 1, 0},
              {"Float8_e4m3fnuz", 1, 0}, {"Float8_e5m2fnuz", 1, 0},
              {"Char", 1, 0},           {"Byte", 1, 1},
              {"Bool", 1, 1},           {"Short", 2, 2},
              {"Int", 4, 4},            {"Long", 8, 8},
              {"UInt16", 2, 0},         {"UInt32", 4, 0},
              {"UInt64", 8, 0},         {"ComplexFloat", 8, 0},
              {"ComplexDouble", 16, 0}, {"c10::Half", 2, 2},
              {"f16", 2, 2},            {"bf16", 2, 2},
              {"int8_t", 1, 0},         {"float", 4, 4},
              {"torch.float32", 4, 4},  {"nope", 0, 0}};
    for (size_t i = 0; i < sizeof dt / sizeof dt[0]; i++) {
        tlm_dtype d = tlm_dtype_from_name(dt[i].s, strlen(dt[i].s));
        assert_int_equal(tlm_dtype_size(d), dt[i].size);
        assert_int_equal(tlm_dtype_tl_size(d), dt[i].tl);
    }
    assert_string_equal(tlm_dtype_name(TLM_DTYPE_CHAR), "Char");

    static const struct {
        const char *s;
        tlm_coll_type t;
    } cn[] = {{"allreduce", TLM_COLL_ALLREDUCE},
              {"_allgather_base", TLM_COLL_ALLGATHER},
              {"reduce_scatter", TLM_COLL_REDUCESCATTER},
              {"_reduce_scatter_base", TLM_COLL_REDUCESCATTER},
              {"all_to_all", TLM_COLL_ALLTOALL},
              {"all_to_allv", TLM_COLL_ALLTOALLV},
              {"nccl:all_reduce", TLM_COLL_ALLREDUCE},
              {"nccl:_all_gather_base", TLM_COLL_ALLGATHER},
              {"broadcast", TLM_COLL_BROADCAST},
              {"send", TLM_COLL_SEND},
              {"recv", TLM_COLL_RECV},
              {"barrier", TLM_COLL_BARRIER},
              {"coalesced", TLM_COLL_COALESCED},
              {"frobnicate", TLM_COLL_UNKNOWN}};
    for (size_t i = 0; i < sizeof cn / sizeof cn[0]; i++)
        assert_int_equal(tlm_coll_type_from_name(cn[i].s, strlen(cn[i].s),
                                                 NULL),
                         cn[i].t);
    int w = 0;
    assert_int_equal(tlm_coll_type_from_name("wait", 4, &w),
                     TLM_COLL_UNKNOWN);
    assert_int_equal(w, 1);

    char algo[TLM_COLL_ALGO_LEN];
    tlm_dtype d;
    assert_int_equal(
        tlm_coll_type_from_kernel("ncclKernel_AllReduce_RING_LL_Sum_float("
                                  "ncclDevComm*, unsigned long, ncclWork*)",
                                  algo, &d),
        TLM_COLL_ALLREDUCE);
    assert_string_equal(algo, "RING_LL");
    assert_int_equal(d, TLM_DTYPE_FLOAT);
    assert_int_equal(
        tlm_coll_type_from_kernel("ncclDevKernel_AllReduce_Sum_f16_RING_LL("
                                  "ncclDevComm*, unsigned long, ncclWork*)",
                                  algo, &d),
        TLM_COLL_ALLREDUCE);
    assert_string_equal(algo, "RING_LL");
    assert_int_equal(d, TLM_DTYPE_HALF);
    assert_int_equal(tlm_coll_type_from_kernel(
                         "ncclDevKernel_AllGather_RING_LL("
                         "ncclDevKernelArgsStorage<4096ul>)",
                         algo, &d),
                     TLM_COLL_ALLGATHER);
    assert_int_equal(d, TLM_DTYPE_UNKNOWN);
    assert_int_equal(tlm_coll_type_from_kernel(
                         "ncclDevKernel_ReduceScatter_Sum_bf16_NVLS_TREE_"
                         "SIMPLE(x)",
                         algo, &d),
                     TLM_COLL_REDUCESCATTER);
    assert_string_equal(algo, "NVLS_TREE_SIMPLE");
    assert_int_equal(d, TLM_DTYPE_BFLOAT16);
    assert_int_equal(tlm_coll_type_from_kernel(
                         "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(x)",
                         algo, &d),
                     TLM_COLL_SENDRECV);
    assert_int_equal(tlm_coll_type_from_kernel(
                         "ncclDevKernel_Generic(ncclDevKernelArgsStorage<"
                         "4096ul>)",
                         algo, &d),
                     TLM_COLL_UNKNOWN);
    assert_int_equal(tlm_coll_type_from_kernel(
                         "void cross_device_reduce_2stage<bf16>()", algo,
                         &d),
                     TLM_COLL_ALLREDUCE);

    assert_double_equal(tlm_coll_bus_factor(TLM_COLL_ALLREDUCE, 8), 1.75,
                        1e-15);
    assert_double_equal(tlm_coll_bus_factor(TLM_COLL_ALLGATHER, 8), 0.875,
                        1e-15);
    assert_double_equal(tlm_coll_bus_factor(TLM_COLL_BROADCAST, 8), 1.0,
                        1e-15);
    assert_double_equal(tlm_coll_bus_factor(TLM_COLL_SEND, 2), 1.0, 1e-15);
    assert_true(isnan(tlm_coll_bus_factor(TLM_COLL_BARRIER, 8)));
}

/* MARK: - allocation failures */

/* Every function of the module, with the N-th allocation failing, for
 * every N until all succeed: ENOMEM, nothing leaked, never a crash. */
static void test_alloc_failures(void **state)
{
    (void)state;
    tlm_coll_record *r = NULL;
    size_t n = mixed_records(&r);
    int done = 0;
    for (long fail_at = 1; !done && fail_at < 100000; fail_at++) {
        tt_fail_alloc fa;
        tt_fail_alloc_init(&fa, fail_at, 0);
        const tlm_alloc *a = &fa.a;
        tlm_coll_match_opts mo;
        tlm_coll_match_opts_init(&mo);
        mo.alloc = a;
        tlm_coll_match_result res;
        tlm_status st = tlm_coll_match(r, n, &mo, &res, NULL);
        tlm_coll_straggler_row *sr = NULL;
        tlm_coll_summary_row *su = NULL;
        tlm_coll_clock *clk = NULL;
        tlm_coll_tl_result tl;
        tlm_coll_tl_summary_row *ts = NULL;
        tlm_coll_tl_straggler_row *tsr = NULL;
        size_t nsr = 0, nsu = 0, nclk = 0, nts = 0, ntsr = 0;
        memset(&tl, 0, sizeof tl);
        if (st == TLM_OK)
            st = tlm_coll_straggler_compute(res.inst, res.n_inst, res.mem,
                                            res.n_mem, a, &sr, &nsr, NULL);
        if (st == TLM_OK)
            st = tlm_coll_summarize(res.inst, res.n_inst, 0, a, &su, &nsu,
                                    NULL);
        if (st == TLM_OK) {
            tlm_coll_clock_opts co;
            tlm_coll_clock_opts_init(&co);
            co.alloc = a;
            st = tlm_coll_clock_estimate(res.mem, res.n_mem, &co, &clk,
                                         &nclk, NULL);
        }
        if (st == TLM_OK)
            st = tlm_coll_tl_match(r, n, 0, a, &tl, NULL);
        if (st == TLM_OK)
            st = tlm_coll_tl_summary(tl.sync, tl.n_sync, a, &ts, &nts,
                                     NULL);
        if (st == TLM_OK)
            st = tlm_coll_tl_straggler(tl.sync, tl.n_sync, tl.smem,
                                       tl.n_smem, NULL, 0, a, &tsr, &ntsr,
                                       NULL);
        tlm_coll_tl_long_summary_row *tls = NULL;
        size_t ntls = 0;
        if (st == TLM_OK)
            st = tlm_coll_tl_long_summary(r, n, a, &tls, &ntls, NULL);
        tlm_coll_free(a, tls);
        tlm_coll_align_key *keys = NULL;
        tlm_coll_align_shift *sh = NULL;
        size_t nk = 0, nsh = 0;
        if (st == TLM_OK)
            st = tlm_coll_align_keys(r, n, a, &keys, &nk, NULL);
        if (st == TLM_OK)
            st = tlm_coll_align(keys, nk, a, &sh, &nsh, NULL);
        tlm_coll_free(a, keys);
        tlm_coll_free(a, sh);
        assert_true(st == TLM_OK || st == TLM_ENOMEM);
        done = st == TLM_OK;
        if (done)
            assert_true(res.n_inst > 0 && nsr > 0 && nsu > 0 && nclk > 0 &&
                        tl.n_sync > 0 && nts > 0 && ntsr > 0);
        tlm_coll_match_result_free(&res); /* zeroed when match failed */
        tlm_coll_free(a, sr);
        tlm_coll_free(a, su);
        tlm_coll_free(a, clk);
        tlm_coll_free(a, ts);
        tlm_coll_free(a, tsr);
        tlm_coll_tl_result_free(&tl);
        assert_int_equal(fa.live, 0);
    }
    assert_true(done);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tl_vector),
        cmocka_unit_test(test_si_vector),
        cmocka_unit_test(test_job_ordinal_clipped),
        cmocka_unit_test(test_uniform_signatures_shifted_window),
        cmocka_unit_test(test_head_and_tail_extension),
        cmocka_unit_test(test_extra_item_unmatched),
        cmocka_unit_test(test_p2p),
        cmocka_unit_test(test_alltoallv_metrics),
        cmocka_unit_test(test_seq_mismatch_and_duplicates),
        cmocka_unit_test(test_partition_independence),
        cmocka_unit_test(test_two_phase_alignment),
        cmocka_unit_test(test_dtypes_and_types),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
