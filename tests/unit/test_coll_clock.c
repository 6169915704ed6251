/*
 * test_coll_clock.c - clock-offset estimation from collective end times.
 *
 * Member arrays are built directly ("fake ranks"): a true schedule where
 * every member of an instance ends at the same true time, seen through
 * per-node clock offsets, with a straggling kernel as outlier; then the
 * causality clamp, anchoring, components, ranks without data, and input
 * order independence; the offsets of a matched 2-node job (records from
 * tlm_test_coll.h); allocation failures; offsets from fewer than 3
 * samples not applied.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlm_test_coll.h"
#include "tlmpi/tlm_coll.h"

static tlm_coll_member mkmem(uint64_t key, int64_t seq, int rank,
                             int64_t start, int64_t end)
{
    tlm_coll_member m;
    memset(&m, 0, sizeof m);
    m.match_key = key;
    m.seq = seq;
    m.trace_rank = rank;
    m.start_ns = start;
    m.end_ns = end;
    m.dur_ns = end - start;
    m.coll = TLM_COLL_ALLREDUCE;
    m.bytes = 1 << 20;
    m.send_bytes = m.recv_bytes = -1;
    m.n_kernels = 1;
    return m;
}

/* 4 nodes x 2 ranks, offsets per node; instance 7 has a rank whose end is
 * 5 ms late (an outlier the medians ignore). */
static const int64_t node_off[4] = {0, -120000, 45000, 3000000};

static size_t build(tlm_coll_member *m, int outlier)
{
    size_t n = 0;
    for (int c = 0; c < 30; c++) {
        int64_t T = (int64_t)c * 10000000;
        for (int r = 0; r < 8; r++) {
            int64_t s = T + ((c * 5 + r * 3) % 7) * 10000;
            int64_t e = T + 200000;
            if (outlier && c == 7 && r == 3)
                e += 5000000;
            int64_t o = node_off[r / 2];
            m[n++] = mkmem(42, c, r, s + o, e + o);
        }
    }
    return n;
}

static void test_exact_offsets_per_node(void **state)
{
    (void)state;
    tlm_coll_member m[300];
    size_t n = build(m, 1);
    int32_t dom[8] = {0, 0, 1, 1, 2, 2, 3, 3};
    tlm_coll_clock_opts o;
    tlm_coll_clock_opts_init(&o);
    o.domain_of_rank = dom;
    o.n_domain_of_rank = 8;
    tlm_coll_clock *clk = NULL;
    size_t nc = 0;
    assert_int_equal(tlm_coll_clock_estimate(m, n, &o, &clk, &nc, NULL),
                     TLM_OK);
    assert_int_equal(nc, 8);
    for (int r = 0; r < 8; r++) {
        assert_int_equal(clk[r].offset_ns, node_off[r / 2]);
        assert_int_equal(clk[r].domain, r / 2);
        assert_int_equal(clk[r].reference_rank, 0);
        assert_int_equal(clk[r].n_samples, 30);
        assert_int_equal(clk[r].flags & (TLM_COLL_CLOCK_CLAMPED |
                                         TLM_COLL_CLOCK_INFEASIBLE |
                                         TLM_COLL_CLOCK_NO_DATA),
                         0);
        assert_true(clk[r].lo_ns <= clk[r].offset_ns);
        assert_true(clk[r].offset_ns <= clk[r].hi_ns);
        assert_int_equal(clk[r].n_causality_violations, 0);
    }
    /* the anchor rank; rank 1 shares its clock (offset 0) */
    assert_true(clk[0].flags & TLM_COLL_CLOCK_REFERENCE);
    assert_false(clk[1].flags & TLM_COLL_CLOCK_REFERENCE);
    /* node 3 is 3 ms off against skews of ~3 ms: large; node 2's 45 us
     * against raw skews of ~3 ms is not */
    assert_true(clk[6].flags & TLM_COLL_CLOCK_LARGE);
    assert_false(clk[4].flags & TLM_COLL_CLOCK_LARGE);
    int64_t off[8];
    tlm_coll_clock_offsets(clk, 8, off);
    assert_int_equal(off[6], 3000000);
    tlm_coll_free(NULL, clk);

    /* per rank (no domains) gives the same offsets here */
    o.domain_of_rank = NULL;
    o.n_domain_of_rank = 0;
    assert_int_equal(tlm_coll_clock_estimate(m, n, &o, &clk, &nc, NULL),
                     TLM_OK);
    for (int r = 0; r < 8; r++) {
        assert_int_equal(clk[r].offset_ns, node_off[r / 2]);
        assert_int_equal(clk[r].domain, r);
    }
    tlm_coll_free(NULL, clk);
}

