/*
 * test_event.c - the predicates and time conversions of one event
 * (src/trace/event.c and its inline twins in trace_event.h): which events
 * are GPU work (kernel, gpu_memset, gpu_memcpy with ts and a duration
 * >= 0), on hand-made events for every category and through the reader,
 * nanoseconds to TraceLens's microseconds (also above 2^53 ns), the sort
 * keys that tie where those doubles do, and the integer-token flags.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "trace_event.h"

#include "tlm_test_util.h"

static tlm_event ev_of(tlm_cat cat, unsigned flags, int64_t ts, int64_t dur)
{
    tlm_event e;
    memset(&e, 0, sizeof e);
    e.cat = (uint16_t)cat;
    e.flags = (uint8_t)flags;
    e.ts = ts;
    assert_int_equal(tlm_ev_set_dur(&e, dur), TLM_OK);
    e.ph = 'X';
    return e;
}

/* Every category, with ts and dur: only the three GPU ones are GPU work;
 * the public function and the inline twin agree. */
static void test_gpu_categories(void **state)
{
    (void)state;
    const unsigned both = TLM_EV_HAS_TS | TLM_EV_HAS_DUR;
    for (int c = 0; c < TLM_CAT_COUNT; c++) {
        tlm_event e = ev_of((tlm_cat)c, both, 10, 5);
        int want = c == TLM_CAT_KERNEL || c == TLM_CAT_GPU_MEMSET ||
                   c == TLM_CAT_GPU_MEMCPY;
        if (tlm_event_is_gpu(&e) != want)
            fail_msg("category %d (%s): %d", c,
                     tlm_cat_name((tlm_cat)c) ? tlm_cat_name((tlm_cat)c)
                                              : "other",
                     tlm_event_is_gpu(&e));
        assert_int_equal(tlm_ev_gpu(&e), want);
    }
}

/* A GPU category without ts, without dur or with a negative dur is not
 * GPU work; a zero dur is. */
static void test_gpu_times(void **state)
{
    (void)state;
    static const struct {
        unsigned flags;
        int64_t dur;
        int want;
    } t[] = {
        {TLM_EV_HAS_TS | TLM_EV_HAS_DUR, 5, 1},
        {TLM_EV_HAS_TS | TLM_EV_HAS_DUR, 0, 1},
        {TLM_EV_HAS_TS | TLM_EV_HAS_DUR, -1, 0},
        {TLM_EV_HAS_TS, 5, 0},
        {TLM_EV_HAS_DUR, 5, 0},
        {0, 5, 0},
        {TLM_EV_HAS_TS | TLM_EV_HAS_DUR | TLM_EV_PID_STR | TLM_EV_TID_STR,
         5, 1},
    };
    static const tlm_cat gpu[3] = {TLM_CAT_KERNEL, TLM_CAT_GPU_MEMSET,
                                   TLM_CAT_GPU_MEMCPY};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        for (size_t c = 0; c < 3; c++) {
            tlm_event e = ev_of(gpu[c], t[i].flags, 100, t[i].dur);
            if (tlm_event_is_gpu(&e) != t[i].want)
                fail_msg("case %zu, category %s", i, tlm_cat_name(gpu[c]));
        }
}

/* The same through the reader: the flags come from the JSON keys. */
static void test_gpu_read(void **state)
{
    (void)state;
    tlm_trace *t = tt_read_sq(
        "[{'ph':'X','cat':'kernel','ts':1,'dur':2},"
        "{'ph':'X','cat':'gpu_memcpy','ts':1,'dur':0},"
        "{'ph':'X','cat':'gpu_memset','ts':-3,'dur':1.5},"
        "{'ph':'X','cat':'gpu_user_annotation','ts':1,'dur':2},"
        "{'ph':'X','cat':'kernel','ts':1},"
        "{'ph':'X','cat':'kernel','dur':2},"
        "{'ph':'X','cat':'kernel','ts':1,'dur':-0.001},"
        "{'ph':'X','cat':'Kernel','ts':1,'dur':2},"
        "{'ph':'X','cat':'cpu_op','ts':1,'dur':2},"
        "{'ph':'X','ts':1,'dur':2}]");
    static const int want[10] = {1, 1, 1, 0, 0, 0, 0, 0, 0, 0};
    size_t n;
    const tlm_event *ev = tlm_trace_events(t, &n);
    assert_int_equal(n, 10);
    for (size_t i = 0; i < n; i++)
        if (tlm_event_is_gpu(&ev[i]) != want[i])
            fail_msg("event %zu: %d", i, tlm_event_is_gpu(&ev[i]));
    tlm_trace_free(t);
}

