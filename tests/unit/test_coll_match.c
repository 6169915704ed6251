/*
 * test_coll_match.c - matching and per-instance metrics
 * (src/coll/coll_match.c), on "fake rank" record arrays (tlm_test_coll.h):
 *
 *   - the TraceLens test vector (spec/collectives.md 3.9) through the SI
 *     metrics;
 *   - a 2-node, 8-rank synthetic job with a known clock offset, a known
 *     straggler and clipped profiling windows (ordinal matching, uniform
 *     signatures): exact instances, corrected skews;
 *   - the group of a collective whose traces name none (the world),
 *     incomplete instances without bandwidth, the clock fit's members;
 *   - p2p pairing per directed pair, with a clipped receiver;
 *   - all_to_allv volumes, throughput and imbalance;
 *   - seq-identified instances: signature mismatch, duplicates;
 *   - partition independence over 1/2/3/8 fake owners;
 *   - two-phase alignment; allocation failures.
 * Summaries and straggler tables: test_coll_summary.c; clock offsets:
 * test_coll_clock.c; the TraceLens parity mode: test_coll_tl.c; types and
 * sizes: test_dtype.c.
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

/* The vector through the SI metrics: exact ns, GB/s = 1e9 B/s. */
static void test_si_vector(void **state)
{
    (void)state;
    tlm_coll_record r[8];
    size_t n = tc_vector_records(r);
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
    assert_string_equal(a->pg_desc, "");
    tlm_coll_match_result_free(&res);

    /* pg_desc: the first member that has one (here only rank 2's) */
    for (size_t i = 0; i < n; i++)
        if (r[i].trace_rank == 2)
            snprintf(r[i].pg_desc, sizeof r[i].pg_desc, "mesh_tp");
    assert_int_equal(tlm_coll_match(r, n, NULL, &res, NULL), TLM_OK);
    assert_string_equal(res.inst[0].pg_desc, "mesh_tp");
    assert_string_equal(res.inst[1].pg_desc, "mesh_tp");

    tlm_coll_match_result_free(&res);
}

/* MARK: - synthetic 2-node job: clock offset, straggler, clipped windows */

/* The instances of tc_job_records: every member carries its true
 * instance; ranks 3 and 6 miss some. */
static void check_job(const tlm_coll_match_result *res, int ordinal)
{
    assert_int_equal(res->n_inst, TC_JOB_C);
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
        int want = 0;
        for (int k = 0; k < TC_JOB_R; k++)
            want += tc_job_present(c, k);
        assert_int_equal(nm, want);
        assert_int_equal(in->n_members, want);
        assert_int_equal((in->flags & TLM_COLL_INST_INCOMPLETE) != 0,
                         want < TC_JOB_R);
    }
}

static void test_job_ordinal_clipped(void **state)
{
    (void)state;
    tlm_coll_record *r = NULL;
    tlm_coll_match_result res;
    size_t n = tc_job_match(&r, 0, NULL, &res);
    check_job(&res, 1);
    /* the true offsets (test_coll_clock.c estimates them) */
    int64_t off[TC_JOB_R];
    for (int k = 0; k < TC_JOB_R; k++)
        off[k] = tc_job_theta[k / 4];
    tlm_coll_metrics_apply_offsets(&res, off, TC_JOB_R, 0, 1000);
    for (size_t i = 0; i < res.n_inst; i++) {
        const tlm_coll_instance *in = &res.inst[i];
        /* corrected: everyone ends together, rank 5 arrived last */
        assert_int_equal(in->end_skew_corr_ns, 0);
        assert_int_equal(in->last_rank_corr, 5);
        assert_true(in->flags & TLM_COLL_INST_CORRECTED);
        assert_int_equal(in->end_skew_ns, 37000);
        int c = (int)in->seq;
        /* from the earliest true arrival among present members to the
         * straggler's */
        int64_t emin = INT64_MAX;
        for (int k = 0; k < TC_JOB_R; k++)
            if (tc_job_present(c, k) && tc_job_arrival(c, k) < emin)
                emin = tc_job_arrival(c, k);
        assert_int_equal(in->start_skew_corr_ns,
                         tc_job_arrival(c, 5) - emin);
        assert_int_equal(in->comm_latency_ns, 20000 + (c % 5) * 1000);
    }
    tlm_coll_match_result_free(&res);

    /* matching with the offsets up front gives the same instances */
    tlm_coll_match_opts mo;
    tlm_coll_match_opts_init(&mo);
    mo.offset_ns = off;
    mo.n_offsets = TC_JOB_R;
    assert_int_equal(tlm_coll_match(r, n, &mo, &res, NULL), TLM_OK);
    check_job(&res, 1);
    assert_int_equal(res.inst[5].end_skew_corr_ns, 0);
    tlm_coll_match_result_free(&res);

    /* the same job with Seq from the trace */
    n = tc_job_records(r, 1);
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
            tlm_coll_record x = tc_mkrec(k, "0", "allreduce", "Float", 64, 2,
                                         gap[c] + k * 3000 + 250000 * k,
                                         10000);
            x.event_index = (uint64_t)c;
            r[n++] = x;
        }
    tc_assign_ordinals(r, n);
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
            tlm_coll_record x = tc_mkrec(k, "g", "allreduce", "Half",
                                         (c % 3) ? 64 : 128, 4,
                                         T + k * 1000 + clk[k],
                                         30000 - k * 1000);
            x.event_index = (uint64_t)c;
            r[n++] = x;
        }
    tc_assign_ordinals(r, n);
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
            r[n++] = tc_mkrec(k, "0", "allreduce", "Float", 256, 2,
                              (int64_t)c * 1000000 + k * 1000, 5000);
    /* rank 1 aligned slot 4 holds a broadcast instead of the allreduce */
    r[9] = tc_mkrec(1, "0", "broadcast", "Float", 256, 2, 4 * 1000000 + 1000,
                    5000);
    tc_assign_ordinals(r, n);
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

