/*
 * test_grow.c - growable arrays (src/util/grow.c): the first capacity,
 * doubling until the need is met, no move when there is room, contents
 * kept across growth, size overflow refused with the array unchanged, and
 * growth through a caller's allocator (tlm_grow_al).
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

/* A counting allocator that fails on request. */
typedef struct counting {
    int calls, fail;
} counting;

static void *c_malloc(void *ctx, size_t n)
{
    (void)ctx;
    return malloc(n ? n : 1);
}

static void *c_realloc(void *ctx, void *p, size_t n)
{
    counting *c = ctx;
    c->calls++;
    return c->fail ? NULL : realloc(p, n ? n : 1);
}

static void c_free(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

static void test_allocator(void **state)
{
    (void)state;
    counting c = {0, 0};
    tlm_alloc a = {c_malloc, c_realloc, c_free, &c};
    int *v = NULL;
    size_t cap = 0;
    /* through the given allocator, doubling as tlm_grow does */
    assert_int_equal(tlm_grow_al(&a, (void **)&v, &cap, 5, sizeof *v, 4),
                     TLM_OK);
    assert_int_equal(cap, 8);
    assert_int_equal(c.calls, 1);
    v[7] = 7;
    /* room: no call */
    assert_int_equal(tlm_grow_al(&a, (void **)&v, &cap, 8, sizeof *v, 4),
                     TLM_OK);
    assert_int_equal(c.calls, 1);
    /* the allocator fails: TLM_ENOMEM, array and capacity unchanged */
    c.fail = 1;
    int *keep = v;
    assert_int_equal(tlm_grow_al(&a, (void **)&v, &cap, 9, sizeof *v, 4),
                     TLM_ENOMEM);
    assert_ptr_equal(v, keep);
    assert_int_equal(cap, 8);
    assert_int_equal(v[7], 7);
    c_free(&c, v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_and_doubling),
        cmocka_unit_test(test_first_zero),
        cmocka_unit_test(test_overflow),
        cmocka_unit_test(test_allocator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
