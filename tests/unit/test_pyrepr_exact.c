/*
 * test_pyrepr_exact.c - the fast float repr (tlm_py_float_repr, 128-bit
 * integer path) against the reference algorithm it replaced
 * (tlm_py_float_repr_ref: the least "%.*e" precision strtod reads back),
 * byte for byte, over millions of doubles: random bit patterns, the
 * values tlmpi prints (durations in microseconds with three decimals,
 * ratios, percentages, decimals of a few digits), every power of two
 * and ten with their neighbours, the switches to the exponent form at
 * 1e-4 and 1e16, the ends of the 128-bit range and subnormals.
 */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pyrepr.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

/* splitmix64: a fixed sequence, so a failure repeats. */
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double from_bits(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

static long n_checked;
/* rounds of the random parts: TLM_PYREPR_SCALE (default 1, about 2.6
 * million doubles; 3 compares the 7.5 million of the change's check) */
static long scale = 1;

/* v and -v: the same text and length from both functions. */
static void check(double v)
{
    for (int sgn = 0; sgn < 2; sgn++, v = -v) {
        char a[TLM_PY_FLOAT_MAX], b[TLM_PY_FLOAT_MAX];
        size_t na = tlm_py_float_repr(v, a, sizeof a);
        size_t nb = tlm_py_float_repr_ref(v, b, sizeof b);
        if (na != nb || strcmp(a, b) != 0)
            fail_msg("%a (%.17g): fast %s (%zu), reference %s (%zu)", v, v,
                     a, na, b, nb);
        n_checked++;
    }
}

/* v and its n neighbours each side. */
static void check_around(double v, int n)
{
    double lo = v, hi = v;
    check(v);
    for (int i = 0; i < n; i++) {
        lo = nextafter(lo, 0.0);
        hi = nextafter(hi, INFINITY);
        check(lo);
        check(hi);
    }
}

static void test_random_bits(void **state)
{
    (void)state;
    for (int i = 0; i < 200000 * scale; i++) {
        double v = from_bits(rnd());
        if (isfinite(v))
            check(v);
    }
    /* biased to the exponents of the fast path (2^-30 .. 2^80) */
    for (int i = 0; i < 200000 * scale; i++) {
        uint64_t e = 1023 - 30 + rnd() % 111;
        check(from_bits((e << 52) | (rnd() & ((1ULL << 52) - 1))));
    }
}

/* What tlmpi prints: microseconds with three decimals (ns / 1000), ms,
 * ratios and percentages of counts, decimals of a few digits. */
static void test_printed_forms(void **state)
{
    (void)state;
    for (int i = 0; i < 100000 * scale; i++) {
        uint64_t ns = rnd() >> (rnd() % 60);
        check((double)ns / 1000.0);
        check((double)ns / 1e6);
        uint64_t a = rnd() % 100000, b = 1 + rnd() % 100000;
        check((double)a / (double)b);
        check(100.0 * (double)a / (double)b);
        check((double)(rnd() % 1000000) / 1024.0 / 1024.0);
    }
    for (int i = 0; i < 70000 * scale; i++) { /* d decimal digits times 10^x */
        int d = 1 + (int)(rnd() % 17), x = (int)(rnd() % 44) - 22;
        uint64_t m = rnd() % 100000000000000000ULL;
        while (m >= (uint64_t)pow(10, d))
            m /= 10;
        check((double)m * pow(10, x));
        check(strtod("0.1", NULL) * (double)(rnd() % 1000));
    }
    for (int i = 0; i < 70000 * scale; i++) /* log-uniform 1e-7 .. 1e18 */
        check(pow(10, -7.0 + 25.0 * (double)(rnd() >> 11) / 9007199254740992.0));
}

static void test_edges(void **state)
{
    (void)state;
    for (int e = -1074; e <= 1023; e++)
        check_around(ldexp(1.0, e), 3);
    for (int e = -323; e <= 308; e++) {
        char t[32];
        snprintf(t, sizeof t, "1e%d", e);
        check_around(strtod(t, NULL), 3);
        snprintf(t, sizeof t, "5e%d", e);
        check_around(strtod(t, NULL), 2);
        snprintf(t, sizeof t, "9.999999999999999e%d", e);
        check_around(strtod(t, NULL), 2);
    }
    /* the exponent-form switches, the integral path's end, 2^53, the
     * ends of the fast path (about 1e-6 and 2^126) */
    const double at[] = {1e-4, 1e16, 9999999999999998.0, 9007199254740992.0,
                         1e-6, 9.5e-7, 1e-5, 0x1p126, 0x1p125, 0x1p127,
                         1e17, 1e18, 1e22, 1e23, 1e38, 0.5, 0.1, 0.3};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++)
        check_around(at[i], 200);
    check_around(DBL_MIN, 100);
    check_around(DBL_MAX, 100);
    for (int i = 0; i < 30000 * scale; i++) /* subnormals */
        check(from_bits(rnd() >> (12 + rnd() % 52)));
    for (int i = 0; i < 30000 * scale; i++) { /* integers, and x.5, x.25 */
        uint64_t k = rnd() >> (rnd() % 64);
        check((double)k);
        check((double)(k >> 12) + 0.5);
        check((double)(k >> 14) + 0.25);
    }
}

int main(void)
{
    const char *sc = getenv("TLM_PYREPR_SCALE");
    if (sc && atol(sc) > 0)
        scale = atol(sc);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_bits),
        cmocka_unit_test(test_printed_forms),
        cmocka_unit_test(test_edges),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    printf("%ld doubles compared\n", n_checked);
    return rc;
}
