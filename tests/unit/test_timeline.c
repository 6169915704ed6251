/*
 * test_timeline.c - GPU timeline interval algebra (src/timeline.c): nested
 * and touching intervals, zero-length events, several streams and devices
 * pooled, communication hidden or exposed, memcpy, micro/macro idle, the
 * linked-only default and the gpu_timeline table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tlmpi/tlm_report.h"
#include "tlmpi/tlm_trace.h"
#include "tlmpi/tlm_tree.h"

static tlm_trace *rd(const char *sq)
{
    size_t n = strlen(sq);
    char *s = malloc(n + 1);
    assert_non_null(s);
    for (size_t i = 0; i <= n; i++)
        s[i] = sq[i] == '\'' ? '"' : sq[i];
    tlm_trace *t = NULL;
    assert_int_equal(tlm_trace_read_mem(s, n, "t.json", NULL, &t, NULL),
                     TLM_OK);
    free(s);
    return t;
}

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
    tlm_trace *tr = rd(mixed);
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
    tlm_trace *tr = rd("{'traceEvents':["
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
    tlm_trace *tr = rd("{'traceEvents':["
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_algebra),
        cmocka_unit_test(test_hidden),
        cmocka_unit_test(test_double_arith),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
