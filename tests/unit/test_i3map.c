/*
 * test_i3map.c - the hash map from an int64 triple to an int32
 * (src/util/i3map.c): put, get, overwrite, keys that differ in one
 * component only, extreme keys, the capacity rule (a power of two, at
 * least twice the expected count, grown past half load) and a hundred
 * thousand entries with every one found again after growing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "i3map.h"

static void test_put_get(void **state)
{
    (void)state;
    tlm_i3map m;
    assert_int_equal(tlm_i3map_init(&m, 0), TLM_OK);
    assert_int_equal(m.cap, 16);
    assert_int_equal(tlm_i3map_get(&m, 1, 2, 3), -1);
    assert_int_equal(tlm_i3map_put(&m, 1, 2, 3, 10), TLM_OK);
    /* each component counts, and the order of the components */
    static const int64_t other[][3] = {
        {1, 2, 4}, {1, 3, 3}, {2, 2, 3}, {3, 2, 1}, {0, 0, 0}, {-1, -2, -3}};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
        assert_int_equal(
            tlm_i3map_get(&m, other[i][0], other[i][1], other[i][2]), -1);
    assert_int_equal(tlm_i3map_get(&m, 1, 2, 3), 10);
    /* overwrite: same count */
    assert_int_equal(tlm_i3map_put(&m, 1, 2, 3, 0), TLM_OK);
    assert_int_equal(tlm_i3map_get(&m, 1, 2, 3), 0);
    assert_int_equal(m.count, 1);
    /* extreme keys */
    assert_int_equal(tlm_i3map_put(&m, INT64_MIN, INT64_MAX, 0, 7), TLM_OK);
    assert_int_equal(tlm_i3map_put(&m, INT64_MAX, INT64_MIN, 0, 8), TLM_OK);
    assert_int_equal(tlm_i3map_put(&m, 0, 0, 0, INT32_MAX), TLM_OK);
    assert_int_equal(tlm_i3map_get(&m, INT64_MIN, INT64_MAX, 0), 7);
    assert_int_equal(tlm_i3map_get(&m, INT64_MAX, INT64_MIN, 0), 8);
    assert_int_equal(tlm_i3map_get(&m, 0, 0, 0), INT32_MAX);
    assert_int_equal(m.count, 4);
    tlm_i3map_free(&m);
    assert_int_equal(m.cap, 0);
    assert_int_equal(m.count, 0);
    assert_null(m.keys);
    /* a freed (or zeroed) map answers -1 */
    assert_int_equal(tlm_i3map_get(&m, 1, 2, 3), -1);
    tlm_i3map_free(&m);
}

/* Capacity: the smallest power of two >= 16 above 2 * expect; a put that
 * would pass half load grows the table. */
static void test_capacity(void **state)
{
    (void)state;
    static const struct {
        size_t expect, cap;
    } t[] = {{0, 16}, {7, 16}, {8, 32}, {100, 256}, {1000, 2048}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        tlm_i3map m;
        assert_int_equal(tlm_i3map_init(&m, t[i].expect), TLM_OK);
        assert_int_equal(m.cap, t[i].cap);
        tlm_i3map_free(&m);
    }
    tlm_i3map m;
    assert_int_equal(tlm_i3map_init(&m, 0), TLM_OK);
    for (int32_t i = 0; i < 8; i++)
        assert_int_equal(tlm_i3map_put(&m, i, 0, 0, i), TLM_OK);
    assert_int_equal(m.cap, 16); /* 8 of 16: half */
    assert_int_equal(tlm_i3map_put(&m, 8, 0, 0, 8), TLM_OK);
    assert_int_equal(m.cap, 64); /* regrown for twice the old capacity */
    assert_int_equal(m.count, 9);
    for (int32_t i = 0; i < 9; i++)
        assert_int_equal(tlm_i3map_get(&m, i, 0, 0), i);
    tlm_i3map_free(&m);
}

/* 100,000 keys (three components each) through several growths, then
 * half of them overwritten; every value found, absent keys missing. */
static void test_many(void **state)
{
    (void)state;
    const int32_t n = 100000;
    tlm_i3map m;
    assert_int_equal(tlm_i3map_init(&m, 4), TLM_OK);
    for (int32_t i = 0; i < n; i++)
        assert_int_equal(tlm_i3map_put(&m, i, (int64_t)i * 7919, -i, i),
                         TLM_OK);
    assert_int_equal(m.count, (size_t)n);
    assert_int_equal(m.cap, 262144);
    for (int32_t i = 0; i < n; i += 2)
        assert_int_equal(tlm_i3map_put(&m, i, (int64_t)i * 7919, -i, n + i),
                         TLM_OK);
    assert_int_equal(m.count, (size_t)n);
    for (int32_t i = 0; i < n; i++) {
        int32_t want = i % 2 ? i : n + i;
        if (tlm_i3map_get(&m, i, (int64_t)i * 7919, -i) != want)
            fail_msg("key %d: %d", i, tlm_i3map_get(&m, i, i * 7919, -i));
        assert_int_equal(tlm_i3map_get(&m, i, (int64_t)i * 7919, i + 1), -1);
    }
    assert_int_equal(tlm_i3map_get(&m, n, (int64_t)n * 7919, -n), -1);
    tlm_i3map_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_get),
        cmocka_unit_test(test_capacity),
        cmocka_unit_test(test_many),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