/* Microseconds as the correctly rounded quotient (Python's ns / 1000). */
static void test_us(void **state)
{
    (void)state;
    assert_true(tlm_ns_to_us(0) == 0.0);
    assert_true(tlm_ns_to_us(1) == 0.001);
    assert_true(tlm_ns_to_us(-1500) == -1.5);
    assert_true(tlm_ns_to_us(9007199254740993LL) == 9007199254740.992);
    tlm_event e = ev_of(TLM_CAT_KERNEL, TLM_EV_HAS_TS | TLM_EV_HAS_DUR,
                        1428625746277044LL, 2500);
    assert_true(tlm_ev_ts_us(&e) == 1428625746277.044);
    /* ts + dur in double, as TraceLens computes t_end */
    assert_true(tlm_ev_end_us(&e) == 1428625746279.544);
}

/* Above 2^53 ns (epoch microseconds): the double of the decimal, not of
 * (double)ns / 1000, which rounds ns to a multiple of 256 first (spec
 * addendum §A1); sort keys tie where the doubles do. */
static void test_us_big(void **state)
{
    (void)state;
    /* 1712195495521285.337 us: 285.25 (double)ns / 1000 gave 285.5 */
    assert_true(tlm_ns_to_us(1712195495521285337LL) ==
                strtod("1712195495521285.337", NULL));
    assert_true(tlm_ns_to_us(1712195495521285337LL) == 1712195495521285.25);
    assert_true(tlm_ns_to_us(-1712195495521285337LL) ==
                -1712195495521285.25);
    /* integer microseconds stay exact: 1694128201435440 (was ...440.25) */
    assert_true(tlm_ns_to_us(1694128201435440000LL) == 1694128201435440.0);
    assert_true(tlm_ns_to_us(INT64_MAX) ==
                strtod("9223372036854775.807", NULL));
    /* .300 and .337 are the same double: equal keys; .400 is the next */
    int64_t k1 = tlm_ts_key(1712195495521285300LL);
    int64_t k2 = tlm_ts_key(1712195495521285337LL);
    int64_t k3 = tlm_ts_key(1712195495521285400LL);
    assert_true(k1 == k2);
    assert_true(k2 < k3);
    assert_true(k3 == 1712195495521285500LL); /* 285.5 as ns */
    assert_true(tlm_ts_key(-1712195495521285337LL) ==
                -1712195495521285250LL);
    assert_true(tlm_ts_key(12345) == 12345);
}

/* The reader keeps whether ts / dur were integer tokens. */
static void test_int_tokens(void **state)
{
    (void)state;
    tlm_trace *t = tt_read_sq(
        "[{'ph':'X','cat':'kernel','ts':1694128201435418,'dur':7},"
        "{'ph':'X','cat':'kernel','ts':1.5,'dur':2.000},"
        "{'ph':'X','cat':'kernel','ts':12,'dur':1e1},"
        "{'ph':'X','cat':'kernel','ts':1712195495521285.337,'dur':3}]");
    size_t n;
    const tlm_event *ev = tlm_trace_events(t, &n);
    assert_int_equal(n, 4);
    const unsigned both = TLM_EVT_TS_INT | TLM_EVT_DUR_INT;
    assert_int_equal(ev[0].tflags & both, both);
    assert_int_equal(ev[1].tflags & both, 0);
    assert_int_equal(ev[2].tflags & both, TLM_EVT_TS_INT);
    assert_int_equal(ev[3].tflags & both, TLM_EVT_DUR_INT);
    tlm_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_categories),
        cmocka_unit_test(test_gpu_times),
        cmocka_unit_test(test_gpu_read),
        cmocka_unit_test(test_us),
        cmocka_unit_test(test_us_big),
        cmocka_unit_test(test_int_tokens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