/* Offsets of +-10^10 us (10^13 ns), a clock 2.5 * 10^9 us behind (every
 * time negative), times near +-2^53 ns and near the ends of int64: the
 * estimate and the corrected metrics are exact (issue 20). */
static void test_far_offsets(void **state)
{
    (void)state;
    static const int64_t far[8] = {
        0, 10000000000000LL, -10000000000000LL,
        ((int64_t)1 << 53) - 2000000000000LL, -2500000000000LL,
        -((int64_t)1 << 53) - 2000000000000LL,
        INT64_MAX / 2, INT64_MIN / 2};
    tlm_coll_member m[300], sh[300];
    size_t n = build(m, 1);
    for (size_t i = 0; i < n; i++) {
        int64_t f = far[m[i].trace_rank];
        sh[i] = m[i];
        sh[i].start_ns += f;
        sh[i].end_ns += f;
    }
    int32_t dom[8] = {0, 0, 1, 1, 2, 2, 3, 3};
    tlm_coll_clock_opts o;
    tlm_coll_clock_opts_init(&o);
    tlm_coll_clock *c0 = NULL, *c1 = NULL;
    size_t n0 = 0, n1 = 0;
    /* each rank its own domain: every offset moves by its shift */
    assert_int_equal(tlm_coll_clock_estimate(m, n, &o, &c0, &n0, NULL),
                     TLM_OK);
    assert_int_equal(tlm_coll_clock_estimate(sh, n, &o, &c1, &n1, NULL),
                     TLM_OK);
    assert_int_equal(n0, 8);
    assert_int_equal(n1, 8);
    for (int r = 0; r < 8; r++) {
        assert_true(c1[r].offset_ns == c0[r].offset_ns + far[r]);
        assert_true(c1[r].mad_ns == c0[r].mad_ns);
        assert_true(c1[r].n_causality_violations ==
                    c0[r].n_causality_violations);
        assert_true(c1[r].flags == c0[r].flags ||
                    (c1[r].flags & ~(uint32_t)TLM_COLL_CLOCK_LARGE) ==
                        (c0[r].flags & ~(uint32_t)TLM_COLL_CLOCK_LARGE));
    }
    /* the corrected metrics of the matched members do not move */
    tlm_coll_match_result r0, r1;
    tlm_coll_instance in;
    memset(&in, 0, sizeof in);
    int64_t off0[8], off1[8];
    tlm_coll_clock_offsets(c0, 8, off0);
    tlm_coll_clock_offsets(c1, 8, off1);
    for (int pass = 0; pass < 2; pass++) {
        tlm_coll_member *mm = pass ? sh : m;
        tlm_coll_match_result *res = pass ? &r1 : &r0;
        memset(res, 0, sizeof *res);
        res->inst = calloc(30, sizeof *res->inst);
        res->mem = malloc(n * sizeof *res->mem);
        assert_non_null(res->inst);
        assert_non_null(res->mem);
        memcpy(res->mem, mm, n * sizeof *mm);
        tlm_coll_members_sort(res->mem, n);
        res->n_mem = n;
        for (int c = 0; c < 30; c++) {
            res->inst[c].match_key = 42;
            res->inst[c].seq = c;
            res->inst[c].coll = TLM_COLL_ALLREDUCE;
            res->inst[c].group_size = 8;
            res->inst[c].n_members = 8;
            res->inst[c].bytes = 1 << 20;
        }
        res->n_inst = 30;
        tlm_coll_metrics_apply_offsets(res, pass ? off1 : off0, 8, 0, 1000);
    }
    for (int c = 0; c < 30; c++) {
        const tlm_coll_instance *a = &r0.inst[c], *b = &r1.inst[c];
        assert_true(a->comm_latency_ns == b->comm_latency_ns);
        assert_true(a->start_skew_corr_ns == b->start_skew_corr_ns);
        assert_true(a->end_skew_corr_ns == b->end_skew_corr_ns);
        assert_true(a->wait_sum_corr_ns == b->wait_sum_corr_ns);
        assert_true(a->wall_corr_ns == b->wall_corr_ns);
        assert_int_equal(a->last_rank_corr, b->last_rank_corr);
        assert_true(a->flags == b->flags);
    }
    for (int pass = 0; pass < 2; pass++) {
        free(pass ? r1.inst : r0.inst);
        free(pass ? r1.mem : r0.mem);
    }
    tlm_coll_free(NULL, c0);
    tlm_coll_free(NULL, c1);

    /* per node: the two ranks of a node share the shift of its first */
    for (size_t i = 0; i < n; i++) {
        int64_t f = far[(m[i].trace_rank / 2) * 2];
        sh[i] = m[i];
        sh[i].start_ns += f;
        sh[i].end_ns += f;
    }
    o.domain_of_rank = dom;
    o.n_domain_of_rank = 8;
    assert_int_equal(tlm_coll_clock_estimate(sh, n, &o, &c1, &n1, NULL),
                     TLM_OK);
    for (int r = 0; r < 8; r++)
        assert_true(c1[r].offset_ns == node_off[r / 2] + far[(r / 2) * 2]);
    tlm_coll_free(NULL, c1);
}

