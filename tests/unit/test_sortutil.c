/*
 * test_sortutil.c - the stable merge sorts (src/util/sortutil.c): indices
 * by a callback (equal keys keep their input order; sorted input returns
 * at once) and (key, value) pairs over natural runs (a few sorted runs,
 * as one per thread or stream, and the worst case of descending input),
 * each against a reference computed in the test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sortutil.h"

/* Sort key of index i: keys[i]; counts the comparisons. */
typedef struct key_ctx {
    const int *keys;
    size_t calls;
} key_ctx;

static int by_key(const void *ctx, size_t a, size_t b)
{
    key_ctx *k = (key_ctx *)(uintptr_t)ctx;
    k->calls++;
    return (k->keys[a] > k->keys[b]) - (k->keys[a] < k->keys[b]);
}

/* The stable order by insertion sort (the reference). */
static void ref_sort_idx(size_t *idx, size_t n, const int *keys)
{
    for (size_t i = 1; i < n; i++) {
        size_t v = idx[i], j = i;
        while (j > 0 && keys[idx[j - 1]] > keys[v]) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = v;
    }
}

static void test_idx_small(void **state)
{
    (void)state;
    /* equal keys (the 1s and the 3s) keep their input order */
    const int keys[8] = {3, 1, 2, 1, 3, 0, 1, 3};
    size_t idx[8];
    for (size_t i = 0; i < 8; i++)
        idx[i] = i;
    key_ctx k = {keys, 0};
    assert_int_equal(tlm_sort_idx(idx, 8, by_key, &k), TLM_OK);
    static const size_t want[8] = {5, 1, 3, 6, 2, 0, 4, 7};
    assert_memory_equal(idx, want, sizeof want);
    /* indices need not start in order: sorted by key, ties by position */
    size_t perm[8] = {7, 6, 5, 4, 3, 2, 1, 0};
    assert_int_equal(tlm_sort_idx(perm, 8, by_key, &k), TLM_OK);
    static const size_t want_perm[8] = {5, 6, 3, 1, 2, 7, 4, 0};
    assert_memory_equal(perm, want_perm, sizeof want_perm);
    /* sorted input: one pass of n - 1 comparisons */
    k.calls = 0;
    assert_int_equal(tlm_sort_idx(idx, 8, by_key, &k), TLM_OK);
    assert_int_equal(k.calls, 7);
    assert_memory_equal(idx, want, sizeof want);
    /* nothing to sort */
    k.calls = 0;
    assert_int_equal(tlm_sort_idx(NULL, 0, by_key, &k), TLM_OK);
    assert_int_equal(tlm_sort_idx(idx, 1, by_key, &k), TLM_OK);
    assert_int_equal(k.calls, 0);
}

/* 10,007 indices (not a power of two), keys with many ties. */
static void test_idx_random(void **state)
{
    (void)state;
    const size_t n = 10007;
    int *keys = malloc(n * sizeof *keys);
    size_t *idx = malloc(n * sizeof *idx);
    size_t *ref = malloc(n * sizeof *ref);
    assert_true(keys && idx && ref);
    uint32_t x = 12345;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        keys[i] = (int)((x >> 16) % 50);
        idx[i] = ref[i] = i;
    }
    key_ctx k = {keys, 0};
    assert_int_equal(tlm_sort_idx(idx, n, by_key, &k), TLM_OK);
    ref_sort_idx(ref, n, keys);
    assert_memory_equal(idx, ref, n * sizeof *idx);
    free(keys);
    free(idx);
    free(ref);
}

static int pair_cmp(const void *a, const void *b)
{
    const tlm_pair *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->val > y->val) - (x->val < y->val);
}

static void check_pairs(tlm_pair *p, size_t n)
{
    tlm_pair *ref = malloc((n ? n : 1) * sizeof *ref);
    assert_non_null(ref);
    memcpy(ref, p, n * sizeof *p);
    qsort(ref, n, sizeof *ref, pair_cmp);
    assert_int_equal(tlm_sort_pairs(p, n), TLM_OK);
    for (size_t i = 0; i < n; i++)
        if (p[i].key != ref[i].key || p[i].val != ref[i].val)
            fail_msg("n %zu, at %zu: (%lld, %lld) want (%lld, %lld)", n, i,
                     (long long)p[i].key, (long long)p[i].val,
                     (long long)ref[i].key, (long long)ref[i].val);
    free(ref);
}

static void test_pairs_small(void **state)
{
    (void)state;
    /* two sorted runs (as two threads' events), equal keys ordered by
     * value, one duplicate pair */
    tlm_pair p[7] = {{1, 5}, {4, 0}, {9, 2}, {0, 1}, {4, -1}, {9, 2}, {10, 0}};
    static const tlm_pair want[7] = {{0, 1}, {1, 5}, {4, -1}, {4, 0},
                                     {9, 2}, {9, 2}, {10, 0}};
    assert_int_equal(tlm_sort_pairs(p, 7), TLM_OK);
    assert_memory_equal(p, want, sizeof want);
    assert_true(tlm_pair_le(&want[2], &want[3]));
    assert_false(tlm_pair_le(&want[3], &want[2]));
    assert_true(tlm_pair_le(&want[4], &want[5])); /* equal pairs */
    assert_int_equal(tlm_sort_pairs(NULL, 0), TLM_OK);
    tlm_pair one = {INT64_MIN, INT64_MAX};
    assert_int_equal(tlm_sort_pairs(&one, 1), TLM_OK);
    assert_true(one.key == INT64_MIN && one.val == INT64_MAX);
}

/* Natural runs: k interleaved sorted runs, descending input (n runs of
 * one), sorted input, extreme keys. */
static void test_pairs_runs(void **state)
{
    (void)state;
    const size_t n = 30000;
    tlm_pair *p = malloc(n * sizeof *p);
    assert_non_null(p);
    static const size_t runs[] = {1, 2, 3, 7, 64};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        size_t per = n / runs[r];
        for (size_t i = 0; i < n; i++) {
            size_t run = i / per, pos = i % per;
            p[i].key = (int64_t)(pos * 3 + run % 3);
            p[i].val = (int64_t)i;
        }
        check_pairs(p, n);
    }
    for (size_t i = 0; i < n; i++) {
        p[i].key = (int64_t)(n - i) / 4; /* descending, ties of four */
        p[i].val = (int64_t)(i % 5);
    }
    check_pairs(p, n);
    for (size_t i = 0; i < 1001; i++) {
        p[i].key = i % 2 ? INT64_MIN + (int64_t)i : INT64_MAX - (int64_t)i;
        p[i].val = -(int64_t)i;
    }
    check_pairs(p, 1001);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idx_small),
        cmocka_unit_test(test_idx_random),
        cmocka_unit_test(test_pairs_small),
        cmocka_unit_test(test_pairs_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
