/*
 * test_coverage.c - the ops without a perf model (src/report/coverage.c):
 * - from a report's unified_perf_summary: the modelled GEMM is left out,
 *   the unmodelled leaf op (execute, under aten::custom) and the graph's
 *   synthetic ops are listed with their count and kernel time, the
 *   totals add up to the table's Kernel Time (µs)_sum;
 * - several rows of one name are added together; order by time, then
 *   name;
 * - the Markdown section: top N, the "(k more)" line, the total, names
 *   escaped; "every op has a model"; no unified table (GPU-only trace).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tlm_test_report.h"

#include "coverage.h"

static double col_sum(const tlm_report *r, const char *col)
{
    long t = tlm_report_table_find(r, "unified_perf_summary");
    assert_true(t >= 0);
    double s = 0, v;
    for (size_t i = 0; i < tlm_report_table_rows(r, (size_t)t); i++)
        for (size_t c = 0; c < tlm_report_table_cols(r, (size_t)t); c++)
            if (!strcmp(tlm_report_table_colname(r, (size_t)t, c), col) &&
                tlm_report_cell_num(r, (size_t)t, i, c, &v))
                s += v;
    return s;
}

static void test_from_report(void **state)
{
    (void)state;
    tr_fix f = tr_open(tr_ops_json(), NULL);
    tlm_coverage c;
    assert_int_equal(tlm_report_coverage(f.r, &c), TLM_OK);
    assert_true(c.available);
    assert_true(c.n >= 1);
    int custom = 0;
    for (size_t i = 0; i < c.n; i++) {
        assert_string_not_equal(c.v[i].name, "aten::addmm");
        if (!strcmp(c.v[i].name, "execute")) {
            custom = 1;
            assert_true(fabs(c.v[i].time_us - 6.0) < 1e-9);
            assert_true(c.v[i].count == 1);
        }
        if (i)
            assert_true(c.v[i - 1].time_us >= c.v[i].time_us);
    }
    assert_true(custom);
    assert_true(fabs(c.all_us - col_sum(f.r, "Kernel Time (\xc2\xb5s)_sum")) <
                1e-9);
    assert_true(fabs(c.all_count - col_sum(f.r, "operation_count")) < 1e-9);
    assert_true(c.none_us < c.all_us); /* the GEMM's 20 us are modelled */
    double s = 0;
    for (size_t i = 0; i < c.n; i++)
        s += c.v[i].time_us;
    assert_true(fabs(s - c.none_us) < 1e-9);
    tlm_coverage_free(&c);
    tr_close(&f);
}

static void test_md(void **state)
{
    (void)state;
    tlm_cov_op v[3] = {{"a|b", 2, 3000}, {"x", 1, 2000}, {"y", 4, 1000}};
    tlm_coverage c = {1, 10000, 10, 6000, 7, v, 3, 0};
    tlm_sbuf b;
    tlm_sbuf_init(&b);
    tlm_coverage_md(&c, 2, &b);
    assert_false(b.oom);
    assert_non_null(strstr(b.p, "## Perf-model coverage\n"));
    assert_non_null(strstr(b.p, "3 op names (7 of 10 ops) have no perf "
                                "model: 6.000 ms, 60.0%"));
    assert_non_null(strstr(b.p, "| a\\|b | 3.000 | 30.0 | 2 |\n"));
    assert_non_null(strstr(b.p, "| x | 2.000 | 20.0 | 1 |\n"));
    assert_non_null(strstr(b.p, "| (1 more) | 1.000 | 10.0 | 4 |\n"));
    assert_non_null(strstr(b.p, "| **total without a model** | 6.000 | "
                                "60.0 | 7 |\n"));
    assert_null(strstr(b.p, "no figures"));
    tlm_sbuf_free(&b);
    tlm_coverage all = {1, 5000, 3, 0, 0, NULL, 0, 2};
    tlm_sbuf_init(&b);
    tlm_coverage_md(&all, 10, &b);
    /* issue 33, case 12: ops whose dims are out of range, said */
    assert_non_null(strstr(b.p, "2 ops have a perf model but no figures: "
                                "their dims are out of range"));
    assert_non_null(strstr(b.p, "Every op with GPU time has a perf model "
                                "(3 ops, 5.000 ms)"));
    tlm_sbuf_free(&b);
    tlm_coverage none = {0, 0, 0, 0, 0, NULL, 0, 0};
    tlm_sbuf_init(&b);
    tlm_coverage_md(&none, 10, &b);
    assert_non_null(strstr(b.p, "No unified_perf_summary"));
    tlm_sbuf_free(&b);
}

/* Two kernels of one unmodelled op name under two parents' shapes: the
 * name's rows are added together. */
static void test_merge(void **state)
{
    (void)state;
    const char *sq =
        "{'traceEvents':["
        "{'ph':'X','cat':'cpu_op','name':'aten::cat','pid':1,'tid':1,"
        "'ts':0,'dur':10,'args':{'Input Dims':[[4],[4]]}},"
        TR_RT("cudaLaunchKernel", 1, 1) ","
        TR_KER("cat_kernel", 10, 5, 1) ","
        "{'ph':'X','cat':'cpu_op','name':'aten::cat','pid':1,'tid':1,"
        "'ts':20,'dur':10,'args':{'Input Dims':[[8],[8]]}},"
        TR_RT("cudaLaunchKernel", 21, 2) ","
        TR_KER("cat_kernel", 30, 7, 2) "]}";
    tr_fix f = tr_open(sq, NULL);
    tlm_coverage c;
    assert_int_equal(tlm_report_coverage(f.r, &c), TLM_OK);
    assert_int_equal(c.n, 1);
    assert_string_equal(c.v[0].name, "aten::cat");
    assert_true(c.v[0].count == 2);
    assert_true(fabs(c.v[0].time_us - 12.0) < 1e-9);
    assert_true(fabs(c.none_us - c.all_us) < 1e-9);
    tlm_coverage_free(&c);
    tr_close(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_from_report),
        cmocka_unit_test(test_md),
        cmocka_unit_test(test_merge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
