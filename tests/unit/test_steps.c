/*
 * test_steps.c - per-step analysis (src/report/steps.c): step selection
 * parsing, the rows of ProfilerStep#N spans with hand-built GPU events
 * (overlapping compute and communication, a kernel crossing a step
 * boundary, memcpy, unlinked events left out, a repeated step number, GPU
 * annotations ignored), no steps giving no rows, and the summary across
 * ranks with its outlier flag.
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

#include "tlm_test_report.h"

/* A linked GPU event: its launch (correlation corr) and itself. */
#define LK(cat, name, ts, dur, stream, corr)                                \
    TR_RT("cudaLaunchKernel", 1, corr) ","                                  \
    "{'ph':'X','cat':'" cat "','name':'" name "','pid':0,'tid':" #stream    \
    ",'ts':" #ts ",'dur':" #dur ",'args':{'correlation':" #corr             \
    ",'stream':" #stream "}}"
#define STEP(cat, n, ts, dur)                                               \
    "{'ph':'X','cat':'" cat "','name':'ProfilerStep#" #n "','pid':1,"       \
    "'tid':1,'ts':" #ts ",'dur':" #dur "}"

static const char *two_steps =
    "{'traceEvents':["
    STEP("user_annotation", 1, 1000, 100) ","
    STEP("cpu_op", 2, 1100, 100) ","
    STEP("gpu_user_annotation", 1, 1000, 300) ","
    "{'ph':'X','cat':'user_annotation','name':'ProfilerStep#x','pid':1,"
    "'tid':1,'ts':1000,'dur':500},"
    LK("kernel", "gemm", 1010, 40, 7, 1) ","
    LK("kernel", "ncclDevKernel_AllReduce", 1040, 40, 9, 2) ","
    LK("kernel", "gemm", 1090, 30, 7, 3) ","
    LK("gpu_memcpy", "Memcpy DtoD", 1150, 10, 7, 4) ","
    "{'ph':'X','cat':'kernel','name':'lonely','pid':0,'tid':7,"
    "'ts':1170,'dur':20,'args':{'correlation':99,'stream':7}}"
    "]}";

typedef struct fix {
    tlm_trace *tr;
    tlm_tree *tree;
} fix;

static fix open_fix(const char *sq)
{
    fix f;
    f.tr = tt_read_sq(sq);
    f.tree = NULL;
    assert_int_equal(tlm_tree_build(f.tr, NULL, &f.tree, NULL), TLM_OK);
    return f;
}

static void close_fix(fix *f)
{
    tlm_tree_free(f->tree);
    tlm_trace_free(f->tr);
}

static void test_rows(void **state)
{
    (void)state;
    fix f = open_fix(two_steps);
    tlm_step_row *r = NULL;
    size_t n = 0;
    assert_int_equal(tlm_steps_compute(f.tree, 3, NULL, &r, &n, NULL),
                     TLM_OK);
    assert_int_equal(n, 2);
    /* step 1 [1000,1100) us: gemm [1010,1050), nccl [1040,1080), the
     * second gemm's [1090,1100) */
    assert_int_equal(r[0].trace_rank, 3);
    assert_int_equal(r[0].step, 1);
    assert_int_equal(r[0].start_ns, 1000000);
    assert_int_equal(r[0].dur_ns, 100000);
    assert_int_equal(r[0].gpu_busy_ns, 80000);
    assert_int_equal(r[0].compute_ns, 50000);
    assert_int_equal(r[0].comm_ns, 40000);
    assert_int_equal(r[0].exposed_comm_ns, 30000);
    assert_int_equal(r[0].idle_ns, 20000);
    assert_int_equal(r[0].n_gpu_events, 3);
    /* step 2 [1100,1200): the gemm's [1100,1120), memcpy [1150,1160);
     * the unlinked kernel is not counted */
    assert_int_equal(r[1].step, 2);
    assert_int_equal(r[1].gpu_busy_ns, 30000);
    assert_int_equal(r[1].compute_ns, 20000);
    assert_int_equal(r[1].comm_ns, 0);
    assert_int_equal(r[1].exposed_comm_ns, 0);
    assert_int_equal(r[1].idle_ns, 70000);
    assert_int_equal(r[1].n_gpu_events, 1);
    free(r);
    close_fix(&f);
}

