/*
 * test_coll_tl.c - the TraceLens parity mode (src/coll/coll_tl.c) on
 * "fake rank" records: the TraceLens test vector (spec/collectives.md 3.9)
 * number for number through nccl_implicit_sync, straggler_summary,
 * nccl_summary_implicit_sync and nccl_summary_long; the simplified-mode
 * vote and its ids; metadata that differs across ranks; per-rank kernel
 * time; FP8 sizes TraceLens cannot size; allocation failures; TraceLens's
 * row and column order (coll_tl_order.c).
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

#include "tlm_test_coll.h"

/* MARK: - the TraceLens test vector (3.9) */

static void test_tl_vector(void **state)
{
    (void)state;
    tlm_coll_record r[8];
    size_t n = tc_vector_records(r);
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

/* MARK: - simplified mode and votes */

/* No kernel carries a PG name and every rank uses one stream: the
 * simplified ("inference") mode, where ids are "<k>" and only all-to-allv
 * is left out of the implicit-sync table. */
static void test_vote_simplified(void **state)
{
    (void)state;
    tlm_coll_record r[10];
    size_t n = tc_vector_records(r);
    for (size_t i = 0; i < n; i++)
        r[i].flags &= ~(uint32_t)TLM_COLL_REC_KPG;
    /* a kernel TraceLens does not keep votes for nothing */
    r[n] = tc_mkrec(0, "0", "allreduce", "Float", 8, 4, 5000000, 1000);
    r[n].flags = TLM_COLL_REC_KPG;
    r[n].stream = 99;
    tlm_coll_tl_vote v = {0, 0};
    tlm_coll_tl_vote_records(r, n + 1, &v);
    assert_int_equal(v.any_pg, 0);
    assert_int_equal(v.multi_stream, 0);
    assert_int_equal(tlm_coll_tl_simplified(&v), 1);
    assert_int_equal(tlm_coll_tl_simplified(NULL), 0);
    tlm_coll_tl_result res;
    assert_int_equal(tlm_coll_tl_match(r, n + 1, 1, NULL, &res, NULL),
                     TLM_OK);
    assert_int_equal(res.n_long, 8);
    assert_int_equal(res.n_sync, 2);
    assert_string_equal(res.sync[0].collective_id, "0");
    assert_string_equal(res.sync[1].collective_id, "1");
    assert_double_equal(res.sync[0].comm_latency_us, 20, 1e-12);
    tlm_coll_tl_result_free(&res);

    /* a second stream on one rank: not simplified.  Streams are compared
     * within each run of one rank's records (one trace's records): here
     * every run is one record long */
    r[3].stream = 8;
    tlm_coll_tl_vote_records(r, n, &v);
    assert_int_equal(v.multi_stream, 0);
    tlm_coll_record rank3[2] = {r[3], r[7]};
    tlm_coll_tl_vote_records(rank3, 2, &v);
    assert_int_equal(v.multi_stream, 1);
    assert_int_equal(tlm_coll_tl_simplified(&v), 0);
    v.multi_stream = 0;
    r[0].flags |= TLM_COLL_REC_KPG;
    tlm_coll_tl_vote_records(r, 1, &v);
    assert_int_equal(v.any_pg, 1);
    assert_int_equal(tlm_coll_tl_simplified(&v), 0);
}

/* The kernel time per rank over the kept kernels, added to what is there;
 * ranks outside the array are skipped. */
static void test_rank_dur(void **state)
{
    (void)state;
    tlm_coll_record r[10];
    size_t n = tc_vector_records(r);
    r[n] = tc_mkrec(7, "0", "broadcast", "Float", 8, 4, 0, 5500);
    r[n + 1] = tc_mkrec(1, "0", "broadcast", "Float", 8, 4, 0, 2500);
    r[n + 1].flags &= ~(uint32_t)TLM_COLL_REC_TL_KEPT;
    double dur[4] = {1, 0, 0, 0};
    tlm_coll_tl_rank_dur(r, n + 2, dur, 4);
    assert_double_equal(dur[0], 81, 0);
    assert_double_equal(dur[1], 70, 0);
    assert_double_equal(dur[2], 50, 0);
    assert_double_equal(dur[3], 80, 0);
    tlm_coll_tl_rank_dur(NULL, 3, dur, 4);
    assert_double_equal(dur[0], 81, 0);
}

/* Rank 2 recorded another size for collective 0_0: the first row (lowest
 * rank) decides, the difference is counted. */
static void test_meta_mismatch(void **state)
{
    (void)state;
    tlm_coll_record r[8];
    size_t n = tc_vector_records(r);
    r[2].in_nelems = r[2].out_nelems = 2048;
    tlm_coll_tl_result res;
    assert_int_equal(tlm_coll_tl_match(r, n, 0, NULL, &res, NULL), TLM_OK);
    assert_int_equal(res.n_sync, 2);
    assert_int_equal(res.sync[0].in_nelems, 1024);
    assert_true(res.sync[0].meta_mismatch > 0);
    assert_int_equal(res.sync[1].meta_mismatch, 0);
    tlm_coll_tl_result_free(&res);
    tlm_error err;
    assert_int_equal(tlm_coll_tl_match(NULL, 3, 0, NULL, &res, &err),
                     TLM_EINVAL);
}

/* MARK: - nccl_summary_long */

/* Kernels of an extracted trace: an allreduce and an FP8 all_to_allv with
 * their metadata, and a send without split sizes (dropped, as by pandas'
 * dropna).  TraceLens has no size for FP8: NaN MiB. */
static void test_long_summary_fp8(void **state)
{
    (void)state;
    tlm_coll_record r[3];
    r[0] = tc_mkrec(1, "0", "allreduce", "BFloat16", 1000, 4, 200500,
                    30250);
    r[1] = tc_mkrec(1, "0", "all_to_allv", "Float8_e4m3fn", 40960, 4,
                    400000, 10000);
    r[2] = tc_mkrec(1, "0", "send", "Float", 256, 4, 500000, 3000);
    for (int i = 0; i < 3; i++)
        snprintf(r[i].pg_ranks_text, sizeof r[i].pg_ranks_text,
                 "[0, 1, 2, 3]");
    for (int i = 0; i < 2; i++)
        snprintf(r[i].out_split, sizeof r[i].out_split, "[]");
    snprintf(r[0].in_split, sizeof r[0].in_split, "[]");
    snprintf(r[1].in_split, sizeof r[1].in_split, "[1, 2, 3, 4]");
    tlm_coll_tl_long_summary_row *ls = NULL;
    size_t nls = 0;
    assert_int_equal(tlm_coll_tl_long_summary(r, 3, NULL, &ls, &nls, NULL),
                     TLM_OK);
    assert_int_equal(nls, 2);
    assert_string_equal(ls[0].coll_name, "allreduce");
    assert_int_equal(ls[0].rank, 1);
    assert_true(ls[0].dur_sum_us == 30.25);
    assert_true(ls[0].in_mib_first == 2000.0 / 1048576.0);
    assert_true(isnan(ls[0].dur_std_us)); /* one kernel */
    assert_string_equal(ls[1].coll_name, "all_to_allv");
    assert_string_equal(ls[1].in_split, "[1, 2, 3, 4]");
    assert_string_equal(ls[1].dtype, "Float8_e4m3fn");
    assert_true(isnan(ls[1].in_mib_first));
    assert_true(ls[1].dur_sum_us == 10.0);
    tlm_coll_free(NULL, ls);
}

/* MARK: - allocation failures */

/* Every table of the parity mode over the test vector. */
static tlm_status tl_all(const tlm_alloc *a, const void *ctx)
{
    const tlm_coll_record *r = ctx;
    tlm_coll_tl_result tl;
    tlm_coll_tl_summary_row *ts = NULL;
    tlm_coll_tl_straggler_row *tsr = NULL;
    tlm_coll_tl_long_summary_row *tls = NULL;
    size_t nts = 0, ntsr = 0, ntls = 0;
    tlm_status st = tlm_coll_tl_match(r, 8, 0, a, &tl, NULL);
    if (st == TLM_OK)
        st = tlm_coll_tl_summary(tl.sync, tl.n_sync, a, &ts, &nts, NULL);
    if (st == TLM_OK)
        st = tlm_coll_tl_straggler(tl.sync, tl.n_sync, tl.smem, tl.n_smem,
                                   NULL, 0, a, &tsr, &ntsr, NULL);
    if (st == TLM_OK)
        st = tlm_coll_tl_long_summary(r, 8, a, &tls, &ntls, NULL);
    if (st == TLM_OK)
        assert_true(tl.n_sync == 2 && nts == 1 && ntsr == 4 && ntls == 4);
    tlm_coll_tl_result_free(&tl); /* emptied when matching failed */
    tlm_coll_free(a, ts);
    tlm_coll_free(a, tsr);
    tlm_coll_free(a, tls);
    return st;
}

static void test_alloc_failures(void **state)
{
    (void)state;
    tlm_coll_record r[8];
    tc_vector_records(r);
    for (int i = 0; i < 8; i++) {
        snprintf(r[i].in_split, sizeof r[i].in_split, "[]");
        snprintf(r[i].out_split, sizeof r[i].out_split, "[]");
        snprintf(r[i].pg_ranks_text, sizeof r[i].pg_ranks_text,
                 "[0, 1, 2, 3]");
    }
    assert_true(tc_alloc_torture(tl_all, r) > 4);
}

/* MARK: - TraceLens's row and column order (coll_tl_order.c) */

/* A sync row with id cid whose lowest member is (rank, event). */
static void order_row(tlm_coll_tl_sync_row *s, const char *cid, int rank,
                      uint64_t ev)
{
    memset(s, 0, sizeof *s);
    snprintf(s->collective_id, sizeof s->collective_id, "%s", cid);
    s->first_rank = rank;
    s->first_event = ev;
    s->mem_off = -1;
}

static void order_mem(tlm_coll_tl_sync_member *m, const char *cid, int rank,
                      double wait)
{
    memset(m, 0, sizeof *m);
    snprintf(m->collective_id, sizeof m->collective_id, "%s", cid);
    m->rank = rank;
    m->wait_us = wait;
}

static void test_first_seen(void **state)
{
    (void)state;
    /* rows {0,1}, {0,4,8}, {1,5,8}: columns 0 1 | 4 8 | 5 */
    const int32_t rk[] = {0, 1, 0, 4, 8, 1, 5, 8};
    const int32_t rw[] = {0, 0, 1, 1, 1, 2, 2, 2};
    int32_t *cols = NULL, *batch = NULL;
    size_t nc = 0;
    assert_int_equal(tlm_coll_tl_first_seen(rk, rw, 8, NULL, &cols, &batch,
                                            &nc, NULL),
                     TLM_OK);
    assert_int_equal(nc, 5);
    const int32_t wc[] = {0, 1, 4, 8, 5}, wb[] = {0, 0, 1, 1, 2};
    for (size_t i = 0; i < nc; i++) {
        assert_int_equal(cols[i], wc[i]);
        assert_int_equal(batch[i], wb[i]);
    }
    tlm_coll_free(NULL, cols);
    tlm_coll_free(NULL, batch);
    assert_int_equal(tlm_coll_tl_first_seen(NULL, NULL, 0, NULL, &cols,
                                            &batch, &nc, NULL),
                     TLM_OK);
    assert_int_equal(nc, 0);
    tlm_coll_free(NULL, cols);
    tlm_coll_free(NULL, batch);
    assert_int_equal(tlm_coll_tl_first_seen(rk, rw, 8, NULL, NULL, &batch,
                                            &nc, NULL),
                     TLM_EINVAL);
}

static void test_order(void **state)
{
    (void)state;
    /* canonical order 1_0, 1_1, 5_0; appearance: 5_0 (rank 0, event 3),
     * 1_1 (rank 2, event 1), 1_0 (rank 2, event 9) */
    tlm_coll_tl_sync_row rows[3];
    order_row(&rows[0], "1_0", 2, 9);
    order_row(&rows[1], "1_1", 2, 1);
    order_row(&rows[2], "5_0", 0, 3);
    tlm_coll_tl_sync_member m[7];
    order_mem(&m[0], "1_1", 6, 0.0); /* a tie at 0 with rank 2 */
    order_mem(&m[1], "1_0", 2, 1.0);
    order_mem(&m[2], "5_0", 6, 2.0);
    order_mem(&m[3], "1_1", 2, 0.0);
    order_mem(&m[4], "5_0", 0, 0.0);
    order_mem(&m[5], "1_0", 6, 0.0);
    order_mem(&m[6], "9_9", 1, 0.0); /* of no row: dropped */
    size_t nm = 7;
    assert_int_equal(tlm_coll_tl_order(rows, 3, m, &nm, NULL, NULL), TLM_OK);
    assert_int_equal(nm, 6);
    assert_string_equal(rows[0].collective_id, "5_0");
    assert_string_equal(rows[1].collective_id, "1_1");
    assert_string_equal(rows[2].collective_id, "1_0");
    /* members row after row, by rank */
    const int32_t wr[] = {0, 6, 2, 6, 2, 6};
    for (size_t i = 0; i < nm; i++)
        assert_int_equal(m[i].rank, wr[i]);
    assert_int_equal(rows[0].mem_off, 0);
    assert_int_equal(rows[1].mem_off, 2);
    assert_int_equal(rows[2].mem_off, 4);
    assert_int_equal(rows[1].n_ranks, 2);
    /* columns 0 6 | 2: the tie in 1_1 between ranks 2 and 6 goes to 6,
     * whose column comes first (pandas idxmin), not to the lower rank */
    assert_int_equal(rows[0].last_arrival_rank, 0);
    assert_int_equal(rows[1].last_arrival_rank, 6);
    assert_int_equal(rows[2].last_arrival_rank, 6);
    size_t zero = 0;
    assert_int_equal(tlm_coll_tl_order(NULL, 0, NULL, &zero, NULL, NULL),
                     TLM_OK);
    assert_int_equal(tlm_coll_tl_order(rows, 3, m, NULL, NULL, NULL),
                     TLM_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_seen),
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_tl_vector),
        cmocka_unit_test(test_vote_simplified),
        cmocka_unit_test(test_rank_dur),
        cmocka_unit_test(test_meta_mismatch),
        cmocka_unit_test(test_long_summary_fp8),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
