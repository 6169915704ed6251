/*
 * test_grow.c - growable arrays (src/util/grow.c): the first capacity,
 * doubling until the need is met, no move when there is room, contents
 * kept across growth, and size overflow refused with the array unchanged.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "grow.h"

static void test_first_and_doubling(void **state)
{
    (void)state;
    int *a = NULL;
    size_t cap = 0;
    /* the first allocation takes the given first capacity */
    assert_int_equal(tlm_grow((void **)&a, &cap, 1, sizeof *a, 16), TLM_OK);
    assert_non_null(a);
    assert_int_equal(cap, 16);
    /* room already: no change */
    int *before = a;
    assert_int_equal(tlm_grow((void **)&a, &cap, 16, sizeof *a, 16), TLM_OK);
    assert_ptr_equal(a, before);
    assert_int_equal(cap, 16);
    for (int i = 0; i < 16; i++)
        a[i] = i * 3;
    /* doubles until the need is met: 16 -> 32 -> 64 -> 128 */
    assert_int_equal(tlm_grow((void **)&a, &cap, 100, sizeof *a, 16), TLM_OK);
    assert_int_equal(cap, 128);
    for (int i = 0; i < 16; i++)
        assert_int_equal(a[i], i * 3);
    /* one more: doubles once */
    assert_int_equal(tlm_grow((void **)&a, &cap, 129, sizeof *a, 16), TLM_OK);
    assert_int_equal(cap, 256);
    free(a);
}

static void test_first_zero(void **state)
{
    (void)state;
    char *a = NULL;
    size_t cap = 0;
    /* a first capacity of 0 starts at 1 */
    assert_int_equal(tlm_grow((void **)&a, &cap, 3, 1, 0), TLM_OK);
    assert_int_equal(cap, 4);
    /* a need of 0 still allocates (callers index the array) */
    char *b = NULL;
    size_t bcap = 0;
    assert_int_equal(tlm_grow((void **)&b, &bcap, 0, 1, 8), TLM_OK);
    assert_non_null(b);
    assert_int_equal(bcap, 8);
    free(a);
    free(b);
}

static void test_overflow(void **state)
{
    (void)state;
    double *a = NULL;
    size_t cap = 0;
    assert_int_equal(tlm_grow((void **)&a, &cap, 4, sizeof *a, 4), TLM_OK);
    double *keep = a;
    a[0] = 1.5;
    /* capacity * element size would overflow: refused, array unchanged */
    assert_int_equal(
        tlm_grow((void **)&a, &cap, SIZE_MAX / 4, sizeof *a, 4), TLM_ENOMEM);
    assert_ptr_equal(a, keep);
    assert_int_equal(cap, 4);
    assert_true(a[0] == 1.5);
    /* doubling past SIZE_MAX: refused too */
    assert_int_equal(tlm_grow((void **)&a, &cap, SIZE_MAX, 1, 4), TLM_ENOMEM);
    assert_int_equal(cap, 4);
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_and_doubling),
        cmocka_unit_test(test_first_zero),
        cmocka_unit_test(test_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