static void test_selection_rows(void **state)
{
    (void)state;
    fix f = open_fix(two_steps);
    tlm_step_sel sel;
    assert_int_equal(tlm_step_sel_parse("2", &sel, NULL), TLM_OK);
    tlm_step_row *r = NULL;
    size_t n = 0;
    assert_int_equal(tlm_steps_compute(f.tree, 0, &sel, &r, &n, NULL),
                     TLM_OK);
    assert_int_equal(n, 1);
    assert_int_equal(r[0].step, 2);
    free(r);
    assert_int_equal(tlm_step_sel_parse("5-9", &sel, NULL), TLM_OK);
    assert_int_equal(tlm_steps_compute(f.tree, 0, &sel, &r, &n, NULL),
                     TLM_OK);
    assert_int_equal(n, 0);
    assert_null(r);
    close_fix(&f);
}

/* Comm hidden under compute, a repeated step number. */
static void test_hidden_and_repeated(void **state)
{
    (void)state;
    fix f = open_fix("{'traceEvents':["
                     STEP("user_annotation", 7, 100, 10) ","
                     STEP("user_annotation", 7, 150, 50) ","
                     LK("kernel", "k", 100, 100, 7, 1) ","
                     LK("kernel", "ncclKernel_x", 120, 30, 9, 2) "]}");
    tlm_step_row *r = NULL;
    size_t n = 0;
    assert_int_equal(tlm_steps_compute(f.tree, 1, NULL, &r, &n, NULL),
                     TLM_OK);
    assert_int_equal(n, 1);
    assert_int_equal(r[0].step, 7);
    assert_int_equal(r[0].start_ns, 100000);
    assert_int_equal(r[0].dur_ns, 100000);
    assert_int_equal(r[0].gpu_busy_ns, 100000);
    assert_int_equal(r[0].comm_ns, 30000);
    assert_int_equal(r[0].exposed_comm_ns, 0);
    assert_int_equal(r[0].idle_ns, 0);
    free(r);
    close_fix(&f);
}

static void test_no_steps(void **state)
{
    (void)state;
    fix f = open_fix("{'traceEvents':[" LK("kernel", "k", 100, 10, 7, 1)
                     "]}");
    tlm_step_row *r = (tlm_step_row *)&f; /* must be reset */
    size_t n = 5;
    assert_int_equal(tlm_steps_compute(f.tree, 0, NULL, &r, &n, NULL),
                     TLM_OK);
    assert_int_equal(n, 0);
    assert_null(r);
    close_fix(&f);
}

static void test_sel_parse(void **state)
{
    (void)state;
    tlm_step_sel s;
    assert_int_equal(tlm_step_sel_parse(NULL, &s, NULL), TLM_OK);
    assert_int_equal(s.n, 0);
    assert_true(tlm_step_sel_has(&s, 12345));
    assert_true(tlm_step_sel_has(NULL, 0));
    assert_int_equal(tlm_step_sel_parse("3,5-7,10", &s, NULL), TLM_OK);
    assert_int_equal(s.n, 3);
    assert_true(tlm_step_sel_has(&s, 3));
    assert_false(tlm_step_sel_has(&s, 4));
    assert_true(tlm_step_sel_has(&s, 5));
    assert_true(tlm_step_sel_has(&s, 7));
    assert_false(tlm_step_sel_has(&s, 8));
    assert_true(tlm_step_sel_has(&s, 10));
    static const char *bad[] = {"a", "5-3", "1,,2", "-1", "1-", "1,",
                                "3 ", "1.5", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tlm_error err;
        tlm_error_clear(&err);
        assert_int_equal(tlm_step_sel_parse(bad[i], &s, &err), TLM_EINVAL);
        assert_non_null(strstr(err.msg, "--steps"));
        assert_int_equal(s.n, 0);
    }
    char many[512] = "0";
    for (int i = 1; i <= TLM_STEP_SEL_MAX; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), ",%d", i);
    assert_int_equal(tlm_step_sel_parse(many, &s, NULL), TLM_EINVAL);
}