static void test_order_independent(void **state)
{
    (void)state;
    tlm_coll_member m[300], sh[300];
    size_t n = build(m, 1);
    for (size_t i = 0; i < n; i++)
        sh[i] = m[(i * 97) % n]; /* 97 coprime with 240 */
    tlm_coll_clock *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    assert_int_equal(tlm_coll_clock_estimate(m, n, NULL, &a, &na, NULL),
                     TLM_OK);
    assert_int_equal(tlm_coll_clock_estimate(sh, n, NULL, &b, &nb, NULL),
                     TLM_OK);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na * sizeof *a);
    tlm_coll_free(NULL, a);
    tlm_coll_free(NULL, b);
}

/* Ends that say +100 us, but in one instance rank 1 finished only 45 us
 * after rank 0 started: causality caps the offset at 45 us + tol. */
static void test_causality_clamp(void **state)
{
    (void)state;
    tlm_coll_member m[16];
    size_t n = 0;
    for (int c = 0; c < 4; c++) {
        int64_t T = (int64_t)c * 1000000;
        m[n++] = mkmem(9, c, 0, T, T + 200000);
        m[n++] = mkmem(9, c, 1, T + 10000, T + 300000);
    }
    /* instance 4: rank 0 starts at 5 us, rank 1 ends at 50 us */
    m[n++] = mkmem(9, 4, 0, 5005000, 5200000);
    m[n++] = mkmem(9, 4, 1, 5000000, 5050000);
    tlm_coll_clock_opts o;
    tlm_coll_clock_opts_init(&o);
    tlm_coll_clock *clk = NULL;
    size_t nc = 0;
    assert_int_equal(tlm_coll_clock_estimate(m, n, &o, &clk, &nc, NULL),
                     TLM_OK);
    assert_int_equal(nc, 2);
    assert_int_equal(clk[0].offset_ns, 0);
    assert_true(clk[1].flags & TLM_COLL_CLOCK_CLAMPED);
    assert_int_equal(clk[1].end_estimate_ns, 100000);
    assert_int_equal(clk[1].hi_ns, 45000 + 1000);
    assert_int_equal(clk[1].offset_ns, 46000);
    assert_int_equal(clk[1].n_causality_violations, 0);
    tlm_coll_free(NULL, clk);
}

/* Two groups that share no rank are separate components, each anchored
 * at its lowest rank; a rank without usable data gets offset 0 and
 * NO_DATA; the reference rank can be chosen. */
