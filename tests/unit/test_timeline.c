/*
 * test_timeline.c - GPU timeline interval algebra (src/report/timeline.c):
 * nested and touching intervals, zero-length events, several streams and
 * devices pooled, communication hidden or exposed, memcpy, micro/macro
 * idle, the linked-only default and the gpu_timeline sheet.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tlm_test_report.h"

#define GPU(cat, name, ts, dur, pid, stream)                              \
    "{'ph':'X','cat':'" cat "','name':'" name "','pid':" #pid             \
    ",'tid':" #stream ",'ts':" #ts ",'dur':" #dur                         \
    ",'args':{'stream':" #stream "}}"

static const char *mixed =
    "{'traceEvents':["
    GPU("kernel", "k1", 1000, 10, 0, 7) ","        /* [0,10) */
    GPU("kernel", "k2", 1002, 3, 0, 8) ","         /* nested in k1 */
    GPU("kernel", "k3", 1010, 2, 0, 7) ","         /* touches k1 */
    GPU("kernel", "k4", 1020, 0, 0, 7) ","         /* zero length */
    GPU("kernel", "k5", 1030, 5, 1, 3) ","         /* device 1 */
    GPU("kernel", "ncclDevKernel_AllReduce", 1008, 17, 0, 9) ","
    GPU("gpu_memcpy", "Memcpy DtoD", 1040, 2, 0, 7) ","
    GPU("gpu_memset", "Memset (Device)", 1044, 1, 0, 7) "]}";

static void near(double a, double b)
{
    if (!(a > b - 1e-9 && a < b + 1e-9)) {
        fprintf(stderr, "%.17g != %.17g\n", a, b);
        fail();
    }
}