static tlm_step_row row(int32_t rank, int64_t step, int64_t dur)
{
    tlm_step_row r;
    memset(&r, 0, sizeof r);
    r.trace_rank = rank;
    r.step = step;
    r.dur_ns = dur;
    r.gpu_busy_ns = dur / 2;
    r.comm_ns = rank;
    r.exposed_comm_ns = 10 * rank;
    return r;
}

static void test_summarize(void **state)
{
    (void)state;
    /* steps 1..4 on ranks 2, 0, 1 (any order); step 3 is slow on rank 1,
     * step 2 ties on ranks 0 and 2 */
    tlm_step_row rows[] = {
        row(2, 4, 100), row(0, 1, 100), row(1, 3, 150), row(2, 2, 102),
        row(0, 3, 101), row(1, 1, 99),  row(2, 1, 98),  row(0, 2, 102),
        row(1, 2, 100), row(0, 4, 100), row(1, 4, 100), row(2, 3, 100),
    };
    tlm_step_summary *s = NULL;
    size_t n = 0;
    assert_int_equal(tlm_steps_summarize(rows, 12, 0.2, &s, &n), TLM_OK);
    assert_int_equal(n, 4);
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(s[i].step, (int64_t)i + 1);
        assert_int_equal(s[i].n_ranks, 3);
        assert_int_equal(s[i].exposed_comm_max_ns, 20);
        assert_int_equal(s[i].comm_max_ns, 2);
    }
    assert_int_equal(s[0].dur_max_ns, 100);
    assert_int_equal(s[0].slowest_rank, 0);
    assert_int_equal(s[0].dur_min_ns, 98);
    assert_true(s[0].dur_median_ns == 99.0);
    assert_true(s[0].gpu_busy_median_ns == 49.0);
    assert_int_equal(s[1].slowest_rank, 0); /* tie: the lowest rank */
    assert_int_equal(s[2].slowest_rank, 1);
    assert_int_equal(s[2].dur_max_ns, 150);
    /* median of the steps' max (100, 102, 150, 100): 101 */
    assert_true(fabs(s[2].vs_median - 150.0 / 101.0) < 1e-12);
    assert_int_equal(s[2].outlier, 1);
    assert_int_equal(s[0].outlier + s[1].outlier + s[3].outlier, 0);
    free(s);
    /* a looser threshold flags nothing */
    assert_int_equal(tlm_steps_summarize(rows, 12, 0.5, &s, &n), TLM_OK);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(s[i].outlier, 0);
    free(s);
    assert_int_equal(tlm_steps_summarize(rows, 0, 0.2, &s, &n), TLM_OK);
    assert_int_equal(n, 0);
    assert_null(s);
}

/* All steps of zero length: no ratio, no outlier. */
static void test_summarize_zero(void **state)
{
    (void)state;
    tlm_step_row rows[] = {row(0, 1, 0), row(0, 2, 0)};
    tlm_step_summary *s = NULL;
    size_t n = 0;
    assert_int_equal(tlm_steps_summarize(rows, 2, 0.2, &s, &n), TLM_OK);
    assert_int_equal(n, 2);
    assert_true(isnan(s[0].vs_median));
    assert_int_equal(s[0].outlier, 0);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_selection_rows),
        cmocka_unit_test(test_hidden_and_repeated),
        cmocka_unit_test(test_no_steps),
        cmocka_unit_test(test_sel_parse),
        cmocka_unit_test(test_summarize),
        cmocka_unit_test(test_summarize_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
