/*
 * test_numparse.c - tlm_parse_us_to_ns (src/trace/numparse.c): exact decimal
 * microseconds to int64 nanoseconds, rounding half to even below the
 * nanosecond, JSON number syntax only.
 *
 * A table of hand-checked cases, then a randomized comparison with an
 * independent reference: a value is built from an integer count of
 * nanoseconds plus sub-nanosecond digits, written in several equivalent
 * notations (plain decimal, integer mantissa with a negative exponent,
 * fraction with a positive exponent), and every notation must parse to the
 * same, independently rounded result.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tlmpi/tlm_trace.h"

typedef struct num_case {
    const char *s;
    tlm_status st;
    int64_t ns;
} num_case;

static const num_case cases[] = {
    /* integers and simple fractions */
    {"0", TLM_OK, 0},
    {"-0", TLM_OK, 0},
    {"0.0", TLM_OK, 0},
    {"1", TLM_OK, 1000},
    {"-1", TLM_OK, -1000},
    {"12", TLM_OK, 12000},
    {"1.5", TLM_OK, 1500},
    {"0.001", TLM_OK, 1},
    {"0.010", TLM_OK, 10},
    {"1428625746277.044", TLM_OK, 1428625746277044LL},
    {"1700000000000000.999", TLM_OK, 1700000000000000999LL},
    {"-1700000000000000.999", TLM_OK, -1700000000000000999LL},
    /* below the nanosecond: round half to even */
    {"0.0004", TLM_OK, 0},
    {"0.0005", TLM_OK, 0},
    {"0.0006", TLM_OK, 1},
    {"0.0015", TLM_OK, 2},
    {"0.0025", TLM_OK, 2},
    {"0.0035", TLM_OK, 4},
    {"0.00250000000000000000000001", TLM_OK, 3},
    {"0.00249999999999999999999999", TLM_OK, 2},
    {"0.0005000000000000000000000000001", TLM_OK, 1},
    {"0.0004999", TLM_OK, 0},
    {"-0.0015", TLM_OK, -2},
    {"-0.0025", TLM_OK, -2},
    {"-0.0026", TLM_OK, -3},
    {"-0.0005", TLM_OK, 0},
    {"1.0005", TLM_OK, 1000},
    {"1.0015", TLM_OK, 1002},
    {"999.9995", TLM_OK, 1000000},
    {"999.9985", TLM_OK, 999998},
    /* exponents */
    {"1e0", TLM_OK, 1000},
    {"1e3", TLM_OK, 1000000},
    {"1E3", TLM_OK, 1000000},
    {"1e+3", TLM_OK, 1000000},
    {"1e-3", TLM_OK, 1},
    {"15e-4", TLM_OK, 2},
    {"25e-4", TLM_OK, 2},
    {"5e-4", TLM_OK, 0},
    {"6e-4", TLM_OK, 1},
    {"6e-5", TLM_OK, 0},
    {"1.5e-3", TLM_OK, 2},
    {"1.7e15", TLM_OK, 1700000000000000000LL},
    {"17E-1", TLM_OK, 1700},
    {"0.017e2", TLM_OK, 1700},
    {"1e-30", TLM_OK, 0},
    {"-1e-30", TLM_OK, 0},
    {"0e99999999", TLM_OK, 0},
    {"0.000e-99999999", TLM_OK, 0},
    {"1e-99999999999999999999", TLM_OK, 0},
    {"00000e5", TLM_EFORMAT, 0},
    /* the int64 edges */
    {"9223372036854775.807", TLM_OK, INT64_MAX},
    {"9223372036854775.8074999", TLM_OK, INT64_MAX},
    {"9223372036854775.8075", TLM_ERANGE, 0}, /* 807.5 -> 808 (even) */
    {"9223372036854775.808", TLM_ERANGE, 0},
    {"9223372036854775807e-3", TLM_OK, INT64_MAX},
    {"-9223372036854775.808", TLM_OK, INT64_MIN},
    {"-9223372036854775.8085", TLM_OK, INT64_MIN}, /* half: 808 is even */
    {"-9223372036854775.80851", TLM_ERANGE, 0},
    {"-9223372036854775.809", TLM_ERANGE, 0},
    {"-9223372036854775808e-3", TLM_OK, INT64_MIN},
    {"1e30", TLM_ERANGE, 0},
    {"-1e30", TLM_ERANGE, 0},
    {"1e16", TLM_ERANGE, 0},
    {"1e15", TLM_OK, 1000000000000000000LL},
    {"99999999999999999999", TLM_ERANGE, 0},
    {"1e99999999999999999999", TLM_ERANGE, 0},
    {"0.00000000000000000000000000000001e41", TLM_OK, 1000000000000LL},
    {"0.00000000000000000000000000000001e60", TLM_ERANGE, 0},
    /* not JSON numbers */
    {"", TLM_EFORMAT, 0},
    {"-", TLM_EFORMAT, 0},
    {"+1", TLM_EFORMAT, 0},
    {"01", TLM_EFORMAT, 0},
    {"00", TLM_EFORMAT, 0},
    {"-01", TLM_EFORMAT, 0},
    {".5", TLM_EFORMAT, 0},
    {"1.", TLM_EFORMAT, 0},
    {"1.e3", TLM_EFORMAT, 0},
    {"1e", TLM_EFORMAT, 0},
    {"1e+", TLM_EFORMAT, 0},
    {"1e-", TLM_EFORMAT, 0},
    {"1 ", TLM_EFORMAT, 0},
    {" 1", TLM_EFORMAT, 0},
    {"1x", TLM_EFORMAT, 0},
    {"0x10", TLM_EFORMAT, 0},
    {"NaN", TLM_EFORMAT, 0},
    {"Infinity", TLM_EFORMAT, 0},
    {"1,5", TLM_EFORMAT, 0},
    {"--1", TLM_EFORMAT, 0},
    {"1e1.5", TLM_EFORMAT, 0},
};

