/*
 * test_npsort.c - numpy 1.24's quicksort argsort and pandas' descending
 * nargsort (src/util/npsort.c) against the orders numpy 1.24.2 and pandas
 * 1.5.3 produced (tests/data/parity/npsort_cases.txt, written by
 * gen_npsort_cases.py there): tie-heavy arrays of 0..1000 values, sorted
 * and organ-pipe inputs, NaN rows; plus hand-derived small cases and the
 * heapsort fallback on a quicksort-hostile input (same multiset order as
 * a full sort).
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

#include "npsort.h"

/* Ties keep their order below 17 values (insertion sort). */
static void test_small_is_insertion(void **state)
{
    (void)state;
    const double v[] = {1.0, 2.0, 1.0, 2.0, 0.5};
    size_t idx[5] = {0, 1, 2, 3, 4};
    tlm_np_aquicksort(v, idx, 5);
    const size_t want[] = {4, 0, 2, 1, 3};
    assert_memory_equal(idx, want, sizeof want);
    /* descending: reversed, sorted, reversed -> ties in reverse... then
     * reversed back: first appearance among ties */
    size_t perm[5];
    assert_int_equal(tlm_np_nargsort_desc(v, 5, perm), TLM_OK);
    const size_t wd[] = {1, 3, 0, 2, 4};
    assert_memory_equal(perm, wd, sizeof wd);
}

static void test_nan_last(void **state)
{
    (void)state;
    const double v[] = {NAN, 3.0, NAN, 5.0};
    size_t perm[4];
    assert_int_equal(tlm_np_nargsort_desc(v, 4, perm), TLM_OK);
    const size_t want[] = {3, 1, 0, 2};
    assert_memory_equal(perm, want, sizeof want);
    assert_int_equal(tlm_np_nargsort_desc(v, 0, perm), TLM_OK);
}

/* 17 equal values: one partition round, then insertion sorts that keep
 * the order (np.argsort(np.ones(17), kind="quicksort")).  By hand: pivot
 * index 8 goes to position 15, the scans stop at every element and swap
 * positions (1,14), (2,13), ... (7,8), the pivot returns to position 8. */
static void test_one_partition(void **state)
{
    (void)state;
    double v[17];
    size_t idx[17];
    for (size_t i = 0; i < 17; i++) {
        v[i] = 1.0;
        idx[i] = i;
    }
    tlm_np_aquicksort(v, idx, 17);
    const size_t want[17] = {0, 14, 13, 12, 11, 10, 9, 15, 8,
                             6, 5,  4,  3,  2,  1,  7, 16};
    assert_memory_equal(idx, want, sizeof want);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)n + 1);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    if (p)
        p[n] = 0;
    fclose(f);
    return p;
}

static void test_numpy_cases(void **state)
{
    (void)state;
    const char *src = getenv("TLM_SOURCE_DIR");
    if (!src)
        src = ".";
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/parity/npsort_cases.txt",
             src);
    char *text = slurp(path);
    assert_non_null(text);
    size_t ncase = 0, nq = 0, nd = 0;
    for (char *line = text, *nl; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        assert_non_null(nl);
        *nl = '\0';
        char kind = line[0];
        char *p = line + 2, *end;
        size_t n = strtoul(p, &end, 10);
        p = end;
        double *v = malloc((n + 1) * sizeof *v);
        size_t *want = malloc((n + 1) * sizeof *want);
        size_t *got = malloc((n + 1) * sizeof *got);
        assert_true(v && want && got);
        for (size_t i = 0; i < n; i++) {
            v[i] = strtod(p, &end);
            assert_true(end != p);
            p = end;
        }
        p = strchr(p, '|');
        assert_non_null(p);
        p++;
        for (size_t i = 0; i < n; i++) {
            want[i] = strtoul(p, &end, 10);
            assert_true(end != p);
            p = end;
        }
        if (kind == 'q') {
            for (size_t i = 0; i < n; i++)
                got[i] = i;
            tlm_np_aquicksort(v, got, n);
            nq++;
        } else {
            assert_int_equal(tlm_np_nargsort_desc(v, n, got), TLM_OK);
            nd++;
        }
        if (n && memcmp(got, want, n * sizeof *got) != 0) {
            fprintf(stderr, "case %zu (%c, n=%zu) differs\n", ncase, kind,
                    n);
            fail();
        }
        free(v);
        free(want);
        free(got);
        ncase++;
    }
    free(text);
    assert_true(nq >= 70 && nd >= 70);
}

/* A quicksort-hostile input (median-of-3 killer): the depth limit hands
 * sub-arrays to heapsort; the result is still sorted. */
static void test_heapsort_fallback(void **state)
{
    (void)state;
    enum { N = 4096 };
    double *v = malloc(N * sizeof *v);
    size_t *idx = malloc(N * sizeof *idx);
    assert_true(v && idx);
    /* Musser's median-of-3 killer sequence for k = N/2 */
    size_t k = N / 2;
    for (size_t i = 1; i <= k; i++) {
        if (i % 2)
            v[i - 1] = (double)i;
        else
            v[i - 1] = (double)(k + i - 1);
        v[k + i - 1] = (double)(2 * i);
    }
    for (size_t i = 0; i < N; i++)
        idx[i] = i;
    tlm_np_aquicksort(v, idx, N);
    for (size_t i = 1; i < N; i++)
        assert_true(v[idx[i - 1]] <= v[idx[i]]);
    free(v);
    free(idx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_is_insertion),
        cmocka_unit_test(test_nan_last),
        cmocka_unit_test(test_one_partition),
        cmocka_unit_test(test_numpy_cases),
        cmocka_unit_test(test_heapsort_fallback),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
