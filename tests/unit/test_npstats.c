/*
 * test_npstats.c - numpy's and pandas' statistics (src/util/npstats.c) bit
 * for bit: np.sum's pairwise summation, np.std, np.median (the sorting
 * path below 32 values and the selection path above), round(x, 2),
 * pandas' Kahan group sum and Welford group std, the sample std, and the
 * summary statistics of a column with NaNs.
 *
 * Expected values are the reprs printed by numpy 1.24 and pandas 1.5
 * (/usr/bin/python3) for the same inputs; inputs are computed the same
 * way in C and in Python (1.0 / (i + 1) and the like are exact IEEE
 * operations), so the results must agree to the last bit.
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

#include "npstats.h"

static double *harmonic(size_t n)
{
    double *a = malloc(n * sizeof *a);
    assert_non_null(a);
    for (size_t i = 0; i < n; i++)
        a[i] = 1.0 / (double)(i + 1);
    return a;
}

static void test_numpy(void **state)
{
    (void)state;
    /* expected values printed by numpy 1.24 (repr) */
    static const struct {
        size_t n;
        double sum, std, median;
    } cases[] = {{5, 1.81, 0.32649961715138354, 0.20400000000000001},
                 {77, 49.12600000000001, 0.3791178756486743,
                  0.6380000000000001},
                 {200, 138.70000000000002, 0.3796014357190974, 0.6965},
                 {1001, 1101.1, 0.47423622805517507, 1.1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t n = cases[c].n;
        double *a = malloc(n * sizeof *a);
        assert_non_null(a);
        for (size_t i = 0; i < n; i++)
            a[i] = (double)((i * 7) % 13) * 0.1 + (double)i * 1e-3;
        double s = tlm_np_sum(a, n);
        assert_true(s == cases[c].sum);
        assert_true(tlm_np_std(a, n, s / (double)n) == cases[c].std);
        assert_true(tlm_np_median(a, n) == cases[c].median);
        free(a);
    }
    assert_true(tlm_np_round2(2.675) == 2.68); /* rint(267.49999..) */
    assert_true(tlm_np_round2(0.125) == 0.12); /* half to even */
    assert_true(tlm_np_round2(83.65627083333332) == 83.66);
    double one[1] = {3.0};
    assert_true(tlm_sample_std(one, 1) != tlm_sample_std(one, 1)); /* NaN */
}

/* np.sum and np.std up to numpy's block of 8192 values; a million values:
 * Kahan (pandas) and Welford (pandas) to the last bit, and a plain loop,
 * which differs from both. */
static void test_sums_of_a_million(void **state)
{
    (void)state;
    size_t n = 1000000;
    double *a = harmonic(n);
    double s = tlm_np_sum(a, 8192);
    assert_true(s == 9.58819004609531);                   /* np.sum */
    assert_true(tlm_np_std(a, 8192, s / 8192.0) ==
                0.014121359746542583);                    /* np.std */
    double naive = 0.0;
    for (size_t i = 0; i < n; i++)
        naive += a[i];
    assert_true(naive == 14.392726722864989); /* sum(list) in Python */
    assert_true(tlm_pd_sum(a, n) == 14.392726722865724);  /* groupby sum */
    assert_true(tlm_pd_std(a, n) == 0.0012824693216579282); /* groupby std */
    /* Past 8192 values numpy adds the pairwise sums of consecutive blocks
     * of 8192 (its ufunc buffer) one after the other: np.sum gives
     * 14.392726722865735 and np.std 0.0012824686804231151 here.
     * tlm_np_sum is one pairwise sum over the whole array, so its last
     * digits differ; this pins what it computes today. */
    s = tlm_np_sum(a, n);
    assert_true(s == 14.392726722865726);
    assert_true(tlm_np_std(a, n, s / (double)n) == 0.0012824686804231158);
    free(a);

    /* 1000 values in [0.1, 1.1): np.sum 599.5, np.std 0.2886749902572095 */
    double b[1000];
    for (size_t i = 0; i < 1000; i++)
        b[i] = (double)((i * 7919) % 1000) * 0.001 + 0.1;
    s = tlm_np_sum(b, 1000);
    assert_true(s == 599.5);
    assert_true(tlm_np_std(b, 1000, s / 1000.0) == 0.2886749902572095);
    /* short arrays: the plain loop (n < 8), the 8 accumulators */
    assert_true(tlm_np_sum(b, 0) == 0.0);
    assert_true(tlm_np_sum(b, 1) == b[0]);
    assert_true(isnan(tlm_np_std(b, 0, 0.0)));
}

/* Kahan compensation keeps what a plain sum drops (pandas' group sum). */
static void test_kahan(void **state)
{
    (void)state;
    double k[11] = {1.0};
    for (int i = 1; i < 11; i++)
        k[i] = 1e-16;
    assert_true(tlm_pd_sum(k, 11) == 1.000000000000001); /* pandas */
    assert_true(tlm_np_sum(k, 11) == 1.0000000000000007); /* numpy */
    tlm_kahan acc = {0.0, 0.0};
    for (int i = 0; i < 11; i++)
        tlm_kahan_add(&acc, k[i]);
    assert_true(acc.sum == 1.000000000000001);
    assert_true(tlm_pd_sum(k, 0) == 0.0);
}