/* MARK: - the group of a collective whose traces name none */

/* n ranks' records of one all-reduce (seq 0) and, without rank n - 1, a
 * second one (seq 1), with no group metadata at all. */
static size_t nogroup_records(tlm_coll_record *r, int n)
{
    size_t k = 0;
    for (int s = 0; s < 2; s++)
        for (int rank = 0; rank < n - s; rank++) {
            tlm_coll_record x = tc_mkrec(rank, "unknown/stream7",
                                         "allreduce", "Float", 1024, 1,
                                         1000 * s + rank, 100 + rank);
            x.group_size = -1;
            x.pg_ranks_n = -1;
            x.seq_src = TLM_COLL_SEQ_TRACE;
            x.seq = s;
            x.flags |= TLM_COLL_REC_PG_SYNTH;
            r[k++] = x;
        }
    return k;
}

/* No Group size, PG ranks or pg_config: the instance belongs to the world
 * (GROUP_WORLD); with fewer members it is INCOMPLETE, without bandwidth;
 * a member's group size wins over the world; the clock fit's members are
 * those of complete instances. */
static void test_world_group(void **state)
{
    (void)state;
    tlm_coll_record r[16];
    size_t n = nogroup_records(r, 4);
    tlm_coll_match_opts o;
    tlm_coll_match_opts_init(&o);
    tlm_coll_match_result res;
    /* world unknown: the members present are the group (as before) */
    assert_int_equal(tlm_coll_match(r, n, &o, &res, NULL), TLM_OK);
    assert_int_equal(res.n_inst, 2);
    assert_int_equal(res.inst[0].group_size, -1);
    assert_int_equal(res.inst[0].flags &
                         (TLM_COLL_INST_INCOMPLETE | TLM_COLL_INST_GROUP_WORLD),
                     0);
    tlm_coll_match_result_free(&res);
    /* world 4: seq 0 complete, seq 1 (3 members) incomplete */
    o.world_size = 4;
    assert_int_equal(tlm_coll_match(r, n, &o, &res, NULL), TLM_OK);
    const tlm_coll_instance *a = &res.inst[0], *b = &res.inst[1];
    assert_int_equal(a->group_size, 4);
    assert_true(a->flags & TLM_COLL_INST_GROUP_WORLD);
    assert_int_equal(a->flags & TLM_COLL_INST_INCOMPLETE, 0);
    assert_double_equal(a->busbw_gbps, 4096.0 / 100.0 * 1.5, 1e-12);
    assert_int_equal(b->n_members, 3);
    assert_true(b->flags & TLM_COLL_INST_INCOMPLETE);
    assert_true(isnan(b->algbw_gbps) && isnan(b->busbw_gbps) &&
                isnan(b->throughput_gbps));
    assert_int_equal(tlm_coll_inst_aside(b->flags), TLM_COLL_ASIDE_INCOMPLETE);
    assert_string_equal(tlm_coll_aside_name(TLM_COLL_ASIDE_INCOMPLETE),
                        "incomplete");
    tlm_coll_member cm[16];
    size_t ncm = tlm_coll_members_complete(&res, cm);
    assert_int_equal(ncm, 4);
    for (size_t i = 0; i < ncm; i++)
        assert_int_equal(cm[i].seq, 0);
    tlm_coll_match_result_free(&res);
    /* world 8 (ranks 4..7 not read): both incomplete, no member for the
     * clock fit */
    o.world_size = 8;
    assert_int_equal(tlm_coll_match(r, n, &o, &res, NULL), TLM_OK);
    assert_true(res.inst[0].flags & TLM_COLL_INST_INCOMPLETE);
    assert_true(isnan(res.inst[0].busbw_gbps));
    assert_int_equal(tlm_coll_members_complete(&res, cm), 0);
    tlm_coll_match_result_free(&res);
    /* the metadata says otherwise: a member's Group size, or PG ranks */
    r[2].group_size = 4;
    assert_int_equal(tlm_coll_match(r, n, &o, &res, NULL), TLM_OK);
    assert_int_equal(res.inst[0].group_size, 4);
    assert_int_equal(res.inst[0].flags & TLM_COLL_INST_GROUP_WORLD, 0);
    assert_int_equal(res.inst[0].flags & TLM_COLL_INST_INCOMPLETE, 0);
    tlm_coll_match_result_free(&res);
    r[2].group_size = -1;
    for (size_t i = 0; i < n; i++)
        r[i].pg_ranks_n = 3;
    assert_int_equal(tlm_coll_match(r, n, &o, &res, NULL), TLM_OK);
    assert_int_equal(res.inst[1].group_size, 3);
    assert_int_equal(res.inst[1].flags &
                         (TLM_COLL_INST_INCOMPLETE | TLM_COLL_INST_GROUP_WORLD),
                     0);
    assert_true(res.inst[0].flags & TLM_COLL_INST_OVERFULL);
    tlm_coll_match_result_free(&res);
}

