/*
 * test_overlap.c - the overlap sweep and summary (src/report/overlap.c,
 * overlap_sum.c; perfreport §4.11): pairs across streams only, never two
 * kernels under the same cpu_op, at least 1 us in common, touching
 * intervals apart (an end before a start at one instant), ties of
 * start, zero-length events and unlinked ones left out, the unknown
 * stream against all, partners in start order, the work bound; the
 * summary's first-seen names, per-name means and the fraction of busy
 * time overlapped.  Every expected value is worked out by hand below.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "overlap.h"

/* uid, name, ts, te, stream (-1: unknown), anc */
static tlm_ovl_in ev(int32_t uid, uint32_t name, double ts, double te,
                     long stream, int32_t anc)
{
    tlm_ovl_in e;
    memset(&e, 0, sizeof e);
    e.uid = uid;
    e.name = name;
    e.ts = ts;
    e.te = te;
    e.has_stream = stream >= 0;
    e.stream = stream >= 0 ? stream : 0;
    e.sweep = 1;
    e.anc = anc;
    return e;
}

static size_t peers(const tlm_ovl *o, int32_t u, int32_t *out)
{
    size_t n;
    const tlm_ovl_pair *p = tlm_ovl_of(o, u, &n);
    for (size_t i = 0; i < n; i++)
        out[i] = p[i].peer;
    return n;
}

/* Streams 7 and 8: 0 [0,10) s7 a=100, 1 [5,20) s8 a=101 (5 us with 0),
 * 2 [10,12) s7 (touches 0: same stream anyway; 2 us with 1),
 * 3 [19.5,30) s7 (0.5 us with 1: under 1 us, no pair),
 * 4 [0,10) s8 under cpu_op 100 like 0: no pair with 0; with 1 same
 * stream: none (and 2 starts as 4 ends). */
static void test_rules(void **state)
{
    (void)state;
    tlm_ovl_in in[] = {ev(0, 1, 0, 10, 7, 100), ev(1, 2, 5, 20, 8, 101),
                       ev(2, 3, 10, 12, 7, 102), ev(3, 4, 19.5, 30, 7, 103),
                       ev(4, 5, 0, 10, 8, 100)};
    tlm_ovl o;
    assert_int_equal(tlm_ovl_build(in, 5, 5, 1000, &o), TLM_OK);
    int32_t p[8];
    assert_int_equal(peers(&o, 0, p), 1);
    assert_int_equal(p[0], 1);
    assert_int_equal(peers(&o, 1, p), 2); /* 0, then 2 (start order) */
    assert_int_equal(p[0], 0);
    assert_int_equal(p[1], 2);
    assert_int_equal(peers(&o, 3, p), 0);
    assert_int_equal(peers(&o, 4, p), 0); /* 0: same cpu_op; 1: stream */
    size_t n;
    const tlm_ovl_pair *q = tlm_ovl_of(&o, 0, &n);
    assert_true(q[0].lo == 5.0 && q[0].hi == 10.0);
    tlm_ovl_free(&o);
}

/* Touching intervals of different streams: [0,10) s1 and [10,20) s2 do
 * not overlap (the end comes first); a third [10,20) s3 starting at the
 * same instant as the second overlaps it (ties of start: both active). */
static void test_touch_and_ties(void **state)
{
    (void)state;
    tlm_ovl_in in[] = {ev(0, 1, 0, 10, 1, -1), ev(2, 3, 10, 20, 3, -1),
                       ev(1, 2, 10, 20, 2, -1)};
    tlm_ovl o;
    assert_int_equal(tlm_ovl_build(in, 3, 3, 1000, &o), TLM_OK);
    int32_t p[4];
    assert_int_equal(peers(&o, 0, p), 0);
    assert_int_equal(peers(&o, 1, p), 1);
    assert_int_equal(p[0], 2);
    assert_int_equal(peers(&o, 2, p), 1);
    assert_int_equal(p[0], 1);
    assert_int_equal(o.npairs, 2);
    tlm_ovl_free(&o);
}

/* Zero-length and unlinked (sweep 0) events take no part; anc -1 on
 * both sides is not "the same cpu_op"; the unknown stream meets every
 * stream, itself included. */
static void test_zero_unlinked_unknown(void **state)
{
    (void)state;
    tlm_ovl_in in[] = {ev(0, 1, 0, 10, 1, -1), ev(1, 2, 5, 5, 2, -1),
                       ev(2, 3, 2, 8, 2, -1), ev(3, 4, 3, 9, -1, -1),
                       ev(4, 5, 4, 9, -1, -1)};
    in[2].sweep = 0;
    tlm_ovl o;
    assert_int_equal(tlm_ovl_build(in, 5, 6, 1000, &o), TLM_OK);
    int32_t p[8];
    assert_int_equal(peers(&o, 1, p), 0);
    assert_int_equal(peers(&o, 2, p), 0);
    assert_int_equal(peers(&o, 0, p), 2); /* 3 then 4 */
    assert_int_equal(p[0], 3);
    assert_int_equal(p[1], 4);
    assert_int_equal(peers(&o, 4, p), 2); /* 0 and 3 (unknown vs unknown) */
    assert_int_equal(p[0], 0);
    assert_int_equal(p[1], 3);
    assert_int_equal(peers(&o, 5, p), 0); /* a uid not given */
    tlm_ovl_free(&o);
}

/* The bound on comparisons: 3 events of 3 streams all overlapping need
 * 0 + 1 + 2 = 3 comparisons. */