static void test_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t out = 12345;
        tlm_status st = tlm_parse_us_to_ns(cases[i].s, strlen(cases[i].s),
                                           &out);
        if (st != cases[i].st || (st == TLM_OK && out != cases[i].ns))
            fprintf(stderr, "\"%s\": want %s %lld, got %s %lld\n",
                    cases[i].s, tlm_status_str(cases[i].st),
                    (long long)cases[i].ns, tlm_status_str(st),
                    (long long)out);
        assert_int_equal(st, cases[i].st);
        if (st == TLM_OK)
            assert_true(out == cases[i].ns);
    }
}

/* Only len bytes are read: the text need not be NUL-terminated. */
static void test_length_bound(void **state)
{
    (void)state;
    int64_t out;
    assert_int_equal(tlm_parse_us_to_ns("1.5xyz", 3, &out), TLM_OK);
    assert_true(out == 1500);
    assert_int_equal(tlm_parse_us_to_ns("12345", 2, &out), TLM_OK);
    assert_true(out == 12000);
    assert_int_equal(tlm_parse_us_to_ns("1e39", 2, &out), TLM_EFORMAT);
    char buf[3] = {'4', '2', '7'}; /* no terminator at all */
    assert_int_equal(tlm_parse_us_to_ns(buf, 2, &out), TLM_OK);
    assert_true(out == 42000);
    assert_int_equal(tlm_parse_us_to_ns(buf, 0, &out), TLM_EFORMAT);
}

/* ------------------------------------------------------------------ MARK:
 * Randomized comparison with a reference. */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    /* xorshift64*: deterministic, so failures reproduce */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

/* The expected result of ns + 0.tail (tail: decimal digits), rounded half
 * to even; negated when neg.  Returns 0 when it does not fit int64. */
