/*
 * test_hta_events.c - HTA's event table (src/hta/hta_events.c,
 * hta_link.c, hta_filter.c; spec/hta.md §1.1-§1.5): the microsecond
 * rounding (Q1's -1 durations), which entries are kept and their
 * traceEvents index, stream/correlation columns, index_correlation (Q3's
 * 0), the job origin and the iteration filter (Q4), on hand-made traces.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tlmpi/tlm_hta.h"

#include "tlm_test_util.h"

static tlm_hta_events *build(tlm_trace *t, tlm_hta_time tb)
{
    tlm_hta_events *ev = NULL;
    tlm_error err;
    assert_int_equal(tlm_hta_events_build(t, 3, tb, &ev, &err), TLM_OK);
    return ev;
}

/* The spec's examples: ts 150.3 dur 0.4 -> [151, 150] (dur -1); touching
 * an integer -> 0; crossing one -> the whole microseconds inside. */
static void test_round(void **state)
{
    (void)state;
    static const struct {
        int64_t ts, dur, ts_out, dur_out;
    } cases[] = {
        {150300, 400, 151000, -1000},
        {150300, 700, 151000, 0},
        {150300, 1700, 151000, 1000},
        {150000, 400, 150000, 0},
        {150000, 1000, 150000, 1000},
        {0, 0, 0, 0},
        {-500, 1000, 0, 0},
        /* epoch microseconds: the doubles round as Python's do */
        {(int64_t)1700000000123456 * 1000 + 500, 2500,
         (int64_t)1700000000123457 * 1000, 2000},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t ts, dur;
        tlm_hta_round_us(cases[i].ts, cases[i].dur, &ts, &dur);
        assert_int_equal(ts, cases[i].ts_out);
        assert_int_equal(dur, cases[i].dur_out);
    }
}

#define SUBUS                                                             \
    "{'traceEvents':["                                                    \
    "{'ph':'M','name':'process_name','pid':1,'tid':0,'ts':0,"             \
    "'args':{'name':'x'}},"                                               \
    TT_CPU("a", 150.3, 0.4, 1) ","                                        \
    TT_RT("cudaLaunchKernel", 160, 5, 7) ","                              \
    TT_KER("k", 170.5, 3.25, 7, 7) "]}"

/* One fractional ts rounds every event; --hta_time ns keeps them. */
static void test_rounding_applies(void **state)
{
    (void)state;
    tlm_trace *t = tt_read_sq(SUBUS);
    tlm_hta_events *ev = build(t, TLM_HTA_TIME_US);
    assert_int_equal(ev->rounded, 1);
    assert_int_equal(ev->n, 3); /* M dropped */
    assert_int_equal(ev->ev[0].index, 1);
    assert_int_equal(ev->ev[0].ts, 151000);
    assert_int_equal(ev->ev[0].dur, -1000);
    assert_int_equal(ev->n_neg_dur, 1);
    assert_int_equal(ev->ev[2].ts, 171000);
    assert_int_equal(ev->ev[2].dur, 2000); /* floor(173.75) - 171 */
    assert_int_equal(ev->min_ts, 151000);
    tlm_hta_events_free(ev);
    ev = build(t, TLM_HTA_TIME_NS);
    assert_int_equal(ev->rounded, 0);
    assert_int_equal(ev->ev[0].ts, 150300);
    assert_int_equal(ev->ev[0].dur, 400);
    assert_int_equal(ev->n_neg_dur, 0);
    tlm_hta_events_free(ev);
    tlm_trace_free(t);
}

/* Integer timestamps: no rounding even with fractional durations. */
static void test_integer_ts_kept(void **state)
{
    (void)state;
    tlm_trace *t = tt_read_sq("{'traceEvents':[" TT_CPU("a", 10, 0.5, 1)
                              "]}");
    tlm_hta_events *ev = build(t, TLM_HTA_TIME_US);
    assert_int_equal(ev->rounded, 0);
    assert_int_equal(ev->ev[0].dur, 500);
    tlm_hta_events_free(ev);
    tlm_trace_free(t);
}

/* Kept: dur and cat, not "Trace"; [memory] instants with dur 0; index
 * counts every entry; stream/correlation defaults -1; string stream. */
static void test_kept_and_columns(void **state)
{
    (void)state;
    tlm_trace *t = tt_read_sq(
        "{'traceEvents':["
        "{'ph':'X','cat':'Trace','name':'t','pid':1,'tid':1,'ts':1,"
        "'dur':100},"                                               /* 0 */
        TT_FLOW_S(1, 5) ","                                         /* 1 */
        "{'ph':'i','cat':'cpu_instant_event','name':'[memory]',"
        "'pid':1,'tid':1,'ts':6,'s':'t'},"                          /* 2 */
        "{'ph':'X','name':'nocat','pid':1,'tid':1,'ts':7,'dur':1},"  /* 3 */
        "{'ph':'X','cat':'kernel','name':'k','pid':0,'tid':7,'ts':8,"
        "'dur':2,'args':{'stream':'7','correlation':4}},"           /* 4 */
        "{'ph':'X','cat':'gpu_user_annotation','name':'g','pid':0,"
        "'tid':7,'ts':8,'dur':2},"                                  /* 5 */
        TT_RT("cudaLaunchKernel", 3, 1, 4) "]}");                   /* 6 */
    tlm_hta_events *ev = build(t, TLM_HTA_TIME_US);
    assert_int_equal(ev->n, 4);
    assert_int_equal(ev->ev[0].index, 2);
    assert_int_equal(ev->ev[0].dur, 0);
    assert_int_equal(ev->ev[0].stream, -1);
    assert_int_equal(ev->ev[0].corr, -1);
    assert_int_equal(ev->ev[0].icorr, -1);
    assert_int_equal(ev->ev[1].index, 4);
    assert_int_equal(ev->ev[1].stream, 7);
    assert_int_equal(ev->ev[1].gpu_side, 1);
    assert_int_equal(ev->ev[1].icorr, 6);
    assert_int_equal(ev->ev[2].index, 5);
    assert_int_equal(ev->ev[2].gpu_side, 0);
    assert_int_equal(ev->ev[3].icorr, 4);
    assert_non_null(tlm_hta_events_find(ev, 6));
    assert_null(tlm_hta_events_find(ev, 0));
    assert_null(tlm_hta_events_find(ev, 99));
    assert_int_equal(ev->rank, 3);
    tlm_hta_events_free(ev);
    tlm_trace_free(t);
}

