/*
 * tlm_test_coll.h - helpers shared by the collective modules' unit tests
 * (test_coll_match.c, test_coll_summary.c, test_coll_tl.c,
 * test_coll_clock.c); header only, include it after <cmocka.h>.  Records
 * are built directly ("fake ranks"), as the extractor would fill them.
 *
 *   assert_double_equal(a, b, eps)  |a - b| <= eps, values printed.
 *   tc_mkrec()          one kernel's record of a named-keys trace.
 *   tc_assign_ordinals() the ordinal seq per (match_key, rank).
 *   tc_vector_records() the TraceLens test vector (spec/collectives.md
 *                       3.9): two allreduces on 4 ranks.
 *   tc_job_records()    a 2-node, 8-rank job with a known clock offset, a
 *                       straggler (rank 5) and clipped windows.
 *   tc_job_match()      the job's records (new array) and their match.
 *   tc_alloc_torture()  runs a step with the N-th allocation failing, for
 *                       every N until it succeeds: ENOMEM, nothing leaked.
 */
#ifndef TLM_TEST_COLL_H
#define TLM_TEST_COLL_H

#include "coll_internal.h"
#include "tlm_test_util.h"
#include "tlmpi/tlm_coll.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define TC_UNUSED __attribute__((unused))
#else
#define TC_UNUSED
#endif

/* |a - b| <= eps, with both values printed on failure. */
#define assert_double_equal(a, b, eps)                                    \
    do {                                                                  \
        double a_ = (a), b_ = (b);                                        \
        if (!(fabs(a_ - b_) <= (eps))) {                                  \
            print_error("%s = %.17g, expected %.17g\n", #a, a_, b_);      \
            fail();                                                       \
        }                                                                 \
    } while (0)

static TC_UNUSED tlm_coll_record tc_mkrec(int rank, const char *pg,
                                          const char *cname,
                                          const char *dtype, int64_t nelems,
                                          int gsize, int64_t ts_ns,
                                          int64_t dur_ns)
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
static TC_UNUSED void tc_assign_ordinals(tlm_coll_record *r, size_t n)
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

/* The TraceLens test vector (8 records): allreduce 0 starts at 100, 110,
 * 130, 100 us on ranks 0..3 and lasts 50, 40, 20, 50 us (all end at 150
 * us); allreduce 1 starts at 1000 us everywhere and lasts 30 us.  1024
 * floats on a group of 4. */
static TC_UNUSED size_t tc_vector_records(tlm_coll_record *r)
{
    static const int64_t ts0[4] = {100, 110, 130, 100};
    static const int64_t du0[4] = {50, 40, 20, 50};
    size_t n = 0;
    for (int k = 0; k < 4; k++)
        r[n++] = tc_mkrec(k, "0", "allreduce", "Float", 1024, 4,
                          ts0[k] * 1000, du0[k] * 1000);
    for (int k = 0; k < 4; k++)
        r[n++] = tc_mkrec(k, "0", "allreduce", "Float", 1024, 4,
                          1000 * 1000, 30 * 1000);
    for (size_t i = 0; i < n; i++)
        r[i].event_index = (uint64_t)(i < 4 ? 10 : 20);
    tc_assign_ordinals(r, n);
    return n;
}

#define TC_JOB_R 8
#define TC_JOB_C 40

/* Node 1 (ranks 4..7) has a clock 37 us ahead of node 0. */
static TC_UNUSED const int64_t tc_job_theta[2] = {0, 37000};

/* True arrival of rank k at instance c: around T_c = c ms, rank 5 always
 * last (+ 60 us). */
static TC_UNUSED int64_t tc_job_arrival(int c, int k)
{
    int64_t T = (int64_t)c * 1000000 + (c % 3) * 7000;
    return k == 5 ? T + 60000 : T + ((c * 7 + k * 13) % 11) * 1000;
}

/* Whether rank k's window holds instance c: rank 3 misses the first 3,
 * rank 6 the last 4. */
static TC_UNUSED int tc_job_present(int c, int k)
{
    return !((k == 3 && c < 3) || (k == 6 && c >= TC_JOB_C - 4));
}

/* The job's records into r (TC_JOB_R * TC_JOB_C at most): every rank ends
 * at the last arrival + transfer (20..24 us); two sizes alternate so
 * signatures are not all equal; event_index is the true instance.  With
 * seq_from_trace, seq 500 + c from the trace, else ordinals. */
static TC_UNUSED size_t tc_job_records(tlm_coll_record *r,
                                       int seq_from_trace)
{
    size_t n = 0;
    for (int c = 0; c < TC_JOB_C; c++) {
        int64_t last = 0;
        for (int k = 0; k < TC_JOB_R; k++)
            if (tc_job_arrival(c, k) > last)
                last = tc_job_arrival(c, k);
        int64_t xfer = 20000 + (c % 5) * 1000;
        int64_t ne = (c % 4 == 3) ? 4096 : 1 << 20;
        for (int k = 0; k < TC_JOB_R; k++) {
            if (!tc_job_present(c, k))
                continue;
            int64_t a = tc_job_arrival(c, k);
            tlm_coll_record x =
                tc_mkrec(k, "7", "allreduce", "BFloat16", ne, TC_JOB_R,
                         a + tc_job_theta[k / 4], last + xfer - a);
            x.event_index = (uint64_t)c;
            if (seq_from_trace) {
                x.seq_src = TLM_COLL_SEQ_TRACE;
                x.seq = 500 + c;
            }
            r[n++] = x;
        }
    }
    tc_assign_ordinals(r, n);
    return n;
}

/* The job's records in a new array *r (free it) and their matching with
 * the match options' offsets (NULL: none) into *res; returns how many. */
static TC_UNUSED size_t tc_job_match(tlm_coll_record **r, int seq_from_trace,
                                     const int64_t *offset_ns,
                                     tlm_coll_match_result *res)
{
    *r = calloc(TC_JOB_R * TC_JOB_C, sizeof **r);
    assert_non_null(*r);
    size_t n = tc_job_records(*r, seq_from_trace);
    tlm_coll_match_opts mo;
    tlm_coll_match_opts_init(&mo);
    mo.offset_ns = offset_ns;
    mo.n_offsets = offset_ns ? TC_JOB_R : 0;
    assert_int_equal(tlm_coll_match(*r, n, &mo, res, NULL), TLM_OK);
    return n;
}

/* A step of an allocation-failure test: TLM_OK or TLM_ENOMEM, and
 * everything it allocated released before it returns. */
typedef tlm_status (*tc_alloc_step)(const tlm_alloc *a, const void *ctx);

/* Runs step with the N-th allocation failing for N = 1, 2, ... until it
 * succeeds: it must return ENOMEM and free everything until then.
 * Returns how many runs failed. */
static TC_UNUSED long tc_alloc_torture(tc_alloc_step step,
                                       const void *ctx)
{
    for (long fail_at = 1; fail_at < 100000; fail_at++) {
        tt_fail_alloc fa;
        tt_fail_alloc_init(&fa, fail_at, 0);
        tlm_status st = step(&fa.a, ctx);
        assert_true(st == TLM_OK || st == TLM_ENOMEM);
        assert_int_equal(fa.live, 0);
        if (st == TLM_OK)
            return fail_at - 1;
    }
    fail_msg("never succeeded");
    return -1;
}

#endif /* TLM_TEST_COLL_H */