static int reference(uint64_t ns, const char *tail, int neg, int64_t *out)
{
    size_t tl = strlen(tail);
    int up = 0;
    if (tl > 0) {
        int first = tail[0] - '0';
        int rest = 0;
        for (size_t i = 1; i < tl; i++)
            rest |= tail[i] != '0';
        up = first > 5 || (first == 5 && (rest || (ns & 1)));
    }
    uint64_t v = ns + (uint64_t)up;
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX;
    if (v > limit || v < ns)
        return 0;
    if (neg)
        *out = v == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)v;
    else
        *out = (int64_t)v;
    return 1;
}

static void check_text(const char *s, int ok, int64_t want)
{
    int64_t out = 0;
    tlm_status st = tlm_parse_us_to_ns(s, strlen(s), &out);
    if ((st == TLM_OK) != ok || (ok && out != want))
        fprintf(stderr, "\"%s\": want %s %lld, got %s %lld\n", s,
                ok ? "OK" : "ERANGE", (long long)want, tlm_status_str(st),
                (long long)out);
    assert_int_equal(st, ok ? TLM_OK : TLM_ERANGE);
    if (ok)
        assert_true(out == want);
}

static void test_random_reference(void **state)
{
    (void)state;
    for (int iter = 0; iter < 200000; iter++) {
        uint64_t r = rnd();
        uint64_t ns;
        switch (r % 4) {
        case 0: /* small */
            ns = rnd() % 100000;
            break;
        case 1: /* realistic epoch-based timestamps in ns */
            ns = 1700000000000000000ull + rnd() % 100000000000000000ull;
            break;
        case 2: /* near the int64 edge */
            ns = (uint64_t)INT64_MAX - rnd() % 3;
            if (rnd() & 1)
                ns += 1; /* INT64_MAX + 1: only valid negative */
            break;
        default:
            ns = rnd() >> (rnd() % 64);
            break;
        }
        int neg = (int)(rnd() & 1);
        if (ns > (uint64_t)INT64_MAX + 1u)
            ns >>= 1;
        /* sub-nanosecond tail: 0..25 digits, biased towards 5000... */
        char tail[32];
        size_t tl = (size_t)(rnd() % 26);
        for (size_t i = 0; i < tl; i++) {
            uint64_t d = rnd() % 10;
            if (rnd() % 3 == 0)
                d = i == 0 ? 5 : 0;
            tail[i] = (char)('0' + d);
        }
        tail[tl] = '\0';
        int64_t want = 0;
        int ok = reference(ns, tail, neg, &want);

        /* all the digits: "<ns><tail>", value = that * 10^-(3 + tl) us */
        char digits[64];
        snprintf(digits, sizeof digits, "%llu%s", (unsigned long long)ns,
                 tail);
        size_t nd = strlen(digits);
        /* a JSON mantissa has no leading zero */
        const char *mant = digits;
        while (mant[0] == '0' && mant[1] != '\0')
            mant++;
        char s[160];
        const char *sign = neg ? "-" : "";

        /* 1) plain decimal: <us>.<3 digits><tail> */
        snprintf(s, sizeof s, "%s%llu.%03llu%s", sign,
                 (unsigned long long)(ns / 1000),
                 (unsigned long long)(ns % 1000), tail);
        check_text(s, ok, want);

        /* 2) integer mantissa, negative exponent */
        snprintf(s, sizeof s, "%s%se-%zu", sign, mant, 3 + tl);
        check_text(s, ok, want);

        /* 3) 0.<digits> with a positive exponent */
        long e = (long)nd - 3 - (long)tl;
        snprintf(s, sizeof s, "%s0.%se%s%ld", sign, digits,
                 e >= 0 ? "+" : "", e);
        check_text(s, ok, want);

        /* 4) one digit before the point, exponent in capitals */
        if (nd > 1 && digits[0] != '0') {
            snprintf(s, sizeof s, "%s%c.%sE%ld", sign, digits[0], digits + 1,
                     e - 1);
            check_text(s, ok, want);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_length_bound),
        cmocka_unit_test(test_random_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
