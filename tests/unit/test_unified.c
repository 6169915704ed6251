/*
 * test_unified.c - unified_perf_summary (src/report/unified.c) of the op
 * tables' small trace: one row per leaf op that launches kernels (addmm
 * with its perf model, "execute" below aten::custom) plus a synthetic row
 * per kernel of a graph launch, numbered after the last UID; its columns
 * in order, the perf columns empty without a model, the percentages; and
 * the option that turns it off.
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

static const char *const columns[] = {
    "name", "op category", "process_name", "process_label", "thread_name",
    "Input Dims", "Input type", "Input Strides", "Concrete Inputs",
    "ex_UID", "operation_count", "total_duration_us", "mean_duration_us",
    "std_duration_us", "GFLOPS", "Data Moved (MB)", "FLOPS/Byte",
    "Compute Spec", "Roofline Bound", "Roofline Time (\xc2\xb5s)",
    "TB/s_mean", "TB/s_std", "TFLOPS/s_mean", "TFLOPS/s_std",
    "Pct Roofline_mean", "Pct Roofline_std", "Kernel Time (\xc2\xb5s)_mean",
    "Kernel Time (\xc2\xb5s)_std", "Kernel Time (\xc2\xb5s)_sum",
    "duration_us_median", "duration_us_min", "duration_us_max",
    "TB/s_median", "TB/s_min", "TB/s_max", "TFLOPS/s_median",
    "TFLOPS/s_min", "TFLOPS/s_max", "Pct Roofline_median",
    "Pct Roofline_min", "Pct Roofline_max", "Kernel Time (\xc2\xb5s)_median",
    "Kernel Time (\xc2\xb5s)_min", "Kernel Time (\xc2\xb5s)_max",
    "kernel_details_summary", "trunc_kernel_details", "perf_params",
    "has_perf_model", "Percentage (%)", "Cumulative Percentage (%)"};

static void test_rows_and_columns(void **state)
{
    (void)state;
    tr_fix f = tr_open(tr_ops_json(), "H100");
    const tlm_report *r = f.r;
    const char *U = "unified_perf_summary";
    long t = tlm_report_table_find(r, U);
    assert_true(t >= 0);
    size_t nc = sizeof columns / sizeof columns[0];
    assert_int_equal(tlm_report_table_cols(r, (size_t)t), nc);
    for (size_t c = 0; c < nc; c++)
        assert_string_equal(tlm_report_table_colname(r, (size_t)t, c),
                            columns[c]);

    /* by kernel time, descending: 20, 6, 2, 2 us of 30 */
    static const char *const want[4][8] = {
        /* name, category, ex_UID, total_duration_us, kernel time sum,
         * has_perf_model, Percentage, Cumulative */
        {"aten::addmm", "GEMM", "1", "50.0", "20.0", "True",
         "66.66666666666666", "66.66666666666666"},
        {"execute", "other", "5", "50.0", "6.0", "False", "20.0",
         "86.66666666666666"},
        {"cudaGraphLaunch->graph_k1 (Synthetic Op)", "other", "11", "1.0",
         "2.0", "False", "6.666666666666667", "93.33333333333333"},
        {"cudaGraphLaunch->graph_k2 (Synthetic Op)", "other", "12", "1.0",
         "2.0", "False", "6.666666666666667", "100.0"}};
    static const char *const wcol[8] = {
        "name", "op category", "ex_UID", "total_duration_us",
        "Kernel Time (\xc2\xb5s)_sum", "has_perf_model", "Percentage (%)",
        "Cumulative Percentage (%)"};
    assert_int_equal(tr_rows(r, U), 4);
    for (size_t i = 0; i < 4; i++)
        for (size_t c = 0; c < 8; c++)
            assert_string_equal(tr_cell(r, U, i, wcol[c]), want[i][c]);

    /* the modelled row: the GEMM sheet's numbers and its parameters */
    assert_string_equal(tr_cell(r, U, 0, "Input Dims"),
                        "((16,), (8, 32), (32, 16))");
    assert_string_equal(tr_cell(r, U, 0, "Input Strides"),
                        "((1,), (32, 1), (16, 1))");
    assert_string_equal(tr_cell(r, U, 0, "GFLOPS"), "8.32e-06");
    assert_string_equal(tr_cell(r, U, 0, "Data Moved (MB)"),
                        "0.001739501953125");
    assert_string_equal(tr_cell(r, U, 0, "Roofline Bound"), "MEMORY_BOUND");
    assert_string_equal(tr_cell(r, U, 0, "Pct Roofline_mean"),
                        "0.0027223880597014925");
    assert_string_equal(
        tr_cell(r, U, 0, "perf_params"),
        "{'M': 8, 'N': 16, 'K': 32, 'bias': True, 'stride_A': (32, 1), "
        "'stride_B': (16, 1), 'dtype_A_B': ('c10::BFloat16', "
        "'c10::BFloat16'), 'B': 1}");
    assert_string_equal(tr_cell(r, U, 0, "trunc_kernel_details"),
                        "[{'name': 'sm90_gemm', 'stream': 7, "
                        "'mean_duration_us': 20.0}]");
    /* one op per row: no standard deviation */
    assert_string_equal(tr_cell(r, U, 0, "std_duration_us"), "");
    /* rows without a model: empty perf columns and no arguments */
    for (size_t i = 1; i < 4; i++) {
        assert_string_equal(tr_cell(r, U, i, "GFLOPS"), "");
        assert_string_equal(tr_cell(r, U, i, "perf_params"), "");
        assert_string_equal(tr_cell(r, U, i, "Input Dims"), "");
        assert_string_equal(tr_cell(r, U, i, "operation_count"), "1");
    }
    assert_string_equal(tr_cell(r, U, 2, "kernel_details_summary"),
                        "[{'name': 'graph_k1', 'stream': 7, 'count': 1, "
                        "'total_duration_us': 2.0, 'mean_duration_us': 2.0, "
                        "'median_duration_us': 2.0, 'std_dev_duration_us': "
                        "0.0, 'min_duration_us': 2.0, 'max_duration_us': "
                        "2.0}]");

    /* unified off: no sheet */
    tlm_report_opts o;
    tlm_report_opts_init(&o);
    o.unified = 0;
    tr_rebuild(&f, &o);
    assert_int_equal(tlm_report_table_find(f.r, U), -1);
    tr_close(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_and_columns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
