/*
 * test_ops.c - kernel launchers and the op tables (src/report/ops.c):
 * launcher attribution (python functions and "execute" skipped, graph
 * launches outside ops), ops_summary, ops_summary_by_category and
 * ops_unique_args, and its options group_by_num_kernels (num_kernels
 * key) and first_occurrence_time (TraceLens's --group_by_num_kernels,
 * --include_first_occurrence_time).
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

static void test_tables(void **state)
{
    (void)state;
    tr_fix f = tr_open(tr_ops_json(), NULL);
    const tlm_report *r = f.r;

    /* launchers: addmm (GEMM), aten::custom through "execute" (reduce by
     * kernel name), the graph launch itself (other) */
    assert_int_equal(tr_rows(r, "ops_summary"), 3);
    assert_string_equal(tr_cell(r, "ops_summary", 0, "name"), "aten::addmm");
    assert_string_equal(tr_cell(r, "ops_summary", 0, "Categories"),
                        "['GEMM']");
    assert_string_equal(
        tr_cell(r, "ops_summary", 0, "total_direct_kernel_time_sum"),
        "20.0");
    size_t c = tr_find_row(r, "ops_summary", "name", "aten::custom");
    assert_string_equal(tr_cell(r, "ops_summary", c, "Categories"),
                        "['reduce']");
    c = tr_find_row(r, "ops_summary", "name", "cudaGraphLaunch");
    assert_string_equal(
        tr_cell(r, "ops_summary", c, "total_direct_kernel_time_sum"), "4.0");
    double cum = strtod(tr_cell(r, "ops_summary", 2,
                                "Cumulative Percentage (%)"), NULL);
    assert_true(cum > 100.0 - 1e-9 && cum < 100.0 + 1e-9);

    assert_int_equal(tr_rows(r, "ops_summary_by_category"), 3);
    assert_string_equal(
        tr_cell(r, "ops_summary_by_category", 0, "op category"), "GEMM");
    assert_string_equal(tr_cell(r, "ops_summary_by_category", 0,
                                "total_direct_kernel_time_ms"),
                        "0.02");
    assert_string_equal(tr_cell(r, "ops_summary_by_category", 0,
                                "Percentage (%)"),
                        "66.66666666666666");

    c = tr_find_row(r, "ops_unique_args", "name", "aten::addmm");
    assert_string_equal(tr_cell(r, "ops_unique_args", c, "Input Dims"),
                        "((16,), (8, 32), (32, 16))");
    assert_string_equal(tr_cell(r, "ops_unique_args", c, "ex_UID"), "1");
    assert_string_equal(tr_cell(r, "ops_unique_args", c, "thread_name"),
                        "Unknown");
    tr_close(&f);
}

/* aten::mul at epoch-scale ts (above 2^53 ns) T+0.5, then aten::add at
 * T+100.25 (1 kernel, 6 us), T+200 (2 kernels, 3 + 2 us), T+300 (1
 * kernel, 8 us); T = 1700000000000 us. */
static const char *nk_json(void)
{
    return "{'traceEvents':["
        TR_CPU("aten::mul", 1700000000000.5, 10) ","
        TR_RT("cudaLaunchKernel", 1700000000001, 1) ","
        TR_KER("k_mul", 1700000000005, 4, 1) ","
        TR_CPU("aten::add", 1700000000100.25, 10) ","
        TR_RT("cudaLaunchKernel", 1700000000101, 2) ","
        TR_KER("k_add", 1700000000105, 6, 2) ","
        TR_CPU("aten::add", 1700000000200, 10) ","
        TR_RT("cudaLaunchKernel", 1700000000201, 3) ","
        TR_RT("cudaLaunchKernel", 1700000000202, 4) ","
        TR_KER("k_add", 1700000000205, 3, 3) ","
        TR_KER("k_add2", 1700000000210, 2, 4) ","
        TR_CPU("aten::add", 1700000000300, 10) ","
        TR_RT("cudaLaunchKernel", 1700000000301, 5) ","
        TR_KER("k_add", 1700000000305, 8, 5) "]}";
}

/* Index of column col of table tab, -1 when absent. */
static long col_at(const tlm_report *r, const char *tab, const char *col)
{
    long t = tlm_report_table_find(r, tab);
    assert_true(t >= 0);
    for (size_t c = 0; c < tlm_report_table_cols(r, (size_t)t); c++)
        if (!strcmp(tlm_report_table_colname(r, (size_t)t, c), col))
            return (long)c;
    return -1;
}

static void test_num_kernels_first_time(void **state)
{
    (void)state;
    const char *U = "ops_unique_args";
    tr_fix f = tr_open(nk_json(), NULL);
    /* off by default: one aten::add row of 3, no new columns */
    assert_int_equal(tr_rows(f.r, U), 2);
    assert_int_equal(col_at(f.r, U, "num_kernels"), -1);
    assert_int_equal(col_at(f.r, U, "first_occurrence_time"), -1);
    size_t a = tr_find_row(f.r, U, "name", "aten::add");
    assert_string_equal(tr_cell(f.r, U, a, "operation_count"), "3");

    tlm_report_opts o;
    tlm_report_opts_init(&o);
    o.group_by_num_kernels = 1;
    o.first_occurrence_time = 1;
    tr_rebuild(&f, &o);
    assert_int_equal(tr_rows(f.r, U), 3);
    long ci = col_at(f.r, U, "Concrete Inputs");
    assert_int_equal(col_at(f.r, U, "num_kernels"), ci + 1);
    assert_int_equal(col_at(f.r, U, "operation_count"), ci + 2);
    assert_int_equal(col_at(f.r, U, "first_occurrence_time"), ci + 3);
    /* rows by direct time sum: add/1 (14 us), add/2 (5 us), mul (4 us) */
    assert_string_equal(tr_cell(f.r, U, 0, "name"), "aten::add");
    assert_string_equal(tr_cell(f.r, U, 0, "num_kernels"), "1");
    assert_string_equal(tr_cell(f.r, U, 0, "operation_count"), "2");
    assert_string_equal(
        tr_cell(f.r, U, 0, "total_direct_kernel_time_sum"), "14.0");
    /* the earliest launcher of the group minus the table's earliest, from
     * the parsed doubles */
    assert_string_equal(tr_cell(f.r, U, 0, "first_occurrence_time"),
                        "99.75");
    assert_string_equal(tr_cell(f.r, U, 1, "num_kernels"), "2");
    assert_string_equal(tr_cell(f.r, U, 1, "operation_count"), "1");
    assert_string_equal(tr_cell(f.r, U, 1, "first_occurrence_time"),
                        "199.5");
    assert_string_equal(tr_cell(f.r, U, 2, "name"), "aten::mul");
    assert_string_equal(tr_cell(f.r, U, 2, "first_occurrence_time"), "0.0");
    /* ops_summary keeps one row per name */
    assert_int_equal(tr_rows(f.r, "ops_summary"), 2);
    tr_close(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_num_kernels_first_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