/* index_correlation: 0 without a partner (Q3), last pairing wins, the
 * duplicate counted. */
static void test_links(void **state)
{
    (void)state;
    tlm_trace *t = tt_read_sq(
        "{'traceEvents':["
        TT_RT("cudaLaunchKernel", 1, 1, 5) ","   /* 0 */
        TT_KER("k1", 10, 1, 5, 7) ","            /* 1 */
        TT_KER("k2", 12, 1, 5, 7) ","            /* 2 */
        TT_RT("cudaLaunchKernel", 3, 1, 9) ","   /* 3: no partner */
        TT_KER("lonely", 20, 1, 11, 7) "]}");    /* 4 */
    tlm_hta_events *ev = build(t, TLM_HTA_TIME_US);
    assert_int_equal(ev->n, 5);
    assert_int_equal(ev->ev[0].icorr, 2);
    assert_int_equal(ev->ev[1].icorr, 0);
    assert_int_equal(ev->ev[2].icorr, 0);
    assert_int_equal(ev->ev[3].icorr, 0);
    assert_int_equal(ev->ev[4].icorr, 0);
    assert_int_equal(ev->n_dup_corr, 1);
    tlm_hta_events_free(ev);
    tlm_trace_free(t);
}

#define STEPS                                                             \
    "{'traceEvents':["                                                    \
    TT_KER("k_last", 130, 5, 3, 7) ","                     /* 0 */        \
    "{'ph':'X','cat':'user_annotation','name':'ProfilerStep#1',"          \
    "'pid':1,'tid':1,'ts':10,'dur':50},"                   /* 1 */        \
    TT_RT("cudaLaunchKernel", 20, 5, 1) ","                /* 2 */        \
    TT_KER("k_first", 40, 5, 1, 7) ","                     /* 3 */        \
    "{'ph':'X','cat':'user_annotation','name':'ProfilerStep#2',"          \
    "'pid':1,'tid':1,'ts':100,'dur':50},"                  /* 4 */        \
    TT_RT("cudaLaunchKernel", 110, 5, 3) ","               /* 5 */        \
    TT_KER("k_orphan", 60, 5, 99, 7) "]}"                  /* 6 */

/* Two step names: CPU rows before the last step start stay, with the
 * kernels they launched; GPU rows first.  include_last keeps step 2. */
static void test_filter(void **state)
{
    (void)state;
    tlm_trace *t = tt_read_sq(STEPS);
    tlm_hta_events *ev = build(t, TLM_HTA_TIME_US);
    assert_int_equal(ev->n_step_names, 2);
    size_t len;
    const char *s = tlm_hta_events_step_name(ev, 1, &len);
    assert_string_equal(s, "ProfilerStep#2");
    const char *names[] = {"ProfilerStep#1", "ProfilerStep#2",
                           "ProfilerStep#1"};
    assert_int_equal(tlm_hta_count_distinct(names, NULL, 3), 2);
    tlm_error err;
    assert_int_equal(tlm_hta_events_filter(ev, 2, 0, &err), TLM_OK);
    assert_int_equal(ev->filtered, 1);
    assert_int_equal(ev->n, 3);
    assert_int_equal(ev->ev[0].index, 3);
    assert_int_equal(ev->ev[1].index, 1);
    assert_int_equal(ev->ev[2].index, 2);
    assert_null(tlm_hta_events_find(ev, 0));
    assert_non_null(tlm_hta_events_find(ev, 2));
    tlm_hta_events_shift(ev, 10000);
    assert_int_equal(ev->ev[1].ts, 0);
    tlm_hta_events_free(ev);

    ev = build(t, TLM_HTA_TIME_US);
    assert_int_equal(tlm_hta_events_filter(ev, 2, 1, &err), TLM_OK);
    assert_int_equal(ev->n, 6); /* k_last, k_first and 4 CPU rows */
    tlm_hta_events_free(ev);

    /* one step name in the job: nothing filtered */
    ev = build(t, TLM_HTA_TIME_US);
    assert_int_equal(tlm_hta_events_filter(ev, 1, 0, &err), TLM_OK);
    assert_int_equal(ev->filtered, 0);
    assert_int_equal(ev->n, 7);
    tlm_hta_events_free(ev);
    tlm_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round),
        cmocka_unit_test(test_rounding_applies),
        cmocka_unit_test(test_integer_ts_kept),
        cmocka_unit_test(test_kept_and_columns),
        cmocka_unit_test(test_links),
        cmocka_unit_test(test_filter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
