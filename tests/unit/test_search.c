/*
 * test_search.c - the lower-bound search (src/util/search.c, search.h):
 * the callback and the typed variants agree with a linear scan on empty
 * arrays, keys below, above and between the elements, runs of equal
 * elements (the first of the run), struct fields by offset, and upper
 * bounds (INT64_MAX included).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "search.h"

/* The callback order for int64: > 0 when elem < key. */
static int cmp_i64(const void *key, const void *elem)
{
    int64_t k = *(const int64_t *)key, e = *(const int64_t *)elem;
    return (k > e) - (k < e);
}

/* The lower bound by a linear scan. */
static size_t linear(const int64_t *a, size_t n, int64_t key)
{
    size_t i = 0;
    while (i < n && a[i] < key)
        i++;
    return i;
}

static void test_empty(void **state)
{
    (void)state;
    int64_t k = 5;
    assert_int_equal(tlm_lower_bound(NULL, 0, sizeof k, &k, cmp_i64), 0);
    assert_int_equal(tlm_lower_bound_i64(NULL, 0, 5), 0);
    assert_int_equal(tlm_upper_bound_i64_at(NULL, 0, 8, 0, 5), 0);
}

static void test_bounds(void **state)
{
    (void)state;
    const int64_t a[] = {INT64_MIN, -3, 1, 1, 1, 4, 9, 9, INT64_MAX};
    size_t n = sizeof a / sizeof *a;
    const int64_t keys[] = {INT64_MIN, -4, -3, 0, 1, 2, 4, 9, 10, INT64_MAX};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        int64_t k = keys[i];
        size_t want = linear(a, n, k);
        assert_int_equal(tlm_lower_bound(a, n, sizeof *a, &k, cmp_i64), want);
        assert_int_equal(tlm_lower_bound_i64(a, n, k), want);
        size_t up = want;
        while (up < n && a[up] == k)
            up++;
        assert_int_equal(tlm_upper_bound_i64_at(a, n, sizeof *a, 0, k), up);
    }
    /* all less, all greater, first of the equal run */
    assert_int_equal(tlm_lower_bound_i64(a + 1, 7, 100), 7);
    assert_int_equal(tlm_lower_bound_i64(a + 1, 7, -100), 0);
    assert_int_equal(tlm_lower_bound_i64(a, n, 1), 2);
    assert_int_equal(tlm_upper_bound_i64_at(a, n, sizeof *a, 0, 1), 5);
    assert_int_equal(tlm_upper_bound_i64_at(a, n, sizeof *a, 0, INT64_MAX),
                     n);
}

typedef struct rec {
    char tag;
    int32_t r32;
    uint64_t u64;
    int64_t i64;
} rec;

static void test_fields(void **state)
{
    (void)state;
    const rec v[] = {{'a', -2, 0, -5}, {'b', 0, 3, 0}, {'c', 0, 3, 0},
                     {'d', 7, UINT64_MAX, 8}};
    size_t n = 4;
    assert_int_equal(tlm_lower_bound_i32_at(v, n, sizeof *v,
                                            offsetof(rec, r32), 0), 1);
    assert_int_equal(tlm_lower_bound_i32_at(v, n, sizeof *v,
                                            offsetof(rec, r32), 8), 4);
    assert_int_equal(tlm_lower_bound_u64_at(v, n, sizeof *v,
                                            offsetof(rec, u64), 3), 1);
    assert_int_equal(tlm_lower_bound_u64_at(v, n, sizeof *v,
                                            offsetof(rec, u64), UINT64_MAX),
                     3);
    assert_int_equal(tlm_lower_bound_i64_at(v, n, sizeof *v,
                                            offsetof(rec, i64), -6), 0);
    assert_int_equal(tlm_upper_bound_i64_at(v, n, sizeof *v,
                                            offsetof(rec, i64), 0), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
