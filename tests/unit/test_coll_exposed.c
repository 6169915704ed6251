/*
 * test_coll_exposed.c - the split of a rank's exposed communication into
 * exposed transfer, waiting and unknown (src/coll/coll_exposed.c): a rank
 * that waits, the rank that arrives last (no waiting), exposed time
 * partly hidden by computation, overlapping kernels of two collectives,
 * an instance lacking ranks (all unknown) and unmatched kernels.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tlmpi/tlm_coll.h"

static tlm_coll_xsplit split(const int64_t *x, size_t nx,
                             const tlm_coll_xspan *m, size_t nm)
{
    tlm_coll_xsplit s;
    assert_int_equal(tlm_coll_exposed_split(x, nx, m, nm, &s), TLM_OK);
    return s;
}

/* A kernel [100, 300) that waited 150 ns for the last member: 150 of
 * waiting, 50 of transfer; every part adds up to the exposed time. */
static void test_waiting_then_transfer(void **state)
{
    (void)state;
    const int64_t x[] = {100, 300};
    const tlm_coll_xspan m = {100, 300, 150, 0, 1};
    tlm_coll_xsplit s = split(x, 1, &m, 1);
    assert_int_equal(s.waiting_ns, 150);
    assert_int_equal(s.transfer_ns, 50);
    assert_int_equal(s.unknown_ns, 0);
}

/* The rank that arrives last waits 0: all of its exposed time is
 * transfer. */
static void test_last_rank_no_waiting(void **state)
{
    (void)state;
    const int64_t x[] = {250, 300};
    const tlm_coll_xspan m = {250, 300, 0, 0, 1};
    tlm_coll_xsplit s = split(x, 1, &m, 1);
    assert_int_equal(s.waiting_ns, 0);
    assert_int_equal(s.transfer_ns, 50);
    assert_int_equal(s.unknown_ns, 0);
}

/* Computation hides [120, 200) of the kernel: only the exposed pieces
 * count, 20 + 50 of waiting, 50 of transfer. */
static void test_partly_hidden(void **state)
{
    (void)state;
    const int64_t x[] = {100, 120, 200, 300};
    const tlm_coll_xspan m = {100, 300, 150, 0, 1};
    tlm_coll_xsplit s = split(x, 2, &m, 1);
    assert_int_equal(s.waiting_ns, 70);
    assert_int_equal(s.transfer_ns, 50);
    assert_int_equal(s.unknown_ns, 0);
}

/* Two collectives on two streams overlap: A [0, 100) waits until 80, B
 * [50, 150) waits until 60.  [60, 80) is A's waiting but B's transfer:
 * transfer wins, so waiting is [0, 60) and transfer [60, 150). */
static void test_overlapping_kernels(void **state)
{
    (void)state;
    const int64_t x[] = {0, 150};
    const tlm_coll_xspan m[] = {{0, 100, 80, 0, 1}, {50, 150, 10, 0, 1}};
    tlm_coll_xsplit s = split(x, 1, m, 2);
    assert_int_equal(s.waiting_ns, 60);
    assert_int_equal(s.transfer_ns, 90);
    assert_int_equal(s.unknown_ns, 0);
}

/* An instance lacking ranks: no latency known, all of it unknown, also
 * where it overlaps another collective's waiting; exposed time in no
 * member (an unmatched kernel) is unknown too. */
static void test_incomplete_and_unmatched(void **state)
{
    (void)state;
    const int64_t x[] = {0, 100, 500, 600};
    const tlm_coll_xspan m[] = {{0, 100, 0, 0, 0}, {50, 100, 40, 0, 1}};
    tlm_coll_xsplit s = split(x, 2, m, 2);
    assert_int_equal(s.transfer_ns, 10); /* [90, 100) */
    assert_int_equal(s.waiting_ns, 0);   /* [50, 90) is the unknown's */
    assert_int_equal(s.unknown_ns, 190);
}

/* A wait longer than the kernel (clocks off) waits the whole kernel; no
 * member, no exposed time: all zero. */
static void test_edges(void **state)
{
    (void)state;
    const int64_t x[] = {0, 100};
    const tlm_coll_xspan m = {0, 100, 500, 0, 1};
    tlm_coll_xsplit s = split(x, 1, &m, 1);
    assert_int_equal(s.waiting_ns, 100);
    assert_int_equal(s.transfer_ns, 0);
    s = split(NULL, 0, &m, 1);
    assert_int_equal(s.waiting_ns + s.transfer_ns + s.unknown_ns, 0);
    s = split(x, 1, NULL, 0);
    assert_int_equal(s.unknown_ns, 100);
    /* a kernel spanning most of the int64 range (a broken trace): no
     * overflow, the wait still splits it */
    const tlm_coll_xspan big = {INT64_MIN + 10, INT64_MAX - 10, 1000, 0, 1};
    const int64_t xb[] = {INT64_MIN + 10, INT64_MIN + 2010};
    s = split(xb, 1, &big, 1);
    assert_int_equal(s.waiting_ns, 1000);
    assert_int_equal(s.transfer_ns, 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_waiting_then_transfer),
        cmocka_unit_test(test_last_rank_no_waiting),
        cmocka_unit_test(test_partly_hidden),
        cmocka_unit_test(test_overlapping_kernels),
        cmocka_unit_test(test_incomplete_and_unmatched),
        cmocka_unit_test(test_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