static void test_work_bound(void **state)
{
    (void)state;
    tlm_ovl_in in[] = {ev(0, 1, 0, 10, 1, -1), ev(1, 2, 1, 10, 2, -1),
                       ev(2, 3, 2, 10, 3, -1)};
    tlm_ovl o;
    assert_int_equal(tlm_ovl_build(in, 3, 3, 2, &o), TLM_ELIMIT);
    assert_int_equal(tlm_ovl_build(in, 3, 3, 3, &o), TLM_OK);
    assert_int_equal(o.npairs, 6);
    tlm_ovl_free(&o);
    in[1].uid = 9;
    assert_int_equal(tlm_ovl_build(in, 3, 3, 3, &o), TLM_EINVAL);
}

/* Many kernels of one stream stacked on each other cost no comparison
 * (same stream), however many. */
static void test_same_stream_free(void **state)
{
    (void)state;
    enum { N = 2000 };
    tlm_ovl_in *in = calloc(N, sizeof *in);
    assert_non_null(in);
    for (int i = 0; i < N; i++)
        in[i] = ev(i, 1, (double)i * 0.001, 1000.0, 5, -1);
    tlm_ovl o;
    assert_int_equal(tlm_ovl_build(in, N, N, 10, &o), TLM_OK);
    assert_int_equal(o.npairs, 0);
    tlm_ovl_free(&o);
    free(in);
}

/* Summary of an op's kernels A [0,10) s1 and B [20,30) s1 (busy 20):
 * X [5,25) s2 overlaps A by 5 ([5,10)) and B by 5 ([20,25));
 * Y [8,9.5) s3 overlaps A by 1.5 ([8,9.5), inside [5,10)).
 * names, first seen: A's partners X, Y; then B's X again.
 * X: 2 pairs, dur 20 each, fractions 5/20 and 5/20 -> 0.25;
 * Y: 1 pair, dur 1.5, fraction 1.0.  overlapped = |[5,10) u [20,25)| =
 * 10 of busy 20 -> 0.5. */
static void test_summary(void **state)
{
    (void)state;
    tlm_ovl_in in[] = {ev(0, 10, 0, 10, 1, 1), ev(1, 11, 20, 30, 1, 1),
                       ev(2, 20, 5, 25, 2, 2), ev(3, 21, 8, 9.5, 3, 3)};
    tlm_ovl o;
    assert_int_equal(tlm_ovl_build(in, 4, 4, 1000, &o), TLM_OK);
    tlm_ovl_sum s;
    memset(&s, 0, sizeof s);
    int32_t k[] = {0, 1};
    assert_int_equal(tlm_ovl_summarize(&o, k, 2, &s), TLM_OK);
    assert_int_equal(s.nnames, 2);
    assert_int_equal(s.names[0].name, 20);
    assert_int_equal(s.names[0].count, 2);
    assert_true(fabs(s.names[0].dur_sum / 2 - 20.0) < 1e-12);
    assert_true(fabs(s.names[0].frac_sum / 2 - 0.25) < 1e-12);
    assert_int_equal(s.names[0].stream, 2);
    assert_int_equal(s.names[1].name, 21);
    assert_true(fabs(s.names[1].frac_sum - 1.0) < 1e-12);
    assert_true(s.pct == 0.5);
    /* a second summary forgets the first one's names: X alone; its
     * partners in start order: A (found as X starts), Y (X and Y share
     * [8,9.5) too, other streams), B */
    int32_t kx[] = {2};
    assert_int_equal(tlm_ovl_summarize(&o, kx, 1, &s), TLM_OK);
    assert_int_equal(s.nnames, 3);
    assert_int_equal(s.names[0].name, 10);
    assert_int_equal(s.names[1].name, 21);
    assert_int_equal(s.names[2].name, 11);
    assert_true(s.pct == 0.5); /* [5,10) u [20,25): 10 of 20 */
    /* no partners: pct 0; a kernel never busy (unknown uid): NaN */
    int32_t kn[] = {7};
    assert_int_equal(tlm_ovl_summarize(&o, kn, 1, &s), TLM_OK);
    assert_int_equal(s.nnames, 0);
    assert_true(isnan(s.pct));
    tlm_ovl_sum_free(&s);
    tlm_ovl_free(&o);
}

/* pct is rounded to two decimals: own [0,3), partner [1,2) of another
 * stream -> 1/3 -> 0.33. */
static void test_summary_round(void **state)
{
    (void)state;
    tlm_ovl_in in[] = {ev(0, 1, 0, 3, 1, 1), ev(1, 2, 1, 2, 2, 2)};
    tlm_ovl o;
    assert_int_equal(tlm_ovl_build(in, 2, 2, 1000, &o), TLM_OK);
    tlm_ovl_sum s;
    memset(&s, 0, sizeof s);
    int32_t k[] = {0};
    assert_int_equal(tlm_ovl_summarize(&o, k, 1, &s), TLM_OK);
    assert_true(s.pct == 0.33);
    int32_t k1[] = {1};
    assert_int_equal(tlm_ovl_summarize(&o, k1, 1, &s), TLM_OK);
    assert_true(s.pct == 1.0);
    tlm_ovl_sum_free(&s);
    tlm_ovl_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_touch_and_ties),
        cmocka_unit_test(test_zero_unlinked_unknown),
        cmocka_unit_test(test_work_bound),
        cmocka_unit_test(test_same_stream_free),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_summary_round),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