static void test_components_and_reference(void **state)
{
    (void)state;
    tlm_coll_member m[64];
    size_t n = 0;
    for (int c = 0; c < 5; c++) {
        int64_t T = (int64_t)c * 1000000;
        /* group A: ranks 0, 1 (rank 1 +7 us) */
        m[n++] = mkmem(1, c, 0, T, T + 50000);
        m[n++] = mkmem(1, c, 1, T + 7000, T + 57000);
        /* group B: ranks 2, 3 (rank 3 -9 us) */
        m[n++] = mkmem(2, c, 2, T, T + 40000);
        m[n++] = mkmem(2, c, 3, T - 9000, T + 31000);
    }
    /* rank 4: only a p2p and a lone member */
    m[n] = mkmem(3, 0, 4, 0, 100);
    m[n++].coll = TLM_COLL_SEND;
    m[n++] = mkmem(4, 0, 4, 0, 100);
    tlm_coll_clock_opts o;
    tlm_coll_clock_opts_init(&o);
    o.n_ranks = 6;
    tlm_coll_clock *clk = NULL;
    size_t nc = 0;
    assert_int_equal(tlm_coll_clock_estimate(m, n, &o, &clk, &nc, NULL),
                     TLM_OK);
    assert_int_equal(nc, 6);
    assert_int_equal(clk[1].offset_ns, 7000);
    assert_int_equal(clk[1].reference_rank, 0);
    assert_int_equal(clk[3].offset_ns, -9000);
    assert_int_equal(clk[3].reference_rank, 2);
    assert_true(clk[2].flags & TLM_COLL_CLOCK_REFERENCE);
    assert_true(clk[4].flags & TLM_COLL_CLOCK_NO_DATA);
    assert_int_equal(clk[4].offset_ns, 0);
    assert_true(clk[5].flags & TLM_COLL_CLOCK_NO_DATA);
    tlm_coll_free(NULL, clk);

    o.reference_rank = 3;
    assert_int_equal(tlm_coll_clock_estimate(m, n, &o, &clk, &nc, NULL),
                     TLM_OK);
    assert_int_equal(clk[2].offset_ns, 9000);
    assert_int_equal(clk[3].offset_ns, 0);
    assert_int_equal(clk[2].reference_rank, 3);
    assert_int_equal(clk[1].offset_ns, 7000);
    tlm_coll_free(NULL, clk);

    /* min_bytes leaves everything out */
    o.min_bytes = (int64_t)1 << 40;
    assert_int_equal(tlm_coll_clock_estimate(m, n, &o, &clk, &nc, NULL),
                     TLM_OK);
    for (int r = 0; r < 6; r++)
        assert_true(clk[r].flags & TLM_COLL_CLOCK_NO_DATA);
    tlm_coll_free(NULL, clk);

    assert_int_equal(tlm_coll_clock_estimate(NULL, 3, &o, &clk, &nc, NULL),
                     TLM_EINVAL);
}

/* Two nodes of 4 ranks, node 1's clock +150 us.  Most instances are
 * inside one node (TP pairs {0,1} {2,3} {4,5} {6,7}, 40 each, their own
 * arrival skews); only 6 span both nodes (8 ranks, one late rank each).
 * An instance inside a node carries no information about the offset
 * between nodes, so the 6 must give exactly 150 us, with per-node domains
 * and with a domain per rank alike, whatever the order of the input. */
static size_t build_tp(tlm_coll_member *m)
{
    size_t n = 0;
    const int64_t off1 = 150000;
    for (int c = 0; c < 40; c++)
        for (int g = 0; g < 4; g++) {
            int64_t T = (int64_t)c * 3000000 + g * 1000;
            int64_t o = g >= 2 ? off1 : 0;
            int64_t late = ((c + g) % 3) * 7000;
            int64_t e = T + 60000 + late;
            m[n++] = mkmem(100 + (uint64_t)g, c, 2 * g, T + o, e + o);
            m[n++] = mkmem(100 + (uint64_t)g, c, 2 * g + 1, T + late + o,
                           e + o);
        }
    for (int c = 0; c < 6; c++) {
        int64_t T = 200000000 + (int64_t)c * 5000000;
        for (int r = 0; r < 8; r++) {
            int64_t o = r >= 4 ? off1 : 0;
            int64_t s = T + (r == (c + 5) % 8 ? 90000 : r * 1000);
            m[n++] = mkmem(7, c, r, s + o, T + 150000 + o);
        }
    }
    return n;
}