static void test_algebra(void **state)
{
    (void)state;
    tlm_trace *tr = tt_read_sq(mixed);
    tlm_tree *t = NULL;
    assert_int_equal(tlm_tree_build(tr, NULL, &t, NULL), TLM_OK);
    tlm_gpu_timeline g;
    assert_int_equal(tlm_gpu_timeline_compute(t, 1, -1.0, &g, NULL),
                     TLM_OK);
    assert_int_equal(g.n_events, 8);
    /* COMP: [0,12) [20,20) [30,35) [44,45) */
    near(g.computation_us, 18.0);
    near(g.total_comm_us, 17.0);
    /* COMM \ COMP = [12,20) + [20,25) */
    near(g.exposed_comm_us, 13.0);
    near(g.total_memcpy_us, 2.0);
    near(g.exposed_memcpy_us, 2.0);
    /* ALL: [0,25) [30,35) [40,42) [44,45) */
    near(g.busy_us, 33.0);
    near(g.total_us, 45.0);
    near(g.idle_us, 12.0);
    near(g.computation_us + g.exposed_comm_us + g.exposed_memcpy_us +
             g.idle_us,
         g.total_us);
    assert_false(g.has_micro_idle);
    /* gaps [25,30) 5, [35,40) 5, [42,44) 2: threshold 5 is strict */
    assert_int_equal(tlm_gpu_timeline_compute(t, 1, 5.0, &g, NULL), TLM_OK);
    assert_true(g.has_micro_idle);
    near(g.micro_idle_us, 2.0);
    near(g.macro_idle_us, 10.0);
    /* nothing is linked: the default timeline has no events */
    tlm_error err;
    assert_int_equal(tlm_gpu_timeline_compute(t, 0, -1.0, &g, &err),
                     TLM_ENOTFOUND);
    assert_non_null(strstr(err.msg, "is linked to a launch"));
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

/* Communication fully hidden under compute, memcpy partly hidden. */
static void test_hidden(void **state)
{
    (void)state;
    tlm_trace *tr = tt_read_sq("{'traceEvents':["
                       GPU("kernel", "gemm", 100, 50, 0, 7) ","
                       GPU("kernel", "rcclKernel", 110, 20, 0, 8) ","
                       GPU("gpu_memcpy", "Memcpy HtoD", 140, 20, 0, 9) ","
                       GPU("kernel", "__amd_rocclr_copyBuffer.kd", 170,
                           5, 0, 7) ","
                       GPU("kernel", "__amd_rocclr_fillBufferAligned", 180,
                           5, 0, 7) "]}");
    tlm_tree *t = NULL;
    assert_int_equal(tlm_tree_build(tr, NULL, &t, NULL), TLM_OK);
    tlm_gpu_timeline g;
    assert_int_equal(tlm_gpu_timeline_compute(t, 1, -1.0, &g, NULL),
                     TLM_OK);
    near(g.total_comm_us, 20.0);
    near(g.exposed_comm_us, 0.0);
    /* memcpy [140,160) + legacy copy [170,175): exposed [150,160)+5 */
    near(g.total_memcpy_us, 25.0);
    near(g.exposed_memcpy_us, 15.0);
    near(g.computation_us, 55.0); /* gemm + fill kernel */
    near(g.total_us, 85.0);
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

/* Large timestamps: lengths come from ts + dur in double microseconds
 * (TraceLens's arithmetic), e.g. busy 82.27197265625 for dur 82.272. */
static void test_double_arith(void **state)
{
    (void)state;
    tlm_trace *tr = tt_read_sq("{'traceEvents':["
                       GPU("kernel", "k", 1428625746277.044, 82.272, 0, 7)
                       "]}");
    tlm_tree *t = NULL;
    assert_int_equal(tlm_tree_build(tr, NULL, &t, NULL), TLM_OK);
    tlm_gpu_timeline g;
    assert_int_equal(tlm_gpu_timeline_compute(t, 1, -1.0, &g, NULL),
                     TLM_OK);
    double ts = 1428625746277.044;
    double expect = (ts + 82.272) - ts;
    assert_true(g.busy_us == expect);
    tlm_tree_free(t);
    tlm_trace_free(tr);
}

/* The gpu_timeline sheet of r is want[0..n), each a row of three texts:
 * type, time ms, percent. */
static void sheet_is(const tlm_report *r, const char *const *const *want,
                     size_t n)
{
    static const char *const cols[3] = {"type", "time ms", "percent"};
    assert_int_equal(tr_rows(r, "gpu_timeline"), n);
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < 3; c++)
            assert_string_equal(tr_cell(r, "gpu_timeline", i, cols[c]),
                                want[i][c]);
}

/* The gpu_timeline sheet of the op tables' trace: kernels of 20, 6, 2 and
 * 2 us in [10, 415) us, gaps of 180, 194 and 1 us; idle split at 100 us
 * into micro (1 us) and macro idle (374 us). */
static void test_sheet(void **state)
{
    (void)state;
    tr_fix f = tr_open(tr_ops_json(), NULL);
    static const char *const want[10][3] = {
        {"computation_time", "0.03", "7.4074074074074066"},
        {"exposed_comm_time", "0.0", "0.0"},
        {"exposed_memcpy_time", "0.0", "0.0"},
        {"busy_time", "0.03", "7.4074074074074066"},
        {"idle_time", "0.375", "92.5925925925926"},
        {"total_time", "0.405", "100.0"},
        {"total_comm_time", "0.0", "0.0"},
        {"total_memcpy_time", "0.0", "0.0"},
        {"micro_idle_time", "0.001", "0.24691358024691357"},
        {"macro_idle_time", "0.374", "92.34567901234568"}};
    const char *const *plain[8] = {want[0], want[1], want[2], want[3],
                                   want[4], want[5], want[6], want[7]};
    sheet_is(f.r, plain, 8);
    tlm_report_opts o;
    tlm_report_opts_init(&o);
    o.micro_idle_thresh_us = 100.0;
    tr_rebuild(&f, &o);
    const char *const *split[9] = {want[0], want[1], want[2], want[3],
                                   want[8], want[9], want[5], want[6],
                                   want[7]};
    sheet_is(f.r, split, 9);
    tr_close(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_algebra),
        cmocka_unit_test(test_hidden),
        cmocka_unit_test(test_double_arith),
        cmocka_unit_test(test_sheet),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