/* np.median: odd and even counts, ties, one value, none; below 32 values
 * (sorted) and above (selected). */
static void test_median(void **state)
{
    (void)state;
    static const struct {
        size_t n;
        double v[5];
        double want;
    } t[] = {
        {3, {3.0, 1.0, 2.0}, 2.0},
        {4, {4.0, 1.0, 3.0, 2.0}, 2.5},
        {5, {-1.5, 7.0, 7.0, -1.5, 0.25}, 0.25},
        {1, {5.0}, 5.0},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        double v[5];
        memcpy(v, t[i].v, sizeof v);
        assert_true(tlm_np_median(v, t[i].n) == t[i].want);
    }
    assert_true(isnan(tlm_np_median(NULL, 0)));
    /* (i * 37) % 101 - 50.5: np.median of 64 -> -1.0, of 63 -> -0.5 */
    double c[64];
    for (size_t i = 0; i < 64; i++)
        c[i] = (double)((i * 37) % 101) - 50.5;
    assert_true(tlm_np_median(c, 64) == -1.0);
    for (size_t i = 0; i < 64; i++)
        c[i] = (double)((i * 37) % 101) - 50.5;
    assert_true(tlm_np_median(c, 63) == -0.5);
    /* all equal, above the sorting threshold */
    double same[40];
    for (size_t i = 0; i < 40; i++)
        same[i] = 0.75;
    assert_true(tlm_np_median(same, 40) == 0.75);
}

/* np.round(x, 2) == rint(x * 100) / 100, ties to even. */
static void test_round2(void **state)
{
    (void)state;
    static const struct {
        double x, want;
    } t[] = {
        {-2.675, -2.68}, {1.005, 1.0}, {0.5, 0.5},   {1e300, 1e300},
        {0.015, 0.02},   {0.025, 0.02}, {0.0, 0.0},  {-0.004, -0.0},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (tlm_np_round2(t[i].x) != t[i].want)
            fail_msg("round(%.17g, 2) = %.17g, want %.17g", t[i].x,
                     tlm_np_round2(t[i].x), t[i].want);
    assert_true(signbit(tlm_np_round2(-0.004)));
    assert_true(isnan(tlm_np_round2(NAN)));
}

/* ddof=1 std: the two-pass sample std and pandas' Welford give
 * np.std(ddof=1) on a small set; NaN below two values. */
static void test_sample_std(void **state)
{
    (void)state;
    const double s[8] = {2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0};
    assert_true(tlm_sample_std(s, 8) == 2.138089935299395);
    assert_true(tlm_pd_std(s, 8) == 2.138089935299395);
    assert_true(isnan(tlm_pd_std(s, 1)));
    assert_true(isnan(tlm_sample_std(s, 0)));
    const double two[2] = {1.0, 3.0};
    assert_true(tlm_sample_std(two, 2) == sqrt(2.0));
    assert_true(tlm_pd_std(two, 2) == sqrt(2.0));
}

/* Summary of a column: NaNs dropped (and the values compacted), pandas
 * sum/mean/std, numpy median. */
static void test_stats_of(void **state)
{
    (void)state;
    double v[6] = {3.5, NAN, 1.25, 10.0, NAN, -2.0};
    tlm_stats s;
    tlm_stats_of(v, 6, &s);
    assert_int_equal(s.count, 4);
    assert_true(s.sum == 12.75);
    assert_true(s.mean == 3.1875);
    assert_true(s.median == 2.375);
    assert_true(s.std == 5.071879171799475); /* pandas Series.std */
    assert_true(s.min == -2.0);
    assert_true(s.max == 10.0);
    for (size_t i = 0; i < 4; i++)
        assert_false(isnan(v[i]));

    double none[2] = {NAN, NAN};
    tlm_stats_of(none, 2, &s);
    assert_int_equal(s.count, 0);
    assert_true(s.sum == 0.0);
    assert_true(isnan(s.mean) && isnan(s.median) && isnan(s.std));
    assert_true(isnan(s.min) && isnan(s.max));

    double one[1] = {4.5};
    tlm_stats_of(one, 1, &s);
    assert_int_equal(s.count, 1);
    assert_true(s.mean == 4.5 && s.median == 4.5 && s.min == 4.5);
    assert_true(isnan(s.std)); /* ddof=1 of one value */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numpy),
        cmocka_unit_test(test_sums_of_a_million),
        cmocka_unit_test(test_kahan),
        cmocka_unit_test(test_median),
        cmocka_unit_test(test_round2),
        cmocka_unit_test(test_sample_std),
        cmocka_unit_test(test_stats_of),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