static void test_within_node_instances(void **state)
{
    (void)state;
    tlm_coll_member m[400], sh[400];
    size_t n = build_tp(m);
    assert_int_equal(n, 40 * 8 + 6 * 8);
    for (size_t i = 0; i < n; i++)
        sh[i] = m[(i * 101) % n]; /* 101 coprime with 368 */
    int32_t dom[8] = {0, 0, 0, 0, 1, 1, 1, 1};
    tlm_coll_clock_opts o;
    tlm_coll_clock_opts_init(&o);
    for (int pass = 0; pass < 2; pass++) {
        o.domain_of_rank = pass ? NULL : dom;
        o.n_domain_of_rank = pass ? 0 : 8;
        tlm_coll_clock *a = NULL, *b = NULL;
        size_t na = 0, nb = 0;
        assert_int_equal(tlm_coll_clock_estimate(m, n, &o, &a, &na, NULL),
                         TLM_OK);
        assert_int_equal(tlm_coll_clock_estimate(sh, n, &o, &b, &nb, NULL),
                         TLM_OK);
        assert_int_equal(na, 8);
        assert_int_equal(nb, 8);
        assert_memory_equal(a, b, na * sizeof *a);
        for (int r = 0; r < 8; r++) {
            assert_int_equal(a[r].offset_ns, r >= 4 ? 150000 : 0);
            assert_int_equal(a[r].end_estimate_ns, r >= 4 ? 150000 : 0);
            assert_int_equal(a[r].reference_rank, 0);
            assert_int_equal(a[r].flags & (TLM_COLL_CLOCK_CLAMPED |
                                           TLM_COLL_CLOCK_INFEASIBLE |
                                           TLM_COLL_CLOCK_NO_DATA),
                             0);
            assert_int_equal(a[r].n_causality_violations, 0);
            assert_int_equal(a[r].n_samples, 46);
        }
        /* 150 us against raw skews of a few us inside the node pairs */
        assert_true(a[4].flags & TLM_COLL_CLOCK_LARGE);
        tlm_coll_free(NULL, a);
        tlm_coll_free(NULL, b);
    }
}

/* Noise larger than the offset: flagged NOISY. */
static void test_noisy(void **state)
{
    (void)state;
    tlm_coll_member m[64];
    size_t n = 0;
    static const int64_t jit[10] = {0,     30000, -25000, 41000, -33000,
                                    12000, -47000, 38000, -29000, 26000};
    for (int c = 0; c < 10; c++) {
        int64_t T = (int64_t)c * 1000000;
        m[n++] = mkmem(5, c, 0, T, T + 400000);
        m[n++] = mkmem(5, c, 1, T + 1000, T + 400000 + 2000 + jit[c]);
    }
    tlm_coll_clock *clk = NULL;
    size_t nc = 0;
    assert_int_equal(tlm_coll_clock_estimate(m, n, NULL, &clk, &nc, NULL),
                     TLM_OK);
    assert_true(clk[1].flags & TLM_COLL_CLOCK_NOISY);
    assert_true(clk[1].offset_ns != 0);
    tlm_coll_free(NULL, clk);
}

/* The members of a matched 2-node job, clock domains = nodes: node 1's
 * 37 us exactly, against ~90 us median raw skews "large" at ratio 0.3. */