/* MARK: - p2p */

static tlm_coll_record mkp2p(int rank, int send, int peer, int64_t nelems,
                             int64_t ts, int64_t dur)
{
    tlm_coll_record x = tc_mkrec(rank, "0", send ? "send" : "recv", "Float",
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
    tc_assign_ordinals(r, n);
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
        r[k] = tc_mkrec(k, "ep", "all_to_allv", "Float8_e4m3fn", 1000 + k, 4,
                        1000 + k * 100, 10000 - k * 100);
        r[k].send_bytes = send[k];
        r[k].recv_bytes = recv[k];
        r[k].max_peer_send_bytes = send[k] / 3;
    }
    tc_assign_ordinals(r, 4);
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
        r[k] = tc_mkrec(k, "1", "allreduce", "Half", 100, 3, 1000 + k, 500);
        r[k].seq_src = TLM_COLL_SEQ_CONCRETE;
        r[k].seq = 42;
        r[k].link_id = 10;
    }
    /* rank 2 recorded another size for seq 42: kept, flagged */
    r[2] = tc_mkrec(2, "1", "allreduce", "Half", 200, 3, 1002, 500);
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
    size_t n = tc_job_records(r, 0);
    /* another PG with Seq, different ranks and sizes */
    for (int c = 0; c < 25; c++)
        for (int k = 0; k < 4; k++) {
            tlm_coll_record x = tc_mkrec(k * 2, "tp", "_allgather_base",
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
    r[n++] = tc_mkrec(3, "solo", "broadcast", "Float", 9, 2, 77, 88);
    tc_assign_ordinals(r, n);
    *out = r;
    return n;
}

/* The results of several owners, concatenated. */
typedef struct concat {
    tlm_coll_instance *inst;
    tlm_coll_member *mem;
    tlm_coll_unmatched *unm;
    size_t ni, nm, nu;
} concat;

/* Matches one owner's share of the records and appends its results. */
static void concat_match(concat *c, const tlm_coll_record *part, size_t np)
{
    tlm_coll_match_result res;
    assert_int_equal(tlm_coll_match(part, np, NULL, &res, NULL), TLM_OK);
    c->inst = realloc(c->inst, (c->ni + res.n_inst + 1) * sizeof *c->inst);
    c->mem = realloc(c->mem, (c->nm + res.n_mem + 1) * sizeof *c->mem);
    c->unm = realloc(c->unm, (c->nu + res.n_unm + 1) * sizeof *c->unm);
    assert_true(c->inst && c->mem && c->unm);
    if (res.n_inst)
        memcpy(c->inst + c->ni, res.inst, res.n_inst * sizeof *c->inst);
    if (res.n_mem)
        memcpy(c->mem + c->nm, res.mem, res.n_mem * sizeof *c->mem);
    if (res.n_unm)
        memcpy(c->unm + c->nu, res.unm, res.n_unm * sizeof *c->unm);
    c->ni += res.n_inst;
    c->nm += res.n_mem;
    c->nu += res.n_unm;
    tlm_coll_match_result_free(&res);
}

/* Sorted, the concatenation is the single call's result, byte for byte;
 * then freed. */
static void concat_check(concat *c, const tlm_coll_match_result *ref)
{
    tlm_coll_instances_sort(c->inst, c->ni);
    tlm_coll_members_sort(c->mem, c->nm);
    tlm_coll_unmatched_sort(c->unm, c->nu);
    assert_int_equal(c->ni, ref->n_inst);
    assert_int_equal(c->nm, ref->n_mem);
    assert_int_equal(c->nu, ref->n_unm);
    assert_memory_equal(c->inst, ref->inst, c->ni * sizeof *c->inst);
    assert_memory_equal(c->mem, ref->mem, c->nm * sizeof *c->mem);
    if (c->nu)
        assert_memory_equal(c->unm, ref->unm, c->nu * sizeof *c->unm);
    free(c->inst);
    free(c->mem);
    free(c->unm);
    memset(c, 0, sizeof *c);
}

static void test_partition_independence(void **state)
{
    (void)state;
    tlm_coll_record *r = NULL;
    size_t n = mixed_records(&r);
    tlm_coll_match_result ref;
    assert_int_equal(tlm_coll_match(r, n, NULL, &ref, NULL), TLM_OK);
    assert_true(ref.n_inst > 40);
    tlm_coll_record *part = calloc(n, sizeof *part);
    assert_non_null(part);
    static const int owners[4] = {1, 2, 3, 8};
    for (int oi = 0; oi < 4; oi++) {
        int P = owners[oi];
        concat c;
        memset(&c, 0, sizeof c);
        for (int p = P - 1; p >= 0; p--) {
            /* owner p's share, given in reverse order */
            size_t np = 0;
            for (size_t i = n; i-- > 0;)
                if (tlm_coll_record_owner_key(&r[i]) % (uint64_t)P ==
                    (uint64_t)p)
                    part[np++] = r[i];
            concat_match(&c, part, np);
        }
        concat_check(&c, &ref);
    }
    free(part);
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
        r[n] = tc_mkrec(9, "7", "allreduce", "Double", 3 + c, TC_JOB_R,
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
    concat c;
    memset(&c, 0, sizeof c);
    tlm_coll_record *part = calloc(n, sizeof *part);
    assert_non_null(part);
    for (int p = 0; p < 5; p++) {
        size_t np = 0;
        for (size_t i = 0; i < n; i++)
            if (tlm_coll_record_owner_key(&r[i]) % 5 == (uint64_t)p)
                part[np++] = r[i];
        concat_match(&c, part, np);
    }
    concat_check(&c, &ref);
    free(part);
    free(all);
    tlm_coll_free(NULL, keys);
    tlm_coll_match_result_free(&ref);
    free(r);
}

/* MARK: - allocation failures */

/* Records and their count. */
typedef struct recs {
    const tlm_coll_record *r;
    size_t n;
} recs;

/* Matching and both phases of the alignment over the records. */
static tlm_status match_all(const tlm_alloc *a, const void *ctx)
{
    const tlm_coll_record *r = ((const recs *)ctx)->r;
    size_t n = ((const recs *)ctx)->n;
    tlm_coll_match_opts mo;
    tlm_coll_match_opts_init(&mo);
    mo.alloc = a;
    tlm_coll_match_result res;
    tlm_coll_align_key *keys = NULL;
    tlm_coll_align_shift *sh = NULL;
    size_t nk = 0, nsh = 0;
    tlm_status st = tlm_coll_match(r, n, &mo, &res, NULL);
    if (st == TLM_OK)
        assert_true(res.n_inst > 40);
    tlm_coll_match_result_free(&res); /* zeroed when match failed */
    if (st == TLM_OK)
        st = tlm_coll_align_keys(r, n, a, &keys, &nk, NULL);
    if (st == TLM_OK)
        st = tlm_coll_align(keys, nk, a, &sh, &nsh, NULL);
    tlm_coll_free(a, keys);
    tlm_coll_free(a, sh);
    return st;
}

static void test_alloc_failures(void **state)
{
    (void)state;
    tlm_coll_record *r = NULL;
    size_t n = mixed_records(&r);
    recs in = {r, n};
    assert_true(tc_alloc_torture(match_all, &in) > 5);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_si_vector),
        cmocka_unit_test(test_job_ordinal_clipped),
        cmocka_unit_test(test_uniform_signatures_shifted_window),
        cmocka_unit_test(test_head_and_tail_extension),
        cmocka_unit_test(test_extra_item_unmatched),
        cmocka_unit_test(test_world_group),
        cmocka_unit_test(test_p2p),
        cmocka_unit_test(test_alltoallv_metrics),
        cmocka_unit_test(test_seq_mismatch_and_duplicates),
        cmocka_unit_test(test_partition_independence),
        cmocka_unit_test(test_two_phase_alignment),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
