/*
 * test_ivl.c - interval sets (src/util/ivl.c): the union of empty,
 * single, nested, touching, disjoint, zero-length and negative intervals,
 * the (start, end) order against HTA's stable start order, the
 * difference, the length inside a window, the double variant, and random
 * sets checked against a unit grid.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ivl.h"

static void test_empty_and_single(void **state)
{
    (void)state;
    tlm_ivl v[1] = {{5, 9}};
    assert_int_equal(tlm_ivl_union(v, 0), 0);
    assert_int_equal(tlm_ivl_union_len(v, 0), 0);
    assert_int_equal(tlm_ivl_length(v, 0), 0);
    assert_int_equal(tlm_ivl_union(v, 1), 1);
    assert_int_equal(v[0].s, 5);
    assert_int_equal(v[0].e, 9);
    size_t m = 7;
    assert_int_equal(tlm_ivl_union_stable(v, 0, &m), TLM_OK);
    assert_int_equal(m, 0);
    tlm_ivld d[1] = {{1.5, 2.0}};
    assert_true(tlm_ivld_union_len(d, 0) == 0.0);
    assert_true(tlm_ivld_union_len(d, 1) == 0.5);
}

static void test_nested_touching_disjoint(void **state)
{
    (void)state;
    /* nested [0,10] holds [2,3]; [10,12] touches it; [20,25] apart;
     * [30,30] zero-length, [30,31] shares its start */
    tlm_ivl v[] = {{20, 25}, {2, 3}, {10, 12}, {0, 10},
                   {30, 31}, {30, 30}};
    size_t n = tlm_ivl_union(v, 6);
    assert_int_equal(n, 3);
    assert_int_equal(v[0].s, 0);
    assert_int_equal(v[0].e, 12);
    assert_int_equal(v[1].s, 20);
    assert_int_equal(v[1].e, 25);
    assert_int_equal(v[2].s, 30);
    assert_int_equal(v[2].e, 31);
    assert_int_equal(tlm_ivl_length(v, n), 12 + 5 + 1);
    /* a zero-length interval alone is a group of length 0; one touching
     * the next joins it */
    tlm_ivl z[] = {{5, 5}, {7, 7}, {7, 9}};
    n = tlm_ivl_union(z, 3);
    assert_int_equal(n, 2);
    assert_int_equal(z[0].e - z[0].s, 0);
    assert_int_equal(z[1].s, 7);
    assert_int_equal(z[1].e, 9);
}

static void test_negative_and_stable(void **state)
{
    (void)state;
    /* HTA's case (Q1): [40,39] is a group of length -1 */
    tlm_ivl h[] = {{10, 20}, {0, 5}, {5, 8}, {20, 30}, {40, 39},
                   {50, 60}, {52, 55}};
    size_t m;
    assert_int_equal(tlm_ivl_union_stable(h, 7, &m), TLM_OK);
    assert_int_equal(m, 4);
    assert_int_equal(h[0].e, 8);
    assert_int_equal(h[1].s, 10);
    assert_int_equal(h[1].e, 30);
    assert_int_equal(h[2].e - h[2].s, -1);
    assert_int_equal(tlm_ivl_length(h, m), 8 + 20 - 1 + 10);
    /* a negative interval sharing a start: the stable order keeps the
     * input's (the positive one first swallows it), (start, end) puts
     * the negative one first (two groups) */
    tlm_ivl a[] = {{10, 20}, {10, 5}};
    tlm_ivl b[] = {{10, 20}, {10, 5}};
    assert_int_equal(tlm_ivl_union_stable(a, 2, &m), TLM_OK);
    assert_int_equal(m, 1);
    assert_int_equal(tlm_ivl_length(a, m), 10);
    assert_int_equal(tlm_ivl_union(b, 2), 2);
    assert_int_equal(tlm_ivl_length(b, 2), -5 + 10);
}

static void test_subtract(void **state)
{
    (void)state;
    tlm_ivl base[] = {{0, 10}, {20, 30}, {40, 50}, {60, 60}};
    tlm_ivl rm[] = {{-5, 2}, {4, 6}, {8, 22}, {25, 26}, {29, 41},
                    {45, 70}};
    tlm_ivl_vec out = {0};
    assert_int_equal(tlm_ivl_subtract(base, 4, rm, 6, &out), TLM_OK);
    static const int64_t want[][2] = {{2, 4}, {6, 8}, {22, 25}, {26, 29},
                                      {41, 45}};
    assert_int_equal(out.n, 5);
    for (size_t i = 0; i < 5; i++) {
        assert_int_equal(out.v[i].s, want[i][0]);
        assert_int_equal(out.v[i].e, want[i][1]);
    }
    /* nothing removed: a copy; everything removed: empty (n reset) */
    assert_int_equal(tlm_ivl_subtract(base, 3, rm, 0, &out), TLM_OK);
    assert_int_equal(out.n, 3);
    tlm_ivl all = {-100, 100};
    assert_int_equal(tlm_ivl_subtract(base, 4, &all, 1, &out), TLM_OK);
    assert_int_equal(out.n, 0);
    /* touching edges remove nothing */
    tlm_ivl edge[] = {{-3, 0}, {10, 20}};
    assert_int_equal(tlm_ivl_subtract(base, 2, edge, 2, &out), TLM_OK);
    assert_int_equal(out.n, 2);
    assert_int_equal(tlm_ivl_length(out.v, out.n), 20);
    free(out.v);
}