static void test_matched_job(void **state)
{
    (void)state;
    tlm_coll_record *r = NULL;
    tlm_coll_match_result res;
    tc_job_match(&r, 0, NULL, &res);
    int32_t dom[TC_JOB_R] = {0, 0, 0, 0, 1, 1, 1, 1};
    tlm_coll_clock_opts co;
    tlm_coll_clock_opts_init(&co);
    co.domain_of_rank = dom;
    co.n_domain_of_rank = TC_JOB_R;
    co.large_ratio = 0.3;
    tlm_coll_clock *clk = NULL;
    size_t nclk = 0;
    assert_int_equal(tlm_coll_clock_estimate(res.mem, res.n_mem, &co, &clk,
                                             &nclk, NULL),
                     TLM_OK);
    assert_int_equal(nclk, TC_JOB_R);
    int64_t off[TC_JOB_R];
    for (int k = 0; k < TC_JOB_R; k++) {
        assert_int_equal(clk[k].offset_ns, tc_job_theta[k / 4]);
        assert_int_equal(clk[k].reference_rank, 0);
        assert_int_equal(clk[k].n_causality_violations, 0);
        assert_int_equal(clk[k].mad_ns, 0);
    }
    assert_true(clk[0].flags & TLM_COLL_CLOCK_REFERENCE);
    assert_false(clk[1].flags & TLM_COLL_CLOCK_REFERENCE);
    assert_true(clk[4].flags & TLM_COLL_CLOCK_LARGE);
    assert_false(clk[0].flags & TLM_COLL_CLOCK_LARGE);
    tlm_coll_clock_offsets(clk, nclk, off);
    for (int k = 0; k < TC_JOB_R; k++)
        assert_int_equal(off[k], tc_job_theta[k / 4]);
    /* the same rows from the members' fit points (the driver's rank 0),
     * whatever their order */
    tlm_coll_clock_pt *pts = calloc(res.n_mem + 1, sizeof *pts);
    assert_non_null(pts);
    tlm_coll_clock_pts_of(res.mem, res.n_mem, pts);
    for (size_t i = 0; i < res.n_mem / 2; i++) {
        tlm_coll_clock_pt t = pts[i];
        pts[i] = pts[res.n_mem - 1 - i];
        pts[res.n_mem - 1 - i] = t;
    }
    tlm_coll_clock *c2 = NULL;
    size_t n2 = 0;
    assert_int_equal(tlm_coll_clock_estimate_pts(pts, res.n_mem, &co, &c2,
                                                 &n2, NULL),
                     TLM_OK);
    assert_int_equal(n2, nclk);
    assert_memory_equal(c2, clk, nclk * sizeof *clk);
    tlm_coll_free(NULL, c2);
    assert_int_equal(tlm_coll_clock_estimate_pts(NULL, 3, &co, &c2, &n2,
                                                 NULL),
                     TLM_EINVAL);
    assert_null(c2);
    free(pts);
    tlm_coll_free(NULL, clk);
    tlm_coll_match_result_free(&res);
    free(r);
}

/* The estimate over the 240 members of build(). */
static tlm_status clock_of(const tlm_alloc *a, const void *ctx)
{
    const tlm_coll_member *m = ctx;
    tlm_coll_clock_opts co;
    tlm_coll_clock_opts_init(&co);
    co.alloc = a;
    tlm_coll_clock *clk = NULL;
    size_t nclk = 0;
    tlm_status st = tlm_coll_clock_estimate(m, 240, &co, &clk, &nclk, NULL);
    if (st == TLM_OK)
        assert_int_equal(nclk, 8);
    tlm_coll_free(a, clk);
    return st;
}

static void test_alloc_failures(void **state)
{
    (void)state;
    tlm_coll_member m[240];
    assert_int_equal(build(m, 1), 240);
    assert_true(tc_alloc_torture(clock_of, m) >= 1);
}

/* The evidence rule: ranks 0 and 1 (rank 1 +7 us) share 6 instances;
 * rank 2, whose clock is 621 ms behind, joins only the first n2 of them.
 * With fewer than 3 samples its offset is not applied (0, FEW_SAMPLES, the
 * estimate kept in end_estimate_ns) and the others' offsets stay exact;
 * with 3 it is applied; min_samples 1 applies one sample; a component's
 * reference is never flagged; with domains the count is the domain's. */
static size_t build_few(tlm_coll_member *m, int n2)
{
    size_t n = 0;
    const int64_t off2 = -621000000;
    for (int c = 0; c < 6; c++) {
        int64_t T = (int64_t)c * 1000000;
        m[n++] = mkmem(5, c, 0, T, T + 50000);
        m[n++] = mkmem(5, c, 1, T + 7000 + 3000, T + 57000);
        if (c < n2)
            m[n++] = mkmem(5, c, 2, T + 2000 + off2, T + 50000 + off2);
    }
    return n;
}

static void test_few_samples(void **state)
{
    (void)state;
    tlm_coll_member m[32];
    tlm_coll_clock_opts o;
    tlm_coll_clock_opts_init(&o);
    assert_int_equal(o.min_samples, 3);
    tlm_coll_clock *clk = NULL;
    size_t nc = 0;
    for (int n2 = 1; n2 <= 3; n2++) {
        size_t n = build_few(m, n2);
        assert_int_equal(tlm_coll_clock_estimate(m, n, &o, &clk, &nc, NULL),
                         TLM_OK);
        assert_int_equal(nc, 3);
        assert_int_equal(clk[1].offset_ns, 7000);
        assert_int_equal(clk[1].n_offset_samples, 6);
        assert_false(clk[1].flags & TLM_COLL_CLOCK_FEW_SAMPLES);
        assert_false(clk[0].flags & TLM_COLL_CLOCK_FEW_SAMPLES);
        assert_int_equal(clk[2].n_offset_samples, n2);
        if (n2 < 3) {
            assert_int_equal(clk[2].offset_ns, 0);
            assert_true(clk[2].flags & TLM_COLL_CLOCK_FEW_SAMPLES);
            assert_int_equal(clk[2].end_estimate_ns, -621000000);
        } else {
            assert_int_equal(clk[2].offset_ns, -621000000);
            assert_false(clk[2].flags & TLM_COLL_CLOCK_FEW_SAMPLES);
        }
        int64_t off[3];
        tlm_coll_clock_offsets(clk, 3, off);
        assert_int_equal(off[2], n2 < 3 ? 0 : -621000000);
        tlm_coll_free(NULL, clk);
    }
    /* one sample, applied when asked */
    size_t n = build_few(m, 1);
    o.min_samples = 1;
    assert_int_equal(tlm_coll_clock_estimate(m, n, &o, &clk, &nc, NULL),
                     TLM_OK);
    assert_int_equal(clk[2].offset_ns, -621000000);
    assert_false(clk[2].flags & TLM_COLL_CLOCK_FEW_SAMPLES);
    tlm_coll_free(NULL, clk);
    /* two ranks, two instances: the reference keeps its 0 unflagged */
    o.min_samples = 3;
    n = 0;
    for (int c = 0; c < 2; c++) {
        m[n++] = mkmem(6, c, 0, c * 1000000, c * 1000000 + 40000);
        m[n++] = mkmem(6, c, 1, c * 1000000 + 5000, c * 1000000 + 45000);
    }
    assert_int_equal(tlm_coll_clock_estimate(m, n, &o, &clk, &nc, NULL),
                     TLM_OK);
    assert_true(clk[0].flags & TLM_COLL_CLOCK_REFERENCE);
    assert_false(clk[0].flags & TLM_COLL_CLOCK_FEW_SAMPLES);
    assert_true(clk[1].flags & TLM_COLL_CLOCK_FEW_SAMPLES);
    assert_int_equal(clk[1].offset_ns, 0);
    assert_int_equal(clk[1].end_estimate_ns, 5000);
    tlm_coll_free(NULL, clk);
    /* domains {0, 1} and {2}: rank 2's domain has n2 = 2 samples */
    n = build_few(m, 2);
    int32_t dom[3] = {0, 0, 1};
    o.domain_of_rank = dom;
    o.n_domain_of_rank = 3;
    assert_int_equal(tlm_coll_clock_estimate(m, n, &o, &clk, &nc, NULL),
                     TLM_OK);
    assert_int_equal(clk[2].n_offset_samples, 2);
    assert_true(clk[2].flags & TLM_COLL_CLOCK_FEW_SAMPLES);
    assert_int_equal(clk[2].offset_ns, 0);
    assert_int_equal(clk[1].offset_ns, 0);
    tlm_coll_free(NULL, clk);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_offsets_per_node),
        cmocka_unit_test(test_order_independent),
        cmocka_unit_test(test_far_offsets),
        cmocka_unit_test(test_causality_clamp),
        cmocka_unit_test(test_components_and_reference),
        cmocka_unit_test(test_noisy),
        cmocka_unit_test(test_within_node_instances),
        cmocka_unit_test(test_matched_job),
        cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_few_samples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