static void test_clipped(void **state)
{
    (void)state;
    tlm_ivl v[] = {{0, 10}, {20, 30}, {40, 50}};
    assert_int_equal(tlm_ivl_clipped(v, 3, 5, 45), 5 + 10 + 5);
    assert_int_equal(tlm_ivl_clipped(v, 3, 10, 20), 0);
    assert_int_equal(tlm_ivl_clipped(v, 3, -10, 100), 30);
    assert_int_equal(tlm_ivl_clipped(v, 3, 60, 70), 0);
    assert_int_equal(tlm_ivl_clipped(v, 0, 0, 10), 0);
}

static void test_double(void **state)
{
    (void)state;
    tlm_ivld v[] = {{3.5, 4.0}, {0.0, 1.0}, {1.0, 2.5}, {0.5, 0.75}};
    size_t n = tlm_ivld_union(v, 4);
    assert_int_equal(n, 2);
    assert_true(v[0].s == 0.0 && v[0].e == 2.5);
    assert_true(tlm_ivld_length(v, n) == 3.0);
    tlm_ivld rm[] = {{0.25, 0.5}, {2.0, 3.75}};
    tlm_ivld_vec out = {0};
    assert_int_equal(tlm_ivld_subtract(v, n, rm, 2, &out), TLM_OK);
    assert_int_equal(out.n, 3);
    assert_true(out.v[0].s == 0.0 && out.v[0].e == 0.25);
    assert_true(out.v[1].s == 0.5 && out.v[1].e == 2.0);
    assert_true(out.v[2].s == 3.75 && out.v[2].e == 4.0);
    assert_true(tlm_ivld_clipped(v, n, 1.0, 3.75) == 1.75);
    free(out.v);
}

/* Units of [0, 64) covered by the intervals (non-negative ones). */
static uint64_t grid(const tlm_ivl *v, size_t n)
{
    uint64_t g = 0;
    for (size_t i = 0; i < n; i++)
        for (int64_t x = v[i].s; x < v[i].e; x++)
            g |= 1ull << x;
    return g;
}

static void test_random_against_grid(void **state)
{
    (void)state;
    srand(12345);
    tlm_ivl a[40], b[40];
    tlm_ivl_vec out = {0};
    for (int round = 0; round < 2000; round++) {
        size_t na = (size_t)(rand() % 40), nb = (size_t)(rand() % 40);
        for (size_t i = 0; i < na; i++) {
            a[i].s = rand() % 60;
            a[i].e = a[i].s + rand() % 5;
        }
        for (size_t i = 0; i < nb; i++) {
            b[i].s = rand() % 56;
            b[i].e = b[i].s + rand() % 8;
        }
        uint64_t ga = grid(a, na), gb = grid(b, nb);
        na = tlm_ivl_union(a, na);
        nb = tlm_ivl_union(b, nb);
        assert_int_equal(grid(a, na), ga);
        assert_int_equal(tlm_ivl_length(a, na), __builtin_popcountll(ga));
        for (size_t i = 1; i < na; i++)
            assert_true(a[i].s > a[i - 1].e); /* disjoint, not touching */
        assert_int_equal(tlm_ivl_subtract(a, na, b, nb, &out), TLM_OK);
        assert_int_equal(grid(out.v, out.n), ga & ~gb);
        assert_int_equal(tlm_ivl_clipped(a, na, 10, 30),
                         __builtin_popcountll(ga & (((1ull << 30) - 1) &
                                                    ~((1ull << 10) - 1))));
    }
    free(out.v);
}

static void test_push(void **state)
{
    (void)state;
    tlm_ivl_vec a = {0};
    for (int64_t i = 0; i < 1000; i++)
        assert_int_equal(tlm_ivl_push(&a, i, i + 1), TLM_OK);
    assert_int_equal(a.n, 1000);
    assert_true(a.cap >= 1000);
    assert_int_equal(a.v[999].s, 999);
    assert_int_equal(tlm_ivl_union_len(a.v, a.n), 1000);
    free(a.v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_and_single),
        cmocka_unit_test(test_nested_touching_disjoint),
        cmocka_unit_test(test_negative_and_stable),
        cmocka_unit_test(test_subtract),
        cmocka_unit_test(test_clipped),
        cmocka_unit_test(test_double),
        cmocka_unit_test(test_random_against_grid),
        cmocka_unit_test(test_push),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
